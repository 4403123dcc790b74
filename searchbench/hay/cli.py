"""hay: search for a literal symbol and print every match, declarations first.

usage: hay [--null] [--json] [--word] [--no-keyword-prior] [--no-c-shape]
           [--no-path-prior] [--docs-shape] [--rg PATH] [--] SYMBOL [PATH ...]
       hay --files [PATH ...]

  SYMBOL              a literal string (never a regex, never an option after `--`)
  PATH                files or directories to search (default: .)
  --files             list the files a search reads (NUL-separated), without searching
  --null              print `path NUL line:text` instead of `path:line:text`
  --json              one JSON object per line: path, line, score, signals, text
  --word              whole-word matches only (rg --word-regexp)
  --no-keyword-prior  switch off the declaration-keyword signal (fn, def, class, ...)
  --no-c-shape        switch off the C-family `type NAME(` signal
  --no-path-prior     switch off the tests/docs/examples/vendored penalty
  --docs-shape        no docs penalty when SYMBOL is shaped like a documentation question:
                      a --flag, a file name (GUIDE.md) or a plain word (Caching)
  --rg PATH           ripgrep binary (default: $HAY_RG, else rg beside python, else PATH)
  --version           version, hash of the ranking code, and the ripgrep it uses

Every line ripgrep matches is printed: files ordered by their best line's score (ties by
path bytes), lines in line order. Exit status: 0 matched, 1 no match, 2 error.
"""

import os
import sys

FLAGS = {
    "--null": "null",
    "--files": "files",
    "--json": "json",
    "--word": "word",
    "--no-keyword-prior": "no_keyword",
    "--no-c-shape": "no_cshape",
    "--no-path-prior": "no_path",
    "--docs-shape": "docs_shape",
}


class UsageError(Exception):
    pass


def parse_args(argv: list[str]) -> dict:
    """Hand-rolled (argparse costs startup time): options anywhere before `--`."""
    opts, positional = _scan_options(argv)
    if opts.get("help") or opts.get("version"):
        return opts
    if opts["files"]:
        opts["paths"] = positional or ["."]
        return opts
    if not positional:
        raise UsageError("missing SYMBOL")
    opts["symbol"] = positional[0]
    opts["paths"] = positional[1:] or ["."]
    return opts


def _scan_options(argv: list[str]) -> tuple[dict, list[str]]:
    """The options and the positional arguments; stops at -h, --help or --version."""
    opts: dict = dict.fromkeys(FLAGS.values(), False)
    opts["rg"] = None
    positional: list[str] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        i += 1
        if arg == "--":
            positional.extend(argv[i:])
            break
        if arg in ("-h", "--help", "--version"):
            opts["help" if arg != "--version" else "version"] = True
            return opts, positional
        if arg in FLAGS:
            opts[FLAGS[arg]] = True
        elif arg == "--rg":
            if i >= len(argv):
                raise UsageError("--rg needs a PATH")
            opts["rg"], i = argv[i], i + 1
        elif arg.startswith("--rg="):
            opts["rg"] = arg[len("--rg=") :]
        elif arg.startswith("-") and arg != "-":
            raise UsageError(f"unknown option {arg!r} (put `--` before a SYMBOL starting with -)")
        else:
            positional.append(arg)
    return opts, positional


def _which(name: str) -> str | None:
    if os.sep in name:
        return name if os.path.isfile(name) and os.access(name, os.X_OK) else None
    for d in os.environ.get("PATH", os.defpath).split(os.pathsep):
        cand = os.path.join(d or ".", name)
        if os.path.isfile(cand) and os.access(cand, os.X_OK):
            return cand
    return None


def find_rg(explicit: str | None) -> str | None:
    """--rg, else $HAY_RG, else `rg` next to the running Python (the venv), else PATH."""
    for candidate in (explicit, os.environ.get("HAY_RG")):
        if candidate:
            return _which(candidate)
    beside = os.path.join(os.path.dirname(sys.executable), "rg")
    if os.path.isfile(beside) and os.access(beside, os.X_OK):
        return beside
    return _which("rg")


def rg_not_found(explicit: str | None) -> str:
    """Why find_rg found nothing: the ripgrep the user named is no executable file (then
    "pass --rg PATH" is not the fix: they did), or none was named and none is installed."""
    named = [(f"--rg {explicit}", explicit)] if explicit else []
    if not named and os.environ.get("HAY_RG"):
        named = [(f"HAY_RG={os.environ['HAY_RG']}", os.environ["HAY_RG"])]
    if not named:
        return "hay: ripgrep (rg) not found; install it, pass --rg PATH or set HAY_RG"
    given, path = named[0]
    if os.sep not in path:
        why = "is not on PATH"
    elif not os.path.exists(path):
        why = "does not exist"
    elif not os.path.isfile(path):
        why = "is not a file"
    else:
        why = "is not executable"
    return f"hay: {given}: {path} {why}; give the path of a ripgrep binary"


def unsearchable_path(paths: list[str]) -> str | None:
    """A path named on the command line that is neither a folder nor a regular file (a FIFO,
    a device): ripgrep would block reading it. (Walking a folder, ripgrep skips such files.)
    A missing path is left to ripgrep, which reports it."""
    import stat

    for path in paths:
        try:
            mode = os.stat(path).st_mode
        except OSError:
            continue
        if not (stat.S_ISDIR(mode) or stat.S_ISREG(mode)):
            return f"hay: {path} is a FIFO or device, not a file or folder; name files or folders"
    return None


def version_line(rg: str | None) -> str:
    """hay's version with a hash of the code and word list that decide its ranking, so that
    results/tools.json changes (and runs are redone) whenever the ranking could change."""
    import hashlib
    from pathlib import Path

    from searchbench.codehash import module_closure

    package = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    # Every module hay runs, followed through its imports (a new import is not missed).
    sources = module_closure(package.parent, ["hay.cli"])
    sources.append(package.parent.parent / "config" / "hay_false_firing_words.txt")
    for source in sources:
        if source.is_file():
            digest.update(source.name.encode() + b"\0" + source.read_bytes())
    # rg by content, not path: the same binary in another venv must not rerun every hay job
    if rg is None:
        rg_id = "not found"
    else:
        with open(rg, "rb") as handle:
            rg_id = "sha256 " + hashlib.sha256(handle.read()).hexdigest()[:16]
    return f"hay 0.1.0 (code {digest.hexdigest()[:16]}; rg {rg_id})"


RG_FILE_SET = ["--no-config", "--no-ignore", "--hidden"]


def rg_argv(rg: str, symbol: str, paths: list[str], word: bool) -> list[str]:
    """The ripgrep command line; the symbol is always the argument of --regexp."""
    argv = [rg, "--json", "--fixed-strings", *RG_FILE_SET]
    if word:
        argv.append("--word-regexp")
    return [*argv, "--regexp", symbol, "--", *paths]


def rg_files_argv(rg: str, paths: list[str]) -> list[str]:
    """The files a search reads: matching the empty pattern skips what rg skips (binaries),
    which `rg --files` would list. Sorted by path: rg's parallel walk lists in a different
    order each time, and the listing is an artifact (filesets/hay.txt) that must not vary."""
    return [
        rg,
        *RG_FILE_SET,
        "--sort",
        "path",
        "--files-with-matches",
        "--null",
        "--regexp",
        "",
        "--",
        *paths,
    ]


def spawn(argv: list[str]) -> tuple[int, int]:
    """Start ripgrep with stdin from /dev/null and stdout to a pipe; (pid, read fd).
    posix_spawn rather than subprocess: importing subprocess costs more than hay's work on
    a rare symbol."""
    r, w = os.pipe()
    try:
        pid = os.posix_spawn(
            argv[0],
            argv,
            os.environ,
            file_actions=[
                (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                (os.POSIX_SPAWN_DUP2, w, 1),
                (os.POSIX_SPAWN_CLOSE, r),
                (os.POSIX_SPAWN_CLOSE, w),
            ],
        )
    except OSError:
        os.close(r)
        raise
    finally:
        os.close(w)
    return pid, r


def run(argv: list[str]) -> int:
    try:
        opts = parse_args(argv)
    except UsageError as exc:
        sys.stderr.write(f"hay: {exc}\n{__doc__.split(chr(10) + chr(10))[1]}\n")
        return 2
    if opts.get("help"):
        sys.stdout.write(__doc__)
        return 0
    if opts.get("version"):
        sys.stdout.write(version_line(find_rg(opts["rg"])) + "\n")
        return 0
    rg = find_rg(opts["rg"])
    if rg is None:
        sys.stderr.write(rg_not_found(opts["rg"]) + "\n")
        return 2
    unsearchable = unsearchable_path([p for p in opts["paths"] if p != "-"])
    if unsearchable:
        sys.stderr.write(unsearchable + "\n")
        return 2
    if opts["files"]:
        return _list_files(rg, opts["paths"])
    # Start ripgrep first: it searches while Python imports and compiles the scorer.
    try:
        pid, fd = spawn(rg_argv(rg, opts["symbol"], opts["paths"], opts["word"]))
    except OSError as exc:
        sys.stderr.write(f"hay: cannot run ripgrep {rg}: {exc.strerror}\n")
        return 2
    return _rank_and_print(opts, rg, pid, fd)


def not_ripgrep(rg: str) -> str | None:
    """One line when `rg --version` does not say ripgrep (a binary that exits 1 whatever it
    is asked, like /bin/false, would read as "no match"); None for a ripgrep."""
    try:
        pid, fd = spawn([rg, "--version"])
    except OSError as exc:
        return f"hay: cannot run ripgrep {rg}: {exc.strerror}"
    with open(fd, "rb") as stream:
        head = stream.read(64)
    os.waitpid(pid, 0)
    if head.startswith(b"ripgrep "):
        return None
    return f"hay: {rg} is not ripgrep (its --version does not say so); pass --rg PATH of ripgrep"


def _list_files(rg: str, paths: list[str]) -> int:
    """The file listing (ripgrep writes it to our stdout); its exit status 1 means "no file"
    only when the binary is ripgrep."""
    try:
        pid = os.posix_spawn(rg, rg_files_argv(rg, paths), os.environ)
    except OSError as exc:
        sys.stderr.write(f"hay: cannot run ripgrep {rg}: {exc.strerror}\n")
        return 2
    rc = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    if rc == 1:
        problem = not_ripgrep(rg)
        if problem:
            sys.stderr.write(problem + "\n")
            return 2
    return rc if rc in (0, 1) else 2


def _rank_and_print(opts: dict, rg: str, pid: int, fd: int) -> int:
    """Rank ripgrep's output as it streams in and print it; the exit status grep would give."""
    from searchbench.hay.rank import collect_stream, format_grep, format_json, ranked
    from searchbench.hay.signals import Scorer, Switches, docs_shaped, load_false_firing_words

    try:
        words_file = os.environ.get("HAY_FALSE_FIRING_WORDS")
        excluded = load_false_firing_words(words_file or None)
    except FileNotFoundError as exc:
        sys.stderr.write(f"{exc}\n")
        os.close(fd)
        os.waitpid(pid, 0)
        return 2
    symbol = os.fsencode(opts["symbol"])
    switches = Switches(
        keyword=not opts["no_keyword"],
        cshape=not opts["no_cshape"],
        path=not opts["no_path"],
        docs_exempt=opts["docs_shape"] and docs_shaped(symbol),
    )
    scorer = Scorer(symbol, switches, excluded)
    with open(fd, "rb", buffering=1 << 16) as stream:
        files, summary = collect_stream(stream, scorer, keep_signals=opts["json"])
    _, status = os.waitpid(pid, 0)
    rc = os.waitstatus_to_exitcode(status)
    if rc not in (0, 1):
        sys.stderr.write(f"hay: ripgrep {rg} failed with exit status {rc}\n")
    elif not summary:
        # ripgrep --json ends with a summary message, match or not: without it the exit
        # status is no answer (/bin/false exits 1, which would read as "no match").
        sys.stderr.write(
            f"hay: {rg} exited {rc} without ripgrep's JSON summary: not a working ripgrep; "
            "pass --rg PATH of ripgrep\n"
        )
        return 2
    order = ranked(files)
    out = sys.stdout.buffer
    for chunk in format_json(order) if opts["json"] else format_grep(order, opts["null"]):
        out.write(chunk)
    out.flush()
    if rc not in (0, 1):
        return 2
    return 0 if order else 1


def main(argv: list[str] | None = None) -> int:
    try:
        return run(sys.argv[1:] if argv is None else argv)
    except BrokenPipeError:
        # The reader went away (`hay x | head`): stop quietly, as grep does.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
