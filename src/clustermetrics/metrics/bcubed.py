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

import math
from typing import Any

import numpy as np

from ..table import Contingency, as_contingency
from ._cells import (
    cluster_size_cells,
    counts_float,
    exact_ints,
    row_sum_squares,
    row_sums,
    square_sums,
)

__all__ = [
    "bcubed_precision",
    "bcubed_recall",
    "bcubed_f",
    "bcubed_precision_class_weighted",
    "bcubed_recall_class_weighted",
    "bcubed_f_class_weighted",
]


def _harmonic(p: float, r: float) -> float:
    return 2.0 * p * r / (p + r) if p + r > 0.0 else 0.0


def _record(table: Contingency) -> tuple[float, float]:
    def compute(t: Contingency) -> tuple[float, float]:
        # sum_ij n_ij^2 / b_j = sum_j (sum_i n_ij^2) / b_j: the inner sums are exact
        # integers, so fsum only runs over the clusters (and classes), not over every cell
        by_class, by_cluster = square_sums(t)
        p = math.fsum((by_cluster / exact_ints(t, t.cluster_sizes)).tolist()) / t.n_samples
        r = math.fsum((by_class / exact_ints(t, t.class_sizes)).tolist()) / t.n_samples
        return min(p, 1.0), min(r, 1.0)
    return table.cached("bcubed:record", compute)


def _class_weighted(table: Contingency) -> tuple[float, float]:
    def compute(t: Contingency) -> tuple[float, float]:
        n = counts_float(t)
        p_item = n * n
        p_item /= cluster_size_cells(t)
        # per-class sums first (cells are sorted by row), then the equal-weight class mean;
        # recall's inner sums sum_j n_ij^2 are exact integers
        a = t.class_sizes.astype(np.float64)
        p = math.fsum((row_sums(t, p_item) / a).tolist()) / t.n_classes
        a2 = exact_ints(t, t.class_sizes) ** 2
        r = math.fsum((row_sum_squares(t) / a2).tolist()) / t.n_classes
        return min(p, 1.0), min(r, 1.0)
    return table.cached("bcubed:class", compute)


def bcubed_precision(labels_true: Any, labels_pred: Any = None) -> float:
    """Record-weighted B-cubed precision: mean over items of |Y(x) ∩ C(x)| / |C(x)|.

    P = sum_ij n_ij^2 / b_j / N, in (0, 1]; 1.0 when every cluster is pure (all-singleton
    predictions too). ``bcubed_precision(t, p) == bcubed_recall(p, t)``.

    Examples
    --------
    >>> round(bcubed_precision([0, 0, 1, 1], [0, 0, 0, 1]), 12)
    0.666666666667

    References
    ----------
    Bagga & Baldwin (1998); Amigó, Gonzalo, Artiles & Verdejo, Inf. Retrieval 12 (2009).
    """
    return _record(as_contingency(labels_true, labels_pred))[0]


def bcubed_recall(labels_true: Any, labels_pred: Any = None) -> float:
    """Record-weighted B-cubed recall: mean over items of |Y(x) ∩ C(x)| / |Y(x)|.

    R = sum_ij n_ij^2 / a_i / N, in (0, 1]; 1.0 when every class lies in one cluster.

    Examples
    --------
    >>> bcubed_recall([0, 0, 1, 1], [0, 0, 0, 1])
    0.75

    References
    ----------
    Bagga & Baldwin (1998); Amigó et al. (2009).
    """
    return _record(as_contingency(labels_true, labels_pred))[1]


def bcubed_f(labels_true: Any, labels_pred: Any = None) -> float:
    """Record-weighted B-cubed F1: harmonic mean of :func:`bcubed_precision` and
    :func:`bcubed_recall`. Range (0, 1], 1.0 exactly for identical partitions, symmetric.

    Examples
    --------
    >>> round(bcubed_f([0, 0, 1, 1], [0, 0, 0, 1]), 6)
    0.705882

    References
    ----------
    Amigó et al. (2009).
    """
    return _harmonic(*_record(as_contingency(labels_true, labels_pred)))


def bcubed_precision_class_weighted(labels_true: Any, labels_pred: Any = None) -> float:
    """B-cubed precision averaged per true class, then over classes with equal weight.

    P = (1/K) sum_i (1/a_i) sum_j n_ij^2 / b_j, in (0, 1]; er-evaluation's
    ``b_cubed_precision``. Small classes weigh as much as large ones.

    Examples
    --------
    The worked example of er-evaluation's documentation:

    >>> ref = ["c1", "c1", "c1", "c2", "c2", "c3", "c3", "c4"]
    >>> round(bcubed_precision_class_weighted(ref, [1, 1, 2, 3, 2, 4, 4, 4]), 10)
    0.6458333333

    References
    ----------
    Bagga & Baldwin (1998); Binette et al., er-evaluation (JOSS 2023).
    """
    return _class_weighted(as_contingency(labels_true, labels_pred))[0]


def bcubed_recall_class_weighted(labels_true: Any, labels_pred: Any = None) -> float:
    """B-cubed recall averaged per true class, then over classes with equal weight.

    R = (1/K) sum_i sum_j n_ij^2 / a_i^2, in (0, 1]; er-evaluation's ``b_cubed_recall``.

    Examples
    --------
    >>> ref = ["c1", "c1", "c1", "c2", "c2", "c3", "c3", "c4"]
    >>> round(bcubed_recall_class_weighted(ref, [1, 1, 2, 3, 2, 4, 4, 4]), 10)
    0.7638888889

    References
    ----------
    Binette et al., er-evaluation (JOSS 2023).
    """
    return _class_weighted(as_contingency(labels_true, labels_pred))[1]


def bcubed_f_class_weighted(labels_true: Any, labels_pred: Any = None) -> float:
    """Harmonic mean of the class-weighted B-cubed precision and recall (er-evaluation's
    ``b_cubed_f``). Range (0, 1], 1.0 for identical partitions; not symmetric.

    Examples
    --------
    >>> bcubed_f_class_weighted([0, 0, 1, 1], [1, 1, 0, 0])
    1.0
    """
    return _harmonic(*_class_weighted(as_contingency(labels_true, labels_pred)))
