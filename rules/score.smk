rule score:
    input:
        queries=QUERIES_TSV,
        qrels=QRELS_TXT,
        runs=track_paths(RUN_FILE),
        raw=track_paths(RAW_JSONL),
    output:
        scores=SCORES_TSV,
        # which tools are broken here (searchbench/health.py): they take no verdict
        health=HEALTH_TSV,
    log:
        "results/logs/{corpus}/{track}/score.log",
    benchmark:
        "results/benchmarks/{corpus}/{track}/score.tsv"
    conda:
        "../envs/python.yaml"
    params:
        baseline=config["baseline"],
        tool_health=config["tool_health"],
        rerun_on_code=code_hash("score"),
    script:
        "../scripts/score.py"


rule inference:
    input:
        scores=SCORES_TSV,
        health=HEALTH_TSV,
    output:
        json="results/{corpus}/{track}/inference.json",
        tsv="results/{corpus}/{track}/inference.tsv",
    log:
        "results/logs/{corpus}/{track}/inference.log",
    benchmark:
        "results/benchmarks/{corpus}/{track}/inference.tsv"
    conda:
        "../envs/python.yaml"
    params:
        design=design,
        # the tools scored on the track: each must have rows (a cut scores.tsv loses some)
        tools=lambda wildcards: track_params(wildcards)["tools"],
        # Every pair no declared family tests, for the report's pairwise table (all-pairs).
        all_pairs=True,
        rerun_on_code=code_hash("inference"),
    script:
        "../scripts/inference.py"


rule power:
    input:
        scores=SCORES_TSV,
    output:
        json="results/{corpus}/{track}/power.json",
    log:
        "results/logs/{corpus}/{track}/power.log",
    benchmark:
        "results/benchmarks/{corpus}/{track}/power.tsv"
    conda:
        "../envs/python.yaml"
    params:
        design=design,
        settings=config["power"],
        rerun_on_code=code_hash("power"),
    script:
        "../scripts/power.py"


rule by_language:
    input:
        scores=[SCORES_TSV],
        health=[HEALTH_TSV],
    output:
        json="results/{corpus}/{track}/by_language.json",
        tsv="results/{corpus}/{track}/by_language.tsv",
    log:
        "results/logs/{corpus}/{track}/by_language.log",
    benchmark:
        "results/benchmarks/{corpus}/{track}/by_language.tsv"
    conda:
        "../envs/python.yaml"
    params:
        corpora=lambda wildcards: [wildcards.corpus],
        design=design,
        rerun_on_code=code_hash("by_language"),
    script:
        "../scripts/by_language.py"


# Every corpus that measured the track, as one sample of queries (searchbench/by_language.py).
rule by_language_pooled:
    input:
        scores=lambda wildcards: on_track(wildcards.track, SCORES_TSV),
        health=lambda wildcards: on_track(wildcards.track, HEALTH_TSV),
    output:
        json="results/pooled/{track}/by_language.json",
        tsv="results/pooled/{track}/by_language.tsv",
    log:
        "results/logs/pooled/{track}/by_language.log",
    benchmark:
        "results/benchmarks/pooled/{track}/by_language.tsv"
    conda:
        "../envs/python.yaml"
    params:
        corpora=lambda wildcards: on_track(wildcards.track, "{corpus}"),
        design=design,
        rerun_on_code=code_hash("by_language"),
    script:
        "../scripts/by_language.py"


# The docs track by stratum (issue 36 item 3): a docs token also declared in the code, or not;
# the same inference as by_language, sliced by stratum (scripts/by_language.py); for each token
# class on its own (track docs: identifier tokens; track words: heading words).
rule docs_strata:
    input:
        scores=lambda wildcards: strata_inputs(wildcards, "scores.tsv"),
        health=lambda wildcards: strata_inputs(wildcards, "health.tsv"),
        declared=lambda wildcards: strata_inputs(wildcards, "declared_in_code.tsv"),
    output:
        json="results/{corpus}/{track}/strata.json",
        tsv="results/{corpus}/{track}/strata.tsv",
    log:
        "results/logs/{corpus}/{track}/strata.log",
    benchmark:
        "results/benchmarks/{corpus}/{track}/docs_strata.tsv"
    wildcard_constraints:
        corpus="|".join(map(re.escape, [*CORPORA, "pooled"])),
        track="|".join(DOCS_CLASSES),
    conda:
        "../envs/python.yaml"
    params:
        corpora=lambda wildcards: strata_corpora(wildcards),
        design=design,
        rerun_on_code=code_hash("by_language"),
    script:
        "../scripts/by_language.py"


# What each hay signal is worth: every ablation comparison, per corpus and language.
rule ablations:
    input:
        documents=lambda wildcards: [path for _, _, path in ablation_documents()],
    output:
        tsv="results/ablations.tsv",
    log:
        "results/logs/ablations.log",
    benchmark:
        "results/benchmarks/ablations.tsv"
    conda:
        "../envs/python.yaml"
    params:
        keys_of_inputs=lambda wildcards: [[t, c] for t, c, _ in ablation_documents()],
        rerun_on_code=code_hash("ablations"),
    script:
        "../scripts/ablations.py"
