"""How this workflow has Snakemake schedule its jobs (read by rules/common.smk).

Snakemake 9's rate limiter (--max-jobs-per-timespan, on by default at 100/1s) starts a
`threading.Timer` of its timespan after every scheduling round that leaves a job waiting
(snakemake/scheduling/job_scheduler.py, `_schedule_reevalutation`). Each timer that fires runs
another round, which starts the next timer: every job that finishes while others wait adds
one such chain, so the rounds grow with jobs x run time / timespan (60 sleeping jobs on one
core: 668 rounds at 1 s, 154 at 5 s, 61 at 60 s). And the timers are not daemon threads:
Python waits for the last one before it exits, so a run ends up to a timespan after its last
job, and after Ctrl-C (at 60s: 62 s from a one-job rerun's job to its exit, 59 s from Ctrl-C).
No timespan is both short and cheap. Without the limiter, Snakemake schedules when a job
ends, and only then (4 s and 2 s, on a machine at load 15).
"""

# No run of this workflow starts this many jobs within one timespan (the default run has 1,678
# in all), so such a limit holds no job back and its only effect is the timers: "no limit".
UNLIMITED_JOBS = 10_000


def rate_limit_never_binds(max_jobs: int) -> bool:
    """Whether a limit of max_jobs per timespan is one this workflow drops (see above)."""
    return max_jobs >= UNLIMITED_JOBS


def drop_unbinding_rate_limit(scheduling_settings: object) -> bool:
    """Remove Snakemake's rate limiter from its scheduling settings when its limit never binds
    (the JobScheduler then creates none); a lower limit, one the user means, is kept. True when
    it was removed."""
    limit = getattr(scheduling_settings, "max_jobs_per_timespan", None)
    if limit is None or not rate_limit_never_binds(limit.max_jobs):
        return False
    scheduling_settings.max_jobs_per_timespan = None
    return True


def drop_rate_limit_at_execution(workflow: object) -> None:
    """Have the workflow drop an unbinding rate limit when it executes. Snakemake's API hands
    the workflow its scheduling settings only after the Snakefile is read, just before it
    calls `workflow.execute` (which creates the JobScheduler), so the check wraps that call."""
    execute = workflow.execute

    def execute_without_timers(*args: object, **kwargs: object) -> object:
        drop_unbinding_rate_limit(workflow.scheduling_settings)
        return execute(*args, **kwargs)

    workflow.execute = execute_without_timers
