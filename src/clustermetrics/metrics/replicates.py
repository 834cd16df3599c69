"""Scores of a bootstrap replicate straight from its cell counts, without building a table.

A replicate keeps the original table's cells (rows, columns) and redraws their counts;
cells drawn zero, and labels left without items, add nothing to the sums a score is made
of (a zero count or size adds 0 to sum C(n, 2) and to sum n log n). So the margins are
two sums over the fixed row and column index of the cells, and ARI, mutual information,
NMI and AMI follow from a handful of sums, never re-sorting or renumbering anything:

- pair counts: sum C(n_ij, 2), sum C(a_i, 2), sum C(b_j, 2), exact integers, the same
  computation as :func:`~clustermetrics.metrics.pair_counting.pair_counts`, so ARI is
  bit-identical to the table's;
- MI = (sum n_ij log n_ij - sum a_i log a_i - sum b_j log b_j + N log N) / N, each sum
  over the *distinct* values (a histogram of the counts), so its cost is one pass; its
  rounding error is a few ulps of N log N / N, far below the replicates' spread.

Where a score has a convention (one label on a side, a 0/0, a side of singletons) the
function raises :class:`Fallback` and the caller scores the replicate's table the usual
way, so conventions are never re-implemented here.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

import numpy as np

from .. import _kernels
from ..table import Contingency
from ..table.counting import group_sum, new_codes
from ._assignment import fixes_little, max_weight_matching
from ._cells import row_starts
from ._emi import emi_of_distinct_sizes
from ._matchings import recall_weights
from .information import mutual_info_shortcut
from .pair_counting import _sum_comb2, copy_pairs
from .set_matching import nca_of, npa_of

__all__ = ["CellCounts", "Fallback", "REPLICATE_SCORES"]

class Fallback(Exception):
    """The replicate needs the table's own computation (a convention applies)."""


class CellCounts:
    """A replicate: new counts of a table's cells, with its margins and sums."""

    def __init__(self, table: Contingency, counts: np.ndarray):
        self.table = table
        self.counts = counts
        self.n = int(counts.sum(dtype=np.int64))
        # exact int64 sums: rows are sorted and each has a cell (reduceat), columns not
        self.a = np.add.reduceat(counts, row_starts(table))
        self.b = group_sum(table.cols, counts, table.n_clusters)
        self.n_classes = int(np.count_nonzero(self.a))
        self.n_clusters = int(np.count_nonzero(self.b))
        # the histogram of the counts (they are small on the tables where speed matters):
        # sum C(n, 2), sum n log n and the cells left all follow from it
        top = int(counts.max(initial=0))
        self._hist = np.bincount(counts) if top <= 4 * counts.shape[0] + 16 else None
        self.nnz = int(counts.shape[0] - self._hist[0]) if self._hist is not None \
            else int(np.count_nonzero(counts))
        self._info: tuple[float, float, float] | None = None
        self._matched: dict[str, float | int] = {}  # weights -> the best matching's total

    def sum_comb2_counts(self) -> int:
        """sum C(n_ij, 2), exact."""
        if self._hist is None:
            return _sum_comb2(self.counts, self.n)
        v = np.flatnonzero(self._hist[2:]) + 2
        return sum(int(h) * (int(x) * (int(x) - 1) // 2)
                   for x, h in zip(v.tolist(), self._hist[v].tolist(), strict=True))

    def sum_x_log_x_counts(self) -> float:
        """sum n_ij log n_ij."""
        if self._hist is None:
            return _sum_x_log_x(self.counts)
        v = np.flatnonzero(self._hist[2:]) + 2
        return math.fsum((self._hist[v] * (v * np.log(v))).tolist())

    def info(self) -> tuple[float, float, float]:
        """(MI, H(truth), H(prediction)) in nats, MI by the table's exact shortcuts where
        they apply (0 for a single label on a side, an entropy for one cell per class or
        cluster: :func:`~.information.mutual_info_shortcut`); Fallback when both sides
        have a single label (the scores' 0/0 conventions)."""
        if self._info is None:
            if self.n_classes == self.n_clusters == 1:
                raise Fallback
            n = self.n
            n_log_n = n * math.log(n)
            s_a, s_b = _sum_x_log_x(self.a), _sum_x_log_x(self.b)
            h_true, h_pred = max((n_log_n - s_a) / n, 0.0), max((n_log_n - s_b) / n, 0.0)
            mi = mutual_info_shortcut(self.n_classes, self.n_clusters, self.nnz,
                                      lambda: h_true, lambda: h_pred)
            if mi is None:
                mi = max((self.sum_x_log_x_counts() - s_a - s_b + n_log_n) / n, 0.0)
            self._info = (mi, h_true, h_pred)
        return self._info


def _sum_x_log_x(values: np.ndarray) -> float:
    """sum v log v over non-negative integers, through the histogram of their values
    when they are small (the usual cell counts and sizes), else directly."""
    top = int(values.max(initial=0))
    if top < 2:
        return 0.0
    if top <= 4 * values.shape[0]:
        hist = np.bincount(values)
        v = np.flatnonzero(hist[2:]) + 2
        return math.fsum((hist[v] * (v * np.log(v))).tolist())
    v = values[values > 1].astype(np.float64)
    return math.fsum((v * np.log(v)).tolist())


def _distinct(sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(distinct positive sizes, increasing; how many labels have each), as np.unique
    gives them, from a histogram when the sizes are small."""
    top = int(sizes.max(initial=0))
    if top > 4 * sizes.shape[0] + 16:
        values, times = np.unique(sizes[sizes > 0], return_counts=True)
        return values, times
    hist = np.bincount(sizes)
    values = np.flatnonzero(hist[1:]) + 1
    return values, hist[values]


def adjusted_rand(r: CellCounts) -> float:
    """ARI of the replicate's pairs of distinct items (its table's, see
    :func:`~.pair_counting.leave_out_copies`)."""
    n = r.n
    every = r.sum_comb2_counts()
    fn, fp = _sum_comb2(r.a, n) - every, _sum_comb2(r.b, n) - every
    tn = n * (n - 1) // 2 - every - fn - fp
    tp = every - Fraction(float(copy_pairs(r.table.counts, r.counts).sum()))
    den = (tp + fn) * (fn + tn) + (tp + fp) * (fp + tn)
    if den == 0:
        raise Fallback
    return float(2 * (tp * tn - fn * fp) / den)


def mutual_info(r: CellCounts) -> float:
    return r.info()[0]


def normalized_mutual_info(r: CellCounts) -> float:
    mi, h_true, h_pred = r.info()
    if mi == 0:
        return 0.0
    return min(mi / ((h_true + h_pred) / 2.0), 1.0)


def adjusted_mutual_info(r: CellCounts) -> float:
    if r.n_classes == r.n_clusters == 1 or r.n in (r.n_classes, r.n_clusters):
        raise Fallback
    if 1 in (r.n_classes, r.n_clusters):  # MI = E[MI] = 0 (the table's AMI: 0.0)
        return 0.0
    mi, h_true, h_pred = r.info()
    emi = emi_of_distinct_sizes(*_distinct(r.a), *_distinct(r.b), r.n)
    denominator = (h_true + h_pred) / 2.0 - emi
    if denominator <= 0:
        raise Fallback
    return (mi - emi) / denominator


def recovery_rate(r: CellCounts) -> float:
    """The exact recovery rate (recovery.py, default options): the total recall of the
    best matching over the clusters."""
    return _matched(r, "recall") / r.n_clusters


def normalized_clustering_accuracy(r: CellCounts) -> float:
    if max(r.n_classes, r.n_clusters) == 1:
        raise Fallback  # its 0/0 convention
    return nca_of(_matched(r, "recall"), r.n_classes, r.n_clusters)


def clustering_accuracy(r: CellCounts) -> float:
    return _matched(r, "count") / r.n


def clustering_error(r: CellCounts) -> float:
    return (r.n - _matched(r, "count")) / r.n


def normalized_pivoted_accuracy(r: CellCounts) -> float:
    if max(r.n_classes, r.n_clusters) == 1:
        raise Fallback  # its 0/0 convention
    return npa_of(_matched(r, "count"), r.n, r.n_classes, r.n_clusters)


def _matched(r: CellCounts, kind: str) -> float | int:
    """Total weight of a maximum-weight matching of the replicate, on the recall weights
    n_ij / a_i ("recall") or the counts ("count"): the same matching problem the
    replicate's table hands the solver (its non-zero cells, rows and columns renumbered
    without the empty ones), without building the table; the matched count is an exact
    integer, as the table's (counts past 2**53 are not exact as float64 weights). Inside a
    loop of replicates the
    solver starts from the table's own optimal prices for those weights; computed once
    per replicate and kind (the recovery rate and NCA, clustering accuracy, error and NPA
    share theirs)."""
    if kind not in r._matched:
        r._matched[kind] = _solve_matching(r, kind)
    return r._matched[kind]


def _solve_matching(r: CellCounts, kind: str) -> float | int:
    table, counts = r.table, r.counts
    keep = np.flatnonzero(counts)
    rows, cols, c = table.rows[keep], table.cols[keep], counts[keep]
    sizes = r.a[rows]
    weights, fraction = (c / sizes, (c, sizes)) if kind == "recall" else \
        (c.astype(np.float64), None)
    total = (lambda cells: math.fsum(weights[cells].tolist())) if kind == "recall" else \
        (lambda cells: int(c[cells].sum()))
    if 1 in (r.n_classes, r.n_clusters):  # one row or column: the best cell alone
        return total(np.array([int(np.argmax(weights))]))
    row_code, col_code = new_codes(r.a > 0), new_codes(r.b > 0)
    prices = _warm_prices(table, kind, r.b > 0, keep.shape[0])
    # started warm, a replicate of a table where fixing cells fixes little skips it
    rounds = None if prices is None or not table.cached(
        f"replicate:{kind}:fixes_little", lambda t: _fixes_little(t, kind)) else 0
    cells = max_weight_matching(row_code[rows], col_code[cols], weights,
                                (r.n_classes, r.n_clusters), fraction=fraction,
                                prices=prices, forced_rounds=rounds)
    return total(cells)


def _table_weights(table: Contingency, kind: str) -> np.ndarray:
    """The table's own weights of that kind (recall n_ij / a_i, or the counts)."""
    return table.counts.astype(np.float64) if kind == "count" else recall_weights(table)


def _fixes_little(table: Contingency, kind: str) -> bool:
    return fixes_little(table.rows, table.cols, _table_weights(table, kind),
                        table.n_classes, table.n_clusters)


def _warm_prices(table: Contingency, kind: str, columns: np.ndarray, cells: int,
                 ) -> np.ndarray | None:
    """Optimal column prices of the table's own matching problem (weights of ``kind``)
    for the replicate's ``columns`` (a mask), from which the solver starts the replicate's
    matching (:mod:`clustermetrics._warm_kernels`); None (solved cold) outside a loop of
    replicates (:func:`clustermetrics._kernels.repeated`), without the compiled kernels,
    or on small problems. The matching is optimal either way; among several optimal
    matchings a warm start may pick another (the same total weight)."""
    if _kernels.repeats() < 2 or cells < _WARM_MIN_CELLS:
        return None
    kernels = _kernels.warm_matching_kernels(table.nnz)
    if kernels is None:
        return None
    return table.cached(f"replicate:{kind}:prices", lambda t: _reference_prices(
        t, kind, kernels))[columns]


# Cells of a replicate's problem from which its matching is solved warm (smaller ones are
# solved cold in milliseconds)
_WARM_MIN_CELLS = 4096


def _reference_prices(table: Contingency, kind: str, kernels) -> np.ndarray:
    """Optimal column prices of the table's matching problem (to within rounding: a start
    only)."""
    indptr = np.append(row_starts(table), table.nnz).astype(np.int64)
    return kernels.reference_prices(indptr, table.cols, _table_weights(table, kind),
                                    table.n_clusters)


def v_measure(r: CellCounts) -> float:
    if r.info()[0] == 0:
        raise Fallback
    return normalized_mutual_info(r)  # V-measure (beta = 1) is NMI with the arithmetic mean


# registry key -> the score of a replicate (the registry's default options)
REPLICATE_SCORES: dict[str, Callable[[CellCounts], float]] = {
    "ari": adjusted_rand,
    "mi": mutual_info,
    "nmi": normalized_mutual_info,
    "v_measure": v_measure,
    "ami": adjusted_mutual_info,
    "recovery_rate": recovery_rate,
    "nca": normalized_clustering_accuracy,
    "clustering_accuracy": clustering_accuracy,
    "clustering_error": clustering_error,
    "npa": normalized_pivoted_accuracy,
}
