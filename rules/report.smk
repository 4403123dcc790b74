rule report:
    input:
        scores=expand("results/{corpus}/{track}/scores.tsv", corpus=CORPORA, track=TRACKS),
        inference=expand(
            "results/{corpus}/{track}/inference.json", corpus=CORPORA, track=TRACKS
        ),
        corpus=expand("results/{corpus}/corpus.json", corpus=CORPORA),
        tools="results/tools.json",
        timing=expand("results/{corpus}/timing/{tool}.tsv", corpus=CORPORA, tool=TOOLS),
        funnel=expand("results/{corpus}/code/funnel.tsv", corpus=CORPORA),
        gt_audit=expand("results/{corpus}/code/gt_audit_summary.tsv", corpus=CORPORA),
        fileset_audit=expand("results/{corpus}/fileset_audit.tsv", corpus=CORPORA),
    output:
        html="results/report/index.html",
        md="results/report/summary.md",
        csv="results/report/summary.csv",
        charts=directory("results/report/charts"),
    params:
        config=config,
        skipped_tools=SKIPPED_TOOLS,
        config_hash=config_hash(),
        command=reproduce_command(),
        code=code_hash("report"),
    log:
        "results/logs/report.log",
    script:
        "../scripts/report.py"
