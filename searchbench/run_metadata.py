"""Each TREC run file's provenance in the ir_metadata style (PRIMAD: platform, implementation,
method, data), in a sidecar file beside it: results/{corpus}/{track}/runs/{tool}.run.yaml.

A sidecar, not the run file's header: trec_eval reads every line of a run as `qid Q0 docid
rank score tag` and stops at a `# ir_metadata.start` comment line, so a header would break
the readers a run file exists for (tests/test_run_metadata.py checks the run stays plain).
The keys follow ir_metadata's schema 0.1; what it has no key for sits under `x-searchbench`.
"""

from __future__ import annotations

import os
import platform
from collections.abc import Mapping
from typing import Any

import yaml

from searchbench.artifacts import file_sha256, write_text
from searchbench.host import cpu_model, mem_total_kib, read_text

SCHEMA_VERSION = "0.1"


def os_release(text: str) -> str:
    """PRETTY_NAME of /etc/os-release, e.g. 'Debian GNU/Linux 12 (bookworm)'."""
    for line in text.splitlines():
        key, _, value = line.partition("=")
        if key == "PRETTY_NAME":
            return value.strip().strip('"')
    return "unknown"


def platform_record() -> dict[str, Any]:
    mem = mem_total_kib(read_text("/proc/meminfo"))
    return {
        "hardware": {
            "cpu": {
                "model": cpu_model(read_text("/proc/cpuinfo")),
                "architecture": platform.machine(),
                "number of cores": os.cpu_count(),
            },
            "ram": f"{mem / 2**20:.1f} GB" if mem else "unknown",
        },
        "operating system": {
            "kernel": f"{platform.system()} {platform.release()}",
            "distribution": os_release(read_text("/etc/os-release")),
        },
    }


def run_metadata(
    *,
    corpus: Mapping[str, Any],
    track: str,
    tool: Mapping[str, Any],
    run_path: str | os.PathLike,
    queries_path: str | os.PathLike,
    qrels_path: str | os.PathLike,
    commit: str,
    word_match: bool,
) -> dict[str, Any]:
    """The sidecar's content for one run: what ran (tool, version, argv, binary and its
    sha256), on what (corpus, revision, queries, qrels) and where (platform)."""
    name = str(tool["name"])
    return {
        "schema-version": SCHEMA_VERSION,
        "run-version": "1.0",
        "tag": name,
        "platform": {
            **platform_record(),
            "software": {"retrieval toolkit": [f"{name}: {tool.get('version', '')}"]},
        },
        "research goal": {
            "description": (
                "rank of the file that declares a symbol, in the order a code-search tool "
                "prints files, for a literal query (docs/method.md)"
            ),
        },
        "implementation": {
            "executable": {"cmd": " ".join(str(a) for a in tool.get("argv", []))},
            "source": {"lang": ["python"], "commit": commit},
        },
        "method": {
            "retrieval": {
                "name": name,
                "description": str(tool.get("description", "")),
                "order": str(tool.get("order", "")),
                "word match": bool(word_match),
            },
        },
        "data": {
            "test collection": {
                "name": f"{corpus.get('corpus', '')}/{track}",
                "source": corpus.get("source", {}),
                "revision": corpus.get("resolved_revision", ""),
                "qrels": str(qrels_path),
                "topics": str(queries_path),
            },
        },
        "x-searchbench": {
            "binary": tool.get("binary"),
            "binary_target": tool.get("binary_target", ""),
            "binary_sha256": tool.get("sha256", ""),
            "version_line": tool.get("version", ""),
            "run_sha256": file_sha256(str(run_path)),
        },
    }


def metadata_text(record: Mapping[str, Any]) -> str:
    return yaml.safe_dump(dict(record), sort_keys=True, allow_unicode=True, width=100)


def write_run_metadata(record: Mapping[str, Any], path: str | os.PathLike) -> None:
    write_text(path, metadata_text(record))
