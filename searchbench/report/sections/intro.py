"""Title, how to read the report, run-wide notes (timing off, whole-word mode), contents."""

from __future__ import annotations

from searchbench.report.charts import Page
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


def intro_text(model: Model) -> str:
    return (
        "MRR (mean reciprocal rank of the first file that declares the symbol) is the primary "
        "metric of the code and docs tracks; success@10, nDCG@10 and recall@10 are reported "
        "beside it (with one right file, recall@10 is success@10). The usage and behavioural "
        "tracks, whose questions have several right files, are read on nDCG@10 (MRR sees only "
        "the first right file), with recall@10, the share of the right files on the first "
        "page, beside it. The headline uses the **file "
        "rank** (position of the right file in the order the tool first printed each file), "
        "not the line rank. Each tool is compared with a reference on the same queries: the "
        "mean paired difference with a 95% percentile-bootstrap interval and a sign-flip "
        "randomization p-value, Holm-adjusted within its declared family: *primary* (the "
        "benchmark's own questions, config `primary`, each vs the baseline), *secondary* (every "
        "other tool vs the baseline) or *ablation* (a variant of hay vs hay itself: what "
        "switching its signals off costs). A difference is "
        f"**detected** (bold) only when the interval excludes 0 and the test rejects at "
        f"α = {model.alpha:g}; where the two disagree the row says *tests disagree* and the "
        f"conservative reading is taken. Fewer than {model.min_queries} queries, or too "
        "few queries where the two tools differ for any result to reach α: *not evidence*, "
        "never bold. A tool that ranks the right file exactly as the baseline does on every "
        "query is *identical*. Beside the differences, the minimum detectable MRR difference "
        "(80% power, simulated from the corpus's own ties and differences) tells *not "
        "detected* from *could not have been detected*."
    )


def intro_html(model: Model) -> str:
    text = esc(intro_text(model))
    for marker, tag in (("**", "strong"), ("*", "em")):
        pieces = text.split(marker)
        text = "".join(p if i % 2 == 0 else f"<{tag}>{p}</{tag}>" for i, p in enumerate(pieces))
    return text


def html(page: Page) -> list[str]:
    """Title, the reading guide, run-wide notes and the table of contents."""
    model = page.model
    toc = "".join(
        f'<li><a href="#{esc(s.corpus)}-{esc(s.track)}">{esc(s.key)}</a></li>'
        for s in model.sections
    )
    return [
        "<h1>Search-ranking benchmark</h1>",
        f"<p>{intro_html(model)}</p>",
        *([] if model.timing_enabled else [f'<p class="note">{esc(TIMING_OFF)}</p>']),
        *[f'<p class="note">{esc(note)}</p>' for note in [word_match_note(model)] if note],
        '<ul><li><a href="#families">best of each family</a></li>'
        '<li><a href="#languages">results by language, pooled</a></li>'
        '<li><a href="#ablations">what each hay signal is worth</a></li>'
        '<li><a href="#weaknesses">where this benchmark is wrong</a></li>'
        f'{toc}<li><a href="#agreement">do the metrics agree?</a></li>'
        '<li><a href="#runs">how the runs ended</a></li>'
        '<li><a href="#skipped">tools skipped</a></li>'
        '<li><a href="#provenance">provenance</a></li></ul>',
    ]


def markdown(model: Model) -> list[str]:
    out = ["# Search-ranking benchmark: summary\n", intro_text(model) + "\n"]
    return out if model.timing_enabled else [*out, TIMING_OFF + "\n"]
