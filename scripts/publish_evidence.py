"""Publish this configuration's run into evidence/RUN_NAME/ (rule `publish_evidence`,
searchbench/evidence.py)."""

import os
from pathlib import Path

from searchbench.artifacts import read_json
from searchbench.evidence import (
    copy_summary,
    linked_folders,
    machine_paths_relative,
    provenance,
    write_evidence,
)
from searchbench.scriptmain import run_script


def main(smk) -> None:
    params = smk.params
    tools = read_json(smk.input.tools)
    record = provenance(
        run_name=str(params.run_name),
        commit=str(params.commit),
        config=dict(params.config),
        config_hash=str(params.config_hash),
        command=str(params.command),
        tools=list(tools.values()),  # results/tools.json: name -> record
        corpora=[read_json(p) for p in smk.input.corpora],
        hosts={c: read_json(p) for c, p in zip(params.hosts_by, smk.input.hosts, strict=True)},
    )
    folders = [str(params.repository), os.getcwd()]  # the job runs in the run's directory
    linked = linked_folders(Path(str(params.repository)))

    def relative(value):
        return machine_paths_relative(value, folders, str(Path.home()), linked)

    record = relative(record)
    write_evidence(
        {name: smk.output[name] for name in ("results", "by_language", "provenance", "readme")},
        summary_csv=Path(smk.input.summary).read_text(encoding="utf-8"),
        pooled={
            track: Path(path).read_text(encoding="utf-8")
            for track, path in zip(params.tracks, smk.input.pooled, strict=True)
        },
        record=record,
        summary_md=relative(Path(smk.input.summary_md).read_text(encoding="utf-8")),
    )
    copy_summary(
        Path(smk.input.summary_md),
        Path(smk.input.charts),
        Path(smk.output.summary),
        Path(smk.output.charts),
        rewrite=relative,
    )


run_script(main, snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
