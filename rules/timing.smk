# Timing runs are separate from quality runs: one at a time across the whole workflow (the
# timing_slot resource, 1 by default), and only after every quality run has finished.
workflow.register_resource("timing_slot", 1)


rule run_status:
    input:
        expand(
            "results/{corpus}/{track}/raw/{tool}.jsonl",
            corpus=CORPORA,
            track=TRACKS,
            tool=TOOLS,
        ),
    output:
        "results/run_status.tsv",
    log:
        "results/logs/run_status.log",
    benchmark:
        "results/benchmarks/run_status.tsv"
    params:
        code=code_hash("run_status"),
    conda:
        "../envs/python.yaml"
    script:
        "../scripts/run_status.py"


rule timing:
    input:
        root="resources/corpora/{corpus}",
        queries="results/{corpus}/code/queries.tsv",
        tools="results/tools.json",
        index=tool_index,
        # After every quality run, so that timed searches never share the machine with them.
        quality_runs="results/run_status.tsv",
    output:
        "results/{corpus}/timing/{tool}.tsv",
    log:
        "results/logs/{corpus}/timing.{tool}.log",
    benchmark:
        "results/benchmarks/{corpus}/timing.{tool}.tsv"
    conda:
        "../envs/tools.yaml"
    resources:
        timing_slot=1,
    params:
        spec=lambda wildcards: config["tools"][wildcards.tool],
        timing=config["timing"],
        seed=config["seed"],
        word_match=config["word_match"],
        code=code_hash("timing"),
    script:
        "../scripts/timing.py"
