rule report:
    input:
        scores=expand(
            "results/{corpus}/{track}/scores.tsv", corpus=CORPORA, track=TRACKS
        ),
        inference=expand(
            "results/{corpus}/{track}/inference.json", corpus=CORPORA, track=TRACKS
        ),
        power=expand(
            "results/{corpus}/{track}/power.json", corpus=CORPORA, track=TRACKS
        ),
        fast_path=expand(
            "results/{corpus}/{track}/fastpath/{tool}.json",
            corpus=CORPORA,
            track=TRACKS,
            tool=FAST_PATH_TOOLS,
        ),
        corpus=expand("results/{corpus}/corpus.json", corpus=CORPORA),
        tools="results/tools.json",
        run_status="results/run_status.tsv",
        timing=[table for corpus in CORPORA for table in timing_tables(corpus)],
        funnel=expand("results/{corpus}/code/funnel.tsv", corpus=CORPORA),
        gt_audit=expand("results/{corpus}/code/gt_audit_summary.tsv", corpus=CORPORA),
        fileset_audit=expand("results/{corpus}/fileset_audit.tsv", corpus=CORPORA),
    output:
        html=report(
            "results/report/index.html",
            caption="../report/index.rst",
            category="Report",
        ),
        md="results/report/summary.md",
        csv=report(
            "results/report/summary.csv",
            caption="../report/summary.rst",
            category="Tables",
        ),
        charts=report(
            directory("results/report/charts"),
            caption="../report/charts.rst",
            category="Charts",
            patterns=["{corpus}/{track}/{chart}.svg"],
            subcategory="{corpus}",
            labels={"chart": "{chart}", "track": "{track}"},
        ),
    log:
        "results/logs/report.log",
    benchmark:
        "results/benchmarks/report.tsv"
    conda:
        "../envs/python.yaml"
    params:
        config=config,
        skipped_tools=SKIPPED_TOOLS,
        config_hash=config_hash(),
        command=reproduce_command(),
        code=code_hash("report"),
    script:
        "../scripts/report.py"
