"""The signals hay scores a matching line with (docs/method.md §7).

Everything works on bytes: ripgrep reports byte offsets and lines or paths that are not
valid UTF-8, and a byte regex is as fast as a str one. Each signal is a small pure function
so it can be switched off, measured and tested on its own.

Weights are integers so scores (and therefore the ranking) are exact and deterministic.
A declaration always outranks a mere mention, even in a penalised path: the largest path
penalty is smaller than the weakest declaration weight minus the word bonus.
"""

import os
import re
from collections.abc import Iterable

# --- weights -------------------------------------------------------------------------------
KEYWORD_WEIGHT = 100  # `fn NAME`, `def NAME`, `class NAME`, `#define NAME`, ...
KEYWORD_EXTENDS_WEIGHT = 60  # `impl NAME`, `extension NAME`: adds to a type declared elsewhere
CSHAPE_WEIGHT = 90  # `static int NAME(` at the start of a line, with a body (no trailing `;`)
CSHAPE_PROTOTYPE_WEIGHT = 80  # the same shape ending in `;`: a prototype / abstract method
WORD_BONUS = 5  # the symbol occurs as a whole word (`quiet`, not only inside `test_quiet`)
PENALTY_TEST = -30  # tests, spec, testdata, *_test.go, test_*.py, *.spec.ts, ...
PENALTY_EXAMPLE = -20  # examples, samples, benches
PENALTY_DOCS = -40  # doc(s)/ trees and prose files (*.md, *.rst, *.txt)
PENALTY_VENDORED = -50  # vendor, third_party, node_modules, dist, build

# Only the strongest path penalty applies, so a file under `vendor/x/tests/` is not pushed
# below a plain mention elsewhere: min(declaration) + min(penalty) > WORD_BONUS.
assert min(KEYWORD_EXTENDS_WEIGHT, CSHAPE_PROTOTYPE_WEIGHT) + PENALTY_VENDORED > WORD_BONUS

# A declaration sits near the start of its line; looking further is wasted time on
# minified or generated lines.
MAX_PREFIX = 256

# os.path, not pathlib: importing pathlib costs hay ~5 ms per run (it pulls in urllib).
FALSE_FIRING_WORDS_FILE = os.path.join(
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__)))),
    "config",
    "hay_false_firing_words.txt",
)

# --- languages by extension (cheap, optional) ----------------------------------------------
C_LIKE_EXTENSIONS = frozenset(b"c h cc cpp cxx c++ hh hpp hxx h++ ipp tcc m mm".split())
PROSE_EXTENSIONS = frozenset(b"md markdown rst txt adoc asciidoc rdoc".split())


_ALL_CAPS_NAME = re.compile(rb"[A-Z][A-Z0-9_-]+(?:\.[A-Z]+)?\Z")


def is_prose_file(path: bytes) -> bool:
    """Markdown, reST, text, and LICENSE/README/COPYING-style all-caps names (counted:
    license text was the largest source of prose firings outside comments)."""
    name = path.rsplit(b"/", 1)[-1]
    return extension(name).lower() in PROSE_EXTENSIONS or _ALL_CAPS_NAME.match(name) is not None


def extension(path: bytes) -> bytes:
    name = path.rsplit(b"/", 1)[-1]
    return name.rsplit(b".", 1)[-1] if b"." in name[1:] else b""


# --- word boundaries -----------------------------------------------------------------------
def _is_word_byte(b: int) -> bool:
    # ASCII letters, digits, `_`, `$` (JS identifiers) and any non-ASCII byte (UTF-8 letters).
    return 48 <= b <= 57 or 65 <= b <= 90 or 97 <= b <= 122 or b == 95 or b == 36 or b >= 0x80


# --- comments and prose --------------------------------------------------------------------
_COMMENT_START = re.compile(rb"\s*(?://|/\*|\*|--|<!--|\"\"\"|'''|;|%|#(?!\s*define\b|\[))")


def is_comment_line(line: bytes) -> bool:
    """A line that starts like a comment (or a docstring fence) declares nothing.

    `#define` and Rust's `#[attr]` are code; any other leading `#` is a comment (Python,
    shell, YAML, Markdown headings) or a preprocessor line that is not a declaration."""
    return _COMMENT_START.match(line) is not None


# --- signal 1: declaration keyword before the symbol ---------------------------------------
_MODIFIER = (
    rb"(?:pub(?:\s*\([^)]*\))?|export|default|async|static|unsafe|extern(?:\s+\"[^\"]*\")?"
    rb"|public|private|protected|internal|fileprivate|open|final|abstract|sealed|data|inline"
    rb"|override|virtual|declare|readonly|mutating|nonmutating|lazy|weak|dynamic|required"
    rb"|convenience|indirect|partial|local|synchronized|native|suspend|tailrec|operator|infix"
    rb"|external|actual|expect|annotation|inner|value|companion|lateinit|const|enum|class"
    rb"|@[\w.]+(?:\([^)]*\))?|#\[[^\]]*\])"
)
_KEYWORD = (
    rb"(?P<kw>fn|def|defp|defmodule|defmacro|class|struct|enum|trait|interface|type|typealias"
    rb"|const|let(?:\s+mut)?|var|val|function\*?|func(?:\s*\([^)]*\))?|fun|macro_rules!|mod"
    rb"|module|protocol|typedef|union|namespace|record|object|static(?:\s+mut)?|impl"
    rb"|extension|#\s*define)"
)
_EXTENDS_KEYWORDS = (b"impl", b"extension")
# In C/C++ `struct foo *p` is a use; only `struct foo {` (or `struct foo` alone, brace on
# the next line, or a C++ base list / `final`) declares.
_C_TAG_KEYWORDS = (b"struct", b"union", b"enum", b"class")
_C_TAG_FOLLOW = re.compile(rb"\s*(?:\{|:(?!:)|final\b|\Z)")


# --- signal 2: C-family shape `type words NAME(` -------------------------------------------
_TYPE_TOKEN = (
    rb"(?:@[\w.]+(?:\([^)]*\))?"  # Java/C# annotations
    rb"|[A-Za-z_$][\w$]*(?:::[A-Za-z_][\w$]*)*(?:\s*<[^()]*>)?(?:\s*\[\s*\])*)"
)
# separators: white space, pointer stars, one `&` (a reference) but never `&&`
_CSHAPE_SEP = rb"(?:\s*(?:\*[\s*]*&?|&)\s*|\s+)"
_CSHAPE_PREFIX = re.compile(rb"\s*(?:" + _TYPE_TOKEN + _CSHAPE_SEP + rb")+(?:[A-Za-z_][\w$]*::)*\Z")
_CSHAPE_FOLLOW = re.compile(rb"\s*(?:<[^()]*>\s*)?\(")
_LAST_WORD = re.compile(rb"([A-Za-z_$][\w$]*)[^\w$]*(?:[A-Za-z_][\w$]*::)*\Z")
_PROTOTYPE_END = re.compile(rb";\s*\Z")
# Objective-C method: `- (void)name` / `+ (id)name:`.
_OBJC_METHOD_PREFIX = rb"\s*[-+]\s*\([^)]*\)\s*\Z"


def word_before(line: bytes, start: int) -> bytes:
    """The identifier immediately before offset start, skipping `*`, `&`, spaces and a
    qualifier: `int Foo::bar(` and `return Match::Ignore(` give `int` and `return`."""
    m = _LAST_WORD.search(line, max(0, start - MAX_PREFIX), start)
    return m.group(1) if m else b""


def cshape_raw(line: bytes, start: int, end: int) -> bool:
    """The bare shape: only type-ish words (and `*`, `&`) from line start, then the symbol,
    then `(`. No exclusions: this is what count_cshape_misfires.py measures."""
    if start > MAX_PREFIX or start == 0:
        return False
    if re.compile(_OBJC_METHOD_PREFIX).match(line, 0, start) is not None:
        return True
    return (
        re.compile(_CSHAPE_FOLLOW).match(line, end) is not None
        and re.compile(_CSHAPE_PREFIX).match(line, 0, start) is not None
    )


def load_false_firing_words(path: "str | os.PathLike | None" = None) -> frozenset[bytes]:
    """Words listed in config/hay_false_firing_words.txt (one a line, `#` comments)."""
    path = path or FALSE_FIRING_WORDS_FILE
    try:
        with open(path, "rb") as handle:
            text = handle.read()
    except OSError as exc:
        raise FileNotFoundError(
            f"hay: cannot read the false-firing word list {path} ({exc.strerror}); "
            "restore config/hay_false_firing_words.txt or set HAY_FALSE_FIRING_WORDS"
        ) from exc
    return parse_word_list(text.splitlines())


def parse_word_list(lines: Iterable[bytes]) -> frozenset[bytes]:
    words = set()
    for raw in lines:
        word = raw.split(b"#", 1)[0].strip()
        if word:
            words.add(word)
    return frozenset(words)


# --- signal 3: path prior ------------------------------------------------------------------
_TEST_DIRS = frozenset(b"test tests __tests__ spec specs testdata testing __mocks__".split())
_EXAMPLE_DIRS = frozenset(
    b"example examples sample samples bench benches benchmark benchmarks demo demos".split()
)
_DOCS_DIRS = frozenset(b"doc docs documentation".split())
_VENDOR_DIRS = frozenset(
    b"vendor vendored third_party thirdparty third-party node_modules dist build".split()
)
_TEST_FILE = re.compile(
    rb"(?:.*_test\.go|test_.*\.py|.*_test\.py|conftest\.py|.*\.(?:spec|test)\.[cm]?[jt]sx?"
    rb"|.*Tests?\.(?:java|kt|swift|cs)|.*_spec\.rb)\Z"
)


def path_category(path: bytes) -> str | None:
    """The strongest applicable path category: vendored, docs, test, example, or None."""
    parts = [p for p in path.split(b"/") if p and p != b"."]
    dirs, name = parts[:-1], (parts[-1] if parts else b"")
    if any(d in _VENDOR_DIRS for d in dirs):
        return "vendored"
    if any(d in _DOCS_DIRS for d in dirs) or extension(name).lower() in PROSE_EXTENSIONS:
        return "docs"
    if any(d in _TEST_DIRS for d in dirs) or _TEST_FILE.match(name):
        return "test"
    if any(d in _EXAMPLE_DIRS for d in dirs):
        return "example"
    return None


PATH_PENALTY = {
    "vendored": PENALTY_VENDORED,
    "docs": PENALTY_DOCS,
    "test": PENALTY_TEST,
    "example": PENALTY_EXAMPLE,
}


# --- the docs-shape variant (hay --docs-shape; config `variants`: hay-docs) ------------------
# A query shaped like a documentation question keeps documentation out of the path prior. The
# flag and heading-word shapes are config/docs_tokens.yaml's `flag` rule and `words` regex (a
# test keeps them equal); a file name is a name with one of these extensions.
DOCS_FILE_EXTENSIONS = (
    b"md|markdown|rst|txt|adoc|html|toml|yaml|yml|json|cfg|ini|conf|lock|py|rs|go|js|ts|c|h|java|sh"
)
DOCS_SHAPES = {
    "flag": rb"--[A-Za-z0-9][A-Za-z0-9_-]*(=[A-Za-z0-9_.-]*)?",
    "file name": rb"[A-Za-z0-9_.-]*[A-Za-z0-9_-]\.(?:" + DOCS_FILE_EXTENSIONS + rb")",
    "heading word": rb"[A-Z]?[a-z]+|[A-Z]{2,}s?",
}
_DOCS_SHAPE = re.compile(b"|".join(b"(?:" + shape + b")" for shape in DOCS_SHAPES.values()))


def docs_shaped(symbol: bytes) -> bool:
    """The query is a whole flag, file name or plain heading word (not an identifier)."""
    return _DOCS_SHAPE.fullmatch(symbol) is not None


# --- the line score ------------------------------------------------------------------------
class Switches:
    """Which signals are on (each can be switched off to measure it, docs/method.md §7), and
    whether documentation is exempt from the path prior (the docs-shape variant's rule)."""

    __slots__ = ("keyword", "cshape", "path", "docs_exempt")

    def __init__(
        self,
        keyword: bool = True,
        cshape: bool = True,
        path: bool = True,
        docs_exempt: bool = False,
    ):
        self.keyword, self.cshape, self.path = keyword, cshape, path
        self.docs_exempt = docs_exempt


class FileContext:
    """What a file's path tells the line scorer; computed once per file."""

    __slots__ = ("c_like", "prose", "penalty", "category")

    def __init__(self, c_like: bool, prose: bool, penalty: int, category: str | None):
        self.c_like, self.prose, self.penalty, self.category = c_like, prose, penalty, category


def file_context(path: bytes, switches: Switches) -> FileContext:
    category = path_category(path) if switches.path else None
    if category == "docs" and switches.docs_exempt:
        category = None
    return FileContext(
        c_like=extension(path) in C_LIKE_EXTENSIONS,
        prose=is_prose_file(path),
        penalty=PATH_PENALTY[category] if category else 0,
        category=category,
    )


_WORD_CLASS = rb"[\w$\x80-\xff]"


def _bounded(symbol: bytes) -> bytes:
    """re-escaped symbol with word boundaries on the sides that are word characters."""
    body = re.escape(symbol)
    if symbol and _is_word_byte(symbol[0]):
        body = rb"(?<!" + _WORD_CLASS + rb")" + body
    if symbol and _is_word_byte(symbol[-1]):
        body += rb"(?!" + _WORD_CLASS + rb")"
    return body


class Scorer:
    """Scores lines for one symbol with regexes compiled once; the same fragments as the
    position-based functions above (keyword_weight, cshape_raw), so the two agree.

    Compiling them costs about 2.5 ms plus time in the symbol's length (0.45 s for a 100 KB
    query). A symbol up to EAGER_COMPILE_BYTES is compiled at once (the CLI builds the scorer
    while ripgrep searches); a longer one when a line is first scored, so that a long query
    that matches nothing compiles nothing (`__getattr__` runs only for a missing attribute:
    the scoring loop pays nothing for it)."""

    _PATTERNS = ("word", "keyword", "cshape", "call", "objc")
    EAGER_COMPILE_BYTES = 1024

    def __init__(self, symbol: bytes, switches: Switches, excluded: frozenset[bytes]):
        self.symbol, self.switches, self.excluded = symbol, switches, excluded
        if len(symbol) <= self.EAGER_COMPILE_BYTES:
            self._compile()

    def __getattr__(self, name: str):
        if name not in Scorer._PATTERNS:
            raise AttributeError(name)
        self._compile()
        return self.__dict__[name]

    def _compile(self) -> None:
        symbol = self.symbol
        sym = _bounded(symbol)
        self.word = re.compile(sym) if symbol else None
        self.keyword = re.compile(
            rb"\s*(?:" + _MODIFIER + rb"\s+)*" + _KEYWORD + rb"(?:\s*<[^>]*>)?\s+" + sym
        )
        self.cshape = re.compile(
            rb"\s*(?P<pre>(?:"
            + _TYPE_TOKEN
            + _CSHAPE_SEP
            + rb")+)(?:[A-Za-z_][\w$]*::)*"
            + sym
            + rb"\s*(?:<[^()]*>\s*)?\("
        )
        # cheap literal-first test before the full shape: the symbol followed by `(` or `<`
        self.call = re.compile(re.escape(symbol) + rb"\s*[(<]") if symbol else None
        self.objc = re.compile(rb"\s*[-+]\s*\([^)]*\)\s*(?P<pre>)" + sym)

    def score(self, line: bytes, ctx: FileContext) -> tuple[int, tuple[str, ...]]:  # noqa: C901 - per-line hot path: one frame, no helper calls
        """(score, names of the signals that fired) for one matching line (no line end)."""
        if self.word is None or self.word.search(line) is None:
            # No whole-word occurrence: no declaration can be of this symbol.
            return (ctx.penalty, ("path:" + ctx.category,)) if ctx.category else (0, ())
        if len(line) > 2 * MAX_PREFIX + len(self.symbol):
            line = line[: 2 * MAX_PREFIX + len(self.symbol)]
        sw = self.switches
        decl = 0
        fired: list[str] = []
        comment = None
        if sw.keyword:
            m = self.keyword.match(line)
            if m is not None and m.start(0) <= MAX_PREFIX:
                comment = is_comment_line(line)
                if not comment:
                    kw = m.group("kw")
                    if not (
                        ctx.c_like
                        and kw in _C_TAG_KEYWORDS
                        and not _C_TAG_FOLLOW.match(line, m.end())
                    ):
                        decl = KEYWORD_EXTENDS_WEIGHT if kw in _EXTENDS_KEYWORDS else KEYWORD_WEIGHT
                        fired.append("keyword")
        if sw.cshape and decl < CSHAPE_WEIGHT and not ctx.prose:
            m = (
                self.cshape.match(line) if self.call.search(line) is not None else None
            ) or self.objc.match(line)
            if (
                m is not None
                and m.end("pre") <= MAX_PREFIX
                and word_before(line, m.end("pre")) not in self.excluded
                and not (is_comment_line(line) if comment is None else comment)
            ):
                w = CSHAPE_PROTOTYPE_WEIGHT if _PROTOTYPE_END.search(line) else CSHAPE_WEIGHT
                if w > decl:
                    decl = w
                fired.append("c-shape")
        fired.append("word")
        if ctx.category:
            fired.append("path:" + ctx.category)
        return decl + WORD_BONUS + ctx.penalty, tuple(fired)
