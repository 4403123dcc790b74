"""The report: tables, charts and provenance, readable offline.

Inputs are the artifacts of docs/artifacts.md; outputs are `index.html` (self-contained: the
Vega bundle and every chart spec are inline, so it renders with no network), `summary.md`,
`summary.csv` and `charts/{corpus}/{track}/{chart}.{vl.json,svg,png}` (a track's pooled charts under
`charts/pooled/{track}/`).

Layout: `build` writes the files (not in this file, so that the workflow, which reads
`inputs` when it is parsed, does not import the page, its charts and scipy: 1.7 s of every
Snakemake start); `inputs` names every artifact the report reads (ARTIFACTS) and holds their
paths by key (ReportInputs, built from the rule's params); `model` reads them into one Model (means,
rank buckets and cost computed from `scores.tsv` by `summaries`; differences, intervals,
p-values and verdicts read from `inference.json`, never recomputed); `sections` holds one
module per section of the page, each rendering itself to HTML and Markdown; `charts` the
Vega-Lite specs; `summary_csv` the long-form table.

Everything written is a function of the inputs only (sorted, no clock), so the same inputs
give byte-identical outputs; timing values are the only inputs that vary.
"""
