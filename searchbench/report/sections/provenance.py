"""How to reproduce the report: command, config hash, revisions, tool binaries, input hashes."""

from __future__ import annotations

import json
from typing import Any

from searchbench.report.charts import Page
from searchbench.report.fmt import esc, html_table
from searchbench.report.model import Model


def find_sha256(doc: Any, where: str = "") -> list[tuple[str, str]]:
    """Every (location, sha256) pair in a JSON document, in document order."""
    found: list[tuple[str, str]] = []
    if isinstance(doc, dict):
        label = next(
            (str(doc[k]) for k in ("name", "path", "url", "file", "package") if k in doc), where
        )
        for key in sorted(doc):
            value = doc[key]
            if key == "sha256" and isinstance(value, str):
                found.append((label, value))
            else:
                found.extend(find_sha256(value, f"{where}.{key}" if where else key))
    elif isinstance(doc, list):
        for i, item in enumerate(doc):
            found.extend(find_sha256(item, f"{where}[{i}]"))
    return found


def find_revisions(doc: Any) -> list[tuple[str, str]]:
    """Top-level and source-level keys that name a revision or version."""
    out = []
    for scope, d in (("", doc), ("source.", doc.get("source") if isinstance(doc, dict) else None)):
        if isinstance(d, dict):
            for key in sorted(d):
                if ("revision" in key or key in ("version", "commit")) and not isinstance(
                    d[key], (dict, list)
                ):
                    out.append((scope + key, str(d[key])))
    return out


def published(model: Model) -> str:
    name = model.config.get("run_name", "default")
    return (
        f"Published runs live in the repository under evidence/ ({name} for this "
        f"configuration): `snakemake --cores 2 evidence` writes this run there, and "
        f"`./bench compare evidence/{name} results` shows per corpus and tool what changed "
        "between the published run and this one."
    )


def provenance_html(model: Model) -> str:
    parts = ['<h2 id="provenance">Provenance</h2>']
    parts.append(
        "<p>Reproduce this report with:</p>"
        f"<pre>{esc(model.command)}</pre>"
        f"<p>config hash <code>{esc(model.config_hash)}</code>, seed "
        f"<code>{esc(model.design.seed)}</code>, baseline "
        f"<code>{esc(model.design.baseline)}</code>, code commit "
        f"<code>{esc(model.sources.commit or 'not recorded')}</code>.</p>"
        f"<p>{esc(published(model))}</p>"
    )
    parts.append("<h3>Corpora</h3>")
    for name, doc in sorted(model.corpora.items()):
        revs = find_revisions(doc)
        shas = find_sha256(doc)
        parts.append(f"<h4>{esc(name)}</h4>")
        parts.append(html_table(["revision key", "value"], revs))
        parts.append(html_table(["archive", "sha256"], shas))
        parts.append(
            "<details><summary>corpus.json</summary><pre>"
            f"{esc(json.dumps(doc, indent=2, sort_keys=True))}</pre></details>"
        )
    parts.append("<h3>Tools</h3>")
    parts.append(
        html_table(
            [
                "tool",
                "family",
                "available",
                "binary",
                "resolves to",
                "version",
                "built",
                "file order",
                "sha256",
                "skipped reason",
            ],
            [
                [
                    t.get("name", ""),
                    t.get("family") or "",
                    "yes" if t.get("available", True) else "no",
                    t.get("binary") or "",
                    t.get("binary_target") or "",
                    t.get("version") or "",
                    t.get("built") or "",
                    t.get("order") or "",
                    t.get("sha256") or "",
                    t.get("skipped_reason") or "",
                ]
                for t in model.tools
            ],
        )
    )
    parts.append("<h3>Inputs</h3>")
    parts.append(html_table(["file", "sha256", "bytes"], model.inputs))
    parts.append(
        "<details><summary>configuration</summary><pre>"
        f"{esc(json.dumps(model.config, indent=2, sort_keys=True, default=str))}"
        "</pre></details>"
    )
    return "\n".join(parts)


def html(page: Page) -> list[str]:
    return [provenance_html(page.model)]


def markdown(model: Model) -> list[str]:
    return [
        "## Provenance\n",
        f"- config hash: `{model.config_hash}`\n- seed: `{model.design.seed}`\n"
        f"- command: `{model.command}`\n"
        f"- code commit: `{model.sources.commit or 'not recorded'}`\n",
        published(model) + "\n",
    ]
