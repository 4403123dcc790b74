"""The Snakemake options the tests' workflow runs take in place of the workflow profile."""

# Without profiles/default (its `cores: all`, failed-log printing and rerun-incomplete would
# change what the tests check), but with its scheduling: the rate limit it sets is one the
# workflow removes (searchbench/scheduling.py). Snakemake's own default, 100/1s, re-ran the
# scheduler every second over every waiting job: 11 of 150 CPU-s of test_workflow's 2-core run.
NO_WORKFLOW_PROFILE = ("--workflow-profile", "none", "--max-jobs-per-timespan", "10000/1s")
