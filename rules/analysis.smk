# The method's open questions answered from the run's artifacts (docs/method.md §6, §7, §10).


# Where hay's definition rules fire (in their raw form, hay's word list aside) on lines that declare nothing, by word and language.
rule false_firings:
    input:
        root=CHECKOUT_JSON,
        files=FILES_TSV,
        symbols=SYMBOLS_TSV,
        words=FALSE_FIRING_WORDS_FILE,
    output:
        tsv=FALSE_FIRINGS_TSV,
    log:
        "results/logs/{corpus}/false_firings.log",
    benchmark:
        "results/benchmarks/{corpus}/false_firings.tsv"
    conda:
        "../envs/python.yaml"
    params:
        rerun_on_code=code_hash("false_firings"),
    script:
        "../scripts/false_firings.py"


# Pooled over corpora: the exclusion list the counts call for, and what each list does.
rule false_firing_words:
    input:
        tables=expand(FALSE_FIRINGS_TSV, corpus=CORPORA),
        words=FALSE_FIRING_WORDS_FILE,
    output:
        pooled="results/false_firings.tsv",
        effect="results/false_firing_effect.tsv",
        words="results/false_firing_words.txt",
    log:
        "results/logs/false_firing_words.log",
    benchmark:
        "results/benchmarks/false_firing_words.tsv"
    conda:
        "../envs/python.yaml"
    params:
        corpora=CORPORA,
        rerun_on_code=code_hash("false_firing_words"),
    script:
        "../scripts/false_firing_words.py"


# Filter or rank: the answer's place in each tool's own output, and what sorted before it.
rule filter_rank:
    input:
        root=CHECKOUT_JSON,
        queries=QUERIES_TSV,
        qrels=QRELS_TXT,
        runs=track_paths(RUN_FILE),
        raw=track_paths(RAW_JSONL),
    output:
        tsv="results/{corpus}/{track}/filter_rank.tsv",
        summary="results/{corpus}/{track}/filter_rank_summary.tsv",
    log:
        "results/logs/{corpus}/{track}/filter_rank.log",
    benchmark:
        "results/benchmarks/{corpus}/{track}/filter_rank.tsv"
    conda:
        "../envs/python.yaml"
    params:
        tools=lambda wildcards: track_params(wildcards)["tools"],
        rerun_on_code=code_hash("filter_rank"),
    script:
        "../scripts/filter_rank.py"


# Why tools tie: per pair of tools, identical order and rank, and why ranks differ.
rule ties:
    input:
        qrels=QRELS_TXT,
        scores=SCORES_TSV,
        runs=track_paths(RUN_FILE),
        filesets=lambda wildcards: [
            f"results/{wildcards.corpus}/filesets/{tool}.txt"
            for tool in track_params(wildcards)["listing_tools"]
        ],
    output:
        tsv="results/{corpus}/{track}/ties.tsv",
    log:
        "results/logs/{corpus}/{track}/ties.log",
    benchmark:
        "results/benchmarks/{corpus}/{track}/ties.tsv"
    conda:
        "../envs/python.yaml"
    params:
        tools=lambda wildcards: track_params(wildcards)["tools"],
        listing_tools=lambda wildcards: track_params(wildcards)["listing_tools"],
        corpus=lambda wildcards: wildcards.corpus,
        track=lambda wildcards: wildcards.track,
        rerun_on_code=code_hash("ties"),
    script:
        "../scripts/ties.py"


# Calibration on our own data: the verdict rule's false detections in A/A runs.
rule calibration:
    input:
        scores=SCORES_TSV,
        # a broken tool's pairs leave their family, as in the inference
        health=HEALTH_TSV,
    output:
        tsv=CALIBRATION_TSV,
    log:
        "results/logs/{corpus}/{track}/calibration.log",
    benchmark:
        "results/benchmarks/{corpus}/{track}/calibration.tsv"
    conda:
        "../envs/python.yaml"
    params:
        # the declared families as the inference tests them, the calibration's resamples
        design=design,
        corpus=lambda wildcards: wildcards.corpus,
        rerun_on_code=code_hash("calibration"),
    script:
        "../scripts/calibration.py"


# The run's calibration families with their status: one whose rate stays above alpha is flagged.
rule calibration_status:
    input:
        # One input per track: only the optional tracks' wait on their queries' checkpoint.
        # (every track of searchbench/measures.py TRACK_DECLARATIONS, in its order)
        **{t: (lambda wildcards, t=t: on_track(t, CALIBRATION_TSV)) for t in TRACKS},
    output:
        tsv=CALIBRATION_STATUS_TSV,
    log:
        "results/logs/calibration_status.log",
    benchmark:
        "results/benchmarks/calibration_status.tsv"
    conda:
        "../envs/python.yaml"
    params:
        rerun_on_code=code_hash("calibration_status"),
    script:
        "../scripts/calibration_status.py"


# Cost to an agent: bytes read before the answer, beside MRR, and how the two correlate.
rule agent_cost:
    input:
        scores=SCORES_TSV,
        raw=track_paths(RAW_JSONL),
    output:
        tsv="results/{corpus}/{track}/agent_cost.tsv",
    log:
        "results/logs/{corpus}/{track}/agent_cost.log",
    benchmark:
        "results/benchmarks/{corpus}/{track}/agent_cost.tsv"
    conda:
        "../envs/python.yaml"
    params:
        tools=lambda wildcards: track_params(wildcards)["tools"],
        corpus=lambda wildcards: wildcards.corpus,
        track=lambda wildcards: wildcards.track,
        # ablation variants keep their rows but stay out of the across-tools correlation
        ablations=lambda wildcards: track_params(wildcards)["ablations"],
        rerun_on_code=code_hash("agent_cost"),
    script:
        "../scripts/agent_cost.py"


# The answer first: the track's leaderboard and verdicts pooled over its corpora (corpora
# weighted equally), with the cost figures the run measured (searchbench/pooled.py).
rule pooled:
    input:
        unpack(pooled_inputs),
    output:
        json="results/pooled/{track}.json",
    log:
        "results/logs/pooled/{track}.log",
    benchmark:
        "results/benchmarks/pooled/{track}/pooled.tsv"
    conda:
        "../envs/python.yaml"
    params:
        corpora=lambda wildcards: on_track(wildcards.track, "{corpus}"),
        timing_keys=lambda wildcards: pooled_timing_keys(wildcards.track),
        index_keys=lambda wildcards: pooled_index_keys(wildcards.track),
        repeat_keys=lambda wildcards: pooled_repeat_keys(wildcards.track),
        session_keys=lambda wildcards: pooled_session_keys(wildcards.track),
        index_owner=lambda wildcards: pooled_index_owners(wildcards.track),
        design=design,
        tools=lambda wildcards: track_params(wildcards)["tools"],
        families=lambda wildcards: {
            t: config["tools"][t]["family"] for t in track_tools(wildcards.track)
        },
        languages=lambda wildcards: {
            t: config["tools"][t].get("languages")
            for t in track_tools(wildcards.track)
        },
        no_match_exit=lambda wildcards: {
            t: config["tools"][t].get("no_match_exit", [1])
            for t in track_tools(wildcards.track)
        },
        off_track=lambda wildcards: {
            t: tool_tracks(t) for t in TOOLS if wildcards.track not in tool_tracks(t)
        },
        rerun_on_code=code_hash("pooled"),
    script:
        "../scripts/pooled.py"
