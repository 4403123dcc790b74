"""Where hay's definition rules fire on lines that declare nothing (issue 11 item 3, method §7).

For every declared name of a corpus (its symbol table), every line of every text file is
checked with the two rules hay uses to call a line a definition, in their raw form:

- `c-shape`: `type words NAME(` (signals.cshape_raw, no word excluded);
- `keyword`: a declaration keyword before the name (`def NAME`, `struct NAME {`, ...), the
  same keyword and modifier fragments hay's Scorer compiles per symbol.

Each firing is an outcome: `true` (the symbol table declares that name on that line),
`comment_or_prose` (a comment line or a prose file: hay drops these by a structural rule),
or `false` (a code line that declares nothing of that name). Firings are tallied by the word
right before the name (the keyword itself for `keyword`) and the file's language.

The c-shape exclusion list hay reads (config/hay_false_firing_words.txt) is derived from the
pooled table with the rule in searchbench/hay/misfires.py (false ≥ MIN_FALSE on code lines,
true ≤ MAX_TRUE_SHARE of the word's firings); `effect` says what a list removes and loses.
A declaration the parser does not know (a local `let x`, a language without rules) counts as
false here: it is false against the benchmark's ground truth, which is what hay is judged by.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path

from searchbench.artifacts import tsv_text, write_text
from searchbench.errors import BenchError
from searchbench.fileset import FileEntry
from searchbench.hay.misfires import MAX_TRUE_SHARE, MIN_FALSE, excluded_by_counts
from searchbench.hay.signals import (
    _C_TAG_FOLLOW,
    _C_TAG_KEYWORDS,
    _KEYWORD,
    _MODIFIER,
    C_LIKE_EXTENSIONS,
    cshape_raw,
    extension,
    is_comment_line,
    is_prose_file,
    parse_word_list,
    word_before,
)
from searchbench.paths import encode_path

RULES = ("c-shape", "keyword")
OUTCOMES = ("true", "false", "comment_or_prose")
COLUMNS = ("rule", "language", "word", "true", "false", "comment_or_prose", "listed", "example")
POOLED_COLUMNS = ("rule", "language", "word", "corpora", *COLUMNS[3:])
EFFECT_COLUMNS = (
    "list",
    "words",
    "false_before",
    "false_after",
    "cut",
    "true_before",
    "true_lost",
    "comment_or_prose",
)

_CALL = re.compile(rb"([A-Za-z_$][\w$]*)\s*(?:<[^()]*>\s*)?\(")
_KEYWORD_ANY = re.compile(
    rb"\s*(?:" + _MODIFIER + rb"\s+)*" + _KEYWORD + rb"(?:\s*<[^>]*>)?\s+(?P<name>[A-Za-z_$][\w$]*)"
)
_SPACES = re.compile(rb"\s+")

Key = tuple[str, str, str]  # rule, language, word


def keyword_word(kw: bytes) -> str:
    """The keyword as a table word: `# define` → `#define`, `func (r *T)` → `func`."""
    kw = kw.split(b"(", 1)[0]
    if kw.startswith(b"#"):
        kw = b"#" + kw[1:].strip()
    return _SPACES.sub(b" ", kw).strip().decode("ascii", "replace")


def line_firings(line: bytes, names: frozenset[bytes], c_like: bool) -> Iterator[tuple]:
    """(rule, name, word) of every raw firing on one line, for names in `names`."""
    if b"(" in line:
        for m in _CALL.finditer(line):
            name = m.group(1)
            if name in names and cshape_raw(line, m.start(1), m.end(1)):
                yield "c-shape", name, word_before(line, m.start(1)).decode("utf-8", "replace")
    m = _KEYWORD_ANY.match(line)
    if m is not None and m.group("name") in names:
        kw = m.group("kw")
        # `struct foo *p` in C is a use; hay's keyword rule skips it the same way
        if not (c_like and kw in _C_TAG_KEYWORDS and not _C_TAG_FOLLOW.match(line, m.end())):
            yield "keyword", m.group("name"), keyword_word(kw)


def audit_files(
    root: Path,
    files: Iterable[FileEntry],
    symbols: Iterable[Mapping[str, str]],
) -> tuple[Counter, dict[Key, str]]:
    """Tally every firing over the text files of a corpus (files.tsv entries, sorted by path
    bytes). Returns a Counter keyed by (rule, language, word, outcome) and the first false
    firing's `path:line` per key (paths encoded as in symbols.tsv)."""
    rows = list(symbols)
    names = frozenset(r["symbol"].encode("utf-8") for r in rows)
    decls = {(r["path"], int(r["line"]), r["symbol"].encode("utf-8")) for r in rows}
    tally: Counter = Counter()
    examples: dict[Key, str] = {}
    for entry in sorted(files, key=lambda e: os.fsencode(e.path)):
        if entry.kind != "text":
            continue
        path = os.fsencode(entry.path)
        rel, language = encode_path(path), entry.language
        try:
            data = (root / entry.path).read_bytes()
        except OSError as exc:
            raise BenchError(
                f"{root / entry.path}: cannot read a file files.tsv lists ({exc.strerror}); "
                "rerun the corpus's fetch_corpus rule"
            ) from exc
        prose = is_prose_file(path)
        c_like = extension(path).lower() in C_LIKE_EXTENSIONS
        for number, line in enumerate(data.splitlines(), 1):
            for rule, name, word in line_firings(line, names, c_like):
                if (rel, number, name) in decls:
                    outcome = "true"
                elif prose or is_comment_line(line):
                    outcome = "comment_or_prose"
                else:
                    outcome = "false"
                    examples.setdefault((rule, language, word), f"{rel}:{number}")
                tally[(rule, language, word, outcome)] += 1
    return tally, examples


def table_rows(
    tally: Counter, examples: Mapping[Key, str], listed: frozenset[str]
) -> list[dict[str, object]]:
    """One row per (rule, language, word), sorted by rule, then most false first."""
    keys = sorted({k[:3] for k in tally})
    rows = [
        {
            "rule": rule,
            "language": language,
            "word": word,
            **{o: tally[(rule, language, word, o)] for o in OUTCOMES},
            # only the c-shape rule reads the list
            "listed": ("yes" if word in listed else "no") if rule == "c-shape" else "-",
            "example": examples.get((rule, language, word), "-"),
        }
        for rule, language, word in keys
    ]
    rows.sort(key=lambda r: (RULES.index(r["rule"]), -r["false"], r["language"], r["word"]))
    return rows


def read_word_list(path: str | os.PathLike) -> frozenset[str]:
    """The words of a list in config/hay_false_firing_words.txt's format (hay's own reader)."""
    return frozenset(
        w.decode("utf-8") for w in parse_word_list(Path(path).read_bytes().splitlines())
    )


def corpus_tsv(rows: Sequence[Mapping[str, object]]) -> str:
    return tsv_text(COLUMNS, ([r[c] for c in COLUMNS] for r in rows))


# --- pooled over corpora ----------------------------------------------------------------------


def pool(tables: Mapping[str, Sequence[Mapping[str, str]]], listed: frozenset[str]) -> list[dict]:
    """Sum per-corpus tables (corpus -> rows read back from false_firings.tsv)."""
    tally: Counter = Counter()
    corpora: dict[Key, set[str]] = {}
    examples: dict[Key, str] = {}
    for corpus in sorted(tables):
        for r in tables[corpus]:
            key = (r["rule"], r["language"], r["word"])
            corpora.setdefault(key, set()).add(corpus)
            for o in OUTCOMES:
                tally[(*key, o)] += int(r[o])
            if r["example"] != "-":
                examples.setdefault(key, f"{corpus}:{r['example']}")
    rows = table_rows(tally, examples, listed)
    for r in rows:
        r["corpora"] = len(corpora[(r["rule"], r["language"], r["word"])])
    return rows


def by_word(rows: Iterable[Mapping], rule: str = "c-shape") -> dict[str, Counter]:
    """word -> Counter of outcomes over every language, for one rule."""
    out: dict[str, Counter] = {}
    for r in rows:
        if r["rule"] == rule:
            c = out.setdefault(str(r["word"]), Counter())
            for o in OUTCOMES:
                c[o] += int(r[o])
    return out


def derive_words(rows: Iterable[Mapping]) -> list[str]:
    """The c-shape exclusion list the counts call for (misfires.derive_excluded's rule):
    most false first."""
    words = by_word(rows)
    out = [w for w, c in words.items() if excluded_by_counts(c["false"], c["true"])]
    return sorted(out, key=lambda w: (-words[w]["false"], w))


def effect(rows: Sequence[Mapping], name: str, words: Iterable[str]) -> dict[str, object]:
    """What excluding `words` does to the c-shape rule's code-line firings."""
    counts = by_word(rows)
    chosen = set(words)
    false_before = sum(c["false"] for c in counts.values())
    cut = sum(c["false"] for w, c in counts.items() if w in chosen)
    true_before = sum(c["true"] for c in counts.values())
    return {
        "list": name,
        "words": len(chosen),
        "false_before": false_before,
        "false_after": false_before - cut,
        "cut": cut,
        "true_before": true_before,
        "true_lost": sum(c["true"] for w, c in counts.items() if w in chosen),
        "comment_or_prose": sum(c["comment_or_prose"] for c in counts.values()),
    }


def words_text(rows: Sequence[Mapping], corpora: Sequence[str]) -> str:
    """The derived list in config/hay_false_firing_words.txt's format, counts as comments."""
    counts = by_word(rows)
    langs: dict[str, Counter] = {}
    for r in rows:
        if r["rule"] == "c-shape" and int(r["false"]):
            langs.setdefault(str(r["word"]), Counter())[str(r["language"])] += int(r["false"])
    lines = [
        "# Words that, immediately before SYMBOL in `type words SYMBOL(`, made hay's C-family",
        "# shape fire on code lines that declare nothing. Derived by the false_firing_words rule",
        f"# (false >= {MIN_FALSE} on code lines and true <= {MAX_TRUE_SHARE:.0%} of the word's",
        "# firings) over the symbol tables of: " + ", ".join(corpora),
        "# word  # false true languages",
    ]
    for w in derive_words(rows):
        lang = ",".join(f"{k}:{v}" for k, v in sorted(langs.get(w, Counter()).items()))
        lines.append(f"{w}  # false={counts[w]['false']} true={counts[w]['true']} {lang}")
    return "\n".join(lines) + "\n"


def write_corpus_table(rows: Sequence[Mapping], path: str | os.PathLike) -> None:
    write_text(path, corpus_tsv(rows))


def pooled_tsv(rows: Sequence[Mapping]) -> str:
    return tsv_text(POOLED_COLUMNS, ([r[c] for c in POOLED_COLUMNS] for r in rows))


def effect_tsv(rows: Sequence[Mapping]) -> str:
    return tsv_text(EFFECT_COLUMNS, ([r[c] for c in EFFECT_COLUMNS] for r in rows))
