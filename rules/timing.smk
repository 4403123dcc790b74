# Timing runs are separate from quality runs: one at a time across the whole workflow (the
# timing_slot resource, 1 by default), and only after every quality run has finished.
workflow.register_resource("timing_slot", 1)


rule timing:
    input:
        root="resources/corpora/{corpus}",
        queries="results/{corpus}/code/queries.tsv",
        tools="results/tools.json",
        index=tool_index,
        quality_runs=expand(
            "results/{corpus}/{track}/raw/{tool}.jsonl",
            corpus=CORPORA,
            track=TRACKS,
            tool=TOOLS,
        ),
    output:
        "results/{corpus}/timing/{tool}.tsv",
    params:
        spec=lambda wildcards: config["tools"][wildcards.tool],
        timing=config["timing"],
        seed=config["seed"],
        word_match=config["word_match"],
        code=code_hash("timing"),
    resources:
        timing_slot=1,
    log:
        "results/logs/{corpus}/timing.{tool}.log",
    conda:
        "../envs/tools.yaml"
    script:
        "../scripts/timing.py"
