rule symbols:
    input:
        root="resources/corpora/{corpus}",
        files="results/{corpus}/files.tsv",
        rules=sorted(str(p) for p in ASTGREP_RULES.glob("*.yml")),
    output:
        symbols="results/{corpus}/symbols.tsv",
        unseen="results/{corpus}/unseen.tsv",
    log:
        "results/logs/{corpus}/symbols.log",
    benchmark:
        "results/benchmarks/{corpus}/symbols.tsv"
    conda:
        "../envs/tools.yaml"
    threads: 2
    params:
        rules_dir=lambda wildcards, input: str(Path(input.rules[0]).parent),
        languages_file=config["languages_file"],
        max_parse_bytes=config["max_parse_bytes"],
        max_line_bytes=config["max_line_bytes"],
        rerun_on_code=code_hash("symbols"),
    script:
        "../scripts/symbols.py"
