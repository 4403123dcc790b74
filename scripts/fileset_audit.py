"""Compare the files each tool searches with the corpus's text files."""

from pathlib import Path

from searchbench.artifacts import write_text
from searchbench.fileset import read_files_tsv
from searchbench.fileset_audit import audit_tool, format_audit, not_audited, target_set
from searchbench.scriptmain import run_script


def main(smk) -> None:
    target = target_set(read_files_tsv(Path(smk.input.files)))
    rows = []
    for tool, listing in zip(smk.params.tools, smk.input.lists, strict=True):
        listed = [line for line in Path(listing).read_text().splitlines() if line]
        rows.append(audit_tool(tool, target, listed))
    rows += [not_audited(tool, target) for tool in smk.params.unaudited]
    write_text(Path(smk.output[0]), format_audit(rows))


run_script(main, snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
