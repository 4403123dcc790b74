"""The machine a timing run was measured on: what a reader needs to weigh its milliseconds.

Ratios between tools timed in one run deserve more trust than absolute times (docs/method.md
§9); this record says which machine the absolute times belong to, and how busy it was.
"""

from __future__ import annotations

import os
import platform
from pathlib import Path


def cpu_model(cpuinfo: str) -> str:
    """The `model name` line of /proc/cpuinfo (ARM kernels may have none)."""
    for line in cpuinfo.splitlines():
        key, _, value = line.partition(":")
        if key.strip() in ("model name", "Model", "Hardware"):
            return value.strip()
    return platform.processor() or "unknown"


def mem_total_kib(meminfo: str) -> int | None:
    for line in meminfo.splitlines():
        if line.startswith("MemTotal:"):
            return int(line.split()[1])
    return None


def filesystem_of(path: str | os.PathLike, mounts: str) -> str:
    """The filesystem type of the mount holding `path` (longest mount point that prefixes
    its real path), from the text of /proc/mounts; "unknown" when nothing matches."""
    real = os.path.realpath(path)
    best, kind = "", "unknown"
    for line in mounts.splitlines():
        fields = line.split()
        if len(fields) < 3:
            continue
        point = fields[1].replace("\\040", " ")
        inside = real == point or real.startswith(point.rstrip("/") + "/")
        if inside and len(point) >= len(best):
            best, kind = point, fields[2]
    return kind


def read_text(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def load_average() -> list[float]:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return []


def host_record(corpus_root: str | os.PathLike) -> dict:
    """CPU, cores, memory, kernel and the corpus's filesystem (load is added by the caller)."""
    return {
        "cpu_model": cpu_model(read_text("/proc/cpuinfo")),
        "cores": os.cpu_count(),
        "mem_total_kib": mem_total_kib(read_text("/proc/meminfo")),
        "kernel": f"{platform.system()} {platform.release()}",
        "corpus_filesystem": filesystem_of(corpus_root, read_text("/proc/mounts")),
    }
