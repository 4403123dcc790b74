rule fetch_corpus:
    output:
        root=directory("resources/corpora/{corpus}"),
        manifest="results/{corpus}/corpus.json",
        files="results/{corpus}/files.tsv",
    params:
        spec=lambda wildcards: corpus_spec(wildcards.corpus),
        languages_file=config["languages_file"],
        # A local repository is pinned at its HEAD: a new commit refetches it.
        local_revision=lambda wildcards: local_revision(wildcards.corpus),
        code=code_hash("fetch_corpus"),
    log:
        "results/logs/{corpus}/fetch_corpus.log",
    conda:
        "../envs/tools.yaml"
    script:
        "../scripts/fetch_corpus.py"
