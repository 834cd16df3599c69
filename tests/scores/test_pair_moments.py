"""Exact null moments of the pair count S = sum C(n_ij, 2) (permutation model), the
standardized Rand index, and the analytic significance of the pair-counting scores.

References: enumeration of every arrangement of the predicted labels (N <= 8, exact
Fractions), the cell-factorial-moment route of tests/support/score_reference.py (hypothesis over
margins, and huge counts at N = 1e10), and Monte Carlo permutations for larger N.
"""

from __future__ import annotations

import math
import warnings
from collections import Counter
from fractions import Fraction
from math import comb

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from score_reference import Table, pair_count_moments

import clustermetrics as cm
from clustermetrics.scores.registry import METRICS

SIGNIFICANT = [k for k, e in METRICS.items() if e.significance is not None]


def arrangements(labels):
    """Every distinct ordering of a multiset of labels (each equally likely under a
    uniformly random permutation of the items)."""
    counts = Counter(labels)
    n = len(labels)
    out, current = [], []

    def rec():
        if len(current) == n:
            out.append(tuple(current))
            return
        for value in list(counts):
            if counts[value]:
                counts[value] -= 1
                current.append(value)
                rec()
                current.pop()
                counts[value] += 1
    rec()
    return out


def s_of(truth, pred) -> int:
    return sum(comb(c, 2) for c in Counter(zip(truth, pred, strict=True)).values())


CASES = [
    ([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 2, 2]),
    ([0, 0, 0, 0, 1, 1, 1, 2], [0, 0, 1, 1, 1, 2, 2, 2]),
    ([0, 0, 0, 0, 0, 1, 1, 1], [0, 0, 0, 1, 1, 1, 1, 2]),
    ([0, 0, 1, 1, 2, 2, 3, 3], [0, 0, 0, 0, 1, 1, 1, 1]),
    ([0, 1, 2, 3, 4], [0, 0, 1, 1, 1]),  # truth all singletons: Var = 0
    ([0, 0, 0], [1, 1, 1]),  # one cluster each: Var = 0
    ([0, 0, 1], [0, 1, 1]),
    ([0, 0, 1, 1], [0, 1, 0, 1]),
]


@pytest.mark.parametrize("truth, pred", CASES)
def test_moments_equal_enumeration_of_every_permutation(truth, pred):
    values = [s_of(truth, p) for p in arrangements(pred)]
    mean = Fraction(sum(values), len(values))
    var = Fraction(sum(v * v for v in values), len(values)) - mean * mean
    m = cm.rand_moments(truth, pred)
    assert (m.mean, m.variance, m.s) == (mean, var, s_of(truth, pred))


@pytest.mark.parametrize("truth, pred", CASES)
def test_null_mean_and_sd_of_each_score_equal_enumeration(truth, pred):
    """Every score with an analytic null: its mean and sd over all arrangements of the
    predicted labels, computed by scoring each arranged table."""
    tables = [cm.Contingency.from_labels(truth, p) for p in arrangements(pred)]
    table = cm.Contingency.from_labels(truth, pred)
    for key in SIGNIFICANT:
        entry = METRICS[key]
        sig = entry.significance(table)
        values = np.array([entry.compute(t)[0] for t in tables])
        assert sig.null_mean == pytest.approx(values.mean(), rel=1e-12, abs=1e-12), key
        assert sig.null_sd == pytest.approx(values.std(), rel=1e-9, abs=1e-12), key
        if sig.null_sd > 0:
            z = (entry.compute(table)[0] - values.mean()) / values.std()
            assert sig.z == pytest.approx(z, rel=1e-9, abs=1e-12), key
            toward_better = -sig.z if entry.better == "lower" else sig.z
            assert sig.pvalue == pytest.approx(0.5 * math.erfc(toward_better / math.sqrt(2)))
        else:
            assert (sig.z, sig.pvalue) == (0.0, 1.0)


margins = st.lists(st.integers(1, 6), min_size=1, max_size=4)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_moments_equal_cell_factorial_moments(data):
    """Any table (hence any pair of margins): the pairs-of-pairs closed form equals the
    independent cell-by-cell factorial-moment sum, exactly."""
    rows = data.draw(st.integers(1, 4))
    cols = data.draw(st.integers(1, 4))
    dense = [[data.draw(st.integers(0, 5)) for _ in range(cols)] for _ in range(rows)]
    dense = [r for r in dense if any(r)]
    if not dense:
        dense = [[1] * cols]
    keep = [j for j in range(cols) if any(r[j] for r in dense)]
    dense = tuple(tuple(r[j] for j in keep) for r in dense)
    mean, var = pair_count_moments(Table(dense))
    m = cm.rand_moments(cm.Contingency.from_matrix(np.array(dense)))
    assert (m.mean, m.variance) == (mean, var)


def test_exact_at_ten_billion_items():
    """N = 1e10: the moments equal the Fraction reference exactly and SRI is the 80-digit
    value rounded; float64 sums of C(a, 2) and (a)_3 would not be exact here."""
    dense = ((3_000_000_000, 1_000_000_000, 7),
             (999_999_993, 2_500_000_000, 1),
             (1, 2, 2_499_999_996))
    table = cm.Contingency.from_matrix(np.array(dense, dtype=np.int64))
    assert table.n_samples == 10**10
    mean, var = pair_count_moments(Table(dense))
    m = cm.rand_moments(table)
    assert (m.mean, m.variance) == (mean, var)
    mpmath.mp.dps = 80
    exact = (mpmath.mpf(m.s) - mpmath.mpf(mean.numerator) / mean.denominator) / \
        mpmath.sqrt(mpmath.mpf(var.numerator) / var.denominator)
    assert cm.standardized_rand_score(table) == float(exact)
    sig = METRICS["ari"].significance(table)
    assert sig.z == float(exact) and sig.pvalue == 0.0
    assert float(var) > 0 and m.z > 1e4


def test_monte_carlo_agreement():
    """N = 300: the sample mean and variance of S over random permutations agree with the
    exact moments within a few standard errors."""
    rng = np.random.default_rng(7)
    truth = rng.integers(0, 4, 300)
    pred = np.where(rng.random(300) < 0.3, truth, rng.integers(0, 5, 300))
    m = cm.rand_moments(truth, pred)
    draws = np.array([cm.pair_counts(truth, rng.permutation(pred)).tp for _ in range(3000)],
                     dtype=np.float64)
    se_mean = draws.std() / math.sqrt(draws.size)
    assert abs(draws.mean() - float(m.mean)) < 5 * se_mean
    centred = draws - draws.mean()
    se_var = math.sqrt(((centred**4).mean() - draws.var() ** 2) / draws.size)
    assert abs(draws.var() - float(m.variance)) < 5 * se_var


def test_sri_is_the_z_of_ari_and_rand():
    truth, pred = [0, 0, 0, 1, 1, 1, 2, 2, 2], [0, 0, 1, 1, 1, 2, 2, 2, 0]
    table = cm.Contingency.from_labels(truth, pred)
    z = cm.standardized_rand_score(truth, pred)
    for key in ("ari", "ri", "fmi", "pair_precision", "sri"):
        assert METRICS[key].significance(table).z == z
    assert METRICS["g_plus"].significance(table).z == -z  # lower is better: same evidence
    assert METRICS["g_plus"].significance(table).pvalue == \
        METRICS["ari"].significance(table).pvalue


def test_sri_zero_variance_convention():
    with pytest.raises(cm.UndefinedMetricError):
        cm.standardized_rand_score([0, 1, 2], [0, 0, 1], force_finite=False)
    assert cm.standardized_rand_score([0, 1, 2], [0, 0, 1]) == 0.0
    assert cm.standardized_rand_score([5], [5]) == 0.0


def _values_by_s(key, truth, pred):
    """{S: the set of the score's values} over every distinct table with these margins."""
    by_s = {}
    for table in {tuple(sorted(Counter(zip(truth, p, strict=True)).items())): p
                  for p in arrangements(pred)}.values():
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                value = METRICS[key].compute(cm.Contingency.from_labels(truth, table))[0]
        except ValueError:  # undefined on this table: no evidence either way
            continue
        by_s.setdefault(s_of(truth, table), []).append(value)
    return by_s


def _affine_in_s(by_s) -> bool:
    """The values are one function of S and lie on one non-flat line through 3+ distinct S."""
    if len(by_s) < 3 or any(max(v) - min(v) > 1e-9 * (1 + abs(max(v))) for v in by_s.values()):
        return False
    (s0, v0), (s1, v1), *rest = sorted((s, v[0]) for s, v in by_s.items())
    slope = (v1 - v0) / (s1 - s0)  # 0: a function of the margins alone, no evidence
    return abs(slope) > 1e-9 and all(abs(v0 + slope * (s - s0) - v) <= 1e-9 * (1 + abs(v))
                                     for s, v in rest)


@pytest.mark.parametrize("key", sorted(METRICS))
def test_every_score_affine_in_the_pair_count_has_an_analytic_null(key):
    """Derived numerically over all tables with fixed margins: a score that is an affine
    function of S there must declare its analytic significance, and only such a score."""
    affine = all(_affine_in_s(_values_by_s(key, truth, pred)) for truth, pred in
                 (CASES[1], CASES[2], CASES[3]))
    assert affine == (key in SIGNIFICANT), (key, affine)
