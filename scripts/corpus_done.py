"""results/{corpus}/done.txt: every file of the corpus's report section, with its sha256."""

from pathlib import Path

from searchbench.atomic import write_text_atomic
from searchbench.corpora import sha256_of

snakemake = globals()["snakemake"]

lines = [f"{path}\t{sha256_of(Path(path))}\n" for path in sorted(map(str, snakemake.input))]
write_text_atomic(Path(snakemake.output[0]), "".join(lines))
