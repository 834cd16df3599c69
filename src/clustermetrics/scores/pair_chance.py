"""Pair-counting scores against chance: the exact null moments of the pair count under the
permutation model (:func:`rand_moments`), the standardized Rand index, the analytic
significance of every pair-counting index affine in the pair count, and the modified
adjusted Rand index (chance under a multinomial model).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any, cast

from ..table import Contingency, as_contingency
from ..table.stack import is_stack
from ._cells import exact_ints, row_sum_count_size, row_sum_squares
from ._elementwise import one_by_one
from ._pair_moments import PairMoments, normal_upper_tail, pair_moments, sqrt_fraction
from .pair_table import _compute_pairs, _sum_comb2
from .spec import PAIR, MetricInfo, Significance, Undefined, require_counts, score

__all__ = ["ENTRIES", "PairMoments", "modified_adjusted_rand_score", "rand_moments",
           "standardized_rand_score"]

_CHANCE = "its chance model draws whole items"
# MARI's interval: a replicate's copies of one item cannot be told from distinct items by
# an estimator of order 4 (leave_out_copies corrects order-2 pair counts only)
_DISJOINT_PAIRS = ("its estimator counts pairs of disjoint item pairs (Sundqvist, Chiquet "
                   "& Rigaill 2023), and items drawn with replacement make copies of one "
                   "item look like disjoint items, biasing every replicate")


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


ENTRIES = [
    MetricInfo(key="mari", name="Modified adjusted Rand index",
               func=modified_adjusted_rand_score, family=PAIR, lower=-math.inf, upper=1.0,
               better="higher", symmetric=True, adjusted=True,
               reference="Sundqvist, Chiquet & Rigaill, Comput. Stat. 38 (2023)"),
    MetricInfo(key="sri", name="Standardized Rand index", func=standardized_rand_score,
               family=PAIR, lower=-math.inf, upper=math.inf, better="higher",
               symmetric=True, adjusted=True,
               reference="Romano, Vinh, Bailey & Verspoor, JMLR 17 (2016)", perfect=None,
               significance=_sri_null),
]
