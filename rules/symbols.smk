# The symbol pass, scattered over file shards (config `symbols.shards`) and gathered:
# symbols.tsv and unseen.tsv are byte-identical whatever the number of shards.
SYMBOL_SHARDS = config["symbols"]["shards"]


rule symbols_shard:
    input:
        root=CHECKOUT_JSON,
        files=FILES_TSV,
        rules=sorted(str(p) for p in ASTGREP_RULES.glob("*.yml")),
    output:
        symbols="results/{corpus}/symbols/{shard}-of-{shards}/symbols.tsv",
        unseen="results/{corpus}/symbols/{shard}-of-{shards}/unseen.tsv",
    log:
        "results/logs/{corpus}/symbols_shard.{shard}-of-{shards}.log",
    benchmark:
        "results/benchmarks/{corpus}/symbols_shard.{shard}-of-{shards}.tsv"
    wildcard_constraints:
        shard=r"0|[1-9][0-9]*",
        shards=r"[1-9][0-9]*",
    conda:
        "../envs/tools.yaml"
    threads: DRAW_THREADS
    params:
        rules_dir=lambda wildcards, input: str(Path(input.rules[0]).parent),
        languages_file=LANGUAGES_FILE,
        max_parse_bytes=config["max_parse_bytes"],
        max_line_bytes=config["max_line_bytes"],
        rerun_on_code=code_hash("symbols_shard"),
    script:
        "../scripts/symbols_shard.py"


rule symbols:
    input:
        symbols=expand(
            "results/{{corpus}}/symbols/{shard}-of-{shards}/symbols.tsv",
            shard=range(SYMBOL_SHARDS),
            shards=SYMBOL_SHARDS,
        ),
        unseen=expand(
            "results/{{corpus}}/symbols/{shard}-of-{shards}/unseen.tsv",
            shard=range(SYMBOL_SHARDS),
            shards=SYMBOL_SHARDS,
        ),
    output:
        symbols=SYMBOLS_TSV,
        unseen=UNSEEN_TSV,
    log:
        "results/logs/{corpus}/symbols.log",
    benchmark:
        "results/benchmarks/{corpus}/symbols.tsv"
    conda:
        "../envs/python.yaml"
    params:
        rerun_on_code=code_hash("symbols"),
    script:
        "../scripts/symbols.py"
