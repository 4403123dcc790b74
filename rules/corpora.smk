rule fetch_corpus:
    # The checkout (resources/corpora/{corpus}/tree) is no output: Snakemake would back up an
    # update() folder by copying it following links. The script swaps in a new tree only on
    # success, then writes checkout.json, so a failed fetch keeps the last good tree. These
    # small records are plain outputs, deleted before the fetch: after a failed one they are
    # missing and the next run fetches again (an update() output is restored and recorded
    # with the failed job's params, so the next run said "Nothing to be done").
    output:
        root=CHECKOUT_JSON,
        manifest=CORPUS_JSON,
        files=FILES_TSV,
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
