"""Build one pinned peer into resources/tools/{build}/ and write its manifest (a failed build
is recorded there, not raised: the tools using it are then listed as skipped)."""

import logging
from pathlib import Path

from searchbench.build import BUILT, build, describe_pin, write_manifest
from searchbench.scriptmain import run_script


def main(smk) -> None:
    name = smk.wildcards.build
    tools_dir = Path(smk.output[0]).parent.parent
    with open(smk.log[0], "a", encoding="utf-8") as log:
        manifest = build(dict(smk.params.pin), name, tools_dir, jobs=smk.threads, log=log)
    write_manifest(manifest, smk.output[0])
    what = describe_pin(manifest["pin"])
    if manifest["status"] == BUILT:
        logging.info("%s: built in %.0f s", what, manifest["seconds"])
    else:
        logging.warning("%s: build failed: %s", what, manifest["reason"])


run_script(main, snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
