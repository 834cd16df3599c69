"""More pair-counting indices: the ones clusterCrit, permetrics, clusim, genieclust and aricode
offer beyond the Rand family.

Notation (see :mod:`clustermetrics.metrics.pairs`): over the M = C(N, 2) unordered item pairs,
a = TP (yy, together in both), b = FN (yn, together in the truth only), c = FP (ny, together
in the prediction only), d = TN (nn, apart in both). P = a + b pairs are together in the
truth, Q = a + c in the prediction. All four counts are exact Python integers computed in
O(nnz); every score below is a ratio of integer expressions divided once (a square root is
taken last, on a correctly rounded quotient), so nothing overflows or cancels at any N.

Zero denominators follow one rule unless a peer fixes another (stated per score): when the
two labellings agree on every pair (b = c = 0) a similarity is at its perfect value;
otherwise an undefined ratio is 0.
"""

from __future__ import annotations

import math
from typing import Any

from ..table import Contingency, as_contingency
from ._cells import exact_ints, row_sum_count_size, row_sum_squares
from .pairs import PairCounts, pair_counts

__all__ = [
    "czekanowski_dice_score",
    "kulczynski_score",
    "mcnemar_score",
    "phi_score",
    "rogers_tanimoto_score",
    "russel_rao_score",
    "sokal_sneath1_score",
    "sokal_sneath2_score",
    "southwood_score",
    "kendall_tau_score",
    "gamma_score",
    "g_plus_score",
    "adjusted_fowlkes_mallows_score",
    "modified_adjusted_rand_score",
]


def _agree(pc: PairCounts) -> bool:
    return pc.fn == 0 and pc.fp == 0


def czekanowski_dice_score(labels_true: Any, labels_pred: Any = None) -> float:
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
    a, b, c, _ = pair_counts(labels_true, labels_pred)
    if _agree(PairCounts(a, b, c, 0)):
        return 1.0
    return 2 * a / (2 * a + b + c)


def kulczynski_score(labels_true: Any, labels_pred: Any = None) -> float:
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
    a, b, c, _ = pair_counts(labels_true, labels_pred)
    if b == 0 and c == 0:
        return 1.0
    if a == 0:
        return 0.0
    # (a/(a+c) + a/(a+b)) / 2 over one common denominator, divided once
    return a * (2 * a + b + c) / (2 * (a + c) * (a + b))


def mcnemar_score(labels_true: Any, labels_pred: Any = None) -> float:
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
    _, _, c, d = pair_counts(labels_true, labels_pred)
    if d + c == 0:
        return 0.0
    magnitude = math.sqrt((d - c) ** 2 / (d + c))  # int / int: correctly rounded
    return math.copysign(magnitude, d - c) if d != c else 0.0


def phi_score(labels_true: Any, labels_pred: Any = None) -> float:
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
    a, b, c, d = pair_counts(labels_true, labels_pred)
    den_sq = (a + b) * (a + c) * (b + d) * (c + d)
    if den_sq == 0:
        return 1.0 if b == 0 and c == 0 else 0.0
    num = a * d - b * c
    value = math.sqrt(num * num / den_sq)
    return math.copysign(min(value, 1.0), num) if num else 0.0


def rogers_tanimoto_score(labels_true: Any, labels_pred: Any = None) -> float:
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
    a, b, c, d = pair_counts(labels_true, labels_pred)
    if b == 0 and c == 0:
        return 1.0
    return (a + d) / (a + d + 2 * (b + c))


def russel_rao_score(labels_true: Any, labels_pred: Any = None) -> float:
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
    a, b, c, d = pair_counts(labels_true, labels_pred)
    total = a + b + c + d
    return a / total if total else 0.0


def sokal_sneath1_score(labels_true: Any, labels_pred: Any = None) -> float:
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
    a, b, c, _ = pair_counts(labels_true, labels_pred)
    if b == 0 and c == 0:
        return 1.0
    return a / (a + 2 * (b + c))


def sokal_sneath2_score(labels_true: Any, labels_pred: Any = None) -> float:
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
    a, b, c, d = pair_counts(labels_true, labels_pred)
    if b == 0 and c == 0:
        return 1.0
    return 2 * (a + d) / (2 * (a + d) + b + c)


def southwood_score(labels_true: Any, labels_pred: Any = None) -> float:
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
    a, b, c, _ = pair_counts(labels_true, labels_pred)
    return a / (b + c) if b + c else 1.0


def kendall_tau_score(labels_true: Any, labels_pred: Any = None) -> float:
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
    a, b, c, d = pair_counts(labels_true, labels_pred)
    total = a + b + c + d
    den_sq = total * (total - a)
    if den_sq == 0:
        return 1.0
    num = a + d - b - c
    return math.copysign(math.sqrt(num * num / den_sq), num) if num else 0.0


def gamma_score(labels_true: Any, labels_pred: Any = None) -> float:
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
    a, b, c, d = pair_counts(labels_true, labels_pred)
    total = a + b + c + d
    return (a + d - b - c) / total if b + c else 1.0


def g_plus_score(labels_true: Any, labels_pred: Any = None) -> float:
    """G-plus, as permetrics GPS: 1 - RI = (b + c) / M, the share of discordant pairs.

    Range [0, 1], lower is better, symmetric, 0.0 for identical partitions and with fewer
    than two items.

    Examples
    --------
    >>> g_plus_score([0, 0, 1, 1], [0, 0, 0, 1])
    0.5

    References
    ----------
    Rohlf, Systematic Zoology 23 (1974); permetrics ``gplus_score`` (GPS).
    """
    a, b, c, d = pair_counts(labels_true, labels_pred)
    return (b + c) / (a + b + c + d) if b + c else 0.0


def adjusted_fowlkes_mallows_score(labels_true: Any, labels_pred: Any = None) -> float:
    """Fowlkes-Mallows index adjusted for chance (Hubert & Arabie 1985).

    With FM = a / sqrt(P Q) and, under the permutation model, E[a] = P Q / M:

        AFM = (FM - E[FM]) / (1 - E[FM]) = (M a - P Q) / (sqrt(P Q) (M - sqrt(P Q)))

    0 in expectation for independent labellings, 1.0 when the partitions agree on every pair,
    0.0 when a labelling has no pair together; range (-inf, 1]. Symmetric. ``M - sqrt(PQ)``
    is evaluated as (M^2 - PQ) / (M + sqrt(PQ)) so it does not cancel.

    Examples
    --------
    >>> round(adjusted_fowlkes_mallows_score([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 2, 2]), 6)
    0.26293

    References
    ----------
    Hubert & Arabie, "Comparing partitions", J. Classification 2 (1985); genieclust
    ``adjusted_fm_score``.
    """
    a, b, c, d = pair_counts(labels_true, labels_pred)
    if b == 0 and c == 0:
        return 1.0
    m, pq = a + b + c + d, (a + b) * (a + c)
    if pq == 0:
        return 0.0
    root = math.sqrt(pq)
    gap = (m * m - pq) / (m + root)
    return (m * a - pq) / (root * gap)


def _sum_n_ab(table: Contingency) -> int:
    """sum_ij n_ij [(a_i - 1)(b_j - 1) - (n_ij - 1)], exactly."""
    n = table.counts
    a = table.class_sizes[table.rows]
    b = table.cluster_sizes[table.cols]
    if table.n_samples < 2_000_000:  # every n*a*b < 8e18 fits in int64
        return int((n * ((a - 1) * (b - 1) - (n - 1))).sum())
    # sum_i (a_i - 1) S_i with S_i = sum_j n_ij (b_j - 1) = sum_j n_ij b_j - a_i (row sums
    # shared with Marxer-Purwins, exact at any N); only the K outer products need Python
    # integers
    per_class = row_sum_count_size(table) - exact_ints(table, table.class_sizes)
    outer = sum(x * y for x, y in zip((table.class_sizes - 1).tolist(), per_class.tolist(),
                                      strict=True))
    return outer - (int(row_sum_squares(table).sum()) - table.n_samples)


def modified_adjusted_rand_score(labels_true: Any, labels_pred: Any = None) -> float:
    """Modified adjusted Rand index (MARI, Sundqvist, Chiquet & Rigaill), as aricode ``MARI``.

    The ARI's expectation is taken under the permutation (hypergeometric) model with fixed
    margins; MARI takes it under a multinomial model (items drawn i.i.d.), estimating
    E[a] = M alpha beta without bias from pairs of *disjoint* pairs: with D the number of
    ordered (p1, p2), p1 together in the truth, p2 together in the prediction, p1 and p2
    disjoint, and K = C(N-2, 2),

        D = P Q - a - sum_ij n_ij [(a_i - 1)(b_j - 1) - (n_ij - 1)]
        MARI = (a K - D) / ((P + Q) K / 2 - D)

    (the subtracted terms count the ordered pairs sharing two and one item). Exact
    integers, O(nnz). 1.0 when the partitions agree on every pair; 0.0 when the
    denominator vanishes otherwise (e.g. N < 4, where no two disjoint pairs exist).
    Symmetric; about 0 for independent labellings; range (-inf, 1].

    Examples
    --------
    >>> modified_adjusted_rand_score([0, 0, 1, 1], [1, 1, 0, 0])
    1.0

    References
    ----------
    Sundqvist, Chiquet & Rigaill, "Adjusting the adjusted Rand index: a multinomial story",
    Computational Statistics 38 (2023); aricode ``MARI``.
    """
    table = as_contingency(labels_true, labels_pred)
    a, b, c, _ = pair_counts(table)
    if b == 0 and c == 0:
        return 1.0
    n = table.n_samples
    p, q = a + b, a + c
    disjoint = p * q - a - _sum_n_ab(table)
    k = (n - 2) * (n - 3) // 2
    num, den = 2 * (a * k - disjoint), (p + q) * k - 2 * disjoint
    if den == 0:
        return 0.0
    return num / den
