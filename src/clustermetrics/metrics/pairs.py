"""Pair-counting scores: everything derived from the 2x2 table of item pairs.

Over the C(N, 2) unordered pairs of items, a pair is *together* in a labelling when both
items share a label. With n_ij the table cells, a_i the class sizes and b_j the cluster sizes:

    TP = sum_ij C(n_ij, 2)            together in truth and in prediction   (yy)
    FN = sum_i C(a_i, 2) - TP         together in truth only                (yn)
    FP = sum_j C(b_j, 2) - TP         together in prediction only           (ny)
    TN = C(N, 2) - TP - FN - FP       apart in both                         (nn)

All four are computed in O(nnz) from the table as exact Python integers, so no score here
overflows at any N (scikit-learn's int64 products do, from N ~ 3e9).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, NamedTuple

import numpy as np

from ..table import Contingency, as_contingency

__all__ = [
    "PairCounts",
    "UndefinedMetricError",
    "pair_counts",
    "pair_confusion_matrix",
    "rand_score",
    "adjusted_rand_score",
    "fowlkes_mallows_score",
    "pair_precision_score",
    "pair_recall_score",
    "pair_f_score",
    "pair_jaccard_score",
]

# Below this N every n*(n-1) fits in int64, and so does every sum of C(n, 2) (<= C(N, 2)).
_INT64_SAFE_N = 3_000_000_000


class UndefinedMetricError(ValueError, ZeroDivisionError):
    """A score's denominator is zero and ``force_finite=False`` asked not to replace it."""


class PairCounts(NamedTuple):
    """Unordered item pairs by agreement (exact ints): see :func:`pair_counts`."""

    tp: int
    fn: int
    fp: int
    tn: int


def _sum_comb2(values: np.ndarray, n_total: int) -> int:
    if n_total >= _INT64_SAFE_N:  # sum v^2 may pass 2**63: Python ints (object arrays)
        values = values.astype(object)
    # sum C(v, 2) = (sum v^2 - sum v) / 2; one dot product, no temporary arrays
    return (int(np.dot(values, values)) - int(values.sum())) // 2


def _compute_pairs(table: Contingency) -> PairCounts:
    n = table.n_samples
    tp = _sum_comb2(table.counts, n)
    same_true = _sum_comb2(table.class_sizes, n)
    same_pred = _sum_comb2(table.cluster_sizes, n)
    fn, fp = same_true - tp, same_pred - tp
    return PairCounts(tp, fn, fp, n * (n - 1) // 2 - tp - fn - fp)


def _pairs(table: Contingency) -> PairCounts:
    return table.cached("pair_counts", _compute_pairs)


def pair_counts(labels_true: Any, labels_pred: Any = None) -> PairCounts:
    """Counts of unordered item pairs by agreement: TP, FN, FP, TN.

    TP: together in both labellings; FN: together in the truth, apart in the prediction;
    FP: apart in the truth, together in the prediction; TN: apart in both. They sum to
    C(N, 2). Computed in O(nnz) from the contingency table, as exact Python integers.

    Examples
    --------
    >>> pair_counts([0, 0, 1, 1], [0, 0, 0, 1])
    PairCounts(tp=1, fn=1, fp=2, tn=2)

    References
    ----------
    Hubert & Arabie, "Comparing partitions", J. Classification 2 (1985).
    """
    return _pairs(as_contingency(labels_true, labels_pred))


def pair_confusion_matrix(labels_true: Any, labels_pred: Any = None) -> np.ndarray:
    """scikit-learn's pair confusion matrix: ``[[TN, FP], [FN, TP]]`` over *ordered* pairs.

    Each entry is twice the unordered count of :func:`pair_counts`; the total is N(N-1).
    Returned as int64 like scikit-learn, or as an object array of exact Python ints when a
    count exceeds int64.

    Examples
    --------
    >>> pair_confusion_matrix([0, 0, 1, 1], [1, 1, 0, 0]).tolist()
    [[8, 0], [0, 4]]
    """
    tp, fn, fp, tn = pair_counts(labels_true, labels_pred)
    cells = [[2 * tn, 2 * fp], [2 * fn, 2 * tp]]
    dtype = np.int64 if max(map(max, cells)) < 2**63 else object
    return np.array(cells, dtype=dtype)


def rand_score(labels_true: Any, labels_pred: Any = None) -> float:
    """Rand index: share of item pairs on which the two labellings agree.

    RI = (TP + TN) / C(N, 2), in [0, 1], 1 for identical partitions. With fewer than two
    items there are no pairs and the score is 1.0 (as scikit-learn).

    Examples
    --------
    >>> rand_score([0, 0, 1, 1], [1, 1, 0, 0])
    1.0

    References
    ----------
    Rand, "Objective criteria for the evaluation of clustering methods", JASA 66 (1971).
    """
    tp, fn, fp, tn = pair_counts(labels_true, labels_pred)
    agree, total = tp + tn, tp + fn + fp + tn
    if agree == total:
        return 1.0
    return agree / total


def adjusted_rand_score(labels_true: Any, labels_pred: Any = None) -> float:
    """Adjusted Rand index (Hubert & Arabie): the Rand index corrected for chance.

    ARI = (Index - Expected) / (Max - Expected) with Index = TP, Expected =
    (TP+FN)(TP+FP)/C(N,2) and Max = ((TP+FN) + (TP+FP))/2; equivalently
    2(TP*TN - FN*FP) / ((TP+FN)(FN+TN) + (TP+FP)(FP+TN)). Range [-0.5, 1]; about 0 for
    independent labellings, 1.0 for identical partitions. When no pair is split or joined
    differently (FN = FP = 0) the score is 1.0, as in scikit-learn. Symmetric. Computed
    exactly in integers and divided once.

    Examples
    --------
    >>> round(adjusted_rand_score([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 2, 2]), 6)
    0.242424

    References
    ----------
    Hubert & Arabie, "Comparing partitions", J. Classification 2 (1985).
    """
    tp, fn, fp, tn = pair_counts(labels_true, labels_pred)
    if fn == 0 and fp == 0:
        return 1.0
    return 2 * (tp * tn - fn * fp) / ((tp + fn) * (fn + tn) + (tp + fp) * (fp + tn))


def fowlkes_mallows_score(labels_true: Any, labels_pred: Any = None) -> float:
    """Fowlkes-Mallows index: geometric mean of pair precision and pair recall.

    FMI = TP / sqrt((TP + FP)(TP + FN)), in [0, 1]. 0.0 when no pair is together in both.
    Deviation from scikit-learn: two all-singleton labellings (no pair together in either,
    so every pair agrees) score 1.0; scikit-learn returns 0.0 there (a known bug).

    Examples
    --------
    >>> round(fowlkes_mallows_score([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 2, 2]), 6)
    0.471405

    References
    ----------
    Fowlkes & Mallows, "A method for comparing two hierarchical clusterings", JASA 78 (1983).
    """
    tp, fn, fp, _ = pair_counts(labels_true, labels_pred)
    if tp == 0:
        return 1.0 if fn == 0 and fp == 0 else 0.0
    return math.sqrt(tp / (tp + fp)) * math.sqrt(tp / (tp + fn))


def _ratio(num: int, den: int, force_finite: bool, finite_value: float, what: str) -> float:
    if den == 0:
        if force_finite:
            return float(finite_value)
        raise UndefinedMetricError(f"{what} is undefined: its denominator is zero "
                                   "(set force_finite=True to return finite_value)")
    return num / den


def pair_precision_score(labels_true: Any, labels_pred: Any = None, *, force_finite: bool = True,
                         finite_value: float = 1.0) -> float:
    """Pair precision (permetrics PrS): share of pairs joined by the prediction that are right.

    PrS = yy / (yy + ny) = TP / (TP + FP), in [0, 1]. The denominator is zero when the
    prediction is all singletons; then ``finite_value`` (1.0: nothing was wrongly joined) is
    returned, or with ``force_finite=False`` an :class:`UndefinedMetricError` is raised.
    ``pair_precision_score(t, p) == pair_recall_score(p, t)``.

    Examples
    --------
    >>> pair_precision_score([0, 0, 1, 1], [0, 0, 0, 0])
    0.3333333333333333

    References
    ----------
    Desgraupes, "Clustering indices", Université Paris Ouest (2013).
    """
    tp, _, fp, _ = pair_counts(labels_true, labels_pred)
    return _ratio(tp, tp + fp, force_finite, finite_value, "pair precision")


def pair_recall_score(labels_true: Any, labels_pred: Any = None, *, force_finite: bool = True,
                      finite_value: float = 1.0) -> float:
    """Pair recall (permetrics ReS): share of truly co-clustered pairs the prediction keeps.

    ReS = yy / (yy + yn) = TP / (TP + FN), in [0, 1]. The denominator is zero when the truth
    is all singletons; then ``finite_value`` (1.0: no true pair was missed) is returned, or
    with ``force_finite=False`` an :class:`UndefinedMetricError` is raised.

    Examples
    --------
    >>> pair_recall_score([0, 0, 1, 1, 2, 2], [0, 0, 1, 1, 1, 2])
    0.6666666666666666

    References
    ----------
    Desgraupes, "Clustering indices", Université Paris Ouest (2013).
    """
    tp, fn, _, _ = pair_counts(labels_true, labels_pred)
    return _ratio(tp, tp + fn, force_finite, finite_value, "pair recall")


def pair_f_score(labels_true: Any, labels_pred: Any = None, *, beta: float = 1.0,
                 force_finite: bool = True, finite_value: float = 1.0) -> float:
    """Pair F-beta score: weighted harmonic mean of pair precision and pair recall.

    F = (1 + b^2) TP / ((1 + b^2) TP + b^2 FN + FP), in [0, 1]; ``beta`` > 1 weighs recall
    more. Undefined only when no pair is together in either labelling (both all singletons:
    perfect agreement), then ``finite_value`` or :class:`UndefinedMetricError`.

    Examples
    --------
    >>> pair_f_score([0, 0, 1, 1], [0, 0, 0, 1])
    0.4

    References
    ----------
    Manning, Raghavan & Schütze, "Introduction to Information Retrieval" (2008), 16.3.
    """
    if not beta >= 0 or math.isinf(beta):
        raise ValueError(f"beta must be a finite number >= 0, got {beta!r}")
    tp, fn, fp, _ = pair_counts(labels_true, labels_pred)
    b2 = Fraction(beta) ** 2  # exact: the quotient below is rounded once
    num, den = (1 + b2) * tp, (1 + b2) * tp + b2 * fn + fp
    if den == 0:
        return _ratio(0, 0, force_finite, finite_value, "pair F-score")
    return float(num / den)


def pair_jaccard_score(labels_true: Any, labels_pred: Any = None, *, force_finite: bool = True,
                       finite_value: float = 1.0) -> float:
    """Pair Jaccard index: TP / (TP + FN + FP), in [0, 1].

    Undefined only when both labellings are all singletons (no pair together anywhere: they
    agree perfectly), then ``finite_value`` or :class:`UndefinedMetricError`.

    Examples
    --------
    >>> pair_jaccard_score([0, 0, 1, 1], [0, 0, 0, 1])
    0.25

    References
    ----------
    Jaccard (1912); for partitions see Ben-Hur, Elisseeff & Guyon, PSB (2002).
    """
    tp, fn, fp, _ = pair_counts(labels_true, labels_pred)
    return _ratio(tp, tp + fn + fp, force_finite, finite_value, "pair Jaccard index")
