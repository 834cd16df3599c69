"""Bootstrap confidence intervals for any score, each replicate in O(nnz), not O(N).

Resampling N items with replacement and rebuilding the table is equivalent to drawing the
table's cell counts from Multinomial(N, n_ij / N): an item's (class, cluster) pair is all a
score sees of it. So a replicate is one multinomial draw over the non-zero cells plus the
scores of that table, whatever N is.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from .contingency import Contingency

__all__ = ["Interval", "bootstrap_intervals", "check_bootstrap_options"]


class Interval(NamedTuple):
    """A percentile bootstrap interval at ``level``: [low, high]."""

    low: float
    high: float
    level: float


def check_bootstrap_options(ci: Any, n_boot: Any, names: tuple[str, str] = ("ci", "n_boot"),
                            ) -> None:
    """ValueError naming the option (as ``names`` spell them) when ``ci`` or ``n_boot`` is
    unusable."""
    if isinstance(ci, bool) or not isinstance(ci, numbers.Real) or not 0.0 < float(ci) < 1.0:
        raise ValueError(f"{names[0]} must be a confidence level in (0, 1), e.g. 0.95, "
                         f"got {ci!r}")
    if isinstance(n_boot, bool) or not isinstance(n_boot, numbers.Integral) or n_boot < 2:
        raise ValueError(f"{names[1]} must be an integer >= 2, got {n_boot!r}")


def bootstrap_intervals(table: Contingency, score: Callable[[Contingency], dict[str, float]],
                        keys: Sequence[str], *, level: float = 0.95, n_boot: int = 1000,
                        seed: Any = None,
                        progress: Callable[[int, int], None] | None = None,
                        ) -> dict[str, Interval]:
    """Percentile intervals of the scores ``score(replicate)[key]`` over ``n_boot`` replicates.

    Each replicate is the table with counts drawn from Multinomial(N, n_ij / N) (cells drawn
    zero vanish, and so do classes or clusters left without items). The interval is the
    ((1 - level) / 2, (1 + level) / 2) quantile pair of the replicate values (numpy's
    linear interpolation). ``seed`` makes the draws reproducible; ``progress(done, total)``
    is called after each replicate.
    """
    check_bootstrap_options(level, n_boot)
    rng = np.random.default_rng(seed)
    n = table.n_samples
    p = table.counts / n
    values = np.empty((len(keys), n_boot))
    for b in range(n_boot):
        counts = rng.multinomial(n, p)
        scores = score(table._with_counts(counts))
        values[:, b] = [scores[k] for k in keys]
        if progress is not None:
            progress(b + 1, n_boot)
    tail = (1.0 - level) / 2.0 * 100.0
    low, high = np.percentile(values, [tail, 100.0 - tail], axis=1)
    return {k: Interval(lo, hi, float(level))
            for k, lo, hi in zip(keys, low.tolist(), high.tolist(), strict=True)}
