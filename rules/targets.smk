# Targets for people: one file per corpus that brings all of that corpus's work up to date,
# and a clear line, instead of "No rule to produce", for a target that names no corpus.


rule corpus_done:
    input:
        known=lambda wildcards: corpus_targets(wildcards.corpus),
        tracks=lambda wildcards: track_targets(wildcards.corpus),
    output:
        "results/{corpus}/done.txt",
    log:
        "results/logs/{corpus}/corpus_done.log",
    benchmark:
        "results/benchmarks/{corpus}/corpus_done.tsv"
    conda:
        "../envs/python.yaml"
    params:
        rerun_on_code=code_hash("corpus_done"),
    script:
        "../scripts/corpus_done.py"


# Matches only results/ paths outside every corpus's and the run's own names, so it never
# competes with a real rule; its input function ends the run before any job.
rule unknown_target:
    input:
        unknown_target,
    output:
        "results/{unknown}",
    wildcard_constraints:
        unknown=unknown_target_pattern(CORPORA, TRACKS),
    localrule: True


# `snakemake --cores 2 docs_track`: the docs track alone, every corpus, both token classes
# (identifier tokens, track docs; heading words, track words); the code track's symbol tables
# are built too: they say which docs queries are also declared in code.
rule docs_track:
    input:
        drawn=expand(
            "results/{corpus}/{track}/declared_in_code.tsv",
            corpus=CORPORA,
            track=DOCS_CLASSES,
        ),
        measured=lambda wildcards: [
            t
            for c in CORPORA
            for track in DOCS_CLASSES
            for t in track_targets(c, track)
        ],
    localrule: True


# `snakemake --cores 2 usage_track`: the usage track alone, every corpus.
rule usage_track:
    input:
        drawn=expand(USAGE_QUERIES_TSV, corpus=CORPORA),
        measured=lambda wildcards: [
            t for c in CORPORA for t in track_targets(c, "usage")
        ],
    localrule: True
