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
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache

__all__ = ["central_moments", "mean_xlog_x_over_mean"]

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
