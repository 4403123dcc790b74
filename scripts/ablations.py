"""Every ablation comparison of the run in one table: results/ablations.tsv
(searchbench/ablations.py)."""

from searchbench.ablations import collect, write_ablations
from searchbench.artifacts import read_json
from searchbench.scriptmain import run_script


def main(smk) -> None:
    keys = list(smk.params.keys_of_inputs)
    documents = [
        (track, corpus, read_json(path))
        for (track, corpus), path in zip(keys, smk.input.documents, strict=True)
    ]
    write_ablations(collect(documents), smk.output.tsv)


run_script(main, snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
