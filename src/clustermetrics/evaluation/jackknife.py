"""The paired jackknife of :mod:`clustermetrics.evaluation.paired` (its docstring gives
the method): the truth x A x B table and the groups of items it leaves out
(:class:`_ThreeWay`, a stratified sample of them above :func:`jackknife_size`), the
leave-one-out tables of A and B scored as stacks (:class:`_LeaveOneOut`), and the t
interval and p-value of a difference from its leave-one-out values (:func:`jackknife_t`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from ..compute import dispatch as _kernels
from ..compute.special import stdtr, stdtrit
from ..compute.threads import replicate_threads, scored_in_order
from ..inference.bootstrap import jackknife_cells, stack_size
from ..table import Contingency
from ..table.factorize import factorize
from .evaluate import table_scores
from .paired_results import FLAG_CONSTANT, FLAG_UNDEFINED

__all__ = ["JACKKNIFE_MAX_CELLS", "JACKKNIFE_MIN_UNITS", "JackknifeT", "jackknife_size",
           "jackknife_t"]

JACKKNIFE_MAX_CELLS = 2000  # groups of items left out one by one; a stratified sample above
# ...and fewer on large tables, so a comparison of the default scores costs ~_JACKKNIFE_TIME
# seconds: a leave-one-out table of nnz cells costs about _TABLE_SECONDS + _CELL_SECONDS nnz
# to score (measured at load 4 on 2 cores: 1.1 ms at 300 cells, 5.8 ms at 10^4, ~0.15 s at
# 6e5), but never fewer than JACKKNIFE_MIN_UNITS items (200 items drawn per stratum of cell
# sizes gave ARI's standard error of pure noise exactly)
JACKKNIFE_MIN_UNITS = 200
_JACKKNIFE_TIME = 5.0
_TABLE_SECONDS = 1e-3
_CELL_SECONDS = 2.5e-7
# a standard error below this share of the scores' size is the rounding of equal values
_ROUNDING = 1e-12


class _Units(NamedTuple):
    """The groups of items the jackknife leaves out, one item at a time: each group's
    three-way ``cell``, the ``amount`` leaving one of its items out takes from that cell
    (1, or the item's weight), and ``weight``, how many items the group stands for.
    ``n_groups``: the groups before a systematic sample kept some of them."""

    cell: np.ndarray
    amount: np.ndarray
    weight: np.ndarray
    n_groups: int


class _ThreeWay:
    """The (truth, A, B) table: its non-zero cells, and the index of each cell's (truth, A)
    and (truth, B) cell in the two tables (``ta``, ``tb``), the tables being its margins.

    ``w``: checked weights (:func:`.paired._weights`); the cells then count weights, and
    ``groups`` holds, per (cell, weight) group of items, its cell, its number of items
    and their weight, sorted by cell."""

    def __init__(self, t: np.ndarray, a: np.ndarray, b: np.ndarray,
                 w: np.ndarray | None = None):
        if w is not None:
            keep = w > 0
            t, a, b, w = t[keep], a[keep], b[keep], w[keep]
        (tc, tl), (ac, al), (bc, bl) = factorize(t), factorize(a), factorize(b)
        # two-stage keys: each fits in int64 for N < 3e9 (codes < N)
        ta_keys, ta_of_item = np.unique(tc * al.shape[0] + ac, return_inverse=True)
        tb_keys, tb_of_item = np.unique(tc * bl.shape[0] + bc, return_inverse=True)
        _, first, cell_of_item, counts = np.unique(
            ta_of_item * np.int64(tb_keys.shape[0]) + tb_of_item, return_index=True,
            return_inverse=True, return_counts=True)
        self.n_items = int(t.shape[0])
        self.counts = counts.astype(np.int64)
        self.groups: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        if w is not None:
            self.groups = _weight_groups(cell_of_item.reshape(-1), w)
            group_cell, sizes, weights = self.groups
            starts = np.flatnonzero(np.diff(group_cell, prepend=-1))
            self.counts = np.add.reduceat(sizes * weights, starts)
        self.real = self.counts.dtype.kind == "f"
        self.n: int | float = float(self.counts.sum()) if self.real else \
            int(self.counts.sum(dtype=np.int64))
        self.exact = not self.real and self.n >= 2**53  # float64 bincounts would round
        self.ta = ta_of_item[first]
        self.tb = tb_of_item[first]
        self.n_ta, self.n_tb = ta_keys.shape[0], tb_keys.shape[0]
        self.table_a = Contingency.from_sorted_cells(
            ta_keys // al.shape[0], ta_keys % al.shape[0], self.margin_a(self.counts), tl, al)
        self.table_b = Contingency.from_sorted_cells(
            tb_keys // bl.shape[0], tb_keys % bl.shape[0], self.margin_b(self.counts), tl, bl)

    def jackknife_units(self, most: int | None = None) -> _Units:
        """The groups of exchangeable items (the cells, or the (cell, weight) groups);
        above ``most`` groups (default :data:`JACKKNIFE_MAX_CELLS`), a stratified
        systematic sample of about ``most`` items (:func:`_stratified_sample`), strata by
        the sizes of the unit's cells in A's and B's tables."""
        if self.groups is None:
            cell, amount, size = np.arange(self.counts.shape[0]), \
                np.ones(self.counts.shape[0], dtype=np.int64), self.counts
        else:
            cell, size, amount = self.groups
        most = JACKKNIFE_MAX_CELLS if most is None else most
        if size.shape[0] <= most:
            return _Units(cell, amount, size.astype(np.float64), int(size.shape[0]))
        strata = np.stack([_size_class(self.table_a.counts[self.ta[cell]]),
                           _size_class(self.table_b.counts[self.tb[cell]])])
        chosen, weight = _stratified_sample(size, strata, most)
        return _Units(cell[chosen], amount[chosen], weight, int(size.shape[0]))

    # float64 bincount sums are exact below 2**53 (every count and sum is at most the
    # table's total); above it the sums are taken in int64
    def margin_a(self, counts: np.ndarray) -> np.ndarray:
        return self._margin(self.ta, counts, self.n_ta)

    def margin_b(self, counts: np.ndarray) -> np.ndarray:
        return self._margin(self.tb, counts, self.n_tb)

    def _margin(self, index: np.ndarray, counts: np.ndarray, size: int) -> np.ndarray:
        if self.real:  # real masses: float sums
            return np.bincount(index, weights=counts, minlength=size)
        if not self.exact:
            return np.bincount(index, weights=counts, minlength=size).astype(np.int64)
        out = np.zeros(size, dtype=np.int64)
        np.add.at(out, index, np.asarray(counts, dtype=np.int64))
        return out


def jackknife_size(cells: int) -> int:
    """How many groups of items (or sampled items) the jackknife leaves out one by one
    when each side's table has up to ``cells`` non-zero cells (see
    :data:`JACKKNIFE_MAX_CELLS`); deterministic, from the table's size alone."""
    per_table = _TABLE_SECONDS + _CELL_SECONDS * cells
    fits = int(_JACKKNIFE_TIME / (2.0 * per_table))
    return max(JACKKNIFE_MIN_UNITS, min(JACKKNIFE_MAX_CELLS, fits))


def _size_class(sizes: np.ndarray) -> np.ndarray:
    """Cell sizes by octave (1, 2-3, 4-7, ...; real masses likewise): leaving an item out
    of a cell of one item or of two changes a score most differently."""
    return np.floor(np.log2(np.asarray(sizes, dtype=np.float64))).astype(np.int64)


# items drawn from each stratum at least (all of a smaller one), while the floors take at
# most half of the sample
_STRATUM_FLOOR = 32


def _stratified_sample(size: np.ndarray, strata: np.ndarray, most: int,
                       ) -> tuple[np.ndarray, np.ndarray]:
    """(chosen units, items each stands for): per stratum (a column of ``strata``), a
    systematic sample (:func:`~clustermetrics.inference.bootstrap.jackknife_cells`) of its share of
    ``most`` items, at least :data:`_STRATUM_FLOOR` (fewer when the strata are many: the
    floors take at most half of ``most``), or all of its units when they are fewer.

    The leave-one-out values that carry a jackknife's variance can sit in a few rare
    cells (pure noise: the cells of two items among thousands of one, which alone make
    ARI's pairs). On 30,000 items over 3,000 x 3,000 labels, a plain systematic sample
    of 40 items missed them all and put ARI's standard error 60 times too low (of 200:
    10 % low); drawn per stratum of cell sizes, 200 items gave it exactly."""
    _, stratum = np.unique(strata, axis=1, return_inverse=True)
    stratum = stratum.reshape(-1)
    n_strata = int(stratum.max()) + 1
    floor = max(1, min(_STRATUM_FLOOR, most // (2 * n_strata)))
    total = float(size.sum())
    chosen, weights = [], []
    for h in range(n_strata):
        units = np.flatnonzero(stratum == h)
        items = float(size[units].sum())
        share = max(floor, round(most * items / total))
        if units.shape[0] <= share:
            chosen.append(units)
            weights.append(size[units].astype(np.float64))
            continue
        picked, times = jackknife_cells(size[units], share)
        chosen.append(units[picked])
        weights.append(times * (items / float(times.sum())))
    return np.concatenate(chosen), np.concatenate(weights)


def _weight_groups(cell_of_item: np.ndarray, w: np.ndarray,
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(cell, number of items, weight) of each (cell, weight) group of positive-weight
    items, sorted by cell (every table scored is the sample less one item, so the
    checked total of the weights bounds them all)."""
    order = np.lexsort((w, cell_of_item))  # lexsort keeps float weights exact
    cell_sorted, w_sorted = cell_of_item[order], w[order]
    new = np.ones(order.shape[0], dtype=bool)
    new[1:] = (cell_sorted[1:] != cell_sorted[:-1]) | (w_sorted[1:] != w_sorted[:-1])
    firsts = np.flatnonzero(new)
    sizes = np.diff(np.append(firsts, order.shape[0])).astype(np.int64)
    return cell_sorted[firsts], sizes, w_sorted[firsts]


class _LeaveOneOut:
    """The leave-one-out tables of both sides: for each side, one table per distinct
    (cell of that side's table, amount) among the units, scored in blocks (stacks of
    whole items, else one table at a time), and the differences A - B per unit."""

    def __init__(self, three: _ThreeWay, units: _Units, keys: list[str],
                 score: Callable[[Contingency, bool], dict[str, float] | None],
                 stacked: bool):
        self.keys, self.score, self.stacked = keys, score, stacked
        self.n_units = units.cell.shape[0]
        self.sides = [] if three.n_items < 2 else [
            (table, *_distinct(cells[units.cell], units.amount))
            for table, cells in ((three.table_a, three.ta), (three.table_b, three.tb))]
        self.n_tables = sum(first.shape[0] for _, first, _, _ in self.sides)

    def differences(self, step: Callable[[int], Any]) -> np.ndarray:
        """(len(keys), units) leave-one-out differences A - B, NaN where undefined;
        ``step(k)`` after each block of k tables."""
        if not self.sides:  # one item: nothing to leave out
            return np.full((len(self.keys), self.n_units), np.nan)
        a, b = (self._scores(*side, step) for side in self.sides)
        return a - b

    def _scores(self, table: Contingency, cells: np.ndarray, amounts: np.ndarray,
                inverse: np.ndarray, step: Callable[[int], Any]) -> np.ndarray:
        m = cells.shape[0]
        size = stack_size(table.nnz, m) if self.stacked else 1
        blocks = [(lo, min(lo + size, m)) for lo in range(0, m, size)]
        out = np.empty((len(self.keys), m))
        tables = (_without(table.counts, cells[lo:hi], amounts[lo:hi]) for lo, hi in blocks)
        with _kernels.repeated(m):  # compiled kernels load when the tables repay it
            for (lo, hi), values in zip(blocks, scored_in_order(
                    lambda c: self._block(table, c), tables, replicate_threads(table.nnz)),
                    strict=True):
                out[:, lo:hi] = values
                step(hi - lo)
        return out[:, inverse]

    def _block(self, table: Contingency, counts: np.ndarray) -> np.ndarray:
        if self.stacked:
            return table_scores(table, counts, self.keys)
        out = np.full((len(self.keys), counts.shape[0]), np.nan)
        for i, row in enumerate(counts):
            values = self.score(table.with_counts(row), True)
            if values is not None:
                out[:, i] = [values[k] for k in self.keys]
        return out


def _distinct(cells: np.ndarray, amounts: np.ndarray,
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct (cell, amount) pairs (a leave-one-out table each) and, per unit, the
    index of its pair."""
    order = np.lexsort((amounts, cells))
    c, v = cells[order], amounts[order]
    new = np.ones(order.shape[0], dtype=bool)
    new[1:] = (c[1:] != c[:-1]) | (v[1:] != v[:-1])
    inverse = np.empty(order.shape[0], dtype=np.int64)
    inverse[order] = np.cumsum(new) - 1
    return c[new], v[new], inverse


def _without(counts: np.ndarray, cells: np.ndarray, amounts: np.ndarray) -> np.ndarray:
    """One table per (cell, amount): ``counts`` less ``amount`` at ``cell``. A real mass
    left within rounding of 0 by the float subtraction is 0 (the cell's last item)."""
    out = np.repeat(counts[None, :], cells.shape[0], axis=0)
    rows = np.arange(cells.shape[0])
    left = out[rows, cells] - amounts
    if left.dtype.kind == "f":
        left[left <= 1e-12 * out[rows, cells]] = 0.0
    out[rows, cells] = left
    return out


class JackknifeT(NamedTuple):
    """What :func:`jackknife_t` says of a difference."""

    interval: tuple[float, float]
    pvalue: float
    se: float
    df: float
    flags: tuple[str, ...]


def jackknife_t(d: float, leave_one_out: np.ndarray, weights: np.ndarray, n: int,
                level: float, scale: float = 1.0) -> JackknifeT:
    """The interval at ``level`` and the two-sided p-value of a statistic ``d`` of ``n``
    items from its leave-one-out values, each standing for ``weights`` of the items: the
    jackknife's standard error (Tukey 1958) and Student's t at Satterthwaite's degrees of
    freedom (see :mod:`clustermetrics.evaluation.paired`). One rule: p < 1 - ``level``
    exactly when the interval excludes 0. A standard error within rounding of 0 (below
    1e-12 ``scale``, the size of the scores) gives p = 1 and the interval from d to 0 when
    d is within rounding of 0 too, else :data:`FLAG_CONSTANT` and no interval or p-value.

    >>> t = jackknife_t(0.5, np.array([0.4, 0.5, 0.6, 0.5]), np.ones(4), 4, 0.95)
    >>> round(t.se, 4), round(t.df, 3), t.pvalue < 0.05, t.interval[0] > 0
    (0.1225, 4.8, True, True)
    """
    if leave_one_out.shape[0] == 0 or n < 2:
        return JackknifeT((math.nan, math.nan), math.nan, math.nan, math.nan,
                          (FLAG_UNDEFINED,))
    se, df = _jackknife_se(leave_one_out, weights, n)
    tiny = _ROUNDING * scale
    if se <= tiny:
        if abs(d) <= tiny:  # no difference beyond rounding: an interval holding 0, p = 1
            return JackknifeT((min(d, 0.0), max(d, 0.0)), 1.0, se, df, ())
        return JackknifeT((math.nan, math.nan), math.nan, se, df, (FLAG_CONSTANT,))
    half = float(stdtrit(df, 0.5 + level / 2.0)) * se
    low, high = d - half, d + half
    p = 2.0 * float(stdtr(df, -abs(d) / se))
    return JackknifeT((low, high), _one_rule(p, low, high, 1.0 - level), se, df, ())


def _jackknife_se(values: np.ndarray, weights: np.ndarray, n: int) -> tuple[float, float]:
    """The jackknife's standard error, sqrt((n - 1) / n · Σ (x_(i) - mean)²) over the n
    leave-one-out values (``values``, each standing for ``weights`` of them), and
    Satterthwaite's degrees of freedom of its square, 2 / (2 / (n - 1) + (b₂ - 3) / n)
    with b₂ their kurtosis: the variance of a sample variance of n values of kurtosis b₂,
    relative to its square, is 2 / (n - 1) + (b₂ - 3) / n, and a chi-square's is
    2 / ν. Always positive (b₂ >= 1)."""
    w = weights * (n / float(weights.sum()))  # the units stand for all n items
    u = values - float(np.dot(w, values)) / n
    scale = float(np.max(np.abs(u), initial=0.0))
    if not scale > 0.0:
        return 0.0, math.inf
    u = u / scale  # moments of deviations in [-1, 1]: m2 squared cannot underflow
    m2 = float(np.dot(w, u * u)) / n
    b2 = float(np.dot(w, (u * u) ** 2)) / n / (m2 * m2)
    return scale * math.sqrt((n - 1) * m2), 2.0 / (2.0 / (n - 1) + (b2 - 3.0) / n)


def _one_rule(p: float, low: float, high: float, alpha: float) -> float:
    """``p`` on the side of ``alpha`` the interval says (0 outside it: p < alpha): t's
    distribution function and its inverse are inverses only to rounding, which could
    otherwise put p a few ulps on the other side of alpha."""
    excludes = low > 0.0 or high < 0.0
    if excludes and not p < alpha:
        return float(np.nextafter(alpha, 0.0))
    if not excludes and p < alpha:
        return alpha
    return p
