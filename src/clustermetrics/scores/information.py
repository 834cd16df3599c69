"""Information-theoretic scores: entropies, mutual information and its normalisations,
the variation of information, the cluster entropy and the chi-square statistic.

With p_i = a_i/N, q_j = b_j/N and p_ij = n_ij/N (natural logarithms, nats):

    H(U) = -sum_i p_i log p_i,   MI(U, V) = sum_ij p_ij log(p_ij / (p_i q_j)),

the joint entropy H(U, V) = H(U) + H(V) - MI and the conditional H(U|V) = H(U) - MI.
All are O(nnz) functions of the table; MI and the entropies are computed once per table
and shared by every score (:mod:`._entropies`), each cell's log taken of an exact integer
ratio. AMI's expected MI is :mod:`._emi`. Values match scikit-learn 1.9 with its edge-case
conventions, except the deviations the user guide lists. The standardized MI is
:mod:`.standardized_information`, the reduced MI :mod:`.reduced_information`.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, cast

import numpy as np

from ..table import Contingency, as_contingency
from ..table.factorize import factorize
from ..table.stack import is_stack
from ..table.validation import as_label_array, check_same_length
from ._cells import (
    accurate_sum,
    class_size_cells,
    cluster_size_cells,
    counts_float,
    exact_ints,
    log_cluster_size_cells,
    log_counts,
    quotients,
    total,
)
from ._elementwise import is_many, maximum, minimum, ratio, select, sqrt, undefined_where
from ._emi import (
    expected_mutual_information,
    expected_mutual_information_of_tables,
    expected_mutual_information_weighted,
)
from ._entropies import (
    _entropy_of_sizes,
    _info,
    _real_conditional,
    _real_deviations,
)
from ._random_models import RANDOM_MODELS, cluster_size_weights
from .spec import (
    INFO,
    Better,
    Choice,
    MetricInfo,
    Real,
    ScoreFunction,
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
    "cluster_entropy_error", "chi2_score",
    # deprecated names
    "variation_of_information", "normalized_variation_of_information", "cluster_entropy",
    "nmi_joint_score", "nmi_geometric_score", "nmi_min_score", "nmi_max_score",
    "ami_geometric_score", "ami_min_score", "ami_max_score",
]

_EPS = float(np.finfo(np.float64).eps)
_REAL_INFO = ("entropies and mutual information of the weighted joint distribution "
              "p_ij = n_ij / N of the real masses")
_HYPERGEOMETRIC = "its chance term averages over random tables of whole items"
_AVERAGES = ("arithmetic", "geometric", "min", "max")


def _emi(table: Contingency) -> float:
    if is_stack(table):  # each hypergeometric law once for all the tables
        return table.cached("emi", lambda s: expected_mutual_information_of_tables(
            s.class_sizes, s.cluster_sizes, s.n_samples))
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
]
