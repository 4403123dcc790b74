"""Adopt binaries built by hand for a tool the workflow cannot build here.

    python devtools/adopt_build.py TOOL DIR --note "how and from what they were built"

TOOL is an entry of config/tools.yaml with a `build:` pin (zoekt: the Go module proxy does not
serve it here); DIR holds the binaries its pin names (a Go build's packages' last path
elements, a cargo build's `bins`). They are copied into resources/tools/{build}/bin and its
manifest says `built-outside`, with the note and their sha256; the tool then runs, its record
says "built outside the workflow: NOTE". Only for measurement: nothing of the source, no
binary and no build recipe goes into the repository (searchbench/build.py).
"""

import argparse
import sys
from pathlib import Path

from searchbench.build import TOOLS_DIR, adopt, build_name
from searchbench.errors import BenchError
from searchbench.tools import load_tools


def pinned_binaries(pin: dict) -> list[str]:
    if pin["toolchain"] == "go":
        return [package.rstrip("/").rsplit("/", 1)[-1] for package in pin["packages"]]
    return list(pin.get("bins") or [])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tool")
    parser.add_argument("dir", type=Path)
    parser.add_argument("--note", required=True)
    parser.add_argument("--tools-file", default="config/tools.yaml")
    args = parser.parse_args(argv)
    try:
        spec = load_tools(args.tools_file).get(args.tool)
        if spec is None or spec.build is None:
            raise BenchError(f"{args.tool}: no entry with a `build:` pin in {args.tools_file}")
        name = build_name(spec.build)
        manifest = adopt(
            spec.build, name, TOOLS_DIR, args.dir, pinned_binaries(spec.build), args.note
        )
    except BenchError as problem:
        print(f"adopt_build: {problem}", file=sys.stderr)
        return 1
    for binary, entry in manifest["binaries"].items():
        print(f"{TOOLS_DIR / name / entry['path']}  sha256 {entry['sha256']}  ({binary})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
