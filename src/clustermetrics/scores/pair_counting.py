"""Pair-counting scores: the indices of the 2x2 table of item pairs (:mod:`.pair_table`).

Every index of the family (clusterCrit, permetrics, clusim, genieclust, aricode) is a ratio
of integer expressions of a = TP, b = FN, c = FP, d = TN, computed in O(nnz) from the table
as exact integers, so no score here overflows at any N (scikit-learn's int64 products do,
from N ~ 3e9); each is divided once (a square root taken last, on a correctly rounded
quotient), so nothing cancels either. Where a denominator is zero the score raises its
documented convention through the zero-division policy of
:func:`~clustermetrics.scores.spec.score`. The scores against chance (the standardized and
modified adjusted Rand indices, the analytic significance of the indices) are
:mod:`.pair_chance`.
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, cast

from ..table import REAL_MASSES, Contingency
from ._elementwise import minimum, select, sqrt, undefined_where, with_sign
from ._random_models import RANDOM_MODELS, pair_probability
from .pair_chance import _CHANCE, _affine_null
from .pair_table import _pairs
from .spec import (
    PAIR,
    Better,
    Choice,
    MetricInfo,
    Real,
    ScoreFunction,
    ScoreUnavailable,
    Undefined,
    deprecated_alias,
    require_counts,
    score,
)

__all__ = [
    "ENTRIES",
    "rand_score", "adjusted_rand_score", "fowlkes_mallows_score", "pair_precision_score",
    "pair_recall_score", "pair_f_score", "pair_jaccard_score", "czekanowski_dice_score",
    "kulczynski_score", "mcnemar_score", "phi_score", "rogers_tanimoto_score",
    "russel_rao_score", "sokal_sneath1_score", "sokal_sneath2_score", "southwood_score",
    "kendall_tau_score", "gamma_score", "g_plus_distance", "g_plus_score",
    "adjusted_fowlkes_mallows_score",
]

_RANDOM_MODEL = Choice(RANDOM_MODELS, "Random clusterings the chance term is taken over, "
                       "the truth fixed: 'perm' (the prediction's cluster sizes fixed; "
                       "scikit-learn), 'num' (its number of clusters fixed), 'all' (any "
                       "clustering); Gates & Ahn, JMLR 18 (2017).")

# The bodies below return a Fraction on real masses (exact pair masses), which the @score
# wrapper rounds once to the float the public score returns (definition._plain), and arrays
# when the hierarchy evaluates many tables at once: cast(float, ...) types them as the
# float they become, without touching the value.
_REAL_PAIRS = ("the pair masses: C(n, 2) = n (n - 1) / 2 on each real cell, class, "
               "cluster and total mass, exact rationals of the float64 masses")


@score(zero_division=True, real=_REAL_PAIRS, reads=("pairs",))
def rand_score(table: Contingency) -> float:
    """Rand index: share of item pairs on which the two labellings agree.

    RI = (TP + TN) / C(N, 2), in [0, 1], 1 for identical partitions. With fewer than two
    items there are no pairs and the score is 1.0 (as scikit-learn).

    Examples
    --------
    >>> rand_score([0, 0, 1, 1], [1, 1, 0, 0])
    1.0

    References
    ----------
    Rand, "Objective criteria for the evaluation of clustering methods", JASA 66 (1971).
    """
    tp, fn, fp, tn = _pairs(table)
    agree, total = tp + tn, tp + fn + fp + tn
    undefined_where(table, total == 0, 1.0,
                    "the Rand index is undefined (0/0): there are no item pairs")
    return cast(float, agree / total)


@score(options={"random_model": _RANDOM_MODEL}, zero_division=True, real=_REAL_PAIRS,
       reads=("pairs",))
def adjusted_rand_score(table: Contingency, *, random_model: str = "perm") -> float:
    """Adjusted Rand index (Hubert & Arabie): the Rand index corrected for chance.

    ARI = (Index - Expected) / (Max - Expected) with Index = TP, Expected =
    (TP+FN)(TP+FP)/C(N,2) and Max = ((TP+FN) + (TP+FP))/2; equivalently
    2(TP*TN - FN*FP) / ((TP+FN)(FN+TN) + (TP+FP)(FP+TN)). Range [-0.5, 1]; about 0 for
    independent labellings, 1.0 for identical partitions. When no pair is split or joined
    differently (FN = FP = 0) the score is 1.0, as in scikit-learn. Symmetric. Computed
    exactly in integers and divided once.

    ``random_model`` chooses the random clusterings the expectation is taken over (Gates &
    Ahn 2017), with the truth fixed: "perm" (default, scikit-learn's ARI) keeps the
    predicted cluster sizes; "num" draws the prediction uniformly among the partitions
    into its number of clusters K; "all" uniformly among all partitions. Then ARI =
    (RI - E[RI]) / (1 - E[RI]), which is Hubert & Arabie's ARI for "perm", with
    E[RI] = (P/M) q + (1 - P/M)(1 - q), P the truth's together pairs, M = C(N, 2) and q the
    probability that two items share a random cluster: S(N-1, K) / S(N, K) ("num"),
    B(N-1) / B(N) ("all") (Stirling and Bell numbers, exact integers). Not symmetric for
    "num" and "all". They are computed up to N x K = 400,000 ("num") and N = 2,000
    ("all"); beyond, ValueError.

    Examples
    --------
    >>> round(adjusted_rand_score([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 2, 2]), 6)
    0.242424

    References
    ----------
    Hubert & Arabie, "Comparing partitions", J. Classification 2 (1985); Gates & Ahn, "The
    impact of random models on clustering similarity", JMLR 18 (2017).
    """
    tp, fn, fp, tn = _pairs(table)
    if random_model != "perm":
        require_counts(table, f"adjusted_rand_score with random_model={random_model!r}",
                       _CHANCE)
        return _ari_one_sided(table, random_model)
    den = (tp + fn) * (fn + tn) + (tp + fp) * (fp + tn)
    # den = 0: then FN = FP = 0, the labellings agree on every pair
    undefined_where(table, den == 0, 1.0,
                    "ARI is undefined (0/0): every pair is together in both labellings, or "
                    "apart in both")
    value = 2 * (tp * tn - fn * fp) / den
    if table.real_valued and value < Fraction(-1, 2):
        # -1/2 bounds the ARI of whole items only: pair masses of lighter cells reach -1
        raise ScoreUnavailable(
            f"ARI is {float(value):.3g} on this table, below -0.5, its least value for "
            f"whole items: {REAL_MASSES} whose cells weigh too little; sample_weight "
            "counts items, so scale it so that 1 is one item")
    return cast(float, value)


def _ari_one_sided(table: Contingency, model: str) -> float:
    """(RI - E[RI]) / (1 - E[RI]) with the prediction random under ``model``, exactly."""
    tp, fn, fp, tn = _pairs(table)
    m = tp + fn + fp + tn
    if m == 0:
        raise Undefined(1.0, f"ARI under random_model={model!r} is undefined (0/0): there "
                             "are no item pairs (N < 2)")
    q = pair_probability(model, int(table.n_samples), table.n_clusters)
    together = Fraction(tp + fn, m)
    expected = together * q + (1 - together) * (1 - q)
    if expected == 1:
        raise Undefined(1.0 if fn == fp == 0 else 0.0,
                        f"ARI under random_model={model!r} is undefined (0/0): every "
                        "random clustering agrees with the truth on every pair")
    if fn == 0 and fp == 0:
        return 1.0  # agreement on every pair
    return float((Fraction(tp + tn, m) - expected) / (1 - expected))


@score(zero_division=True, real=_REAL_PAIRS, reads=("pairs",))
def fowlkes_mallows_score(table: Contingency) -> float:
    """Fowlkes-Mallows index: geometric mean of pair precision and pair recall.

    FMI = TP / sqrt((TP + FP)(TP + FN)), in [0, 1]. 0.0 when no pair is together in both.
    Deviation from scikit-learn: two all-singleton labellings (no pair together in either,
    so every pair agrees) score 1.0; scikit-learn returns 0.0 there (a known bug).

    Examples
    --------
    >>> round(fowlkes_mallows_score([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 2, 2]), 6)
    0.471405

    References
    ----------
    Fowlkes & Mallows, "A method for comparing two hierarchical clusterings", JASA 78 (1983).
    """
    tp, fn, fp, _ = _pairs(table)
    undefined_where(table, (tp + fp) * (tp + fn) == 0, select((fn == 0) & (fp == 0), 1.0, 0.0),
                    "FMI is undefined (0/0): a labelling has no pair together")
    return select(tp == 0, 0.0, sqrt(tp / (tp + fp)) * sqrt(tp / (tp + fn)))


@score(zero_division=1.0, real=_REAL_PAIRS, reads=("pairs",))
def pair_precision_score(table: Contingency) -> float:
    """Pair precision (permetrics PrS): share of pairs joined by the prediction that are right.

    PrS = yy / (yy + ny) = TP / (TP + FP), in [0, 1]. The denominator is zero when the
    prediction is all singletons; then ``finite_value`` (1.0: nothing was wrongly joined) is
    returned, or with ``force_finite=False`` an :class:`UndefinedMetricError` is raised.
    ``pair_precision_score(t, p) == pair_recall_score(p, t)``.

    Examples
    --------
    >>> pair_precision_score([0, 0, 1, 1], [0, 0, 0, 0])
    0.3333333333333333

    References
    ----------
    Desgraupes, "Clustering indices", Université Paris Ouest (2013).
    """
    tp, _, fp, _ = _pairs(table)
    undefined_where(table, tp + fp == 0, 1.0,
                    "pair precision is undefined (0/0): the prediction has no pair together")
    return cast(float, tp / (tp + fp))


@score(zero_division=1.0, real=_REAL_PAIRS, reads=("pairs",))
def pair_recall_score(table: Contingency) -> float:
    """Pair recall (permetrics ReS): share of truly co-clustered pairs the prediction keeps.

    ReS = yy / (yy + yn) = TP / (TP + FN), in [0, 1]. The denominator is zero when the truth
    is all singletons; then ``finite_value`` (1.0: no true pair was missed) is returned, or
    with ``force_finite=False`` an :class:`UndefinedMetricError` is raised.

    Examples
    --------
    >>> pair_recall_score([0, 0, 1, 1, 2, 2], [0, 0, 1, 1, 1, 2])
    0.6666666666666666

    References
    ----------
    Desgraupes, "Clustering indices", Université Paris Ouest (2013).
    """
    tp, fn, _, _ = _pairs(table)
    undefined_where(table, tp + fn == 0, 1.0,
                    "pair recall is undefined (0/0): the truth has no pair together")
    return cast(float, tp / (tp + fn))


@score(options={"beta": Real("Weight of recall: beta > 1 weighs recall more.", low=0.0)},
       zero_division=1.0, real=_REAL_PAIRS, reads=("pairs",))
def pair_f_score(table: Contingency, *, beta: float = 1.0) -> float:
    """Pair F-beta score: weighted harmonic mean of pair precision and pair recall.

    F = (1 + b^2) TP / ((1 + b^2) TP + b^2 FN + FP), in [0, 1]; ``beta`` > 1 weighs recall
    more. Undefined only when no pair is together in either labelling (both all singletons:
    perfect agreement), then ``finite_value`` or :class:`UndefinedMetricError`.

    Examples
    --------
    >>> pair_f_score([0, 0, 1, 1], [0, 0, 0, 1])
    0.4

    References
    ----------
    Manning, Raghavan & Schütze, "Introduction to Information Retrieval" (2008), 16.3.
    """
    tp, fn, fp, _ = _pairs(table)
    b2 = Fraction(beta) ** 2  # b^2 = p / q exactly: the quotient below is rounded once
    p, q = b2.numerator, b2.denominator
    num, den = (q + p) * tp, (q + p) * tp + p * fn + q * fp
    undefined_where(table, den == 0, 1.0, "the pair F-score is undefined (0/0): no pair is "
                                          "together in either labelling")
    return cast(float, num / den)


@score(zero_division=1.0, real=_REAL_PAIRS, reads=("pairs",))
def pair_jaccard_score(table: Contingency) -> float:
    """Pair Jaccard index: TP / (TP + FN + FP), in [0, 1].

    Undefined only when both labellings are all singletons (no pair together anywhere: they
    agree perfectly), then ``finite_value`` or :class:`UndefinedMetricError`.

    Examples
    --------
    >>> pair_jaccard_score([0, 0, 1, 1], [0, 0, 0, 1])
    0.25

    References
    ----------
    Jaccard (1912); for partitions see Ben-Hur, Elisseeff & Guyon, PSB (2002).
    """
    tp, fn, fp, _ = _pairs(table)
    undefined_where(table, tp + fn + fp == 0, 1.0,
                    "the pair Jaccard index is undefined (0/0): no pair is together in "
                    "either labelling")
    return cast(float, tp / (tp + fn + fp))


@score(zero_division=True, real=_REAL_PAIRS, reads=("pairs",))
def czekanowski_dice_score(table: Contingency) -> float:
    """Czekanowski-Dice index (Dice / Sorensen on pairs): 2a / (2a + b + c).

    Range [0, 1], symmetric, 1.0 when the partitions agree on every pair (also when no pair
    is together anywhere, as permetrics CDS). Numerically the pair F1 score.

    Examples
    --------
    >>> czekanowski_dice_score([0, 0, 1, 1], [0, 0, 0, 1])
    0.4

    References
    ----------
    Desgraupes, "Clustering indices", clusterCrit vignette (2013), Czekanowski_Dice.
    """
    a, b, c, _ = _pairs(table)
    undefined_where(table, 2 * a + b + c == 0, 1.0,
                    "the Czekanowski-Dice index is undefined (0/0): no pair is together in "
                    "either labelling")
    return cast(float, 2 * a / (2 * a + b + c))


@score(zero_division=True, real=_REAL_PAIRS, reads=("pairs",))
def kulczynski_score(table: Contingency) -> float:
    """Kulczynski index: mean of pair precision and pair recall, (a/(a+c) + a/(a+b)) / 2.

    Range [0, 1], symmetric. 1.0 when the partitions agree on every pair; 0.0 when no pair
    is together in both (then a precision or recall denominator may be 0; permetrics
    returns 0.0 there even for identical all-singleton partitions).

    Examples
    --------
    >>> kulczynski_score([0, 0, 1, 1], [0, 0, 0, 1])
    0.4166666666666667

    References
    ----------
    Desgraupes, "Clustering indices" (2013), Kulczynski.
    """
    a, b, c, _ = _pairs(table)
    undefined_where(table, (a + c) * (a + b) == 0, select((b == 0) & (c == 0), 1.0, 0.0),
                    "the Kulczynski index is undefined (0/0): a labelling has no pair together")
    # (a/(a+c) + a/(a+b)) / 2 over one common denominator, divided once
    return cast(float, a * (2 * a + b + c) / (2 * (a + c) * (a + b)))


@score(zero_division=True, real=_REAL_PAIRS, reads=("pairs",))
def mcnemar_score(table: Contingency) -> float:
    """McNemar statistic on pair counts, as clusterCrit: (d - c) / sqrt(d + c).

    d = pairs apart in both, c = pairs together only in the prediction. Under independence
    it is approximately standard normal; larger means the prediction splits what the truth
    splits. Unbounded, not symmetric; its value on identical partitions is sqrt(d), so it
    depends on the data. 0.0 when d + c = 0. permetrics MNS computes the same expression on
    pair *proportions* (counts / M), i.e. this value divided by sqrt(M).

    Examples
    --------
    >>> round(mcnemar_score([0, 0, 1, 1], [0, 0, 0, 1]), 6)
    0.0

    References
    ----------
    McNemar, Psychometrika 12 (1947); Desgraupes, "Clustering indices" (2013), McNemar.
    """
    _, _, c, d = _pairs(table)
    undefined_where(table, d + c == 0, 0.0,
                    "the McNemar statistic is undefined (0/0): no pair is apart in the truth")
    magnitude = sqrt((d - c) ** 2 / (d + c))  # int / int: correctly rounded
    return with_sign(magnitude, d - c)


@score(zero_division=True, real=_REAL_PAIRS, reads=("pairs",))
def phi_score(table: Contingency) -> float:
    """Phi coefficient (Pearson correlation of the pair indicators; Hubert's Gamma statistic).

    phi = (a d - b c) / sqrt((a+b)(a+c)(b+d)(c+d)) = (M a - P Q) / sqrt(P Q (M-P)(M-Q)).
    Range [-1, 1], symmetric. When a factor of the denominator is 0 (a labelling has no pair
    together, or no pair apart): 1.0 if the partitions agree on every pair, else 0.0
    (permetrics PhS/HGS return 0.0 in both cases). clusim's ``pearson_correlation`` omits
    the square root, see docs/metric-notes.md.

    Examples
    --------
    >>> round(phi_score([0, 0, 1, 1], [0, 0, 0, 1]), 6)
    0.0

    References
    ----------
    Hubert & Arabie, J. Classification 2 (1985); Desgraupes (2013), Hubert and Phi.
    """
    a, b, c, d = _pairs(table)
    den_sq = (a + b) * (a + c) * (b + d) * (c + d)
    undefined_where(table, den_sq == 0, select((b == 0) & (c == 0), 1.0, 0.0),
                    "phi is undefined (0/0): a labelling has no pair together, or none apart")
    num = a * d - b * c
    value = sqrt(num * num / den_sq)
    return with_sign(minimum(value, 1.0), num)


@score(zero_division=True, real=_REAL_PAIRS, reads=("pairs",))
def rogers_tanimoto_score(table: Contingency) -> float:
    """Rogers-Tanimoto index: (a + d) / (a + d + 2(b + c)).

    Range [0, 1], symmetric, 1.0 when the partitions agree on every pair (and with fewer
    than two items, when there are no pairs).

    Examples
    --------
    >>> rogers_tanimoto_score([0, 0, 1, 1], [0, 0, 0, 1])
    0.3333333333333333

    References
    ----------
    Rogers & Tanimoto, Science 132 (1960); Desgraupes (2013), Rogers_Tanimoto.
    """
    a, b, c, d = _pairs(table)
    undefined_where(table, a + b + c + d == 0, 1.0,
                    "the Rogers-Tanimoto index is undefined (0/0): there are no item pairs")
    return cast(float, (a + d) / (a + d + 2 * (b + c)))


@score(zero_division=True, real=_REAL_PAIRS, reads=("pairs",))
def russel_rao_score(table: Contingency) -> float:
    """Russel-Rao index: a / M, the share of all pairs that are together in both.

    Range [0, 1], symmetric; on identical partitions it is sum_i C(a_i, 2) / C(N, 2), so the
    perfect value depends on the data. 0.0 with fewer than two items (as permetrics RRS).

    Examples
    --------
    >>> russel_rao_score([0, 0, 1, 1], [0, 0, 0, 1])
    0.16666666666666666

    References
    ----------
    Russel & Rao (1940); Desgraupes (2013), Russel_Rao.
    """
    a, b, c, d = _pairs(table)
    total = a + b + c + d
    undefined_where(table, total == 0, 0.0,
                    "the Russel-Rao index is undefined (0/0): there are no item pairs")
    return cast(float, a / total)


@score(zero_division=True, real=_REAL_PAIRS, reads=("pairs",))
def sokal_sneath1_score(table: Contingency) -> float:
    """Sokal-Sneath index 1: a / (a + 2(b + c)).

    Range [0, 1], symmetric, 1.0 when the partitions agree on every pair.

    Examples
    --------
    >>> sokal_sneath1_score([0, 0, 1, 1], [0, 0, 0, 1])
    0.14285714285714285

    References
    ----------
    Sokal & Sneath, Principles of Numerical Taxonomy (1963); Desgraupes (2013).
    """
    a, b, c, _ = _pairs(table)
    undefined_where(table, a + b + c == 0, 1.0, "the Sokal-Sneath index 1 is undefined (0/0): "
                    "no pair is together in either labelling")
    return cast(float, a / (a + 2 * (b + c)))


@score(zero_division=True, real=_REAL_PAIRS, reads=("pairs",))
def sokal_sneath2_score(table: Contingency) -> float:
    """Sokal-Sneath index 2 (clusterCrit's definition): (a + d) / (a + d + (b + c)/2).

    Range [0, 1], symmetric, 1.0 when the partitions agree on every pair.

    Examples
    --------
    >>> sokal_sneath2_score([0, 0, 1, 1], [0, 0, 0, 1])
    0.6666666666666666

    References
    ----------
    Sokal & Sneath (1963); Desgraupes (2013), Sokal_Sneath2.
    """
    a, b, c, d = _pairs(table)
    undefined_where(table, a + b + c + d == 0, 1.0,
                    "the Sokal-Sneath index 2 is undefined (0/0): there are no item pairs")
    return cast(float, 2 * (a + d) / (2 * (a + d) + b + c))


@score(zero_division=True, real=_REAL_PAIRS, reads=("pairs",))
def southwood_score(table: Contingency) -> float:
    """Southwood index: a / (b + c), pairs joined by both over pairs on which they disagree.

    Range [0, inf), symmetric, higher is better. Undefined when the partitions agree on
    every pair (b + c = 0); 1.0 is returned then, as clusim's ``southwood_index`` does —
    beware that this is *below* values of nearly identical partitions.

    Examples
    --------
    >>> southwood_score([0, 0, 1, 1], [0, 0, 0, 1])
    0.3333333333333333

    References
    ----------
    Southwood, Ecological Methods (1978); clusim ``southwood_index`` (Gates & Ahn, JOSS 2017).
    """
    a, b, c, _ = _pairs(table)
    undefined_where(table, b + c == 0, 1.0,
                    "the Southwood index is undefined: the labellings agree on every pair")
    return cast(float, a / (b + c))


@score(zero_division=True, real=_REAL_PAIRS, reads=("pairs",))
def kendall_tau_score(table: Contingency) -> float:
    """Kendall's tau on pairs, as permetrics TauS: (s+ - s-) / sqrt(M (M - a)).

    s+ = a + d (concordant pairs), s- = b + c (discordant pairs), M = C(N, 2) and a the pairs
    tied in both (together in both), following permetrics' ``calculate_tau_score``. Range
    [-1, inf): the denominator shrinks as a grows, so identical partitions score
    sqrt(M / (M - a)) >= 1 (data-dependent). Symmetric. When M - a = 0 (fewer than two
    items, or both labellings a single cluster) 1.0 is returned, as permetrics does.

    Examples
    --------
    >>> round(kendall_tau_score([0, 0, 1, 1], [0, 0, 0, 1]), 6)
    0.0

    References
    ----------
    Kendall, Biometrika 30 (1938); Desgraupes (2013); permetrics ``tau_score`` (TauS).
    """
    a, b, c, d = _pairs(table)
    total = a + b + c + d
    den_sq = total * (total - a)
    undefined_where(table, den_sq == 0, 1.0,
                    "Kendall's tau is undefined (0/0): no pair is apart in either labelling")
    num = a + d - b - c
    return with_sign(sqrt(num * num / den_sq), num)


@score(zero_division=True, real=_REAL_PAIRS, reads=("pairs",))
def gamma_score(table: Contingency) -> float:
    """Gamma, as permetrics GAS: 2 RI - 1 = (a + d - b - c) / M.

    Range [-1, 1], symmetric, 1.0 for identical partitions and with fewer than two items.

    Examples
    --------
    >>> round(gamma_score([0, 0, 1, 1], [0, 0, 0, 1]), 6)
    0.0

    References
    ----------
    Baker & Hubert, JASA 70 (1975); permetrics ``gamma_score`` (GAS).
    """
    a, b, c, d = _pairs(table)
    total = a + b + c + d
    undefined_where(table, total == 0, 1.0, "gamma is undefined (0/0): there are no item pairs")
    return cast(float, (a + d - b - c) / total)


@score(zero_division=True, real=_REAL_PAIRS, reads=("pairs",))
def g_plus_distance(table: Contingency) -> float:
    """G-plus, as permetrics GPS: 1 - RI = (b + c) / M, the share of discordant pairs.

    Range [0, 1], lower is better, symmetric, 0.0 for identical partitions and with fewer
    than two items.

    Examples
    --------
    >>> g_plus_distance([0, 0, 1, 1], [0, 0, 0, 1])
    0.5

    References
    ----------
    Rohlf, Systematic Zoology 23 (1974); permetrics ``gplus_score`` (GPS).
    """
    a, b, c, d = _pairs(table)
    undefined_where(table, a + b + c + d == 0, 0.0,
                    "G-plus is undefined (0/0): there are no item pairs")
    return cast(float, (b + c) / (a + b + c + d))


@score(zero_division=True, real=_REAL_PAIRS, reads=("pairs",))
def adjusted_fowlkes_mallows_score(table: Contingency) -> float:
    """Fowlkes-Mallows index adjusted for chance (Hubert & Arabie 1985).

    With FM = a / sqrt(P Q) and, under the permutation model, E[a] = P Q / M:

        AFM = (FM - E[FM]) / (1 - E[FM]) = (M a - P Q) / (sqrt(P Q) (M - sqrt(P Q)))

    0 in expectation for independent labellings, 1.0 when the partitions agree on every pair,
    0.0 when a labelling has no pair together; range (-inf, 1]. Symmetric. ``M - sqrt(PQ)``
    is evaluated as (M^2 - PQ) / (M + sqrt(PQ)) with M^2 - PQ = M (b + d) + Q (c + d),
    and M a - PQ as a d - b c, so neither cancels in floating point.

    Examples
    --------
    >>> round(adjusted_fowlkes_mallows_score([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 2, 2]), 6)
    0.26293

    References
    ----------
    Hubert & Arabie, "Comparing partitions", J. Classification 2 (1985); genieclust
    ``adjusted_fm_score``.
    """
    a, b, c, d = _pairs(table)
    m, q = a + b + c + d, a + c
    pq = (a + b) * q
    spread = m * (b + d) + q * (c + d)  # M^2 - PQ, a sum of non-negative terms
    # PQ = 0: no pair together in a labelling; M^2 = PQ: every pair together in both
    undefined_where(table, (pq == 0) | (spread == 0), select((b == 0) & (c == 0), 1.0, 0.0),
                    "the adjusted Fowlkes-Mallows index is 0/0")
    root = sqrt(pq)
    gap = spread / (m + root)
    return minimum((a * d - b * c) / (root * gap), 1.0)  # at most 1, rounding aside


g_plus_score = deprecated_alias("g_plus_score", g_plus_distance)

_HUBERT = "Hubert & Arabie, J. Classification 2 (1985)"
_DESGRAUPES = "Desgraupes, Clustering indices, clusterCrit (2013)"
_PERM = "permetrics (Thieu, 2024)"


def _entry(key: str, name: str, func: ScoreFunction[Any], lower: float, upper: float,
           reference: str, *, better: Better = "higher", symmetric: bool = True,
           adjusted: bool = False, **more: Any) -> MetricInfo:
    return MetricInfo(key=key, name=name, func=func, family=PAIR, lower=lower, upper=upper,
                      better=better, symmetric=symmetric, adjusted=adjusted,
                      reference=reference, **more)


ENTRIES = [
    _entry("ari", "Adjusted Rand index", adjusted_rand_score, -0.5, 1.0, _HUBERT,
           adjusted=True,
           significance=_affine_null(adjusted_rand_score, "ari")),
    _entry("ri", "Rand index", rand_score, 0.0, 1.0, "Rand, JASA 66 (1971)",
           significance=_affine_null(rand_score, "ri")),
    _entry("fmi", "Fowlkes-Mallows index", fowlkes_mallows_score, 0.0, 1.0,
           "Fowlkes & Mallows, JASA 78 (1983)",
           significance=_affine_null(fowlkes_mallows_score, "fmi")),
    _entry("pair_precision", "Pair precision (PrS)", pair_precision_score, 0.0, 1.0,
           "Desgraupes, Clustering indices (2013); permetrics PrS/ReS", symmetric=False,
           significance=_affine_null(pair_precision_score, "pair_precision")),
    _entry("pair_recall", "Pair recall (ReS)", pair_recall_score, 0.0, 1.0,
           "Desgraupes, Clustering indices (2013); permetrics PrS/ReS", symmetric=False,
           significance=_affine_null(pair_recall_score, "pair_recall")),
    _entry("pair_f1", "Pair F1", pair_f_score, 0.0, 1.0,
           "Manning et al., Introduction to IR (2008) 16.3", options={"beta": 1.0},
           significance=_affine_null(pair_f_score, "pair_f1")),
    _entry("pair_jaccard", "Pair Jaccard index", pair_jaccard_score, 0.0, 1.0,
           "Ben-Hur, Elisseeff & Guyon, PSB (2002)"),
    _entry("czekanowski_dice", "Czekanowski-Dice index", czekanowski_dice_score, 0.0, 1.0,
           _DESGRAUPES,
           significance=_affine_null(czekanowski_dice_score, "czekanowski_dice")),
    _entry("kulczynski", "Kulczynski index", kulczynski_score, 0.0, 1.0, _DESGRAUPES,
           significance=_affine_null(kulczynski_score, "kulczynski")),
    _entry("mcnemar", "McNemar statistic (pair counts)", mcnemar_score, -math.inf, math.inf,
           "McNemar, Psychometrika 12 (1947); " + _DESGRAUPES, symmetric=False,
           perfect=None,
           significance=_affine_null(mcnemar_score, "mcnemar")),
    _entry("phi", "Phi coefficient (Hubert Γ)", phi_score, -1.0, 1.0,
           _HUBERT + "; " + _DESGRAUPES,
           significance=_affine_null(phi_score, "phi")),
    _entry("rogers_tanimoto", "Rogers-Tanimoto index", rogers_tanimoto_score, 0.0, 1.0,
           "Rogers & Tanimoto, Science 132 (1960)"),
    _entry("russel_rao", "Russel-Rao index", russel_rao_score, 0.0, 1.0, _DESGRAUPES,
           perfect=None,
           significance=_affine_null(russel_rao_score, "russel_rao")),
    _entry("sokal_sneath1", "Sokal-Sneath index 1", sokal_sneath1_score, 0.0, 1.0,
           _DESGRAUPES),
    _entry("sokal_sneath2", "Sokal-Sneath index 2", sokal_sneath2_score, 0.0, 1.0,
           _DESGRAUPES),
    _entry("southwood", "Southwood index", southwood_score, 0.0, math.inf,
           "Southwood, Ecological Methods (1978); clusim", perfect=None),
    _entry("kendall_tau", "Kendall's tau on pairs (permetrics TauS)", kendall_tau_score,
           -1.0, math.inf, "Kendall (1938); " + _PERM, perfect=None),
    _entry("gamma", "Gamma (2 RI - 1)", gamma_score, -1.0, 1.0,
           "Baker & Hubert, JASA 70 (1975); " + _PERM,
           significance=_affine_null(gamma_score, "gamma")),
    _entry("g_plus", "G-plus (1 - RI)", g_plus_distance, 0.0, 1.0, "Rohlf (1974); " + _PERM,
           better="lower", perfect=0.0,
           significance=_affine_null(g_plus_distance, "g_plus")),
    _entry("afmi", "Adjusted Fowlkes-Mallows index", adjusted_fowlkes_mallows_score,
           -math.inf, 1.0, _HUBERT, adjusted=True,
           significance=_affine_null(adjusted_fowlkes_mallows_score, "afmi")),
]
