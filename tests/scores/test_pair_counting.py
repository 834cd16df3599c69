"""Pair counting: table formulas against O(N^2) enumeration, and exactness at huge N."""

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pair_reference import enumerate_pairs

import clustermetrics as cm

small = st.integers(1, 25).flatmap(lambda n: st.tuples(
    st.lists(st.integers(0, 4), min_size=n, max_size=n),
    st.lists(st.sampled_from("abcdef"), min_size=n, max_size=n)))


@settings(max_examples=150, deadline=None)
@given(small)
def test_pair_counts_equal_enumeration(pair):
    t, p = pair
    tp, fn, fp, tn = enumerate_pairs(t, p)
    assert tuple(cm.pair_counts(t, p)) == (tp, fn, fp, tn)
    prec = cm.pair_precision_score(t, p)
    rec = cm.pair_recall_score(t, p)
    assert prec == (tp / (tp + fp) if tp + fp else 1.0)
    assert rec == (tp / (tp + fn) if tp + fn else 1.0)
    assert cm.pair_jaccard_score(t, p) == (tp / (tp + fn + fp) if tp + fn + fp else 1.0)
    f1 = 2 * tp / (2 * tp + fn + fp) if tp + fn + fp else 1.0
    assert cm.pair_f_score(t, p) == pytest.approx(f1, abs=1e-15)
    assert cm.rand_score(t, p) == pytest.approx((tp + tn) / (tp + fn + fp + tn) if
                                                len(t) > 1 else 1.0, abs=1e-15)


@settings(max_examples=100, deadline=None)
@given(small, st.floats(0.1, 4))
def test_f_beta_is_weighted_harmonic_mean(pair, beta):
    t, p = pair
    prec, rec = cm.pair_precision_score(t, p), cm.pair_recall_score(t, p)
    tp, fn, fp, _ = cm.pair_counts(t, p)
    if tp == 0:
        return
    expected = (1 + beta**2) * prec * rec / (beta**2 * prec + rec)
    assert cm.pair_f_score(t, p, beta=beta) == pytest.approx(expected, rel=1e-12)


def _exact_scores(tp, fn, fp, tn):
    """ARI, RI, FMI from the textbook formulas with exact rationals."""
    total = tp + fn + fp + tn
    expected = Fraction((tp + fn) * (tp + fp), total)
    ari = (tp - expected) / (Fraction((tp + fn) + (tp + fp), 2) - expected)
    return float(ari), float(Fraction(tp + tn, total)), tp / math.sqrt((tp + fp) * (tp + fn))


@pytest.mark.parametrize("scale", [10**6, 10**9, 10**10])
def test_exact_at_huge_counts(scale):
    # A table with N ~ 4 * scale items: n*(n-1) and the products in ARI overflow int64 here.
    classes, clusters = [0, 0, 1, 1, 2], ["a", "b", "b", "c", "c"]
    counts = [scale, scale // 3, 7 * scale // 5, 11, scale // 2 + 1]
    table = cm.Contingency.from_counts(classes, clusters, counts)
    pairs = cm.pair_counts(table)
    a = {0: counts[0] + counts[1], 1: counts[2] + counts[3], 2: counts[4]}
    b = {"a": counts[0], "b": counts[1] + counts[2], "c": counts[3] + counts[4]}
    n = sum(counts)
    comb = lambda x: x * (x - 1) // 2  # noqa: E731
    tp = sum(comb(c) for c in counts)
    fn, fp = sum(map(comb, a.values())) - tp, sum(map(comb, b.values())) - tp
    assert tuple(pairs) == (tp, fn, fp, comb(n) - tp - fn - fp)
    assert all(type(x) is int for x in pairs)
    ari, ri, fmi = _exact_scores(*pairs)
    assert cm.adjusted_rand_score(table) == ari  # divided once: correctly rounded
    assert cm.rand_score(table) == ri
    assert cm.fowlkes_mallows_score(table) == pytest.approx(fmi, rel=1e-15)
    assert 0.0 <= ri <= 1.0


def test_pair_confusion_matrix_beyond_int64_is_exact():
    table = cm.Contingency.from_counts([0, 1], [0, 1], [3 * 10**9, 3 * 10**9])
    m = cm.pair_confusion_matrix(table)
    assert m.dtype == object
    n = 6 * 10**9
    assert int(m.sum()) == n * (n - 1)


def test_f_score_bad_beta():
    with pytest.raises(ValueError, match="beta must be a finite number >= 0"):
        cm.pair_f_score([0, 1], [0, 1], beta=float("nan"))


@pytest.mark.parametrize("func", [cm.pair_f_score, cm.pair_jaccard_score])
def test_undefined_when_both_all_singletons(func):
    assert func([0, 1, 2], [5, 6, 7]) == 1.0
    assert func([0, 1, 2], [5, 6, 7], finite_value=0.0) == 0.0
    with pytest.raises(cm.UndefinedMetricError):
        func([0, 1, 2], [5, 6, 7], force_finite=False)


def test_rand_single_item():
    assert cm.rand_score([1], [2]) == 1.0
    assert cm.adjusted_rand_score([1], [2]) == 1.0
    assert np.array_equal(cm.pair_confusion_matrix([1], [2]), np.zeros((2, 2)))
