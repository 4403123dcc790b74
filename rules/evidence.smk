# `snakemake --cores 2 evidence`: publish this configuration's run into evidence/RUN_NAME/
# (searchbench/evidence.py), to be committed. Not part of `all`: a run never overwrites the
# published one unless asked.


rule publish_evidence:
    input:
        summary=REPORT_SUMMARY_CSV,
        summary_md=REPORT_SUMMARY_MD,
        charts=REPORT_CHARTS,
        tools=TOOLS_JSON,
        corpora=expand(CORPUS_JSON, corpus=CORPORA),
        hosts=[
            f"results/{corpus}/timing/{config['baseline']}.host.json"
            for corpus in CORPORA
            if TIMING_ENABLED
        ],
        pooled=lambda wildcards: [
            f"results/pooled/{track}/by_language.tsv"
            for track in TRACKS
            if on_track(track, "{corpus}")
        ],
    output:
        results="evidence/{run_name}/results.csv",
        by_language="evidence/{run_name}/by_language.tsv",
        provenance="evidence/{run_name}/provenance.json",
        readme="evidence/{run_name}/README.md",
        summary="evidence/{run_name}/summary.md",
        charts=directory("evidence/{run_name}/charts"),
    log:
        "results/logs/evidence.{run_name}.log",
    wildcard_constraints:
        run_name=re.escape(config["run_name"]),
    conda:
        "../envs/python.yaml"
    params:
        run_name=config["run_name"],
        commit=workflow_commit(),
        config=config,
        config_hash=config_hash(),
        command=reproduce_command(),
        # made relative in what is published: no folder of this machine in evidence/
        repository=str(BASEDIR),
        hosts_by=[c for c in CORPORA if TIMING_ENABLED],
        tracks=lambda wildcards: [t for t in TRACKS if on_track(t, "{corpus}")],
        rerun_on_code=code_hash("publish_evidence"),
    script:
        "../scripts/publish_evidence.py"


rule evidence:
    input:
        expand(
            "evidence/{run_name}/{name}",
            run_name=config["run_name"],
            name=(
                "results.csv",
                "by_language.tsv",
                "provenance.json",
                "README.md",
                "summary.md",
                "charts",
            ),
        ),
    localrule: True
