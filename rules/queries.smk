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
        code=code_hash("queries"),
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
        code=code_hash("gt_audit"),
    script:
        "../scripts/gt_audit.py"
