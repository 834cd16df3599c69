"""More information-theoretic scores: variation of information and its normalisations, NMI
and AMI under every normalisation, cluster entropy and the chi-square statistic.

With H(U), H(V) the entropies of truth and prediction and MI their mutual information (nats,
cached per table by :mod:`clustermetrics.metrics.information`), the joint entropy is
H(U, V) = H(U) + H(V) - MI and the conditional entropies H(U|V) = H(U) - MI. Everything is
O(nnz) once MI is known; the AMI variants reuse the cached expected mutual information.

Reduced mutual information (Newman, Cantwell & Young 2020) is not offered: it needs the
number of contingency tables with the given margins, whose exact count is #P-hard (Dyer,
Kannan & Mount 1997); peers (clusim ``rmi``) use an asymptotic approximation.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..table import as_contingency
from ._cells import (
    accurate_sum,
    class_size_cells,
    cluster_size_cells,
    counts_float,
    exact_ints,
    log_cluster_size_cells,
    log_counts,
)
from .information import _info, adjusted_mutual_info_score, normalized_mutual_info_score

__all__ = [
    "variation_of_information",
    "normalized_variation_of_information",
    "normalized_information_distance",
    "nmi_joint_score",
    "nmi_geometric_score",
    "nmi_min_score",
    "nmi_max_score",
    "ami_geometric_score",
    "ami_min_score",
    "ami_max_score",
    "cluster_entropy",
    "chi2_score",
]


def variation_of_information(labels_true: Any, labels_pred: Any = None) -> float:
    """Variation of information (Meila): VI = H(U) + H(V) - 2 MI = H(U|V) + H(V|U), in nats.

    A metric on partitions: 0.0 exactly for identical partitions, at most log N, lower is
    better, symmetric. Divide by log N for Meila's [0, 1] scaling.

    Examples
    --------
    >>> round(variation_of_information([0, 0, 1, 1], [0, 0, 0, 0]), 6)
    0.693147

    References
    ----------
    Meila, "Comparing clusterings - an information based distance", JMVA 98 (2007).
    """
    mi, h_true, h_pred = _info(as_contingency(labels_true, labels_pred))
    return max(float(h_true + h_pred - 2.0 * mi), 0.0)


def normalized_variation_of_information(labels_true: Any, labels_pred: Any = None) -> float:
    """Normalised variation of information: VI / H(U, V) = 1 - MI / H(U, V).

    Vinh et al.'s d_joint, aricode ``NVI``. Range [0, 1], lower is better, symmetric, a
    metric. 0.0 for identical partitions, including when both are a single cluster
    (H(U, V) = 0).

    Examples
    --------
    >>> normalized_variation_of_information([0, 0, 1, 1], [0, 0, 0, 0])
    1.0

    References
    ----------
    Vinh, Epps & Bailey, JMLR 11 (2010), Table 2; aricode ``NVI``.
    """
    mi, h_true, h_pred = _info(as_contingency(labels_true, labels_pred))
    joint = h_true + h_pred - mi
    if joint <= 0.0:
        return 0.0
    return min(max(float((h_true + h_pred - 2.0 * mi) / joint), 0.0), 1.0)


def normalized_information_distance(labels_true: Any, labels_pred: Any = None) -> float:
    """Normalised information distance: NID = 1 - MI / max(H(U), H(V)).

    Vinh et al.'s d_max, aricode ``NID``; a metric. Range [0, 1], lower is better,
    symmetric, 0.0 for identical partitions (also when both are a single cluster).

    Examples
    --------
    >>> normalized_information_distance([0, 0, 1, 1], [0, 1, 2, 3])
    0.5

    References
    ----------
    Vinh, Epps & Bailey, JMLR 11 (2010); aricode ``NID``.
    """
    mi, h_true, h_pred = _info(as_contingency(labels_true, labels_pred))
    top = max(h_true, h_pred)
    if top <= 0.0:
        return 0.0
    return min(max(float(1.0 - mi / top), 0.0), 1.0)


def nmi_joint_score(labels_true: Any, labels_pred: Any = None) -> float:
    """NMI normalised by the joint entropy: MI / H(U, V) (= 1 - NVI).

    Range [0, 1], symmetric; 1.0 when both labellings are a single cluster (scikit-learn's
    convention for the other normalisations). aricode ``NMI(variant="joint")``.

    Examples
    --------
    >>> round(nmi_joint_score([0, 0, 1, 1], [0, 1, 2, 3]), 12)
    0.5

    References
    ----------
    Vinh, Epps & Bailey, JMLR 11 (2010); Yao (2003).
    """
    mi, h_true, h_pred = _info(as_contingency(labels_true, labels_pred))
    joint = h_true + h_pred - mi
    if joint <= 0.0:
        return 1.0
    return min(max(float(mi / joint), 0.0), 1.0)


def nmi_geometric_score(labels_true: Any, labels_pred: Any = None) -> float:
    """NMI with the geometric mean: MI / sqrt(H(U) H(V)) (Strehl & Ghosh's NMI).

    Same conventions as :func:`~clustermetrics.normalized_mutual_info_score`.

    Examples
    --------
    >>> round(nmi_geometric_score([0, 0, 1, 1], [0, 1, 2, 3]), 6)
    0.707107
    """
    return normalized_mutual_info_score(labels_true, labels_pred, average_method="geometric")


def nmi_min_score(labels_true: Any, labels_pred: Any = None) -> float:
    """NMI normalised by the smaller entropy: MI / min(H(U), H(V)).

    Range [0, 1], symmetric; 1.0 whenever one labelling refines the other (so it rewards
    both over- and under-clustering), 1.0 when both are a single cluster, 0.0 when MI = 0.
    Same conventions as :func:`~clustermetrics.normalized_mutual_info_score`.

    >>> nmi_min_score([0, 0, 1, 1], [0, 1, 2, 3])
    1.0
    """
    return normalized_mutual_info_score(labels_true, labels_pred, average_method="min")


def nmi_max_score(labels_true: Any, labels_pred: Any = None) -> float:
    """NMI normalised by the larger entropy: MI / max(H(U), H(V)) = 1 - NID.

    Range [0, 1], symmetric, 1.0 only for identical partitions (and two single clusters);
    aricode's default NMI. Same conventions as
    :func:`~clustermetrics.normalized_mutual_info_score`.

    >>> nmi_max_score([0, 0, 1, 1], [0, 1, 2, 3])
    0.5
    """
    return normalized_mutual_info_score(labels_true, labels_pred, average_method="max")


def ami_geometric_score(labels_true: Any, labels_pred: Any = None) -> float:
    """AMI with the geometric mean: (MI - E[MI]) / (sqrt(H(U) H(V)) - E[MI]).

    Same conventions as :func:`~clustermetrics.adjusted_mutual_info_score` (Vinh et al. 2010).

    >>> ami_geometric_score([0, 0, 1, 1], [1, 1, 0, 0])
    1.0
    """
    return adjusted_mutual_info_score(labels_true, labels_pred, average_method="geometric")


def ami_min_score(labels_true: Any, labels_pred: Any = None) -> float:
    """AMI normalised by the smaller entropy: (MI - E[MI]) / (min(H(U), H(V)) - E[MI]).

    E[MI] under the permutation model (Vinh et al. 2010); range (-inf, 1], about 0 for
    independent labellings, symmetric. Same conventions as
    :func:`~clustermetrics.adjusted_mutual_info_score`.

    >>> ami_min_score([0, 0, 1, 1], [1, 1, 0, 0])
    1.0
    """
    return adjusted_mutual_info_score(labels_true, labels_pred, average_method="min")


def ami_max_score(labels_true: Any, labels_pred: Any = None) -> float:
    """AMI normalised by the larger entropy: (MI - E[MI]) / (max(H(U), H(V)) - E[MI]).

    Vinh et al.'s recommended AMI_max and aricode's ``AMI``; range (-inf, 1], about 0 for
    independent labellings, symmetric. Same conventions as
    :func:`~clustermetrics.adjusted_mutual_info_score`.

    >>> ami_max_score([0, 0, 1, 1], [1, 1, 0, 0])
    1.0
    """
    return adjusted_mutual_info_score(labels_true, labels_pred, average_method="max")


def cluster_entropy(labels_true: Any, labels_pred: Any = None) -> float:
    """Cluster entropy: size-weighted entropy of the true classes inside each cluster (nats).

        E = sum_j (b_j / N) H_j,  H_j = -sum_i (n_ij / b_j) log(n_ij / b_j),

    which is the conditional entropy H(U|V). 0.0 when every cluster is pure, at most
    H(U); lower is better; not symmetric (``cluster_entropy(p, t)`` is H(V|U)). Computed
    cell by cell in O(nnz), not as a difference, so pure clusterings give exactly 0.
    permetrics ES intends this (in bits) but sums the per-cluster entropies unweighted, see
    docs/metric-notes.md.

    Examples
    --------
    >>> round(cluster_entropy([0, 0, 1, 1], [0, 0, 0, 0]), 6)
    0.693147

    References
    ----------
    Zhao & Karypis, "Criterion functions for document clustering" (2001).
    """
    table = as_contingency(labels_true, labels_pred)
    terms = log_cluster_size_cells(table) - log_counts(table)
    terms *= counts_float(table)
    return max(accurate_sum(terms) / table.n_samples, 0.0)


def chi2_score(labels_true: Any, labels_pred: Any = None) -> float:
    """Pearson's chi-square statistic of the contingency table, as aricode ``Chi2``.

        chi2 = sum_ij (n_ij - a_i b_j / N)^2 / (a_i b_j / N) = N (sum_ij n_ij^2 / (a_i b_j) - 1)

    Range [0, N (min(K, L) - 1)], symmetric, 0 for independent labellings; its value on
    identical partitions is N (K - 1), so it depends on the data. O(nnz).

    Examples
    --------
    >>> chi2_score([0, 0, 1, 1], [1, 1, 0, 0])
    4.0

    References
    ----------
    Pearson (1900); aricode ``Chi2``.
    """
    table = as_contingency(labels_true, labels_pred)
    return table.cached("chi2", _chi2)


def _chi2(table) -> float:
    """N (sum n^2 / (a b) - 1) = sum_ij n_ij d_ij / (a_i b_j), d = N n - a b exact.

    The second form does not cancel at large N (N times a sum near 1). Its terms may still
    cancel each other (near-independent tables of large counts); when they do, each term
    is split exactly into an integer part and a remainder below 1, so the error no longer
    grows with the terms' size."""
    counts = exact_ints(table, table.counts)
    ab = exact_ints(table, class_size_cells(table)) * cluster_size_cells(table)
    d = counts * table.n_samples - ab
    terms = d.astype(np.float64) / ab.astype(np.float64)
    terms *= table.counts
    total = accurate_sum(terms)
    if float(np.abs(terms).sum()) <= 16.0 * abs(total):
        return max(total, 0.0)
    wide = table.n_samples >= _INT64_CUBE_N  # n d may pass 2^63: Python ints
    nd = counts.astype(object) * d if wide else counts * d
    ab = ab.astype(object) if wide else ab
    whole, rest = nd // ab, nd % ab
    fractions = rest.astype(np.float64) / ab.astype(np.float64)
    return max(float(int(whole.sum()) + accurate_sum(fractions)), 0.0)


_INT64_CUBE_N = 2_097_151  # below this N, n d <= N^3 fits in int64
