"""The 2x2 table of item pairs that every pair-counting score is a function of.

Over the C(N, 2) unordered pairs of items, a pair is *together* in a labelling when both
items share a label. With n_ij the table cells, a_i the class sizes and b_j the cluster sizes:

    TP = sum_ij C(n_ij, 2)            together in truth and in prediction   (yy)
    FN = sum_i C(a_i, 2) - TP         together in truth only                (yn)
    FP = sum_j C(b_j, 2) - TP         together in prediction only           (ny)
    TN = C(N, 2) - TP - FN - FP       apart in both                         (nn)

All four are computed in O(nnz) from the table as exact integers (exact Fractions of the
masses of a real-valued table; arrays, one entry per table, for a stack of bootstrap
replicates, whose pairs of an item with its own copies are left out).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, NamedTuple

import numpy as np

from ..table import Contingency, as_contingency
from ..table.stack import Table, TableStack, is_stack
from ._cells import scaled_masses
from .spec import ScoreUnavailable

__all__ = ["PairCounts", "copy_pairs", "leave_out_copies", "pair_confusion_matrix",
           "pair_counts"]

# Below this N every n*(n-1) fits in int64, and so does every sum of C(n, 2) (<= C(N, 2)).
_INT64_SAFE_N = 3_000_000_000


class PairCounts(NamedTuple):
    """Unordered item pairs by agreement (exact ints; exact Fractions on real-valued
    masses): see :func:`pair_counts`."""

    tp: int | Fraction
    fn: int | Fraction
    fp: int | Fraction
    tn: int | Fraction


def _sum_comb2(values: np.ndarray, n_total: int) -> int:
    if n_total >= _INT64_SAFE_N:  # sum v^2 may pass 2**63: Python ints (object arrays)
        values = values.astype(object)
    # sum C(v, 2) = (sum v^2 - sum v) / 2; one dot product, no temporary arrays
    return (int(np.dot(values, values)) - int(values.sum())) // 2


def _real_pairs(table: Contingency) -> PairCounts:
    """Pair masses of a real-valued table: sum C(v, 2) = (sum V^2 - 2^k sum V) / 2^(2k+1)
    with V = v 2^k integers, exact Fractions."""
    cells, by_row, by_col, k = scaled_masses(table)
    scale = 1 << k

    def comb2(values: np.ndarray) -> Fraction:
        total = int(values.sum())
        return Fraction(int(np.dot(values, values)) - scale * total, 2 * scale * scale)

    tp, same_true, same_pred = comb2(cells), comb2(by_row), comb2(by_col)
    if tp < 0:  # FN, FP and TN are sums of w_i w_j >= 0; only TP has the self terms
        raise ScoreUnavailable(
            "pair counting on real masses needs sum_ij n_ij (n_ij - 1) / 2 >= 0, but the "
            f"cells of this table weigh too little (it is {float(tp):.3g}): sample_weight "
            "counts items, so scale it so that 1 is one item")
    total = int(cells.sum())
    pairs = Fraction(total * total - scale * total, 2 * scale * scale)
    fn, fp = same_true - tp, same_pred - tp
    return PairCounts(tp, fn, fp, pairs - tp - fn - fp)


def _compute_pairs(table: Table) -> PairCounts:
    if is_stack(table):
        return _stack_pairs(table)
    if table.real_valued:
        return _real_pairs(table)
    n = int(table.n_samples)  # item counts: real masses took the branch above
    tp = _sum_comb2(table.counts, n)
    same_true = _sum_comb2(table.class_sizes, n)
    same_pred = _sum_comb2(table.cluster_sizes, n)
    fn, fp = same_true - tp, same_pred - tp
    return PairCounts(tp, fn, fp, n * (n - 1) // 2 - tp - fn - fp)


def _stack_pairs(stack: TableStack) -> PairCounts:
    """The pair counts of each table of a stack: float64 arrays while every count is
    exact there (C(N, 2) < 2^53), else object arrays of exact Python ints (the formulas
    of the scores then stay exact, as on one table)."""
    n = stack.n_samples
    counts = stack.counts

    def comb2(values: np.ndarray) -> np.ndarray:  # int64: a stack's N^2 fits
        return (np.einsum("ij,ij->i", values, values) - values.sum(axis=1)) // 2

    tp, same_true, same_pred = comb2(counts), comb2(stack.class_sizes), \
        comb2(stack.cluster_sizes)
    pairs = n * (n - 1) // 2
    kind = np.float64 if int(pairs.max(initial=0)) < _FLOAT_EXACT else object
    tp, same_true, same_pred, pairs = (x.astype(kind) for x in
                                       (tp, same_true, same_pred, pairs))
    fn, fp = same_true - tp, same_pred - tp
    arrays: tuple[Any, ...] = (tp, fn, fp, pairs - tp - fn - fp)  # one count per table
    return PairCounts(*arrays)


_FLOAT_EXACT = 2**53  # integers below this are exact in float64


def _pairs(table: Contingency) -> PairCounts:
    return table.cached("pair_counts", _compute_pairs)


def copy_pairs(sample_counts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Expected pairs of an item with its own copies in each cell of a bootstrap
    replicate: C(n*_ij, 2) / n_ij, given the replicate's cell counts n*_ij (``counts``)
    drawn with replacement from the sample's n_ij items of the cell (``sample_counts``).

    A replicate's n*_ij draws of a cell are uniform over its n_ij items, so
    E[pairs of copies | n*] = C(n*_ij, 2) / n_ij; copies are always in the same cell, so
    they inflate the pairs together in both labellings (TP) and nothing else. Pair counts
    are U-statistics (pairs of distinct items), unbiased in the sample; a replicate's
    C(n*, 2) is not: it overstates TP by ~N/2 (a relative bias of ~1/cell size, far above
    the sampling error at large N). Leaving these pairs out makes each replicate's pair
    counts unbiased for the sample's, up to the factor (N - 1)/N common to all four
    (Arcones & Gine, "On the bootstrap of U and V statistics", Ann. Statist. 20, 1992).
    Doubles: a replicate's statistic, far from needing more."""
    c = np.asarray(counts, dtype=np.float64)
    return c * (c - 1.0) / 2.0 / np.asarray(sample_counts, dtype=np.float64)


def leave_out_copies(replicate: Contingency | TableStack, copies: Any) -> None:
    """Make the pair-counting scores of the bootstrap replicate ``replicate`` count pairs
    of distinct items: its TP (and so the total) less ``copies``, the expected pairs of an
    item with its own copies (the sum of :func:`copy_pairs`), as an exact Fraction of that
    double. Scores that count pairs sharing an item (MARI) and the permutation model's
    moments keep every pair of the counts. A stack of replicates takes an array of
    ``copies``, one per table (float64 pair counts less float64 copies: a replicate's
    score needs no last-ulp accuracy; exact Fractions where its pair counts are exact
    integers beyond float64)."""
    every = _compute_pairs(replicate)
    replicate.cached("pair_counts:all", lambda t: every)
    if is_stack(replicate):
        copies = np.asarray(copies, dtype=np.float64)
        tp: Any = every.tp  # an array: one count per table
        less = copies if tp.dtype.kind == "f" else \
            np.array([Fraction(c) for c in copies.tolist()], dtype=object)
        replicate.cached("pair_counts", lambda t: every._replace(tp=tp - less))
        return
    replicate.cached("pair_counts", lambda t: every._replace(tp=every.tp - Fraction(copies)))


def pair_counts(labels_true: Any, labels_pred: Any = None, *,
                sample_weight: Any = None) -> PairCounts:
    """Counts of unordered item pairs by agreement: TP, FN, FP, TN.

    TP: together in both labellings; FN: together in the truth, apart in the prediction;
    FP: apart in the truth, together in the prediction; TN: apart in both. They sum to
    C(N, 2). Computed in O(nnz) from the contingency table, as exact Python integers.
    On a table of real-valued masses (real ``sample_weight``) each is the sum of
    C(n, 2) = n (n - 1) / 2 over the real masses, an exact :class:`~fractions.Fraction`.
    ``sample_weight``: one non-negative weight per item (integer: repetitions of it), as
    in every score.

    Examples
    --------
    >>> pair_counts([0, 0, 1, 1], [0, 0, 0, 1])
    PairCounts(tp=1, fn=1, fp=2, tn=2)

    References
    ----------
    Hubert & Arabie, "Comparing partitions", J. Classification 2 (1985).
    """
    return _pairs(as_contingency(labels_true, labels_pred, sample_weight))


def pair_confusion_matrix(labels_true: Any, labels_pred: Any = None, *,
                          sample_weight: Any = None) -> np.ndarray:
    """scikit-learn's pair confusion matrix: ``[[TN, FP], [FN, TP]]`` over *ordered* pairs.

    Each entry is twice the unordered count of :func:`pair_counts`; the total is N(N-1).
    Returned as int64 like scikit-learn, or as an object array of exact Python ints when a
    count exceeds int64 (float64 for real-valued masses, from real ``sample_weight``).

    Examples
    --------
    >>> pair_confusion_matrix([0, 0, 1, 1], [1, 1, 0, 0]).tolist()
    [[8, 0], [0, 4]]
    """
    tp, fn, fp, tn = pair_counts(labels_true, labels_pred, sample_weight=sample_weight)
    cells = [[2 * tn, 2 * fp], [2 * fn, 2 * tp]]
    if any(isinstance(x, Fraction) for x in (tp, fn, fp, tn)):
        return np.array([[float(x) for x in row] for row in cells], dtype=np.float64)
    dtype = np.int64 if max(map(max, cells)) < 2**63 else object
    return np.array(cells, dtype=dtype)
