"""Marxer & Purwins' F-measure for clusterings with an undetermined number of clusters.

With n_ck the items of class c in cluster k, n_c the class sizes, b_k the cluster sizes and
N the item count, equations (1)-(6) of the report read

    P(c, k) = 1 - sum_{i != c} n_ik / sum_{i != c} n_i = 1 - (b_k - n_ck) / (N - n_c)
              (1 when there is a single class)                                        (1)
    R(c, k) = (n_ck - 1) / (n_c - 1)      (1 when n_c = 1)                            (2)
    P(c) = sum_k n_ck P(c, k) / n_c,  R(c) = sum_k n_ck R(c, k) / n_c                 (3, 4)
    P = sum_c n_c P(c) / N,           R = sum_c n_c R(c) / N                          (5, 6)

so P and R are item-weighted sums over the non-zero cells, O(nnz). F = 2PR / (P + R).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ..table import Contingency, as_contingency
from ._cells import (
    accurate_sum,
    exact_ints,
    quotients,
    row_sum_count_size,
    row_sum_squares,
    row_sums,
    scaled_masses,
    scaled_total,
    total,
)
from ._elementwise import is_many, ratio, select, undefined_where
from .spec import MATCH, MetricInfo, ScoreFunction, deprecated_alias, score

__all__ = [
    "ENTRIES", "MarxerPurwins", "marxer_purwins", "marxer_purwins_precision_score",
    "marxer_purwins_recall_score", "marxer_purwins_f_score",
    # deprecated names
    "marxer_purwins_precision", "marxer_purwins_recall", "marxer_purwins_f",
]

_REAL_MASSES = "the real masses as overlaps (precision is a ratio of summed weights)"
_OTHERS = ("its recall counts the other items of a class (n - 1), which has no meaning "
           "for a class weighing less than one item")


class MarxerPurwins(NamedTuple):
    """Precision, recall and F-measure of :func:`marxer_purwins`."""

    precision: float
    recall: float
    f: float


def _compute(table: Contingency) -> MarxerPurwins:
    n = table.n_samples
    # Per class c the sums over its cells are exact integers:
    #   P: sum_k n_ck P(c, k) = n_c - S_c / (N - n_c),  S_c = sum_k n_ck (b_k - n_ck)
    #   R: sum_k n_ck R(c, k) = T_c / (n_c - 1),        T_c = sum_k n_ck (n_ck - 1)
    # so only the class terms are floats, summed exactly with fsum.
    n_c = exact_ints(table, table.class_sizes)
    squares = row_sum_squares(table)  # shared with B-cubed and MARI
    several = table.n_classes > 1  # then N - n_c > 0 for every class
    if table.real_valued:
        precision = _real_precision(table) if several else 1.0
    elif is_many(several) or several:
        s_c = row_sum_count_size(table) - squares
        others = np.expand_dims(n, -1) - n_c  # N - n_c per class (and table)
        precision = select(several, total(table, n_c - quotients(table, s_c, others)) / n,
                           1.0)
    else:
        precision = 1.0
    t_c = squares - n_c
    big = n_c > 1
    recall_terms = np.where(big, t_c / np.maximum(n_c - 1, 1), n_c)
    recall = total(table, recall_terms) / n
    # in [0, 1], rounding aside: a class's share n_c - S_c / (N - n_c) cancels to a few
    # ulps of n_c where it is nearly 0 (tables of ~10^9 items)
    precision, recall = _unit(precision), _unit(recall)
    return MarxerPurwins(precision, recall,
                         _unit(ratio(2.0 * precision * recall, precision + recall, 0.0)))


def _unit(value: Any) -> Any:
    """``value`` (a float, or an array of a stack's tables) kept in [0, 1]."""
    out = np.clip(value, 0.0, 1.0)
    return float(out) if np.ndim(out) == 0 else out


def _real_precision(table: Contingency) -> float:
    """P of a real-valued table with several classes, from the exact integers of its
    masses: per class, n_c - S_c / (N - n_c) = (n_c (N - n_c) - S_c) / (N - n_c) with
    a numerator sum_k n_ck (N - n_c - b_k + n_ck) >= 0, so each class adds one correctly
    rounded share and nothing cancels (in floats N - n_c may round to 0)."""
    cells, by_row, by_col, _ = scaled_masses(table)
    n = scaled_total(table)
    others = n - by_row  # > 0: another class holds mass
    kept = row_sums(table, cells * (others[table.rows] - by_col[table.cols] + cells))
    return min(accurate_sum(quotients(table, kept, others * n)), 1.0)


def _marxer_purwins(table: Contingency) -> MarxerPurwins:
    return table.cached("marxer_purwins", _compute)


def marxer_purwins(labels_true: Any, labels_pred: Any = None, *,
                   sample_weight: Any = None) -> MarxerPurwins:
    """Marxer & Purwins' precision, recall and F-measure, equations (1)-(6).

    Precision of class c in cluster k is one minus the share of the *other* classes' items
    that fell into k; recall is the share of the other items of c that are with an item of
    c in k. Both are averaged over items, F is their harmonic mean (0 when P + R = 0).
    All three are in [0, 1] and equal 1 for identical partitions. Unlike the plain cluster
    F-measure, both trivial clusterings score F = 0: a single cluster has P = 0 when there
    are at least two classes, and all-singleton clusters have R = 0 when every class has at
    least two items. Not symmetric. O(nnz).

    Parameters
    ----------
    labels_true : array-like of shape (n_samples,) or Contingency
        True class labels, or a contingency table (then ``labels_pred`` must be None).
    labels_pred : array-like of shape (n_samples,), optional
        Predicted cluster labels.
    sample_weight : array-like of shape (n_samples,) of non-negative numbers, optional
        How much each item counts (integer weights: repetitions), as in
        :func:`marxer_purwins_f_score`.

    Returns
    -------
    result : MarxerPurwins
        ``(precision, recall, f)`` as Python floats.

    Examples
    --------
    >>> marxer_purwins([0, 0, 1, 1], [0, 0, 0, 0])
    MarxerPurwins(precision=0.0, recall=1.0, f=0.0)
    >>> marxer_purwins([0, 0, 1, 1], [0, 1, 2, 3])
    MarxerPurwins(precision=1.0, recall=0.0, f=0.0)
    >>> marxer_purwins([0, 0, 0, 1, 1, 1], [0, 0, 0, 1, 1, 1]).f
    1.0

    References
    ----------
    R. Marxer and H. Purwins, "An F-measure for evaluation of unsupervised clustering with
    non-determined number of clusters", technical report, Universitat Pompeu Fabra (2008).
    """
    return _marxer_purwins(as_contingency(labels_true, labels_pred, sample_weight))


@score(zero_division=True, real=_REAL_MASSES)
def marxer_purwins_precision_score(table: Contingency) -> float:
    """Marxer & Purwins precision P, equations (1), (3), (5); see :func:`marxer_purwins`.

    P = sum_ck n_ck (1 - (b_k - n_ck) / (N - n_c)) / N (1 with a single class), in [0, 1],
    1 when no cluster mixes classes, 0 for a single cluster over several classes.

    Parameters
    ----------
    labels_true : array-like of shape (n_samples,) or Contingency
        True class labels, or a contingency table (then ``labels_pred`` must be None).
    labels_pred : array-like of shape (n_samples,), optional
        Predicted cluster labels.

    Returns
    -------
    precision : float

    Examples
    --------
    >>> marxer_purwins_precision_score([0, 0, 1, 1], [0, 0, 1, 2])
    1.0

    References
    ----------
    R. Marxer and H. Purwins, technical report, Universitat Pompeu Fabra (2008).
    """
    undefined_where(table, table.n_classes == 1, 1.0,
                    "Marxer-Purwins precision is undefined (0/0): a single class has no "
                    "other classes' items to keep out")
    return _marxer_purwins(table).precision


@score(zero_division=False, needs=_OTHERS)
def marxer_purwins_recall_score(table: Contingency) -> float:
    """Marxer & Purwins recall R, equations (2), (4), (6); see :func:`marxer_purwins`.

    R = sum_ck n_ck r_ck / N with r_ck = (n_ck - 1) / (n_c - 1) (1 when n_c = 1), in [0, 1],
    1 when no class is split, 0 for all-singleton clusters when every class has >= 2 items.

    Parameters
    ----------
    labels_true : array-like of shape (n_samples,) or Contingency
        True class labels, or a contingency table (then ``labels_pred`` must be None).
    labels_pred : array-like of shape (n_samples,), optional
        Predicted cluster labels.

    Returns
    -------
    recall : float

    Examples
    --------
    >>> marxer_purwins_recall_score([0, 0, 1, 1], [0, 0, 1, 2])
    0.5

    References
    ----------
    R. Marxer and H. Purwins, technical report, Universitat Pompeu Fabra (2008).
    """
    return _marxer_purwins(table).recall


@score(zero_division=True, needs=_OTHERS)
def marxer_purwins_f_score(table: Contingency) -> float:
    """Marxer & Purwins F-measure F = 2PR / (P + R) (0 when P + R = 0).

    In [0, 1], 1 for identical partitions, 0 for both trivial clusterings (see
    :func:`marxer_purwins`). Not symmetric.

    Parameters
    ----------
    labels_true : array-like of shape (n_samples,) or Contingency
        True class labels, or a contingency table (then ``labels_pred`` must be None).
    labels_pred : array-like of shape (n_samples,), optional
        Predicted cluster labels.

    Returns
    -------
    f : float

    Examples
    --------
    >>> round(marxer_purwins_f_score([0, 0, 1, 1], [0, 0, 1, 2]), 12)
    0.666666666667

    References
    ----------
    R. Marxer and H. Purwins, technical report, Universitat Pompeu Fabra (2008).
    """
    result = _marxer_purwins(table)
    # a single class: its precision is the 0/0 convention, and so is F
    undefined_where(table, table.n_classes == 1, result.f,
                    "the Marxer-Purwins F-measure is undefined (0/0): a single class has no "
                    "other classes' items to keep out")
    undefined_where(table, result.precision + result.recall == 0, 0.0,
                    "the Marxer-Purwins F-measure is undefined (0/0): precision and recall "
                    "are 0")
    return result.f


marxer_purwins_precision = deprecated_alias("marxer_purwins_precision",
                                            marxer_purwins_precision_score)
marxer_purwins_recall = deprecated_alias("marxer_purwins_recall", marxer_purwins_recall_score)
marxer_purwins_f = deprecated_alias("marxer_purwins_f", marxer_purwins_f_score)

_MARXER = "Marxer & Purwins, An F-measure for unsupervised clustering (2008)"


def _entry(key: str, name: str, func: ScoreFunction[Any]) -> MetricInfo:
    return MetricInfo(key=key, name=name, func=func, family=MATCH, lower=0.0, upper=1.0,
                      better="higher", symmetric=False, adjusted=False, reference=_MARXER)


ENTRIES = [
    _entry("mp_precision", "Marxer-Purwins precision", marxer_purwins_precision_score),
    _entry("mp_recall", "Marxer-Purwins recall", marxer_purwins_recall_score),
    _entry("mp_f", "Marxer-Purwins F-measure", marxer_purwins_f_score),
]
