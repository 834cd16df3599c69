"""B-cubed precision, recall and F (Bagga & Baldwin 1998), in two weightings.

For an item x in true class Y(x) and predicted cluster C(x), its precision is
|Y(x) ∩ C(x)| / |C(x)| and its recall |Y(x) ∩ C(x)| / |Y(x)|. All items of cell (i, j)
share them: n_ij / b_j and n_ij / a_i. The scores average these per-item values:

- *record-weighted* (the original B-cubed, Amigó et al. 2009): every item counts once,
  P = sum_ij n_ij^2 / b_j / N and R = sum_ij n_ij^2 / a_i / N;
- *class-weighted* (er-evaluation's ``b_cubed_precision`` / ``b_cubed_recall``): average
  within each true class first, then over the K true classes with equal weight,
  P = (1/K) sum_i (1/a_i) sum_j n_ij^2 / b_j and R = (1/K) sum_i sum_j n_ij^2 / a_i^2.

F is the harmonic mean 2PR / (P + R) of the same weighting. Everything is O(nnz) and
accumulated with ``math.fsum``, so identical partitions score exactly 1.0.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..table import Contingency
from ._cells import (
    accurate_sum,
    class_size_cells,
    cluster_size_cells,
    counts_float,
    exact_ints,
    quotients,
    row_sum_squares,
    row_sums,
    square_sums,
    total,
)
from ._elementwise import minimum, ratio
from .spec import MATCH, Choice, MetricInfo, ScoreFunction, deprecated_alias, score

__all__ = [
    "ENTRIES", "bcubed_precision_score", "bcubed_recall_score", "bcubed_f_score",
    # deprecated names
    "bcubed_precision", "bcubed_recall", "bcubed_f", "bcubed_precision_class_weighted",
    "bcubed_recall_class_weighted", "bcubed_f_class_weighted",
]

_REAL_MASSES = ("each item's precision and recall averaged with its weight: per-item "
                "overlaps are summed weights")


def _harmonic(p: float, r: float) -> float:
    return ratio(2.0 * p * r, p + r, 0.0)


def _record(table: Contingency) -> tuple[float, float]:
    def compute(t: Contingency) -> tuple[float, float]:
        if t.real_valued:  # sum_ij n_ij (n_ij / b_j) / N: a share before any product
            n, total_mass = t.counts, accurate_sum(t.counts)
            return (min(accurate_sum(n * (n / cluster_size_cells(t))) / total_mass, 1.0),
                    min(accurate_sum(n * (n / class_size_cells(t))) / total_mass, 1.0))
        # sum_ij n_ij^2 / b_j = sum_j (sum_i n_ij^2) / b_j: the inner sums are exact
        # integers, so fsum only runs over the clusters (and classes), not over every cell
        by_class, by_cluster = square_sums(t)
        p = total(t, quotients(t, by_cluster, exact_ints(t, t.cluster_sizes))) / t.n_samples
        r = total(t, quotients(t, by_class, exact_ints(t, t.class_sizes))) / t.n_samples
        return minimum(p, 1.0), minimum(r, 1.0)
    return table.cached("bcubed:record", compute)


def _class_weighted(table: Contingency) -> tuple[float, float]:
    def compute(t: Contingency) -> tuple[float, float]:
        if t.real_valued:  # (1/K) sum_ij (n_ij / a_i)(n_ij / b_j), (n_ij / a_i)^2: shares
            # before products (two masses of 1e-170 multiply to 0), one sum over the cells
            recall = t.counts / class_size_cells(t)
            precision = t.counts / cluster_size_cells(t)
            return (min(accurate_sum(recall * precision) / t.n_classes, 1.0),
                    min(accurate_sum(recall * recall) / t.n_classes, 1.0))
        n = counts_float(t)
        p_item = quotients(t, n * n, cluster_size_cells(t))
        # per-class sums first (cells are sorted by row), then the equal-weight class mean;
        # recall's inner sums sum_j n_ij^2 are exact integers
        a = t.class_sizes.astype(np.float64)
        p = total(t, quotients(t, row_sums(t, p_item), a)) / t.n_classes
        a2 = exact_ints(t, t.class_sizes) ** 2
        r = total(t, quotients(t, row_sum_squares(t), a2)) / t.n_classes
        return minimum(p, 1.0), minimum(r, 1.0)
    return table.cached("bcubed:class", compute)


_WEIGHTING = Choice(("record", "class"), "How the per-item values are averaged: over "
                    "items (record, Amigó et al.), or within each true class first and then "
                    "over classes (class, er-evaluation).")


def _pr(table: Contingency, weighting: str) -> tuple[float, float]:
    return _record(table) if weighting == "record" else _class_weighted(table)


@score(options={"weighting": _WEIGHTING}, real=_REAL_MASSES)
def bcubed_precision_score(table: Contingency, *, weighting: str = "record") -> float:
    """B-cubed precision: mean over items of |Y(x) ∩ C(x)| / |C(x)|.

    Record-weighted (default): P = sum_ij n_ij^2 / b_j / N, every item counts once.
    Class-weighted: P = (1/K) sum_i (1/a_i) sum_j n_ij^2 / b_j, small classes weigh as
    much as large ones (er-evaluation's ``b_cubed_precision``). In (0, 1]; 1.0 when every
    cluster is pure (all-singleton predictions too). Record-weighted,
    ``bcubed_precision_score(t, p) == bcubed_recall_score(p, t)``.

    Examples
    --------
    >>> round(bcubed_precision_score([0, 0, 1, 1], [0, 0, 0, 1]), 12)
    0.666666666667
    >>> ref = ["c1", "c1", "c1", "c2", "c2", "c3", "c3", "c4"]  # er-evaluation's example
    >>> round(bcubed_precision_score(ref, [1, 1, 2, 3, 2, 4, 4, 4], weighting="class"), 10)
    0.6458333333

    References
    ----------
    Bagga & Baldwin (1998); Amigó, Gonzalo, Artiles & Verdejo, Inf. Retrieval 12 (2009);
    Binette et al., er-evaluation, JOSS 8 (2023).
    """
    return _pr(table, weighting)[0]


@score(options={"weighting": _WEIGHTING}, real=_REAL_MASSES)
def bcubed_recall_score(table: Contingency, *, weighting: str = "record") -> float:
    """B-cubed recall: mean over items of |Y(x) ∩ C(x)| / |Y(x)|.

    Record-weighted (default): R = sum_ij n_ij^2 / a_i / N. Class-weighted:
    R = (1/K) sum_i sum_j n_ij^2 / a_i^2 (er-evaluation's ``b_cubed_recall``). In (0, 1];
    1.0 when every class lies in one cluster.

    Examples
    --------
    >>> bcubed_recall_score([0, 0, 1, 1], [0, 0, 0, 1])
    0.75
    >>> ref = ["c1", "c1", "c1", "c2", "c2", "c3", "c3", "c4"]
    >>> round(bcubed_recall_score(ref, [1, 1, 2, 3, 2, 4, 4, 4], weighting="class"), 10)
    0.7638888889

    References
    ----------
    Bagga & Baldwin (1998); Amigó et al., Inf. Retrieval 12 (2009); Binette et al.,
    er-evaluation, JOSS 8 (2023).
    """
    return _pr(table, weighting)[1]


@score(options={"weighting": _WEIGHTING}, real=_REAL_MASSES)
def bcubed_f_score(table: Contingency, *, weighting: str = "record") -> float:
    """B-cubed F1: harmonic mean 2PR / (P + R) of :func:`bcubed_precision_score` and
    :func:`bcubed_recall_score` under the same weighting. In (0, 1], 1.0 exactly for
    identical partitions; symmetric record-weighted, not class-weighted (er-evaluation's
    ``b_cubed_f``).

    Examples
    --------
    >>> round(bcubed_f_score([0, 0, 1, 1], [0, 0, 0, 1]), 6)
    0.705882
    >>> bcubed_f_score([0, 0, 1, 1], [1, 1, 0, 0], weighting="class")
    1.0

    References
    ----------
    Amigó et al., Inf. Retrieval 12 (2009); Binette et al., er-evaluation, JOSS 8 (2023).
    """
    return _harmonic(*_pr(table, weighting))


bcubed_precision = deprecated_alias("bcubed_precision", bcubed_precision_score)
bcubed_recall = deprecated_alias("bcubed_recall", bcubed_recall_score)
bcubed_f = deprecated_alias("bcubed_f", bcubed_f_score)
bcubed_precision_class_weighted = deprecated_alias(
    "bcubed_precision_class_weighted", bcubed_precision_score, weighting="class")
bcubed_recall_class_weighted = deprecated_alias(
    "bcubed_recall_class_weighted", bcubed_recall_score, weighting="class")
bcubed_f_class_weighted = deprecated_alias("bcubed_f_class_weighted", bcubed_f_score,
                                           weighting="class")

_AMIGO = "Bagga & Baldwin (1998); Amigó et al., Inf. Retrieval 12 (2009)"
_ERE = "Binette et al., er-evaluation, JOSS 8 (2023)"


def _entry(key: str, name: str, func: ScoreFunction[Any], weighting: str,
           symmetric: bool) -> MetricInfo:
    return MetricInfo(key=key, name=name, func=func, family=MATCH, lower=0.0, upper=1.0,
                      better="higher", symmetric=symmetric, adjusted=False,
                      reference=_AMIGO if weighting == "record" else _ERE,
                      options={"weighting": weighting})


ENTRIES = [
    _entry("bcubed_precision", "B-cubed precision", bcubed_precision_score, "record", False),
    _entry("bcubed_recall", "B-cubed recall", bcubed_recall_score, "record", False),
    _entry("bcubed_f", "B-cubed F1", bcubed_f_score, "record", True),
    _entry("bcubed_precision_class_weighted", "B-cubed precision (class-weighted)",
           bcubed_precision_score, "class", False),
    _entry("bcubed_recall_class_weighted", "B-cubed recall (class-weighted)",
           bcubed_recall_score, "class", False),
    _entry("bcubed_f_class_weighted", "B-cubed F1 (class-weighted)", bcubed_f_score,
           "class", False),
]
