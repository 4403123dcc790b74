"""Compare the files each tool searches with the corpus's text files."""

from pathlib import Path

from searchbench.atomic import write_text_atomic
from searchbench.fileset import read_files_tsv
from searchbench.fileset_audit import audit_tool, format_audit, not_audited, target_set

snakemake = globals()["snakemake"]


def main() -> None:
    target = target_set(read_files_tsv(Path(snakemake.input.files)))
    rows = []
    for tool, listing in zip(snakemake.params.tools, snakemake.input.lists, strict=True):
        listed = [line for line in Path(listing).read_text().splitlines() if line]
        rows.append(audit_tool(tool, target, listed))
    rows += [not_audited(tool, target) for tool in snakemake.params.unaudited]
    write_text_atomic(Path(snakemake.output[0]), format_audit(rows))


main()
