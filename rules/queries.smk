rule queries:
    input:
        root="resources/corpora/{corpus}",
        symbols="results/{corpus}/symbols.tsv",
        unseen="results/{corpus}/unseen.tsv",
    output:
        queries="results/{corpus}/code/queries.tsv",
        qrels="results/{corpus}/code/qrels.txt",
        funnel="results/{corpus}/code/funnel.tsv",
    log:
        "results/logs/{corpus}/queries.log",
    benchmark:
        "results/benchmarks/{corpus}/queries.tsv"
    conda:
        "../envs/python.yaml"
    threads: 2
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
        root="resources/corpora/{corpus}",
        queries="results/{corpus}/code/queries.tsv",
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
        root="resources/corpora/{corpus}",
        files="results/{corpus}/files.tsv",
        tokens=DOCS_TOKENS_FILE,
    output:
        headings="results/{corpus}/docs/headings.tsv",
        unseen="results/{corpus}/docs/unseen.tsv",
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
        rerun_on_code=code_hash("doc_headings"),
    script:
        "../scripts/doc_headings.py"


checkpoint doc_queries:
    input:
        root="resources/corpora/{corpus}",
        symbols="results/{corpus}/docs/headings.tsv",
        unseen="results/{corpus}/docs/unseen.tsv",
        code_symbols="results/{corpus}/symbols.tsv",
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
    threads: 2
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
