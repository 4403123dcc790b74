rule resolve_tool:
    input:
        build=tool_build,
    output:
        TOOL_JSON,
    log:
        "results/logs/resolve_tool.{tool}.log",
    benchmark:
        "results/benchmarks/resolve_tool.{tool}.tsv"
    conda:
        "../envs/tools.yaml"
    params:
        spec=lambda wildcards: run_spec(wildcards.tool),
        # What the tool is (real binary, sha256, version, spec), not how PATH found it: the
        # record and every job of this tool rerun when it changes, other tools' jobs do not.
        identity=lambda wildcards: TOOL_IDENTITY[wildcards.tool],
        rerun_on_code=code_hash("resolve_tool"),
    script:
        "../scripts/resolve_tool.py"


rule tools_json:
    input:
        expand(TOOL_JSON, tool=sorted(config["tools"])),
    output:
        TOOLS_JSON,
        # the configured tools not measured, and why (the report's "tools skipped")
        skipped="results/tools_skipped.tsv",
    log:
        "results/logs/tools_json.log",
    benchmark:
        "results/benchmarks/tools_json.tsv"
    conda:
        "../envs/python.yaml"
    params:
        rerun_on_code=code_hash("tools_json"),
    script:
        "../scripts/tools_json.py"


rule build_index:
    input:
        root=CHECKOUT_JSON,
        tool=TOOL_JSON,
    output:
        # a directory: the tool writes its index file or files there (`{index}`)
        index=directory("resources/index/{corpus}/{tool}.idx"),
        # what the build cost (time, memory, size) and whether it was ready within budget
        cost="results/{corpus}/index/{tool}.json",
    log:
        "results/logs/{corpus}/build_index.{tool}.log",
    benchmark:
        "results/benchmarks/{corpus}/build_index.{tool}.tsv"
    conda:
        "../envs/tools.yaml"
    params:
        spec=lambda wildcards: run_spec(wildcards.tool),
        budget=config["index"]["budget_seconds"],
        rerun_on_code=code_hash("build_index"),
    script:
        "../scripts/build_index.py"


rule list_files:
    input:
        root=CHECKOUT_JSON,
        tool=TOOL_JSON,
    output:
        FILESET_TXT,
    log:
        "results/logs/{corpus}/list_files.{tool}.log",
    benchmark:
        "results/benchmarks/{corpus}/list_files.{tool}.tsv"
    conda:
        "../envs/tools.yaml"
    params:
        spec=lambda wildcards: run_spec(wildcards.tool),
        timeout=config["timeout_seconds"],
        rerun_on_code=code_hash("list_files"),
    script:
        "../scripts/list_files.py"


rule fileset_audit:
    input:
        files=FILES_TSV,
        lists=expand("results/{{corpus}}/filesets/{tool}.txt", tool=LISTING_TOOLS),
    output:
        "results/{corpus}/fileset_audit.tsv",
    log:
        "results/logs/{corpus}/fileset_audit.log",
    benchmark:
        "results/benchmarks/{corpus}/fileset_audit.tsv"
    conda:
        "../envs/python.yaml"
    params:
        tools=LISTING_TOOLS,
        unaudited=[t for t in TOOLS if t not in LISTING_TOOLS],
        rerun_on_code=code_hash("fileset_audit"),
    script:
        "../scripts/fileset_audit.py"
