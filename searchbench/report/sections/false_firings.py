"""Where hay's definition rules fire on lines that declare nothing, and what its c-shape word
list does about it (results/false_firings.tsv, false_firing_effect.tsv, false_firing_words.txt;
searchbench/false_firings.py)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from searchbench.artifacts import read_tsv
from searchbench.false_firings import EFFECT_COLUMNS, POOLED_COLUMNS, read_word_list
from searchbench.hay.signals import FALSE_FIRING_WORDS_FILE
from searchbench.report.charts import Page
from searchbench.report.fmt import esc, html_table, md_table
from searchbench.report.model import Model

TITLE = "Where hay's definition rules fire falsely"
NOTE = (
    "Every line of every corpus where hay's raw rules call a declared name a definition: the "
    "c-shape (`type words NAME(`) and the declaration keyword (`def NAME`). A firing is true "
    "where the symbol table declares that name on that line, comment or prose where hay's "
    "structural rule drops it, false otherwise (a declaration the parser does not know counts "
    "as false: the benchmark judges against the parser). Counted by the word before the name. "
    "hay's list excludes c-shape firings after its words; the derived list is what this run's "
    "counts call for (false ≥ 2 on code lines, true ≤ 10% of the word's firings)."
)
TOP = 15


def read(model: Model) -> tuple[list[dict], list[dict], list[str]] | None:
    pooled = model.sources.one("false_firings")
    effect = model.sources.one("false_firing_effect")
    words = model.sources.one("false_firing_words")
    if not (pooled and effect and words):
        return None
    derived = sorted(read_word_list(words))
    return read_tsv(pooled, POOLED_COLUMNS), read_tsv(effect, EFFECT_COLUMNS), derived


def effect_table(effects: Sequence[Mapping[str, str]]) -> tuple[list[str], list[list[str]]]:
    header = [
        "list",
        "words",
        "false firings (code lines)",
        "after the list",
        "cut",
        "true firings",
        "true lost",
        "comment or prose (dropped by rule)",
    ]
    body = [
        [
            e["list"],
            e["words"],
            e["false_before"],
            e["false_after"],
            f"{e['cut']} ({int(e['cut']) / max(1, int(e['false_before'])):.0%})",
            e["true_before"],
            e["true_lost"],
            e["comment_or_prose"],
        ]
        for e in effects
    ]
    return header, body


def top_table(rows: Sequence[Mapping[str, str]]) -> tuple[list[str], list[list[str]]]:
    header = [
        "rule",
        "language",
        "word",
        "false",
        "true",
        "comment or prose",
        "in hay's list",
        "corpora",
        "first false firing",
    ]
    body = []
    for rule in ("c-shape", "keyword"):
        mine = [r for r in rows if r["rule"] == rule and int(r["false"])][:TOP]
        body += [
            [
                r["rule"],
                r["language"],
                r["word"],
                r["false"],
                r["true"],
                r["comment_or_prose"],
                r["listed"],
                r["corpora"],
                r["example"],
            ]
            for r in mine
        ]
    return header, body


def list_difference(derived: Sequence[str]) -> str:
    listed = read_word_list(FALSE_FIRING_WORDS_FILE)
    only_derived = sorted(set(derived) - listed)
    only_listed = sorted(listed - set(derived))
    return (
        f"hay's list has {len(listed)} words, the derived list {len(derived)}; "
        f"only derived: {', '.join(only_derived) or 'none'}; "
        f"only in hay's list (derived from other corpora): {', '.join(only_listed) or 'none'}."
    )


def html(page: Page) -> list[str]:
    found = read(page.model)
    if found is None:
        return []
    rows, effects, derived = found
    eh, eb = effect_table(effects)
    th, tb = top_table(rows)
    return [
        f'<h2 id="false-firings">{esc(TITLE)}</h2>',
        f"<p>{esc(NOTE)}</p>",
        html_table(eh, eb),
        f"<p>{esc(list_difference(derived))}</p>",
        f"<p>The words with most false firings (top {TOP} per rule):</p>",
        '<div class="scroll">' + html_table(th, tb, name_cols=3) + "</div>",
    ]


def markdown(model: Model) -> list[str]:
    found = read(model)
    if found is None:
        return []
    rows, effects, derived = found
    eh, eb = effect_table(effects)
    th, tb = top_table(rows)
    return [
        f"## {TITLE}\n",
        NOTE + "\n",
        md_table(eh, eb),
        list_difference(derived) + "\n",
        f"The words with most false firings (top {TOP} per rule):\n",
        md_table(th, tb),
    ]
