# Timing runs are separate from quality runs: a timing job takes every core, so nothing runs
# beside it, and the timing_slot resource (1 by default) keeps timing jobs one at a time
# even where cores are not the limit (a cluster).
workflow.register_resource("timing_slot", 1)


rule run_status:
    input:
        # One input per track: only the optional tracks' wait on their queries' checkpoint.
        # (every track of searchbench/measures.py TRACK_DECLARATIONS, in its order)
        **{t: (lambda wildcards, t=t: raw_runs(t)) for t in TRACKS},
    output:
        "results/run_status.tsv",
    log:
        "results/logs/run_status.log",
    benchmark:
        "results/benchmarks/run_status.tsv"
    conda:
        "../envs/python.yaml"
    params:
        tool_health=config["tool_health"],
        rerun_on_code=code_hash("run_status"),
    script:
        "../scripts/run_status.py"


# timing.enabled: false leaves the rule out, so no timing job can enter the DAG.
if TIMING_ENABLED:

    rule timing:
        input:
            root=CHECKOUT_JSON,
            queries=CODE_QUERIES_TSV,
            tool=TOOL_JSON,
            index=tool_index,
            # After this tool's quality runs on the corpus (binary and files in the page
            # cache); not other tools', so adding a tool does not rerun anyone else's timing.
            quality_runs=lambda wildcards: on_track(
                "code",
                RAW_JSONL,
                corpus=wildcards.corpus,
                tool=wildcards.tool,
            ),
            # ... and on its other tracks, whichever are declared: none of its searches
            # shares the machine with its timed runs.
            other_quality_runs=lambda wildcards: [
                path
                for track in tool_tracks(wildcards.tool)
                if track != "code"
                for path in on_track(
                    track,
                    RAW_JSONL,
                    corpus=wildcards.corpus,
                    tool=wildcards.tool,
                )
            ],
        output:
            table="results/{corpus}/timing/{tool}.tsv",
            host="results/{corpus}/timing/{tool}.host.json",
            # its plain runs against the quality runs that took the fast path
            fast_path="results/{corpus}/timing/{tool}.fastpath.json",
        log:
            "results/logs/{corpus}/timing.{tool}.log",
        benchmark:
            "results/benchmarks/{corpus}/timing.{tool}.tsv"
        conda:
            "../envs/tools.yaml"
        threads: workflow.cores
        resources:
            timing_slot=1,
        params:
            spec=lambda wildcards: run_spec(wildcards.tool),
            timing=config["timing"],
            seed=config["seed"],
            word_match=config["word_match"],
            rerun_on_code=code_hash("timing"),
        script:
            "../scripts/timing.py"
