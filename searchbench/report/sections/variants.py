"""The declared variants (config `variants`): each one's worth on every track, on the corpora
its rule was designed on and, apart, on the corpora held out to judge it. The comparisons are
the ablation family's (variant vs the tool it varies, results/ablations.tsv), read the other
way round: variant − full tool, so a positive difference means the variant ranks better."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from searchbench.report.charts import Page
from searchbench.report.fmt import esc, fmt_ci, fmt_num, fmt_p, fmt_signed, html_table, md_table
from searchbench.report.model import Model
from searchbench.report.sections.ablations import rows as ablation_rows

TITLE = "Variants: designed on some corpora, judged on the others"
NOTE = (
    "Each variant's rule was declared in the config before the run, with the corpora it was "
    "designed on and the corpora held out to judge it. Difference: variant − {full} on the "
    "track's primary metric over all queries, with its 95% interval and Holm p (the ablation "
    "family's test). Only the held-out rows can confirm a rule."
)
# The ablation table reads a comparison as a signal's worth; a variant's own reading:
VERDICT = {"signal helps": "variant detected worse", "signal hurts": "variant detected better"}
GROUPS = (("held_out", "held out"), ("designed_on", "designed on"))
HEADER = ["group", "track", "corpus", "n", "full tool", "variant", "difference [95% CI]",
          "Holm p", "verdict"]  # fmt: skip


def _negated(value: str) -> str:
    return "" if value == "" else repr(-float(value) + 0.0)


def variant_rows(
    found: list[dict[str, str]], variant: str, declared: Mapping[str, Any]
) -> list[list[str]]:
    """One row per group, track and corpus (corpus-wide comparisons), held-out first."""
    out = []
    for key, label in GROUPS:
        corpora = declared[key]
        mine = [r for r in found if r["variant"] == variant and r["language"] == "all"]
        for r in sorted((r for r in mine if r["corpus"] in corpora),
                        key=lambda r: (r["track"], r["corpus"])):  # fmt: skip
            diff = _negated(r["worth"])
            interval = fmt_ci(_negated(r["worth_ci_high"]), _negated(r["worth_ci_low"]))
            out.append([
                label, r["track"], r["corpus"], r["n"], fmt_num(r["mean_full"]),
                fmt_num(r["mean_variant"]), f"{fmt_signed(diff)} {interval}" if diff else "–",
                fmt_p(r["p_holm"]) if r["p_holm"] else "–",
                VERDICT.get(r["reading"], r["reading"]),
            ])  # fmt: skip
    return out


def tally(body: list[list[str]]) -> list[str]:
    """Per group and track: on how many corpora the variant is detected better and worse."""
    lines = []
    for _, label in GROUPS:
        for track in sorted({row[1] for row in body if row[0] == label}):
            verdicts = [row[8] for row in body if row[0] == label and row[1] == track]
            better = verdicts.count(VERDICT["signal hurts"])
            worse = verdicts.count(VERDICT["signal helps"])
            lines.append(
                f"{label}, {track}: detected better on {better} and worse on {worse} of "
                f"{len(verdicts)} corpora"
            )
    return lines


def declared(model: Model) -> dict[str, Any]:
    return dict(model.config.get("variants") or {})


def tables(model: Model) -> list[tuple[str, str, list[list[str]]]]:
    """(variant, its full tool, rows) of each declared variant the run compared."""
    found = ablation_rows(model)
    out = []
    for variant, entry in sorted(declared(model).items()):
        body = variant_rows(found, variant, entry)
        if body:
            full = next(r["full_tool"] for r in found if r["variant"] == variant)
            out.append((variant, full, body))
    return out


def intro(variant: str, entry: Mapping[str, Any]) -> str:
    return (
        f"{variant}: {entry['rule']}. Designed on {', '.join(entry['designed_on'])}; held out: "
        f"{', '.join(entry['held_out'])}."
    )


def html(page: Page) -> list[str]:
    found = tables(page.model)
    if not found:
        return []
    out = [f'<h2 id="variants">{esc(TITLE)}</h2>']
    for variant, full, body in found:
        out.append(f"<p>{esc(intro(variant, declared(page.model)[variant]))}</p>")
        out.append(f"<p>{esc(NOTE.format(full=full))}</p>")
        out.append("<ul>" + "".join(f"<li>{esc(line)}</li>" for line in tally(body)) + "</ul>")
        out.append('<div class="scroll">' + html_table(HEADER, body, name_cols=3) + "</div>")
    return out


def markdown(model: Model) -> list[str]:
    found = tables(model)
    if not found:
        return []
    out = [f"## {TITLE}\n"]
    for variant, full, body in found:
        out.append(intro(variant, declared(model)[variant]) + "\n")
        out.append(NOTE.format(full=full) + "\n")
        out.append("".join(f"- {line}\n" for line in tally(body)))
        out.append(md_table(HEADER, body))
    return out
