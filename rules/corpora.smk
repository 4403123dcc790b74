rule fetch_corpus:
    # update(): Snakemake neither deletes these before the fetch nor after a failed one, so
    # a fetch that fails keeps the last good checkout (the script swaps in a new one only on
    # success) and the results made from it.
    output:
        root=update(directory("resources/corpora/{corpus}")),
        manifest=update("results/{corpus}/corpus.json"),
        files=update("results/{corpus}/files.tsv"),
    log:
        "results/logs/{corpus}/fetch_corpus.log",
    benchmark:
        "results/benchmarks/{corpus}/fetch_corpus.tsv"
    conda:
        "../envs/tools.yaml"
    params:
        spec=lambda wildcards: corpus_spec(wildcards.corpus),
        languages_file=LANGUAGES_FILE,
        # A local repository is pinned at its HEAD, a directory by its content: a new commit
        # or an edited file refetches that corpus.
        rerun_on_local_revision=lambda wildcards: local_revision(wildcards.corpus),
        rerun_on_code=code_hash("fetch_corpus"),
    script:
        "../scripts/fetch_corpus.py"
