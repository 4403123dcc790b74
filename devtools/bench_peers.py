"""Print the peer field's figures (issues 16 and 32's targets) from a finished run, as Markdown.

    bench_peers.py [--results DIR] [--tools-dir DIR] [--track code]

Reads only what the run wrote (results/tools.json, tools_skipped.tsv, {corpus}/files.tsv,
{corpus}/index/*.json, {corpus}/{track}/inference.json and raw/*.jsonl) and the build
manifests (resources/tools/*/manifest.json), and prints:

- programs: the distinct programs among the run's tools (the command a tool entry runs, by
  name: rg and rg-current are one program; ablation variants are hay) and the families
  represented, against the targets (>= 24 programs, every family);
- builds: each built peer's one-time build seconds, and their sum (target <= 45 min);
- index builds: seconds and bytes per index tool on the largest corpus (most files), and the
  sum over every tool and corpus (target <= 5 min);
- sessions: per session tool and corpus, seconds until ready and peak memory;
- per tool: family, version, then MRR and verdict vs the baseline on each corpus;
- tools skipped, with their reasons.
"""

import argparse
import csv
import json
import os
from pathlib import Path

from searchbench.tools import TOOL_FAMILIES

TARGET_PROGRAMS = 24
TARGET_BUILD_SECONDS = 45 * 60
TARGET_INDEX_SECONDS = 5 * 60


def program(tool: dict) -> str:
    """The command a tool entry runs, by name (a built rg and the wheel's rg are one); a pip
    build runs its package through the build's own Python (semble), so its package names it."""
    build = tool.get("build") or {}
    if build.get("toolchain") == "pip":
        return str(build["package"])
    return os.path.basename(tool["binary"] or tool["name"])


def programs(tools: dict[str, dict]) -> dict[str, list[str]]:
    """program -> the available, non-ablation tool entries that run it."""
    out: dict[str, list[str]] = {}
    for name, tool in sorted(tools.items()):
        if tool["available"] and not tool.get("ablation_of"):
            out.setdefault(program(tool), []).append(name)
    return out


def corpora(results: Path) -> list[str]:
    return sorted(p.parent.name for p in results.glob("*/files.tsv"))


def file_count(results: Path, corpus: str) -> int:
    with open(results / corpus / "files.tsv", encoding="utf-8") as handle:
        return sum(1 for _ in handle) - 1


def index_costs(results: Path) -> dict[tuple[str, str], dict]:
    """(corpus, tool) -> results/{corpus}/index/{tool}.json."""
    return {
        (p.parents[1].name, p.stem): json.loads(p.read_text())
        for p in results.glob("*/index/*.json")
    }


def comparisons(results: Path, corpus: str, track: str) -> tuple[str, dict[str, dict]]:
    """(baseline, tool -> its MRR comparison on all queries) of one corpus track."""
    path = results / corpus / track / "inference.json"
    if not path.exists():
        return "", {}
    data = json.loads(path.read_text())
    baseline = data.get("metadata", {}).get("baseline", "")
    found = {}
    for comp in data["comparisons"]:
        if comp["metric"] == "rr" and comp["subset"] == "all":
            found.setdefault(comp["tool"], comp)  # the first: vs the baseline (primary, secondary)
    return baseline, found


def sessions(results: Path, track: str) -> list[tuple[str, str, dict]]:
    out = []
    for path in sorted(results.glob(f"*/{track}/raw/*.jsonl")):
        with open(path, encoding="utf-8") as handle:
            for line in handle:
                record = json.loads(line)
                if "session_ready_seconds" in record:
                    out.append((path.stem, path.parents[2].name, record))
                    break
    return out


def table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def fmt(value: float | None, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=Path, default=Path("results"))
    parser.add_argument("--tools-dir", type=Path, default=Path("resources/tools"))
    parser.add_argument("--track", default="code")
    args = parser.parse_args()
    results: Path = args.results
    tools = json.loads((results / "tools.json").read_text())
    named = programs(tools)
    # every available entry's family (rg-newest is the agent-harness family's, rg's program)
    families = sorted({tools[name]["family"] for names in named.values() for name in names})
    missing = [f for f in TOOL_FAMILIES if f not in families]
    print(f"## Programs: {len(named)} distinct (target >= {TARGET_PROGRAMS})\n")
    print(", ".join(f"{p} ({', '.join(n)})" for p, n in named.items()))
    print(f"\nFamilies represented: {len(families)} of {len(TOOL_FAMILIES)}", end="")
    print(f"; missing: {', '.join(missing)}" if missing else "")

    manifests = sorted(args.tools_dir.glob("*/manifest.json"))
    builds = [json.loads(p.read_text()) for p in manifests]
    build_total = sum(b.get("seconds") or 0 for b in builds)
    print(f"\n## One-time builds: {build_total:.0f} s (target <= {TARGET_BUILD_SECONDS} s)\n")
    rows = [[b["name"], b["pin"]["version"], b["status"], fmt(b.get("seconds"), 0)] for b in builds]
    print(table(["build", "version", "status", "seconds"], rows))

    names = corpora(results)
    largest = max(names, key=lambda c: file_count(results, c))
    costs = index_costs(results)
    index_total = sum(c.get("wall_seconds") or 0 for c in costs.values())
    print(f"\n## Index builds: {index_total:.1f} s over {len(costs)} builds", end="")
    print(f" (target <= {TARGET_INDEX_SECONDS} s); largest corpus: {largest}\n")
    rows = [
        [tool, c["status"], fmt(c["wall_seconds"], 2), f"{c['bytes']:,}", f"{c['peak_rss_kib']:,}"]
        for (corpus, tool), c in sorted(costs.items())
        if corpus == largest
    ]
    print(table(["tool", "status", "seconds", "bytes", "peak KiB"], rows))

    found = sessions(results, args.track)
    if found:
        print(f"\n## Sessions ({args.track} track)\n")
        rows = [
            [tool, corpus, str(r["session_ready"]), fmt(r["session_ready_seconds"], 2),
             f"{r['session_peak_rss_kib']:,}"]
            for tool, corpus, r in found
        ]  # fmt: skip
        print(table(["tool", "corpus", "ready", "ready after s", "peak KiB"], rows))

    print(f"\n## MRR and verdict vs the baseline ({args.track} track, all queries)\n")
    per_corpus = {c: comparisons(results, c, args.track) for c in names}
    rows = []
    for name, tool in sorted(tools.items(), key=lambda kv: (kv[1]["family"], kv[0])):
        if not tool["available"] or tool.get("ablation_of"):
            continue
        cells = []
        for corpus in names:
            baseline, comps = per_corpus[corpus]
            comp = comps.get(name)
            if name == baseline and comps:
                cells.append(f"{fmt(next(iter(comps.values()))['mean_base'])} (baseline)")
            elif comp is None:
                cells.append("–")
            elif comp["verdict"] == "not applicable":
                cells.append("n/a")
            else:
                cells.append(f"{fmt(comp['mean_tool'])} ({comp['verdict']}, n {comp['n']})")
        rows.append([name, tool["family"], tool["version"][:40], *cells])
    print(table(["tool", "family", "version", *names], rows))

    skipped = results / "tools_skipped.tsv"
    if skipped.exists():
        with open(skipped, encoding="utf-8") as handle:
            entries = list(csv.DictReader(handle, delimiter="\t"))
        print(f"\n## Tools skipped: {len(entries)}\n")
        for entry in entries:
            print(f"- {entry.get('tool')}: {entry.get('reason')}")


if __name__ == "__main__":
    main()
