"""The seeded subsample the fast-path check and the timing runs take of a track's queries."""

from collections.abc import Sequence

import numpy as np


def seeded_subsample(qids: Sequence[str], k: int, seed: int) -> list[str]:
    """Up to k qids drawn with numpy's generator from the sorted list, returned sorted: the
    same whatever order the qids came in (docs/method.md §8)."""
    ordered = sorted(qids)
    if k >= len(ordered):
        return ordered
    picks = np.random.default_rng(seed).choice(len(ordered), size=k, replace=False)
    return sorted(ordered[i] for i in picks)
