"""Where this benchmark is wrong, in this run's own figures (docs/method.md §9): the bias of
the task toward declaration priors, the parser's gaps and the languages it has no rules for,
the tracks that ran (and the questions none asks), the tools that could not run, broke or did
not repeat, and the one machine the times come from."""

from __future__ import annotations

from collections import Counter
from pathlib import PurePosixPath

from searchbench.artifacts import read_json, read_tsv
from searchbench.health import broken_tools
from searchbench.measures import DETECTED
from searchbench.report.charts import Page
from searchbench.report.fmt import as_float, esc
from searchbench.report.model import Model
from searchbench.report.sections.intro import TRACK_QUESTIONS, measured_tracks
from searchbench.report.sections.overview import OVERVIEW_TOOL
from searchbench.symbols import UNSEEN_COLUMNS

TITLE = "Where this benchmark is wrong"


def track_effects(model: Model, track: str) -> tuple[list[float], int]:
    """hay − baseline MRR (all queries) per corpus on one track, and how many are detected."""
    comps = [
        s.comparisons[(OVERVIEW_TOOL, s.primary, "all")]
        for s in model.sections
        if s.track == track and (OVERVIEW_TOOL, s.primary, "all") in s.comparisons
    ]
    diffs = sorted(as_float(c.get("diff")) for c in comps)
    return diffs, sum(str(c["verdict"]) in DETECTED for c in comps)


def effect_words(model: Model, track: str) -> str:
    diffs, detected = track_effects(model, track)
    if not diffs:
        return f"the {track} track was not measured on any corpus"
    return (
        f"the {track} track {diffs[0]:+.3f} to {diffs[-1]:+.3f} over {len(diffs)} "
        f"{'corpus' if len(diffs) == 1 else 'corpora'} "
        f"({detected} detected)"
    )


def bias(model: Model) -> str:
    return (
        f"**It favours declaration priors.** The code track's right answer is a declaration, the "
        f"thing {OVERVIEW_TOOL} is built to put first. {OVERVIEW_TOOL} − baseline MRR: "
        f"{effect_words(model, 'code')}; {effect_words(model, 'docs')}. The docs track, whose "
        "answers are prose, is the counterweight: read both."
    )


def parser_gaps(model: Model) -> str:
    queries = parsed = agree = 0
    for rows in model.gt_audit.values():
        for row in rows:
            if row.get("language") == "all":
                queries += int(row["queries"])
                parsed += int(row["parsed"])
                agree += int(row["agree"])
    unseen: Counter[str] = Counter()
    files = 0
    for corpus, path in model.sources.by_corpus("unseen").items():
        unseen.update(r["reason"] for r in read_tsv(path, UNSEEN_COLUMNS))
        files += int(model.corpora.get(corpus, {}).get("files") or 0)
    audit = (
        f"universal-ctags agrees on {agree} of the {parsed} code-track answers it can parse "
        f"({agree / parsed:.1%}; {queries - parsed} more are in files it has no parser for)"
        if parsed
        else "no ctags audit was read"
    )
    reasons = ", ".join(f"{reason} {n}" for reason, n in sorted(unseen.items()))
    return (
        f"**Ground truth is a parser's opinion.** Over every corpus, {audit}. "
        f"{sum(unseen.values())} of {files} files were not (fully) seen by the parser"
        + (f" ({reasons})" if reasons else "")
        + "; a name declared in one of them may look unique when it is not."
    )


def slice_measured(model: Model) -> str:
    """The questions the tracks that ran answer, the tracks that did not run, and what no
    track asks: written from the sections this run has, not from a fixed list."""
    measured = measured_tracks(model)
    asked = "; ".join(f"{t} ({TRACK_QUESTIONS.get(t, 'its own questions')})" for t in measured)
    missing = [t for t in TRACK_QUESTIONS if t not in measured]
    skipped = (
        " Not measured in this run: "
        + "; ".join(f"{t} ({TRACK_QUESTIONS[t]})" for t in missing)
        + "."
        if missing
        else ""
    )
    no_name = (
        "are measured only as the literal searches agents typed (behaviour track)"
        if "behaviour" in measured
        else "are not measured"
    )
    return (
        f"**Each track is a slice of searching.** Measured here: {asked or 'no track'}; "
        f"each question is one name to type.{skipped} Searches with no name to type (a "
        f"behaviour described in words) {no_name}."
    )


def unparsed_languages(model: Model) -> Counter[str]:
    """File suffix -> files of a language the symbol rules have no parser for, every corpus."""
    out: Counter[str] = Counter()
    for path in model.sources.by_corpus("unseen").values():
        for row in read_tsv(path, UNSEEN_COLUMNS):
            if row["reason"] == "unparsed-language":
                out[PurePosixPath(row["path"]).suffix or PurePosixPath(row["path"]).name] += 1
    return out


def languages(model: Model) -> str:
    counts = unparsed_languages(model)
    if not model.sources.by_corpus("unseen"):
        return "**Languages without a parser.** No record of unparsed files was read."
    if not counts:
        return (
            "**Languages without a parser.** Every source file of this run's corpora is in a "
            "language the symbol rules parse."
        )
    named = ", ".join(f"{suffix} ({n})" for suffix, n in sorted(counts.items()))
    return (
        "**Languages without a parser.** No symbol is drawn from files the rules cannot parse, "
        f"so these languages are not asked about: {named} files."
    )


def repeatability(model: Model) -> str | None:
    """Which tools did not repeat their results; None when no pooled file was read. A null
    flag is "not audited", never "repeated"."""
    if not model.pooled:
        return None
    flags = [
        (row["tool"], track, row.get("repeatable"))
        for track, doc in model.pooled.items()
        for row in doc["leaderboard"]
    ]
    unsteady = sorted({f"{tool} ({track})" for tool, track, flag in flags if flag is False})
    audited = sum(isinstance(flag, bool) for *_, flag in flags)
    if not audited:
        return "repeatability was not audited"
    if unsteady:
        return f"not repeatable: {', '.join(unsteady)}"
    unaudited = len(flags) - audited
    return "every audited tool repeated" + (
        f" ({unaudited} of {len(flags)} not audited)" if unaudited else ""
    )


def tool_gaps(model: Model) -> str:
    """The tools that could not run, broke, or did not repeat their results in this run (the
    reasons are in the tool-health table and "Tools skipped")."""
    missing = [str(t["name"]) for t in model.tools if not t.get("available", True)]
    broken = [f"{tool} on {sec.key}" for sec in model.sections for tool in broken_tools(sec.health)]
    parts = [
        f"could not run: {', '.join(missing)} (why: Tools skipped)"
        if missing
        else "every configured tool ran",
        f"broken: {', '.join(broken)} (why: tool health)" if broken else "none broke",
        *[r for r in [repeatability(model)] if r],
    ]
    text = "; ".join(parts)
    return f"**Tools that are missing or unsteady.** {text[:1].upper()}{text[1:]}."


def machine(model: Model) -> str:
    if not model.timing_enabled:
        return "**One machine.** Timing was not measured in this run."
    hosts = {
        (r.get("cpu_model"), r.get("cores"), r.get("kernel"), r.get("corpus_filesystem"))
        for r in map(read_json, model.sources.keyed("timing_host").values())
    }
    named = "; ".join(f"{c} ({n} cores), {k}, corpus on {fs}" for c, n, k, fs in sorted(hosts))
    return (
        "**One machine, one filesystem.** Every time in this report was measured on "
        f"{named or 'a host with no record'}. Ratios to the baseline in one run deserve more "
        "trust than the milliseconds."
    )


def paragraphs(model: Model) -> list[str]:
    return [
        bias(model),
        parser_gaps(model),
        languages(model),
        slice_measured(model),
        tool_gaps(model),
        machine(model),
    ]


def bold(text: str) -> str:
    head, _, rest = text.removeprefix("**").partition("**")
    return f"<strong>{esc(head)}</strong>{esc(rest)}"


def html(page: Page) -> list[str]:
    items = "".join(f"<li>{bold(p)}</li>" for p in paragraphs(page.model))
    return [f'<h2 id="weaknesses">{TITLE}</h2>', f"<ul>{items}</ul>"]


def markdown(model: Model) -> list[str]:
    return [f"## {TITLE}\n", "".join(f"- {p}\n" for p in paragraphs(model))]
