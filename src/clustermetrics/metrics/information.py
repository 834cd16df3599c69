"""Information-theoretic scores: entropies, mutual information and its normalisations.

With p_i = a_i/N, q_j = b_j/N and p_ij = n_ij/N (natural logarithms, nats):

    H(U) = -sum_i p_i log p_i,   MI(U, V) = sum_ij p_ij log(p_ij / (p_i q_j))

All are O(nnz) functions of the table; MI and the entropies are computed once per table and
shared by every score. Values match scikit-learn 1.9, including its edge-case conventions.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..table import Contingency, as_contingency
from ..table.factorize import factorize
from ..table.validation import as_label_array
from ._cells import (
    _CHUNK,
    accurate_sum,
    cell_chunks,
    class_size_cells,
    cluster_size_cells,
    exact_ints,
)
from ._emi import expected_mutual_information

__all__ = [
    "entropy",
    "mutual_info_score",
    "normalized_mutual_info_score",
    "adjusted_mutual_info_score",
    "expected_mutual_info_score",
    "homogeneity_completeness_v_measure",
    "homogeneity_score",
    "completeness_score",
    "v_measure_score",
]

_EPS = float(np.finfo(np.float64).eps)
_AVERAGES = ("arithmetic", "geometric", "min", "max")


def _entropy_of_sizes(sizes: np.ndarray) -> float:
    """H = sum_i (a_i / N) log(N / a_i), each log of a correctly rounded ratio (log1p of
    the exact (a - N) / N for the sizes above N/2, where log a - log N would cancel: a
    class of N - 1 items among 1e18 adds ~1e-18 nats, not 0). All terms are positive."""
    if sizes.shape[0] == 1:
        return 0.0
    n = int(sizes.sum(dtype=np.int64)) if sizes.dtype.kind in "iu" else int(sum(sizes))
    sizes_f = sizes.astype(np.float64)
    logs = np.log(float(n) / sizes_f)
    big = sizes_f >= n / 2
    logs[big] = -np.log1p((sizes[big] - n).astype(np.float64) / n)
    return accurate_sum(sizes_f / n * logs)


def _mutual_info(table: Contingency) -> float:
    if table.n_classes == 1 or table.n_clusters == 1:
        return 0.0
    # One cell per cluster: every cluster is pure, H(truth | pred) = 0 and MI = H(truth)
    # exactly (one cell per class: MI = H(pred)); computing it the same way as the entropy
    # makes homogeneity, completeness and NMI exactly 1.0 where they are 1 in theory.
    if table.nnz == table.n_clusters:
        return _entropy_of_sizes(table.class_sizes)
    if table.nnz == table.n_classes:
        return _entropy_of_sizes(table.cluster_sizes)
    if table.nnz <= _CHUNK:
        return max(_mi_sum(table, slice(None)), 0.0)
    # large tables chunk by chunk (small temporaries); chunk sums added exactly
    return max(math.fsum(_mi_sum(table, sl) for sl in cell_chunks(table)), 0.0)


def _mi_sum(table: Contingency, cells: slice) -> float:
    """sum of p_ij log(N n_ij / (a_i b_j)) over some cells, accurate to a few ulps of
    sum |p_ij log(...)|, whatever N.

    Each log is of the ratio r = N n / (a b) of exact integer products (int64 while N^2
    fits, Python ints beyond), not a sum of four logs of size log N, which would lose
    ~4 eps log N per cell: r is a correctly rounded quotient, so an exactly independent
    cell gives log 1 = 0 exactly. Near r = 1, log1p of the exact difference (N n - a b) /
    (a b) keeps the relative accuracy of small terms; below r = 1/2, log r itself does
    (1 + x would cancel there).
    """
    n = table.n_samples
    if cells == slice(None):  # one chunk: the per-cell sizes shared with other scores
        a, b = class_size_cells(table), cluster_size_cells(table)
    else:
        a, b = table.class_sizes[table.rows[cells]], table.cluster_sizes[table.cols[cells]]
    counts = table.counts[cells]
    ab = exact_ints(table, a) * b
    d = exact_ints(table, counts) * n
    d -= ab  # N n - a b, exact
    ab_f = ab.astype(np.float64)
    x = d.astype(np.float64)
    x /= ab_f
    far = x < -0.5
    if far.any():  # noise cells far below their expectation: the log of the ratio itself
        ratio = counts * float(n)
        ratio /= ab_f
        terms = np.log(ratio, out=ratio, where=far)
        np.log1p(x, out=terms, where=~far)
    else:
        terms = np.log1p(x, out=x)
    terms *= counts
    return accurate_sum(terms) / n


def _info(table: Contingency) -> tuple[float, float, float]:
    """(MI, H(truth), H(prediction)), cached on the table."""
    return table.cached("information", lambda t: (
        _mutual_info(t), _entropy_of_sizes(t.class_sizes), _entropy_of_sizes(t.cluster_sizes)))


def _emi(table: Contingency) -> float:
    return table.cached("emi", lambda t: expected_mutual_information(
        t.class_sizes, t.cluster_sizes, t.n_samples))


def _average(h_true: float, h_pred: float, average_method: str) -> float:
    if average_method == "arithmetic":
        return (h_true + h_pred) / 2.0
    if average_method == "geometric":
        return math.sqrt(h_true * h_pred)
    if average_method == "min":
        return min(h_true, h_pred)
    if average_method == "max":
        return max(h_true, h_pred)
    raise ValueError(f"average_method must be one of {', '.join(_AVERAGES)}; "
                     f"got {average_method!r}")


def entropy(labels: Any) -> float:
    """Shannon entropy (nats) of one labelling: H = -sum_i p_i log p_i, p_i = a_i / N.

    Range [0, log K]; 0 for a single label. Unlike scikit-learn, empty input raises
    ``ValueError`` instead of returning 1.0.

    Examples
    --------
    >>> round(entropy([0, 0, 1, 1]), 6)
    0.693147
    """
    codes, uniques = factorize(as_label_array(labels, "labels"))
    return _entropy_of_sizes(np.bincount(codes, minlength=uniques.shape[0]))


def mutual_info_score(labels_true: Any, labels_pred: Any = None, *,
                      contingency: Any = None) -> float:
    """Mutual information (nats) between two labellings.

    MI = sum_ij (n_ij/N) log(N n_ij / (a_i b_j)), in [0, min(H(U), H(V))]; 0 when either
    labelling has a single label. Symmetric. Not normalised, hence hard to compare across
    datasets; see :func:`normalized_mutual_info_score` and
    :func:`adjusted_mutual_info_score`. As in scikit-learn, a precomputed count matrix can be
    passed as ``contingency=`` (then the label arguments are ignored).

    Examples
    --------
    >>> round(mutual_info_score([0, 0, 0, 1, 1, 1], [0, 0, 0, 1, 1, 1]), 6)
    0.693147

    References
    ----------
    Cover & Thomas, "Elements of Information Theory" (2006), ch. 2.
    """
    if contingency is not None:
        table = contingency if isinstance(contingency, Contingency) \
            else Contingency.from_matrix(contingency)
    else:
        table = as_contingency(labels_true, labels_pred)
    return _info(table)[0]


def normalized_mutual_info_score(labels_true: Any, labels_pred: Any = None, *,
                                 average_method: str = "arithmetic") -> float:
    """Normalised mutual information: MI / mean(H(U), H(V)).

    The mean is chosen by ``average_method``: "arithmetic" (default; equals the V-measure),
    "geometric", "min" or "max". Range [0, 1]; 1.0 when both labellings have a single label
    (scikit-learn's convention), 0.0 whenever MI = 0. Symmetric; not adjusted for chance.

    Examples
    --------
    >>> normalized_mutual_info_score([0, 0, 1, 1], [1, 1, 0, 0])
    1.0

    References
    ----------
    Strehl & Ghosh, "Cluster ensembles", JMLR 3 (2002).
    """
    table = as_contingency(labels_true, labels_pred)
    _average(0.0, 0.0, average_method)
    if table.n_classes == table.n_clusters == 1:
        return 1.0
    mi, h_true, h_pred = _info(table)
    if mi == 0:
        return 0.0
    return float(mi / _average(h_true, h_pred, average_method))


def expected_mutual_info_score(labels_true: Any, labels_pred: Any = None) -> float:
    """Expected mutual information (nats) of two random labellings with the same margins.

    E[MI] under the permutation model (hypergeometric cells), the chance term of
    :func:`adjusted_mutual_info_score`. Exact up to a proven pruning error below 1e-15 nats
    (see ``clustermetrics.metrics._emi``). Cost depends only on the distinct margin values.

    Examples
    --------
    >>> round(expected_mutual_info_score([0, 0, 1, 1], [0, 1, 0, 1]), 6)
    0.231049

    References
    ----------
    Vinh, Epps & Bailey, "Information theoretic measures for clusterings comparison", JMLR
    11 (2010).
    """
    return _emi(as_contingency(labels_true, labels_pred))


def adjusted_mutual_info_score(labels_true: Any, labels_pred: Any = None, *,
                               average_method: str = "arithmetic") -> float:
    """Adjusted mutual information: (MI - E[MI]) / (mean(H(U), H(V)) - E[MI]).

    E[MI] is the expected MI of random labellings with the same class and cluster sizes
    (see :func:`expected_mutual_info_score`). At most 1.0; about 0 for independent
    labellings, negative when worse than chance. Conventions as scikit-learn: 1.0 when both
    labellings have a single label, 0.0 when exactly one does. When one side is all
    singletons MI = E[MI] exactly, so AMI is 0.0, or 1.0 when the denominator vanishes too
    (scikit-learn's clamps give eps/eps there). Otherwise the exact ratio: scikit-learn
    keeps numerator and denominator at least machine epsilon away from 0, which changes
    the value when either is below 2.2e-16 (an exactly independent table, a labelling
    with one class of nearly all items).

    Examples
    --------
    >>> round(adjusted_mutual_info_score([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 2, 2]), 6)
    0.298792

    References
    ----------
    Vinh, Epps & Bailey, "Information theoretic measures for clusterings comparison", JMLR
    11 (2010).
    """
    table = as_contingency(labels_true, labels_pred)
    _average(0.0, 0.0, average_method)
    if table.n_classes == table.n_clusters == 1:
        return 1.0
    if table.n_classes == 1 or table.n_clusters == 1:
        return 0.0
    mi, h_true, h_pred = _info(table)
    emi = _emi(table)
    denominator = _average(h_true, h_pred, average_method) - emi
    if table.n_samples in (table.n_classes, table.n_clusters):
        # a side of singletons: every permutation gives the same table, so MI = E[MI] =
        # the other side's entropy exactly. The denominator vanishes too when that is the
        # average (min, or both sides singletons): scikit-learn's clamps make 0/0 eps/eps
        both = table.n_classes == table.n_clusters
        return 1.0 if average_method == "min" or both else 0.0
    # the denominator is then positive, E[MI] < min(H(U), H(V)), and both it and the
    # numerator are accurate to a few ulps of the entropies: no clamp (scikit-learn keeps
    # each at least machine epsilon from 0, which changes AMI when an entropy is tiny)
    return float((mi - emi) / (denominator if denominator > 0 else _EPS))


def homogeneity_completeness_v_measure(labels_true: Any, labels_pred: Any = None, *,
                                       beta: float = 1.0) -> tuple[float, float, float]:
    """Homogeneity, completeness and V-measure at once (Rosenberg & Hirschberg).

    homogeneity h = MI / H(truth) (1.0 when H(truth) = 0): each cluster holds one class;
    completeness c = MI / H(prediction) (1.0 when H(prediction) = 0): each class sits in
    one cluster; V = (1 + beta) h c / (beta h + c) (0.0 when h + c = 0, and when beta = 0
    and c = 0, where scikit-learn raises ZeroDivisionError). All in [0, 1].

    Examples
    --------
    >>> [round(x, 6) for x in homogeneity_completeness_v_measure(
    ...     [0, 0, 0, 1, 1, 1], [0, 0, 0, 1, 2, 2])]
    [1.0, 0.685331, 0.81329]

    References
    ----------
    Rosenberg & Hirschberg, "V-Measure: a conditional entropy-based external cluster
    evaluation measure", EMNLP-CoNLL (2007).
    """
    if not beta >= 0 or math.isinf(beta):
        raise ValueError(f"beta must be a finite number >= 0, got {beta!r}")
    mi, h_true, h_pred = _info(as_contingency(labels_true, labels_pred))
    homogeneity = mi / h_true if h_true else 1.0
    completeness = mi / h_pred if h_pred else 1.0
    if homogeneity + completeness == 0.0 or beta * homogeneity + completeness == 0.0:
        # the second case (beta = 0, completeness 0) is the limit 0; scikit-learn raises
        # ZeroDivisionError there
        return float(homogeneity), float(completeness), 0.0
    v = (1 + beta) * homogeneity * completeness / (beta * homogeneity + completeness)
    return float(homogeneity), float(completeness), float(v)


def homogeneity_score(labels_true: Any, labels_pred: Any = None) -> float:
    """Homogeneity: MI / H(truth), 1.0 when every cluster holds items of a single class.

    Range [0, 1]; not symmetric: ``homogeneity_score(t, p) == completeness_score(p, t)``.
    See :func:`homogeneity_completeness_v_measure`.

    Examples
    --------
    >>> homogeneity_score([0, 0, 1, 1], [0, 1, 2, 3])
    1.0
    """
    return homogeneity_completeness_v_measure(labels_true, labels_pred)[0]


def completeness_score(labels_true: Any, labels_pred: Any = None) -> float:
    """Completeness: MI / H(prediction), 1.0 when every class lies within a single cluster.

    Range [0, 1]; not symmetric. See :func:`homogeneity_completeness_v_measure`.

    Examples
    --------
    >>> completeness_score([0, 0, 1, 1], [0, 0, 0, 0])
    1.0
    """
    return homogeneity_completeness_v_measure(labels_true, labels_pred)[1]


def v_measure_score(labels_true: Any, labels_pred: Any = None, *, beta: float = 1.0) -> float:
    """V-measure: weighted harmonic mean of homogeneity and completeness.

    V = (1 + beta) h c / (beta h + c), in [0, 1]; with beta = 1 it equals NMI with the
    arithmetic mean. ``beta`` > 1 weighs completeness more. Symmetric for beta = 1.

    Examples
    --------
    >>> round(v_measure_score([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 2, 2]), 6)
    0.515804
    """
    return homogeneity_completeness_v_measure(labels_true, labels_pred, beta=beta)[2]
