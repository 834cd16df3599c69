"""Pair-counting scores: everything derived from the 2x2 table of item pairs.

Over the C(N, 2) unordered pairs of items, a pair is *together* in a labelling when both
items share a label. With n_ij the table cells, a_i the class sizes and b_j the cluster sizes:

    TP = sum_ij C(n_ij, 2)            together in truth and in prediction   (yy)
    FN = sum_i C(a_i, 2) - TP         together in truth only                (yn)
    FP = sum_j C(b_j, 2) - TP         together in prediction only           (ny)
    TN = C(N, 2) - TP - FN - FP       apart in both                         (nn)

All four are computed in O(nnz) from the table as exact integers, so no score here
overflows at any N (scikit-learn's int64 products do, from N ~ 3e9). Every other index of
the family (clusterCrit, permetrics, clusim, genieclust, aricode) is a ratio of integer
expressions of a = TP, b = FN, c = FP, d = TN, divided once (a square root taken last, on
a correctly rounded quotient), so nothing cancels either. Where a denominator is zero the
score raises its documented convention through the zero-division policy of
:func:`~clustermetrics.scores.spec.score`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any, NamedTuple, cast

import numpy as np

from ..table import REAL_MASSES, Contingency, as_contingency
from ..table.stack import Table, TableStack, is_stack
from ._cells import exact_ints, row_sum_count_size, row_sum_squares, scaled_masses
from ._elementwise import minimum, one_by_one, select, sqrt, undefined_where, with_sign
from ._pair_moments import PairMoments, normal_upper_tail, pair_moments, sqrt_fraction
from ._random_models import RANDOM_MODELS, pair_probability
from .spec import (
    PAIR,
    Better,
    Choice,
    MetricInfo,
    Real,
    ScoreFunction,
    ScoreUnavailable,
    Significance,
    Undefined,
    deprecated_alias,
    require_counts,
    score,
)

__all__ = [
    "ENTRIES", "PairCounts", "copy_pairs", "pair_counts", "pair_confusion_matrix",
    "leave_out_copies",
    "rand_score", "adjusted_rand_score", "fowlkes_mallows_score", "pair_precision_score",
    "pair_recall_score", "pair_f_score", "pair_jaccard_score", "czekanowski_dice_score",
    "kulczynski_score", "mcnemar_score", "phi_score", "rogers_tanimoto_score",
    "russel_rao_score", "sokal_sneath1_score", "sokal_sneath2_score", "southwood_score",
    "kendall_tau_score", "gamma_score", "g_plus_distance", "g_plus_score",
    "adjusted_fowlkes_mallows_score", "modified_adjusted_rand_score",
    "standardized_rand_score", "rand_moments", "PairMoments",
]

_RANDOM_MODEL = Choice(RANDOM_MODELS, "Random clusterings the chance term is taken over, "
                       "the truth fixed: 'perm' (the prediction's cluster sizes fixed; "
                       "scikit-learn), 'num' (its number of clusters fixed), 'all' (any "
                       "clustering); Gates & Ahn, JMLR 18 (2017).")

# Below this N every n*(n-1) fits in int64, and so does every sum of C(n, 2) (<= C(N, 2)).
_INT64_SAFE_N = 3_000_000_000


class PairCounts(NamedTuple):
    """Unordered item pairs by agreement (exact ints; exact Fractions on real-valued
    masses): see :func:`pair_counts`."""

    tp: int | Fraction
    fn: int | Fraction
    fp: int | Fraction
    tn: int | Fraction


# The bodies below return a Fraction on real masses (exact pair masses), which the @score
# wrapper rounds once to the float the public score returns (definition._plain), and arrays
# when the hierarchy evaluates many tables at once: cast(float, ...) types them as the
# float they become, without touching the value.
_REAL_PAIRS = ("the pair masses: C(n, 2) = n (n - 1) / 2 on each real cell, class, "
               "cluster and total mass, exact rationals of the float64 masses")
_CHANCE = "its chance model draws whole items"
# MARI's interval: a replicate's copies of one item cannot be told from distinct items by
# an estimator of order 4 (leave_out_copies corrects order-2 pair counts only)
_DISJOINT_PAIRS = ("its estimator counts pairs of disjoint item pairs (Sundqvist, Chiquet "
                   "& Rigaill 2023), and items drawn with replacement make copies of one "
                   "item look like disjoint items, biasing every replicate")


def _sum_comb2(values: np.ndarray, n_total: int) -> int:
    if n_total >= _INT64_SAFE_N:  # sum v^2 may pass 2**63: Python ints (object arrays)
        values = values.astype(object)
    # sum C(v, 2) = (sum v^2 - sum v) / 2; one dot product, no temporary arrays
    return (int(np.dot(values, values)) - int(values.sum())) // 2


def _real_pairs(table: Contingency) -> PairCounts:
    """Pair masses of a real-valued table: sum C(v, 2) = (sum V^2 - 2^k sum V) / 2^(2k+1)
    with V = v 2^k integers, exact Fractions."""
    cells, by_row, by_col, k = scaled_masses(table)
    scale = 1 << k

    def comb2(values: np.ndarray) -> Fraction:
        total = int(values.sum())
        return Fraction(int(np.dot(values, values)) - scale * total, 2 * scale * scale)

    tp, same_true, same_pred = comb2(cells), comb2(by_row), comb2(by_col)
    if tp < 0:  # FN, FP and TN are sums of w_i w_j >= 0; only TP has the self terms
        raise ScoreUnavailable(
            "pair counting on real masses needs sum_ij n_ij (n_ij - 1) / 2 >= 0, but the "
            f"cells of this table weigh too little (it is {float(tp):.3g}): sample_weight "
            "counts items, so scale it so that 1 is one item")
    total = int(cells.sum())
    pairs = Fraction(total * total - scale * total, 2 * scale * scale)
    fn, fp = same_true - tp, same_pred - tp
    return PairCounts(tp, fn, fp, pairs - tp - fn - fp)


def _compute_pairs(table: Table) -> PairCounts:
    if is_stack(table):
        return _stack_pairs(table)
    if table.real_valued:
        return _real_pairs(table)
    n = int(table.n_samples)  # item counts: real masses took the branch above
    tp = _sum_comb2(table.counts, n)
    same_true = _sum_comb2(table.class_sizes, n)
    same_pred = _sum_comb2(table.cluster_sizes, n)
    fn, fp = same_true - tp, same_pred - tp
    return PairCounts(tp, fn, fp, n * (n - 1) // 2 - tp - fn - fp)


def _stack_pairs(stack: TableStack) -> PairCounts:
    """The pair counts of each table of a stack: float64 arrays while every count is
    exact there (C(N, 2) < 2^53), else object arrays of exact Python ints (the formulas
    of the scores then stay exact, as on one table)."""
    n = stack.n_samples
    counts = stack.counts

    def comb2(values: np.ndarray) -> np.ndarray:  # int64: a stack's N^2 fits
        return (np.einsum("ij,ij->i", values, values) - values.sum(axis=1)) // 2

    tp, same_true, same_pred = comb2(counts), comb2(stack.class_sizes), \
        comb2(stack.cluster_sizes)
    pairs = n * (n - 1) // 2
    kind = np.float64 if int(pairs.max(initial=0)) < _FLOAT_EXACT else object
    tp, same_true, same_pred, pairs = (x.astype(kind) for x in
                                       (tp, same_true, same_pred, pairs))
    fn, fp = same_true - tp, same_pred - tp
    arrays: tuple[Any, ...] = (tp, fn, fp, pairs - tp - fn - fp)  # one count per table
    return PairCounts(*arrays)


_FLOAT_EXACT = 2**53  # integers below this are exact in float64


def _pairs(table: Contingency) -> PairCounts:
    return table.cached("pair_counts", _compute_pairs)


def copy_pairs(sample_counts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Expected pairs of an item with its own copies in each cell of a bootstrap
    replicate: C(n*_ij, 2) / n_ij, given the replicate's cell counts n*_ij (``counts``)
    drawn with replacement from the sample's n_ij items of the cell (``sample_counts``).

    A replicate's n*_ij draws of a cell are uniform over its n_ij items, so
    E[pairs of copies | n*] = C(n*_ij, 2) / n_ij; copies are always in the same cell, so
    they inflate the pairs together in both labellings (TP) and nothing else. Pair counts
    are U-statistics (pairs of distinct items), unbiased in the sample; a replicate's
    C(n*, 2) is not: it overstates TP by ~N/2 (a relative bias of ~1/cell size, far above
    the sampling error at large N). Leaving these pairs out makes each replicate's pair
    counts unbiased for the sample's, up to the factor (N - 1)/N common to all four
    (Arcones & Gine, "On the bootstrap of U and V statistics", Ann. Statist. 20, 1992).
    Doubles: a replicate's statistic, far from needing more."""
    c = np.asarray(counts, dtype=np.float64)
    return c * (c - 1.0) / 2.0 / np.asarray(sample_counts, dtype=np.float64)


def leave_out_copies(replicate: Contingency | TableStack, copies: Any) -> None:
    """Make the pair-counting scores of the bootstrap replicate ``replicate`` count pairs
    of distinct items: its TP (and so the total) less ``copies``, the expected pairs of an
    item with its own copies (the sum of :func:`copy_pairs`), as an exact Fraction of that
    double. Scores that count pairs sharing an item (MARI) and the permutation model's
    moments keep every pair of the counts. A stack of replicates takes an array of
    ``copies``, one per table (float64 pair counts less float64 copies: a replicate's
    score needs no last-ulp accuracy; exact Fractions where its pair counts are exact
    integers beyond float64)."""
    every = _compute_pairs(replicate)
    replicate.cached("pair_counts:all", lambda t: every)
    if is_stack(replicate):
        copies = np.asarray(copies, dtype=np.float64)
        tp: Any = every.tp  # an array: one count per table
        less = copies if tp.dtype.kind == "f" else \
            np.array([Fraction(c) for c in copies.tolist()], dtype=object)
        replicate.cached("pair_counts", lambda t: every._replace(tp=tp - less))
        return
    replicate.cached("pair_counts", lambda t: every._replace(tp=every.tp - Fraction(copies)))


def pair_counts(labels_true: Any, labels_pred: Any = None, *,
                sample_weight: Any = None) -> PairCounts:
    """Counts of unordered item pairs by agreement: TP, FN, FP, TN.

    TP: together in both labellings; FN: together in the truth, apart in the prediction;
    FP: apart in the truth, together in the prediction; TN: apart in both. They sum to
    C(N, 2). Computed in O(nnz) from the contingency table, as exact Python integers.
    On a table of real-valued masses (real ``sample_weight``) each is the sum of
    C(n, 2) = n (n - 1) / 2 over the real masses, an exact :class:`~fractions.Fraction`.
    ``sample_weight``: one non-negative weight per item (integer: repetitions of it), as
    in every score.

    Examples
    --------
    >>> pair_counts([0, 0, 1, 1], [0, 0, 0, 1])
    PairCounts(tp=1, fn=1, fp=2, tn=2)

    References
    ----------
    Hubert & Arabie, "Comparing partitions", J. Classification 2 (1985).
    """
    return _pairs(as_contingency(labels_true, labels_pred, sample_weight))


def pair_confusion_matrix(labels_true: Any, labels_pred: Any = None, *,
                          sample_weight: Any = None) -> np.ndarray:
    """scikit-learn's pair confusion matrix: ``[[TN, FP], [FN, TP]]`` over *ordered* pairs.

    Each entry is twice the unordered count of :func:`pair_counts`; the total is N(N-1).
    Returned as int64 like scikit-learn, or as an object array of exact Python ints when a
    count exceeds int64 (float64 for real-valued masses, from real ``sample_weight``).

    Examples
    --------
    >>> pair_confusion_matrix([0, 0, 1, 1], [1, 1, 0, 0]).tolist()
    [[8, 0], [0, 4]]
    """
    tp, fn, fp, tn = pair_counts(labels_true, labels_pred, sample_weight=sample_weight)
    cells = [[2 * tn, 2 * fp], [2 * fn, 2 * tp]]
    if any(isinstance(x, Fraction) for x in (tp, fn, fp, tn)):
        return np.array([[float(x) for x in row] for row in cells], dtype=np.float64)
    dtype = np.int64 if max(map(max, cells)) < 2**63 else object
    return np.array(cells, dtype=dtype)


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
    return (a * d - b * c) / (root * gap)


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


@score(zero_division=True, needs=_CHANCE, no_bootstrap=_DISJOINT_PAIRS)
def modified_adjusted_rand_score(table: Contingency) -> float:
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
    # every pair of the counts: its disjoint-pair terms count a replicate's copies as items
    a, b, c, _ = table.peek("pair_counts:all") or _compute_pairs(table)
    n = table.n_samples
    p, q = a + b, a + c
    disjoint = p * q - a - _sum_n_ab(table)
    k = (n - 2) * (n - 3) // 2
    num, den = 2 * (a * k - disjoint), (p + q) * k - 2 * disjoint
    if den == 0:  # with b = c = 0 the labellings agree on every pair: the limit is 1
        raise Undefined(
            1.0 if b == c == 0 else 0.0,
            "MARI is undefined (0/0): no two disjoint item pairs (N < 4), or no pair "
            "together in either labelling beyond those sharing an item")
    if b == 0 and c == 0:
        return 1.0  # num = den exactly
    return cast(float, num / den)



# --------------------------------------------------------------------- chance models
def _moments(table: Contingency) -> PairMoments:
    # item counts only; S from the counts themselves (a bootstrap replicate's pair counts
    # leave out copies, the permutation model's moments count every pair)
    return table.cached("pair_moments", lambda t: pair_moments(
        int(t.n_samples), _sum_comb2(t.counts, int(t.n_samples)), t.class_sizes,
        t.cluster_sizes))


def rand_moments(labels_true: Any, labels_pred: Any = None, *,
                 sample_weight: Any = None) -> PairMoments:
    """The pair count S = TP and its exact mean and variance under the permutation model.

    Random labellings with the table's class and cluster sizes (one labelling's items
    randomly permuted: Hubert & Arabie 1985) give S a hypergeometric-like distribution with

        E[S] = P Q / M,
        Var[S] = P Q / M + T1 U1 / (N)_3 + 4 T0 U0 / (N)_4 - (P Q / M)^2,

    P = sum_i C(a_i, 2), Q = sum_j C(b_j, 2), M = C(N, 2), T1 = sum_i (a_i)_3,
    U1 = sum_j (b_j)_3, T0 = P^2 - P - T1, U0 = Q^2 - Q - U1 ((N)_k falling factorials;
    the derivation counts pairs of item pairs by how they overlap). O(R + C) after the
    table; ``mean`` and ``variance`` are exact :class:`~fractions.Fraction` at any N.
    Every affine function of S with the margins fixed (RI, ARI, pair precision, recall
    and F1, FMI, adjusted FMI, Czekanowski-Dice, Kulczynski, phi, McNemar) takes its
    null mean and variance from these; ``z`` is the standardized Rand index.
    ``sample_weight``: integer weights repeat items (the permutation model of the repeated
    items); real weights are refused, the model permutes whole items.

    Examples
    --------
    >>> m = rand_moments([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 2, 2])
    >>> m.s, m.mean, m.variance
    (2, Fraction(6, 5), Fraction(24, 25))

    References
    ----------
    Hubert & Arabie, "Comparing partitions", J. Classification 2 (1985); Romano, Vinh,
    Bailey & Verspoor, "Adjusting for chance clustering comparison measures", JMLR 17 (2016).
    """
    table = as_contingency(labels_true, labels_pred, sample_weight)
    require_counts(table, "rand_moments", _CHANCE)
    return _moments(table)


@score(zero_division=True, needs=_CHANCE)
def standardized_rand_score(table: Contingency) -> float:
    """Standardized Rand index (SRI): the Rand index in standard deviations above chance.

    SRI = (RI - E[RI]) / sd(RI) = (S - E[S]) / sd(S) with S the pairs together in both
    labellings and the exact mean and variance of the permutation model (random
    labellings with the same class and cluster sizes; see :func:`rand_moments`). It is
    also the z-score of the ARI and of every pair-counting index affine in S. Computed
    from exact rationals, rounded once. About 0 for independent labellings (variance 1);
    large values say the agreement is unlikely to be chance. Unbounded; not comparable
    across data sets of different sizes (for a fixed ARI it grows with N, up to
    linearly: the null spread of the ARI shrinks as N grows).
    When the margins allow a single value of S (e.g. a labelling with one cluster, or all
    singletons) the variance is 0 and the score is 0.0. Symmetric.

    The one-sided p-value of the normal approximation, P(Z >= SRI), is in
    ``evaluate(..., significance=True)``; :func:`~clustermetrics.permutation_test` gives
    a sampled one.

    Examples
    --------
    >>> round(standardized_rand_score([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 2, 2]), 6)
    0.816497

    References
    ----------
    Romano, Vinh, Bailey & Verspoor, "Adjusting for chance clustering comparison
    measures", JMLR 17 (2016); Hubert & Arabie, J. Classification 2 (1985).
    """
    if is_stack(table):  # exact rational moments of each table's margins
        return one_by_one(table, standardized_rand_score.spec.body)
    m = _moments(table)
    if m.variance == 0:
        raise Undefined(0.0, "the standardized Rand index is undefined (0/0): the margins "
                             "allow a single value of the pair count")
    return m.z


_NORMAL = "normal approximation with the exact mean and variance of the permutation model"


def _affine_null(func: Callable[..., float], key: str,
                 ) -> Callable[[Contingency], Significance]:
    """The analytic :class:`Significance` of ``func``, a score equal to alpha + beta S
    given the margins; ``_LINES[key](moments)`` gives (alpha, beta), Fractions where
    they are rational, so the null mean and variance are exact before one rounding."""
    line = _LINES[key]

    def significance(table: Contingency) -> Significance:
        require_counts(table, "the analytic significance", _CHANCE)
        m = _moments(table)
        if m.variance == 0:  # S takes one value: so does the score
            return Significance(0.0, 1.0, float(func(table)), 0.0, _NORMAL)
        alpha, beta = line(m)
        if isinstance(beta, Fraction):
            mean = float(alpha + beta * m.mean)
            sd = sqrt_fraction(beta * beta * m.variance)
        else:
            mean = alpha + beta * float(m.mean)
            sd = abs(beta) * math.sqrt(float(m.variance))
        z = m.z
        return Significance(z if beta > 0 else -z, normal_upper_tail(z), mean, sd, _NORMAL)
    return significance


def _ari_line(m: PairMoments) -> tuple[Fraction, Fraction]:
    gap = Fraction(m.p + m.q, 2) - m.mean  # > 0 whenever Var[S] > 0
    return -m.mean / gap, 1 / gap


def _phi_line(m: PairMoments) -> tuple[float, float]:
    """phi = (M S - P Q) / sqrt(P Q (M - P) (M - Q))."""
    root = math.sqrt(m.p * m.q) * math.sqrt((m.pairs - m.p) * (m.pairs - m.q))
    return -(m.p * m.q) / root, m.pairs / root


def _afmi_line(m: PairMoments) -> tuple[float, float]:
    """AFM = (M S - P Q) / (sqrt(P Q) (M - sqrt(P Q)))."""
    root = math.sqrt(m.p * m.q)
    gap = (m.pairs * m.pairs - m.p * m.q) / (m.pairs + root)  # M - sqrt(PQ), no cancelling
    return -root / gap, m.pairs / (root * gap)


_LINES: dict[str, Callable[[PairMoments], tuple[Any, Any]]] = {
    "ari": _ari_line,
    "ri": lambda m: (Fraction(m.pairs - m.p - m.q, m.pairs), Fraction(2, m.pairs)),
    "gamma": lambda m: (Fraction(m.pairs - 2 * m.p - 2 * m.q, m.pairs),
                        Fraction(4, m.pairs)),
    "g_plus": lambda m: (Fraction(m.p + m.q, m.pairs), Fraction(-2, m.pairs)),
    "pair_precision": lambda m: (Fraction(0), Fraction(1, m.q)),
    "pair_recall": lambda m: (Fraction(0), Fraction(1, m.p)),
    "russel_rao": lambda m: (Fraction(0), Fraction(1, m.pairs)),
    "fmi": lambda m: (0.0, 1.0 / math.sqrt(m.p * m.q)),
    # F1 = 2 S / (P + Q) (pair precision S / Q, recall S / P), as is Czekanowski-Dice
    "pair_f1": lambda m: (Fraction(0), Fraction(2, m.p + m.q)),
    "czekanowski_dice": lambda m: (Fraction(0), Fraction(2, m.p + m.q)),
    "kulczynski": lambda m: (Fraction(0), Fraction(m.p + m.q, 2 * m.p * m.q)),
    "phi": _phi_line,
    # McNemar (tn - fp) / sqrt(tn + fp) with tn + fp = M - P fixed, tn - fp = M - P - 2Q + 2S
    "mcnemar": lambda m: ((m.pairs - m.p - 2 * m.q) / math.sqrt(m.pairs - m.p),
                          2 / math.sqrt(m.pairs - m.p)),
    "afmi": _afmi_line,
}


def _sri_null(table: Contingency) -> Significance:
    require_counts(table, "the analytic significance", _CHANCE)
    m = _moments(table)
    if m.variance == 0:
        return Significance(0.0, 1.0, 0.0, 0.0, _NORMAL)
    return Significance(m.z, normal_upper_tail(m.z), 0.0, 1.0, _NORMAL)


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
    _entry("mari", "Modified adjusted Rand index", modified_adjusted_rand_score, -math.inf,
           1.0, "Sundqvist, Chiquet & Rigaill, Comput. Stat. 38 (2023)", adjusted=True),
    _entry("sri", "Standardized Rand index", standardized_rand_score, -math.inf, math.inf,
           "Romano, Vinh, Bailey & Verspoor, JMLR 17 (2016)", adjusted=True, perfect=None,
           significance=_sri_null),
]
