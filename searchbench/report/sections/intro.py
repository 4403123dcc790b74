"""Title, the opening context (at most 80 words), the generated findings and the run-wide
notes (timing off, whole-word mode): the first lines of the page."""

from __future__ import annotations

from searchbench.measures import TRACK_QUESTIONS
from searchbench.report.charts import Page
from searchbench.report.findings import findings
from searchbench.report.fmt import esc
from searchbench.report.model import Model

TIMING_OFF = (
    "Timing was not measured in this run (timing.enabled is false in the configuration): "
    "this report compares search quality only, with no time or memory figures."
)


def word_match_note(model: Model) -> str | None:
    """With word_match on, the tools that have no whole-word form search as configured."""
    if not model.config.get("word_match"):
        return None
    plain = [
        str(t["name"])
        for t in model.tools
        if t.get("available", True) and "{word}" not in (t.get("argv") or [])
    ]
    if not plain:
        return None
    return (
        "Whole-word matching (word_match) is on; "
        + ", ".join(plain)
        + " have no whole-word form and search as configured (substring, structural or index)."
    )


MAX_CONTEXT_WORDS = 80


def measured_tracks(model: Model) -> list[str]:
    """The tracks this run measured on at least one corpus, in track order."""
    on = {s.track for s in model.sections} | set(model.pooled)
    return [t for t in TRACK_QUESTIONS if t in on] + sorted(on - set(TRACK_QUESTIONS))


def context_text(model: Model) -> str:
    """The page's opening (at most MAX_CONTEXT_WORDS words): the question it answers, the
    tracks measured and how the leaderboards are read; the method is further down."""
    tracks = "; ".join(
        f"{t}: {TRACK_QUESTIONS.get(t, 'its own questions')}" for t in measured_tracks(model)
    )
    corpora = sorted({s.corpus for s in model.sections})
    return (
        "Which code-search tool should an agent get, for which kind of question? Each track "
        f"asks one kind ({tracks or 'none measured'}). Per track, tools are ranked by its "
        f"primary metric pooled over {len(corpora)} "
        f"{'corpus' if len(corpora) == 1 else 'corpora'} with a 95% interval, beside what "
        "each answer costs. The method, the caveats and every corpus follow below."
    )


def html(page: Page) -> list[str]:
    """Title, the opening context, the findings and run-wide notes: the page's first lines."""
    model = page.model
    return [
        "<h1>Search-ranking benchmark</h1>",
        f'<p id="context">{esc(context_text(model))}</p>',
        *findings_html(model),
        *([] if model.timing_enabled else [f'<p class="note">{esc(TIMING_OFF)}</p>']),
        *[f'<p class="note">{esc(note)}</p>' for note in [word_match_note(model)] if note],
    ]


def findings_html(model: Model) -> list[str]:
    sentences = findings(list(model.pooled.values()))
    if not sentences:
        return []
    items = "".join(f"<li>{esc(s)}</li>" for s in sentences)
    return [f'<ul id="findings" class="findings">{items}</ul>']


def markdown(model: Model) -> list[str]:
    out = ["# Search-ranking benchmark: summary\n", context_text(model) + "\n"]
    sentences = findings(list(model.pooled.values()))
    if sentences:
        out.append("".join(f"- {s}\n" for s in sentences))
    return out if model.timing_enabled else [*out, TIMING_OFF + "\n"]
