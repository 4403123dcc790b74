rule resolve_tools:
    output:
        "results/tools.json",
    params:
        tools=config["tools"],
        # Re-resolve when a binary moves, so every run names the binary it measured.
        binaries=TOOL_BINARIES,
        path_env=TOOL_PATH,
        code=code_hash("resolve_tools"),
    log:
        "results/logs/resolve_tools.log",
    conda:
        "../envs/tools.yaml"
    script:
        "../scripts/resolve_tools.py"


rule build_index:
    input:
        root="resources/corpora/{corpus}",
        tools="results/tools.json",
    output:
        "resources/index/{corpus}/{tool}.idx",
    params:
        spec=lambda wildcards: config["tools"][wildcards.tool],
        code=code_hash("build_index"),
    log:
        "results/logs/{corpus}/build_index.{tool}.log",
    conda:
        "../envs/tools.yaml"
    script:
        "../scripts/build_index.py"


rule list_files:
    input:
        root="resources/corpora/{corpus}",
        tools="results/tools.json",
    output:
        "results/{corpus}/filesets/{tool}.txt",
    params:
        spec=lambda wildcards: config["tools"][wildcards.tool],
        timeout=config["timeout_seconds"],
        code=code_hash("list_files"),
    log:
        "results/logs/{corpus}/list_files.{tool}.log",
    conda:
        "../envs/tools.yaml"
    script:
        "../scripts/list_files.py"


rule fileset_audit:
    input:
        files="results/{corpus}/files.tsv",
        lists=expand("results/{{corpus}}/filesets/{tool}.txt", tool=LISTING_TOOLS),
    output:
        "results/{corpus}/fileset_audit.tsv",
    params:
        tools=LISTING_TOOLS,
        code=code_hash("fileset_audit"),
    log:
        "results/logs/{corpus}/fileset_audit.log",
    script:
        "../scripts/fileset_audit.py"
