"""Exact mean and variance of the pair count S = sum_ij C(n_ij, 2) under the permutation
model (both margins fixed, the items of one labelling randomly permuted; Hubert & Arabie
1985), in O(R + C) after the table, as exact rationals at any N.

Write T for the set of item pairs together in the truth (|T| = P = sum_i C(a_i, 2)) and U
for those together in the prediction (|U| = Q = sum_j C(b_j, 2)); a uniformly random
permutation pi of the items gives S = #{t in T : pi(t) in U}, and M = C(N, 2). Then
E[S] = P Q / M, and E[S^2] sums Pr[pi(t) = u, pi(t') = u'] over ordered (t, t') in T^2 and
(u, u') in U^2; the probability depends only on how the pairs overlap, which pi keeps:

* t = t' and u = u': 1 / M, over P Q terms;
* t, t' share exactly one item (so both lie in one class), and so do u, u': the shared item
  must go to the shared item, probability 1 / (N)_3, over T1 U1 terms, where
  T1 = sum_i (a_i)_3 counts the ordered pairs of pairs sharing one item (shared item, then
  the two other ends) and U1 = sum_j (b_j)_3;
* t, t' disjoint, and so are u, u': 2 x 2 ways to map the two pairs, probability
  4 / (N)_4, over T0 U0 terms, T0 = P^2 - P - T1 and U0 = Q^2 - Q - U1;
* mixed overlap types: probability 0.

So Var[S] = P Q / M + T1 U1 / (N)_3 + 4 T0 U0 / (N)_4 - (P Q / M)^2, with (N)_k the falling
factorial. Every sum is an exact Python integer, so the moments hold at any N (tests compare
them with enumeration of all permutations for N <= 8 and with Fractions at N = 1e10).

Given the margins, every pair-counting index that is an affine function of S (the Rand
index, ARI, pair precision and recall, Fowlkes-Mallows, ...) has its exact null mean and
standard deviation from these two numbers, and all share one z-score: the standardized
Rand index of Romano, Vinh, Bailey & Verspoor (JMLR 17, 2016).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import NamedTuple

import numpy as np

__all__ = ["PairMoments", "pair_moments", "falling_sums", "normal_upper_tail", "sqrt_fraction"]

_INT64_CUBE_N = 2_097_151  # below this N, every (a)_3 and their sum fit in int64


class PairMoments(NamedTuple):
    """The observed pair count ``s`` and its exact null moments (see the module)."""

    n: int  # items
    pairs: int  # M = C(N, 2)
    p: int  # pairs together in the truth
    q: int  # pairs together in the prediction
    s: int  # pairs together in both (observed)
    mean: Fraction  # E[S]
    variance: Fraction  # Var[S]

    @property
    def z_squared(self) -> Fraction | None:
        """(S - E[S])^2 / Var[S] exactly, None when Var[S] = 0."""
        if self.variance == 0:
            return None
        return (self.s - self.mean) ** 2 / self.variance

    @property
    def z(self) -> float:
        """(S - E[S]) / sd(S), correctly rounded from the exact ratio; 0.0 when
        Var[S] = 0 (S then takes a single value, its mean)."""
        z2 = self.z_squared
        if not z2:
            return 0.0
        return math.copysign(sqrt_fraction(z2), self.s - self.mean)


def sqrt_fraction(x: Fraction) -> float:
    """sqrt(x) for a positive Fraction, correctly rounded: an integer square root with at
    least 64 bits and a sticky bit for the remainder, rounded once by ``float``."""
    num, den = x.numerator, x.denominator
    shift = max(0, (132 - num.bit_length() + den.bit_length()) // 2)
    scaled = num << (2 * shift)
    root = math.isqrt(scaled // den)
    if root * root * den != scaled:
        root |= 1  # inexact: the sticky bit keeps ties from rounding the wrong way
    return math.ldexp(float(root), -shift)


def falling_sums(sizes: np.ndarray, n: int) -> tuple[int, int]:
    """(sum C(x, 2), sum (x)_3) over ``sizes`` as exact Python integers."""
    x = np.asarray(sizes)
    if n >= _INT64_CUBE_N:
        x = x.astype(object)
    else:
        x = x.astype(np.int64)
    pairs = int((x * (x - 1)).sum()) // 2
    triples = int((x * (x - 1) * (x - 2)).sum())
    return pairs, triples


def pair_moments(n: int, s: int, class_sizes: np.ndarray,
                 cluster_sizes: np.ndarray) -> PairMoments:
    """Exact E[S] and Var[S] of the pair count under the permutation model."""
    n = int(n)
    p, t1 = falling_sums(class_sizes, n)
    q, u1 = falling_sums(cluster_sizes, n)
    m = n * (n - 1) // 2
    if m == 0:
        return PairMoments(n, 0, p, q, int(s), Fraction(0), Fraction(0))
    mean = Fraction(p * q, m)
    second = mean
    n3 = n * (n - 1) * (n - 2)
    if n3:
        second += Fraction(t1 * u1, n3)
    n4 = n3 * (n - 3)
    if n4:
        second += Fraction(4 * (p * p - p - t1) * (q * q - q - u1), n4)
    return PairMoments(n, m, p, q, int(s), mean, second - mean * mean)


def normal_upper_tail(z: float) -> float:
    """P(Z >= z) for a standard normal Z, accurate in the far tail (erfc, not 1 - cdf)."""
    return 0.5 * math.erfc(z / math.sqrt(2.0))
