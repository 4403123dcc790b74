"""Count where the raw C-family shape fires on lines that declare nothing (docs/method.md §7).

The exclusion list hay uses must come from counting, not guessing: run the bare shape
(`signals.cshape_raw`, no exclusions) over a corpus for every name its symbol table
declares, and tally the word immediately before each firing, split into firings on a real
declaration line (true) and elsewhere (false). Firings on comment or prose lines are tallied
apart, because hay removes those by a structural rule rather than by word.
"""

import json
import os
import re
import subprocess
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from searchbench.artifacts import read_tsv
from searchbench.hay.signals import (
    cshape_raw,
    is_comment_line,
    is_prose_file,
    word_before,
)
from searchbench.symbols import SYMBOL_COLUMNS

_CALL = re.compile(rb"([A-Za-z_$][\w$]*)\s*(?:<[^()]*>\s*)?\(")
# Derivation rule for the exclusion list: a word is excluded when it fired falsely on code
# lines at least MIN_FALSE times and at most MAX_TRUE_SHARE of its firings were true.
MIN_FALSE = 2
MAX_TRUE_SHARE = 0.1


@dataclass
class Tally:
    false: Counter = field(default_factory=Counter)  # word -> false firings on code lines
    true: Counter = field(default_factory=Counter)  # word -> firings on declaration lines
    prose: Counter = field(default_factory=Counter)  # word -> false firings, comment/prose
    by_language: dict = field(default_factory=dict)  # word -> Counter(language)
    examples: dict = field(default_factory=dict)  # word -> first example "path:line: text"


def read_symbols(path: Path) -> list[dict[str, str]]:
    return read_tsv(path, SYMBOL_COLUMNS)


def ctags_symbols(root: Path, ctags: str = "ctags") -> list[dict[str, str]]:
    """A rough symbol table from universal-ctags: every tag ctags places is a declaration."""
    argv = [ctags, "-R", "--links=no", "--output-format=json", "--fields=+nKl"]
    # prototypes in headers are declarations too
    argv += ["--kinds-C=+p", "--kinds-C++=+p", "-f", "-", "."]
    out = subprocess.run(argv, cwd=root, capture_output=True, check=True).stdout
    rows = []
    for raw in out.splitlines():
        tag = json.loads(raw)
        if tag.get("_type") != "tag" or "line" not in tag:
            continue
        rows.append(
            {
                "symbol": tag["name"],
                "kind": tag.get("kind", "-"),
                "language": tag.get("language", "-"),
                "path": tag["path"].removeprefix("./"),
                "line": str(tag["line"]),
                "rule": "ctags",
            }
        )
    rows.sort(key=lambda r: (r["path"], int(r["line"]), r["symbol"], r["kind"]))
    return rows


def iter_files(root: Path) -> Iterator[tuple[str, bytes]]:
    """(relative path, content) of every regular non-binary file, in sorted order."""
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames):
            full = os.path.join(dirpath, name)
            if os.path.islink(full) or not os.path.isfile(full):
                continue
            with open(full, "rb") as fh:
                data = fh.read()
            if b"\0" in data[:8192]:
                continue
            yield os.path.relpath(full, root).replace(os.sep, "/"), data


def count(root: Path, symbols: Iterable[dict[str, str]], tally: Tally | None = None) -> Tally:
    """Run the raw shape on every line of every file under root, for every declared name."""
    tally = tally or Tally()
    names = {r["symbol"].encode("utf-8") for r in symbols}
    decls = {(r["path"], int(r["line"])) for r in symbols}
    for rel, data in iter_files(root):
        language = rel.rsplit("/", 1)[-1].rpartition(".")[2] if "." in rel else "-"
        prose_file = is_prose_file(rel.encode())
        for number, line in enumerate(data.splitlines(), 1):
            if b"(" not in line:
                continue
            for m in _CALL.finditer(line):
                name = m.group(1)
                if name not in names or not cshape_raw(line, m.start(1), m.end(1)):
                    continue
                word = word_before(line, m.start(1)).decode("utf-8", "replace")
                if (rel, number) in decls:
                    tally.true[word] += 1
                elif prose_file or is_comment_line(line):
                    tally.prose[word] += 1
                else:
                    tally.false[word] += 1
                    tally.by_language.setdefault(word, Counter())[language] += 1
                    text = line.strip().decode("utf-8", "replace")[:80]
                    tally.examples.setdefault(word, f"{rel}:{number}: {text}")
    return tally


def excluded_by_counts(false: int, true: int) -> bool:
    """The derivation rule: a word fires falsely often enough and almost never truly."""
    return false >= MIN_FALSE and true <= MAX_TRUE_SHARE * (false + true)


def derive_excluded(tally: Tally) -> list[str]:
    """Words that fire falsely often enough and almost never on a real declaration."""
    out = []
    for word, false in tally.false.items():
        if excluded_by_counts(false, tally.true.get(word, 0)):
            out.append(word)
    return sorted(out, key=lambda w: (-tally.false[w], w))


def table(tally: Tally) -> list[str]:
    """word, false, true, prose, languages, example: one row per word, most false first."""
    words = set(tally.false) | set(tally.prose)
    rows = ["word\tfalse\ttrue\tcomment_or_prose\tlanguages\texample"]
    for w in sorted(words, key=lambda w: (-tally.false[w], -tally.prose[w], w)):
        langs = ",".join(f"{k}:{v}" for k, v in sorted(tally.by_language.get(w, {}).items()))
        rows.append(
            f"{w}\t{tally.false[w]}\t{tally.true[w]}\t{tally.prose[w]}\t{langs or '-'}"
            f"\t{tally.examples.get(w, '-')}"
        )
    return rows


def words_file(tally: Tally, corpora: list[str]) -> str:
    """The text of config/hay_false_firing_words.txt, counts as comments."""
    lines = [
        "# Words that, immediately before SYMBOL in `type words SYMBOL(`, made hay's C-family",
        "# shape fire on lines that declare nothing. Derived by scripts/count_cshape_misfires.py",
        f"# (rule: false >= {MIN_FALSE} on code lines and true <= {MAX_TRUE_SHARE:.0%} of the",
        "# word's firings), not guessed. Comment and prose lines are removed by a separate rule;",
        f"# they accounted for {sum(tally.prose.values())} false firings "
        f"(code lines: {sum(tally.false.values())}).",
        "# Corpora: " + ", ".join(corpora),
        "# word  # false true languages",
    ]
    for w in derive_excluded(tally):
        langs = ",".join(f"{k}:{v}" for k, v in sorted(tally.by_language.get(w, {}).items()))
        lines.append(f"{w}  # false={tally.false[w]} true={tally.true[w]} {langs}")
    return "\n".join(lines) + "\n"
