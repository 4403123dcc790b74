"""The heading-word queries (track `words`, issue 36 item 2; docs/method.md §3).

A heading word (`Caching`, `Configuration`: headings.heading_words) is a query when its key
(headings.word_key: case folded, one final `s` dropped) is in exactly one document's
headings, is no stop word, is no identifier token's key (those are the docs track's
queries), and is in no unseen document. The query is the word as that document's heading
writes it (its first such heading). The sample is drawn by the sampler's own draw_sample, from
the same seed, as a sample of its own: the docs track's identifier queries never change
because heading words are drawn.
"""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd

from searchbench.headings import WordRule, word_key
from searchbench.sampling import (
    CANDIDATE_COLUMNS,
    STEP_NOT_UNSEEN,
    STEP_SAMPLED,
    Funnel,
    draw_sample,
)

WORDS_TRACK = "words"
STEP_WORDS = "heading-words"
STEP_DISTINCT = "distinct-words"
STEP_MIN_LENGTH = "min-length"
STEP_NOT_STOP = "not-a-stop-word"
STEP_NOT_IDENTIFIER = "not-an-identifier-token"
STEP_ONE_DOCUMENT = "in-one-document"


def _keys(words: Iterable[str]) -> set[str]:
    return {word_key(w) for w in words}


def word_candidates(
    words: pd.DataFrame,
    rule: WordRule,
    identifier_tokens: Iterable[str],
    unseen_words: Iterable[str],
) -> tuple[Funnel, pd.DataFrame]:
    """The funnel (every step but `sampled`) and the candidates (CANDIDATE_COLUMNS).

    words: the heading-word table (symbols.tsv's columns). identifier_tokens: every docs-track
    token (headings.tsv's symbols). unseen_words: every word of the unseen documents."""
    keyed = words.assign(key=words["symbol"].map(word_key))
    funnel: Funnel = [(STEP_WORDS, len(keyed)), (STEP_DISTINCT, keyed["key"].nunique())]
    # Length on the key's every form: a key is kept when some form is long enough.
    long = keyed[keyed["symbol"].str.len() >= rule.min_length]
    funnel.append((STEP_MIN_LENGTH, long["key"].nunique()))
    kept = long[~long["key"].isin(rule.stop)]
    funnel.append((STEP_NOT_STOP, kept["key"].nunique()))
    kept = kept[~kept["key"].isin(_keys(identifier_tokens))]
    funnel.append((STEP_NOT_IDENTIFIER, kept["key"].nunique()))
    # One document: over every row of the key, the short forms too (`Fix` elsewhere counts).
    documents = keyed.groupby("key")["path"].nunique()
    kept = kept[kept["key"].map(documents) == 1]
    funnel.append((STEP_ONE_DOCUMENT, kept["key"].nunique()))
    kept = kept[~kept["key"].isin(_keys(unseen_words))]
    funnel.append((STEP_NOT_UNSEEN, kept["key"].nunique()))
    return funnel, _first_forms(kept, keyed.groupby("key").size())


def _first_forms(kept: pd.DataFrame, headings: pd.Series) -> pd.DataFrame:
    """One candidate per key: its form in the lowest heading line (then in byte order)."""
    if kept.empty:
        return pd.DataFrame(columns=CANDIDATE_COLUMNS)
    order = kept.assign(
        line_no=kept["line"].astype(int), raw=kept["symbol"].map(lambda w: w.encode("utf-8"))
    ).sort_values(["key", "line_no", "raw"], kind="stable")
    first = order.drop_duplicates("key")
    return pd.DataFrame(
        {
            "query": first["symbol"].tolist(),
            "language": first["language"].tolist(),
            "kind": first["kind"].tolist(),
            "path": first["path"].tolist(),
            "line": first["line"].tolist(),
            "eligibility": [f"exactly-once:1-doc:{headings[k]}-headings" for k in first["key"]],
        },
        columns=CANDIDATE_COLUMNS,
    )


def select_words(
    words: pd.DataFrame,
    rule: WordRule,
    identifier_tokens: Iterable[str],
    unseen_words: Iterable[str],
    *,
    n: int | str,
    seed: int,
    corpus: str,
) -> tuple[Funnel, pd.DataFrame]:
    """The whole step: funnel and the numbered sample (qids `{corpus}-words-NNNN`)."""
    funnel, candidates = word_candidates(words, rule, identifier_tokens, unseen_words)
    sample = draw_sample(candidates, n, seed, corpus, WORDS_TRACK)
    return [*funnel, (STEP_SAMPLED, len(sample))], sample
