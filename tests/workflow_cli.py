"""The Snakemake options the tests' workflow runs take in place of the workflow profile."""

from pathlib import Path

from searchbench.scheduling import UNLIMITED_JOBS

REPO = Path(__file__).resolve().parent.parent

# Without profiles/default (its `cores: all`, failed-log printing and rerun-incomplete would
# change what the tests check), but with its scheduling: a rate limit the workflow removes
# (searchbench/scheduling.py). Snakemake's own default, 100/1s, re-ran the scheduler every
# second over every waiting job: Snakemake's process in test_workflow's 2-core run took 24.9
# CPU-s with it, 10.6 without.
NO_WORKFLOW_PROFILE = (
    "--workflow-profile",
    "none",
    "--max-jobs-per-timespan",
    f"{UNLIMITED_JOBS}/1s",
)


def local_corpus_config(corpus: Path, tools_file: Path, **settings) -> dict:
    """A test configuration: one local corpus `mini`, twelve code queries, rg the baseline,
    the repository's languages and ast-grep rules; `settings` add to or override it."""
    return {
        "seed": 7,
        "queries_per_corpus": 12,
        "tools_file": str(tools_file),
        "languages_file": str(REPO / "config" / "languages.yaml"),
        "astgrep_rules_dir": str(REPO / "config" / "astgrep"),
        "baseline": "rg",
        "corpora": {"mini": {"source": {"kind": "local", "path": str(corpus)}}},
        **settings,
    }
