"""Cost to an agent: bytes and lines read before the answer, per tool, beside MRR, for one
corpus and track: writes agent_cost.tsv (searchbench/agent_cost.py)."""

from pathlib import Path

from searchbench.agent_cost import cost_rows, write_agent_cost
from searchbench.errors import BenchError
from searchbench.metrics import read_raw_records, read_scores
from searchbench.scriptmain import run_script


def main(smk) -> None:
    params = smk.params
    tools = list(params.tools)
    raw_paths = [Path(p) for p in smk.input.raw]
    # raw/{tool}.jsonl: the file names must follow params.tools, or costs go to the wrong tool
    if [p.stem for p in raw_paths] != tools:
        raise BenchError(
            f"raw records {[p.stem for p in raw_paths]} do not follow params.tools {tools}; "
            "list input.raw in the order of params.tools"
        )
    rows = cost_rows(
        read_scores(smk.input.scores),
        {tool: read_raw_records(path) for tool, path in zip(tools, raw_paths, strict=True)},
        corpus=str(getattr(params, "corpus", None) or smk.wildcards.corpus),
        track=str(getattr(params, "track", None) or smk.wildcards.track),
        # Ablation variants keep their rows but stay out of the across-tools correlation.
        variants=list(dict(getattr(params, "ablations", None) or {})),
    )
    write_agent_cost(rows, smk.output.tsv)


run_script(main, snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
