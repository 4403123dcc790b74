"""Write one run file's ir_metadata sidecar (searchbench/run_metadata.py)."""

from searchbench.artifacts import read_json
from searchbench.run_metadata import run_metadata, write_run_metadata
from searchbench.scriptmain import run_script


def main(smk) -> None:
    record = run_metadata(
        corpus=read_json(smk.input.corpus),
        track=str(smk.wildcards.track),
        tool=read_json(smk.input.tool),
        run_path=smk.input.run,
        queries_path=smk.input.queries,
        qrels_path=smk.input.qrels,
        commit=str(smk.params.commit),
        word_match=bool(smk.params.word_match),
    )
    write_run_metadata(record, smk.output[0])


run_script(main, snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
