"""Peers built from a pinned version (a tool entry's `build:`), cached in resources/tools/.

A build is a directory resources/tools/{name}/ (`name`: the crate, or the Go module's last path
element, unless the pin names it): `bin/` holds what `go install` (GOBIN) or `cargo install
--locked --root` produced, `manifest.json` the pin, the toolchain's version line, how long the
build took and the sha256 of every binary, or why the build failed. The rule build_tool writes
it; its params are the pin, so a build reruns when the pin changes and never otherwise. Module
and crate downloads and compiled objects are cached in resources/tools/.cache/.

Before any job (rules/common.smk), each built tool is in one of these states (build_state):
  built         the manifest matches the pin: the tool's binary is the built file
  pending       the toolchain is on PATH, nothing is built for this pin yet: build_tool runs
  failed        the manifest matches the pin but the build failed (offline, not served, a
                compile error): the tool is skipped with the manifest's reason
  no-toolchain  `go` or `cargo` is not on PATH: the tool is skipped, with how to get it
  unavailable   the entry says why it cannot be built or run here (`unavailable:`)

A pin the workflow cannot build here (a module the Go module proxy does not serve) may be
built by hand from its public source and adopted (`adopt`, devtools/adopt_build.py): its
manifest then says `built-outside` with the builder's note and each binary's sha256, the tool
is `built` from then on, and its record says "built outside the workflow". Nothing of how it
was built is kept in this repository.
"""

import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from searchbench.artifacts import file_sha256, read_json, write_json
from searchbench.errors import BenchError

TOOLS_DIR = Path("resources") / "tools"
CACHE = ".cache"
MANIFEST = "manifest.json"
# pip: a venv made by the workflow's own interpreter (always there), filled from PyPI wheels.
TOOLCHAINS = {"go": "go", "cargo": "cargo", "pip": sys.executable}
# How to get a missing toolchain, in the one line that names the peers it leaves out.
TOOLCHAIN_HINTS = {
    "go": "install Go >= 1.22 (Debian: apt-get install golang-go) and put `go` on PATH",
    "cargo": "install Rust with cargo >= 1.85 (rustup, or Debian: apt-get install cargo) "
    "and put `cargo` on PATH",
    "pip": "the workflow's Python with its venv module",
}
# A build that runs longer is killed and recorded as failed.
BUILD_TIMEOUT = 1800
# The keys a pin may hold, per toolchain (config/schema/tools.schema.yaml describes them).
PIN_KEYS = {
    "go": {"toolchain", "module", "version", "packages", "name"},
    "cargo": {"toolchain", "crate", "version", "bins", "features", "default_features", "name"},
    # with: further exact requirements; data: a folder of an installed package (model weights)
    # linked as {build}/data, its every file pinned by sha256 in data_sha256.
    "pip": {"toolchain", "package", "version", "with", "bins", "name", "data", "data_sha256"},
}
WHAT = {"go": "module", "cargo": "crate", "pip": "package"}
# A URL in a toolchain's error names a registry host: the reason keeps only its path.
_URL = re.compile(r"[a-z][a-z0-9+.-]*://[^/\s]+")

BUILT, PENDING, FAILED, NO_TOOLCHAIN, UNAVAILABLE = (
    "built",
    "pending",
    "failed",
    "no-toolchain",
    "unavailable",
)
BUILT_OUTSIDE = "built-outside"  # a manifest's status: adopted, see the module docstring


def check_pin(tool: str, pin: dict) -> None:
    """A pin names its toolchain, what to build and an exact version; nothing else."""
    toolchain = pin.get("toolchain")
    if toolchain not in PIN_KEYS:
        raise BenchError(f"tool {tool}: build.toolchain must be one of {', '.join(PIN_KEYS)}")
    unknown = sorted(set(pin) - PIN_KEYS[toolchain])
    if unknown:
        raise BenchError(
            f"tool {tool}: unknown key(s) {', '.join(unknown)} in its {toolchain} build"
        )
    what = WHAT[toolchain]
    for key in (what, "version"):
        if not isinstance(pin.get(key), str) or not pin[key]:
            raise BenchError(f"tool {tool}: its {toolchain} build needs `{key}`")
    if toolchain == "go" and not pin.get("packages"):
        raise BenchError(f"tool {tool}: its go build needs `packages` (e.g. [cmd/zoekt])")
    if toolchain == "pip" and bool(pin.get("data")) != bool(pin.get("data_sha256")):
        raise BenchError(f"tool {tool}: its pip build pins `data` exactly with `data_sha256`")


def build_name(pin: dict) -> str:
    """The directory under resources/tools/ that holds this pin's build."""
    if pin.get("name"):
        return str(pin["name"])
    if pin["toolchain"] == "go":
        return pin["module"].rstrip("/").rsplit("/", 1)[-1]
    return str(pin[WHAT[pin["toolchain"]]])


def build_pins(entries: dict[str, dict]) -> dict[str, dict]:
    """{build name: pin} of every entry with `build:` and no `unavailable:`; tools sharing a
    build (zoekt with and without ctags) must pin it the same way."""
    pins: dict[str, dict] = {}
    owners: dict[str, str] = {}
    for tool in sorted(entries):
        entry = entries[tool]
        pin = entry.get("build")
        if not pin or entry.get("unavailable"):
            continue
        check_pin(tool, pin)
        name = build_name(pin)
        if name in pins and pins[name] != pin:
            raise BenchError(
                f"tool {tool}: its build {name!r} is pinned differently by {owners[name]}; "
                "tools sharing a build directory must share the pin (or set build.name)"
            )
        pins[name], owners[name] = dict(pin), owners.get(name, tool)
    return pins


def binary_path(tools_dir: Path, pin: dict, binary: str) -> str:
    """The absolute path a built binary has (whether or not it is built yet)."""
    return os.path.abspath(tools_dir / build_name(pin) / "bin" / binary)


@dataclass(frozen=True)
class BuildState:
    status: str  # BUILT, PENDING, FAILED, NO_TOOLCHAIN or UNAVAILABLE
    reason: str = ""  # why the tool is skipped (FAILED, NO_TOOLCHAIN, UNAVAILABLE)
    note: str = ""  # how a BUILT tool was built: "" by the workflow, else the adopter's note


def read_manifest(path: Path) -> dict | None:
    """The manifest at path, or None when there is none (or it cannot be read)."""
    if not path.is_file():
        return None
    try:
        return read_json(path)
    except (BenchError, OSError, ValueError):
        return None


def build_state(
    entry: dict, tools_dir: Path = TOOLS_DIR, path_env: str | None = None
) -> BuildState:
    """Where a built tool stands before any job (module docstring)."""
    if entry.get("unavailable"):
        return BuildState(UNAVAILABLE, str(entry["unavailable"]))
    pin = entry["build"]
    manifest = read_manifest(tools_dir / build_name(pin) / MANIFEST)
    if manifest is not None and manifest.get("pin") == pin:
        if manifest.get("status") == BUILT:
            return BuildState(BUILT)
        if manifest.get("status") == BUILT_OUTSIDE:
            return BuildState(BUILT, note=f"built outside the workflow: {manifest.get('note')}")
        return BuildState(FAILED, manifest_reason(manifest))
    toolchain = TOOLCHAINS[pin["toolchain"]]
    if shutil.which(toolchain, path=None if pin["toolchain"] == "pip" else path_env) is None:
        return BuildState(
            NO_TOOLCHAIN, f"no `{toolchain}` on PATH to build it: {TOOLCHAIN_HINTS[toolchain]}"
        )
    return BuildState(PENDING)


def manifest_reason(manifest: dict) -> str:
    name = manifest.get("name", "?")
    return (
        f"build of {describe_pin(manifest['pin'])} failed: {manifest.get('reason', '?')} "
        f"(to try again: rm -r resources/tools/{name})"
    )


def describe_pin(pin: dict) -> str:
    what = pin.get(WHAT[pin["toolchain"]])
    return f"{what}@{pin['version']} ({pin['toolchain']})"


def skipped_line(reasons: dict[str, str]) -> str:
    """The one line naming the peers a missing toolchain leaves out, and how to get them."""
    by_toolchain: dict[str, list[str]] = {}
    for tool, reason in sorted(reasons.items()):
        for toolchain in TOOLCHAINS:
            if reason.startswith(f"no `{toolchain}` on PATH"):
                by_toolchain.setdefault(toolchain, []).append(tool)
    parts = [
        f"{', '.join(tools)} (no `{toolchain}`: {TOOLCHAIN_HINTS[toolchain]})"
        for toolchain, tools in sorted(by_toolchain.items())
    ]
    return f"note: built peers skipped: {'; '.join(parts)}" if parts else ""


def build_argv(pin: dict, root: Path, jobs: int) -> list[list[str]]:
    """The commands that build a pin into root/bin (one per Go package; one cargo install)."""
    if pin["toolchain"] == "go":
        module = pin["module"].rstrip("/")
        return [
            ["go", "install", "-trimpath", f"{module}/{package.strip('/')}@{pin['version']}"]
            for package in pin["packages"]
        ]
    if pin["toolchain"] == "pip":
        # the build directory is the venv: its bin/ is what a built tool runs (a link to a
        # venv's python elsewhere would not find the venv's packages)
        python = str(root / "bin" / "python")
        wanted = [f"{pin['package']}=={pin['version']}", *pin.get("with", [])]
        return [
            [sys.executable, "-m", "venv", "--clear", str(root)],
            [python, "-m", "pip", "install", "--quiet", "--no-input", "--only-binary=:all:",
             *wanted],
        ]  # fmt: skip
    argv = [
        "cargo",
        "install",
        "--locked",
        "--force",
        "--jobs",
        str(jobs),
        "--root",
        str(root),
        "--version",
        f"={pin['version']}",
    ]
    if pin.get("default_features") is False:
        argv.append("--no-default-features")
    if pin.get("features"):
        argv += ["--features", ",".join(pin["features"])]
    for binary in pin.get("bins") or []:
        argv += ["--bin", binary]
    return [[*argv, pin["crate"]]]


def build_env(pin: dict, root: Path, cache: Path) -> dict[str, str]:
    """The toolchain's environment: output into root/bin, downloads and objects cached."""
    env = dict(os.environ)
    if pin["toolchain"] == "go":
        env.update(
            GOBIN=str(root / "bin"),
            GOMODCACHE=str(cache / "go-mod"),
            GOCACHE=str(cache / "go-build"),
            GOFLAGS="-modcacherw",
            GOTOOLCHAIN="local",
        )
    elif pin["toolchain"] == "pip":
        env.update(PIP_CACHE_DIR=str(cache / "pip"), PIP_DISABLE_PIP_VERSION_CHECK="1")
    else:
        env["CARGO_TARGET_DIR"] = str(cache / "cargo-target")
    return env


def failure_reason(stderr: str, exit_code: int | None) -> str:
    """The toolchain's own error line(s), URLs cut to their path (no host in any artifact)."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    errors = [line for line in lines if re.match(r"(error|go: |fatal)", line, re.I)]
    picked = (errors or lines)[-2:] if lines else []
    text = " / ".join(picked)[:600] or "no output"
    text = _URL.sub("", text)
    return f"exit {exit_code}: {text}" if exit_code is not None else text


def toolchain_version(toolchain: str) -> str:
    argv = [TOOLCHAINS[toolchain], "version" if toolchain == "go" else "--version"]
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as err:
        return f"unknown ({type(err).__name__})"
    return (
        (proc.stdout or proc.stderr).strip().splitlines()[0] if proc.stdout or proc.stderr else ""
    )


def build(
    pin: dict,
    name: str,
    tools_dir: Path,
    jobs: int = 2,
    timeout: float = BUILD_TIMEOUT,
    log=None,
) -> dict:
    """Build one pin into tools_dir/name/bin; return its manifest (never raises on a failed
    build: the manifest says `failed` and why, and the tools using it are then skipped)."""
    root = (tools_dir / name).resolve()
    cache = (tools_dir / CACHE).resolve()
    root.mkdir(parents=True, exist_ok=True)
    cache.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(root / "bin", ignore_errors=True)
    manifest: dict = {
        "name": name,
        "pin": pin,
        "toolchain": toolchain_version(pin["toolchain"]),
        "argv": [],
        "status": BUILT,
        "reason": "",
        "seconds": 0.0,
        "binaries": {},
    }
    env = build_env(pin, root, cache)
    start = time.monotonic()
    for argv in build_argv(pin, root, jobs):
        manifest["argv"].append(argv)
        left = timeout - (time.monotonic() - start)
        try:
            proc = subprocess.run(
                argv, env=env, capture_output=True, text=True, timeout=max(left, 1), cwd=root
            )
        except subprocess.TimeoutExpired as err:
            out = err.stderr or ""
            out = out.decode("utf-8", "replace") if isinstance(out, bytes) else out
            manifest.update(status=FAILED, reason=f"timed out after {timeout:.0f} s")
            _log(log, out)
            break
        except OSError as err:
            manifest.update(status=FAILED, reason=f"cannot run {argv[0]}: {err.strerror}")
            break
        _log(log, proc.stdout + proc.stderr)
        if proc.returncode != 0:
            manifest.update(status=FAILED, reason=failure_reason(proc.stderr, proc.returncode))
            break
    if manifest["status"] == BUILT and pin["toolchain"] == "pip":
        problem = finish_pip(pin, root)
        if problem:
            manifest.update(status=FAILED, reason=problem)
    manifest["seconds"] = round(time.monotonic() - start, 1)
    if manifest["status"] == BUILT:
        manifest["binaries"] = binaries_of(root / "bin")
        if not manifest["binaries"]:
            manifest.update(status=FAILED, reason="the build produced no binary")
    return manifest


def finish_pip(pin: dict, root: Path) -> str:
    """Check the venv (the build directory) has its `bins`, link its pinned `data` folder as
    data/ and check each data file against its sha256 (weights verified, never trusted); why
    not, or ""."""
    for name in pin.get("bins") or []:
        if not (root / "bin" / name).is_file():
            return f"the venv has no bin/{name}"
    if not pin.get("data"):
        return ""
    found = sorted(root.glob(f"lib/python*/site-packages/{pin['data']}"))
    if len(found) != 1 or not found[0].is_dir():
        return f"no installed folder {pin['data']} in the venv"
    data = root / "data"
    if data.is_symlink():
        data.unlink()
    data.symlink_to(found[0].relative_to(root))
    files = sorted(str(p.relative_to(data)) for p in data.rglob("*") if p.is_file())
    if files != sorted(pin["data_sha256"]):
        return f"{pin['data']} holds {files}, the pin names {sorted(pin['data_sha256'])}"
    for name, digest in sorted(pin["data_sha256"].items()):
        if file_sha256(str(data / name)) != digest:
            return f"{pin['data']}/{name}: sha256 differs from the pin (weights not as pinned)"
    return ""


def adopt(pin: dict, name: str, tools_dir: Path, source: Path, binaries: list[str], note: str):
    """Copy hand-built binaries into tools_dir/name/bin and record them as built outside the
    workflow for this pin (the pin as configured: the builder vouches it is that version)."""
    root = tools_dir / name
    shutil.rmtree(root / "bin", ignore_errors=True)
    (root / "bin").mkdir(parents=True)
    for binary in binaries:
        if not (source / binary).is_file():
            raise BenchError(f"adopt {name}: no file {source / binary}")
        shutil.copy2(source / binary, root / "bin" / binary)
    manifest = {
        "name": name,
        "pin": pin,
        "toolchain": "outside the workflow",
        "argv": [],
        "status": BUILT_OUTSIDE,
        "note": note,
        "reason": "",
        "seconds": 0.0,
        "binaries": binaries_of(root / "bin"),
    }
    write_manifest(manifest, root / MANIFEST)
    return manifest


def binaries_of(bin_dir: Path) -> dict[str, dict[str, str]]:
    """{file name: {path (relative to the build directory), sha256}} of what bin/ holds."""
    if not bin_dir.is_dir():
        return {}
    return {
        p.name: {"path": f"bin/{p.name}", "sha256": file_sha256(str(p))}
        for p in sorted(bin_dir.iterdir())
        if p.is_file()
    }


def _log(log, text: str) -> None:
    if log is not None and text:
        log.write(text if text.endswith("\n") else text + "\n")


def write_manifest(manifest: dict, path: str | os.PathLike) -> None:
    write_json(path, manifest)


def check_built_binary(path: str, manifest: dict) -> str:
    """Why a built binary is not the one the manifest recorded ("" when it is)."""
    entry = manifest.get("binaries", {}).get(os.path.basename(path))
    if entry is None:
        return f"{os.path.basename(path)} is not among the binaries its build produced"
    if not os.path.isfile(path):
        return f"{path} is missing (to rebuild: rm -r {os.path.dirname(os.path.dirname(path))})"
    if file_sha256(path) != entry["sha256"]:
        return f"{path} changed since it was built (sha256 differs from its manifest)"
    return ""


def failed_since(tools_dir: Path, since: float) -> list[str]:
    """The builds whose manifest, written at or after `since` (seconds since the epoch), says
    they failed: what a run that stopped on a refused module built (`./bench run` then runs
    again, and those tools are listed as skipped)."""
    names = []
    for path in sorted(tools_dir.glob(f"*/{MANIFEST}")):
        if path.stat().st_mtime < since:
            continue
        manifest = read_manifest(path)
        if manifest is not None and manifest.get("status") == FAILED:
            names.append(path.parent.name)
    return names


def main(argv: list[str]) -> int:
    """`python -m searchbench.build --failed-since EPOCH`: print the builds that failed since
    then, one a line; exit 0 when there is one, 1 when none."""
    if len(argv) != 2 or argv[0] != "--failed-since":
        sys.stderr.write("usage: python -m searchbench.build --failed-since EPOCH\n")
        return 2
    names = failed_since(TOOLS_DIR, float(argv[1]))
    sys.stdout.write("".join(name + "\n" for name in names))
    return 0 if names else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
