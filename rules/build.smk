# Peers built from a pinned version (a tool entry's `build:`) into resources/tools/{build}/:
# rebuilt when the pin changes, never otherwise (searchbench/build.py).


rule build_tool:
    output:
        # bin/ beside it holds the binaries; the manifest has their sha256 or why it failed
        "resources/tools/{build}/manifest.json",
    log:
        "results/logs/build_tool.{build}.log",
    benchmark:
        "results/benchmarks/build_tool.{build}.tsv"
    wildcard_constraints:
        build="|".join(map(re.escape, sorted(BUILD_PINS))) or "NONE",
    # First: a build takes every core, so behind a stream of one-core jobs it waits for a
    # moment when both are free (a refused Zoekt module stopped a default run after 65 min);
    # scheduled first, a build that fails stops the run in its first minutes.
    priority: 100
    conda:
        "../envs/python.yaml"
    threads: workflow.cores
    params:
        # the pin alone: no code hash, so a build reruns only when its pin changes
        pin=lambda wildcards: BUILD_PINS[wildcards.build],
    script:
        "../scripts/build_tool.py"
