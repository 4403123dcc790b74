rule queries:
    input:
        root=CHECKOUT_JSON,
        symbols=SYMBOLS_TSV,
        unseen=UNSEEN_TSV,
    output:
        queries=CODE_QUERIES_TSV,
        qrels="results/{corpus}/code/qrels.txt",
        funnel="results/{corpus}/code/funnel.tsv",
    log:
        "results/logs/{corpus}/queries.log",
    benchmark:
        "results/benchmarks/{corpus}/queries.tsv"
    conda:
        "../envs/python.yaml"
    threads: DRAW_THREADS
    params:
        corpus=lambda wildcards: wildcards.corpus,
        seed=config["seed"],
        n=config["queries_per_corpus"],
        min_length=config["min_symbol_length"],
        kinds=config["query_kinds"],
        rerun_on_code=code_hash("queries"),
    script:
        "../scripts/queries.py"


rule gt_audit:
    input:
        root=CHECKOUT_JSON,
        queries=CODE_QUERIES_TSV,
    output:
        audit="results/{corpus}/code/gt_audit.tsv",
        summary="results/{corpus}/code/gt_audit_summary.tsv",
    log:
        "results/logs/{corpus}/gt_audit.log",
    benchmark:
        "results/benchmarks/{corpus}/gt_audit.tsv"
    conda:
        "../envs/tools.yaml"
    params:
        rerun_on_code=code_hash("gt_audit"),
    script:
        "../scripts/gt_audit.py"


rule doc_headings:
    input:
        root=CHECKOUT_JSON,
        files=FILES_TSV,
        tokens=DOCS_TOKENS_FILE,
    output:
        headings=HEADINGS_TSV,
        unseen=DOCS_UNSEEN_TSV,
        words=HEADING_WORDS_TSV,
    log:
        "results/logs/{corpus}/doc_headings.log",
    benchmark:
        "results/benchmarks/{corpus}/doc_headings.tsv"
    conda:
        "../envs/python.yaml"
    params:
        markups=config["docs"]["markups"],
        unseen_extensions=config["docs"]["unseen_extensions"],
        tokens=DOCS_TOKENS,
        words=DOCS_WORDS,
        rerun_on_code=code_hash("doc_headings"),
    script:
        "../scripts/doc_headings.py"


checkpoint doc_queries:
    input:
        root=CHECKOUT_JSON,
        symbols=HEADINGS_TSV,
        unseen=DOCS_UNSEEN_TSV,
        code_symbols=SYMBOLS_TSV,
    output:
        queries="results/{corpus}/docs/queries.tsv",
        qrels="results/{corpus}/docs/qrels.txt",
        funnel="results/{corpus}/docs/funnel.tsv",
        declared="results/{corpus}/docs/declared_in_code.tsv",
    log:
        "results/logs/{corpus}/doc_queries.log",
    benchmark:
        "results/benchmarks/{corpus}/doc_queries.tsv"
    conda:
        "../envs/python.yaml"
    threads: DRAW_THREADS
    params:
        corpus=lambda wildcards: wildcards.corpus,
        track="docs",
        shape=DOCS_SHAPE,
        seed=config["seed"],
        n=config["queries_per_corpus"],
        min_length=config["min_symbol_length"],
        rerun_on_code=code_hash("queries"),
    script:
        "../scripts/queries.py"


# The docs track's second token class, heading words (issue 36 item 2): a track of its own,
# `words`, drawn beside the identifier tokens and never pooled with them (docs/method.md §3).
checkpoint word_queries:
    input:
        root=CHECKOUT_JSON,
        words=HEADING_WORDS_TSV,
        identifiers=HEADINGS_TSV,
        unseen=DOCS_UNSEEN_TSV,
        code_symbols=SYMBOLS_TSV,
    output:
        queries="results/{corpus}/words/queries.tsv",
        qrels="results/{corpus}/words/qrels.txt",
        funnel="results/{corpus}/words/funnel.tsv",
        declared="results/{corpus}/words/declared_in_code.tsv",
    log:
        "results/logs/{corpus}/word_queries.log",
    benchmark:
        "results/benchmarks/{corpus}/word_queries.tsv"
    conda:
        "../envs/python.yaml"
    params:
        corpus=lambda wildcards: wildcards.corpus,
        seed=config["seed"],
        n=config["docs"]["heading_words"]["queries"] or config["queries_per_corpus"],
        words=DOCS_WORDS,
        rerun_on_code=code_hash("word_queries"),
    script:
        "../scripts/word_queries.py"


# The behavioural track (docs/behaviour.md): only with `behaviour.logs` set. The logs folder's
# content hash is a param, so new transcripts remine and nothing else does.
rule mine_transcripts:
    input:
        logs=BEHAVIOUR_LOGS or [],
    output:
        mined=MINED_TSV,
        report="results/transcripts/mining.tsv",
    log:
        "results/logs/transcripts/mine.log",
    benchmark:
        "results/benchmarks/transcripts/mine_transcripts.tsv"
    conda:
        "../envs/python.yaml"
    params:
        logs=BEHAVIOUR_LOGS,
        logs_revision=lambda wildcards: logs_revision(),
        window=config["behaviour"]["window"],
        min_length=config["behaviour"]["min_length"],
        pins=config["behaviour"]["pins"],
        rerun_on_code=code_hash("mine_transcripts"),
    script:
        "../scripts/mine_transcripts.py"


checkpoint behaviour_queries:
    input:
        root=CHECKOUT_JSON,
        corpus=CORPUS_JSON,
        files=FILES_TSV,
        mined=MINED_TSV,
        offered=behaviour_offered,
    output:
        queries="results/{corpus}/behaviour/queries.tsv",
        qrels="results/{corpus}/behaviour/qrels.txt",
        funnel="results/{corpus}/behaviour/funnel.tsv",
    log:
        "results/logs/{corpus}/behaviour_queries.log",
    benchmark:
        "results/benchmarks/{corpus}/behaviour_queries.tsv"
    conda:
        "../envs/python.yaml"
    params:
        corpus=lambda wildcards: wildcards.corpus,
        repositories=lambda wildcards: behaviour_spec(wildcards.corpus)["repositories"],
        revision=lambda wildcards: behaviour_spec(wildcards.corpus).get("revision", ""),
        seed=config["seed"],
        n=config["queries_per_corpus"],
        min_length=config["behaviour"]["min_length"],
        rerun_on_code=code_hash("behaviour_queries"),
    script:
        "../scripts/behaviour_queries.py"


# The usage track (docs/usage.md): every use of a name the parser sees, then the questions.
rule uses:
    input:
        root=CHECKOUT_JSON,
        files=FILES_TSV,
        rules=sorted(str(p) for p in USES_RULES.glob("*.yml")),
    output:
        uses=USES_TSV,
    log:
        "results/logs/{corpus}/uses.log",
    benchmark:
        "results/benchmarks/{corpus}/uses.tsv"
    conda:
        "../envs/tools.yaml"
    threads: DRAW_THREADS
    params:
        rules_dir=lambda wildcards, input: str(Path(input.rules[0]).parent),
        languages_file=LANGUAGES_FILE,
        max_parse_bytes=config["max_parse_bytes"],
        max_line_bytes=config["max_line_bytes"],
        rerun_on_code=code_hash("uses"),
    script:
        "../scripts/uses.py"


checkpoint usage_queries:
    input:
        root=CHECKOUT_JSON,
        symbols=SYMBOLS_TSV,
        unseen=UNSEEN_TSV,
        uses=USES_TSV,
    output:
        queries=USAGE_QUERIES_TSV,
        qrels="results/{corpus}/usage/qrels.txt",
        funnel="results/{corpus}/usage/funnel.tsv",
        audit="results/{corpus}/usage/audit.tsv",
    log:
        "results/logs/{corpus}/usage_queries.log",
    benchmark:
        "results/benchmarks/{corpus}/usage_queries.tsv"
    conda:
        "../envs/tools.yaml"
    threads: DRAW_THREADS
    params:
        corpus=lambda wildcards: wildcards.corpus,
        seed=config["seed"],
        n=config["queries_per_corpus"],
        min_length=config["min_symbol_length"],
        min_other_files=config["usage"]["min_other_files"],
        max_files=config["usage"]["max_files"],
        audit_sample=config["usage"]["audit_sample"],
        rerun_on_code=code_hash("usage_queries"),
    script:
        "../scripts/usage_queries.py"
