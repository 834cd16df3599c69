"""Matching helper, purity, inverse purity, best-match F, clustering error/accuracy/ratio."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clustermetrics.matching import assignment as _assignment
from clustermetrics.matching.assignment import max_weight_matching
from clustermetrics.scores.set_matching import (
    best_match_f_score,
    clustering_accuracy_score,
    clustering_error,
    clustering_ratio,
    inverse_purity_score,
    purity_score,
)
from clustermetrics.table.contingency import Contingency

SCORES = [purity_score, inverse_purity_score, best_match_f_score, clustering_error,
          clustering_accuracy_score, clustering_ratio]


@st.composite
def small_matrices(draw, max_side=6, max_value=9):
    """Dense count matrices (rows = classes) with at least one non-zero cell."""
    n_rows = draw(st.integers(1, max_side))
    n_cols = draw(st.integers(1, max_side))
    cells = draw(st.lists(st.integers(0, max_value), min_size=n_rows * n_cols,
                          max_size=n_rows * n_cols))
    matrix = np.array(cells, dtype=np.int64).reshape(n_rows, n_cols)
    if not matrix.any():
        matrix[draw(st.integers(0, n_rows - 1)), draw(st.integers(0, n_cols - 1))] = 1
    return matrix


def brute_best_count(dense: np.ndarray) -> int:
    """Largest total count over one-to-one maps of the smaller side into the larger one."""
    if dense.shape[0] > dense.shape[1]:
        dense = dense.T
    k, n = dense.shape
    return max(sum(int(dense[i, p[i]]) for i in range(k))
               for p in itertools.permutations(range(n), k))


def labels_from_matrix(matrix: np.ndarray) -> tuple[list[int], list[int]]:
    true, pred = [], []
    for (i, j), count in np.ndenumerate(matrix):
        true += [i] * int(count)
        pred += [j] * int(count)
    return true, pred


# --------------------------------------------------------------------- matching helper
def check_is_matching(table: Contingency, cells: np.ndarray) -> None:
    assert np.unique(table.rows[cells]).shape[0] == cells.shape[0]
    assert np.unique(table.cols[cells]).shape[0] == cells.shape[0]
    assert np.all(np.diff(cells) > 0)


@settings(max_examples=150, deadline=None)
@given(small_matrices(max_value=30))
def test_dense_and_sparse_paths_agree_with_brute_force(matrix):
    table = Contingency.from_matrix(matrix)
    shape = (table.n_classes, table.n_clusters)
    dense = max_weight_matching(table.rows, table.cols, table.counts, shape)
    sparse = max_weight_matching(table.rows, table.cols, table.counts, shape, dense_max_cells=0)
    check_is_matching(table, dense)
    check_is_matching(table, sparse)
    best = brute_best_count(table.to_dense())
    assert int(table.counts[dense].sum()) == best
    assert int(table.counts[sparse].sum()) == best


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(20, 80), st.integers(20, 80))
def test_dense_and_sparse_paths_agree_on_float_weights(seed, n_rows, n_cols):
    rng = np.random.default_rng(seed)
    matrix = rng.integers(0, 50, (n_rows, n_cols)) * (rng.random((n_rows, n_cols)) < 0.2)
    matrix[0, 0] += 1
    table = Contingency.from_matrix(matrix)
    weights = table.counts / table.class_sizes[table.rows]
    shape = (table.n_classes, table.n_clusters)
    dense = max_weight_matching(table.rows, table.cols, weights, shape)
    sparse = max_weight_matching(table.rows, table.cols, weights, shape, dense_max_cells=0)
    check_is_matching(table, sparse)
    assert weights[sparse].sum() == pytest.approx(weights[dense].sum(), rel=1e-12, abs=1e-12)


def test_matching_skips_absent_cells():
    # One row touches two columns; the optimum uses one of them, never a zero cell.
    table = Contingency.from_matrix([[3, 1]])
    cells = max_weight_matching(table.rows, table.cols, table.counts, (1, 2))
    assert cells.tolist() == [0]
    cells = max_weight_matching(table.rows, table.cols, table.counts, (1, 2), dense_max_cells=0)
    assert cells.tolist() == [0]


# --------------------------------------------------------------------- clustering error
@settings(max_examples=150, deadline=None)
@given(small_matrices())
def test_clustering_error_and_accuracy_vs_brute_force(matrix):
    table = Contingency.from_matrix(matrix)
    best = brute_best_count(table.to_dense())
    n = int(matrix.sum())
    assert clustering_error(table) == pytest.approx((n - best) / n, abs=1e-15)
    assert clustering_accuracy_score(table) == pytest.approx(best / n, abs=1e-15)


def test_clustering_error_sparse_path(monkeypatch):
    rng = np.random.default_rng(7)
    true = rng.integers(0, 40, 3000)
    pred = (true + rng.integers(0, 3, 3000)) % 45
    dense_value = clustering_error(true, pred)
    monkeypatch.setattr(_assignment, "DENSE_MAX_CELLS", 0)
    assert clustering_error(true, pred) == pytest.approx(dense_value, abs=1e-15)
    table = Contingency.from_labels(true, pred)
    assert clustering_accuracy_score(table) == pytest.approx(1 - dense_value, abs=1e-15)


def test_clustering_error_hand_values():
    # Classes {a,a,b,b,c,c} against clusters {1,1,0,0,0,0}: best map a->1, b->0 (or c->0).
    assert clustering_error(list("aabbcc"), [1, 1, 0, 0, 0, 0]) == pytest.approx(1 / 3)
    assert clustering_accuracy_score(list("aabbcc"), [1, 1, 0, 0, 0, 0]) == pytest.approx(2 / 3)
    # Identical up to renaming.
    assert clustering_error([0, 0, 1, 2], [7, 7, 3, 5]) == 0.0
    assert clustering_accuracy_score([0, 0, 1, 2], [7, 7, 3, 5]) == 1.0
    # Symmetric.
    assert clustering_error([0, 0, 0, 1], [0, 1, 2, 2]) == clustering_error([0, 1, 2, 2],
                                                                            [0, 0, 0, 1])


# --------------------------------------------------------------------- purity and F
@settings(max_examples=150, deadline=None)
@given(small_matrices())
def test_purity_and_f_vs_dense_numpy(matrix):
    table = Contingency.from_matrix(matrix)
    dense = table.to_dense().astype(float)
    n = dense.sum()
    a = dense.sum(axis=1, keepdims=True)
    b = dense.sum(axis=0, keepdims=True)
    assert purity_score(table) == pytest.approx(dense.max(axis=0).sum() / n, abs=1e-15)
    assert inverse_purity_score(table) == pytest.approx(dense.max(axis=1).sum() / n, abs=1e-15)
    precision, recall = dense / b, dense / a
    with np.errstate(invalid="ignore"):
        f = np.nan_to_num(2 * precision * recall / (precision + recall))
    expected = (a[:, 0] * f.max(axis=1)).sum() / n
    assert best_match_f_score(table) == pytest.approx(expected, abs=1e-14)
    assert clustering_ratio(table) == table.to_dense().shape[1] / table.to_dense().shape[0]


def test_purity_hand_values():
    true, pred = [0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 1, 1]
    assert purity_score(true, pred) == pytest.approx(5 / 6)  # clusters: 2 of 2, 3 of 4
    assert inverse_purity_score(true, pred) == pytest.approx(5 / 6)
    assert purity_score([0, 0, 1, 1], [0, 1, 2, 3]) == 1.0
    assert inverse_purity_score([0, 0, 1, 1], [0, 1, 2, 3]) == 0.5
    assert purity_score([0, 0, 1, 1], [5, 5, 5, 5]) == 0.5
    assert purity_score([0, 0, 1, 1], [0, 1, 2, 3]) == inverse_purity_score([0, 1, 2, 3],
                                                                            [0, 0, 1, 1])


def test_best_match_f_hand_value():
    # Class 0 (2 items) best in cluster 0: F = 2*2/(2+3) = 0.8; class 1: max(2/5, 2/3).
    expected = (2 * 0.8 + 2 * (2 / 3)) / 4
    assert best_match_f_score([0, 0, 1, 1], [0, 0, 0, 1]) == pytest.approx(expected, abs=1e-15)


def test_clustering_ratio_values():
    assert clustering_ratio([0, 0, 1, 1], [0, 1, 2, 3]) == 2.0
    assert clustering_ratio([0, 1, 2, 3], [0, 0, 0, 1]) == 0.5


@pytest.mark.parametrize("score", SCORES)
def test_perfect_match(score):
    true = ["x", "y", "y", "z", "z", "z"]
    pred = [2, 0, 0, 1, 1, 1]
    expected = 0.0 if score is clustering_error else 1.0
    value = score(true, pred)
    assert type(value) is float
    assert value == expected


# --------------------------------------------------------------------- invariances and inputs
@settings(max_examples=60, deadline=None)
@given(small_matrices(), st.randoms(use_true_random=False))
def test_invariant_to_renaming_labels(matrix, rnd):
    true, pred = labels_from_matrix(matrix)
    t_map = list(range(matrix.shape[0]))
    p_map = list(range(matrix.shape[1]))
    rnd.shuffle(t_map)
    rnd.shuffle(p_map)
    true2 = [f"class-{t_map[v]}" for v in true]
    pred2 = [2**53 + p_map[v] for v in pred]
    for score in SCORES:
        assert score(true2, pred2) == pytest.approx(score(true, pred), abs=1e-14)


def test_big_int_and_string_labels_stay_distinct():
    true = [2**53, 2**53, 2**53 + 1, 2**53 + 1]
    pred = ["a", "a", "b", "b"]
    assert clustering_error(true, pred) == 0.0
    assert purity_score(true, pred) == 1.0
    assert best_match_f_score(true, pred) == 1.0


def test_accepts_contingency():
    # Best map 0->1, 1->0, 2->2 keeps 4 of 5 items; every cluster/class majority too.
    true, pred = [0, 0, 1, 1, 2], [1, 1, 0, 2, 2]
    table = Contingency.from_labels(true, pred)
    expected = {clustering_error: 0.2, clustering_accuracy_score: 0.8, purity_score: 0.8,
                inverse_purity_score: 0.8, clustering_ratio: 1.0}
    for score, value in expected.items():
        assert score(table) == pytest.approx(value)
        assert score(true, pred) == pytest.approx(value)
    with pytest.raises(ValueError, match="labels_pred"):
        purity_score(table, pred)
    with pytest.raises(ValueError, match="labels_pred"):
        clustering_error(true)


def test_exact_fraction_sanity_of_f():
    # 3 classes, clusters merge two of them: exact rational check of the F formula.
    true, pred = [0] * 3 + [1] * 2 + [2] * 5, [0] * 5 + [1] * 5
    f0 = Fraction(2 * 3, 3 + 5)
    f1 = Fraction(2 * 2, 2 + 5)
    f2 = Fraction(2 * 5, 5 + 5)
    expected = (3 * f0 + 2 * f1 + 5 * f2) / 10
    assert best_match_f_score(true, pred) == pytest.approx(float(expected), abs=1e-15)


@pytest.mark.parametrize("seed", range(6))
def test_forced_cell_reduction_keeps_the_optimum(seed):
    # a noisy diagonal: the reduction fixes most cells; the rest goes to the solver
    rng = np.random.default_rng(seed)
    k, n = 150, 3000
    t = rng.integers(0, k, n)
    p = np.where(rng.random(n) < 0.4, rng.integers(0, k + 20, n), t)
    table = Contingency.from_labels(t, p)
    shape = (table.n_classes, table.n_clusters)
    forced, rest = _assignment._forced_cells(table.rows, table.cols,
                                          table.counts.astype(float), *shape)
    assert forced.shape[0] > 0 and rest.shape[0] < table.nnz
    for weights in (table.counts.astype(float), table.counts / table.class_sizes[table.rows]):
        reduced = max_weight_matching(table.rows, table.cols, weights, shape,
                                      dense_max_cells=0)
        full = max_weight_matching(table.rows, table.cols, weights, shape)
        check_is_matching(table, reduced)
        assert weights[reduced].sum() == pytest.approx(weights[full].sum(), rel=1e-12)


def test_forced_cells_respect_ties():
    # equal weights in a row: neither cell may be fixed by the sum rule unless it dominates
    rows, cols = np.array([0, 0, 1]), np.array([0, 1, 1])
    w = np.array([2.0, 2.0, 3.0])
    forced, rest = _assignment._forced_cells(rows, cols, w, 2, 2)
    # (1,1) = 3 >= 0 + 2 is fixed; then (0,0) is alone and fixed: optimum 5
    assert sorted(forced.tolist()) == [0, 2] and rest.shape[0] == 0
    assert w[max_weight_matching(rows, cols, w, (2, 2), dense_max_cells=0)].sum() == 5.0
