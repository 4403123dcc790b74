rule queries:
    input:
        root="resources/corpora/{corpus}",
        symbols="results/{corpus}/symbols.tsv",
        unseen="results/{corpus}/unseen.tsv",
    output:
        queries="results/{corpus}/code/queries.tsv",
        qrels="results/{corpus}/code/qrels.txt",
        funnel="results/{corpus}/code/funnel.tsv",
    params:
        corpus=lambda wildcards: wildcards.corpus,
        seed=config["seed"],
        n=config["queries_per_corpus"],
        min_length=config["min_symbol_length"],
        code=code_hash("queries"),
    log:
        "results/logs/{corpus}/queries.log",
    script:
        "../scripts/queries.py"


rule gt_audit:
    input:
        root="resources/corpora/{corpus}",
        queries="results/{corpus}/code/queries.tsv",
    output:
        audit="results/{corpus}/code/gt_audit.tsv",
        summary="results/{corpus}/code/gt_audit_summary.tsv",
    params:
        code=code_hash("gt_audit"),
    log:
        "results/logs/{corpus}/gt_audit.log",
    conda:
        "../envs/tools.yaml"
    script:
        "../scripts/gt_audit.py"
