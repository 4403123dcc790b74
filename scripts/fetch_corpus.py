"""Snakemake entry: fetch one corpus; write its root folder, corpus.json and files.tsv."""

import logging
from pathlib import Path

from searchbench.corpora import corpus_tree, fetch_corpus
from searchbench.errors import BenchError
from searchbench.fileset import load_languages
from searchbench.scriptmain import run_script


def main(smk) -> None:
    corpus = smk.wildcards.corpus
    try:
        manifest = fetch_corpus(
            name=corpus,
            spec=dict(smk.params.spec),
            dest_root=corpus_tree(smk.output.root, check=False),
            manifest_path=Path(smk.output.manifest),
            files_path=Path(smk.output.files),
            languages=load_languages(Path(smk.params.languages_file)),
            workdir=Path.cwd(),
            checkout_path=Path(smk.output.root),
        )
    except BenchError as exc:
        raise BenchError(f"corpus {corpus}: {exc}") from None
    logging.info("done: %s files, %s bytes", manifest["files"], manifest["bytes"])


run_script(main, snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
