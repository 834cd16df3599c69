"""Bootstrap confidence intervals for any score, each replicate in O(nnz), not O(N).

Resampling N items with replacement and rebuilding the table is equivalent to drawing the
table's cell counts from Multinomial(N, n_ij / N): an item's (class, cluster) pair is all a
score sees of it. So a replicate is one multinomial draw over the non-zero cells plus the
scores of that table, whatever N is (the draw itself: :func:`multinomial_sampler`).

**Methods.** The same replicates give an interval in one of four ways
(:func:`interval_from_replicates`): "normal" (the default: the bias-corrected estimate
+- z times the replicates' standard deviation), "basic" (percentiles reflected about the
estimate), "percentile" and "bca" (bias-corrected and accelerated; the acceleration from
a jackknife grouped by cell, :func:`jackknife_cells`). Plug-in information scores are
biased upward, and their replicates more so: percentile intervals of NMI then miss the
population value most of the time, which the corrected methods do not. scipy's
``stats.bootstrap`` offers these methods too, but resamples items (O(N) per replicate,
O(N) scorings for the jackknife), where a replicate here is an O(nnz) redraw.

**Flags.** Where the coverage study (``clustermetrics coverage``) found no method at its
nominal level, the interval says so: :data:`FLAG_SMALL` when the table has fewer than
:data:`MIN_ITEMS_PER_CELL` items per non-zero cell (a replicate can only redraw cells the
sample has, so it cannot see the bias of a sparse table), :data:`FLAG_BOUND` when the
point estimate or :data:`BOUND_SHARE` of the replicates sit at a bound of the score's
range (a perfect clustering: the replicates cannot fall on the far side).

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
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np

from ..compute import dispatch as _kernels
from ..compute import special as special
from ..compute.threads import replicate_threads, scored_in_order
from ..scores.pair_table import copy_pairs, leave_out_copies
from ..table import Contingency

__all__ = ["Interval", "Bootstrap", "bootstrap_intervals", "check_bootstrap_options",
           "check_level", "check_method", "check_seed", "interval_flags",
           "interval_from_replicates",
           "replicate_table", "stack_size",
           "jackknife_cells", "jackknife_values", "replicate_values",
           "DEFAULT_METHOD", "FLAG_BIAS", "FLAG_BOUND", "FLAG_SMALL", "JACKKNIFE_CELLS",
           "MAX_N_BOOT",
           "MAX_SKIPPED_SHARE", "METHODS", "MIN_ITEMS_PER_CELL", "BOUND_SHARE"]

MAX_N_BOOT = 1_000_000
MAX_SKIPPED_SHARE = 0.1
METHODS = ("percentile", "basic", "normal", "bca")
DEFAULT_METHOD = "normal"  # best coverage in the study (README, "How good are the intervals")
JACKKNIFE_CELLS = 100  # leave-one-out tables BCa's acceleration evaluates, at most
MIN_ITEMS_PER_CELL = 5.0  # below N / nnz = this the interval is flagged FLAG_SMALL
BOUND_SHARE = 0.05  # flagged FLAG_BOUND when this share of replicates sits at a bound
FLAG_SMALL = "sample small for the table"
FLAG_BOUND = "at a bound of the range"
FLAG_BIAS = "bias beyond the replicates' spread"
# a replicate scored from its counts agrees with its table's score to this (relative)
_ROUNDING = 1e-12


class Interval(NamedTuple):
    """A bootstrap interval at ``level``: [low, high], by ``method``, from the ``n_boot``
    replicates less the ``n_skipped`` on which the score was undefined. ``flags`` name
    the conditions under which no method reached its nominal coverage in the coverage
    study (:data:`FLAG_SMALL`, :data:`FLAG_BOUND`): such an interval is shown, but its
    level is not to be trusted."""

    low: float
    high: float
    level: float
    n_boot: int = 0
    n_skipped: int = 0
    method: str = "percentile"
    flags: tuple[str, ...] = ()

    @property
    def reliable(self) -> bool:
        """At most ``MAX_SKIPPED_SHARE`` of the replicates were skipped (and one is left)."""
        return self.n_skipped < self.n_boot and \
            self.n_skipped <= MAX_SKIPPED_SHARE * self.n_boot


class Bootstrap(NamedTuple):
    """How intervals were drawn: level, number of replicates, the seed as given and the
    interval method."""

    level: float
    n_boot: int
    seed: Any
    method: str = DEFAULT_METHOD


_WHOLE_ITEMS = "each replicate redraws N whole items"


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


def check_level(level: Any, name: str = "ci") -> None:
    """ValueError naming the option ``name`` unless ``level`` is a confidence level in
    (0, 1)."""
    if isinstance(level, bool) or not isinstance(level, numbers.Real) \
            or not 0.0 < float(level) < 1.0:
        raise ValueError(f"{name} must be a confidence level in (0, 1), e.g. 0.95, "
                         f"got {level!r}")


def check_bootstrap_options(ci: Any, n_boot: Any, names: tuple[str, str] = ("ci", "n_boot"),
                            seed: Any = None, seed_name: str = "seed") -> None:
    """ValueError naming the option (as ``names`` spell them) when ``ci``, ``n_boot`` or
    ``seed`` is unusable. Cheap: runs before any table is built."""
    check_level(ci, names[0])
    if isinstance(n_boot, bool) or not isinstance(n_boot, numbers.Integral) \
            or not 2 <= n_boot <= MAX_N_BOOT:
        raise ValueError(f"{names[1]} must be an integer from 2 to {MAX_N_BOOT:,}, "
                         f"got {n_boot!r}")
    check_seed(seed, seed_name)


ITEM_DRAW_MAX_COUNT = 16  # cells with at most this many items are redrawn item by item
ITEM_DRAW_CHUNK = 1 << 22  # uniform integers drawn at once (32 MiB)


def multinomial_sampler(counts: np.ndarray) -> Callable[[np.random.Generator, int],
                                                          np.ndarray]:
    """A draw of Multinomial(n, counts / N) in the cells' order, exact at any N.

    The cells are split by count. Those with a small count v (at most
    :data:`ITEM_DRAW_MAX_COUNT`) form one group per value v, m_v cells each; all the large
    cells form one more group. A draw first splits n over the groups (a multinomial with
    probabilities v m_v / N, and the large cells' share), then:

    - within a small-count group every cell is equally likely, so its k items go to its
      m_v cells as k uniform integers, counted (``np.bincount``): O(k) vectorised work,
      no per-cell random variate and no item -> cell array;
    - within the large cells, numpy's multinomial (one binomial per cell, which draws cell
      j from Binomial(n left, p_j / (1 - p_1 - ... - p_{j-1}))), the largest cell last:
      with it anywhere else 1 - its p would round the small cells' share away (cells
      [N - 3, 1, 1, 1] at N = 1e17: p = 1 - 3e-17 = 1.0, so the single items were never
      drawn); drawn last, every conditional probability of a small cell is its own
      exact-to-rounding count / N and the largest takes what is left.

    Composing the split and the draws within the groups is the multinomial over cells.
    A binomial costs about as much as 20 uniform integers, hence the threshold: the cost
    is O(sum of the small counts + nnz), at most about 16 nnz + nnz, whatever N is."""
    counts = np.asarray(counts, dtype=np.int64)
    nnz = counts.shape[0]
    order = np.argsort(counts, kind="stable")  # groups of equal small counts, then large
    ranked = counts[order]
    values, starts, sizes = np.unique(ranked, return_index=True, return_counts=True)
    small = values <= ITEM_DRAW_MAX_COUNT
    n_small = int(np.count_nonzero(small))
    large_start = int(starts[n_small]) if n_small < values.shape[0] else nnz
    weights = values[small] * sizes[small]
    if large_start < nnz:
        weights = np.append(weights, ranked[large_start:].sum(dtype=np.int64))
    split = _ordered_multinomial(weights) if weights.shape[0] > 1 else None
    large = _ordered_multinomial(ranked[large_start:]) if large_start < nnz else None
    groups = list(zip(starts[small].tolist(), sizes[small].tolist(), strict=True))
    identity = bool((order == np.arange(nnz)).all())

    def draw(rng: np.random.Generator, n: int) -> np.ndarray:
        shares = split(rng, n).tolist() if split is not None else [n]
        drawn = np.empty(nnz, dtype=np.int64)  # in the order of `ranked`
        for (start, size), k in zip(groups, shares, strict=False):
            cells = drawn[start:start + size]
            cells[:] = np.bincount(rng.integers(0, size, min(k, ITEM_DRAW_CHUNK)),
                                   minlength=size)
            for first in range(ITEM_DRAW_CHUNK, k, ITEM_DRAW_CHUNK):
                cells += np.bincount(rng.integers(0, size, min(k - first, ITEM_DRAW_CHUNK)),
                                     minlength=size)
        if large is not None:
            drawn[large_start:] = large(rng, shares[-1])
        if identity:
            return drawn
        out = np.empty(nnz, dtype=np.int64)
        out[order] = drawn
        return out
    return draw


def _ordered_multinomial(counts: np.ndarray) -> Callable[[np.random.Generator, int],
                                                         np.ndarray]:
    """numpy's multinomial over ``counts / N``, the largest cell drawn last."""
    order = np.argsort(counts, kind="stable")
    p = counts[order] / float(counts.sum(dtype=np.float64))

    def draw(rng: np.random.Generator, n: int) -> np.ndarray:
        out = np.empty(order.shape[0], dtype=np.int64)
        out[order] = rng.multinomial(n, p)
        return out
    return draw


def check_method(method: Any, name: str = "method") -> str:
    """``method`` if it is one of :data:`METHODS`, else a ValueError naming the option."""
    if not isinstance(method, str) or method not in METHODS:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, METHODS))}, "
                         f"got {method!r}")
    return method


def bootstrap_intervals(table: Contingency,
                        score: Callable[[Contingency], dict[str, float] | None],
                        keys: Sequence[str], *, level: float = 0.95, n_boot: int = 1000,
                        seed: Any = None,
                        progress: Callable[[int, int], None] | None = None,
                        method: str = DEFAULT_METHOD,
                        point: Mapping[str, float] | None = None,
                        bounds: Mapping[str, tuple[float, float]] | None = None,
                        score_stack: Callable[[np.ndarray], np.ndarray] | None = None,
                        ) -> dict[str, Interval]:
    """Intervals of the scores ``score(replicate)[key]`` over ``n_boot`` replicates.

    Each replicate is the table with counts drawn from Multinomial(N, n_ij / N) (cells drawn
    zero vanish, and so do classes or clusters left without items). ``method`` turns the
    replicate values into an interval (:func:`interval_from_replicates`); all but
    "percentile" use the point estimate ``point[key]`` (``score(table)`` when not given),
    "bca" also the jackknife of :func:`jackknife_cells`. ``bounds[key]`` is the score's
    range: "basic" and "normal" intervals are clipped to it, and the share of replicates
    on it decides :data:`FLAG_BOUND`. ``score`` returns None to skip a replicate; a NaN
    (or missing) value skips it for that key (see the module docstring). ``seed`` makes
    the draws reproducible (the same replicates whatever the method);
    ``progress(done, total)`` is called as replicates are scored. ``score_stack(counts)``,
    when given, scores many replicates at once from a (B, nnz) array of their counts of
    the table's cells (in their order), returning a (len(keys), B) array (NaN: undefined),
    instead of ``score`` of each replicate's table: the same values, without building the
    tables.
    """
    check_bootstrap_options(level, n_boot, ("level", "n_boot"), seed)
    check_method(method)
    table.require_counts("a bootstrap interval", _WHOLE_ITEMS)
    values = replicate_values(table, score, keys, n_boot, np.random.default_rng(seed),
                              progress, score_stack)
    if point is not None:
        centre = np.array([point.get(k, math.nan) for k in keys], dtype=np.float64)
    elif method == "percentile":
        centre = np.full(len(keys), np.nan)
    else:
        centre = _values(score(table), keys)
    jack = weights = None
    if method == "bca":
        jack, weights = jackknife_values(table, score, keys, score_stack)
    out = {}
    for i, k in enumerate(keys):
        bound = _bounds(bounds, k)
        kept = values[i][~np.isnan(values[i])]
        low, high = interval_from_replicates(
            kept, level, method, float(centre[i]), bound,
            None if jack is None else jack[i], weights)
        out[k] = Interval(low, high, float(level), int(n_boot), int(n_boot - kept.size),
                          method, interval_flags(table, kept, float(centre[i]), bound,
                                                 bias=True))
    return out


def _bounds(bounds: Mapping[str, tuple[float, float]] | None, key: str,
            ) -> tuple[float, float]:
    return (-math.inf, math.inf) if bounds is None else bounds.get(key, (-math.inf,
                                                                         math.inf))


def replicate_values(table: Contingency,
                     score: Callable[[Contingency], Mapping[str, float] | None],
                     keys: Sequence[str], n_boot: int, rng: np.random.Generator,
                     progress: Callable[[int, int], None] | None = None,
                     score_stack: Callable[[np.ndarray], np.ndarray] | None = None,
                     ) -> np.ndarray:
    """(len(keys), n_boot) scores of the replicates, NaN where skipped (``score_stack``:
    see :func:`bootstrap_intervals`). The replicates are drawn in order, whatever scores
    them, so the same seed gives the same replicates either way."""
    n = table.n_samples
    draw = multinomial_sampler(table.counts)
    values = np.full((len(keys), n_boot), np.nan)
    size = 1 if score_stack is None else stack_size(table.nnz, n_boot)
    blocks = [(lo, min(lo + size, n_boot)) for lo in range(0, n_boot, size)]

    def scored(counts: np.ndarray) -> np.ndarray:
        if score_stack is not None:
            return score_stack(counts)
        return _values(score(replicate_table(table, counts[0])), keys)[:, None]

    # drawn here in order, scored on the replicate threads: the same values on any number
    draws = (np.stack([draw(rng, n) for _ in range(lo, hi)]) for lo, hi in blocks)
    with _kernels.repeated(n_boot):
        for (lo, hi), block in zip(blocks, scored_in_order(scored, draws,
                                                           replicate_threads(table.nnz)),
                                   strict=True):
            values[:, lo:hi] = block
            if progress is not None:
                progress(hi, n_boot)
    return values


# Cells x replicates scored at once: a stack's arrays hold about this many entries each,
# so a few dozen of them stay within a few hundred MB
_STACK_CELLS = 1 << 18


# Blocks of replicates per run at least, progress being reported after each block
_BLOCKS = 20


def stack_size(cells: int, replicates: int) -> int:
    """How many replicates of a table of ``cells`` cells to score at once (one stack):
    as many as keep a stack's arrays near ``_STACK_CELLS`` entries, in at least
    ``_BLOCKS`` blocks (when there are that many replicates)."""
    most = max(1, _STACK_CELLS // max(cells, 1))
    return max(1, min(replicates, most, -(-replicates // _BLOCKS)))


def replicate_table(table: Contingency, counts: np.ndarray) -> Contingency:
    """The bootstrap replicate of ``table`` with cell counts ``counts`` (items drawn with
    replacement), whose pair-counting scores count pairs of distinct items: the pairs of
    an item with its own copies are left out
    (:func:`~clustermetrics.scores.pair_table.leave_out_copies`), else every pair score
    of a replicate is biased by ~1/(cell size), which at large N exceeds the sampling error
    and puts the intervals off their target."""
    replicate = table.with_counts(counts)
    if not table.real_valued:
        terms = copy_pairs(table.counts, counts)[np.asarray(counts) > 0]  # its cells
        replicate.cached("pair_counts:copy_terms", lambda t: terms)
        leave_out_copies(replicate, float(terms.sum()))
    return replicate


def jackknife_values(table: Contingency,
                     score: Callable[[Contingency], Mapping[str, float] | None],
                     keys: Sequence[str],
                     score_stack: Callable[[np.ndarray], np.ndarray] | None = None,
                     ) -> tuple[np.ndarray, np.ndarray]:
    """(len(keys), cells) scores of the leave-one-out tables of :func:`jackknife_cells`
    (NaN where undefined) and their weights (``score_stack``: see
    :func:`bootstrap_intervals`; the leave-one-out tables are scored as one stack)."""
    cells, weights = jackknife_cells(table.counts)
    jack = np.full((len(keys), cells.shape[0]), np.nan)
    counts = np.repeat(table.counts[None, :], cells.shape[0], axis=0)
    counts[np.arange(cells.shape[0]), cells] -= 1
    left = np.flatnonzero(counts.any(axis=1))  # a table of one item leaves nothing
    with _kernels.repeated(cells.shape[0]):
        if score_stack is not None and left.size:
            jack[:, left] = score_stack(counts[left])
        elif score_stack is None:
            for i in left.tolist():
                jack[:, i] = _values(score(table.with_counts(counts[i])), keys)
    return jack, weights


def interval_flags(table: Contingency, replicates: np.ndarray, point: float,
                   bounds: tuple[float, float], *, bias: bool = False,
                   ) -> tuple[str, ...]:
    """The flags of an interval (see :class:`Interval`): :data:`FLAG_SMALL` when the
    table has fewer than :data:`MIN_ITEMS_PER_CELL` items per non-zero cell,
    :data:`FLAG_BOUND` when the point estimate or at least :data:`BOUND_SHARE` of the
    (NaN-free) replicates sit at a bound of the score's range, and with ``bias`` (an
    interval shown to a user; the coverage study leaves it out of its own flags)
    :data:`FLAG_BIAS` when the replicates' mean lies more than their standard deviation
    from the point estimate (and more than the rounding of a replicate's score: constant
    replicates a few ulps off the estimate are not biased).
    Percentile intervals then miss their own estimate and BCa's z0 saturates (NMI of
    300 x 300 noise at N = 6e5: a width of 7e-6 beside it); the bias-corrected methods
    subtract a first-order estimate of a bias larger than the interval, which failed for
    the matching scores on noise (a maximum over near-tied matchings: coverage 0.55 at
    1.5 standard deviations, 0.05 at 2.8, 0 beyond) and for that NMI (18)."""
    flags = []
    if table.n_samples < MIN_ITEMS_PER_CELL * table.nnz:
        flags.append(FLAG_SMALL)
    if replicates.size and (point in bounds or
                            np.isin(replicates, bounds).mean() >= BOUND_SHARE):
        flags.append(FLAG_BOUND)
    if bias and replicates.size > 1 and math.isfinite(point) and \
            abs(float(replicates.mean()) - point) > max(float(replicates.std(ddof=1)),
                                                        _ROUNDING * max(abs(point), 1.0)):
        flags.append(FLAG_BIAS)
    return tuple(flags)


def _values(scores: Mapping[str, float] | None, keys: Sequence[str]) -> np.ndarray:
    if scores is None:
        return np.full(len(keys), np.nan)
    return np.array([scores.get(k, math.nan) for k in keys], dtype=np.float64)


def jackknife_cells(counts: np.ndarray, most: int = JACKKNIFE_CELLS,
                    ) -> tuple[np.ndarray, np.ndarray]:
    """The cells whose leave-one-out tables BCa's jackknife evaluates, with weights.

    Leaving out one item changes the table only through the item's cell, so the N
    leave-one-out values of the jackknife take one value per cell, weighted by its count:
    with at most ``most`` cells, every cell and its count. Larger tables take a
    systematic sample of ``most`` items (equally spaced in the cells' cumulative counts,
    so each item stands for N / ``most`` of them): a cell with c items is drawn about
    c * ``most`` / N times, weighted by that number. Cost: at most ``most`` scorings."""
    counts = np.asarray(counts)
    if counts.shape[0] <= most:
        return np.arange(counts.shape[0]), counts.astype(np.float64)
    cumulative = np.cumsum(counts, dtype=np.float64)
    positions = (np.arange(most) + 0.5) * (cumulative[-1] / most)
    hit = np.minimum(np.searchsorted(cumulative, positions, side="right"),
                     counts.shape[0] - 1)
    cells, times = np.unique(hit, return_counts=True)
    return cells, times.astype(np.float64)


def interval_from_replicates(values: np.ndarray, level: float, method: str,
                             point: float = math.nan,
                             bounds: tuple[float, float] = (-math.inf, math.inf),
                             jackknife: np.ndarray | None = None,
                             weights: np.ndarray | None = None) -> tuple[float, float]:
    """(low, high) at ``level`` from the replicate values (NaN-free) of a score whose point
    estimate is ``point``; (NaN, NaN) when there is none, or no point estimate where the
    method needs one.

    - "percentile": the ((1 - level) / 2, (1 + level) / 2) quantiles of the replicates
      (numpy's linear interpolation; Efron & Tibshirani, An Introduction to the Bootstrap,
      1993, ch. 13).
    - "basic": the percentile interval reflected about the point estimate,
      [2 point - q_high, 2 point - q_low] (Davison & Hinkley, Bootstrap Methods and their
      Application, 1997, eq. 5.6): it moves a biased score's interval away from the bias.
    - "normal": point - bias -+ z sd, with bias = mean(replicates) - point and sd their
      standard deviation (Davison & Hinkley, eq. 5.5).
    - "bca": bias-corrected and accelerated percentiles (Efron, JASA 82, 1987; Efron &
      Tibshirani ch. 14): z0 = Phi^-1(share of replicates below the point, ties counted
      half), acceleration a = sum w d^3 / (6 (sum w d^2)^1.5) over the jackknife values
      (``jackknife``, ``weights``; d = their weighted mean minus each), quantiles at
      Phi(z0 + (z0 + z) / (1 - a (z0 + z))).

    "basic" and "normal" are clipped to ``bounds`` (the score's range).
    """
    check_method(method)
    if values.size == 0 or (method != "percentile" and math.isnan(point)):
        return math.nan, math.nan
    tail = (1.0 - level) / 2.0
    if method == "percentile":
        low, high = np.quantile(values, [tail, 1.0 - tail]).tolist()
        return low, high
    if method == "basic":
        q_low, q_high = np.quantile(values, [tail, 1.0 - tail]).tolist()
        return _clip(2.0 * point - q_high, 2.0 * point - q_low, bounds)
    if method == "normal":
        half = float(special.ndtri(1.0 - tail)) * float(values.std(ddof=1)
                                                       if values.size > 1 else 0.0)
        centre = 2.0 * point - float(values.mean())
        return _clip(centre - half, centre + half, bounds)
    share = (np.count_nonzero(values < point) + 0.5 * np.count_nonzero(values == point)) \
        / values.size
    share = min(max(share, 0.5 / values.size), 1.0 - 0.5 / values.size)
    z0 = float(special.ndtri(share))
    a = _acceleration(jackknife, weights)
    quantiles = []
    for z in (float(special.ndtri(tail)), float(special.ndtri(1.0 - tail))):
        shifted = z0 + z
        denominator = 1.0 - a * shifted
        q = float(special.ndtr(z0 + shifted / denominator)) if denominator > 0 else \
            (1.0 if shifted > 0 else 0.0)
        quantiles.append(q)
    low, high = np.quantile(values, quantiles).tolist()
    return low, high


def _acceleration(jackknife: np.ndarray | None, weights: np.ndarray | None) -> float:
    if jackknife is None or weights is None:
        return 0.0
    ok = ~np.isnan(jackknife)
    theta, w = jackknife[ok], weights[ok]
    if w.sum() <= 0:
        return 0.0
    d = float(np.dot(w, theta)) / float(w.sum()) - theta
    spread = float(np.dot(w, d * d))
    if spread <= 0.0:
        return 0.0
    return float(np.dot(w, d * d * d)) / (6.0 * spread ** 1.5)


def _clip(low: float, high: float, bounds: tuple[float, float]) -> tuple[float, float]:
    return min(max(low, bounds[0]), bounds[1]), min(max(high, bounds[0]), bounds[1])
