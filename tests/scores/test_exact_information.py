"""Entropies and mutual information accurate at any N (up to 2^63 - 1), against 50-digit
mpmath references; and the pair F-score as one correctly rounded quotient."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import clustermetrics as cm
from clustermetrics.scores._entropies import _entropy_of_sizes

EPS = 2.0**-52
SETTINGS = settings(max_examples=60, deadline=None)
counts = st.integers(1, 10**17)


def _entropy(sizes: list[int]) -> mpmath.mpf:
    with mpmath.workdps(60):
        n = mpmath.mpf(sum(sizes))
        return sum(a / n * mpmath.log(n / a) for a in map(mpmath.mpf, sizes))


def _mutual_info(matrix: list[list[int]]) -> tuple[mpmath.mpf, mpmath.mpf]:
    """(MI, sum of |p log r| over the cells): the reference and its conditioning."""
    with mpmath.workdps(60):
        a = [sum(row) for row in matrix]
        b = [sum(col) for col in zip(*matrix, strict=True)]
        n = sum(a)
        mi = scale = mpmath.mpf(0)
        for i, row in enumerate(matrix):
            for j, x in enumerate(row):
                if x:
                    term = mpmath.mpf(x) / n * mpmath.log(mpmath.mpf(n) * x / (a[i] * b[j]))
                    mi += term
                    scale += abs(term)
        return mi, scale


@SETTINGS
@given(st.lists(counts, min_size=2, max_size=6).filter(lambda s: sum(s) < 2**63))
def test_entropy_to_a_few_ulps(sizes):
    exact = _entropy(sizes)
    assert abs(_entropy_of_sizes(np.array(sizes)) - exact) <= 4 * EPS * exact


@SETTINGS
@given(st.integers(8, 2**62), st.integers(1, 3))
def test_entropy_of_one_dominant_class(n, small):
    """A class of N - 1 items adds ~1/N nats; log a - log N used to make it 0."""
    sizes = [n - small, small]
    exact = _entropy(sizes)
    assert abs(_entropy_of_sizes(np.array(sizes)) - exact) <= 4 * EPS * exact


@st.composite
def tables(draw):
    """Small shapes, counts up to 1e17, or near 2^61 so that sums of sizes pass 2^63."""
    rows, cols = draw(st.integers(2, 4)), draw(st.integers(2, 4))
    cell = draw(st.sampled_from([counts, st.integers(2**59, 2**61)]))
    matrix = [[draw(st.one_of(st.just(0), cell)) for _ in range(cols)] for _ in range(rows)]
    for i in range(rows):
        if not any(matrix[i]):
            matrix[i][i % cols] = 1
    for j in range(cols):
        if not any(row[j] for row in matrix):
            matrix[j % rows][j] = 1
    while sum(map(sum, matrix)) >= 2**63:
        matrix = [[x // 2 + (x % 2) for x in row] for row in matrix]
    if draw(st.booleans()):  # one dominant cell filling N up to 2^63 - 1
        matrix[0][0] += 2**63 - 1 - sum(map(sum, matrix)) - draw(st.integers(0, 2**40))
    return matrix


@SETTINGS
@given(tables())
def test_mutual_information_to_a_few_ulps_of_its_terms(matrix):
    table = cm.Contingency.from_matrix(np.array(matrix, dtype=object))
    exact, scale = _mutual_info(matrix)
    assert abs(cm.mutual_info_score(table) - max(exact, 0)) <= 8 * EPS * scale + 1e-300


@SETTINGS
@given(st.lists(st.integers(1, 2**20), min_size=2, max_size=4),
       st.lists(st.integers(1, 2**20), min_size=2, max_size=4), st.integers(1, 2**20))
def test_independent_tables_have_no_information(wa, wb, scale):
    """n_ij = w_i w_j k makes N n_ij = a_i b_j exactly: MI is exactly 0 and AMI negative
    (the expected MI is positive); four logs of size log N used to leave ~1e-15."""
    matrix = [[x * y * scale for y in wb] for x in wa]
    if sum(map(sum, matrix)) >= 2**63:
        return
    table = cm.Contingency.from_matrix(np.array(matrix, dtype=object))
    assert cm.mutual_info_score(table) == 0.0
    assert cm.adjusted_mutual_info_score(table) < 0.0
    assert cm.normalized_mutual_info_score(table) == 0.0


@SETTINGS
@given(tables(), st.sampled_from([1.0, 0.5, 2.0, 0.1, 3.0]))
def test_pair_f_score_is_one_correctly_rounded_quotient(matrix, beta):
    table = cm.Contingency.from_matrix(np.array(matrix, dtype=object))
    tp, fn, fp, _ = cm.pair_counts(table)
    b2 = Fraction(beta) ** 2
    den = (1 + b2) * tp + b2 * fn + fp
    expected = 1.0 if den == 0 else float((1 + b2) * tp / den)
    assert cm.pair_f_score(table, beta=beta) == expected


@SETTINGS
@given(tables())
def test_best_match_f_at_any_n(matrix):
    """a_i + b_j passes 2^63 before N does: F_ij = 2 n_ij / (a_i + b_j) summed it in
    int64 (one cell of 2^62 + 1 scored -1.0). Exact: sum_i (a_i / N) max_j F_ij."""
    table = cm.Contingency.from_matrix(np.array(matrix, dtype=object))
    a = [sum(row) for row in matrix]
    b = [sum(col) for col in zip(*matrix, strict=True)]
    n = sum(a)
    exact = sum(Fraction(a[i], n) * max(Fraction(2 * x, a[i] + b[j]) for j, x in enumerate(row))
                for i, row in enumerate(matrix))
    assert math.isclose(cm.best_match_f_score(table), exact, rel_tol=4 * EPS)
