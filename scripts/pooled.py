"""One track's leaderboard and verdicts pooled over its corpora: writes results/pooled/{track}.json
(searchbench/pooled.py). Reads each corpus's scores, health, inference and agent cost, and the
timing tables and index records where they exist; runs no tool."""

from collections.abc import Mapping, Sequence
from pathlib import Path

from searchbench.agent_cost import COLUMNS as AGENT_COST_COLUMNS
from searchbench.artifacts import read_json, read_tsv, write_json
from searchbench.design import Design
from searchbench.errors import BenchError
from searchbench.health import broken_tools, read_health
from searchbench.metrics import check_scored_tools, read_raw_records, read_scores
from searchbench.pooled import (
    CorpusInputs,
    median_wall_seconds,
    pooled_track,
    session_ready_seconds,
)
from searchbench.runner import INDEX_READY
from searchbench.scriptmain import run_script
from searchbench.timing import TIMING_HEADER


def keyed(paths: Sequence[str], keys: Sequence[Sequence[str]], what: str) -> dict[tuple, Path]:
    """(corpus, tool) -> path, from the rule's parallel lists."""
    if len(paths) != len(keys):
        raise BenchError(f"{what}: {len(paths)} inputs but {len(keys)} keys; fix the pooled rule")
    return {tuple(k): Path(p) for k, p in zip(keys, paths, strict=True)}


def agent_cost_rows(path: Path, corpus: str, track: str) -> dict[str, dict[str, str]]:
    rows = read_tsv(path, AGENT_COST_COLUMNS)
    named = sorted({(r["corpus"], r["track"]) for r in rows} - {(corpus, track)})
    if named:
        raise BenchError(
            f"{path} names corpus and track {named}, not {corpus}/{track}; rerun agent_cost"
        )
    return {r["tool"]: r for r in rows}


def index_seconds(
    records: Mapping[tuple, Path], owners: Mapping[str, str], corpus: str
) -> dict[str, float]:
    """tool -> build wall time of the index it searches on this corpus (when it was ready)."""
    out = {}
    for tool, owner in sorted(owners.items()):
        path = records.get((corpus, owner))
        if path is None:
            continue
        record = read_json(path)
        if record.get("status") == INDEX_READY:
            out[tool] = float(record["wall_seconds"])
    return out


def ready_seconds(records: Mapping[tuple, Path], corpus: str) -> dict[str, float]:
    """session tool -> seconds until its session was ready on this corpus: its index time."""
    out = {}
    for (c, tool), path in sorted(records.items()):
        seconds = session_ready_seconds(read_raw_records(path).values()) if c == corpus else None
        if seconds is not None:
            out[tool] = seconds
    return out


def main(smk) -> None:
    params = smk.params
    track = str(smk.wildcards.track)
    corpora = list(params.corpora)
    per_corpus = {
        name: [Path(p) for p in getattr(smk.input, name)]
        for name in ("scores", "health", "inference", "agent_cost")
    }
    for name, paths in per_corpus.items():
        if len(paths) != len(corpora):
            raise BenchError(
                f"{name}: {len(paths)} inputs for {len(corpora)} corpora; fix the pooled rule"
            )
    timing = keyed(list(smk.input.timing), params.timing_keys, "timing")
    index = keyed(list(smk.input.index), params.index_keys, "index")
    repeat = keyed(list(smk.input.repeat), params.repeat_keys, "repeat")
    session = keyed(list(smk.input.session), params.session_keys, "session")
    no_match = {t: tuple(codes) for t, codes in dict(params.no_match_exit).items()}
    inputs = []
    for i, corpus in enumerate(corpora):
        scores = read_scores(per_corpus["scores"][i])
        check_scored_tools(scores, per_corpus["scores"][i], list(params.tools))
        seconds = {
            tool: median_wall_seconds(read_tsv(path, TIMING_HEADER), (0, *no_match.get(tool, (1,))))
            for (c, tool), path in sorted(timing.items())
            if c == corpus
        }
        inputs.append(
            CorpusInputs(
                corpus=corpus,
                scores=scores,
                inference=read_json(per_corpus["inference"][i]),
                broken=broken_tools(read_health(per_corpus["health"][i])),
                agent_cost=agent_cost_rows(per_corpus["agent_cost"][i], corpus, track),
                seconds={t: s for t, s in seconds.items() if s is not None},
                index_seconds={
                    **ready_seconds(session, corpus),
                    **index_seconds(index, dict(params.index_owner), corpus),
                },
                repeat={t: read_json(p) for (c, t), p in sorted(repeat.items()) if c == corpus},
            )
        )
    result = pooled_track(
        inputs,
        Design.from_params(params.design),
        families=dict(params.families),
        languages=dict(params.languages),
        off_track=dict(params.off_track),
    )
    write_json(smk.output.json, result)


run_script(main, snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
