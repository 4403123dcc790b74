"""Per track: the declared comparisons per language, pooled over every corpus that measured
the track (results/pooled/{track}/by_language.json)."""

from __future__ import annotations

from searchbench.artifacts import read_json
from searchbench.report.charts import Page
from searchbench.report.fmt import esc
from searchbench.report.model import Model
from searchbench.report.sections.languages import html_of, markdown_of, note_of

TITLE = "Results by language, pooled over corpora"
POOLED = (
    "The queries of every corpus that measured the track, as one sample (a language's result "
    "weighs corpora by their queries in it). Corpora: {corpora}."
)


def documents(model: Model) -> list[tuple[str, dict]]:
    return [
        (key[0], read_json(path)) for key, path in model.sources.keyed("pooled_by_language").items()
    ]


def intro(doc: dict) -> str:
    meta = doc.get("metadata", {})
    return POOLED.format(corpora=", ".join(meta.get("corpora", [])) or "none") + " " + note_of(meta)


def html(page: Page) -> list[str]:
    docs = documents(page.model)
    if not docs:
        return []
    out = [f'<h2 id="languages">{esc(TITLE)}</h2>']
    for track, doc in docs:
        out += [f"<h3>{esc(track)} track</h3>", f"<p>{esc(intro(doc))}</p>", html_of(doc)]
    return out


def markdown(model: Model) -> list[str]:
    docs = documents(model)
    if not docs:
        return []
    out = [f"## {TITLE}\n"]
    for track, doc in docs:
        out += [f"### {track} track\n", intro(doc) + "\n", markdown_of(doc)]
    return out
