"""The vocabulary of a query's run status: raw/{tool}.jsonl `status`, scores.tsv `status`, and
the per-status count columns of health.tsv and run_status.tsv (docs/artifacts.md).

Its own module, free of imports, so the search job (runner) and the scoring and report steps
(metrics, health, the report) name a status the same way without loading each other.
"""

OK = "ok"
NO_MATCH = "no-match"
ERROR = "error"
TIMEOUT = "timeout"
# A query a tool's job did not run because the tool had been stopped early (too many
# consecutive errors or timeouts: searchbench.health) is a failure, like an error.
STOPPED = "stopped"
# A query outside the languages a tool covers (tools.yaml `languages`) is not run: it scores 0
# and is left out of that tool's comparisons and means (searchbench.inference).
NOT_APPLICABLE = "not-applicable"

# Every status, in the order the count columns of health.tsv and run_status.tsv list them.
RUN_STATUSES = (OK, NO_MATCH, ERROR, TIMEOUT, STOPPED, NOT_APPLICABLE)
# The tool ran and answered: found something, or said there was nothing.
ANSWERED = (OK, NO_MATCH)
FAILED_STATUSES = frozenset({ERROR, TIMEOUT, STOPPED})
UNSCORED_STATUSES = FAILED_STATUSES | {NOT_APPLICABLE}
STATUSES = frozenset(RUN_STATUSES)
