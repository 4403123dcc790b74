"""How to read the tables: the metrics, the file rank, the comparison families and the verdict
rule (moved from the page's opening: the page opens with its answer, this is how it was got)."""

from __future__ import annotations

from searchbench.report.charts import Page
from searchbench.report.fmt import esc
from searchbench.report.model import Model

TITLE = "Method: how the tables are read"


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
    return [f'<h2 id="method">{esc(TITLE)}</h2>', f"<p>{intro_html(page.model)}</p>"]


def markdown(model: Model) -> list[str]:
    return [f"## {TITLE}\n", intro_text(model) + "\n"]
