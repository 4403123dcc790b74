"""The docs track's ground truth: identifier-like tokens of documentation headings.

A heading is what the document's own markup says is a heading, read by a real parser where a
well-kept one exists: Markdown by markdown-it-py (CommonMark), reStructuredText by docutils,
HTML (generated API references, committed docs sites) by the standard library's html.parser.
AsciiDoc has no well-kept Python parser (Asciidoctor is Ruby; asciidoc-py is the retired
original), so its section titles are read line by line here, skipping delimited blocks.
Never a tool under test: the answer to a docs query is the one document whose heading holds
the token (docs/method.md, the docs track).
"""

from __future__ import annotations

import html.parser
import io
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from searchbench.errors import BenchError
from searchbench.paths import decode_path
from searchbench.symbols import name_problem

HEADING_KIND = "heading"
WORD_KIND = "heading-word"  # the second token class (track `words`, docs/method.md §3)
WORD_RULE = "docs-word"
# Characters around a word that are markup or punctuation, not part of the token:
# "`pytest.fixture`", "(--lf)", "Config:" -> pytest.fixture, --lf, Config.
_EDGE = "`*\"'()[]{}<>:;,.!?|"
_WORD_SPLIT = re.compile(r"[\s/]+")


@dataclass(frozen=True)
class TokenRule:
    """One kind of identifier-like token (config `docs.tokens`)."""

    name: str
    regex: re.Pattern[str]
    code_only: bool = False  # applies only to words the heading marks as inline code


@dataclass(frozen=True)
class Heading:
    line: int  # 1-based line of the heading's text
    text: str
    code: tuple[str, ...] = ()  # the heading's inline code spans, as written


def token_rules(entries: Sequence[dict]) -> list[TokenRule]:
    """The configured token rules, compiled; a bad regex is one line naming it."""
    rules = []
    for entry in entries:
        try:
            regex = re.compile(str(entry["regex"]))
            rules.append(TokenRule(str(entry["name"]), regex, bool(entry.get("code_only"))))
        except re.error as err:
            raise BenchError(
                f"docs.tokens {entry.get('name')!r}: regex does not compile ({err}); fix it in "
                "the config"
            ) from None
    return rules


@dataclass(frozen=True)
class WordRule:
    """The heading-word class (config `docs.tokens_file` `words`): the regex a plain word must
    match whole, its minimum length and the stop words' keys."""

    regex: re.Pattern[str]
    min_length: int
    stop: frozenset[str]


def word_rule(entry: dict) -> WordRule:
    """The configured heading-word rule, compiled; a bad regex is one line naming it."""
    try:
        regex = re.compile(str(entry["regex"]))
    except re.error as err:
        raise BenchError(
            f"docs words: regex does not compile ({err}); fix it in the docs tokens file"
        ) from None
    stop = frozenset(word_key(w) for group in entry["stop"] for w in group["words"])
    return WordRule(regex, int(entry["min_length"]), stop)


def word_key(word: str) -> str:
    """What decides whether two heading words are the same word: case folded (a reader who
    types `caching` means the `Caching` section) and one final `s` dropped (`Fixtures` and
    `fixture` are one subject); no other stemming, which would be a guess about English."""
    folded = word.casefold()
    return folded[:-1] if len(folded) > 3 and folded.endswith("s") else folded


def docs_shape(rules: Sequence[TokenRule]) -> str:
    """One regex for the sampler's shape step: a query must be a whole token of some rule."""
    return "|".join(f"(?:{rule.regex.pattern})" for rule in rules)


def words(text: str) -> list[str]:
    """A heading's words with surrounding punctuation and inline markup removed."""
    out = []
    for raw in _WORD_SPLIT.split(text):
        word = raw.strip(_EDGE)
        if word.endswith("()"):
            word = word[:-2]
        if word:
            out.append(word)
    return out


def heading_tokens(heading: Heading, rules: Sequence[TokenRule]) -> list[tuple[str, str]]:
    """(token, rule name) for each word of a heading that some rule matches whole; the first
    matching rule names it; a `code_only` rule looks only at words inside inline code. A word
    seen twice in one heading counts once."""
    in_code = {word for span in heading.code for word in words(span)}
    seen: dict[str, str] = {}
    for word in words(heading.text):
        if word in seen:
            continue
        for rule in rules:
            if (word in in_code or not rule.code_only) and rule.regex.fullmatch(word):
                seen[word] = rule.name
                break
    return list(seen.items())


def heading_words(heading: Heading, rules: Sequence[TokenRule], word: WordRule) -> list[str]:
    """The words of a heading that no identifier rule takes and the word regex matches whole,
    once each, as written. Length and stop words are the sampler's steps (its funnel counts
    them), not this one's."""
    taken = {token for token, _ in heading_tokens(heading, rules)}
    out: list[str] = []
    for candidate in words(heading.text):
        if candidate not in taken and candidate not in out and word.regex.fullmatch(candidate):
            out.append(candidate)
    return out


# ---------------------------------------------------------------- parsers


def strip_front_matter(text: str) -> str:
    """Blank out a leading YAML (`---`) or TOML (`+++`) front-matter block, keeping line
    numbers: CommonMark would read `title: x` over a closing `---` as a setext heading."""
    lines = text.split("\n")
    if not lines or lines[0].rstrip() not in ("---", "+++"):
        return text
    fence = lines[0].rstrip()
    closers = ("---", "...") if fence == "---" else ("+++",)
    for end in range(1, len(lines)):
        if lines[end].rstrip() in closers:
            return "\n".join([""] * (end + 1) + lines[end + 1 :])
    return text


def markdown_headings(text: str) -> list[Heading]:
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").parse(strip_front_matter(text))
    out = []
    for i, token in enumerate(tokens):
        if token.type != "heading_open" or token.map is None:
            continue
        inline = tokens[i + 1]
        children = inline.children or []
        parts = [c.content for c in children if c.type in ("text", "code_inline")]
        code = tuple(c.content for c in children if c.type == "code_inline")
        out.append(Heading(token.map[0] + 1, " ".join(parts), code))
    # Markdown allows raw HTML blocks, and some guides write their headings so (ripgrep's FAQ:
    # `<h3 name="config">`): read them with the HTML reader, on the block's own lines.
    for token in tokens:
        if token.type == "html_block" and token.map is not None:
            first = token.map[0]
            out.extend(
                Heading(first + h.line, h.text, h.code) for h in html_headings(token.content)
            )
    return sorted(out, key=lambda h: h.line)


_RST_SETTINGS = {
    # Never read other files or run anything a document asks for (`.. include::`, `raw`).
    "file_insertion_enabled": False,
    "raw_enabled": False,
    # Sphinx directives and roles are unknown to plain docutils: report nothing, stop never.
    "report_level": 5,
    "halt_level": 5,
    "doctitle_xform": False,
    "input_encoding": "unicode",
}


def rst_headings(text: str) -> list[Heading]:
    import docutils.core
    from docutils import nodes

    settings = {**_RST_SETTINGS, "warning_stream": io.StringIO()}
    tree = docutils.core.publish_doctree(text, settings_overrides=settings)
    out = []
    for title in tree.findall(nodes.title):
        if not isinstance(title.parent, nodes.section):
            continue  # admonition, sidebar and table titles are not section headings
        # docutils gives the underline's line; the title's text is the line before it.
        line = (title.line or 1) - 1 if title.line else 0
        code = tuple(node.astext() for node in title.findall(nodes.literal))
        out.append(Heading(max(line, 1), title.astext(), code))
    return out


_ADOC_TITLE = re.compile(r"^(={1,6}|#{1,6})\s+(\S.*?)(?:\s+\1)?\s*$")
_ADOC_UNDERLINE = re.compile(r"^([=\-~^+])\1+\s*$")
_ADOC_DELIMITERS = re.compile(r"^(-{4,}|\.{4,}|/{4,}|\+{4,}|_{4,}|={4,}|\*{4,}|`{3,})\s*$")


def asciidoc_headings(text: str) -> list[Heading]:
    """One-line titles (`== Name`) and two-line titles (text over an underline of about its
    length); nothing inside listing, literal, comment, passthrough or example blocks."""
    lines = text.split("\n")
    out = []
    closing: str | None = None
    i = 0
    while i < len(lines):
        line = lines[i].rstrip()
        nxt = lines[i + 1].rstrip() if i + 1 < len(lines) else ""
        if closing is not None:
            closing = None if line == closing else closing
        elif (
            line
            and not _ADOC_DELIMITERS.match(line)
            and _ADOC_UNDERLINE.match(nxt)
            and abs(len(nxt) - len(line)) <= 2
            and not line.startswith((" ", "\t", "//", ".", "[", "*", "-"))
        ):
            out.append(adoc_heading(i + 1, line.strip()))
            i += 2
            continue
        elif _ADOC_DELIMITERS.match(line):
            closing = line
        elif match := _ADOC_TITLE.match(line):
            out.append(adoc_heading(i + 1, match.group(2)))
        i += 1
    return out


_ADOC_MONO = re.compile(r"`\+?([^`+]+)\+?`|(?<![\w+])\+([^+\s][^+]*)\+(?![\w+])")


def adoc_heading(line: int, title: str) -> Heading:
    """An AsciiDoc title with its monospace spans (`name`, `+name+`) marked as code."""
    spans = [m.group(1) or m.group(2) for m in _ADOC_MONO.finditer(title)]
    text = _ADOC_MONO.sub(lambda m: m.group(1) or m.group(2), title)
    return Heading(line, text, tuple(spans))


# HTML elements whose text is never a heading of the page: scripts, styles and navigation
# chrome (a docs site repeats every page's title in its sidebar).
_HTML_SKIPPED = frozenset({"script", "style", "template", "noscript", "nav"})
_HTML_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
_HTML_VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link",
                        "meta", "source", "track", "wbr"})  # fmt: skip
# Permalink marks generators put inside headings (Sphinx's ¶, others' § and #).
_PERMALINK = frozenset({"¶", "§", "#"})


class _HtmlHeadings(html.parser.HTMLParser):
    """h1-h6 of a page with their inline <code>, outside skipped elements and any element
    marked role="navigation"; every tag boundary inside a heading is a word break."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.headings: list[Heading] = []
        self._open: list[tuple[str, bool]] = []  # (tag, skipped) of open elements
        self._heading: tuple[int, list[str], list[str]] | None = None  # line, text, code
        self._code = 0

    def _skipped(self) -> bool:
        return any(skipped for _, skipped in self._open)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _HTML_VOID:
            return
        skipped = tag in _HTML_SKIPPED or dict(attrs).get("role") == "navigation"
        self._open.append((tag, skipped))
        if tag in _HTML_HEADINGS and self._heading is None and not self._skipped():
            self._heading = (self.getpos()[0], [], [])
        elif self._heading is not None:
            self._heading[1].append(" ")
            self._code += tag == "code"

    def handle_endtag(self, tag: str) -> None:
        if tag in _HTML_VOID or tag not in (t for t, _ in self._open):
            return  # a stray end tag closes nothing
        while self._open:
            open_tag, _ = self._open.pop()
            if self._heading is not None and open_tag in _HTML_HEADINGS:
                line, text, code = self._heading
                self.headings.append(Heading(line, "".join(text).strip(), tuple(code)))
                self._heading, self._code = None, 0
            elif self._heading is not None:
                self._heading[1].append(" ")
                self._code -= open_tag == "code" and self._code > 0
            if open_tag == tag:
                break

    def handle_data(self, data: str) -> None:
        if self._heading is None or data.strip() in _PERMALINK:
            return
        self._heading[1].append(data)
        if self._code:
            self._heading[2].append(data)


def html_headings(text: str) -> list[Heading]:
    reader = _HtmlHeadings()
    reader.feed(text)
    reader.close()
    return reader.headings


PARSERS = {
    "markdown": markdown_headings,
    "rst": rst_headings,
    "asciidoc": asciidoc_headings,
    "html": html_headings,
}


# ---------------------------------------------------------------- the pass


def markup_of(path: str, markups: dict[str, Sequence[str]]) -> str | None:
    """The markup of a file by its extension (config `docs.markups`), or None."""
    lower = path.lower()
    for markup, extensions in markups.items():
        if any(lower.endswith(ext.lower()) for ext in extensions):
            return markup
    return None


def scan_headings(
    root: str | os.PathLike,
    paths: Iterable[str],
    markups: dict[str, Sequence[str]],
    unseen_extensions: Sequence[str],
    rules: Sequence[TokenRule],
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Heading tokens and unseen documents (scan_documents without heading words)."""
    table, unseen, _ = scan_documents(root, paths, markups, unseen_extensions, rules)
    return table, unseen


def scan_documents(
    root: str | os.PathLike,
    paths: Iterable[str],
    markups: dict[str, Sequence[str]],
    unseen_extensions: Sequence[str],
    rules: Sequence[TokenRule],
    word: WordRule | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Heading tokens of every document (symbols.tsv's columns: symbol = the token, kind =
    `heading`, language = the markup, rule = `docs-<token rule>`) and the unseen documents:
    those a parser could not read and those in a documentation format without a parser here,
    so that a token also in them is not taken as a heading of one file only. A token is
    kept only where the file contains it literally (the parsers unescape markup).
    The third table: the heading words (heading_words; kind `heading-word`), in the same
    columns, read in the same pass; empty without a word rule. The first two do not depend on
    it: the identifier tokens are the same with or without heading words."""
    rows: list[Row] = []
    word_rows: list[Row] = []
    unseen: list[tuple[str, str, str]] = []
    base = os.fsencode(root)
    for path in sorted(set(paths)):
        full = os.path.join(base, os.fsencode(decode_path(path)))
        markup = markup_of(decode_path(path), markups)
        if markup is None:
            if any(decode_path(path).lower().endswith(e.lower()) for e in unseen_extensions):
                unseen.append((path, "unparsed-docs-format", str(os.path.getsize(full))))
            continue
        data = Path(os.fsdecode(full)).read_bytes()
        # As in the code track (symbols.name_problem): a name that is not UTF-8 or holds a
        # newline is printed lossily or split by the tools, so it is never an answer.
        problem = name_problem(decode_path(path))
        if problem is not None:
            unseen.append((path, problem, str(len(data))))
            continue
        try:
            text = data.decode("utf-8")
            headings = PARSERS[markup](text)
        except Exception as err:  # any parser failure: the file is unseen, never a crash
            reason = "not-utf8" if isinstance(err, UnicodeDecodeError) else "parse-error"
            unseen.append((path, reason, str(len(data))))
            continue
        found = document_rows(path, markup, text, headings, rules, word)
        rows += found[0]
        word_rows += found[1]
    return (
        _symbol_table(rows),
        pd.DataFrame(sorted(unseen), columns=["path", "reason", "bytes"]),
        _symbol_table(word_rows),
    )


Row = tuple[str, str, str, str, str, str]  # symbols.tsv's columns


def document_rows(
    path: str,
    markup: str,
    text: str,
    found: Sequence[Heading],
    rules: Sequence[TokenRule],
    word: WordRule | None,
) -> tuple[list[Row], list[Row]]:
    """The identifier-token rows and the heading-word rows of one document's headings."""
    rows: list[Row] = []
    word_rows: list[Row] = []
    for heading in found:
        for token, rule in heading_tokens(heading, rules):
            # A token the file holds only in escaped form (reStructuredText's
            # `ntb\_msi\_test`, which the parser unescapes) is no answer a literal
            # search can find here: it is not this document's heading token.
            if token in text:
                rows.append((token, HEADING_KIND, markup, path, str(heading.line), f"docs-{rule}"))
        for plain in heading_words(heading, rules, word) if word else []:
            if plain in text:  # as for tokens: only what a literal search can find
                word_rows.append((plain, WORD_KIND, markup, path, str(heading.line), WORD_RULE))
    return rows, word_rows


def _symbol_table(rows: list[Row]) -> pd.DataFrame:
    table = pd.DataFrame(rows, columns=["symbol", "kind", "language", "path", "line", "rule"])
    table = table.drop_duplicates().sort_values(
        ["symbol", "path", "line"], key=_byte_order, kind="stable"
    )
    return table.reset_index(drop=True)


def _byte_order(column: pd.Series) -> pd.Series:
    if column.name == "line":
        return column.astype(int)
    return column.map(lambda s: s.encode("utf-8"))


def tokens_in_documents(root: str | os.PathLike, paths: Iterable[str]) -> set[bytes]:
    """Every word (as heading_tokens splits them) of the files: a docs token such as
    `pytest.fixture` or `--lf` is not one identifier token, so the code track's
    tokens_in_files would never find it in an unseen document."""
    found: set[bytes] = set()
    base = os.fsencode(root)
    for path in sorted(set(paths)):
        full = os.path.join(base, os.fsencode(decode_path(path)))
        try:
            text = Path(os.fsdecode(full)).read_bytes().decode("utf-8", "replace")
        except (IsADirectoryError, FileNotFoundError):
            continue
        found.update(word.encode("utf-8") for word in words(text))
    return found


DECLARED_COLUMNS = ("qid", "query", "declared_in_code")  # declared_in_code.tsv


def declared_in_code(sample: pd.DataFrame, code_symbols: pd.DataFrame) -> pd.DataFrame:
    """Per docs query: is the token also a declaration in the code (the symbol table)?
    Such queries stay in the track on purpose (a declaration prior may find the code first,
    which is the point of the track); the report says how many there are."""
    declared = set(code_symbols["symbol"])
    flags = ["yes" if q in declared else "no" for q in sample["query"]]
    values = (sample["qid"], sample["query"], flags)
    return pd.DataFrame(dict(zip(DECLARED_COLUMNS, values, strict=True)))
