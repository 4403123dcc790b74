rule search:
    input:
        unpack(fast_path_inputs),
        root=CHECKOUT_JSON,
        files=FILES_TSV,
        queries=QUERIES_TSV,
        qrels=QRELS_TXT,
        tool=TOOL_JSON,
        index=tool_index,
        on_track=on_tool_track,
        measured=on_measured_track,
    output:
        run=RUN_FILE,
        raw=RAW_JSONL,
        # a seeded sample asked twice (searchbench/repeatability.py)
        repeat="results/{corpus}/{track}/repeat/{tool}.json",
    log:
        "results/logs/{corpus}/{track}/search.{tool}.log",
    benchmark:
        "results/benchmarks/{corpus}/{track}/search.{tool}.tsv"
    conda:
        "../envs/tools.yaml"
    params:
        spec=lambda wildcards: run_spec(wildcards.tool),
        timeout=config["timeout_seconds"],
        word_match=config["word_match"],
        tool_health=config["tool_health"],
        repeat=config["repeatability"],
        seed=config["seed"],
        rerun_on_code=code_hash("search"),
    script:
        "../scripts/search.py"


rule containment:
    input:
        root=CHECKOUT_JSON,
        queries=QUERIES_TSV,
    output:
        CONTAINING_TSV,
    log:
        "results/logs/{corpus}/{track}/containment.log",
    benchmark:
        "results/benchmarks/{corpus}/{track}/containment.tsv"
    conda:
        "../envs/tools.yaml"
    params:
        rerun_on_code=code_hash("containment"),
    script:
        "../scripts/containment.py"


rule fast_path_check:
    input:
        root=CHECKOUT_JSON,
        queries=QUERIES_TSV,
        containing=CONTAINING_TSV,
        tool=TOOL_JSON,
        walk=FILESET_TXT,
        index=tool_index,
        on_track=on_tool_track,
    output:
        "results/{corpus}/{track}/fastpath/{tool}.json",
    log:
        "results/logs/{corpus}/{track}/fast_path_check.{tool}.log",
    benchmark:
        "results/benchmarks/{corpus}/{track}/fast_path_check.{tool}.tsv"
    conda:
        "../envs/tools.yaml"
    params:
        check=config["fast_path_check"],
        seed=config["seed"],
        timeout=config["timeout_seconds"],
        word_match=config["word_match"],
        rerun_on_code=code_hash("fast_path_check"),
    script:
        "../scripts/fast_path_check.py"


# Each run file's provenance, ir_metadata style, beside it (searchbench/run_metadata.py).
rule run_metadata:
    input:
        corpus=CORPUS_JSON,
        queries=QUERIES_TSV,
        qrels=QRELS_TXT,
        tool=TOOL_JSON,
        run=RUN_FILE,
    output:
        "results/{corpus}/{track}/runs/{tool}.run.yaml",
    log:
        "results/logs/{corpus}/{track}/run_metadata.{tool}.log",
    conda:
        "../envs/python.yaml"
    params:
        commit=workflow_commit(),
        word_match=config["word_match"],
        rerun_on_code=code_hash("run_metadata"),
    script:
        "../scripts/run_metadata.py"
