"""Marxer & Purwins precision, recall and F-measure, equations (1)-(6)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clustermetrics.scores.marxer_purwins import (
    MarxerPurwins,
    marxer_purwins,
    marxer_purwins_f_score,
    marxer_purwins_precision_score,
    marxer_purwins_recall_score,
)
from clustermetrics.table.contingency import Contingency

WRAPPERS = [marxer_purwins_precision_score, marxer_purwins_recall_score, marxer_purwins_f_score]


def reference(matrix: np.ndarray) -> tuple[Fraction, Fraction, Fraction]:
    """Equations (1)-(6) cell by cell, in exact arithmetic; rows = classes c, cols = k."""
    n_classes, n_clusters = matrix.shape
    n = [[int(v) for v in row] for row in matrix]
    n_c = [sum(row) for row in n]
    total = sum(n_c)

    def p_ck(c, k):
        if n_classes == 1:
            return Fraction(1)
        others_in_k = sum(n[i][k] for i in range(n_classes) if i != c)
        others = sum(n_c[i] for i in range(n_classes) if i != c)
        return 1 - Fraction(others_in_k, others)

    def r_ck(c, k):
        return Fraction(n[c][k] - 1, n_c[c] - 1) if n_c[c] > 1 else Fraction(1)

    p_c = [sum(n[c][k] * p_ck(c, k) for k in range(n_clusters)) / n_c[c]
           for c in range(n_classes)]
    r_c = [sum(n[c][k] * r_ck(c, k) for k in range(n_clusters)) / n_c[c]
           for c in range(n_classes)]
    p = sum(n_c[c] * p_c[c] for c in range(n_classes)) / total
    r = sum(n_c[c] * r_c[c] for c in range(n_classes)) / total
    f = 2 * p * r / (p + r) if p + r > 0 else Fraction(0)
    return p, r, f


@st.composite
def class_matrices(draw, max_side=6, max_value=9):
    """Count matrices (rows = classes, cols = clusters) without empty rows or columns."""
    n_rows = draw(st.integers(1, max_side))
    n_cols = draw(st.integers(1, max_side))
    cells = draw(st.lists(st.integers(0, max_value), min_size=n_rows * n_cols,
                          max_size=n_rows * n_cols))
    matrix = np.array(cells, dtype=np.int64).reshape(n_rows, n_cols)
    matrix = matrix[matrix.any(axis=1)][:, matrix.any(axis=0)]
    if matrix.size == 0:
        matrix = np.ones((1, 1), dtype=np.int64)
    return matrix


def labels(matrix: np.ndarray) -> tuple[list[int], list[int]]:
    true, pred = [], []
    for (i, j), count in np.ndenumerate(matrix):
        true += [i] * int(count)
        pred += [j] * int(count)
    return true, pred


@settings(max_examples=200, deadline=None)
@given(class_matrices())
def test_against_per_cell_reference(matrix):
    p, r, f = reference(matrix)
    result = marxer_purwins(Contingency.from_matrix(matrix))
    assert isinstance(result, MarxerPurwins)
    assert result.precision == pytest.approx(float(p), abs=1e-14)
    assert result.recall == pytest.approx(float(r), abs=1e-14)
    assert result.f == pytest.approx(float(f), abs=1e-14)
    true, pred = labels(matrix)
    assert marxer_purwins_precision_score(true, pred) == pytest.approx(float(p), abs=1e-14)
    assert marxer_purwins_recall_score(true, pred) == pytest.approx(float(r), abs=1e-14)
    assert marxer_purwins_f_score(true, pred) == pytest.approx(float(f), abs=1e-14)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(2, 6), min_size=2, max_size=6))
def test_trivial_clusterings_score_zero(class_sizes):
    # Every class has at least two items and there are at least two classes.
    true = [c for c, size in enumerate(class_sizes) for _ in range(size)]
    one_cluster = marxer_purwins(true, [0] * len(true))
    assert one_cluster.precision == 0.0
    assert one_cluster.recall == 1.0
    assert one_cluster.f == 0.0
    singletons = marxer_purwins(true, list(range(len(true))))
    assert singletons.precision == 1.0
    assert singletons.recall == 0.0
    assert singletons.f == 0.0


def test_singleton_classes_keep_recall():
    # Equation (2): a class of one item has R(c, k) = 1, so all-singletons keep its share.
    result = marxer_purwins([0, 0, 1], [0, 1, 2])
    assert result.precision == 1.0
    assert result.recall == pytest.approx(1 / 3)
    assert result.f == pytest.approx(2 * (1 / 3) / (4 / 3))


def test_hand_values():
    # Class 0 = {a, b} in cluster 0; class 1 = {c, d} split over clusters 1 and 2.
    result = marxer_purwins([0, 0, 1, 1], [0, 0, 1, 2])
    assert result.precision == 1.0
    assert result.recall == 0.5
    assert result.f == pytest.approx(2 / 3)
    # Cluster 0 = {a, b, c}: P(0, 0) = 1 - 1/2, P(1, 0) = 1 - 2/2; P(1, 1) = 1.
    result = marxer_purwins([0, 0, 1, 1], [0, 0, 0, 1])
    assert result.precision == pytest.approx((2 * 0.5 + 1 * 0.0 + 1 * 1.0) / 4)
    assert result.recall == pytest.approx((2 * 1.0 + 0 + 0) / 4)


def test_single_class():
    result = marxer_purwins([7, 7, 7, 7], [0, 0, 1, 1])
    assert result.precision == 1.0
    assert result.recall == pytest.approx(1 / 3)


@pytest.mark.parametrize("score", WRAPPERS)
def test_perfect_match_and_type(score):
    value = score(["u", "u", "v", "w", "w"], [3, 3, 1, 2, 2])
    assert type(value) is float
    assert value == 1.0


def test_result_fields_are_floats():
    result = marxer_purwins([0, 0, 1, 1], [0, 1, 1, 1])
    assert all(type(v) is float for v in result)


@settings(max_examples=60, deadline=None)
@given(class_matrices(), st.randoms(use_true_random=False))
def test_invariant_to_renaming_labels(matrix, rnd):
    true, pred = labels(matrix)
    t_map, p_map = list(range(matrix.shape[0])), list(range(matrix.shape[1]))
    rnd.shuffle(t_map)
    rnd.shuffle(p_map)
    true2 = [2**53 + t_map[v] for v in true]
    pred2 = [f"cluster {p_map[v]}" for v in pred]
    expected = marxer_purwins(true, pred)
    got = marxer_purwins(true2, pred2)
    for a, b in zip(got, expected, strict=True):
        assert a == pytest.approx(b, abs=1e-14)


def test_big_ints_stay_distinct():
    assert marxer_purwins_f_score([2**53, 2**53, 2**53 + 1, 2**53 + 1], ["a", "a", "b", "b"]) == 1.0


def test_accepts_contingency():
    table = Contingency.from_labels([0, 0, 1, 1], [0, 0, 1, 2])
    assert marxer_purwins(table) == (1.0, 0.5, pytest.approx(2 / 3))
    assert marxer_purwins_recall_score(table) == 0.5
    with pytest.raises(ValueError, match="labels_pred"):
        marxer_purwins_f_score(table, [0, 0, 1, 2])
    with pytest.raises(ValueError, match="labels_pred"):
        marxer_purwins([0, 1])
