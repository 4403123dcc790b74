# The code-search ranking benchmark. Where every number comes from: `snakemake --dag`.
import sys

from snakemake.utils import min_version

min_version("9.0")

sys.path.insert(0, workflow.basedir)

from searchbench.preflight import default_configfile  # noqa: E402

# A --configfile names a complete configuration (config/kernel.yaml, config/seed.yaml, or a
# test's); merging it over the default would silently add the default corpora to it. Without
# one, config/config.yaml of the working directory, else the workflow's (`--directory OTHER`).
if not workflow.config_settings.configfiles:

    configfile: default_configfile(workflow.basedir)


report: "report/workflow.rst"


# Bookkeeping over small files (under a second each on the fixture runs): on Slurm they run on
# the login node beside Snakemake, as a Slurm job would cost each a queue wait and two Snakemake
# starts (docs/slurm.md). resolve_tool records the binary that Snakemake, on that node, already
# resolved to plan the run (its params.identity), so it is no less right there.
localrules:
    resolve_tool,
    tools_json,
    run_status,
    calibration_status,


include: "rules/common.smk"
include: "rules/corpora.smk"
include: "rules/symbols.smk"
include: "rules/queries.smk"
include: "rules/build.smk"
include: "rules/tools.smk"
include: "rules/search.smk"
include: "rules/score.smk"
include: "rules/timing.smk"
include: "rules/analysis.smk"
include: "rules/report.smk"
include: "rules/evidence.smk"
include: "rules/targets.smk"


# every optional track declared has its checkpoint (searchbench/measures.py TRACK_DECLARATIONS)
check_track_checkpoints()


rule all:
    default_target: True
    input:
        all_targets(),
        # a function: whether an optional track is measured is known once its queries are drawn
        tracks=lambda wildcards: [
            t for corpus in CORPORA for t in track_targets(corpus)
        ],
        pooled=lambda wildcards: pooled_targets(),
