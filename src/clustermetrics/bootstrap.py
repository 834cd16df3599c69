"""Bootstrap confidence intervals for any score, each replicate in O(nnz), not O(N).

Resampling N items with replacement and rebuilding the table is equivalent to drawing the
table's cell counts from Multinomial(N, n_ij / N): an item's (class, cluster) pair is all a
score sees of it. So a replicate is one multinomial draw over the non-zero cells plus the
scores of that table, whatever N is.

**Degenerate replicates.** A redrawn table can be one the point estimate never meets: with
``noise="exclude"`` every drawn item may be noise, leaving nothing to score. The rule: a
replicate whose table cannot be formed is *skipped* (the ``score`` callback returns None),
and a score that is undefined on a replicate (raises ``ValueError`` or gives NaN) skips
that replicate for that score only. The run never aborts. Each :class:`Interval` says how
many replicates it skipped; it is computed from the others, is ``reliable`` only when at
most :data:`MAX_SKIPPED_SHARE` of the replicates were skipped, and is NaN (undefined) when
none is left.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from .table import Contingency

__all__ = ["Interval", "Bootstrap", "bootstrap_intervals", "check_bootstrap_options",
           "check_seed", "MAX_N_BOOT", "MAX_SKIPPED_SHARE"]

MAX_N_BOOT = 1_000_000
MAX_SKIPPED_SHARE = 0.1


class Interval(NamedTuple):
    """A percentile bootstrap interval at ``level``: [low, high], from the ``n_boot``
    replicates less the ``n_skipped`` on which the score was undefined."""

    low: float
    high: float
    level: float
    n_boot: int = 0
    n_skipped: int = 0

    @property
    def reliable(self) -> bool:
        """At most ``MAX_SKIPPED_SHARE`` of the replicates were skipped (and one is left)."""
        return self.n_skipped < self.n_boot and \
            self.n_skipped <= MAX_SKIPPED_SHARE * self.n_boot


class Bootstrap(NamedTuple):
    """How intervals were drawn: level, number of replicates and the seed as given."""

    level: float
    n_boot: int
    seed: Any


def check_seed(seed: Any, name: str = "seed", maximum: int | None = None,
               why: str = "") -> None:
    """ValueError naming the option unless ``seed`` is None, a non-negative integer or a
    numpy ``SeedSequence`` / ``BitGenerator`` / ``Generator`` (numpy's generators take
    integers of any size). With ``maximum`` (a seed passed on to code with a narrower
    range, e.g. scikit-learn's ``random_state``: 2**32 - 1) it must be an integer in
    [0, maximum]; ``why`` says whose range that is."""
    generator = isinstance(seed, (np.random.SeedSequence, np.random.BitGenerator,
                                  np.random.Generator))
    if seed is None or (generator and maximum is None):
        return
    if generator or isinstance(seed, bool) or not isinstance(seed, numbers.Integral) \
            or seed < 0 or (maximum is not None and seed > maximum):
        what = ("a non-negative integer (or None, or a numpy Generator / SeedSequence)"
                if maximum is None else f"an integer from 0 to {maximum:,}{why}")
        raise ValueError(f"{name} must be {what}, got {seed!r}")


def check_bootstrap_options(ci: Any, n_boot: Any, names: tuple[str, str] = ("ci", "n_boot"),
                            seed: Any = None, seed_name: str = "seed") -> None:
    """ValueError naming the option (as ``names`` spell them) when ``ci``, ``n_boot`` or
    ``seed`` is unusable. Cheap: runs before any table is built."""
    if isinstance(ci, bool) or not isinstance(ci, numbers.Real) or not 0.0 < float(ci) < 1.0:
        raise ValueError(f"{names[0]} must be a confidence level in (0, 1), e.g. 0.95, "
                         f"got {ci!r}")
    if isinstance(n_boot, bool) or not isinstance(n_boot, numbers.Integral) \
            or not 2 <= n_boot <= MAX_N_BOOT:
        raise ValueError(f"{names[1]} must be an integer from 2 to {MAX_N_BOOT:,}, "
                         f"got {n_boot!r}")
    check_seed(seed, seed_name)


def multinomial_sampler(counts: np.ndarray) -> Callable[[np.random.Generator, int],
                                                          np.ndarray]:
    """A draw of Multinomial(n, counts / N) in the cells' order, accurate at any N.

    numpy draws cell j from Binomial(n left, p_j / (1 - p_1 - ... - p_{j-1})): with the
    largest cell anywhere but last, 1 - its p rounds the small cells' share away (cells
    [N - 3, 1, 1, 1] at N = 1e17: p = 1 - 3e-17 = 1.0, so the single items were never
    drawn). Drawn with the largest cell last, every conditional probability of a small
    cell is its own exact-to-rounding count / N and the largest takes what is left."""
    order = np.argsort(counts, kind="stable")
    p = counts[order] / float(counts.sum(dtype=np.float64))

    def draw(rng: np.random.Generator, n: int) -> np.ndarray:
        out = np.empty(order.shape[0], dtype=np.int64)
        out[order] = rng.multinomial(n, p)
        return out
    return draw


def bootstrap_intervals(table: Contingency,
                        score: Callable[[Contingency], dict[str, float] | None],
                        keys: Sequence[str], *, level: float = 0.95, n_boot: int = 1000,
                        seed: Any = None,
                        progress: Callable[[int, int], None] | None = None,
                        ) -> dict[str, Interval]:
    """Percentile intervals of the scores ``score(replicate)[key]`` over ``n_boot`` replicates.

    Each replicate is the table with counts drawn from Multinomial(N, n_ij / N) (cells drawn
    zero vanish, and so do classes or clusters left without items). The interval is the
    ((1 - level) / 2, (1 + level) / 2) quantile pair of the replicate values (numpy's
    linear interpolation). ``score`` returns None to skip a replicate; a NaN (or missing)
    value skips it for that key (see the module docstring). ``seed`` makes the draws
    reproducible; ``progress(done, total)`` is called after each replicate.
    """
    check_bootstrap_options(level, n_boot, ("level", "n_boot"), seed)
    rng = np.random.default_rng(seed)
    n = table.n_samples
    draw = multinomial_sampler(table.counts)
    values = np.full((len(keys), n_boot), np.nan)
    for b in range(n_boot):
        counts = draw(rng, n)
        scores = score(table.with_counts(counts))
        if scores is not None:
            values[:, b] = [scores.get(k, math.nan) for k in keys]
        if progress is not None:
            progress(b + 1, n_boot)
    tail = (1.0 - level) / 2.0 * 100.0
    out = {}
    for k, row in zip(keys, values, strict=True):
        kept = row[~np.isnan(row)]
        low, high = (np.percentile(kept, [tail, 100.0 - tail]).tolist() if kept.size
                     else (math.nan, math.nan))
        out[k] = Interval(low, high, float(level), int(n_boot), int(n_boot - kept.size))
    return out
