"""The page: every section of `sections.SECTIONS`, in order, as HTML and as Markdown."""

from __future__ import annotations

from typing import Any

from searchbench.report.charts import EMBED_JS, Page
from searchbench.report.fmt import esc
from searchbench.report.model import Model
from searchbench.report.sections import SECTIONS

# Held here, not in a template file: rule `report` reruns on a change to the modules its
# script imports (rerun_on_code), and a .css or .html file beside them would escape that.
CSS = """
body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:1.5em auto;
max-width:1480px;color:#222;padding:0 1em}
h1{font-size:1.6em}h2{border-bottom:2px solid #ccc;padding-bottom:.2em;margin-top:2em}
table{border-collapse:collapse;margin:.6em 0 1.2em;font-size:13px}
th,td{border:1px solid #d0d0d0;padding:3px 6px;text-align:right;vertical-align:top;
white-space:nowrap}
.scroll{overflow-x:auto}table.results{font-size:12px}
table.results td.verdict{white-space:normal}
th{background:#f2f2f2}th[colspan]{text-align:center}td.name,th.name{text-align:left}
td.not-evidence,span.not-evidence{color:#9a9a9a}
.badge{display:inline-block;border-radius:3px;padding:0 4px;font-size:11px}
.badge.not-evidence{background:#eee;color:#888;border:1px solid #ccc}
.badge.disagree{background:#fff3e0;color:#8a4b00;border:1px solid #e08214}
.badge.identical{background:#eef5fb;color:#2f6690;border:1px solid #6baed6}
td.identical,span.identical{color:#2f6690}
.verdict.detected{font-weight:bold}
.note{background:#f7f7f7;border-left:4px solid #bbb;padding:.4em .8em}
.warn{background:#fff3e0;border-left:4px solid #e08214;padding:.4em .8em}
.chart{margin:.6em 0 1.4em}
code,pre{font:12px ui-monospace,Menlo,Consolas,monospace}
pre{background:#f7f7f7;padding:.6em;overflow-x:auto;white-space:pre-wrap}
.front{display:flex;flex-wrap:wrap;gap:0 1em;align-items:flex-start}
.front table{margin:.3em 0 .3em}
.front.board-row{flex-wrap:nowrap}.front-table{flex:1 1 auto;min-width:0;overflow-x:auto}
.front-chart{flex:none;width:min-content}.front-chart .note{font-size:11px}
table.leaderboard th{white-space:normal}
table.leaderboard{font-size:12px}table.leaderboard td,table.leaderboard th{padding:2px 4px}
.front .chart{margin:.2em 0 .2em}
h2[id^="leaderboard-"]{margin-top:.8em;font-size:1.3em}
.small{font-size:12px;margin:.3em 0;color:#444}.findings{margin:.4em 0 .6em}
td.hash{font:11px ui-monospace,Menlo,Consolas,monospace;text-align:left;word-break:break-all}
"""


def render_html(
    model: Model,
    specs: dict[tuple[str, str], dict[str, dict[str, Any]]],
    js_bundle: str,
    charts_rel: str = "charts",
) -> str:
    """The whole page: the Vega bundle inline, so it renders with no network."""
    page = Page(model, specs, charts_rel)
    body = [line for section in SECTIONS for line in section.html(page)]
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="UTF-8">\n'
        "<title>Search-ranking benchmark report</title>\n"
        f"<style>{CSS}</style>\n"
        f'<script type="text/javascript">\n{js_bundle}\n</script>\n'
        f'<script type="text/javascript">{EMBED_JS}</script>\n'
        '</head>\n<body>\n<noscript><p class="warn">JavaScript is off: the charts are also '
        f"beside this page as SVG and PNG under {esc(charts_rel)}/.</p></noscript>\n"
        + "\n".join(body)
        + "\n</body>\n</html>\n"
    )


def render_markdown(model: Model) -> str:
    return "\n".join(line for section in SECTIONS for line in section.markdown(model))
