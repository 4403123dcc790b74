"""The published run (issue 15 item 8): evidence/{run_name}/ in the repository holds what a
reader needs without running anything, and what a tool author compares a change against.

- results.csv: the report's summary.csv (per corpus, track, subset, tool and metric: queries,
  trivial share, mean, the reference's mean, diff, 95% CI, raw and Holm p, family, verdict);
- by_language.tsv: the pooled per-language comparisons of each measured track;
- provenance.json: code commit, configuration (and its hash), corpus revisions and archives,
  tool versions, binaries and sha256, and the host record of the timing runs;
- README.md: what is here, the command that regenerated it, and the primary questions' result;
- summary.md and charts/: the report's Markdown summary (its leaderboard first) with the chart
  files it links, so a reader on the repository page sees the answer without running anything.

Paths are recorded relative to the repository (and the home folder as ~): a published run
names no folder of the machine it ran on. Every file but provenance.json's host record is
byte-identical for the same inputs.
"""

from __future__ import annotations

import csv
import io
import os
import re
import shutil
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from searchbench.artifacts import json_text, write_text
from searchbench.errors import BenchError
from searchbench.measures import METRIC_LABELS, PRIMARY_METRIC, primary_metric_of

TOOL_KEYS = ("name", "version", "binary", "binary_target", "sha256", "family", "description")
CORPUS_KEYS = ("corpus", "description", "kind", "source", "pinned_revision", "resolved_revision",
               "archives", "files", "bytes")  # fmt: skip


def provenance(
    *,
    run_name: str,
    commit: str,
    config: Mapping[str, Any],
    config_hash: str,
    command: str,
    tools: Sequence[Mapping[str, Any]],
    corpora: Sequence[Mapping[str, Any]],
    hosts: Mapping[str, Mapping[str, Any]],
) -> dict[str, Any]:
    return {
        "run_name": run_name,
        "code_commit": commit,
        "command": command,
        "config_hash": config_hash,
        "config": dict(config),
        "tools": [
            {k: t.get(k) for k in TOOL_KEYS} for t in sorted(tools, key=lambda t: str(t["name"]))
        ],
        "corpora": [
            {k: c.get(k) for k in CORPUS_KEYS}
            for c in sorted(corpora, key=lambda c: str(c.get("corpus")))
        ],
        "hosts": dict(sorted(hosts.items())),
    }


def linked_folders(repository: Path) -> dict[str, str]:
    """The folders the repository's top-level links point to, by the link's name (a checkout
    whose .venv links to another checkout's venv: its binaries resolve outside the repository
    but are the repository's .venv)."""
    return {
        str(entry.resolve()): entry.name
        for entry in sorted(repository.iterdir())
        if entry.is_symlink() and entry.is_dir()
    }


def machine_paths_relative(
    value: Any, folders: Sequence[str], home: str, linked: Mapping[str, str] | None = None
) -> Any:
    """Every string of a record with these folders made relative (the repository, the run's
    working directory: the command is run from it), a linked folder (linked_folders) named
    by its link, and the home folder written ~ (tool binaries, version lines naming a
    binary, the command, a --configfile beside the run)."""
    if isinstance(value, str):
        for target, name in sorted((linked or {}).items(), key=lambda kv: -len(kv[0])):
            value = value.replace(target.rstrip("/") + "/", name + "/")
        # the longest first: a working directory inside the repository keeps its own prefix
        for folder in sorted({f.rstrip("/") for f in folders if f.strip("/")}, key=len)[::-1]:
            value = value.replace(folder + "/", "")
        return value.replace(home.rstrip("/") + "/", "~/") if home.strip("/") else value
    if isinstance(value, Mapping):
        return {k: machine_paths_relative(v, folders, home, linked) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [machine_paths_relative(v, folders, home, linked) for v in value]
    return value


# A chart a Markdown summary shows: ![caption](charts/...)
CHART_LINK = re.compile(r"!\[[^\]]*\]\((charts/[^)\s]+)\)")


def linked_charts(summary_md: str) -> list[str]:
    """The chart files a summary links, relative to it, sorted and once each."""
    return sorted(set(CHART_LINK.findall(summary_md)))


def copy_summary(
    summary_md: Path,
    charts_from: Path,
    summary_to: Path,
    charts_to: Path,
    rewrite: Callable[[str], str] = str,
) -> None:
    """The summary and the charts it links (only those: the report writes many more); its text
    passes through rewrite (machine_paths_relative)."""
    text = summary_md.read_text(encoding="utf-8")
    if charts_to.exists():
        shutil.rmtree(charts_to)
    charts_to.mkdir(parents=True)
    for link in linked_charts(text):
        source = charts_from / Path(link).relative_to("charts")
        if not source.is_file():
            raise BenchError(f"{summary_md} links {link}, which the report did not write")
        target = charts_to / Path(link).relative_to("charts")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
    write_text(summary_to, rewrite(text))


def primary_rows(summary_csv: str) -> list[dict[str, str]]:
    """The primary questions' rows over all queries on each track's primary metric (MRR;
    nDCG@10 where a question has several right files), from summary.csv."""
    rows = csv.DictReader(io.StringIO(summary_csv))
    return [
        r
        for r in rows
        if r.get("family") == "primary"
        and r["metric"] == primary_metric_of(r["track"])
        and r["subset"] == "all"
    ]


def primary_table_head(rows: Sequence[Mapping[str, str]]) -> tuple[str, str, bool]:
    """The table's scope, its value columns' name, and whether each track names its metric:
    one metric (MRR on the one-answer tracks) names the table as before; several name theirs
    per row."""
    metrics = {r["metric"] for r in rows} or {PRIMARY_METRIC}
    if len(metrics) == 1:
        label = dict(METRIC_LABELS)[metrics.pop()]
        return label, label, False
    return "each track's primary metric", "mean", True


def _num(text: str, signed: bool = False) -> str:
    if text in ("", None):
        return "–"
    return f"{float(text):+.3f}" if signed else f"{float(text):.3f}"


def _p(text: str) -> str:
    return "–" if text in ("", None) else f"{float(text):.2g}"


def leaderboards(summary_md: str) -> list[str]:
    """The summary's leaderboard sections (each "## Leaderboard…" heading up to the next
    "## "), so the published README opens on them as the page does."""
    out: list[str] = []
    keep = False
    for line in summary_md.splitlines():
        if line.startswith("## "):
            keep = line.startswith("## Leaderboard")
        if keep:
            out.append(line)
    return out + [""] if out else []


def readme(run_name: str, commit: str, command: str, summary_csv: str, summary_md: str = "") -> str:
    primary = primary_rows(summary_csv)
    scope, value, per_row = primary_table_head(primary)
    lines = [
        f"# Published run: {run_name}",
        "",
        f"Produced by `{command}` at code commit `{commit}`, then `snakemake --cores 2 evidence`"
        " (same configuration) to copy it here. Regenerate it the same way; compare another "
        f"run with it: `./bench compare evidence/{run_name} results`.",
        "",
        "**The answer first: [summary.md](summary.md)** (the leaderboard of each track, the "
        "pooled verdicts and the charts of the run's report).",
        "",
        *leaderboards(summary_md),
        "- `results.csv`: every comparison (per corpus, track, subset, tool, metric): n, "
        "means, diff with its 95% bootstrap interval, randomization p raw and Holm-adjusted "
        "within its family, family, verdict (the report's summary.csv).",
        "- `by_language.tsv`: the declared comparisons per language, pooled over corpora.",
        "- `provenance.json`: code commit, configuration, corpus revisions, tool versions and "
        "sha256, the host the timing ran on.",
        "",
        f"## Primary questions ({scope}, all queries)",
        "",
        f"| corpus | track | tool | vs | n | {value} | reference {value} | diff [95% CI] | p "
        "| Holm p | verdict |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in primary:
        track = f"{r['track']} ({dict(METRIC_LABELS)[r['metric']]})" if per_row else r["track"]
        lines.append(
            f"| {r['corpus']} | {track} | {r['tool']} | {r['baseline']} | {r['queries']} "
            f"| {_num(r['mean'])} | {_num(r['mean_base'])} | {_num(r['diff'], True)} "
            f"[{_num(r['ci_low'], True)}, {_num(r['ci_high'], True)}] "
            f"| {_p(r['p_randomization'])} | {_p(r['p_holm'])} | {r['verdict']} |"
        )
    return "\n".join(lines) + "\n"


def pooled_tsv(tables: Mapping[str, str]) -> str:
    """The pooled by_language.tsv of each track as one table with a leading track column."""
    out: list[str] = []
    for track, text in sorted(tables.items()):
        lines = text.splitlines()
        if not out and lines:
            out.append("track\t" + lines[0])
        out += [f"{track}\t{line}" for line in lines[1:]]
    return "\n".join(out) + "\n" if out else ""


def write_evidence(
    outputs: Mapping[str, str | os.PathLike],
    *,
    summary_csv: str,
    pooled: Mapping[str, str],
    record: Mapping[str, Any],
    summary_md: str = "",
) -> None:
    write_text(outputs["results"], summary_csv)
    write_text(outputs["by_language"], pooled_tsv(pooled))
    write_text(outputs["provenance"], json_text(record))
    write_text(
        outputs["readme"],
        readme(
            str(record["run_name"]),
            str(record["code_commit"]),
            str(record["command"]),
            summary_csv,
            summary_md,
        ),
    )
