"""The report: tables, charts and provenance, readable offline.

Inputs are the artifacts of docs/artifacts.md; outputs are `index.html` (self-contained: the
Vega bundle and every chart spec are inline, so it renders with no network), `summary.md`,
`summary.csv` and `charts/{corpus}/{track}/{chart}.{vl.json,svg,png}`.

Layout: `model` reads every artifact into one Model (means, rank buckets and cost computed
from `scores.tsv` by `summaries`; differences, intervals, p-values and verdicts read from
`inference.json`, never recomputed); `sections` holds one module per section of the page,
each rendering itself to HTML and Markdown; `charts` the Vega-Lite specs; `summary_csv` the
long-form table. Everything written is a function of the inputs only (sorted, no clock), so
the same inputs give byte-identical outputs; timing values are the only inputs that vary.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from searchbench.artifacts import write_bytes
from searchbench.report.charts import _vl_version, section_charts, write_chart_files
from searchbench.report.model import Model, build_model
from searchbench.report.page import render_html, render_markdown
from searchbench.report.summary_csv import render_csv


def write_atomic(path: str | Path, data: str | bytes) -> None:
    write_bytes(path, data.encode("utf-8") if isinstance(data, str) else data)


def current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def replace_dir(tmp_dir: Path, target: Path) -> None:
    """Swap a fully written directory into place."""
    old = None
    if target.exists():
        old = target.with_name(f".{target.name}.old")
        if old.exists():
            shutil.rmtree(old)
        os.replace(target, old)
    os.replace(tmp_dir, target)
    if old is not None:
        shutil.rmtree(old)


def build_report(
    scores: Sequence[str | Path],
    inference: Sequence[str | Path],
    corpus: Sequence[str | Path],
    tools: str | Path,
    timing: Sequence[str | Path],
    funnel: Sequence[str | Path],
    gt_audit: Sequence[str | Path],
    fileset_audit: Sequence[str | Path],
    config: dict[str, Any],
    config_hash: str,
    command: str,
    html_out: str | Path,
    md_out: str | Path,
    csv_out: str | Path,
    charts_out: str | Path,
    run_status: str | Path | None = None,
    power: Sequence[str | Path] = (),
    fast_path: Sequence[str | Path] = (),
    docs_funnel: Sequence[str | Path] = (),
    declared_in_code: Sequence[str | Path] = (),
) -> Model:
    """Paths in, paths out: read every artifact and write the report files."""
    import vl_convert as vlc

    model = build_model(
        scores,
        inference,
        corpus,
        tools,
        timing,
        funnel,
        gt_audit,
        fileset_audit,
        config,
        config_hash,
        command,
        run_status,
        power,
        fast_path,
        docs_funnel,
        declared_in_code,
    )
    vl_version = _vl_version()
    specs = {(s.corpus, s.track): section_charts(model, s) for s in model.sections}
    charts_dir = Path(charts_out)
    charts_dir.parent.mkdir(parents=True, exist_ok=True)
    tmp_dir = Path(tempfile.mkdtemp(dir=charts_dir.parent, prefix=f".{charts_dir.name}."))
    os.chmod(tmp_dir, 0o777 & ~current_umask())
    try:
        for (c, t), kinds in sorted(specs.items()):
            for kind, spec in sorted(kinds.items()):
                write_chart_files(spec, tmp_dir / c / t / kind, vl_version)
        replace_dir(tmp_dir, charts_dir)
    except BaseException:
        shutil.rmtree(tmp_dir, ignore_errors=True)
        raise
    write_atomic(csv_out, render_csv(model))
    write_atomic(md_out, render_markdown(model))
    bundle = vlc.javascript_bundle(vl_version=vl_version)
    charts_rel = Path(os.path.relpath(charts_dir, Path(html_out).parent)).as_posix()
    write_atomic(html_out, render_html(model, specs, bundle, charts_rel))
    return model
