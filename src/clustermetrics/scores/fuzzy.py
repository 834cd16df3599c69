"""Scores of soft memberships: fuzzy generalisations of the Rand index and the ARI.

Each takes two membership matrices of the same N items, ``membership_true`` (N x K1)
and ``membership_pred`` (N x K2): row i gives item i's degree of membership in each
cluster, non-negative and summing to 1 (fuzzy c-means, a mixture model's posterior
probabilities). Dense numpy arrays, nested lists and scipy.sparse matrices are accepted;
a 1-D sequence of labels is its one-hot membership (``table/membership.py``). On crisp
memberships (every entry 0 or 1) every score here equals :func:`rand_score` or
:func:`adjusted_rand_score` of the labels, and is computed as that, exactly.

Three families, each with its unadjusted and chance-adjusted form:

- Hullermeier et al. (2012): pairs' degrees of being together, E(i, j) = 1 -
  ||u_i - u_j||_1 / 2, compared by |E_U - E_V|; its adjusted form is D'Ambrosio et al.'s
  (2021) adjusted concordance index, whose expectation Andrews et al. (2022) gave in
  closed form;
- Campello (2007): fuzzy pair counts a, b, c, d through a t-norm;
- Andrews et al. (2022): the Frobenius Rand index and its adjusted form (FARI), from the
  co-membership ("bonding") matrices U U^T, V V^T.

:data:`MEMBERSHIP_METRICS` is their registry, kept apart from the registry of scores of
labels (:data:`~clustermetrics.scores.registry.METRICS`): they read memberships, not a
contingency table.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..table import Contingency
from ..table.membership import Memberships, memberships
from .fuzzy_pairs import (
    distinct_rows,
    grouped_sum_abs_differences,
    pair_sums,
    sum_abs_cross_differences,
    sum_abs_differences,
    top_two,
    weighted_pair_values,
)
from .pair_counting import adjusted_rand_score, rand_score
from .spec import ScoreUnavailable, Undefined, UndefinedMetricError

__all__ = ["MEMBERSHIP_METRICS", "MembershipScoreInfo", "T_NORMS", "membership_markdown_table",
           "adjusted_fuzzy_rand_score", "campello_adjusted_rand_score",
           "campello_rand_score", "frobenius_adjusted_rand_score", "frobenius_rand_score",
           "fuzzy_rand_score"]

#: Campello's t-norms: T(x, y) = min(x, y) (his choice) or x y (an option of fclust).
T_NORMS: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "minimum": np.minimum, "product": np.multiply}

# distinct-row pairs of one membership up to which the adjusted fuzzy Rand index of two
# soft memberships holds their sorted values (16 bytes each: 160 MB at the default)
_MAX_PAIRS = 10**7
# relative size below which a denominator computed as a difference of float sums is
# rounding noise, not a value (the exact denominator is then 0)
_ROUNDING = 1e-12

_PARAMETERS = """
Parameters
----------
membership_true : array-like of shape (n_items, n_clusters_true) or (n_items,)
    True memberships (rows summing to 1), or crisp labels (one-hot encoded).
membership_pred : array-like of shape (n_items, n_clusters_pred) or (n_items,)
    Predicted memberships, or crisp labels.{extra}
tol : float, default=1e-9
    How far from 1 a row's sum may be.
unassigned : {{'raise', 'noise_cluster', 'drop'}}, default='raise'
    An item whose memberships sum to less than 1 - tol: refused; its missing mass
    given to one extra cluster of noise; or the item left out of both memberships.
force_finite : bool, default=True
    Where the score is a 0/0, return a finite value (``finite_value``, or the score's
    convention stated above) instead of raising
    :class:`~clustermetrics.UndefinedMetricError`.
finite_value : float or None, default=None
    The value returned for a 0/0 with ``force_finite=True`` (None: the convention).

Returns
-------
score : float
"""

_T_NORM_PARAMETER = """
t_norm : {'minimum', 'product'}, default='minimum'
    The t-norm T: Campello's minimum, or the product (fclust's option)."""

_CAMPELLO_REFERENCE = """
References
----------
Campello, "A fuzzy extension of the Rand index and other related indexes for clustering
and classification assessment", Pattern Recognit. Lett. 28(7) (2007) 833-841; Hubert &
Arabie, "Comparing partitions", J. Classification 2 (1985) 193-218.
"""

_FROBENIUS_REFERENCE = """
References
----------
Andrews, Browne & Hvingelby, "On assessments of agreement between fuzzy partitions",
J. Classification 39 (2022) 326-342.
"""

_FROBENIUS_DOC = """

    With the bonding matrices A = U U^T and B = V V^T (N x N, A_ij = Sum_k u_ik u_jk),
    each normalised as N_A = c_A A with c_A = Sum A / ||A||_F^2 (so that Sum N_A =
    ||N_A||_F^2, as for a crisp A), Andrews et al. (2022) define

        FRI = (<N_A, N_B> + <J - N_A, J - N_B> - N) / (N (N - 1))
            = 1 - ||N_A - N_B||_F^2 / (N (N - 1)),

    J the all-ones matrix, <.,.> the Frobenius inner product; the crisp memberships'
    Rand index. FARI = (FRI - E[FRI]) / (1 - E[FRI]), the expectation over random
    permutations of the items of one membership, exact:
    E<A, P B P^T> = tr A tr B / N + (Sum A - tr A)(Sum B - tr B) / (N (N - 1)). Both
    reflexive (1 for identical memberships) and symmetric; FARI is the ARI on crisp
    memberships. A 0/0 (fewer than two items; every permutation scoring the same, which
    the float computation sees as a denominator below 1e-12 of its terms) is 1.0.

    Cost: O(N (K1 K2 + K1^2 + K2^2)): every sum over the N x N bondings is a sum over
    K x K products (Sum A = ||U^T 1||^2, ||A||_F^2 = ||U^T U||_F^2, <A, B> =
    ||U^T V||_F^2, tr A = ||U||_F^2), so no N x N matrix is formed (the authors' R code
    forms them).
"""


def _documented(func: Callable[..., float], summary: str, body: str, extra: str,
                examples: str, references: str) -> None:
    """Give ``func`` its numpydoc docstring from the shared parameter text."""
    func.__doc__ = (summary + body.replace("\n    ", "\n") + _PARAMETERS.format(extra=extra)
                    + "\nExamples\n--------\n" + examples + references)


def _score_value(body: Callable[[Memberships], float], membership_true: Any,
                 membership_pred: Any, tol: float, unassigned: str, force_finite: Any,
                 finite_value: Any) -> float:
    """The value of ``body`` on the checked memberships under the 0/0 policy shared with
    the scores of labels: a 0/0 gets the score's convention (or ``finite_value``), or
    raises :class:`UndefinedMetricError` with ``force_finite=False``."""
    if not isinstance(force_finite, bool):
        raise ValueError(f"force_finite must be True or False, got {force_finite!r}")
    if finite_value is not None and (isinstance(finite_value, bool) or not isinstance(
            finite_value, (int, float)) or not math.isfinite(finite_value)):
        raise ValueError(f"finite_value must be a finite number or None, got {finite_value!r}")
    m = memberships(membership_true, membership_pred, tol=tol, unassigned=unassigned)
    try:
        # every score of memberships is at most 1 (agreement on every pair); a sum's last
        # rounding must not take it past
        return min(float(body(m)), 1.0)
    except Undefined as undefined:
        if not force_finite:
            raise UndefinedMetricError(f"{undefined.why} (set force_finite=True to return "
                                       "a finite value)") from None
        return float(undefined.value if finite_value is None else finite_value)


def _crisp_table(m: Memberships) -> Contingency | None:
    """The contingency table of two crisp memberships, else None."""
    if not (m.true_crisp and m.pred_crisp):
        return None
    return Contingency.from_labels(np.argmax(m.true, axis=1), np.argmax(m.pred, axis=1))


def _crisp(score: Callable[..., float], table: Contingency) -> float:
    """A score of labels on the table of crisp memberships, its 0/0 passed on as ours."""
    try:
        return score(table, force_finite=False)
    except UndefinedMetricError as exc:
        raise Undefined(1.0, str(exc).split(" (set force_finite")[0]) from None


def _n_pairs(n: int, what: str) -> float:
    if n < 2:
        raise Undefined(1.0, f"{what} is undefined (0/0): there are no item pairs")
    return n * (n - 1) / 2


# ------------------------------------------------------- Hullermeier et al. (2012)
def _discordance(m: Memberships) -> float:
    """Sum over item pairs of |E_U(i, j) - E_V(i, j)|, E(i, j) = 1 - ||u_i - u_j||_1 / 2."""
    u, v = m.true, m.pred
    n = len(u)
    if m.true_crisp or m.pred_crisp:
        crisp, soft = (u, v) if m.true_crisp else (v, u)
        codes = np.argmax(crisp, axis=1)
        sizes = np.bincount(codes).astype(np.float64)
        apart = n * (n - 1) / 2 - float(sizes @ (sizes - 1)) / 2
        # a pair together in the crisp side disagrees by d/2, one apart by 1 - d/2,
        # with d = ||v_i - v_j||_1: sum = apart + Sum_together d - Sum_all d / 2
        together = math.fsum(grouped_sum_abs_differences(codes, soft[:, k])
                             for k in range(soft.shape[1]))
        everywhere = math.fsum(sum_abs_differences(soft[:, k]) for k in range(soft.shape[1]))
        return apart + together - everywhere / 2
    if u.shape[1] == 2 and v.shape[1] == 2:
        # |E_U - E_V| = ||dx| - |dy|| = |dx + dy| + |dx - dy| - |dx| - |dy|
        x, y = u[:, 0], v[:, 0]
        return (sum_abs_differences(x + y) + sum_abs_differences(x - y)
                - sum_abs_differences(x) - sum_abs_differences(y))
    du, dv, w = distinct_rows(u, v)

    def terms(block: slice) -> list[np.ndarray]:
        a = np.abs(du[block, None, :] - du[None, :, :]).sum(axis=2)
        b = np.abs(dv[block, None, :] - dv[None, :, :]).sum(axis=2)
        return [np.abs(a - b) / 2]
    return pair_sums(terms, w, max(u.shape[1], v.shape[1]), "fuzzy Rand index")[0]


def _fuzzy_rand(m: Memberships) -> float:
    table = _crisp_table(m)
    if table is not None:
        return _crisp(rand_score, table)
    pairs = _n_pairs(len(m.true), "the fuzzy Rand index")
    return 1.0 - _discordance(m) / pairs


def fuzzy_rand_score(membership_true: Any, membership_pred: Any, *, tol: float = 1e-9,
                     unassigned: str = "raise", force_finite: bool = True,
                     finite_value: float | None = None) -> float:
    """Fuzzy Rand index of Hullermeier et al. (2012): the normalised degree of concordance.

    Item i's memberships u_i give each pair its degree of being together,
    E_U(i, j) = 1 - ||u_i - u_j||_1 / 2 (1 for identical rows, 0 for disjoint ones), and

        FR(U, V) = 1 - Sum_{i<j} |E_U(i, j) - E_V(i, j)| / C(N, 2),

    in [0, 1], 1 exactly when U and V give every pair the same degree (so for identical
    memberships), and the Rand index on crisp memberships. 1 - FR is a pseudo-metric on
    fuzzy partitions (the paper's Theorem). Symmetric. With fewer than two items there
    are no pairs: 1.0, as :func:`rand_score`.

    Cost: O(N K log N) when either side is crisp (each column's sum of pairwise absolute
    differences is one sort) or when both have two clusters (|a| and |b| of a pair's
    differences combine as |a + b| + |a - b| - |a| - |b|); otherwise the sum of absolute
    differences of L1 distances does not factor, and it is O(D^2 (K1 + K2)) over the D
    distinct item rows of (U, V), in blocks of memory O(block x D x K), never N x N.

    Parameters
    ----------
    membership_true : array-like of shape (n_items, n_clusters_true) or (n_items,)
        True memberships (rows summing to 1), or crisp labels (one-hot encoded).
    membership_pred : array-like of shape (n_items, n_clusters_pred) or (n_items,)
        Predicted memberships, or crisp labels.
    tol : float, default=1e-9
        How far from 1 a row's sum may be.
    unassigned : {'raise', 'noise_cluster', 'drop'}, default='raise'
        An item whose memberships sum to less than 1 - tol: refused; its missing mass
        given to one extra cluster of noise; or the item left out of both memberships.
    force_finite : bool, default=True
        Where the score is a 0/0, return a finite value (``finite_value``, or the score's
        convention stated above) instead of raising
        :class:`~clustermetrics.UndefinedMetricError`.
    finite_value : float or None, default=None
        The value returned for a 0/0 with ``force_finite=True`` (None: the convention).

    Returns
    -------
    score : float

    Examples
    --------
    >>> fuzzy_rand_score([[1, 0], [0.5, 0.5], [0, 1]], [[1, 0], [1, 0], [0, 1]])
    0.6666666666666667
    >>> fuzzy_rand_score([0, 0, 1, 1], [1, 1, 0, 0])  # crisp labels: the Rand index
    1.0

    References
    ----------
    Hullermeier, Rifqi, Henzgen & Senge, "Comparing fuzzy partitions: a generalization of
    the Rand index and related measures", IEEE Trans. Fuzzy Syst. 20(3) (2012) 546-556.
    """
    return _score_value(_fuzzy_rand, membership_true, membership_pred, tol, unassigned,
                        force_finite, finite_value)


def _expected_discordance(m: Memberships, max_pairs: int | None) -> float:
    """Sum_p Sum_q |E_U(p) - E_V(q)| / C(N, 2) over item pairs p, q: the expected
    discordance when V's items are permuted at random (each pair of V is then a uniform
    pair)."""
    u, v = m.true, m.pred
    n = len(u)
    pairs = n * (n - 1) / 2
    if m.true_crisp or m.pred_crisp:
        crisp, soft = (u, v) if m.true_crisp else (v, u)
        sizes = np.bincount(np.argmax(crisp, axis=1)).astype(np.float64)
        together = float(sizes @ (sizes - 1)) / 2
        # E of the soft side summed over pairs: C(N, 2) - Sum_all ||.||_1 / 2
        soft_sum = pairs - math.fsum(sum_abs_differences(soft[:, k])
                                     for k in range(soft.shape[1])) / 2
        return (together * (pairs - soft_sum) + (pairs - together) * soft_sum) / pairs
    sides = []
    for rows, name in ((u, "membership_true"), (v, "membership_pred")):
        distinct, counts = np.unique(rows, axis=0, return_counts=True)
        d = len(distinct)
        if max_pairs is not None and d * (d + 1) // 2 > max_pairs:
            raise ScoreUnavailable(
                f"the adjusted fuzzy Rand index of two soft memberships holds the "
                f"{d * (d + 1) // 2} pairs of distinct rows of {name}, more than max_pairs "
                f"({max_pairs}); pass max_pairs=None to allow it (16 bytes a pair)")
        sides.append(weighted_pair_values(distinct, counts, _together))
    (a, wa), (b, wb) = sides
    return sum_abs_cross_differences(a, wa, b, wb) / pairs


def _together(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return 1.0 - np.abs(x - y).sum(axis=1) / 2


def _adjusted_fuzzy_rand(m: Memberships, max_pairs: int | None) -> float:
    table = _crisp_table(m)
    if table is not None:
        return _crisp(adjusted_rand_score, table)
    _n_pairs(len(m.true), "the adjusted fuzzy Rand index")
    pairs = len(m.true) * (len(m.true) - 1) / 2
    expected = _expected_discordance(m, max_pairs)
    # expected = 0 exactly when all pairs have one degree in both; its float sums of
    # differences are then rounding noise, so an expectation lost in rounding is a 0/0
    if expected <= _ROUNDING * pairs:
        raise Undefined(1.0, "the adjusted fuzzy Rand index is undefined (0/0): every "
                             "pair has one and the same degree of being together in both")
    return 1.0 - _discordance(m) / expected


def _all_agree() -> float:
    raise Undefined(1.0, "the adjusted index is undefined (0/0): every pair is together "
                         "in both memberships")


def adjusted_fuzzy_rand_score(membership_true: Any, membership_pred: Any, *,
                              tol: float = 1e-9, unassigned: str = "raise",
                              max_pairs: int | None = _MAX_PAIRS, force_finite: bool = True,
                              finite_value: float | None = None) -> float:
    """Adjusted fuzzy Rand index: Hullermeier et al.'s index corrected for chance (the
    adjusted concordance index, ACI).

    Hullermeier et al. (2012) propose no chance correction. D'Ambrosio et al. (2021) gave
    one, ACI = (FR - E[FR]) / (1 - E[FR]) with the expectation over random permutations of
    the items of one membership, estimated by sampling; Andrews et al. (2022) computed it
    exactly: a permutation sends each pair to a uniform pair, so

        E[FR] = 1 - Sum_p Sum_q |E_U(p) - E_V(q)| / C(N, 2)^2

    over all pairs p, q (E_U, E_V as in :func:`fuzzy_rand_score`), and ACI = 1 - D / E[D]
    with D = Sum_p |E_U(p) - E_V(p)|. At most 1 (identical memberships), about 0 for
    independent ones, unbounded below; the ARI on crisp memberships (the Rand index's
    affine in the together-together pairs, so this is Hubert & Arabie's form). Symmetric.
    A 0/0 (fewer than two items, or every pair equally together in both: an expected
    discordance below 1e-12 C(N, 2), rounding noise) is 1.0, as :func:`adjusted_rand_score`.

    Cost: as :func:`fuzzy_rand_score` when a side is crisp (the expectation is then
    linear too). With both sides soft the expectation needs the sorted degrees of every
    pair of distinct rows of each side: time O(P log P) and memory O(P) for P = D(D+1)/2
    pairs of the D distinct rows, refused beyond ``max_pairs``.

    Parameters
    ----------
    membership_true : array-like of shape (n_items, n_clusters_true) or (n_items,)
        True memberships (rows summing to 1), or crisp labels (one-hot encoded).
    membership_pred : array-like of shape (n_items, n_clusters_pred) or (n_items,)
        Predicted memberships, or crisp labels.
    tol : float, default=1e-9
        How far from 1 a row's sum may be.
    unassigned : {'raise', 'noise_cluster', 'drop'}, default='raise'
        An item whose memberships sum to less than 1 - tol: refused; its missing mass
        given to one extra cluster of noise; or the item left out of both memberships.
    max_pairs : int or None, default=10000000
        Most pairs of distinct rows of one soft membership the expectation may hold
        (ScoreUnavailable beyond); None: no limit.
    force_finite : bool, default=True
        Where the score is a 0/0, return a finite value (``finite_value``, or the score's
        convention stated above) instead of raising
        :class:`~clustermetrics.UndefinedMetricError`.
    finite_value : float or None, default=None
        The value returned for a 0/0 with ``force_finite=True`` (None: the convention).

    Returns
    -------
    score : float

    Examples
    --------
    >>> u = [[0.9, 0.1], [0.8, 0.2], [0.3, 0.7], [0.1, 0.9]]
    >>> round(adjusted_fuzzy_rand_score(u, [0, 0, 1, 1]), 6)
    0.43956

    References
    ----------
    Hullermeier, Rifqi, Henzgen & Senge, "Comparing fuzzy partitions: a generalization of
    the Rand index and related measures", IEEE Trans. Fuzzy Syst. 20(3) (2012) 546-556;
    D'Ambrosio, Amodio, Iorio, Pandolfo & Siciliano, "Adjusted concordance index: an
    extension of the adjusted Rand index to fuzzy partitions", J. Classification 38
    (2021) 112-128; Andrews, Browne & Hvingelby, "On assessments of agreement between
    fuzzy partitions", J. Classification 39 (2022) 326-342.
    """
    if max_pairs is not None and (isinstance(max_pairs, bool) or not isinstance(
            max_pairs, (int, np.integer)) or max_pairs < 1):
        raise ValueError(f"max_pairs must be an integer >= 1 or None, got {max_pairs!r}")
    return _score_value(lambda m: _adjusted_fuzzy_rand(m, max_pairs), membership_true,
                        membership_pred, tol, unassigned, force_finite, finite_value)


# ------------------------------------------------------------------ Campello (2007)
def _campello_counts(m: Memberships, t_norm: str) -> list[float]:
    """Campello's fuzzy pair counts [a, b, c, d] summed over item pairs."""
    t = T_NORMS[t_norm]
    du, dv, w = distinct_rows(m.true, m.pred)
    tops = top_two(du), top_two(dv)

    def together(rows: np.ndarray, block: slice) -> np.ndarray:
        # S_k T(x_k, y_k) with S = max: the degree of sharing some cluster
        return t(rows[block, None, :], rows[None, :, :]).max(axis=2)

    def apart(top: tuple[np.ndarray, np.ndarray, np.ndarray], block: slice) -> np.ndarray:
        # max over k != l of T(x_k, y_l): the two largest entries of each row suffice
        m1, first, m2 = top
        differ = first[block, None] != first[None, :]
        best = t(m1[block, None], m1[None, :])
        second = np.maximum(t(m1[block, None], m2[None, :]), t(m2[block, None], m1[None, :]))
        return np.where(differ, best, second)

    def terms(block: slice) -> list[np.ndarray]:
        v_, x_ = together(du, block), apart(tops[0], block)
        y_, z_ = together(dv, block), apart(tops[1], block)
        return [t(v_, y_), t(v_, z_), t(x_, y_), t(x_, z_)]
    return pair_sums(terms, w, max(du.shape[1], dv.shape[1]), "Campello's pair counts")


def _campello_rand(m: Memberships, t_norm: str) -> float:
    table = _crisp_table(m)
    if table is not None:
        return _crisp(rand_score, table)
    _n_pairs(len(m.true), "Campello's fuzzy Rand index")
    a, b, c, d = _campello_counts(m, t_norm)
    if a + b + c + d == 0:
        raise Undefined(1.0, "Campello's fuzzy Rand index is undefined (0/0): every fuzzy "
                             "pair count is 0")
    return (a + d) / (a + b + c + d)


def _campello_adjusted(m: Memberships, t_norm: str) -> float:
    table = _crisp_table(m)
    if table is not None:
        return _crisp(adjusted_rand_score, table)
    _n_pairs(len(m.true), "Campello's fuzzy ARI")
    a, b, c, d = _campello_counts(m, t_norm)
    den = b * b + c * c + 2 * a * d + (a + d) * (b + c)
    if den == 0:
        raise Undefined(1.0, "Campello's fuzzy ARI is undefined (0/0): b = c = 0 and "
                             "a d = 0")
    return 2 * (a * d - b * c) / den


_CAMPELLO_DOC = """

    Campello (2007) reads each membership as fuzzy sets of item pairs: for items i, j,

        together_U(i, j) = S_k T(u_ik, u_jk),  apart_U(i, j) = S_{k != l} T(u_ik, u_jl),

    with the t-norm T (``t_norm``) and the s-norm S = max, and likewise for V; the fuzzy
    pair counts are a = Sum_{i<j} T(together_U, together_V), b = Sum T(together_U,
    apart_V), c = Sum T(apart_U, together_V), d = Sum T(apart_U, apart_V). On crisp
    memberships they are the pair counts, and the score is the Rand index (ARI). It is
    not reflexive: a soft membership compared with itself scores below 1 (a pair both
    half together and half apart counts in b and c). Symmetric. fclust's ``RI.F`` and
    ``ARI.F`` compute the same counts (with its first argument crisp).

    Cost: the maxima over clusters do not factor through K1 x K2 sums, so this is
    O(D^2 (K1 + K2)) over the D distinct item rows of (U, V) (the maximum over k != l
    needs only each row's two largest entries), in blocks of memory O(block x D x K),
    never N x N: linear in N when the memberships take few distinct rows (crisp items,
    rounded memberships), quadratic when every row is distinct.
"""


def campello_rand_score(membership_true: Any, membership_pred: Any, *,
                        t_norm: str = "minimum", tol: float = 1e-9,
                        unassigned: str = "raise", force_finite: bool = True,
                        finite_value: float | None = None) -> float:
    if t_norm not in T_NORMS:
        raise ValueError(f"t_norm must be one of {', '.join(map(repr, T_NORMS))}, "
                         f"got {t_norm!r}")
    return _score_value(lambda m: _campello_rand(m, t_norm), membership_true,
                        membership_pred, tol, unassigned, force_finite, finite_value)


def campello_adjusted_rand_score(membership_true: Any, membership_pred: Any, *,
                                 t_norm: str = "minimum", tol: float = 1e-9,
                                 unassigned: str = "raise", force_finite: bool = True,
                                 finite_value: float | None = None) -> float:
    if t_norm not in T_NORMS:
        raise ValueError(f"t_norm must be one of {', '.join(map(repr, T_NORMS))}, "
                         f"got {t_norm!r}")
    return _score_value(lambda m: _campello_adjusted(m, t_norm), membership_true,
                        membership_pred, tol, unassigned, force_finite, finite_value)


# ------------------------------------------------------ Andrews et al. (2022), FARI
def _bonding_sums(u: np.ndarray) -> tuple[float, float, float]:
    """For the bonding matrix A = U U^T: (sum of its entries, ||A||_F^2, trace), from K x K
    and K-sized products, never N x N."""
    col = u.sum(axis=0)
    gram = u.T @ u
    return float(col @ col), float(np.sum(gram * gram)), float(np.sum(u * u))


def _frobenius_parts(m: Memberships) -> tuple[float, float, float, float]:
    """(N(N-1), the normalised bondings' squared distance ||N_A - N_B||_F^2, its
    numerator part 2 c_A c_B <A, B> and that part's expectation), with N_A = c_A A,
    c_A = sum(A) / ||A||_F^2 (so that sum(N_A) = ||N_A||_F^2, as for a crisp A)."""
    u, v = m.true, m.pred
    n = len(u)
    _n_pairs(n, "the Frobenius Rand index")
    s_a, f_a, t_a = _bonding_sums(u)
    s_b, f_b, t_b = _bonding_sums(v)
    cross = u.T @ v
    inner = float(np.sum(cross * cross))  # <A, B> = ||U^T V||_F^2
    c_a, c_b = s_a / f_a, s_b / f_b
    # E<A, P B P^T> over permutations P: the diagonal meets the diagonal
    expected = t_a * t_b / n + (s_a - t_a) * (s_b - t_b) / (n * (n - 1))
    # ||N_A - N_B||^2 written so that identical memberships give exactly 0
    distance = c_a * c_a * f_a + c_b * c_b * f_b - 2 * c_a * c_b * inner
    return n * (n - 1), distance, 2 * c_a * c_b * inner, 2 * c_a * c_b * expected


def _frobenius_rand(m: Memberships) -> float:
    table = _crisp_table(m)
    if table is not None:
        return _crisp(rand_score, table)
    ordered, distance, _, _ = _frobenius_parts(m)
    return 1.0 - distance / ordered


def _frobenius_adjusted(m: Memberships) -> float:
    table = _crisp_table(m)
    if table is not None:
        return _crisp(adjusted_rand_score, table)
    _, distance, part, expected = _frobenius_parts(m)
    same_u, same_v = _one_row(m.true), _one_row(m.pred)
    if same_u or same_v:  # P B P^T = B for every P: FRI is its expectation, exactly
        if same_u and same_v:
            _all_agree()
        return 0.0
    # (FRI - E) / (1 - E) with FRI = 1 - distance / N(N-1), and 1 - E = (distance + part
    # - expected) / N(N-1): the differences of N^2-sized terms cancel before dividing
    den = distance + part - expected
    # den = 0 exactly when every permutation scores the same (a side whose items all have
    # one row); computed, it is then rounding noise, so a den lost in rounding is a 0/0
    if abs(den) <= _ROUNDING * (distance + part + expected):
        raise Undefined(1.0, "the Frobenius ARI is undefined (0/0): every permutation of "
                             "the items scores the same")
    return (part - expected) / den


def _one_row(u: np.ndarray) -> bool:
    """Do all items have one and the same membership row?"""
    return bool((u == u[0]).all())


def frobenius_rand_score(membership_true: Any, membership_pred: Any, *, tol: float = 1e-9,
                         unassigned: str = "raise", force_finite: bool = True,
                         finite_value: float | None = None) -> float:
    return _score_value(_frobenius_rand, membership_true, membership_pred, tol, unassigned,
                        force_finite, finite_value)


def frobenius_adjusted_rand_score(membership_true: Any, membership_pred: Any, *,
                                  tol: float = 1e-9, unassigned: str = "raise",
                                  force_finite: bool = True,
                                  finite_value: float | None = None) -> float:
    return _score_value(_frobenius_adjusted, membership_true, membership_pred, tol,
                        unassigned, force_finite, finite_value)


_documented(campello_rand_score, "Campello's fuzzy Rand index: (a + d) / (a + b + c + d) "
            "of fuzzy pair counts.", _CAMPELLO_DOC, _T_NORM_PARAMETER,
            ">>> u = [[1, 0], [0.5, 0.5], [0, 1]]\n"
            ">>> round(campello_rand_score(u, [0, 0, 1]), 6)\n0.666667\n",
            _CAMPELLO_REFERENCE)
_documented(campello_adjusted_rand_score, "Campello's fuzzy ARI: Hubert & Arabie's ARI of "
            "the fuzzy pair counts, 2(ad - bc) / ((a + b)(b + d) + (a + c)(c + d)).",
            _CAMPELLO_DOC, _T_NORM_PARAMETER,
            ">>> campello_adjusted_rand_score([0, 0, 1, 1], [1, 1, 0, 0])\n1.0\n",
            _CAMPELLO_REFERENCE)
_documented(frobenius_rand_score, "Frobenius Rand index (FRI) of Andrews et al. (2022).",
            _FROBENIUS_DOC, "",
            ">>> frobenius_rand_score([0, 0, 1, 1], [1, 1, 0, 0])\n1.0\n",
            _FROBENIUS_REFERENCE)
_documented(frobenius_adjusted_rand_score, "Frobenius adjusted Rand index (FARI) of "
            "Andrews et al. (2022).", _FROBENIUS_DOC, "",
            ">>> frobenius_adjusted_rand_score([0, 0, 1, 1], [1, 1, 0, 0])\n1.0\n",
            _FROBENIUS_REFERENCE)


@dataclass(frozen=True, kw_only=True)
class MembershipScoreInfo:
    """One registered score of soft memberships: as
    :class:`~clustermetrics.scores.spec.MetricInfo` for labels, with ``crisp``, the score
    of labels it equals on crisp memberships (its key in the label registry), and
    ``perfect`` None when identical memberships do not score a fixed value (the score is
    not reflexive)."""

    key: str
    name: str
    func: Callable[..., float]
    lower: float
    upper: float
    better: str
    symmetric: bool
    adjusted: bool
    reference: str
    crisp: str
    perfect: float | None = 1.0
    options: Mapping[str, Any] = field(default_factory=dict)

    def compute(self, membership_true: Any, membership_pred: Any, **kwargs: Any) -> float:
        return self.func(membership_true, membership_pred, **{**self.options, **kwargs})


_HULLERMEIER = "Hullermeier, Rifqi, Henzgen & Senge, IEEE Trans. Fuzzy Syst. 20 (2012)"
_ANDREWS = "Andrews, Browne & Hvingelby, J. Classification 39 (2022)"
_CAMPELLO = "Campello, Pattern Recognit. Lett. 28 (2007)"

#: Every score of soft memberships, by key.
MEMBERSHIP_METRICS: dict[str, MembershipScoreInfo] = {e.key: e for e in (
    MembershipScoreInfo(key="fuzzy_rand", name="Fuzzy Rand index", func=fuzzy_rand_score,
                        lower=0.0, upper=1.0, better="higher", symmetric=True,
                        adjusted=False, reference=_HULLERMEIER, crisp="rand"),
    MembershipScoreInfo(key="adjusted_fuzzy_rand", name="Adjusted fuzzy Rand index (ACI)",
                        func=adjusted_fuzzy_rand_score, lower=-math.inf, upper=1.0,
                        better="higher", symmetric=True, adjusted=True,
                        reference="D'Ambrosio et al., J. Classification 38 (2021); "
                                  + _ANDREWS, crisp="ari"),
    MembershipScoreInfo(key="campello_rand", name="Campello's fuzzy Rand index",
                        func=campello_rand_score, lower=0.0, upper=1.0, better="higher",
                        symmetric=True, adjusted=False, reference=_CAMPELLO, crisp="rand",
                        perfect=None),
    MembershipScoreInfo(key="campello_adjusted_rand", name="Campello's fuzzy ARI",
                        func=campello_adjusted_rand_score, lower=-1.0, upper=1.0,
                        better="higher", symmetric=True, adjusted=True,
                        reference=_CAMPELLO, crisp="ari", perfect=None),
    MembershipScoreInfo(key="frobenius_rand", name="Frobenius Rand index",
                        func=frobenius_rand_score, lower=-3.0, upper=1.0, better="higher",
                        symmetric=True, adjusted=False, reference=_ANDREWS, crisp="rand"),
    MembershipScoreInfo(key="frobenius_adjusted_rand", name="Frobenius ARI (FARI)",
                        func=frobenius_adjusted_rand_score, lower=-math.inf, upper=1.0,
                        better="higher", symmetric=True, adjusted=True,
                        reference=_ANDREWS, crisp="ari"),
)}


def membership_markdown_table() -> str:
    """The guide's table of the scores of soft memberships, from :data:`MEMBERSHIP_METRICS`."""
    def bound(x: float) -> str:
        return "∞" if x == math.inf else "-∞" if x == -math.inf else f"{x:g}"
    lines = ["| key | function | range | chance-adjusted | identical memberships | "
             "on crisp labels | reference |", "|---|---|---|---|---|---|---|"]
    for e in MEMBERSHIP_METRICS.values():
        lines.append(f"| `{e.key}` | `{e.func.__name__}` | [{bound(e.lower)}, "
                     f"{bound(e.upper)}] | {'yes' if e.adjusted else 'no'} | "
                     f"{'1' if e.perfect == 1 else 'below 1 when soft'} | `{e.crisp}` | "
                     f"{e.reference} |")
    return "\n".join(lines)
