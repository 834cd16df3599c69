"""Information-theoretic scores: entropies, mutual information and its normalisations,
the variation of information, the cluster entropy and the chi-square statistic.

With p_i = a_i/N, q_j = b_j/N and p_ij = n_ij/N (natural logarithms, nats):

    H(U) = -sum_i p_i log p_i,   MI(U, V) = sum_ij p_ij log(p_ij / (p_i q_j)),

the joint entropy H(U, V) = H(U) + H(V) - MI and the conditional H(U|V) = H(U) - MI.
All are O(nnz) functions of the table; MI and the entropies are computed once per table
and shared by every score, each cell's log taken of an exact integer ratio. AMI's expected
MI is :mod:`._emi`. Values match scikit-learn 1.9 with its edge-case conventions, except
the deviations the user guide lists.

The standardized MI (Romano et al. 2014) divides MI - E[MI] by the standard deviation of
MI under the same model (:mod:`._smi`). The reduced MI of Newman, Cantwell & Young (2020)
needs the number of contingency tables with the given margins, whose exact count is #P-hard
(Dyer, Kannan & Mount 1997); the Dirichlet-multinomial encoding of Jerdee, Kirkley & Newman
(2024) replaces that count by a code length computed in O(nnz) (:mod:`._reduced`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any, NamedTuple, cast

import numpy as np

from ..compute import dispatch as _kernels
from ..table import Contingency, as_contingency
from ..table.factorize import factorize
from ..table.stack import Table, TableStack, is_stack
from ..table.validation import as_label_array, check_same_length
from . import compiled
from ._cells import (
    _CHUNK,
    accurate_sum,
    cell_chunks,
    class_size_cells,
    cluster_size_cells,
    counts_float,
    exact_ints,
    line_sizes,
    log_cluster_size_cells,
    log_counts,
    quotients,
    scaled_masses,
    scaled_total,
    share_log_sum,
    total,
)
from ._elementwise import is_many, maximum, minimum, ratio, select, sqrt, undefined_where, with_sign
from ._emi import expected_mutual_information, expected_mutual_information_weighted
from ._random_models import RANDOM_MODELS, cluster_size_weights
from ._reduced import CodeSpec, Optimum, code_difference, distinct, minimise, stirling_excess
from ._smi import (
    EXACT_TERM_COST,
    KERNEL_STEP_COST,
    PYTHON_STEP_COST,
    exact_cost,
    exact_costs,
    exact_variance,
    exact_variances,
    monte_carlo_variance,
    s_of_counts,
    sample_cost,
    sample_costs,
)
from .spec import (
    INFO,
    Better,
    Choice,
    Integer,
    MetricInfo,
    Real,
    ScoreFunction,
    ScoreUnavailable,
    Undefined,
    deprecated_alias,
    score,
)

__all__ = [
    "ENTRIES", "entropy", "mutual_info_score", "normalized_mutual_info_score",
    "adjusted_mutual_info_score", "expected_mutual_info_score",
    "homogeneity_completeness_v_measure", "homogeneity_score", "completeness_score",
    "v_measure_score", "variation_of_information_distance", "expected_mi_random",
    "normalized_variation_of_information_distance", "normalized_information_distance",
    "cluster_entropy_error", "chi2_score", "standardized_mutual_info_score",
    "standardized_mutual_info", "StandardizedMI", "reduced_mutual_info_score",
    "normalized_reduced_mutual_info_score",
    # deprecated names
    "variation_of_information", "normalized_variation_of_information", "cluster_entropy",
    "nmi_joint_score", "nmi_geometric_score", "nmi_min_score", "nmi_max_score",
    "ami_geometric_score", "ami_min_score", "ami_max_score",
]

_EPS = float(np.finfo(np.float64).eps)
_REAL_INFO = ("entropies and mutual information of the weighted joint distribution "
              "p_ij = n_ij / N of the real masses")
_HYPERGEOMETRIC = "its chance term averages over random tables of whole items"
_CODE_LENGTHS = "its code lengths count the tables of whole items"
_AVERAGES = ("arithmetic", "geometric", "min", "max")


def _entropy_of_sizes(sizes: np.ndarray) -> float:
    """H = sum_i (a_i / N) log(N / a_i), each log of a correctly rounded ratio (log1p of
    the exact (a - N) / N for the sizes above N/2, where log a - log N would cancel: a
    class of N - 1 items among 1e18 adds ~1e-18 nats, not 0). All terms are positive."""
    if sizes.shape[0] == 1:
        return 0.0
    n = int(sizes.sum(dtype=np.int64)) if sizes.dtype.kind in "iu" else int(sum(sizes))
    return accurate_sum(entropy_terms(sizes, n))


def entropy_terms(sizes: np.ndarray, n: float) -> np.ndarray:
    """(s / N) log(N / s) per size s (0 for s = 0): the terms of H, each log of a correctly
    rounded ratio (log1p of the exact (s - N) / N for the sizes above N/2)."""
    return conditional_entropy_terms(sizes, n, n)


def conditional_entropy_terms(counts: np.ndarray, class_size: float, n: float) -> np.ndarray:
    """(c / N) log(a / c) per cell count c of a class of size a (0 for c = 0): the terms of
    H(prediction | truth) = sum_ij (n_ij / N) log(a_i / n_ij), all non-negative; the log of
    a correctly rounded ratio (log1p of the exact (c - a) / a for c above a/2)."""
    counts = np.asarray(counts)
    counts_f = counts.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):  # c = 0: 0 log inf, set to 0
        logs = np.log(float(class_size) / counts_f)
        big = counts_f >= class_size / 2
        logs[big] = -np.log1p((counts[big] - class_size).astype(np.float64) / class_size)
        terms = counts_f / n * logs
    terms[counts == 0] = 0.0
    return terms


def mutual_info_shortcut(n_classes: int, n_clusters: int, nnz: int,
                         h_true: Callable[[], Any],
                         h_pred: Callable[[], Any]) -> Any:
    """MI where it equals 0 or an entropy exactly, else None. ``h_true`` and ``h_pred``
    are callables giving H(truth) and H(prediction).

    One cell per cluster: every cluster is pure, H(truth | pred) = 0 and MI = H(truth)
    exactly (one cell per class: MI = H(pred)); computing it the same way as the entropy
    makes homogeneity, completeness and NMI exactly 1.0 where they are 1 in theory."""
    if n_classes == 1 or n_clusters == 1:
        return 0.0
    if nnz == n_clusters:
        return h_true()
    if nnz == n_classes:
        return h_pred()
    return None


def _mutual_info(table: Contingency) -> float:
    exact = mutual_info_shortcut(table.n_classes, table.n_clusters, table.nnz,
                                 lambda: _entropy_of_sizes(table.class_sizes),
                                 lambda: _entropy_of_sizes(table.cluster_sizes))
    if exact is not None:
        return exact
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


def _real_deviations(table: Contingency) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """(N n - a b, a b, n) per cell of a real-valued table, exact integers scaled by powers
    of two (``scaled_masses``: d and ab by 2^(2k), n by 2^k), and k."""
    cells, by_row, by_col, k = scaled_masses(table)
    ab = by_row[table.rows] * by_col[table.cols]
    return cells * scaled_total(table) - ab, ab, cells, k


# --------------------------------------------------------------------- real masses
# A real-valued table's information is computed by ``share_log_sum`` from the exact
# integers of its masses (``scaled_masses``) wherever floats would lose digits: the log of
# a ratio near 1 (N - a_i for a class holding nearly all the mass), and shares, logs and
# terms beyond the normal floats (masses spanning hundreds of orders of magnitude), each
# such term with a binary exponent of its own; other terms from float ratios of masses
# (within 3 ulps: never a product of two masses). The results are exact Fractions of
# those sums, so that the scores' ratios of them (homogeneity = MI / H(truth) with both
# below 1e-300) are rounded once.


def _real_floats(table: Contingency) -> dict[str, np.ndarray]:
    """Float shares and ratios of a real-valued table within 3 ulps, from its float
    masses and correctly rounded margins and total (``share_log_sum``'s ``approx``):
    ratios of two masses, never products (an overflowed or underflowed one is left to
    the exact integers)."""
    def compute(t: Contingency) -> dict[str, np.ndarray]:
        cells, by_row, by_col, k = scaled_masses(t)
        n = scaled_total(t) / (1 << k)  # correctly rounded
        a, b = line_sizes(t)
        counts, a_cell, b_cell = t.counts, a[t.rows], b[t.cols]
        # 0 * inf is NaN: not a ratio far from 1 for share_log_sum, so taken exactly
        with np.errstate(over="ignore", under="ignore", invalid="ignore"):
            return {"cells": counts / n, "rows": a / n, "cols": b / n,
                    "mi": (counts / a_cell) * (n / b_cell),
                    "row_ratio": n / a, "col_ratio": n / b,
                    "given_pred": b_cell / counts, "given_true": a_cell / counts}
    return table.cached("information:floats", compute)


def _real_info(table: Contingency) -> tuple[Any, Any, Any]:
    """(MI, H(truth), H(prediction)) of a real-valued table, Fractions (the scores'
    formulas take them where they take floats; a float among them would round a tiny
    entropy to 0 in a mixed operation)."""
    cells, by_row, by_col, _ = scaled_masses(table)
    n, floats = scaled_total(table), _real_floats(table)
    h_true = share_log_sum(by_row, n, n, by_row, (floats["rows"], floats["row_ratio"]))
    h_pred = share_log_sum(by_col, n, n, by_col, (floats["cols"], floats["col_ratio"]))
    # one labelling refines the other: its entropy is the larger, also after rounding (two
    # entropies 1e-300 apart would else put completeness, MI / H, above 1)
    if table.nnz == table.n_clusters:
        h_pred = max(h_pred, h_true)
    if table.nnz == table.n_classes:
        h_true = max(h_true, h_pred)
    mi = mutual_info_shortcut(table.n_classes, table.n_clusters, table.nnz,
                              lambda: h_true, lambda: h_pred)
    if mi is None:  # sum_ij (n_ij / N) log(N n_ij / (a_i b_j))
        mi = share_log_sum(cells, n, cells * n, by_row[table.rows] * by_col[table.cols],
                           (floats["cells"], floats["mi"]))
        # in [0, min(H, H')]: the rounding of the sums must not put homogeneity above 1
        mi = min(max(mi, Fraction(0)), h_true, h_pred)
    return Fraction(mi), h_true, h_pred


def _real_conditional(table: Contingency) -> tuple[Fraction, Fraction]:
    """(H(truth | prediction), H(prediction | truth)) of a real-valued table, cell by
    cell: sums of non-negative terms (n_ij / N) log(b_j / n_ij), so a difference of the
    entropies never cancels (VI of nearly equal partitions keeps its relative accuracy)."""
    def compute(t: Contingency) -> tuple[Fraction, Fraction]:
        cells, by_row, by_col, _ = scaled_masses(t)
        n, floats = scaled_total(t), _real_floats(t)
        return (max(share_log_sum(cells, n, by_col[t.cols], cells,
                                  (floats["cells"], floats["given_pred"])), Fraction(0)),
                max(share_log_sum(cells, n, by_row[t.rows], cells,
                                  (floats["cells"], floats["given_true"])), Fraction(0)))
    return table.cached("information:conditional", compute)


def _info(table: Table) -> tuple[float, float, float]:
    """(MI, H(truth), H(prediction)), cached on the table (arrays of each table's values
    for a stack)."""
    if is_stack(table):
        return table.cached("information", _stack_info)
    if table.real_valued:
        return table.cached("information", _real_info)
    return table.cached("information", lambda t: (
        _mutual_info(t), _entropy_of_sizes(t.class_sizes), _entropy_of_sizes(t.cluster_sizes)))


def _stack_info(stack: TableStack) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(MI, H(truth), H(prediction)) of each table of a stack: the terms of
    :func:`entropy_terms` and :func:`_mi_sum` (logs of exact integer ratios), summed per
    table, and MI's exact shortcuts (:func:`mutual_info_shortcut`) where they apply."""
    n = stack.n_samples
    h_true = _stack_entropy(stack.class_sizes, n)
    h_pred = _stack_entropy(stack.cluster_sizes, n)
    counts = stack.counts
    ab = class_size_cells(stack) * cluster_size_cells(stack)  # int64: a stack's N^2 fits
    present = counts > 0
    ab_f = np.where(present, ab, 1).astype(np.float64)
    x = (counts * n[:, None] - ab) / ab_f  # N n - a b exact, divided once
    with np.errstate(divide="ignore", invalid="ignore"):  # empty cells: left out below
        far = np.log(counts * (n[:, None] / ab_f))
        terms = np.where(x < -0.5, far, np.log1p(np.maximum(x, -0.5)))
        terms = np.where(present, counts * terms, 0.0)
    mi = np.maximum(terms.sum(axis=1) / n, 0.0)
    # the exact shortcuts, in reverse priority (as mutual_info_shortcut tries them)
    mi = np.where(stack.nnz == stack.n_classes, h_pred, mi)
    mi = np.where(stack.nnz == stack.n_clusters, h_true, mi)
    mi = np.where((stack.n_classes == 1) | (stack.n_clusters == 1), 0.0, mi)
    return mi, h_true, h_pred


def _stack_entropy(sizes: np.ndarray, n: np.ndarray) -> np.ndarray:
    """H of each row of (B, K) sizes with totals ``n`` (0 for a single label), from the
    terms of :func:`entropy_terms` (zero sizes add 0)."""
    size_f = sizes.astype(np.float64)
    n_f = n.astype(np.float64)[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.where(size_f >= n_f / 2, -np.log1p((sizes - n[:, None]) / n_f),
                        np.log(n_f / size_f))
    terms = np.where(sizes > 0, size_f / n_f * logs, 0.0)
    # summed in sorted order: equal multisets of sizes (a perfect match) give equal
    # entropies, as the exact sum does for one table
    return np.where(np.count_nonzero(sizes, axis=1) == 1, 0.0,
                    np.sort(terms, axis=1).sum(axis=1))


def _emi(table: Contingency) -> float:
    if is_stack(table):  # one sum over hypergeometric laws per pair of margins
        return table.cached("emi", lambda s: np.array(s.by_margins(_emi, "emi"),
                                                      dtype=np.float64))
    return table.cached("emi", lambda t: expected_mutual_information(  # item counts only
        t.class_sizes, t.cluster_sizes, int(t.n_samples)))


def _mean(h_true: Any, h_pred: Any, mi: Any, average_method: str) -> Any:
    """The normaliser of NMI / AMI: a mean of the two entropies, or the joint entropy
    (of floats, or of arrays of many tables' values)."""
    if average_method == "arithmetic":  # / 2, not / 2.0: exact on a Fraction too
        return (h_true + h_pred) / 2
    if average_method == "geometric":  # not sqrt(h_true * h_pred): the product of two
        # entropies of 1e-200 nats underflows; kept between the two (equal entropies give
        # exactly their value, not one rounded twice: NMI and AMI of a perfect match are 1)
        geometric = sqrt(h_true) * sqrt(h_pred)
        return minimum(maximum(geometric, minimum(h_true, h_pred)), maximum(h_true, h_pred))
    if average_method == "min":
        return minimum(h_true, h_pred)
    if average_method == "max":
        return maximum(h_true, h_pred)
    return maximum(h_true + h_pred - mi, 0.0)  # joint


_MEANS = ("arithmetic", "geometric", "min", "max")
_NMI_MEAN = Choice((*_MEANS, "joint"), "How MI is normalised: the mean of H(U) and H(V) "
                   "or the joint entropy H(U, V).")
_AMI_MEAN = Choice(_MEANS, "The mean of H(U) and H(V) that AMI is normalised by.")
_RANDOM_MODEL = Choice(RANDOM_MODELS, "Random clusterings E[MI] is taken over, the truth "
                       "fixed: 'perm' (the prediction's cluster sizes fixed; scikit-learn), "
                       "'num' (its number of clusters fixed), 'all' (any clustering); Gates "
                       "& Ahn, JMLR 18 (2017).")
_BETA = Real("Weight of completeness: beta > 1 weighs completeness more.", low=0.0)


def entropy(labels: Any, *, sample_weight: Any = None) -> float:
    """Shannon entropy (nats) of one labelling: H = -sum_i p_i log p_i, p_i = a_i / N.

    Range [0, log K]; 0 for a single label. Unlike scikit-learn, empty input raises
    ``ValueError`` instead of returning 1.0. ``sample_weight``: one non-negative weight
    per item; a_i is then the total weight of label i (integer weights: repetitions).

    Examples
    --------
    >>> round(entropy([0, 0, 1, 1]), 6)
    0.693147

    References
    ----------
    Shannon, Bell System Technical Journal 27 (1948).
    """
    values = as_label_array(labels, "labels")
    if sample_weight is not None:  # the weighted sizes, checked as every score checks them
        if np.ndim(sample_weight) == 1:
            check_same_length(values, np.empty(len(sample_weight)), "labels",
                              "sample_weight")
        return _entropy_of_sizes(Contingency.from_labels(
            values, values, sample_weight=sample_weight).class_sizes)
    codes, uniques = factorize(values)
    return _entropy_of_sizes(np.bincount(codes, minlength=uniques.shape[0]))


@score(real=_REAL_INFO, reads=("information",))
def mutual_info_score(table: Contingency) -> float:
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
    return _info(table)[0]


@score(options={"average_method": _NMI_MEAN}, zero_division=True, real=_REAL_INFO,
       reads=("information",))
def normalized_mutual_info_score(table: Contingency, *,
                                 average_method: str = "arithmetic") -> float:
    """Normalised mutual information: MI / mean(H(U), H(V)).

    The mean is chosen by ``average_method``: "arithmetic" (default; equals the V-measure),
    "geometric" (Strehl & Ghosh's NMI), "min" (1.0 whenever one labelling refines the
    other), "max" (1.0 only for identical partitions; aricode's default, = 1 - NID), or
    "joint", the joint entropy H(U, V) = H(U) + H(V) - MI (Yao 2003; = 1 - NVI; aricode
    ``variant="joint"``; not a scikit-learn choice). Range [0, 1]; 1.0 when both labellings
    have a single label (a 0/0; scikit-learn's convention), 0.0 whenever MI = 0.
    Symmetric; not adjusted for chance.

    Examples
    --------
    >>> normalized_mutual_info_score([0, 0, 1, 1], [1, 1, 0, 0])
    1.0

    References
    ----------
    Strehl & Ghosh, "Cluster ensembles", JMLR 3 (2002); Vinh, Epps & Bailey, JMLR 11
    (2010), Table 2.
    """
    undefined_where(table, (table.n_classes == 1) & (table.n_clusters == 1), 1.0,
                    "NMI is undefined (0/0): both labellings have a single label")
    mi, h_true, h_pred = _info(table)
    return select(mi == 0, 0.0,
                  minimum(ratio(mi, _mean(h_true, h_pred, mi, average_method), 0.0), 1.0))


@score(needs=_HYPERGEOMETRIC)
def expected_mutual_info_score(table: Contingency) -> float:
    """Expected mutual information (nats) of two random labellings with the same margins.

    E[MI] under the permutation model (hypergeometric cells), the chance term of
    :func:`adjusted_mutual_info_score`. Exact up to a proven pruning error below 1e-15 nats
    (see ``clustermetrics.scores._emi``). Cost depends only on the distinct margin values.

    Examples
    --------
    >>> round(expected_mutual_info_score([0, 0, 1, 1], [0, 1, 0, 1]), 6)
    0.231049

    References
    ----------
    Vinh, Epps & Bailey, "Information theoretic measures for clusterings comparison", JMLR
    11 (2010).
    """
    return _emi(table)


@score(options={"average_method": _AMI_MEAN, "random_model": _RANDOM_MODEL},
       zero_division=True, needs=_HYPERGEOMETRIC)
def adjusted_mutual_info_score(table: Contingency, *, average_method: str = "arithmetic",
                               random_model: str = "perm") -> float:
    """Adjusted mutual information: (MI - E[MI]) / (mean(H(U), H(V)) - E[MI]).

    E[MI] is the expected MI of random labellings with the same class and cluster sizes
    (see :func:`expected_mutual_info_score`); ``average_method`` chooses the mean as for
    :func:`normalized_mutual_info_score` ("max" is Vinh et al.'s recommended AMI_max and
    aricode's ``AMI``; "joint" is not offered). At most 1.0; about 0 for independent
    labellings, negative when worse than chance. Conventions as scikit-learn: 1.0 when both
    labellings have a single label, 0.0 when exactly one does. When one side is all
    singletons MI = E[MI] exactly, so AMI is 0.0, or 1.0 when the denominator vanishes too
    (scikit-learn's clamps give eps/eps there). Otherwise the exact ratio: scikit-learn
    keeps numerator and denominator at least machine epsilon away from 0, which changes
    the value when either is below 2.2e-16 (an exactly independent table, a labelling
    with one class of nearly all items).

    ``random_model`` chooses the random clusterings E[MI] is taken over, the truth fixed
    (Gates & Ahn 2017): "perm" (default, scikit-learn's AMI) keeps the predicted cluster
    sizes; "num" draws the prediction uniformly among the partitions into its number of
    clusters K; "all" among all partitions. E[MI] is then sum_b w_b E[MI term of a random
    b-subset], w_b the expected number of random clusters of size b (C(N, b) S(N-b, K-1) /
    S(N, K), or C(N, b) B(N-b) / B(N); exact integers), each term hypergeometric as for
    "perm". The normaliser stays the mean of the observed entropies (clusim's ``adj_mi``
    uses log K or log N instead, so its values differ; its E[MI] is the same). Computed up
    to N x K = 400,000 ("num") and N = 2,000 ("all"); beyond, ValueError.

    Examples
    --------
    >>> round(adjusted_mutual_info_score([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 2, 2]), 6)
    0.298792

    References
    ----------
    Vinh, Epps & Bailey, "Information theoretic measures for clusterings comparison", JMLR
    11 (2010); Gates & Ahn, "The impact of random models on clustering similarity", JMLR
    18 (2017).
    """
    k, c, n = table.n_classes, table.n_clusters, table.n_samples
    undefined_where(table, (k == 1) & (c == 1), 1.0,
                    "AMI is undefined (0/0): both labellings have a single label")
    if random_model != "perm":
        return _ami_one_sided(table, average_method, random_model)
    one_side = (k == 1) | (c == 1)
    if not is_many(one_side) and one_side:
        return 0.0
    # a side of singletons: every permutation gives the same table, so MI = E[MI] = the
    # other side's entropy exactly. The denominator vanishes too when that is the mean
    # (min, or both sides singletons): scikit-learn's clamps make 0/0 eps/eps
    singletons = ((n == k) | (n == c)) & ~one_side
    undefined_where(table, singletons & ((k == c) | (average_method == "min")), 1.0,
                    "AMI is undefined (0/0): a labelling of singletons with the smaller "
                    "entropy as normaliser")
    if not is_many(singletons) and singletons:
        return 0.0
    mi, h_true, h_pred = _info(table)
    emi = _emi(table)
    denominator = _mean(h_true, h_pred, mi, average_method) - emi
    # the denominator is then positive, E[MI] < min(H(U), H(V)), and both it and the
    # numerator are accurate to a few ulps of the entropies: no clamp (scikit-learn keeps
    # each at least machine epsilon from 0, which changes AMI when an entropy is tiny)
    value = (mi - emi) / select(denominator > 0, denominator, _EPS)
    # at most 1: MI <= the mean of the entropies, rounding aside
    return select(one_side | singletons, 0.0, minimum(value, 1.0))


# --------------------------------------------------------------------------- SMI
_SMI_METHOD = Choice(("auto", "exact", "monte_carlo"),
                     "How sd[MI] is found: 'exact' (Romano et al.'s variance, summed where "
                     "the hypergeometric laws have mass; refused when estimated above about "
                     "a minute), 'monte_carlo' (random tables with the same margins; the "
                     "result states its standard error) or 'auto' (exact when its estimated "
                     "cost is small, else Monte Carlo).")
_SMI_SAMPLES = Integer("Random tables drawn by the Monte Carlo method.", low=2)
_SMI_SEED = Integer("Seed of the Monte Carlo draws (results are reproducible).", low=0)
# exact cost (units of ~5 ns, as the sampling costs: hypergeometric terms times
# _smi.EXACT_TERM_COST) that ``auto`` accepts whatever the alternative: about 0.5 s
_SMI_EXACT_BUDGET = 1e8
# ``auto`` also takes the exact value when it costs at most this many times the fewest
# random tables it would draw (an exact value is worth more than 20 tables)
_SMI_EXACT_PREFERENCE = 2.0
# ``method="exact"`` refuses (ValueError) above this estimated cost (~1 minute)
_SMI_EXACT_REFUSE = 1.2e10
# ``auto`` draws at most n_samples random tables and at most this much sampling work (~0.4 s
# at ~5 ns a unit, see _smi.sample_cost), but at least _SMI_AUTO_MIN_SAMPLES (the control
# variates make 20 tables worth a few hundred plain ones on most tables, and the result
# states its standard error)
_SMI_AUTO_MC_BUDGET = 8e7
_SMI_AUTO_MIN_SAMPLES = 20
# ``auto`` refuses (ValueError) when even the minimum of draws would cost more (~10 min)
_SMI_AUTO_REFUSE = 1.2e11
_SMI_EXACT_MAX_N = 10**9  # int64 products (d + 1)(s + 1) of the windows' modes


class StandardizedMI(NamedTuple):
    """Result of :func:`standardized_mutual_info`.

    ``value`` is the SMI; ``method`` the method used ("exact" or "monte_carlo");
    ``standard_error`` the Monte Carlo standard error of ``value`` (0.0 when exact; inf
    when the draws missed the rare tables that carry the variance, as on a 2 x 2 table
    with a few stray items: use ``method="exact"`` or more tables there);
    ``n_samples`` the random tables drawn (0 when exact); ``expected_mi`` and ``sd_mi`` the
    mean (always exact) and standard deviation of MI under the permutation model (nats).
    """

    value: float
    method: str
    standard_error: float
    n_samples: int
    expected_mi: float
    sd_mi: float

    @property
    def rate(self) -> float:  # the registry reads a detail's score as ``rate``
        return self.value


def _smi_undefined(table: Contingency) -> bool:
    """MI is the same for every pairing: a side with one label or with only singletons."""
    n = table.n_samples
    return table.n_classes in (1, n) or table.n_clusters in (1, n)


def _auto_exact(n: Any, exact: Any, sampling: Any) -> Any:
    """Whether ``auto`` takes the exact variance: estimated to cost at most
    _SMI_EXACT_BUDGET, or at most _SMI_EXACT_PREFERENCE times the fewest random tables it
    would draw (arrays of many tables' costs too)."""
    return (n <= _SMI_EXACT_MAX_N) & ((exact <= _SMI_EXACT_BUDGET) | (
        exact <= _SMI_EXACT_PREFERENCE * sampling * _SMI_AUTO_MIN_SAMPLES))


def _stack_smi(stack: TableStack, method: str, n_samples: int, random_state: int
               ) -> np.ndarray:
    """SMI of each table of a stack. The tables whose variance is exact (``auto``'s choice,
    table by table as for one table alone) take it in one pass that expands each law of a
    pair of sizes once for all of them (:func:`._smi.exact_variances`: bootstrap
    replicates share most of theirs); the others, and any the pass cannot bound, one by
    one."""
    out = np.zeros(len(stack))
    n = stack.n_samples
    undefined = ((stack.n_classes == 1) | (stack.n_classes == n) | (stack.n_clusters == 1)
                 | (stack.n_clusters == n))
    exact = ~undefined
    kernel = None
    if method != "monte_carlo" and exact.any() and bool(np.all(n == n[0])) \
            and _kernels.compiled_available():
        size = int(n[0])
        costs = exact_costs(stack.class_sizes[exact], stack.cluster_sizes[exact], size)
        if method == "auto":
            exact[exact] = _auto_exact(size, costs, sample_costs(
                stack.n_classes[exact], stack.n_clusters[exact], size))
        else:  # too costly or too large: refused table by table below
            exact[exact] = (costs <= _SMI_EXACT_REFUSE) & (size <= _SMI_EXACT_MAX_N)
        if exact.any():  # the uncompiled work the pass saves, as repeats count it
            kernel = compiled.smi_variances_kernel(
                float(costs.sum()) * PYTHON_STEP_COST / KERNEL_STEP_COST
                / EXACT_TERM_COST / _kernels.repeats())
    if kernel is None:
        exact[:] = False
    if exact.any():
        var, done = exact_variances(stack.class_sizes[exact], stack.cluster_sizes[exact],
                                    int(n[0]), kernel)
        many: Any = stack  # _info and _emi take a stack as they take a table
        mi, emi = np.asarray(_info(many)[0]), np.asarray(_emi(many))
        at = np.flatnonzero(exact)
        sd = np.sqrt(var) / n[at]
        flat = done & (sd <= 0)  # MI the same for every pairing (0/0)
        out[at] = np.where(done & (sd > 0), (mi[at] - emi[at]) / np.where(sd > 0, sd, 1.0),
                           0.0)
        undefined[at[flat]] = True
        exact[at[~done]] = False
    for b in np.flatnonzero(~exact & ~undefined):
        try:
            out[b] = standardized_mutual_info_score.spec.body(
                stack.table(int(b)), method=method, n_samples=n_samples,
                random_state=random_state)
        except Undefined:
            undefined[b] = True
            out[b] = 0.0
    if undefined.any():
        stack.record_undefined(undefined, 0.0)
    return out


def _smi(table: Contingency, method: str, n_samples: int, random_state: int) -> StandardizedMI:
    mi, _, _ = _info(table)
    if _smi_undefined(table):
        return StandardizedMI(0.0, "exact", 0.0, 0, mi, 0.0)
    emi = _emi(table)
    a, b, n = table.class_sizes, table.cluster_sizes, int(table.n_samples)  # counts
    # the estimate depends on whether compiled kernels may run (the kernels mode)
    plan = table.cached(f"smi:plan:{_kernels.compiled_available()}",
                        lambda t: exact_cost(a, b))
    if method == "auto":
        work, cost = plan.work, sample_cost(a, b)
        if _auto_exact(n, plan.cost, cost):
            method = "exact"
        elif cost * _SMI_AUTO_MIN_SAMPLES > _SMI_AUTO_REFUSE:
            sampling = (f"{_SMI_AUTO_MIN_SAMPLES} random tables "
                        f"~{cost * _SMI_AUTO_MIN_SAMPLES:.1e} "
                        "operations; pass method='exact' or method='monte_carlo' to run it "
                        "anyway") if math.isfinite(cost) else \
                "the Monte Carlo sampler needs N < 1e9"
            raise ScoreUnavailable(f"SMI on this table (N = {n}) is too costly: the exact "
                             f"variance needs ~{work:.1e} steps and {sampling}")
        else:
            method = "monte_carlo"
            affordable = int(_SMI_AUTO_MC_BUDGET // cost)
            n_samples = min(n_samples, max(_SMI_AUTO_MIN_SAMPLES, affordable))
    if method == "exact":
        if n > _SMI_EXACT_MAX_N:
            raise ValueError(f"method='exact' needs N <= {_SMI_EXACT_MAX_N:.0e}, got N = {n}")
        if plan.cost > _SMI_EXACT_REFUSE:
            raise ValueError(
                f"method='exact' is too costly on this table: ~{plan.work:.1e} steps "
                f"(~{plan.cost * 5e-9:.0f} s estimated, above "
                f"~{_SMI_EXACT_REFUSE * 5e-9:.0f} s); use method='monte_carlo' or "
                "method='auto'")
        _, var_s = table.cached("smi:exact", lambda t: exact_variance(a, b, n, plan=plan))
        sd = math.sqrt(var_s) / n
        value = (mi - emi) / sd if sd > 0 else 0.0
        return StandardizedMI(float(value), "exact", 0.0, 0, emi, sd)
    # E[S] from the exact E[MI]: N MI = S + N log N - sum a log a - sum b log b
    e_s = math.fsum([n * emi, -n * math.log(n), s_of_counts(a), s_of_counts(b)])
    var_s, se_var = monte_carlo_variance(a, b, n, e_s, n_samples, random_state)
    if var_s <= 0:
        # every draw had S = E[S] (or the fit fell to 0): no variation seen
        return StandardizedMI(0.0, "monte_carlo", 0.0, n_samples, emi, 0.0)
    sd = math.sqrt(var_s) / n
    value = (mi - emi) / sd
    return StandardizedMI(float(value), "monte_carlo", abs(value) * se_var / (2.0 * var_s),
                          n_samples, emi, sd)


@score(options={"method": _SMI_METHOD, "n_samples": _SMI_SAMPLES,
                "random_state": _SMI_SEED}, returns="StandardizedMI", needs=_HYPERGEOMETRIC)
def standardized_mutual_info(table: Contingency, *, method: str = "auto", n_samples: int = 200,
                             random_state: int = 0) -> StandardizedMI:
    """Standardized mutual information with the method used and its standard error.

    The same value as :func:`standardized_mutual_info_score` (0.0 where that score is
    undefined, with ``sd_mi`` 0.0), as a :class:`StandardizedMI`: which method was used,
    the Monte Carlo standard error, and the mean and standard deviation of MI under the
    permutation model.

    Examples
    --------
    >>> r = standardized_mutual_info([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 2, 2])
    >>> r.method, round(r.value, 6)
    ('exact', 0.816497)

    References
    ----------
    Romano, Bailey, Nguyen & Verspoor, ICML 2014; Klede et al., AAAI 2023.
    """
    return _smi(table, method, n_samples, random_state)


@score(options={"method": _SMI_METHOD, "n_samples": _SMI_SAMPLES,
                "random_state": _SMI_SEED}, zero_division=0.0, needs=_HYPERGEOMETRIC)
def standardized_mutual_info_score(table: Contingency, *, method: str = "auto",
                                   n_samples: int = 200, random_state: int = 0) -> float:
    """Standardized mutual information: (MI - E[MI]) / sd[MI] (Romano et al. 2014).

    How many standard deviations MI lies above its mean over random labellings with the
    same class and cluster sizes (the permutation model of
    :func:`adjusted_mutual_info_score`). About 0 for independent labellings whatever the
    numbers of clusters, unbounded above; it corrects the selection bias of MI and AMI
    towards clusterings with many clusters when many candidates are compared against one
    truth (Romano et al. recommend it when N is small compared to the number of
    clusters). Symmetric. E[MI] is exact; sd[MI] is exact (``method="exact"``: Romano et
    al.'s variance, from one hypergeometric law per pair of distinct class and cluster
    sizes, each pair of cells' joint law expanded in orthogonal polynomials, a Lancaster
    expansion; compiled with numba where available: ~0.3 ms for 10 x 10 labels over 1000
    items, and bootstrap replicates share their laws) or estimated
    from ``n_samples`` random tables (``method="monte_carlo"``, seeded by
    ``random_state``; :func:`standardized_mutual_info` gives its standard error). The
    Monte Carlo variance uses control variates: pair counts and linear statistics of each
    table whose exact moments are known, so that a few tables give the precision of
    hundreds of plain ones on most tables. ``method="auto"`` is exact when that costs
    about a second at most, else Monte Carlo with at most ``n_samples`` tables and about
    half a second of draws (at least 20 tables: each costs O(min(R C, N)); the sampler
    needs N < 1e9). Where neither fits (about ten minutes for the minimum of draws)
    ``auto`` raises ValueError instead of running for hours; name a method to run it
    anyway. Undefined (0/0)
    when MI is the same for every pairing: a labelling with a single label or with only
    singletons; 0.0 there.

    Examples
    --------
    >>> round(standardized_mutual_info_score([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 2, 2]), 6)
    0.816497

    References
    ----------
    Romano, Bailey, Nguyen & Verspoor, "Standardized mutual information for clustering
    comparisons: one step further in adjustment for chance", ICML 2014; Klede et al.,
    "FastAMI - a Monte Carlo approach to the adjustment for chance in clustering
    comparison metrics", AAAI 2023.
    """
    if is_stack(table):  # one variance problem per table, the exact ones together
        return cast(float, _stack_smi(table, method, n_samples, random_state))
    if _smi_undefined(table):
        raise Undefined(0.0, "SMI is undefined (0/0): MI is the same for every pairing (a "
                             "labelling with a single label or only singletons)")
    result = _smi(table, method, n_samples, random_state)
    if result.sd_mi <= 0:
        raise Undefined(0.0, "SMI is undefined (0/0): the sampled MI did not vary")
    return result.value


# --------------------------------------------------------------------------- RMI
_RNMI_NORM = Choice(("truth", "prediction", "arithmetic", "geometric", "min", "max"),
                    "'truth': RMI(truth; pred) / RMI(truth; truth), the share of the truth's "
                    "information recovered (Jerdee et al.'s recommended asymmetric form); "
                    "'prediction': the same with the roles swapped; the others a symmetric "
                    "ratio of the two directions' RMI to the two self-informations.")


def _reduced_parts(table: Contingency) -> tuple[float, float, float, float]:
    """(RMI(t; p), RMI(p; t), RMI(t; t), RMI(p; p)) for the whole data set (nats).

    Each code length is its concentration-dependent part (minimised in :mod:`._reduced`)
    plus log-factorials that do not depend on it; those combine into N MI (or N H) and
    the small Stirling terms, so no difference of two numbers of size N log N is formed.
    Where the optimal concentrations are large the codes are nearly N log q and their
    difference is taken from the small remainders instead (``code_difference``)."""
    if is_stack(table):  # every table's codes minimised together
        return table.cached("reduced", _stack_reduced_parts)
    return table.cached("reduced", lambda t: _reduced_finish(t, minimise(_reduced_specs(t))))


def _reduced_specs(t: Contingency) -> list[CodeSpec]:
    """The six codes of a table: H(g), H(c), H(g|c), H(c|g), H(g|g), H(c|c)."""
    q_t, q_p = t.n_classes, t.n_clusters
    a, b, cells = distinct(t.class_sizes), distinct(t.cluster_sizes), distinct(t.counts)
    whole = (np.array([float(t.n_samples)]), np.ones(1))
    # a conditional code whose groups each hold one cell (every cluster inside one class)
    # describes the table itself and increases with the concentration, as H(g|g) does:
    # identical partitions then give RMI(t; p) = RMI(t; t) exactly
    return [CodeSpec(q_t, *whole, *a), CodeSpec(q_p, *whole, *b),
            CodeSpec(q_t, *b, *cells, increasing=t.nnz == q_p),
            CodeSpec(q_p, *a, *cells, increasing=t.nnz == q_t),
            CodeSpec(q_t, *a, *a, increasing=True), CodeSpec(q_p, *b, *b, increasing=True)]


def _reduced_finish(t: Contingency, codes: list[Optimum],
                    ) -> tuple[float, float, float, float]:
    """:func:`_reduced_parts` from the table's six minimised codes."""
    mi, h_t, h_p = _info(t)
    n = t.n_samples
    a, b, cells = distinct(t.class_sizes), distinct(t.cluster_sizes), distinct(t.counts)
    whole = (np.array([float(n)]), np.ones(1))
    c_t, c_p, t_p, p_t, t_t, p_p = codes
    s_n, s_c, s_a, s_b = stirling_excess([whole, cells, a, b])
    shared = [n * mi, s_n, s_c, -s_a, -s_b]
    return (code_difference(c_t, t_p, shared), code_difference(c_p, p_t, shared),
            code_difference(c_t, t_t, [n * h_t, s_n, -s_a]),
            code_difference(c_p, p_p, [n * h_p, s_n, -s_b]))


def _stack_reduced_parts(stack: TableStack) -> tuple[np.ndarray, ...]:
    """:func:`_reduced_parts` of each table of a stack, the six codes of every distinct
    table minimised in one :func:`~._reduced.minimise` (one array evaluation per step for
    all of them, the same steps as for one table)."""
    def batch(tables: list[Contingency]) -> list[tuple[float, float, float, float]]:
        codes = minimise([spec for t in tables for spec in _reduced_specs(t)])
        return [_reduced_finish(t, codes[6 * i:6 * i + 6]) for i, t in enumerate(tables)]
    parts = stack.each_batch(batch, "reduced")
    return tuple(np.array(column, dtype=np.float64) for column in zip(*parts, strict=True))


@score(needs=_CODE_LENGTHS)
def reduced_mutual_info_score(table: Contingency) -> float:
    """Reduced mutual information (nats per item), Dirichlet-multinomial encoding.

    RMI = [H(truth) - H(truth | pred)] / N, where each H is the length of a code for the
    labels in which the class sizes (H(truth)), or each cluster's split into classes
    (H(truth | pred)), are sent with a Dirichlet-multinomial prior whose concentration is
    optimised (over [1e-4, 1e4]). Unlike MI it charges the prediction for the information
    needed to describe the contingency table, so a prediction with many small clusters
    gets no credit for them: about 0 (often negative) for independent labellings, at most
    about H(truth). Not symmetric (the truth is the labelling being described). O(nnz + R
    + C) for the sizes' distinct values; the concentrations of all the codes the RMI
    scores share are then found together (their derivatives on a grid, then Newton; every
    local minimum is compared). The reference package ``clustering-mi`` reports
    N RMI / log 2 (bits, whole data set).

    Examples
    --------
    >>> round(reduced_mutual_info_score([0, 0, 0, 1, 1, 1], [0, 0, 0, 1, 1, 1]), 6)
    0.462073

    References
    ----------
    Jerdee, Kirkley & Newman, "Mutual information and the encoding of contingency
    tables", Phys. Rev. E 110, 064306 (2024); Newman, Cantwell & Young, "Improved mutual
    information measure for clustering, classification, and community detection", Phys.
    Rev. E 101, 042304 (2020).
    """
    return _reduced_parts(table)[0] / table.n_samples


@score(options={"normalization": _RNMI_NORM}, zero_division=True, needs=_CODE_LENGTHS)
def normalized_reduced_mutual_info_score(table: Contingency, *,
                                         normalization: str = "truth") -> float:
    """Normalised reduced mutual information (Jerdee, Kirkley & Newman).

    With RMI(x; y) = H(x) - H(x | y) (see :func:`reduced_mutual_info_score`):
    ``normalization="truth"`` (default) is RMI(truth; pred) / RMI(truth; truth), the
    fraction of the truth's information that the prediction recovers; the authors show
    that the symmetric normalisations of NMI are biased towards predictions with many or
    few clusters and recommend this asymmetric form when one labelling is the ground truth.
    "prediction" swaps the roles; "arithmetic" is (RMI(t; p) + RMI(p; t)) / (RMI(t; t) +
    RMI(p; p)), and "geometric", "min" and "max" take that mean of the two directions and
    of the two self-informations. 1.0 for identical labellings, about 0 (possibly
    negative) for independent ones. Undefined (0/0) when the denominator is not positive
    (a single true class for "truth"): 1.0 when both labellings have a single label, else
    0.0.

    Examples
    --------
    >>> normalized_reduced_mutual_info_score([0, 0, 1, 1], [1, 1, 0, 0])
    1.0

    References
    ----------
    Jerdee, Kirkley & Newman, "Normalized mutual information is a biased measure for
    classification and community detection", arXiv:2307.01282 (2023); Jerdee, Kirkley &
    Newman, Phys. Rev. E 110, 064306 (2024).
    """
    tp, pt, tt, pp = _reduced_parts(table)
    if normalization == "truth":
        num, den = tp, tt
    elif normalization == "prediction":
        num, den = pt, pp
    elif normalization == "arithmetic":
        num, den = tp + pt, tt + pp
    elif normalization == "geometric":
        num = select(tp * pt >= 0, with_sign(sqrt(abs(tp * pt)), tp), -math.inf)
        den = select((tt > 0) & (pp > 0), sqrt(maximum(tt * pp, 0.0)), 0.0)
    elif normalization == "min":
        num, den = minimum(tp, pt), minimum(tt, pp)
    else:
        num, den = maximum(tp, pt), maximum(tt, pp)
    both_single = (table.n_classes == 1) & (table.n_clusters == 1)
    undefined_where(table, (den <= 0) | (num == -math.inf), select(both_single, 1.0, 0.0),
                    "normalised RMI is undefined (0/0): the self-information in the "
                    "denominator is not positive")
    return minimum(ratio(num, den, 0.0), 1.0)  # at most 1, rounding aside


def expected_mi_random(table: Contingency, random_model: str) -> float:
    """E[MI] (nats) with the truth fixed and the prediction random under ``random_model``
    ("num" or "all"; see :func:`adjusted_mutual_info_score`), cached on the table."""
    def compute(t: Contingency) -> float:
        n = int(t.n_samples)  # item counts only: the scores refuse real masses
        sizes, weights = cluster_size_weights(random_model, n, t.n_clusters)
        if t.n_classes == 1:
            return 0.0
        keep = weights > 0
        ua, ca = np.unique(np.asarray(t.class_sizes, dtype=np.int64), return_counts=True)
        return expected_mutual_information_weighted(ua, ca, sizes[keep], weights[keep], n)
    return table.cached(f"emi_{random_model}", compute)


def _ami_one_sided(table: Contingency, average_method: str, random_model: str) -> float:
    if table.n_classes == 1 or (random_model == "num" and table.n_clusters == 1):
        return 0.0  # MI = 0 for every random clustering: MI - E[MI] = 0 exactly
    emi = expected_mi_random(table, random_model)
    mi, h_true, h_pred = _info(table)
    denominator = _mean(h_true, h_pred, mi, average_method) - emi
    if denominator <= 0:
        raise Undefined(1.0 if mi == _mean(h_true, h_pred, mi, average_method) else 0.0,
                        f"AMI under random_model={random_model!r} is undefined: the "
                        "normaliser is not above the expected MI")
    return float((mi - emi) / denominator)


def homogeneity_completeness_v_measure(labels_true: Any, labels_pred: Any = None, *,
                                       beta: float = 1.0, sample_weight: Any = None,
                                       ) -> tuple[float, float, float]:
    """Homogeneity, completeness and V-measure at once (Rosenberg & Hirschberg).

    homogeneity h = MI / H(truth) (1.0 when H(truth) = 0): each cluster holds one class;
    completeness c = MI / H(prediction) (1.0 when H(prediction) = 0): each class sits in
    one cluster; V = (1 + beta) h c / (beta h + c) (0.0 when h + c = 0, and when beta = 0
    and c = 0, where scikit-learn raises ZeroDivisionError). All in [0, 1].
    ``sample_weight`` as in :func:`homogeneity_score` (one weight per item).

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
    beta = _BETA.check("beta", beta)
    table = as_contingency(labels_true, labels_pred, sample_weight)
    return _share(table, 1), _share(table, 2), _v_measure(table, beta, raising=False)


def _share(table: Contingency, side: int) -> float:
    """MI / H(truth) (side 1) or MI / H(prediction) (side 2); 1.0 for 0/0, a single label."""
    info = _info(table)
    return minimum(ratio(info[0], info[side], 1.0), 1.0)  # MI <= H, rounding aside


def _v_measure(table: Contingency, beta: float, raising: bool = True) -> float:
    homogeneity, completeness = _share(table, 1), _share(table, 2)
    if isinstance(homogeneity, Fraction):  # real masses: the formula stays exact
        beta = Fraction(beta)
    # the second case (beta = 0, completeness 0) is the limit 0; scikit-learn raises
    # ZeroDivisionError there
    zero = (homogeneity + completeness == 0.0) | (beta * homogeneity + completeness == 0.0)
    if raising:
        undefined_where(table, zero, 0.0,
                        "the V-measure is undefined (0/0): homogeneity and completeness are 0")
    return select(zero, 0.0, ratio((1 + beta) * homogeneity * completeness,
                                   beta * homogeneity + completeness, 0.0))


@score(zero_division=True, real=_REAL_INFO, reads=("information",))
def homogeneity_score(table: Contingency) -> float:
    """Homogeneity: MI / H(truth), 1.0 when every cluster holds items of a single class.

    Range [0, 1]; not symmetric: ``homogeneity_score(t, p) == completeness_score(p, t)``.
    See :func:`homogeneity_completeness_v_measure`.

    1.0 when the truth has a single class (H(truth) = 0: a 0/0).

    Examples
    --------
    >>> homogeneity_score([0, 0, 1, 1], [0, 1, 2, 3])
    1.0

    References
    ----------
    Rosenberg & Hirschberg, EMNLP-CoNLL (2007).
    """
    undefined_where(table, _info(table)[1] == 0, 1.0,
                    "homogeneity is undefined (0/0): the truth has a single class")
    return _share(table, 1)


@score(zero_division=True, real=_REAL_INFO, reads=("information",))
def completeness_score(table: Contingency) -> float:
    """Completeness: MI / H(prediction), 1.0 when every class lies within a single cluster.

    Range [0, 1]; not symmetric. See :func:`homogeneity_completeness_v_measure`.

    1.0 when the prediction has a single cluster (H(prediction) = 0: a 0/0).

    Examples
    --------
    >>> completeness_score([0, 0, 1, 1], [0, 0, 0, 0])
    1.0

    References
    ----------
    Rosenberg & Hirschberg, EMNLP-CoNLL (2007).
    """
    undefined_where(table, _info(table)[2] == 0, 1.0,
                    "completeness is undefined (0/0): the prediction has a single cluster")
    return _share(table, 2)


@score(options={"beta": _BETA}, zero_division=True, real=_REAL_INFO, reads=("information",))
def v_measure_score(table: Contingency, *, beta: float = 1.0) -> float:
    """V-measure: weighted harmonic mean of homogeneity and completeness.

    V = (1 + beta) h c / (beta h + c), in [0, 1]; with beta = 1 it equals NMI with the
    arithmetic mean. ``beta`` > 1 weighs completeness more. Symmetric for beta = 1. 0.0
    when homogeneity and completeness are both 0 (a 0/0), and its limit 0.0 when beta = 0
    and completeness is 0 (scikit-learn raises ZeroDivisionError there).

    Examples
    --------
    >>> round(v_measure_score([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 2, 2]), 6)
    0.515804

    References
    ----------
    Rosenberg & Hirschberg, EMNLP-CoNLL (2007).
    """
    _, h_true, h_pred = _info(table)
    # a single label: homogeneity or completeness is its 0/0 convention
    single = (h_true == 0) | (h_pred == 0)
    if is_many(single) or single:
        undefined_where(table, single, _v_measure(table, beta, raising=False),
                        "the V-measure is undefined (0/0): a labelling with a single label "
                        "leaves homogeneity or completeness at its convention")
    return _v_measure(table, beta)


@score(real=_REAL_INFO, reads=("information",))
def variation_of_information_distance(table: Contingency) -> float:
    """Variation of information (Meila): VI = H(U) + H(V) - 2 MI = H(U|V) + H(V|U), in nats.

    A metric on partitions: 0.0 exactly for identical partitions, at most log N, lower is
    better, symmetric. Divide by log N for Meila's [0, 1] scaling.

    Examples
    --------
    >>> round(variation_of_information_distance([0, 0, 1, 1], [0, 0, 0, 0]), 6)
    0.693147

    References
    ----------
    Meila, "Comparing clusterings - an information based distance", JMVA 98 (2007).
    """
    if table.real_valued:  # H(U|V) + H(V|U), cell by cell: no cancellation
        true_given_pred, pred_given_true = _real_conditional(table)
        return cast(float, true_given_pred + pred_given_true)
    mi, h_true, h_pred = _info(table)
    return maximum(h_true + h_pred - 2.0 * mi, 0.0)


@score(zero_division=True, real=_REAL_INFO, reads=("information",))
def normalized_variation_of_information_distance(table: Contingency) -> float:
    """Normalised variation of information: VI / H(U, V) = 1 - MI / H(U, V).

    Vinh et al.'s d_joint, aricode ``NVI``. Range [0, 1], lower is better, symmetric, a
    metric. 0.0 for identical partitions, including when both are a single cluster
    (H(U, V) = 0).

    Examples
    --------
    >>> normalized_variation_of_information_distance([0, 0, 1, 1], [0, 0, 0, 0])
    1.0

    References
    ----------
    Vinh, Epps & Bailey, JMLR 11 (2010), Table 2; aricode ``NVI``.
    """
    mi, h_true, h_pred = _info(table)
    joint = h_true + h_pred - mi
    undefined_where(table, joint <= 0.0, 0.0,
                    "NVI is undefined (0/0): both labellings have a single label")
    if table.real_valued:  # VI / (VI + MI) from the conditional entropies
        true_given_pred, pred_given_true = _real_conditional(table)
        vi = true_given_pred + pred_given_true
        return min(vi / (vi + mi), 1.0)
    return minimum(maximum(ratio(h_true + h_pred - 2.0 * mi, joint, 0.0), 0.0), 1.0)


@score(zero_division=True, real=_REAL_INFO, reads=("information",))
def normalized_information_distance(table: Contingency) -> float:
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
    mi, h_true, h_pred = _info(table)
    top = maximum(h_true, h_pred)
    undefined_where(table, top <= 0.0, 0.0,
                    "NID is undefined (0/0): both labellings have a single label")
    if table.real_valued:  # 1 - MI / max(H(U), H(V)) = max(H(U|V) / H(U), H(V|U) / H(V))
        true_given_pred, pred_given_true = _real_conditional(table)
        return min(max(true_given_pred / h_true if h_true else 0.0,
                       pred_given_true / h_pred if h_pred else 0.0), 1.0)
    return minimum(maximum(1.0 - ratio(mi, top, 0.0), 0.0), 1.0)


@score(real=_REAL_INFO)
def cluster_entropy_error(table: Contingency) -> float:
    """Cluster entropy: size-weighted entropy of the true classes inside each cluster (nats).

        E = sum_j (b_j / N) H_j,  H_j = -sum_i (n_ij / b_j) log(n_ij / b_j),

    which is the conditional entropy H(U|V). 0.0 when every cluster is pure, at most
    H(U); lower is better; not symmetric (``cluster_entropy_error(p, t)`` is H(V|U)). Computed
    cell by cell in O(nnz), not as a difference, so pure clusterings give exactly 0.
    permetrics ES intends this (in bits) but sums the per-cluster entropies unweighted, see
    docs/metric-notes.md.

    Examples
    --------
    >>> round(cluster_entropy_error([0, 0, 1, 1], [0, 0, 0, 0]), 6)
    0.693147

    References
    ----------
    Zhao & Karypis, "Criterion functions for document clustering" (2001).
    """
    if table.real_valued:  # a Fraction, rounded once by the score's wrapper
        return cast(float, _real_conditional(table)[0])
    terms = log_cluster_size_cells(table) - log_counts(table)
    terms *= counts_float(table)
    return maximum(total(table, terms) / table.n_samples, 0.0)


@score(real=_REAL_INFO)
def chi2_score(table: Contingency) -> float:
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
    return table.cached("chi2", _chi2)


def _chi2(table: Contingency) -> float:
    """N (sum n^2 / (a b) - 1) = sum_ij n_ij d_ij / (a_i b_j), d = N n - a b exact.

    The second form does not cancel at large N (N times a sum near 1). Its terms may still
    cancel each other (near-independent tables of large counts); when they do, each term
    is split exactly into an integer part and a remainder below 1, so the error no longer
    grows with the terms' size."""
    if is_stack(table):  # n d / (a b) per cell; a stack's empty cells add 0
        counts = table.counts
        ab = class_size_cells(table) * cluster_size_cells(table)
        d = counts * table.n_samples[:, None] - ab
        return np.maximum(total(table, quotients(table, counts * d, ab)), 0.0)
    if table.real_valued:
        return _real_chi2(table)
    counts = exact_ints(table, table.counts)
    ab = exact_ints(table, class_size_cells(table)) * cluster_size_cells(table)
    d = counts * table.n_samples - ab
    terms = d.astype(np.float64) / ab.astype(np.float64)
    terms *= table.counts
    summed = accurate_sum(terms)
    if float(np.abs(terms).sum()) <= 16.0 * abs(summed):
        return max(summed, 0.0)
    wide = table.n_samples >= _INT64_CUBE_N  # n d may pass 2^63: Python ints
    nd = counts.astype(object) * d if wide else counts * d
    ab = ab.astype(object) if wide else ab
    whole, rest = nd // ab, nd % ab
    fractions = rest.astype(np.float64) / ab.astype(np.float64)
    return max(float(int(whole.sum()) + accurate_sum(fractions)), 0.0)


_INT64_CUBE_N = 2_097_151  # below this N, n d <= N^3 fits in int64


def _real_chi2(table: Contingency) -> float:
    """chi2 of a real-valued table: sum_ij n_ij d_ij / (a_i b_j) = S / 2^k over the exact
    scaled integers, each term split into its integer part (summed exactly) and a
    remainder in [0, 1) (a float keeps its digits). Where the terms cancel so much that S
    is not far above the remainders' rounding (a nearly independent table, or masses so
    small that S < 1), the numerators are scaled by 2^s until it is, then divided back."""
    d, ab, cells, k = _real_deviations(table)
    nd = cells * d
    if not any(nd.tolist()):
        return 0.0  # every cell at its expectation
    shift, enough = 0, 62 + table.nnz.bit_length()  # S 2^s above 2^enough: remainders negligible
    while True:
        whole, rest = (nd << shift) // ab, (nd << shift) % ab
        value = int(whole.sum()) + Fraction(accurate_sum((rest / ab).astype(np.float64)))
        if value.numerator.bit_length() - value.denominator.bit_length() >= enough:
            return max(float(value / (1 << (k + shift))), 0.0)
        shift += enough + max(0, value.denominator.bit_length() -
                              value.numerator.bit_length())


# old names: variants are options now; lower-is-better scores end in _distance / _error
variation_of_information = deprecated_alias("variation_of_information",
                                            variation_of_information_distance)
normalized_variation_of_information = deprecated_alias(
    "normalized_variation_of_information", normalized_variation_of_information_distance)
cluster_entropy = deprecated_alias("cluster_entropy", cluster_entropy_error)
nmi_joint_score = deprecated_alias("nmi_joint_score", normalized_mutual_info_score,
                                   average_method="joint")
nmi_geometric_score = deprecated_alias("nmi_geometric_score", normalized_mutual_info_score,
                                       average_method="geometric")
nmi_min_score = deprecated_alias("nmi_min_score", normalized_mutual_info_score,
                                 average_method="min")
nmi_max_score = deprecated_alias("nmi_max_score", normalized_mutual_info_score,
                                 average_method="max")
ami_geometric_score = deprecated_alias("ami_geometric_score", adjusted_mutual_info_score,
                                       average_method="geometric")
ami_min_score = deprecated_alias("ami_min_score", adjusted_mutual_info_score,
                                 average_method="min")
ami_max_score = deprecated_alias("ami_max_score", adjusted_mutual_info_score,
                                 average_method="max")

_VINH = "Vinh, Epps & Bailey, JMLR 11 (2010)"
_ROSENBERG = "Rosenberg & Hirschberg, EMNLP-CoNLL (2007)"
_STREHL = "Strehl & Ghosh, JMLR 3 (2002)"
_ROMANO = "Romano, Bailey, Nguyen & Verspoor, ICML (2014)"
_JERDEE = "Jerdee, Kirkley & Newman, Phys. Rev. E 110 (2024)"


def _entry(key: str, name: str, func: ScoreFunction[Any], lower: float, upper: float,
           reference: str, *, better: Better = "higher", symmetric: bool = True,
           adjusted: bool = False, **more: Any) -> MetricInfo:
    return MetricInfo(key=key, name=name, func=func, family=INFO, lower=lower, upper=upper,
                      better=better, symmetric=symmetric, adjusted=adjusted,
                      reference=reference, **more)


def _nmi(key: str, name: str, mean: str, reference: str) -> MetricInfo:
    return _entry(key, name, normalized_mutual_info_score, 0.0, 1.0, reference,
                  options={"average_method": mean})


def _ami(key: str, name: str, mean: str) -> MetricInfo:
    return _entry(key, name, adjusted_mutual_info_score, -math.inf, 1.0, _VINH,
                  adjusted=True, options={"average_method": mean})


ENTRIES = [
    _ami("ami", "Adjusted mutual information", "arithmetic"),
    _nmi("nmi", "Normalized mutual information", "arithmetic", _STREHL),
    _entry("mi", "Mutual information (nats)", mutual_info_score, 0.0, math.inf,
           "Cover & Thomas (2006)", perfect=None),
    _entry("homogeneity", "Homogeneity", homogeneity_score, 0.0, 1.0, _ROSENBERG,
           symmetric=False),
    _entry("completeness", "Completeness", completeness_score, 0.0, 1.0, _ROSENBERG,
           symmetric=False),
    _entry("v_measure", "V-measure", v_measure_score, 0.0, 1.0, _ROSENBERG),
    _entry("vi", "Variation of information (nats)", variation_of_information_distance, 0.0,
           math.inf, "Meila, JMVA 98 (2007)", better="lower", perfect=0.0),
    _entry("nvi", "Normalized variation of information",
           normalized_variation_of_information_distance, 0.0, 1.0, _VINH, better="lower",
           perfect=0.0),
    _entry("nid", "Normalized information distance", normalized_information_distance, 0.0,
           1.0, _VINH, better="lower", perfect=0.0),
    _nmi("nmi_joint", "NMI (joint entropy)", "joint", _VINH),
    _nmi("nmi_geometric", "NMI (geometric mean)", "geometric", _STREHL),
    _nmi("nmi_min", "NMI (min entropy)", "min", _VINH),
    _nmi("nmi_max", "NMI (max entropy)", "max", _VINH),
    _ami("ami_geometric", "AMI (geometric mean)", "geometric"),
    _ami("ami_min", "AMI (min entropy)", "min"),
    _ami("ami_max", "AMI (max entropy)", "max"),
    _entry("cluster_entropy", "Cluster entropy H(truth|pred) (nats)", cluster_entropy_error,
           0.0, math.inf, "Zhao & Karypis (2001); permetrics ES", better="lower",
           symmetric=False, perfect=0.0),
    _entry("chi2", "Chi-square statistic of the table", chi2_score, 0.0, math.inf,
           "Pearson (1900); aricode Chi2", perfect=None),
    _entry("smi", "Standardized mutual information", standardized_mutual_info_score,
           -math.inf, math.inf, _ROMANO, adjusted=True, perfect=None,
           detail=standardized_mutual_info.spec.body),
    _entry("rmi", "Reduced mutual information (nats)", reduced_mutual_info_score, -math.inf,
           math.inf, _JERDEE, symmetric=False, adjusted=True, perfect=None),
    _entry("rnmi", "Normalized reduced MI (truth)", normalized_reduced_mutual_info_score,
           -math.inf, 1.0, _JERDEE, symmetric=False, adjusted=True),
    _entry("rnmi_arithmetic", "Normalized reduced MI (arithmetic)",
           normalized_reduced_mutual_info_score, -math.inf, 1.0, _JERDEE, adjusted=True,
           options={"normalization": "arithmetic"}),
]
