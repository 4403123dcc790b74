"""Count the words before false firings of hay's raw C-family shape (docs/method.md §7).

    count_cshape_misfires.py [--write-words FILE] CORPUS_DIR[=SYMBOLS_TSV] ...

Each corpus is a directory; its symbol table (symbol kind language path line rule, TSV with
header, paths relative to the directory) is SYMBOLS_TSV, or, when none is given, a rough one
from universal-ctags. Prints the table word -> false/true counts; with --write-words writes
the derived exclusion list (atomically). Under Snakemake: input.corpora (dirs),
input.symbols (optional, same order), output.table, output.words (optional).
"""

import argparse
import sys
from pathlib import Path

from searchbench.artifacts import write_text
from searchbench.hay.misfires import Tally, count, ctags_symbols, read_symbols, table, words_file


def run(corpora: list[tuple[Path, Path | None]]) -> tuple[Tally, list[str]]:
    tally = Tally()
    names = []
    for root, symbols_tsv in corpora:
        if not root.is_dir():
            raise SystemExit(f"corpus directory {root} does not exist; unpack it first")
        rows = read_symbols(symbols_tsv) if symbols_tsv else ctags_symbols(root)
        count(root, rows, tally)
        names.append(
            f"{'/'.join(root.parts[-2:])} ({len(rows)} declarations, {symbols_tsv or 'ctags'})"
        )
    return tally, names


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("corpus", nargs="+", help="CORPUS_DIR or CORPUS_DIR=SYMBOLS_TSV")
    p.add_argument("--write-words", type=Path, help="write the derived exclusion list here")
    args = p.parse_args(argv)
    corpora = []
    for spec in args.corpus:
        root, _, tsv = spec.partition("=")
        corpora.append((Path(root), Path(tsv) if tsv else None))
    tally, names = run(corpora)
    sys.stdout.write("\n".join(table(tally)) + "\n")
    if args.write_words:
        write_text(args.write_words, words_file(tally, names))
    return 0


def main_snakemake(sm) -> None:
    dirs = [Path(d) for d in sm.input.corpora]
    tsvs = [Path(t) for t in sm.input.get("symbols", [])] or [None] * len(dirs)
    tally, names = run(list(zip(dirs, tsvs, strict=True)))
    write_text(Path(sm.output.table), "\n".join(table(tally)) + "\n")
    if hasattr(sm.output, "words"):
        write_text(Path(sm.output.words), words_file(tally, names))


if __name__ == "__main__":
    if "snakemake" in globals():
        main_snakemake(snakemake)  # type: ignore[name-defined]  # noqa: F821
    else:
        sys.exit(main(sys.argv[1:]))
