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
        repeat=REPEAT_JSON,
    log:
        "results/logs/{corpus}/{track}/search.{tool}.log",
    benchmark:
        "results/benchmarks/{corpus}/{track}/search.{tool}.tsv"
    wildcard_constraints:
        tool=tool_pattern(t for t in TOOLS if t not in FAST_PATH_TOOLS),
    conda:
        "../envs/tools.yaml"
    params:
        spec=lambda wildcards: run_spec(wildcards.tool),
        timeout=config["timeout_seconds"],
        word_match=config["word_match"],
        tool_health=config["tool_health"],
        repeat=config["repeatability"],
        seed=config["seed"],
        check=config["fast_path_check"],
        rerun_on_code=code_hash("search"),
    script:
        "../scripts/search.py"


# A fast-path tool's search job first checks its fast path against plain runs on a seeded
# sample (searchbench/fastpath.py equivalence_check) and writes that check beside its runs:
# one job, not a check job and a search job (each job costs a process and its imports).
use rule search as search_fast_path with:
    output:
        run=RUN_FILE,
        raw=RAW_JSONL,
        repeat=REPEAT_JSON,
        check=FAST_PATH_JSON,
    wildcard_constraints:
        tool=tool_pattern(FAST_PATH_TOOLS),


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
    benchmark:
        "results/benchmarks/{corpus}/{track}/run_metadata.{tool}.tsv"
    conda:
        "../envs/python.yaml"
    params:
        commit=workflow_commit(),
        word_match=config["word_match"],
        rerun_on_code=code_hash("run_metadata"),
    script:
        "../scripts/run_metadata.py"
