"""The usage and behavioural tracks (questions with several right files, judged on nDCG@10,
with recall@10 beside it), and every tool across all tracks side by side."""

from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path

from searchbench.artifacts import read_tsv
from searchbench.measures import DETECTED, METRIC_LABELS, TRACKS, primary_metric_of
from searchbench.report.charts import Page
from searchbench.report.fmt import esc, fmt_ci, fmt_num, fmt_signed, html_table, md_table
from searchbench.report.model import Model, Section
from searchbench.report.sections.funnel import funnel_line
from searchbench.report.sections.overview import OVERVIEW_TOOL
from searchbench.sampling import FUNNEL_COLUMNS
from searchbench.transcripts import REPORT_COLUMNS
from searchbench.trec import read_qrels
from searchbench.usage_queries import AUDIT_COLUMNS

TRACK_ORDER = TRACKS  # searchbench.measures.TRACK_DECLARATIONS
LABELS = dict(METRIC_LABELS)
# Shown beside the primary metric where a question has several right files: how many of them
# reach the first page, whatever their order on it.
RECALL_METRIC = "recall10"


def answers_per_query(path: Path | None) -> str:
    """Mean right files per question of one track's qrels."""
    if path is None:
        return "–"
    qrels = read_qrels(path)
    counts = [sum(1 for rel in docs.values() if rel > 0) for docs in qrels.values()]
    return f"{sum(counts) / len(counts):.1f}" if counts else "–"


def comparison_cells(sec: Section, metric: str, tool: str = OVERVIEW_TOOL) -> list[str]:
    """tool − baseline on one metric over all queries [CI], and its verdict."""
    comp = sec.comparisons.get((tool, metric, "all"))
    if comp is None:
        return [f"no {tool}", ""]
    diff = f"{fmt_signed(comp.get('diff'))} {fmt_ci(comp.get('ci_low'), comp.get('ci_high'))}"
    return [diff, str(comp["verdict"])]


def verdict_cells(sec: Section | None, tool: str = OVERVIEW_TOOL) -> list[str]:
    """n, trivial share, then tool − baseline [CI] and verdict on the primary metric and on
    recall@10."""
    if sec is None:
        return ["not measured", "", "", "", "", ""]
    share = len(sec.trivial) / len(sec.qids) if sec.qids else 0.0
    return [
        str(len(sec.qids)),
        fmt_num(share, 2),
        *comparison_cells(sec, sec.primary, tool),
        *comparison_cells(sec, RECALL_METRIC, tool),
    ]


def section_of(model: Model, corpus: str, track: str) -> Section | None:
    return next((s for s in model.sections if (s.corpus, s.track) == (corpus, track)), None)


def track_rows(model: Model, track: str, funnel_name: str) -> list[list[str]]:
    """One row per corpus with queries drawn on the track: funnel, answers, hay's verdict."""
    qrels = model.sources.keyed("qrels")
    rows = []
    for corpus, path in model.sources.by_corpus(funnel_name).items():
        funnel = read_tsv(path, FUNNEL_COLUMNS)
        sec = section_of(model, corpus, track)
        rows.append(
            [
                corpus,
                funnel_line(funnel),
                answers_per_query(qrels.get((corpus, track))),
                *verdict_cells(sec),
            ]
        )
    return rows


def audit_rows(model: Model) -> list[list[str]]:
    """The usage answers' agreement with GNU Global's references, per corpus and language."""
    rows = []
    for corpus, path in model.sources.by_corpus("usage_audit").items():
        for r in read_tsv(path, AUDIT_COLUMNS):
            rows.append(
                [
                    corpus,
                    r["language"],
                    r["reference"],
                    f"{r['audited']} of {r['queries']}",
                    fmt_num(r["exact_share"], 2),
                    fmt_num(r["mean_jaccard"], 3),
                    fmt_num(r["mean_precision"], 3),
                    fmt_num(r["mean_recall"], 3),
                    r["note"],
                ]
            )
    return rows


def mining_rows(model: Model) -> list[list[str]]:
    """Per transcript file: kept, then every reason a search was dropped (never its text)."""
    path = model.sources.one("mining")
    if path is None:
        return []
    by_file: dict[str, Counter] = defaultdict(Counter)
    for r in read_tsv(path, list(REPORT_COLUMNS)):
        by_file[r["file"]][r["reason"]] += int(r["count"])
    rows = []
    for file, counts in sorted(by_file.items()):
        dropped = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()) if k != "kept")
        rows.append([file, str(counts.get("kept", 0)), dropped or "–"])
    return rows


def cross_track_rows(model: Model) -> tuple[list[str], list[list[str]]]:
    """One row per tool: per track, its mean primary metric over every query of the corpora
    measuring the track, and on how many corpora it was detected better / worse than the
    baseline."""
    tracks = [t for t in TRACK_ORDER if any(s.track == t for s in model.sections)]
    tools = sorted({t for s in model.sections for t in s.tools})
    header = ["tool"] + [f"{t} ({LABELS[primary_metric_of(t)]})" for t in tracks]
    rows = []
    for tool in tools:
        row = [tool]
        for track in tracks:
            secs = [s for s in model.sections if s.track == track and tool in s.means["all"]]
            n = sum(len(s.qids) for s in secs)
            if not n:
                row.append("–")
                continue
            verdicts = Counter(
                str((s.comparisons.get((tool, s.primary, "all")) or {}).get("verdict"))
                for s in secs
            )
            better, worse = (verdicts[v] for v in sorted(DETECTED))
            figure = pooled_figure(model, track, tool)
            if figure is None:  # no pooled file (an old results folder): the plain mean
                figure = fmt_num(
                    sum(s.means["all"][tool][s.primary] * len(s.qids) for s in secs) / n
                )
            row.append(f"{figure} (↑{better} ↓{worse} of {len(secs)})")
        rows.append(row)
    return header, rows


def pooled_figure(model: Model, track: str, tool: str) -> str | None:
    """The tool's pooled figure and interval on the track, * when pooled on a subset of the
    queries (like with like: each tool over the queries it was asked, corpora weighing the
    same); None without a pooled file or figure."""
    doc = (model.pooled or {}).get(track)
    row = next((r for r in doc["leaderboard"] if r["tool"] == tool), None) if doc else None
    if row is None or row["pooled"] is None:
        return None
    mark = "" if row.get("subset", "all") in ("all", None, "") else "*"
    return f"{fmt_num(row['pooled'])}{mark} {fmt_ci(row['ci_low'], row['ci_high'])}"


USAGE_HEADER = [
    "corpus",
    "funnel",
    "answers per query",
    "n",
    "trivial",
    f"{OVERVIEW_TOOL} − baseline {LABELS[primary_metric_of('usage')]} [95% CI]",
    "verdict",
    f"{OVERVIEW_TOOL} − baseline {LABELS[RECALL_METRIC]} [95% CI]",
    "verdict",
]
AUDIT_HEADER = [
    "corpus",
    "language",
    "reference finder",
    "audited",
    "exact",
    "Jaccard",
    "precision",
    "recall",
    "note",
]
MINING_HEADER = ["transcript file", "kept", "dropped (reason count)"]
CROSS_NOTE = (
    "Each track's own primary metric (MRR where a question has one right file, nDCG@10 where "
    "it has several), pooled as the leaderboards are: corpora weigh the same, each tool over "
    "the queries it was asked (* a subset: a language server's languages), with its 95% "
    "interval; ↑/↓: corpora where the tool is detected better / worse than the baseline on it."
)
RECALL_NOTE = (
    "recall@10: the share of a question's right files among the tool's first ten files, "
    "whatever their order (a question with more than ten right files cannot reach 1)."
)
USAGE_NOTE = (
    "Questions: names declared exactly once and used (a call or an unambiguous type use, by "
    "the parser) in other files; every file with a use is a right answer, found by name, not "
    "by type. The audit compares the answer sets with GNU Global's references. " + RECALL_NOTE
)
BEHAVIOUR_NOTE = (
    "Questions: literal searches coding agents ran, from the transcripts in behaviour.logs; "
    "answers: the files the agent opened within behaviour.window tool calls after, that hold "
    "the literal. A search followed by an opened file is evidence of intent, not proof. "
    + RECALL_NOTE
)


def html(page: Page) -> list[str]:
    model = page.model
    out: list[str] = []
    header, rows = cross_track_rows(model)
    if len({h.split(" ")[0] for h in header[1:]}) > 1:
        out += [
            '<h2 id="cross-track">Every tool on every track</h2>',
            f"<p>{esc(CROSS_NOTE)}</p>",
            html_table(header, rows),
        ]
    usage = track_rows(model, "usage", "usage_funnel")
    if usage:
        out += [
            '<h2 id="usage">The usage track: where is this used?</h2>',
            f"<p>{esc(USAGE_NOTE)}</p>",
            html_table(USAGE_HEADER, usage),
            html_table(AUDIT_HEADER, audit_rows(model), name_cols=3),
        ]
    behaviour = track_rows(model, "behaviour", "behaviour_funnel")
    if behaviour:
        out += [
            '<h2 id="behaviour">The behavioural track: what agents searched for</h2>',
            f"<p>{esc(BEHAVIOUR_NOTE)}</p>",
            html_table(MINING_HEADER, mining_rows(model)),
            html_table(USAGE_HEADER, behaviour),
        ]
    return out


def markdown(model: Model) -> list[str]:
    out: list[str] = []
    header, rows = cross_track_rows(model)
    if len({h.split(" ")[0] for h in header[1:]}) > 1:
        out += ["## Every tool on every track\n", CROSS_NOTE + "\n", md_table(header, rows)]
    usage = track_rows(model, "usage", "usage_funnel")
    if usage:
        out += ["## The usage track\n", USAGE_NOTE + "\n", md_table(USAGE_HEADER, usage)]
        out.append(md_table(AUDIT_HEADER, audit_rows(model)))
    behaviour = track_rows(model, "behaviour", "behaviour_funnel")
    if behaviour:
        out += ["## The behavioural track\n", BEHAVIOUR_NOTE + "\n"]
        out += [md_table(MINING_HEADER, mining_rows(model)), md_table(USAGE_HEADER, behaviour)]
    return out
