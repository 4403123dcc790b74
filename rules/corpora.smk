rule fetch_corpus:
    output:
        root=directory("resources/corpora/{corpus}"),
        manifest="results/{corpus}/corpus.json",
        files="results/{corpus}/files.tsv",
    log:
        "results/logs/{corpus}/fetch_corpus.log",
    benchmark:
        "results/benchmarks/{corpus}/fetch_corpus.tsv"
    conda:
        "../envs/tools.yaml"
    params:
        spec=lambda wildcards: corpus_spec(wildcards.corpus),
        languages_file=config["languages_file"],
        # A local repository is pinned at its HEAD, a directory by its content: a new commit
        # or an edited file refetches that corpus.
        local_revision=lambda wildcards: local_revision(wildcards.corpus),
        code=code_hash("fetch_corpus"),
    script:
        "../scripts/fetch_corpus.py"
