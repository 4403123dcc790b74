rule report:
    input:
        # One input per track: only the docs track's wait on its queries' checkpoint.
        scores=lambda wildcards: on_track("code", "results/{corpus}/{track}/scores.tsv"),
        docs_scores=lambda wildcards: on_track(
            "docs", "results/{corpus}/{track}/scores.tsv"
        ),
        inference=lambda wildcards: on_track(
            "code", "results/{corpus}/{track}/inference.json"
        ),
        docs_inference=lambda wildcards: on_track(
            "docs", "results/{corpus}/{track}/inference.json"
        ),
        power=lambda wildcards: on_track("code", "results/{corpus}/{track}/power.json"),
        docs_power=lambda wildcards: on_track(
            "docs", "results/{corpus}/{track}/power.json"
        ),
        fast_path=lambda wildcards: [
            path
            for tool in FAST_PATH_TOOLS
            for path in on_track(
                "code", "results/{corpus}/{track}/fastpath/{tool}.json", tool=tool
            )
        ],
        docs_fast_path=lambda wildcards: [
            path
            for tool in FAST_PATH_TOOLS
            for path in on_track(
                "docs", "results/{corpus}/{track}/fastpath/{tool}.json", tool=tool
            )
        ],
        corpus=expand("results/{corpus}/corpus.json", corpus=CORPORA),
        tools="results/tools.json",
        run_status="results/run_status.tsv",
        timing=[table for corpus in CORPORA for table in timing_tables(corpus)],
        funnel=expand("results/{corpus}/code/funnel.tsv", corpus=CORPORA),
        docs_funnel=expand("results/{corpus}/docs/funnel.tsv", corpus=CORPORA),
        declared_in_code=expand(
            "results/{corpus}/docs/declared_in_code.tsv", corpus=CORPORA
        ),
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
        rerun_on_skipped_tools=SKIPPED_TOOLS,
        config_hash=config_hash(),
        command=reproduce_command(),
        rerun_on_code=code_hash("report"),
    script:
        "../scripts/report.py"
