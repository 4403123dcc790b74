"""Read every artifact the report names and write its files (see the package docstring)."""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from searchbench.artifacts import write_text
from searchbench.report.charts import (
    _vl_version,
    pooled_charts,
    section_charts,
    write_chart_files,
)
from searchbench.report.inputs import ReportInputs
from searchbench.report.model import Model, build_model
from searchbench.report.page import render_html, render_markdown
from searchbench.report.summary_csv import render_csv


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


@dataclass(frozen=True)
class ReportOutputs:
    """Where the report rule writes: the page, the Markdown summary, the CSV, the charts."""

    html: Path
    md: Path
    csv: Path
    charts: Path

    @classmethod
    def under(cls, directory: str | Path) -> ReportOutputs:
        d = Path(directory)
        return cls(d / "index.html", d / "summary.md", d / "summary.csv", d / "charts")


def build_report(inputs: ReportInputs, outputs: ReportOutputs) -> Model:
    """Read every artifact and write the report files."""
    import vl_convert as vlc

    model = build_model(inputs)
    vl_version = _vl_version()
    specs = {(s.corpus, s.track): section_charts(model, s) for s in model.sections}
    # each track's pooled charts (front page) under charts/pooled/{track}/
    specs.update({("pooled", t): pooled_charts(doc) for t, doc in model.pooled.items()})
    charts_dir = Path(outputs.charts)
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
    write_text(outputs.csv, render_csv(model))
    write_text(outputs.md, render_markdown(model))
    bundle = vlc.javascript_bundle(vl_version=vl_version)
    charts_rel = Path(os.path.relpath(charts_dir, Path(outputs.html).parent)).as_posix()
    write_text(outputs.html, render_html(model, specs, bundle, charts_rel))
    return model
