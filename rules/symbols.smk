rule symbols:
    input:
        root="resources/corpora/{corpus}",
        files="results/{corpus}/files.tsv",
        rules=sorted(str(p) for p in ASTGREP_RULES.glob("*.yml")),
    output:
        symbols="results/{corpus}/symbols.tsv",
        unseen="results/{corpus}/unseen.tsv",
    params:
        rules_dir=str(ASTGREP_RULES),
        languages_file=config["languages_file"],
        max_parse_bytes=config["max_parse_bytes"],
        code=code_hash("symbols"),
    threads: 2
    log:
        "results/logs/{corpus}/symbols.log",
    conda:
        "../envs/tools.yaml"
    script:
        "../scripts/symbols.py"
