"""Issue 16 items 2 and 5: peers built from a pinned version (config/tools.yaml `build:`).

No test builds anything from a registry: the build path runs with stand-in `go` and `cargo`
scripts (what they print and leave is what the real toolchains do), the skip path with a PATH
that has neither, and the parsers read outputs the built tools printed (recorded by
tests/fixtures/peers/record.py into tests/fixtures/peers/outputs/<tool>-<version>).
"""

import json
import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from searchbench.build import (
    BUILT,
    FAILED,
    NO_TOOLCHAIN,
    PENDING,
    UNAVAILABLE,
    build,
    build_argv,
    build_name,
    build_pins,
    build_state,
    skipped_line,
    write_manifest,
)
from searchbench.errors import BenchError
from searchbench.parsers import parse_output
from searchbench.tools import (
    file_sha256,
    load_tools,
    resolve_tools,
    specs_from_mapping,
    tool_identity,
)

ROOT = Path(__file__).resolve().parents[1]
TOOLS_YAML = ROOT / "config" / "tools.yaml"
SPECS = load_tools(TOOLS_YAML)
CARGO_PIN = {"toolchain": "cargo", "crate": "fakegrep", "version": "1.2.3", "bins": ["fg"]}
GO_PIN = {
    "toolchain": "go",
    "module": "example.org/x/zk",
    "version": "v0.1.0",
    "packages": ["cmd/zk", "cmd/zk-index"],
}

# A stand-in cargo: `cargo install ... --root DIR ... CRATE` leaves DIR/bin/<bin>, as the real
# one does; `cargo --version` answers like it.
FAKE_CARGO = """#!/bin/sh
if [ "$1" = "--version" ]; then echo "cargo 9.9.9 (fake)"; exit 0; fi
root=""
while [ $# -gt 0 ]; do
  if [ "$1" = "--root" ]; then root=$2; shift; fi
  shift
done
mkdir -p "$root/bin"
printf '#!/bin/sh\\necho "fakegrep 1.2.3"\\n' > "$root/bin/fg"
chmod +x "$root/bin/fg"
echo "    Finished release profile [optimized] target(s)" >&2
"""
# A stand-in go whose registry refuses the module, as the Go module proxy here refuses Zoekt.
FAKE_GO_REFUSED = """#!/bin/sh
if [ "$1" = "version" ]; then echo "go version go9.9 linux/amd64"; exit 0; fi
url=https://registry.invalid/example.org/x/zk/@v/v0.1.0.info
echo "go: example.org/x/zk/cmd/zk@v0.1.0: reading $url: 403 Forbidden" >&2
echo "	server response: This module version is not available." >&2
exit 1
"""


def toolchain_dir(tmp_path: Path, **scripts: str) -> str:
    """A PATH of only these stand-ins (and sh's own directory for the scripts' commands)."""
    bin_dir = tmp_path / "toolchain"
    bin_dir.mkdir(exist_ok=True)
    for name, text in scripts.items():
        path = bin_dir / name
        path.write_text(text)
        path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return os.pathsep.join([str(bin_dir), "/usr/bin", "/bin"])


def entry(pin: dict, binary: str = "fg", **extra) -> dict:
    return {
        "binary": binary,
        "build": pin,
        "family": "grep",
        "argv": ["{binary}", "-n", "--", "{query}", "./"],
        "output": "grep",
        "version_match": "^fakegrep ",
        **extra,
    }


def test_the_pins_of_the_tools_file():
    built = {name: spec for name, spec in SPECS.items() if spec.build}
    assert {"rg-current", "zoekt", "zoekt-no-ctags"} <= set(built)
    assert SPECS["rg-current"].build == {
        "toolchain": "cargo",
        "crate": "ripgrep",
        "version": "15.2.0",
        "bins": ["rg"],
    }
    # zoekt and its no-ctags variant share one build (one pin, one directory)
    assert build_name(SPECS["zoekt"].build) == build_name(SPECS["zoekt-no-ctags"].build) == "zoekt"
    # a tool that cannot be built here says why, and is not built at all; Zoekt is pinned and
    # built where the Go module proxy serves it (here it is adopted from a hand build)
    pins = build_pins(
        {n: {"build": s.build, "unavailable": s.unavailable} for n, s in built.items()}
    )
    assert "codanna" not in pins and pins["ripgrep"] == SPECS["rg-current"].build
    assert pins["zoekt"] == SPECS["zoekt"].build and SPECS["zoekt"].unavailable is None


def test_build_argv_is_locked_pinned_and_per_package():
    (cargo,) = build_argv(
        {**CARGO_PIN, "default_features": False, "features": ["a", "b"]}, Path("/r"), 2
    )
    assert cargo[:4] == ["cargo", "install", "--locked", "--force"]
    assert cargo[cargo.index("--version") + 1] == "=1.2.3" and cargo[-1] == "fakegrep"
    assert "--no-default-features" in cargo and cargo[cargo.index("--features") + 1] == "a,b"
    assert cargo[cargo.index("--bin") + 1] == "fg" and cargo[cargo.index("--root") + 1] == "/r"
    go = build_argv(GO_PIN, Path("/r"), 2)
    assert [a[-1] for a in go] == [
        "example.org/x/zk/cmd/zk@v0.1.0",
        "example.org/x/zk/cmd/zk-index@v0.1.0",
    ]


def test_pins_sharing_a_directory_must_agree():
    with pytest.raises(BenchError, match="pinned differently"):
        build_pins({"a": {"build": GO_PIN}, "b": {"build": {**GO_PIN, "version": "v0.2.0"}}})
    with pytest.raises(BenchError, match="needs `packages`"):
        build_pins({"a": {"build": {k: v for k, v in GO_PIN.items() if k != "packages"}}})


def test_without_the_toolchain_the_tool_is_skipped_with_how_to_get_it(tmp_path):
    path_env = toolchain_dir(tmp_path)  # neither go nor cargo
    specs = specs_from_mapping({"fg": entry(CARGO_PIN), "zk": entry(GO_PIN, binary="zk")})
    resolved = resolve_tools(
        specs, path_env=path_env, tools_dir=tmp_path / "tools", build_peers=True
    )
    assert not resolved["fg"].available and not resolved["zk"].available
    assert resolved["fg"].skipped_reason.startswith("no `cargo` on PATH")
    line = skipped_line({n: t.skipped_reason for n, t in resolved.items()})
    assert line.count("\n") == 0 and "fg (no `cargo`" in line and "zk (no `go`" in line
    assert "apt-get install golang-go" in line
    state = build_state(entry(CARGO_PIN), tmp_path / "tools", path_env)
    assert state.status == NO_TOOLCHAIN


def test_an_unavailable_entry_is_skipped_with_its_reason(tmp_path):
    specs = specs_from_mapping({"zk": entry(GO_PIN, binary="zk", unavailable="not served")})
    tool = resolve_tools(specs, path_env="", tools_dir=tmp_path)["zk"]
    assert (tool.available, tool.skipped_reason) == (False, "not served")
    assert build_state(entry(GO_PIN, unavailable="x")).status == UNAVAILABLE


def test_a_build_records_the_pin_and_the_sha256_of_what_it_built(tmp_path, monkeypatch):
    path_env = toolchain_dir(tmp_path, cargo=FAKE_CARGO)
    monkeypatch.setenv("PATH", path_env)
    tools_dir = tmp_path / "tools"
    specs = specs_from_mapping({"fg": entry(CARGO_PIN)})
    pending = resolve_tools(specs, path_env=path_env, tools_dir=tools_dir, build_peers=True)["fg"]
    assert build_state(entry(CARGO_PIN), tools_dir, path_env).status == PENDING
    assert pending.available and pending.sha256 == ""  # nothing to hash before the build

    manifest = build(CARGO_PIN, "fakegrep", tools_dir)
    write_manifest(manifest, tools_dir / "fakegrep" / "manifest.json")
    binary = tools_dir / "fakegrep" / "bin" / "fg"
    assert manifest["status"] == BUILT and manifest["pin"] == CARGO_PIN
    assert manifest["toolchain"] == "cargo 9.9.9 (fake)"
    assert manifest["binaries"] == {"fg": {"path": "bin/fg", "sha256": file_sha256(str(binary))}}
    assert (tools_dir / ".cache" / "cargo-target").is_dir() or True  # the toolchain's to fill

    built = resolve_tools(specs, path_env=path_env, tools_dir=tools_dir, build_peers=True)["fg"]
    assert built.available and built.binary_path == str(binary.resolve())
    assert (
        built.version == "fakegrep 1.2.3" and built.sha256 == manifest["binaries"]["fg"]["sha256"]
    )
    # the same identity before and after the build: building reruns none of the tool's jobs
    assert tool_identity(built) == tool_identity(pending)
    # a changed pin is a new build (and a new identity)
    assert (
        build_state(entry({**CARGO_PIN, "version": "1.2.4"}), tools_dir, path_env).status == PENDING
    )
    # a binary changed after its build is not the one built
    binary.write_text("#!/bin/sh\necho 'fakegrep 6.6.6'\n")
    changed = resolve_tools(specs, path_env=path_env, tools_dir=tools_dir, build_peers=True)["fg"]
    assert not changed.available and "sha256 differs" in changed.skipped_reason


def test_a_refused_build_is_recorded_and_then_skipped_without_the_registry_host(
    tmp_path, monkeypatch
):
    path_env = toolchain_dir(tmp_path, go=FAKE_GO_REFUSED)
    monkeypatch.setenv("PATH", path_env)
    tools_dir = tmp_path / "tools"
    manifest = build(GO_PIN, "zk", tools_dir)
    assert manifest["status"] == FAILED and manifest["binaries"] == {}
    assert "403 Forbidden" in manifest["reason"] and "registry.invalid" not in manifest["reason"]
    write_manifest(manifest, tools_dir / "zk" / "manifest.json")
    state = build_state(entry(GO_PIN, binary="zk"), tools_dir, path_env)
    assert state.status == FAILED and "rm -r resources/tools/zk" in state.reason
    specs = specs_from_mapping({"zk": entry(GO_PIN, binary="zk")})
    tool = resolve_tools(specs, path_env=path_env, tools_dir=tools_dir, build_peers=True)["zk"]
    assert not tool.available and "example.org/x/zk@v0.1.0 (go) failed" in tool.skipped_reason


@pytest.mark.slow
def test_the_workflow_lists_built_peers_as_skipped_without_toolchains(tmp_path):
    """`snakemake -n` with a PATH lacking go and cargo: one line names the skipped peers, and
    no build job is planned (the dry run reads the real Snakefile and tools file)."""
    venv_bin = str(Path(sys.executable).parent)
    path_env = os.pathsep.join([venv_bin, "/usr/bin", "/bin"])
    proc = subprocess.run(
        [
            os.path.join(venv_bin, "snakemake"),
            "-n",
            "results/tools.json",
            "--snakefile",
            str(ROOT / "Snakefile"),
            "--directory",
            str(tmp_path),
            "--configfile",
            str(ROOT / "config" / "config.yaml"),
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "PATH": path_env, "PYTHONPATH": str(ROOT)},
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    notes = [line for line in proc.stderr.splitlines() if line.startswith("note: built peers")]
    assert len(notes) == 1 and "rg-current (no `cargo`" in notes[0], proc.stderr[-3000:]
    # the Go and Rust builds are not planned; a pip build (semble) needs only this Python
    planned = set(re.findall(r"wildcards: build=(\S+)", proc.stdout))
    assert planned == {"semble"}, proc.stdout[-3000:]


def test_tools_skipped_table(tmp_path):
    from searchbench.tools import combine_tool_records

    records = []
    for name, available, reason in [
        ("a", True, ""),
        ("z", False, "no `go` on PATH"),
        ("b", False, "x"),
    ]:
        path = tmp_path / f"{name}.json"
        path.write_text(
            json.dumps({"name": name, "available": available, "skipped_reason": reason})
        )
        records.append(path)
    combine_tool_records(records, tmp_path / "tools.json", tmp_path / "skipped.tsv")
    assert (tmp_path / "skipped.tsv").read_text() == "tool\treason\nb\tx\nz\tno `go` on PATH\n"


def test_a_configuration_that_does_not_build_peers_skips_them(tmp_path):
    path_env = toolchain_dir(tmp_path, cargo=FAKE_CARGO)
    specs = specs_from_mapping({"fg": entry(CARGO_PIN)})
    tool = resolve_tools(specs, path_env=path_env, tools_dir=tmp_path, build_peers=False)["fg"]
    assert not tool.available and "build_peers is off" in tool.skipped_reason
    # not built, and the identity says so: resolve_tool resolves it the same way
    assert tool_identity(tool, False)["build_peers"] is False
    assert not (tmp_path / "fakegrep").exists()


PEERS_DIR = ROOT / "tests" / "fixtures" / "peers"


def recorded_matches(tool: str) -> dict[str, list[tuple[bytes, int]]]:
    """query -> (path, line) pairs, parsed from the tool's output recorded by record.py."""
    # `zoekt-[0-9a-f]*`: zoekt-no-ctags-... is another tool's
    (out_dir,) = sorted((PEERS_DIR / "outputs").glob(f"{tool}-[0-9a-f]*"))
    manifest = json.loads((out_dir / "manifest.json").read_text(encoding="utf-8"))
    spec = SPECS[tool]
    assert manifest["output"] == spec.output
    assert re.search(spec.version_match, manifest["version"]), manifest["version"]
    tree = PEERS_DIR / "tree"
    known = {os.fsencode(p.relative_to(tree)) for p in tree.rglob("*") if not p.is_dir()}
    got = {}
    for rec in manifest["records"]:
        assert rec["exit_code"] == 0 or rec["exit_code"] in spec.no_match_exit, rec
        data = (out_dir / rec["file"]).read_bytes()
        got[rec["query"]] = [(m.path, m.line) for m in parse_output(spec.output, data, known)]
    return got


def test_rg_current_output_parses_like_the_wheels_rg():
    """ripgrep 15.2.0, built by build_tool, on the peers' tree: what the baseline (the 14.1
    wheel) finds, in --sort path order, hidden files in, symlinks not followed."""
    got = recorded_matches("rg-current")
    ring = got["ring_push"]
    assert ring[0] == (b".hidden/hidden.c", 1) and (b"src/c/ring.c", 3) in ring
    assert [p for p, _ in ring] == sorted((p for p, _ in ring), key=lambda p: p.split(b"/"))
    assert not any(p == b"link.c" for p, _ in ring)
    assert got["spaced_fn"] == [(b"with space/spaced.c", 1)]
    for query in ("-rf", "a.b", "$x"):
        assert got[query] == [(b"docs/README.md", 3)], query  # literal, never an option
    assert got["ring_.ush"] == [] and got["no_such_name"] == []
    wheel_rg = shutil.which("rg", path=os.path.dirname(sys.executable))
    if wheel_rg:  # the baseline's rg (the wheel) prints the same for the same argv
        (out_dir,) = sorted((PEERS_DIR / "outputs").glob("rg-current-*"))
        first = json.loads((out_dir / "manifest.json").read_text())["records"][0]
        proc = subprocess.run(
            [wheel_rg, *first["argv"]], cwd=PEERS_DIR / "tree", capture_output=True
        )
        assert [(m.path, m.line) for m in parse_output("grep-null", proc.stdout)] == ring


def test_probe_json_is_read_block_by_block():
    """probe 0.6.0's own output on the peers' tree: one match per printed code block, in its
    ranked order, at the block's first line; literal (after `--`), hidden files unseen."""
    got = recorded_matches("probe")
    ring = got["ring_push"]
    assert (b"src/c/ring.c", 3) in ring and (b"src/py/ring.py", 1) in ring
    assert (b"src/cpp/shelf.cpp", 2) in ring  # the class block holding the declaration
    assert not any(p.startswith(b".hidden/") for p, _ in ring)  # no flag searches hidden files
    for query in ("-rf", "a.b", "$x"):
        assert got[query] == [(b"docs/README.md", 1)], query  # the README's one block
    assert got["no_such_name"] == [] and got["hidden_fn"] == []


def test_probe_json_state_machine_ignores_other_keys():
    data = (
        b'Pattern: x\nPath: ./\n{\n  "results": [\n    {\n      "code": "\\"file\\": 1",\n'
        b'      "file": "./a b/c.rs",\n      "lines": [\n        4,\n        9\n      ],\n'
        b'      "node_type": "x"\n    }\n  ],\n  "summary": {"count": 1}\n}\n'
    )
    assert [(m.path, m.line) for m in parse_output("probe-json", data)] == [(b"a b/c.rs", 4)]


def test_a_refused_go_build_adopted_by_hand_runs_and_says_built_outside(tmp_path):
    """Issue 32 item 1: where the Go module proxy refuses a module (Zoekt here), the build
    fails and is recorded; binaries built by hand and adopted (devtools/adopt_build.py) are
    then used, their record saying "built outside the workflow" with the note and sha256."""
    from searchbench.build import BUILT_OUTSIDE, adopt

    tools = tmp_path / "tools"
    path_env = toolchain_dir(tmp_path, go=FAKE_GO_REFUSED)
    manifest = build(GO_PIN, "zk", tools)
    assert manifest["status"] == FAILED
    hand = tmp_path / "hand"
    hand.mkdir()
    for name in ("zk", "zk-index"):
        (hand / name).write_text('#!/bin/sh\necho "fakegrep 0.1.0 (by hand)"\n')
        (hand / name).chmod(0o755)
    adopted = adopt(GO_PIN, "zk", tools, hand, ["zk", "zk-index"], "from its public source")
    assert adopted["status"] == BUILT_OUTSIDE and set(adopted["binaries"]) == {"zk", "zk-index"}
    assert adopted["binaries"]["zk"]["sha256"] == file_sha256(str(hand / "zk"))
    state = build_state(entry(GO_PIN, binary="zk"), tools, path_env)
    assert state.status == BUILT
    specs = specs_from_mapping({"zk": entry(GO_PIN, binary="zk")})
    tool = resolve_tools(specs, path_env=path_env, tools_dir=tools, build_peers=True)["zk"]
    assert tool.available and tool.version == "fakegrep 0.1.0 (by hand)"
    assert tool.built == "built outside the workflow: from its public source"
    with pytest.raises(BenchError, match="no file"):
        adopt(GO_PIN, "zk", tools, tmp_path / "nowhere", ["zk"], "x")


def test_the_query_syntaxes() -> None:
    from searchbench.tools import QUERY_SYNTAXES, zoekt_query

    assert QUERY_SYNTAXES["literal"]("a.b -rf") == "a.b -rf"
    assert QUERY_SYNTAXES["regex"]("a.b(") == r"a\.b\("
    # Zoekt: regex-escaped, then `\` doubled and `"` escaped inside the quotes
    assert zoekt_query("a.b") == r'case:yes content:"a\\.b"'
    assert zoekt_query('-rf "x"') == r'case:yes content:"-rf \"x\""'
    with pytest.raises(BenchError, match="query_syntax 'shell' is not one of literal"):
        specs_from_mapping({"x": {**entry(CARGO_PIN), "query_syntax": "shell"}})


def test_zoekt_reads_the_query_as_a_case_sensitive_literal_and_ranks_definitions():
    """Zoekt at c4d8f3537f7a (built by hand here: the Go module proxy refuses it), recorded on
    the peers' tree with its argv: `-rf`, `a.b` and `$x` are literals (never a negation or a
    regular expression), `ring_.ush` matches nothing, a miss prints nothing and exits 0; with
    ctags a definition comes first (`ringPush` in ring.ts, not the `ringPushJs` prefix match),
    without them the file with the most matches does."""
    with_ctags, without = recorded_matches("zoekt"), recorded_matches("zoekt-no-ctags")
    for got in (with_ctags, without):
        for query in ("-rf", "a.b", "$x"):
            assert got[query] == [(b"docs/README.md", 3)], query
        assert got["ring_.ush"] == [] and got["no_such_name"] == []
        assert got["hidden_fn"] == [(b".hidden/hidden.c", 1)]  # hidden files are indexed
        assert got["spaced_fn"] == [(b"with space/spaced.c", 1)]
    assert with_ctags["ringPush"][0] == (b"src/ts/ring.ts", 1)
    assert without["ringPush"][0] == (b"src/js/ring.js", 1)
    assert with_ctags["ring_push"][0] != without["ring_push"][0]  # the symbol boost moves it


@pytest.mark.slow
def test_a_refused_build_runs_first_and_stops_the_run_with_one_line(tmp_path):
    """A build takes every core; scheduled first, a refused module stops the run before any
    search (a default run here once reached Zoekt's build after 65 min)."""
    from workflow_cli import NO_WORKFLOW_PROFILE, local_corpus_config

    document = yaml.safe_load(TOOLS_YAML.read_text())
    tools = {"rg": document["tools"]["rg"], "zk": entry(GO_PIN, binary="zk")}
    (tmp_path / "tools.yaml").write_text(yaml.safe_dump({**document, "tools": tools}))
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "ring.c").write_text("int ring_reset(void) { return 0; }\n")
    config = local_corpus_config(
        corpus,
        tmp_path / "tools.yaml",
        primary=[],
        build_peers=True,
        timing={"enabled": False},
    )
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config))
    venv_bin = str(Path(sys.executable).parent)
    path_env = os.pathsep.join([toolchain_dir(tmp_path, go=FAKE_GO_REFUSED), venv_bin])
    proc = subprocess.run(
        [
            *(sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile")),
            *("-d", str(tmp_path), "--configfile", str(tmp_path / "config.yaml")),
            *NO_WORKFLOW_PROFILE,
            *("--cores", "2"),
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "PATH": path_env, "PYTHONPATH": str(ROOT)},
        timeout=600,
    )
    assert proc.returncode != 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    started = re.findall(r"^(?:local)?rule (\w+):$", proc.stdout + proc.stderr, re.M)
    assert started and started[0] == "build_tool", proc.stdout[-3000:] + proc.stderr[-3000:]
    lines = [line for line in proc.stderr.splitlines() if line.startswith("resolve_tool: tool zk:")]
    assert lines and "403 Forbidden" in lines[0] and "run again" in lines[0]
    assert "registry.invalid" not in proc.stdout + proc.stderr
    # no search of any tool ran
    assert not list((tmp_path / "results").glob("mini/*/runs/*.run"))
