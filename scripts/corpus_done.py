"""results/{corpus}/done.txt: every file of the corpus's report section, with its sha256."""

from pathlib import Path

from searchbench.artifacts import write_text
from searchbench.corpora import sha256_of
from searchbench.scriptmain import run_script


def main(smk) -> None:
    lines = [f"{path}\t{sha256_of(Path(path))}\n" for path in sorted(map(str, smk.input))]
    write_text(Path(smk.output[0]), "".join(lines))


run_script(main, snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
