"""Snakemake entry: fetch one corpus; write its root folder, corpus.json and files.tsv."""

import logging
import sys
from pathlib import Path


def main(smk) -> None:
    try:
        import searchbench  # noqa: F401
    except ImportError:  # running from a checkout: the package sits next to scripts/
        sys.path.insert(0, str(Path(smk.scriptdir).resolve().parent))
    from searchbench.corpora import corpus_tree, fetch_corpus
    from searchbench.errors import BenchError
    from searchbench.fileset import load_languages

    logging.basicConfig(
        filename=smk.log[0],
        filemode="w",
        level=logging.INFO,
        format="%(asctime)s %(levelname)s %(message)s",
    )
    corpus = smk.wildcards.corpus
    try:
        manifest = fetch_corpus(
            name=corpus,
            spec=dict(smk.params.spec),
            dest_root=corpus_tree(smk.output.root),
            manifest_path=Path(smk.output.manifest),
            files_path=Path(smk.output.files),
            languages=load_languages(Path(smk.params.languages_file)),
            workdir=Path.cwd(),
        )
    except BenchError as exc:
        logging.error("corpus %s: %s", corpus, exc)
        sys.exit(f"fetch_corpus: corpus {corpus}: {exc}")
    logging.info("done: %s files, %s bytes", manifest["files"], manifest["bytes"])


if __name__ == "__main__" and "snakemake" in globals():
    main(snakemake)  # noqa: F821
