"""The special functions loaded on first use (clustermetrics.compute.special) are the
ones their names say: checked against the standard library's independent implementations
(math.lgamma; statistics.NormalDist, whose inverse is Wichura's AS241)."""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from clustermetrics.compute import special as special

_STD = NormalDist()


@given(st.floats(min_value=1e-6, max_value=1e12))
def test_gammaln_is_log_gamma(x):
    assert math.isclose(float(special.gammaln(x)), math.lgamma(x), rel_tol=1e-13,
                        abs_tol=1e-13)


def test_gammaln_is_elementwise():
    x = np.array([0.5, 1.0, 7.25, 1e6])
    assert np.allclose(special.gammaln(x), [math.lgamma(v) for v in x], rtol=1e-13)


@given(st.floats(min_value=-8.0, max_value=8.0))
def test_ndtr_is_the_normal_distribution_function(x):
    assert math.isclose(float(special.ndtr(x)), _STD.cdf(x), rel_tol=1e-12, abs_tol=1e-15)


@given(st.floats(min_value=1e-12, max_value=1 - 1e-12))
def test_ndtri_is_the_normal_quantile(p):
    assert math.isclose(float(special.ndtri(p)), _STD.inv_cdf(p), rel_tol=1e-12,
                        abs_tol=1e-12)


@given(st.integers(1, 10_000))
def test_digamma_of_an_integer_is_a_harmonic_number_less_euler_gamma(n):
    # psi(n) = H_{n-1} - gamma (Abramowitz & Stegun 6.3.2)
    want = math.fsum(1.0 / k for k in range(1, n)) - 0.57721566490153286061
    assert math.isclose(float(special.digamma(float(n))), want, rel_tol=1e-13, abs_tol=1e-15)


@given(st.floats(1.0, 500.0), st.floats(-30.0, 30.0))
def test_student_t_against_its_closed_form_at_one_and_two_degrees(df, t):
    # scipy's values, checked where the distribution has a closed form: df = 1 (Cauchy)
    # and df = 2. Near t = 0 they are accurate to ~1e-9 absolute (stdtr(1, 1e-8) is off
    # by 1.6e-9), which moves no verdict; the lower tail, where p-values are decided,
    # keeps its relative digits. The quantile inverts the distribution.
    assert math.isclose(float(special.stdtr(1.0, t)), 0.5 + math.atan(t) / math.pi,
                        rel_tol=1e-9, abs_tol=1e-8)
    assert math.isclose(float(special.stdtr(2.0, t)), 0.5 + t / (2 * math.sqrt(2 + t * t)),
                        rel_tol=1e-9, abs_tol=1e-8)
    if abs(t) >= 1.0:
        assert math.isclose(float(special.stdtr(1.0, -abs(t))),
                            math.atan(1.0 / abs(t)) / math.pi, rel_tol=1e-9)
    p = float(special.stdtr(df, -abs(t)))  # the lower tail: p keeps its digits
    if p > 1e-300:
        assert math.isclose(float(special.stdtrit(df, p)), -abs(t), rel_tol=1e-8,
                            abs_tol=1e-8)
