"""Count how every quality run ended (results/run_status.tsv)."""

from pathlib import Path

from searchbench.atomic import write_text_atomic
from searchbench.run_status import format_status

snakemake = globals()["snakemake"]

write_text_atomic(Path(snakemake.output[0]), format_status([Path(p) for p in snakemake.input]))
