"""The Snakemake options the tests' workflow runs take in place of the workflow profile."""

from searchbench.scheduling import UNLIMITED_JOBS

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
