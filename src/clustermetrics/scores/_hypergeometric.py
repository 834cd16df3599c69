"""Exact moments of the hypergeometric distribution, and E[X log X] for large means.

X ~ Hypergeometric(N, a, b): the number of items of a class of size a among the b items
of a cluster, when the N items are assigned at random with the margins fixed (the
permutation model of ARI and AMI). Its factorial moments are exact ratios of integers,

    E[X (X-1) ... (X-j+1)] = a^(j) b^(j) / N^(j)      (x^(j): falling factorial),

so every raw and central moment is an exact ``Fraction`` (Stirling numbers of the second
kind turn factorial moments into raw ones).

For a large mean mu = a b / N, E[X log(X/mu)] (N times one pair's term of the expected
mutual information) follows from the central moments. With T = X/mu - 1 (E T = 0) and
g(t) = (1 + t) log(1 + t) = t + sum_{k>=2} (-1)^k t^k / (k (k-1)),

    E[X log(X/mu)] = mu E[g(T)] ~ mu sum_{k=2}^{K} (-1)^k E[T^k] / (k (k-1)).

Bound on the truncation (K odd). By Taylor's theorem with g^(K+1)(x) = (-1)^(K+1)
(K-1)! / (1+x)^K, on t >= -1/2 the remainder is at most 2^K |t|^(K+1) / (K (K+1)); on
-1 <= t < -1/2 both g and the polynomial are bounded (|remainder| < 2.4), and
P(X < mu/2) <= exp(-mu/8): the multiplicative Chernoff bound of a binomial sum, which holds
for the hypergeometric too (Hoeffding, JASA 58 (1963), Theorem 4: E phi(X) is at most its
binomial value for convex phi). So

    |E g(T) - sum_{k<=K}| <= 2^K E[T^(K+1)] / (K (K+1)) + 2.4 exp(-mu/8),

with E[T^(K+1)] exact. K grows until the bound is below the requested relative error.

The expected mutual information needs this for many pairs at once, so
:func:`mean_xlog_x_over_mean_float` evaluates the same expansion and bound in floating
point, vectorised over the pairs, with the central moments from a recurrence (Stein's
identity for the pmf, see :func:`central_moment_ratios`) instead of exact integers: ~1.5 us
a pair at K = 27 whatever N, equal to the exact-integer expansion to ~1e-15 relative
(tests/scores/test_hypergeometric.py). The integer version is kept as the reference.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache

import numpy as np

__all__ = ["central_moments", "mean_xlog_x_over_mean", "mean_xlog_x_over_mean_float",
           "central_moment_ratios"]

_MAX_ORDER = 25  # highest truncation order tried (K); large means need K = 5..9


@lru_cache(maxsize=1)
def _stirling2(order: int) -> tuple[tuple[int, ...], ...]:
    """S(k, j) for 0 <= j <= k <= order (second kind)."""
    table = [[1]]
    for k in range(1, order + 1):
        prev = table[-1] + [0]
        table.append([0] + [j * prev[j] + prev[j - 1] for j in range(1, k + 1)])
    return tuple(tuple(row) for row in table)


def _falling(x: int, j: int) -> int:
    out = 1
    for i in range(j):
        out *= x - i
    return out


def central_moments(a: int, b: int, n: int, order: int) -> list[Fraction]:
    """Exact central moments E[(X - mu)^k], k = 0..order, of Hypergeometric(n, a, b)."""
    a, b, n = int(a), int(b), int(n)
    scaled, denominator = _scaled_central_moments(a, b, n, order)
    return [Fraction(m, denominator * n**k) for k, m in enumerate(scaled)]


def _scaled_central_moments(a: int, b: int, n: int, order: int) -> tuple[list[int], int]:
    """Integers M_k and D with E[(X - mu)^k] = M_k / (D n^k), k = 0..order.

    All in Python integers over common denominators (Fractions would take a gcd at every
    step): D = n^(order) falling, so E[X^(j)] = F_j / D with
    F_j = a^(j) b^(j) (n-j)^(order-j) falling; raw moments R_k = sum_j S(k, j) F_j / D; and
    with mu = a b / n, M_k = sum_i C(k, i) R_i (-a b)^(k-i) n^i (times D).
    """
    top = min(order, n)  # factorial moments beyond n (> a) are 0
    stirling = _stirling2(max(order, 1))
    denominator = _falling(n, top)
    fact = [_falling(a, j) * _falling(b, j) * _falling(n - j, top - j) if j <= top else 0
            for j in range(order + 1)]
    raw = [sum(stirling[k][j] * fact[j] for j in range(k + 1)) for k in range(order + 1)]
    ab = -a * b
    scaled = [sum(math.comb(k, i) * raw[i] * ab ** (k - i) * n**i for i in range(k + 1))
              for k in range(order + 1)]
    return scaled, denominator


def mean_xlog_x_over_mean(a: int, b: int, n: int, rel_tol: float) -> float | None:
    """E[X log(X / mu)] for X ~ Hypergeometric(n, a, b), mu = a b / n, with a proven
    relative error below ``rel_tol`` (plus a few roundings), or None when the moment
    expansion cannot prove it within the orders tried (small means: sum the pmf instead).

    The terms E[T^k] / (k (k-1)) are correctly rounded quotients of exact integers and
    shrink like mu^(1 - k/2), so their float sum loses nothing to cancellation.
    """
    a, b, n = int(a), int(b), int(n)
    if a * b < 64 * n:  # mu < 64: exp(-mu/8) alone would not be negligible
        return None
    mu = a * b / n
    tail = 2.4 * math.exp(-mu / 8.0)
    for order in _ORDERS:
        scaled, denominator = _scaled_central_moments(a, b, n, order)
        if scaled[2] == 0:  # X is constant: g(0) = 0
            return 0.0
        # E[T^k] = M_k / (D (a b)^k)
        terms = []
        for k in range(2, order):
            moment = scaled[k] / (denominator * (a * b) ** k)
            terms.append(moment / (k * (k - 1)) if k % 2 == 0 else -moment / (k * (k - 1)))
            if k % 2 == 1:  # K = k odd: the bound uses the even moment E[T^(k+1)] >= 0
                even = scaled[k + 1] / (denominator * (a * b) ** (k + 1))
                bound = even * 2.0**k / (k * (k + 1)) + tail
                total = math.fsum(terms)
                if bound <= rel_tol * total:
                    return mu * total
    return None


_ORDERS = (8, 14, _MAX_ORDER + 1)


_FLOAT_MAX_ORDER = 27  # highest K of the float expansion (odd)
_MOMENT_CHUNK = 2048  # pairs per vectorised block of the moment recurrence


def central_moment_ratios(a: np.ndarray, b: np.ndarray, n: int, order: int) -> np.ndarray:
    """E[T^k], T = X / mu - 1, k = 0..order, for X ~ Hypergeometric(n, a_i, b_i) with
    mu = a b / n, in floating point for arrays of pairs; shape (order + 1, pairs).

    From the pmf's ratio (k+1)(N-a-b+k+1) P(k+1) = (a-k)(b-k) P(k):
    E[(a-X)(b-X) h(X)] = E[X (N-a-b+X) h(X-1)] for any h; with h(x) = (x - mu + 1)^j,
    Y = X - mu, alpha = a - mu and beta = b - mu, the Y^(j+2) terms cancel and

        (N - j) E[Y^(j+1)] = sum_{i<j} (alpha beta C(j,i) - (alpha+beta) C(j,i-1)
                             + C(j,i-2)) E[Y^i] + (C(j,2) - (alpha+beta) j) E[Y^j],

    (alpha beta = mu (mu + N - a - b) removes the E[Y^j] term of order N mu). Even moments
    come from positive leading terms (no cancellation); odd ones, of relative size
    1/sqrt(mu) of their neighbours, lose ~eps sqrt(mu) but enter E[X log X] divided by mu.
    """
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    if a.shape[0] > _MOMENT_CHUNK:  # chunks that stay in cache
        return np.concatenate([central_moment_ratios(a[s:s + _MOMENT_CHUNK],
                                                     b[s:s + _MOMENT_CHUNK], n, order)
                               for s in range(0, a.shape[0], _MOMENT_CHUNK)], axis=1)
    af, bf, nf = a.astype(np.float64), b.astype(np.float64), float(n)
    mu = af * bf / nf
    # N - a and N - b exactly (int64) before rounding: they may be small next to N
    alpha = af * ((n - b).astype(np.float64) / nf)
    beta = bf * ((n - a).astype(np.float64) / nf)
    ab, apb = alpha * beta, alpha + beta
    inv = 1.0 / mu
    nu = np.zeros((order + 1, af.shape[0]))
    nu[0] = 1.0
    powers = np.empty((order + 1, af.shape[0]))  # powers[d] = mu^-d
    powers[0] = 1.0
    for d in range(1, order + 1):
        powers[d] = powers[d - 1] * inv
    for j in range(1, order):
        # nu_{j+1} mu^(j+1) (N - j) = sum_i coef_i nu_i mu^i, i = 0..j
        scaled = nu[:j + 1] * powers[j + 1:0:-1]  # nu_i mu^(i - j - 1)
        binom = np.array([math.comb(j, i) for i in range(j + 1)], dtype=np.float64)
        shift1 = np.array([math.comb(j, i - 1) if i >= 1 else 0 for i in range(j + 1)],
                          dtype=np.float64)
        shift2 = np.array([math.comb(j, i - 2) if i >= 2 else 0 for i in range(j + 1)],
                          dtype=np.float64)
        binom[j] = 0.0  # alpha beta C(j, j) cancels against mu (mu + N - a - b)
        acc = ab * (binom @ scaled) - apb * (shift1 @ scaled) + shift2 @ scaled
        nu[j + 1] = acc / (nf - j)
    return nu


def mean_xlog_x_over_mean_float(a: np.ndarray, b: np.ndarray, n: int, rel_tol: float
                                ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`mean_xlog_x_over_mean` for arrays of pairs in floating point: (values, ok),
    ``ok`` False where the truncation bound (module docstring) is not below ``rel_tol``
    within K <= _FLOAT_MAX_ORDER or mu < 64 (those values are 0: sum the pmf instead).
    The moments come from :func:`central_moment_ratios`; cost O(K^2) per pair whatever
    the mean."""
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    mu = a.astype(np.float64) * b.astype(np.float64) / float(n)
    nu = central_moment_ratios(a, b, n, _FLOAT_MAX_ORDER + 1)
    with np.errstate(over="ignore", under="ignore"):
        tail = 2.4 * np.exp(-mu / 8.0)
    total = np.zeros(a.shape[0])
    done = np.zeros(a.shape[0], dtype=bool)
    value = np.zeros(a.shape[0])
    for k in range(2, _FLOAT_MAX_ORDER + 1):
        term = nu[k] / (k * (k - 1))
        total = total + (term if k % 2 == 0 else -term)
        if k % 2 == 1:  # K = k odd: the bound uses E[T^(k+1)] >= 0
            bound = nu[k + 1] * 2.0**k / (k * (k + 1)) + tail
            new = ~done & (bound <= rel_tol * total) & (mu >= 64.0)
            value[new] = mu[new] * total[new]
            done |= new
    # constant X (a or b equal to N): g(0) = 0
    const = nu[2] == 0.0
    value[const] = 0.0
    done |= const & (mu >= 64.0)
    return value, done
