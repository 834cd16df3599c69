"""Exact hypergeometric moments and the large-mean expansion of E[X log(X/mu)], against
brute force: exact pmf Fractions for the moments, a 60-digit mpmath sum over the support
for the expansion, and the expected mutual information through both of its paths."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from clustermetrics.scores import _emi
from clustermetrics.scores._emi import expected_mutual_information
from clustermetrics.scores._hypergeometric import (
    central_moment_ratios,
    central_moments,
    mean_xlog_x_over_mean,
    mean_xlog_x_over_mean_float,
)


def _pmf(a: int, b: int, n: int) -> dict[int, Fraction]:
    total = math.comb(n, b)
    return {k: Fraction(math.comb(a, k) * math.comb(n - a, b - k), total)
            for k in range(max(0, a + b - n), min(a, b) + 1)}


@st.composite
def margins(draw, max_n: int):
    n = draw(st.integers(1, max_n))
    return draw(st.integers(0, n)), draw(st.integers(0, n)), n


@settings(max_examples=60, deadline=None)
@given(margins(40), st.integers(0, 9))
def test_central_moments_equal_the_pmf(m, order):
    a, b, n = m
    pmf = _pmf(a, b, n)
    mean = sum(k * p for k, p in pmf.items())
    expected = [sum((k - mean) ** j * p for k, p in pmf.items()) for j in range(order + 1)]
    assert central_moments(a, b, n, order) == expected


def _xlogx_over_mean(a: int, b: int, n: int) -> mpmath.mpf:
    """E[X log(X/mu)] with 50 digits, summed over mu +- 40 sd (+ 60) of the support.

    The pmf starts from exact binomials at the mode and walks by the ratio
    P(k+1)/P(k) = (a-k)(b-k) / ((k+1)(n-a-b+k+1)). Beyond 40 standard deviations the mass
    is below exp(-800) (Hoeffding's bound exp(-2 t^2 / min(a, b)) with t >= 40 sd), far
    below the digits compared."""
    with mpmath.workdps(50):
        mu = mpmath.mpf(a) * b / n
        sd = math.sqrt(a * b / n * (n - a) / n * (n - b) / max(n - 1, 1))
        lo = max(0, a + b - n, int(a * b / n - 40 * sd) - 60)
        hi = min(a, b, int(a * b / n + 40 * sd) + 60)
        mode = min(max((a + 1) * (b + 1) // (n + 2), lo), hi)
        p_mode = mpmath.mpf(math.comb(a, mode) * math.comb(n - a, b - mode)) / math.comb(n, b)
        out = mpmath.mpf(0)
        p, k = p_mode, mode
        while k <= hi:  # the mode and the right side
            out += p * k * mpmath.log(k / mu) if k else 0
            p *= mpmath.mpf((a - k) * (b - k)) / ((k + 1) * (n - a - b + k + 1))
            k += 1
        p, k = p_mode, mode
        while k > lo:  # the left side: P(k-1) = P(k) k (n-a-b+k) / ((a-k+1)(b-k+1))
            p *= mpmath.mpf(k * (n - a - b + k)) / ((a - k + 1) * (b - k + 1))
            k -= 1
            out += p * k * mpmath.log(k / mu) if k else 0
        return out


@settings(max_examples=12, deadline=None)
@given(st.integers(3_000, 200_000), st.floats(0.02, 0.98), st.floats(0.02, 0.98))
def test_expansion_equals_the_full_sum(n, fa, fb):
    a, b = max(1, int(fa * n)), max(1, int(fb * n))
    value = mean_xlog_x_over_mean(a, b, n, 2.0**-56)
    if value is None:  # not provable: only allowed for small means
        assert a * b / n < 3_000
        return
    reference = float(_xlogx_over_mean(a, b, n))
    assert math.isclose(value, reference, rel_tol=1e-14), (a, b, n)


def test_small_means_are_left_to_the_walk():
    assert mean_xlog_x_over_mean(3, 5, 100, 2.0**-56) is None  # mean 0.15
    assert mean_xlog_x_over_mean(10**6, 1_000, 10**6, 2.0**-56) == 0.0  # X is always 1000


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(0.05, 1.0), min_size=2, max_size=5),
       st.lists(st.floats(0.05, 1.0), min_size=2, max_size=5),
       st.integers(10**15, 10**18))
def test_emi_at_huge_margins_tends_to_its_chi_square_limit(wa, wb, n):
    """With every mean a b / N above 1e12, N EMI = sum_ij (1 - a_i/N)(1 - b_j/N)/2 (1 +
    O(1/mean)) = (R - 1)(C - 1)/2 (1 + O(1e-12)): the chi-square limit of 2 N MI."""
    a = [int(w / sum(wa) * n) for w in wa]
    b = [int(w / sum(wb) * n) for w in wb]
    a[-1] += n - sum(a)
    b[-1] += n - sum(b)
    value = expected_mutual_information(np.array(a), np.array(b), n) * n
    limit = (len(a) - 1) * (len(b) - 1) / 2
    assert math.isclose(value, limit, rel_tol=1e-11), (value, limit)


def test_walk_and_expansion_agree_near_the_threshold(monkeypatch):
    """Both ways of one pair's term, on margins where each is accurate, give the same EMI."""
    a = np.array([40_000, 60_000])
    b = np.array([30_000, 70_000])
    n = 100_000
    monkeypatch.setattr(_emi, "_EXPANSION_MEAN", 0.0)
    expansion = expected_mutual_information(a, b, n)
    monkeypatch.setattr(_emi, "_EXPANSION_MEAN", float("inf"))
    walked = expected_mutual_information(a, b, n)
    with mpmath.workdps(60):
        reference = sum(_xlogx_over_mean(int(x), int(y), n) for x in a for y in b) / n
    assert math.isclose(expansion, float(reference), rel_tol=1e-14)
    assert math.isclose(walked, float(reference), rel_tol=1e-11)


@settings(max_examples=25, deadline=None)
@given(st.integers(20, 10**12), st.floats(0.0, 1.0), st.floats(0.0, 1.0))
def test_float_moment_recurrence_equals_exact_moments(n, fa, fb):
    """E[T^k] from the float recurrence against the exact rational moments, k <= 12, at
    the means where the expansion is used (mu >= 64): each to 1e-11 relative, or its
    error, as it enters E[g(T)] (divided by k (k - 1)), below 1e-14 of the leading term
    E[T^2] / 2 (odd moments cancel terms of the size of their even neighbours)."""
    a, b = max(1, min(n - 1, int(fa * n))), max(1, min(n - 1, int(fb * n)))
    assume(a * b >= 64 * n)
    mu = Fraction(a * b, n)
    exact = central_moments(a, b, n, 12)
    ratios = central_moment_ratios(np.array([a]), np.array([b]), n, 12)[:, 0]
    want = [float(exact[k] / mu**k) for k in range(13)]
    for k in range(2, 13):
        error = abs(ratios[k] - want[k])
        assert error <= 1e-11 * abs(want[k]) or \
            error / (k * (k - 1)) <= 1e-14 * want[2] / 2, (k, ratios[k], want[k])


@settings(max_examples=12, deadline=None)
@given(st.integers(3_000, 200_000), st.floats(0.02, 0.98), st.floats(0.02, 0.98))
def test_float_expansion_equals_the_full_sum(n, fa, fb):
    a, b = max(1, int(fa * n)), max(1, int(fb * n))
    value, ok = mean_xlog_x_over_mean_float(np.array([a]), np.array([b]), n, 2.0**-53)
    if not ok[0]:  # not provable: only allowed for small means
        assert a * b / n < 3_000
        return
    reference = float(_xlogx_over_mean(a, b, n))
    assert math.isclose(value[0], reference, rel_tol=1e-14), (a, b, n)


@settings(max_examples=40, deadline=None)
@given(st.integers(10**6, 10**16), st.floats(2.7, 9.0), st.floats(0.0, 1.0))
def test_float_expansion_equals_the_integer_one_and_covers_large_means(n, log_mu, share):
    """Against the exact-integer expansion at any N; every pair with a mean from 4096 on
    is proven (so the pmf walk only ever sees windows of bounded width, whatever N)."""
    mu = min(10.0**log_mu, n / 4)
    a = int(math.exp(math.log(mu) + share * (math.log(n) - math.log(mu))))
    b = int(mu * n / max(a, 1))
    if not (1 <= a < n and 1 <= b < n):
        return
    value, ok = mean_xlog_x_over_mean_float(np.array([a]), np.array([b]), n, 2.0**-53)
    if a * b >= 4096 * n:
        assert ok[0], (a, b, n)
    reference = mean_xlog_x_over_mean(a, b, n, 2.0**-56)
    if ok[0] and reference is not None:
        assert math.isclose(value[0], reference, rel_tol=1e-14), (a, b, n)


def test_emi_with_expansion_equals_the_walk_on_many_pairs(monkeypatch):
    """40 x 40 distinct margins with means a b / N from ~100 to ~9e6: the EMI with the
    float moment expansion (pairs from a mean of 512 on) equals the pmf walk over every
    pair to 1e-13 relative."""
    rng = np.random.default_rng(4)
    a = rng.integers(10**5, 10**7, 40)
    n = int(a.sum())
    b = rng.integers(10**4, 10**6, 40)
    b[-1] += n - b.sum()
    assert b.min() > 0
    expansion = expected_mutual_information(a, b, n)
    monkeypatch.setattr(_emi, "_EXPANSION_MEAN", float("inf"))
    walked = expected_mutual_information(a, b, n)
    assert math.isclose(expansion, walked, rel_tol=1e-13), (expansion, walked)
