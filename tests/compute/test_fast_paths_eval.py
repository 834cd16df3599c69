"""Exactness of the fast paths behind ``evaluate``: each against its reference path.

The EMI walk (numpy and numba) against exact rational sums, the accurate sum against
``math.fsum``, the greedy recovery rate's mutual-first reduction against the plain sorted
scan, the dense forced-cell round against the sparse one and against the assignment solver,
and the pair count without a presence pass against ``np.add.at``.
"""

import math

import numpy as np
import pytest
from emi_reference import exact_emi
from hypothesis import given, settings
from hypothesis import strategies as st

import clustermetrics as cm
from clustermetrics.compute import dispatch as _kernels
from clustermetrics.matching import assignment as _assignment
from clustermetrics.matching import compiled as matching_kernels
from clustermetrics.matching import greedy as _greedy
from clustermetrics.scores import compiled as score_kernels
from clustermetrics.scores._cells import accurate_sum
from clustermetrics.scores._emi import expected_mutual_information
from clustermetrics.table.contingency import Contingency


@pytest.mark.parametrize("a, b", [
    ([600, 400], [500, 300, 200]),  # large means a b / N: the log1p evaluation
    ([990, 10], [700, 300]),  # skewed, both ways of evaluating f
    ([250] * 4, [100] * 10),
])
def test_emi_large_means_against_exact_sum(a, b):
    n = sum(a)
    expected = exact_emi(a, b, n)
    got = expected_mutual_information(np.array(a), np.array(b), n)
    assert got == pytest.approx(expected, rel=1e-13, abs=1e-17)


def test_emi_two_clusters_of_millions_keeps_relative_accuracy():
    # a b / N = 2.5e6: log k - log(a b / N) would cancel ~10 digits; the log1p form does not
    a = b = np.array([5_000_000, 5_000_000])
    n = 10_000_000
    emi = expected_mutual_information(a, b, n)
    # E[MI] of a 2 x 2 table with halves: (1/2N)(1 + 1/(N-1)) + O(N^-2) nats
    assert emi == pytest.approx(1 / (2 * n), rel=1e-6)
    assert emi == pytest.approx(5.0000007500004207584e-08, rel=1e-10)  # mpmath, 40 digits


def _emi_with(mode, a, b, n, tol=1e-15):
    old = _kernels.set_kernels(mode)
    try:
        # "numba" falls back to numpy when numba is missing: make sure it is really compiled
        assert (score_kernels.emi_kernel(0) is not None) == (mode == "numba")
        return expected_mutual_information(a, b, n, tol=tol)
    finally:
        _kernels.set_kernels(old)


@pytest.mark.parametrize("mode", ["numpy", "numba"])
@pytest.mark.parametrize("seed", range(4))
def test_emi_kernels_agree_with_full_sum(mode, seed):
    # numba is a test dependency: its kernel is checked, never skipped
    rng = np.random.default_rng(seed)
    n, k = 3000, [3, 40, 200, 7][seed]
    a = np.bincount(rng.integers(0, k, n))
    b = np.bincount(rng.integers(0, k, n) ** 2 % k)
    a, b = a[a > 0], b[b > 0]
    reference = _emi_with("numpy", a, b, n, tol=0)  # every term of every window
    assert _emi_with(mode, a, b, n) == pytest.approx(reference, abs=1e-14, rel=1e-12)
    if mode == "numba":
        assert _emi_with("numba", a, b, n, tol=0) == pytest.approx(reference, abs=1e-15,
                                                                   rel=1e-13)


def test_numba_and_numpy_ami_agree_on_a_large_table():
    rng = np.random.default_rng(7)
    t = rng.integers(0, 300, 200_000)
    p = np.where(rng.random(t.shape[0]) < 0.3, rng.integers(0, 300, t.shape[0]), t)
    values = {}
    for mode in ("numpy", "numba"):
        old = _kernels.set_kernels(mode)
        try:
            assert (score_kernels.emi_kernel(0) is not None) == (mode == "numba")
            values[mode] = cm.expected_mutual_info_score(Contingency.from_labels(t, p))
        finally:
            _kernels.set_kernels(old)
    assert values["numba"] == pytest.approx(values["numpy"], rel=1e-12)


def test_kernel_modes():
    with pytest.raises(ValueError, match="auto, numba, numpy"):
        _kernels.set_kernels("fast")
    old = _kernels.set_kernels("numpy")
    try:
        assert _kernels.kernels_mode() == "numpy"
        assert score_kernels.emi_kernel(1e12) is None
    finally:
        _kernels.set_kernels(old)


@pytest.mark.parametrize("kind", ["uniform", "scaled", "cancel", "tiny", "huge", "ints"])
def test_accurate_sum_matches_fsum(kind):
    rng = np.random.default_rng(3)
    n = 50_000
    x = {
        "uniform": rng.random(n),
        "scaled": rng.standard_normal(n) * 10.0 ** rng.uniform(-12, 12, n),
        "cancel": np.concatenate([rng.standard_normal(n), -rng.standard_normal(n) * 1e-9]),
        "tiny": rng.random(n) * 1e-305,
        "huge": rng.random(n) * 1e300,
        "ints": rng.integers(0, 2**40, n).astype(np.float64),
    }[kind]
    expected = math.fsum(x.tolist())
    assert abs(accurate_sum(x) - expected) <= math.ulp(expected)


def _scan_reference(table, w):
    order = np.lexsort((table.rows, table.cols, -w))
    return np.sort(_greedy._scan(table, _greedy._resolve_float_ties(table, w, order)))


@st.composite
def tables(draw, max_side=12, max_value=6):
    m = draw(st.integers(1, max_side))
    n = draw(st.integers(1, max_side))
    cells = draw(st.lists(st.integers(0, max_value), min_size=m * n, max_size=m * n))
    matrix = np.array(cells, dtype=np.int64).reshape(m, n)
    if draw(st.booleans()):  # a strong diagonal, as for a clustering close to its truth
        k = min(m, n)
        matrix[:k, :k] += np.diag(draw(st.lists(st.integers(0, 40), min_size=k, max_size=k)))
    matrix[0, 0] += 1
    return Contingency.from_matrix(matrix)


@settings(max_examples=300, deadline=None)
@given(tables())
def test_greedy_reduction_equals_sorted_scan(table):
    w = table.counts / table.class_sizes[table.rows]
    expected = _scan_reference(table, w)
    assert np.array_equal(_greedy.greedy_cells(table, w), expected)
    lead = _assignment.leaders(table.rows, table.cols, w, table.n_classes, table.n_clusters)
    assert np.array_equal(_greedy.greedy_cells(table, w, lead), expected)


@settings(max_examples=300, deadline=None)
@given(tables())
def test_dense_leaders_equal_sparse_round_and_keep_the_optimum(table):
    shape = (table.n_classes, table.n_clusters)
    for w in (table.counts.astype(float), table.counts / table.class_sizes[table.rows]):
        lead = _assignment.leaders(table.rows, table.cols, w, *shape)
        lead_r, second_r = _assignment._top_two(table.rows, w, shape[0])
        lead_c, second_c = _assignment._top_two(table.cols, w, shape[1])
        cand = np.intersect1d(lead_r, lead_c)
        both = second_r[table.rows[cand]] + second_c[table.cols[cand]]
        sparse = cand[w[cand] >= both * (1 + 1e-12)]
        dense = lead.cells[lead.weight >= (lead.row_second + lead.col_second) * (1 + 1e-12)]
        assert np.array_equal(np.sort(dense), sparse)
        optimum = w[_assignment._solve(table.rows, table.cols, w, *shape)].sum()
        for kwargs in ({"first_round": lead}, {"dense_max_cells": 0}):
            cells = _assignment.max_weight_matching(table.rows, table.cols, w, shape, **kwargs)
            assert len(set(table.rows[cells])) == len(cells) == len(set(table.cols[cells]))
            assert w[cells].sum() == pytest.approx(optimum, rel=1e-12)


def test_forced_path_on_small_tables_matches_solver(monkeypatch):
    monkeypatch.setattr(_assignment, "_FORCE_MIN_CELLS", 0)
    rng = np.random.default_rng(11)
    for _ in range(50):
        matrix = rng.integers(0, 5, (8, 9)) * (rng.random((8, 9)) < 0.5)
        matrix[:8, :8] += np.diag(rng.integers(0, 12, 8))
        matrix[0, 0] += 1
        table = Contingency.from_matrix(matrix)
        w = table.counts / table.class_sizes[table.rows]
        shape = (table.n_classes, table.n_clusters)
        cells = _assignment.max_weight_matching(table.rows, table.cols, w, shape)
        ref = _assignment._solve(table.rows, table.cols, w, *shape)
        assert w[cells].sum() == pytest.approx(w[ref].sum(), rel=1e-12)


def test_pseudo_recovery_shortcut_equals_bipartite_matching():
    rng = np.random.default_rng(5)
    for side in (30, 300):
        t = rng.integers(0, side, 20 * side)
        p = np.where(rng.random(t.shape[0]) < 0.5, rng.integers(0, side + 7, t.shape[0]), t)
        table = Contingency.from_labels(t, p)
        cm.recovery_rate_score(table)  # caches a saturating matching: the shortcut applies
        fresh = Contingency.from_labels(t, p)
        assert cm.pseudo_recovery_rate_score(table) == cm.pseudo_recovery_rate_score(fresh)


@pytest.mark.parametrize("labels", [
    lambda rng, n: rng.integers(-5, 40, n) * 3,  # negative values, gaps between them
    lambda rng, n: rng.integers(0, 2, n).astype(bool),
    lambda rng, n: (2**64 - 1 - rng.integers(0, 30, n).astype(np.uint64)),
    lambda rng, n: rng.integers(0, 3000, n).astype(np.int32),
])
def test_counting_without_presence_pass_equals_add_at(labels):
    rng = np.random.default_rng(9)
    for n in (1, 7, 5000):
        t, p = labels(rng, n), labels(rng, n)
        table = Contingency.from_labels(t, p)
        ut, ti = np.unique(t, return_inverse=True)
        up, pi = np.unique(p, return_inverse=True)
        ref = np.zeros((ut.shape[0], up.shape[0]), dtype=np.int64)
        np.add.at(ref, (ti, pi), 1)
        assert np.array_equal(table.to_dense(), ref)
        assert table.class_labels.tolist() == ut.tolist()
        assert table.cluster_labels.tolist() == up.tolist()
        assert table == Contingency.from_counts(t, p, np.ones(n, dtype=np.int64))


def test_evaluate_twice_and_one_by_one_agree():
    # shared per-cell arrays are cached on the table: no score may alter them
    rng = np.random.default_rng(2)
    t = rng.integers(0, 60, 30_000)
    p = np.where(rng.random(t.shape[0]) < 0.3, rng.integers(0, 60, t.shape[0]), t)
    table = Contingency.from_labels(t, p)
    first = dict(cm.evaluate(table))
    second = dict(cm.evaluate(table))
    single = {k: cm.evaluate(Contingency.from_labels(t, p), metrics=[k])[k] for k in first}
    assert first == second
    for key, value in first.items():
        assert single[key] == pytest.approx(value, rel=1e-14, abs=1e-15), key


def test_all_true_labels_keep_their_value():
    # regression: factorize once labelled an all-True array False (offset from min lost)
    table = Contingency.from_counts([True, True], [True, False], [2, 1])
    assert table.class_labels.tolist() == [True]
    assert table.cluster_labels.tolist() == [False, True]
    assert Contingency.from_labels([True] * 3, [True, False, True]).class_labels.tolist() == [True]


@pytest.mark.parametrize("overwrite", [False, True])
def test_grouped_cells_in_any_order_equal_from_counts(overwrite):
    rng = np.random.default_rng(4)
    for case in range(60):
        n = int(rng.integers(1, 400))
        t = rng.integers(-3, int(rng.integers(1, 40)), n)
        p = rng.integers(0, 25, n) * 7
        counts = rng.integers(1, 60, n)
        if case % 4 == 0:
            counts[:] = 2**45  # key + count no longer fit in 63 bits: the lexsort path
        expected = Contingency.from_counts(t, p, counts)
        order = rng.permutation(n)
        args = [t[order].copy(), p[order].copy(), counts[order].copy()]
        kept = [a.copy() for a in args]
        table = Contingency.from_group_counts(*args, overwrite=overwrite)
        assert table == expected  # repeated (t, p) pairs are summed as well
        assert np.array_equal(table.class_sizes, expected.class_sizes)
        assert np.array_equal(table.cluster_sizes, expected.cluster_sizes)
        if not overwrite:
            assert all(np.array_equal(a, b) for a, b in zip(args, kept, strict=True))


def test_bad_kernels_environment_value_is_an_error(monkeypatch):
    monkeypatch.setattr(_kernels, "_mode", "fast")
    with pytest.raises(ValueError, match="CLUSTERMETRICS_KERNELS must be one of auto, numba, "
                                         "numpy; got 'fast'"):
        cm.adjusted_mutual_info_score([0, 0, 1, 1], [0, 1, 1, 1])


def test_repeated_work_counts_towards_loading_the_kernels(monkeypatch):
    """In "auto" mode, before any kernel is ready and with their cache warm: a small
    matching alone stays in scipy, the same matching repeated by a loop (a bootstrap's
    replicates) loads the kernel, and the count is restored on leaving the loop (nested
    loops multiply)."""
    monkeypatch.setattr(_kernels, "_mode", "auto")
    monkeypatch.setattr(_kernels, "_ready", set())
    monkeypatch.setattr(_kernels, "_spent", {})  # no numpy work of earlier tests counted
    monkeypatch.setattr(_kernels, "_cached", lambda module, name: True)
    assert matching_kernels.matching_kernel(100) is None and _kernels.repeats() == 1
    with _kernels.repeated(10):
        with _kernels.repeated(20):
            assert _kernels.repeats() == 200
            assert matching_kernels.matching_kernel(100) is None  # 2e4 cells in all: below the bar
        with _kernels.repeated(1000):
            assert matching_kernels.matching_kernel(100) is not None  # 1e6 cells in all
    assert _kernels.repeats() == 1
    monkeypatch.setattr(_kernels, "_mode", "numpy")
    with _kernels.repeated(10**9):
        assert matching_kernels.matching_kernel(100) is None
