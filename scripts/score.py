"""Score every tool's run of one corpus and track: writes scores.tsv (docs/artifacts.md)."""

from pathlib import Path

from searchbench.artifacts import write_text
from searchbench.errors import BenchError
from searchbench.health import HealthRule, health_text, tool_health
from searchbench.metrics import read_raw_records, score_tools, write_scores
from searchbench.queries_io import query_rows
from searchbench.scriptmain import run_script
from searchbench.trec import read_qrels, read_run


def read_languages(path: str) -> dict[str, str]:
    """qid -> language of queries.tsv (text as written, never converted)."""
    return {row["qid"]: row["language"] for row in query_rows(path)}


def main(smk) -> None:
    runs_paths = [Path(p) for p in smk.input.runs]
    raw_paths = [Path(p) for p in smk.input.raw]
    run_tools = [p.stem for p in runs_paths]
    raw_tools = [p.stem for p in raw_paths]
    if run_tools != raw_tools:
        raise BenchError(
            f"runs {run_tools} and raw records {raw_tools} name different tools; "
            "list input.runs and input.raw in the same tool order"
        )
    languages = read_languages(smk.input.queries)
    raw = {tool: read_raw_records(path) for tool, path in zip(raw_tools, raw_paths, strict=True)}
    scores = score_tools(
        list(languages),
        read_qrels(smk.input.qrels),
        {tool: read_run(path) for tool, path in zip(run_tools, runs_paths, strict=True)},
        raw,
        baseline=smk.params.baseline,
        languages=languages,
    )
    rule = HealthRule.of_config(smk.params.tool_health)
    healths = [tool_health(tool, records.values(), rule) for tool, records in raw.items()]
    write_scores(scores, smk.output.scores)
    write_text(Path(smk.output.health), health_text(healths))


run_script(main, snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
