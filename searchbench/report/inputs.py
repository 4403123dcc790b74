"""The report's inputs: one table of the artifacts it reads, and one object holding their paths.

Each artifact is named once here with its path pattern and what it is keyed by. The report
rule builds its inputs from this table and passes each path's key (its wildcard values) as a
param, so no corpus, track or tool name is ever read back from a path's depth. Adding a
report section that reads a new artifact: one line here (the rule picks it up).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from searchbench.errors import BenchError
from searchbench.measures import OPTIONAL_TRACKS

Key = tuple[str, ...]  # the pattern's wildcard values, in the order they appear in it

# name: (path pattern, keyed by). "run": one file per run; "corpus": one per corpus;
# "behaviour corpus" / "behaviour run": per corpus with transcripts configured, and once when
# any is; "timed tool": per corpus and timed tool; "indexed tool": per corpus and tool with an index
# (index_argv); "track": per corpus and measured track (the docs
# track only where it was measured); "track, fast-path tool": per track and fast-path tool;
# "pooled track": one per track, over every corpus that measured it; "docs class track" and
# "pooled docs class": the same for the docs classes' tracks only (their strata).
ARTIFACTS: dict[str, tuple[str, str]] = {
    "tools": ("results/tools.json", "run"),
    "run_status": ("results/run_status.tsv", "run"),
    "ablations": ("results/ablations.tsv", "run"),
    "false_firings": ("results/false_firings.tsv", "run"),
    "false_firing_effect": ("results/false_firing_effect.tsv", "run"),
    "false_firing_words": ("results/false_firing_words.txt", "run"),
    "corpus": ("results/{corpus}/corpus.json", "corpus"),
    "fileset_audit": ("results/{corpus}/fileset_audit.tsv", "corpus"),
    "unseen": ("results/{corpus}/unseen.tsv", "corpus"),
    "funnel": ("results/{corpus}/code/funnel.tsv", "corpus"),
    "gt_audit": ("results/{corpus}/code/gt_audit_summary.tsv", "corpus"),
    "docs_funnel": ("results/{corpus}/docs/funnel.tsv", "corpus"),
    "declared_in_code": ("results/{corpus}/docs/declared_in_code.tsv", "corpus"),
    "words_funnel": ("results/{corpus}/words/funnel.tsv", "corpus"),
    "words_declared": ("results/{corpus}/words/declared_in_code.tsv", "corpus"),
    "usage_funnel": ("results/{corpus}/usage/funnel.tsv", "corpus"),
    "usage_audit": ("results/{corpus}/usage/audit.tsv", "corpus"),
    "behaviour_funnel": ("results/{corpus}/behaviour/funnel.tsv", "behaviour corpus"),
    "mining": ("results/transcripts/mining.tsv", "behaviour run"),
    "timing": ("results/{corpus}/timing/{tool}.tsv", "timed tool"),
    "timing_host": ("results/{corpus}/timing/{tool}.host.json", "timed tool"),
    "timing_fast_path": ("results/{corpus}/timing/{tool}.fastpath.json", "timed tool"),
    "index_cost": ("results/{corpus}/index/{tool}.json", "indexed tool"),
    "scores": ("results/{corpus}/{track}/scores.tsv", "track"),
    "health": ("results/{corpus}/{track}/health.tsv", "track"),
    "qrels": ("results/{corpus}/{track}/qrels.txt", "track"),
    "inference": ("results/{corpus}/{track}/inference.json", "track"),
    "power": ("results/{corpus}/{track}/power.json", "track"),
    "by_language": ("results/{corpus}/{track}/by_language.json", "track"),
    "filter_rank": ("results/{corpus}/{track}/filter_rank.tsv", "track"),
    "ties": ("results/{corpus}/{track}/ties.tsv", "track"),
    "calibration": ("results/{corpus}/{track}/calibration.tsv", "track"),
    "agent_cost": ("results/{corpus}/{track}/agent_cost.tsv", "track"),
    "pooled_by_language": ("results/pooled/{track}/by_language.json", "pooled track"),
    "pooled": ("results/pooled/{track}.json", "pooled track"),
    "fast_path": ("results/{corpus}/{track}/fastpath/{tool}.json", "track, fast-path tool"),
    "strata": ("results/{corpus}/{track}/strata.json", "docs class track"),
    "pooled_strata": ("results/pooled/{track}/strata.json", "pooled docs class"),
}
PER_TRACK = frozenset(
    {"track", "track, fast-path tool", "pooled track", "docs class track", "pooled docs class"}
)
# An optional track's (searchbench.measures.OPTIONAL_TRACKS) per-track inputs are separate rule
# inputs named "{track}_{name}" (each waits on its track's checkpoint); the code track's carry
# the artifact's own name.


def wildcards_of(pattern: str) -> list[str]:
    return re.findall(r"\{(\w+)\}", pattern)


def rule_inputs(
    track: str, keys_of: Callable[[str, str], list[dict[str, str]]]
) -> dict[str, dict[str, list]]:
    """For the report rule: per rule input name, its paths and their keys. The code track's
    call also gives every run- and corpus-wide input; an optional track's only its per-track
    ones (named {track}_*), so that only they wait on its checkpoint. `keys_of(keyed_by, track)`
    lists the wildcard values the workflow has for one kind of key."""
    out = {}
    for name, (pattern, keyed_by) in ARTIFACTS.items():
        if track != "code" and keyed_by not in PER_TRACK:
            continue
        keys = keys_of(keyed_by, track)
        wildcards = wildcards_of(pattern)
        out[name if track == "code" else f"{track}_{name}"] = {
            "paths": [pattern.format(**k) for k in keys],
            "keys": [[k[w] for w in wildcards] for k in keys],
        }
    return out


def artifact_of(input_name: str) -> str:
    """The artifact a report rule input holds: its own name, or an optional track's copy."""
    if input_name in ARTIFACTS:
        return input_name
    track, _, name = input_name.partition("_")
    if track in OPTIONAL_TRACKS and name in ARTIFACTS:
        return name
    raise BenchError(f"report input {input_name!r} is not in ARTIFACTS (report/inputs.py)")


def as_list(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, (str, Path)):
        return [str(value)]
    return [str(v) for v in value]


@dataclass(frozen=True)
class ReportInputs:
    """Every path the report reads, keyed; and what the provenance section reproduces."""

    paths: Mapping[str, Mapping[Key, Path]]
    config: dict[str, Any]
    config_hash: str
    command: str
    commit: str = ""  # the workflow's git commit (rules/common.smk workflow_commit)

    def keyed(self, name: str) -> dict[Key, Path]:
        """One artifact's paths by key, sorted by key."""
        if name not in ARTIFACTS:
            raise BenchError(f"report input {name!r} is not in ARTIFACTS (report/inputs.py)")
        return dict(sorted(self.paths.get(name, {}).items()))

    def by_corpus(self, name: str) -> dict[str, Path]:
        return {key[0]: path for key, path in self.keyed(name).items()}

    def one(self, name: str) -> Path | None:
        return self.keyed(name).get(())

    def every_path(self) -> list[Path]:
        return sorted({p for paths in self.paths.values() for p in paths.values()}, key=str)

    @classmethod
    def empty(cls) -> ReportInputs:
        return cls(paths={}, config={}, config_hash="", command="")

    @classmethod
    def from_rule(
        cls, rule_input: Any, keys: Mapping[str, Sequence[Sequence[str]]], **run: Any
    ) -> ReportInputs:
        """From the report rule: each named input's paths zipped with params.input_keys."""
        paths: dict[str, dict[Key, Path]] = {}
        for input_name, key_list in keys.items():
            files = as_list(getattr(rule_input, input_name, []))
            if len(files) != len(key_list):
                raise BenchError(
                    f"report input {input_name}: {len(files)} paths but {len(key_list)} keys; "
                    "the rule's inputs and params.input_keys must come from rule_inputs()"
                )
            name = artifact_of(input_name)
            for key, file in zip(key_list, files, strict=True):
                paths.setdefault(name, {})[tuple(key)] = Path(file)
        return cls(paths=paths, **run)

    @classmethod
    def from_paths(
        cls, config: dict[str, Any], config_hash: str, command: str, **named: Any
    ) -> ReportInputs:
        """From lists of paths laid out as the workflow writes them (tests, ad-hoc use): each
        key is read by matching the path's tail against its artifact's pattern."""
        paths: dict[str, dict[Key, Path]] = {}
        for name, value in named.items():
            if name not in ARTIFACTS:
                raise BenchError(f"report input {name!r} is not in ARTIFACTS (report/inputs.py)")
            for file in as_list(value):
                paths.setdefault(name, {})[key_of(name, file)] = Path(file)
        return cls(paths=paths, config=config, config_hash=config_hash, command=command)


def pattern_regex(pattern: str) -> re.Pattern[str]:
    tail = pattern.removeprefix("results/")
    parts = re.split(r"\{(\w+)\}", tail)
    body = "".join(
        re.escape(part) if i % 2 == 0 else f"(?P<{part}>[^/]+)" for i, part in enumerate(parts)
    )
    return re.compile(f"(?:^|/){body}$")


def key_of(name: str, path: str | Path) -> Key:
    pattern = ARTIFACTS[name][0]
    match = pattern_regex(pattern).search(Path(path).as_posix())
    if match is None:
        raise BenchError(f"report input {name}: {path} does not match {pattern}")
    return tuple(match.group(w) for w in wildcards_of(pattern))
