"""Set-matching scores: purity, best-match F-score, clustering error/accuracy, ratio.

Rows of the table are true classes, columns predicted clusters; every score is computed
from the non-zero cells in O(nnz), except the optimal one-to-one mapping, which is an
assignment problem solved exactly by :func:`max_weight_matching` (in ``_assignment``, shared
with the recovery rates and the set-matching extras).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..table import Contingency, as_contingency
from ._assignment import DENSE_MAX_CELLS, Leaders, _dense_ok, leaders, max_weight_matching
from ._cells import cell_keys, class_size_cells, f1_cells, row_starts

__all__ = [
    "DENSE_MAX_CELLS",
    "max_weight_matching",
    "purity_score",
    "inverse_purity_score",
    "best_match_f_score",
    "clustering_error",
    "clustering_accuracy",
    "clustering_ratio",
]

def recall_weights(table: Contingency) -> np.ndarray:
    """Per cell n_ij / a_i: the share of its class (recovery rate's W, NCA's recall)."""
    return table.cached("matching:recall_weights",
                        lambda t: t.counts / class_size_cells(t))


def recall_leaders(table: Contingency) -> Leaders | None:
    """The first forced-cell round on the recall weights when a dense copy is cheap
    (cached: the exact and the greedy recovery rate both start from it)."""
    if not _dense_ok(table.n_classes, table.n_clusters, table.nnz):
        return None
    return table.cached("matching:recall_leaders", lambda t: leaders(
        t.rows, t.cols, recall_weights(t), t.n_classes, t.n_clusters, cell_keys(t)))


def recall_matching(table: Contingency) -> np.ndarray:
    """Cells of a maximum-weight matching on the recall weights, cached: the exact recovery
    rate and the normalised clustering accuracy solve this same problem."""
    return table.cached("matching:recall", lambda t: max_weight_matching(
        t.rows, t.cols, recall_weights(t), (t.n_classes, t.n_clusters),
        first_round=recall_leaders(t), fraction=(t.counts, class_size_cells(t))))


def _count_matching(table: Contingency) -> np.ndarray:
    return table.cached(
        "matching:max_count",
        lambda t: max_weight_matching(t.rows, t.cols, t.counts, (t.n_classes, t.n_clusters),
                                      keys=cell_keys(t)),
    )


def _matched_count(table: Contingency) -> int:
    return int(table.counts[_count_matching(table)].sum())


# --------------------------------------------------------------------- scores
def purity_score(labels_true: Any, labels_pred: Any = None) -> float:
    """Purity: share of items in the majority true class of their predicted cluster.

    purity = sum_j max_i n_ij / N, in (0, 1], 1 when every cluster lies inside one class
    (all-singleton clusterings score 1 too: purity rewards over-clustering). Not symmetric:
    ``purity_score(t, p) == inverse_purity_score(p, t)``. Computed in O(nnz).

    Parameters
    ----------
    labels_true : array-like of shape (n_samples,) or Contingency
        True class labels, or a contingency table (then ``labels_pred`` must be None).
    labels_pred : array-like of shape (n_samples,), optional
        Predicted cluster labels.

    Returns
    -------
    purity : float

    Examples
    --------
    >>> purity_score([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 1, 1])
    0.8333333333333334

    References
    ----------
    Zhao & Karypis, "Criterion functions for document clustering" (2001).
    """
    table = as_contingency(labels_true, labels_pred)
    return table.cached("purity", _purity)


def _purity(table: Contingency) -> float:
    best = np.zeros(table.n_clusters, dtype=np.int64)
    np.maximum.at(best, table.cols, table.counts)
    return int(best.sum()) / table.n_samples


def inverse_purity_score(labels_true: Any, labels_pred: Any = None) -> float:
    """Inverse purity: share of items in the majority predicted cluster of their true class.

    inverse purity = sum_i max_j n_ij / N, in (0, 1], 1 when every class lies inside one
    cluster (a single cluster scores 1 too: it rewards under-clustering). Computed in O(nnz).

    Parameters
    ----------
    labels_true : array-like of shape (n_samples,) or Contingency
        True class labels, or a contingency table (then ``labels_pred`` must be None).
    labels_pred : array-like of shape (n_samples,), optional
        Predicted cluster labels.

    Returns
    -------
    inverse_purity : float

    Examples
    --------
    >>> inverse_purity_score([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 1, 1])
    0.8333333333333334

    References
    ----------
    Amigó, Gonzalo, Artiles & Verdejo, "A comparison of extrinsic clustering evaluation
    metrics based on formal constraints", Information Retrieval 12 (2009).
    """
    table = as_contingency(labels_true, labels_pred)
    return int(np.maximum.reduceat(table.counts, row_starts(table)).sum()) / table.n_samples


def best_match_f_score(labels_true: Any, labels_pred: Any = None) -> float:
    """Best-match F-score: each class scored by its best-matching cluster, size-weighted.

    With precision_ij = n_ij / |C_j| (C_j a predicted cluster), recall_ij = n_ij / |Y_i|
    (Y_i a true class) and F_ij their harmonic mean 2 n_ij / (|Y_i| + |C_j|),

        F = sum_i |Y_i| max_j F_ij / N,

    in (0, 1], 1 exactly for identical partitions. Several classes may pick the same best
    cluster (no one-to-one constraint). Not symmetric. Computed in O(nnz).

    Parameters
    ----------
    labels_true : array-like of shape (n_samples,) or Contingency
        True class labels, or a contingency table (then ``labels_pred`` must be None).
    labels_pred : array-like of shape (n_samples,), optional
        Predicted cluster labels.

    Returns
    -------
    f_score : float

    Examples
    --------
    >>> best_match_f_score([0, 0, 1, 1], [0, 0, 0, 1])
    0.7333333333333334

    References
    ----------
    Larsen & Aone, "Fast and effective text mining using linear-time document clustering",
    KDD (1999); textbook section "Full Reference Evaluation" (seed 004).
    """
    return best_f_sum(as_contingency(labels_true, labels_pred), by_cluster=False)


def best_f_sum(table: Contingency, by_cluster: bool) -> float:
    """sum over classes (or clusters) of size / N times the best F_ij on that line
    (cached: best-match F and both set-matching F-measures share it)."""
    def compute(t: Contingency) -> float:
        f = f1_cells(t)
        if by_cluster:
            best = np.zeros(t.n_clusters)
            np.maximum.at(best, t.cols, f)
            sizes = t.cluster_sizes
        else:
            best, sizes = np.maximum.reduceat(f, row_starts(t)), t.class_sizes
        return math.fsum((sizes * best).tolist()) / t.n_samples
    return table.cached(f"best_f:{by_cluster}", compute)


def clustering_error(labels_true: Any, labels_pred: Any = None) -> float:
    """Clustering error: share of items misplaced under the best one-to-one class mapping.

    error = 1 - max_sigma sum_i n_{i, sigma(i)} / N over one-to-one maps sigma between
    classes and clusters (any numbers of each; unmapped items count as errors). In [0, 1),
    0 for identical partitions, lower is better, symmetric. The optimal mapping is an
    assignment problem solved exactly (dense solver on small tables, sparse matching on
    large ones, see :func:`max_weight_matching`) and cached on the table, shared with
    :func:`clustering_accuracy`.

    Parameters
    ----------
    labels_true : array-like of shape (n_samples,) or Contingency
        True class labels, or a contingency table (then ``labels_pred`` must be None).
    labels_pred : array-like of shape (n_samples,), optional
        Predicted cluster labels.

    Returns
    -------
    error : float

    Examples
    --------
    >>> clustering_error([0, 0, 1, 1, 2, 2], [1, 1, 0, 0, 0, 0])
    0.3333333333333333

    References
    ----------
    Elhamifar & Vidal, "Sparse subspace clustering", TPAMI 35 (2013); textbook section
    "Full Reference Evaluation" (seed 004).
    """
    table = as_contingency(labels_true, labels_pred)
    return (table.n_samples - _matched_count(table)) / table.n_samples


def clustering_accuracy(labels_true: Any, labels_pred: Any = None) -> float:
    """Clustering accuracy: share of items correctly placed under the best one-to-one mapping.

    accuracy = max_sigma sum_i n_{i, sigma(i)} / N = 1 - :func:`clustering_error`, in
    (0, 1], 1 for identical partitions, symmetric. Shares the cached optimal mapping.

    Parameters
    ----------
    labels_true : array-like of shape (n_samples,) or Contingency
        True class labels, or a contingency table (then ``labels_pred`` must be None).
    labels_pred : array-like of shape (n_samples,), optional
        Predicted cluster labels.

    Returns
    -------
    accuracy : float

    Examples
    --------
    >>> clustering_accuracy([0, 0, 1, 1, 2, 2], [1, 1, 0, 0, 0, 0])
    0.6666666666666666

    References
    ----------
    Elhamifar & Vidal, "Sparse subspace clustering", TPAMI 35 (2013).
    """
    table = as_contingency(labels_true, labels_pred)
    return _matched_count(table) / table.n_samples


def clustering_ratio(labels_true: Any, labels_pred: Any = None) -> float:
    """Clustering ratio: number of predicted clusters over number of true classes.

    eta = n_clusters / n_classes, in (0, inf); 1 when the numbers agree (necessary, not
    sufficient, for a perfect clustering), above 1 for over-clustering, below for
    under-clustering. Neither higher nor lower is better; not symmetric.

    Parameters
    ----------
    labels_true : array-like of shape (n_samples,) or Contingency
        True class labels, or a contingency table (then ``labels_pred`` must be None).
    labels_pred : array-like of shape (n_samples,), optional
        Predicted cluster labels.

    Returns
    -------
    ratio : float

    Examples
    --------
    >>> clustering_ratio([0, 0, 1, 1], [0, 1, 2, 3])
    2.0

    References
    ----------
    Textbook section "Full Reference Evaluation" (seed 004).
    """
    table = as_contingency(labels_true, labels_pred)
    return table.n_clusters / table.n_classes

