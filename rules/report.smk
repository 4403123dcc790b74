rule report:
    input:
        # Every artifact of searchbench/report/inputs.py ARTIFACTS, one named input each;
        # each optional track's are separate: only they wait on its queries' checkpoint.
        # (every track of searchbench/measures.py TRACK_DECLARATIONS, in its order)
        *[unpack(lambda wildcards, t=t: report_input_paths(t)) for t in TRACKS],
    output:
        html=report(
            REPORT_HTML,
            caption="../report/index.rst",
            category="Report",
        ),
        md=REPORT_SUMMARY_MD,
        csv=report(
            REPORT_SUMMARY_CSV,
            caption="../report/summary.rst",
            category="Tables",
        ),
        charts=report(
            directory(REPORT_CHARTS),
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
        # each input's wildcard values, in input order: the report reads no name from a path
        input_keys=lambda wildcards: report_input_keys(),
        config=config,
        rerun_on_skipped_tools=SKIPPED_TOOLS,
        config_hash=config_hash(),
        command=reproduce_command(),
        commit=workflow_commit(),
        rerun_on_code=code_hash("report"),
    script:
        "../scripts/report.py"
