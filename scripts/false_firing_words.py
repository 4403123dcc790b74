"""Every corpus's false-firing audit pooled; the c-shape exclusion list the counts call for;
what hay's list and the derived list each remove and lose (searchbench/false_firings.py)."""

from searchbench.artifacts import read_tsv, write_text
from searchbench.false_firings import (
    COLUMNS,
    derive_words,
    effect,
    effect_tsv,
    pool,
    pooled_tsv,
    read_word_list,
    words_text,
)
from searchbench.scriptmain import run_script


def main(smk) -> None:
    corpora = list(smk.params.corpora)
    tables = {c: read_tsv(p, COLUMNS) for c, p in zip(corpora, smk.input.tables, strict=True)}
    listed = read_word_list(smk.input.words)
    rows = pool(tables, listed)
    effects = [effect(rows, "hay's list", listed), effect(rows, "derived", derive_words(rows))]
    write_text(smk.output.pooled, pooled_tsv(rows))
    write_text(smk.output.effect, effect_tsv(effects))
    write_text(smk.output.words, words_text(rows, sorted(corpora)))


run_script(main, snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
