rule resolve_tools:
    output:
        "results/tools.json",
    log:
        "results/logs/resolve_tools.log",
    benchmark:
        "results/benchmarks/resolve_tools.tsv"
    conda:
        "../envs/tools.yaml"
    params:
        tools=config["tools"],
        # Re-resolve when a binary moves, so every run names the binary it measured.
        binaries=TOOL_BINARIES,
        path_env=TOOL_PATH,
        code=code_hash("resolve_tools"),
    script:
        "../scripts/resolve_tools.py"


rule build_index:
    input:
        root="resources/corpora/{corpus}",
        tools="results/tools.json",
    output:
        "resources/index/{corpus}/{tool}.idx",
    log:
        "results/logs/{corpus}/build_index.{tool}.log",
    benchmark:
        "results/benchmarks/{corpus}/build_index.{tool}.tsv"
    conda:
        "../envs/tools.yaml"
    params:
        spec=lambda wildcards: config["tools"][wildcards.tool],
        code=code_hash("build_index"),
    script:
        "../scripts/build_index.py"


rule list_files:
    input:
        root="resources/corpora/{corpus}",
        tools="results/tools.json",
    output:
        "results/{corpus}/filesets/{tool}.txt",
    log:
        "results/logs/{corpus}/list_files.{tool}.log",
    benchmark:
        "results/benchmarks/{corpus}/list_files.{tool}.tsv"
    conda:
        "../envs/tools.yaml"
    params:
        spec=lambda wildcards: config["tools"][wildcards.tool],
        timeout=config["timeout_seconds"],
        code=code_hash("list_files"),
    script:
        "../scripts/list_files.py"


rule fileset_audit:
    input:
        files="results/{corpus}/files.tsv",
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
        code=code_hash("fileset_audit"),
    script:
        "../scripts/fileset_audit.py"
