"""Maximum-cardinality matching from the Karp-Sipser start, and the exact matching scores on
relabelled chains and cycles (the shapes where a greedy start leaves long augmenting paths).

The compiled matching (``clustermetrics.matching.phases.maximum_matching``: Karp-Sipser, then
Hopcroft-Karp) is checked against scipy's ``maximum_bipartite_matching`` on generated
graphs of every sparse kind (paths, cycles, permuted chains, trees, stars, complete blocks,
random sparse, empty rows and columns, all relabelled at random); the scores against their
values on the unpermuted table and against scipy's dense ``linear_sum_assignment``.
"""

from __future__ import annotations

import math
from contextlib import contextmanager

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import sparse
from scipy.optimize import linear_sum_assignment
from scipy.sparse.csgraph import maximum_bipartite_matching

import clustermetrics as cm
from clustermetrics.compute import dispatch as _kernels
from clustermetrics.matching.assignment import max_weight_matching

# components on which Karp-Sipser alone is maximum (forests and cycles), and others
SETTLED = ["path", "cycle", "chain", "tree", "star", "empty"]
KINDS = SETTLED + ["block", "sparse", "random", "trap"]


def _component(kind: str, rng: np.random.Generator, size: int) -> tuple[list, list, int, int]:
    """Edges (rows, cols) of one component of ``kind`` on ``size``-ish vertices per side."""
    k = max(1, size)
    if kind == "path":  # r0 - c0 - r1 - c1 - ... (odd or even length)
        rows = list(range(k)) + list(range(1, k))
        cols = list(range(k)) + list(range(k - 1))
        extra = int(rng.integers(0, 2))  # one more column at the end: odd path
        if extra:
            rows.append(k - 1)
            cols.append(k)
        return rows, cols, k, k + extra
    if kind in ("cycle", "chain"):  # class c split over clusters c and c + 1 (mod k: cycle)
        nc = k if kind == "cycle" else k + 1
        rows = list(range(k)) * 2
        cols = list(range(k)) + [(c + 1) % nc for c in range(k)]
        return rows, cols, k, nc
    if kind == "tree":  # each new vertex hangs on a random earlier one of the other side
        rows, cols, nr, nc = [0], [0], 1, 1
        for _ in range(2 * k):
            if rng.random() < 0.5:
                rows.append(nr)
                cols.append(int(rng.integers(0, nc)))
                nr += 1
            else:
                rows.append(int(rng.integers(0, nr)))
                cols.append(nc)
                nc += 1
        return rows, cols, nr, nc
    if kind == "star":  # one row to many columns, or many rows to one column
        if rng.random() < 0.5:
            return [0] * k, list(range(k)), 1, k
        return list(range(k)), [0] * k, k, 1
    if kind == "block":  # complete bipartite a x b
        a, b = (int(x) for x in rng.integers(1, k + 1, 2))
        r, c = np.meshgrid(np.arange(a), np.arange(b), indexing="ij")
        return r.ravel().tolist(), c.ravel().tolist(), a, b
    if kind in ("sparse", "random"):  # random, up to 2 (sparse) or 3-6 cells per row
        a, b = (int(x) for x in rng.integers(1, 2 * k + 1, 2))
        if kind == "random":  # square-ish: its near-perfect matchings can fool the start
            b = max(1, a + int(rng.integers(-2, 3)))
        m = int(rng.integers(0, 2 * a + 1)) if kind == "sparse" else \
            int(rng.integers(3 * a, 6 * a + 1))
        return rng.integers(0, a, m).tolist(), rng.integers(0, b, m).tolist(), a, b
    if kind == "trap":
        # rows A (s) complete to columns S (s), rows B (t) complete to columns T (t), and
        # column S_q also on row B_q: every degree >= 2, and a row of B, if scanned first,
        # takes its S column (degree s + 1 < t), which no maximum matching does
        s_ = int(rng.integers(2, 4))
        t_ = s_ + int(rng.integers(2, 4))
        rows = [a for a in range(s_) for _ in range(s_)] + \
            [s_ + b for b in range(t_) for _ in range(t_)] + [s_ + q for q in range(s_)]
        cols = [c for _ in range(s_) for c in range(s_)] + \
            [s_ + c for _ in range(t_) for c in range(t_)] + list(range(s_))
        return rows, cols, s_ + t_, s_ + t_
    # "empty": vertices without cells
    return [], [], int(rng.integers(0, 3)), int(rng.integers(0, 3))


def _graph(seed: int, kinds: list[str], size: int) -> sparse.csr_matrix:
    """The disjoint union of one component per kind, rows and columns permuted at random."""
    rng = np.random.default_rng(seed)
    rows, cols, nr, nc = [], [], 0, 0
    for kind in kinds:
        r, c, a, b = _component(kind, rng, int(rng.integers(1, size + 1)))
        rows += [x + nr for x in r]
        cols += [x + nc for x in c]
        nr, nc = nr + a, nc + b
    pr, pc = rng.permutation(max(nr, 1)), rng.permutation(max(nc, 1))
    pattern = sparse.csr_matrix((np.ones(len(rows), np.int8),
                                 (pr[np.array(rows, dtype=np.int64)],
                                  pc[np.array(cols, dtype=np.int64)])),
                                shape=(max(nr, 1), max(nc, 1)))
    pattern.sum_duplicates()
    pattern.data[:] = 1
    return pattern


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32 - 1), st.lists(st.sampled_from(KINDS), min_size=1, max_size=5),
       st.integers(1, 40))
def test_compiled_maximum_matching_is_maximum(seed, kinds, size):
    from clustermetrics.matching import karp_sipser as _matching_start
    from clustermetrics.matching import phases as _phase_kernels

    pattern = _graph(seed, kinds, size)
    nr, nc = pattern.shape
    indptr = pattern.indptr.astype(np.int64)
    idx = pattern.indices.astype(np.int64)
    dense = pattern.toarray() > 0
    expected = int((maximum_bipartite_matching(pattern, perm_type="column") >= 0).sum())

    # Karp-Sipser alone: a valid maximal matching (no cell with both ends free)
    cptr, crow, _ = _phase_kernels._column_lists(indptr, idx, nr, nc)
    rm, cm_ = _matching_start.karp_sipser(indptr, idx, nr, nc, cptr, crow)
    _check_matching(dense, rm, cm_)
    assert not np.any(dense[rm < 0][:, cm_ < 0])
    assert int((rm >= 0).sum()) <= expected
    if set(kinds) <= set(SETTLED):  # its degree-one rule settles forests, one edge a cycle
        assert int((rm >= 0).sum()) == expected

    # finished by Hopcroft-Karp: maximum, with its free rows listed
    row_match, col_match, free = _phase_kernels.maximum_matching(indptr, idx, nr, nc)
    _check_matching(dense, row_match, col_match)
    assert int((row_match >= 0).sum()) == expected
    assert free.tolist() == np.flatnonzero(row_match < 0).tolist()
    assert int((_phase_kernels.max_cardinality(indptr, idx, nc) >= 0).sum()) == expected


def _check_matching(dense, row_match, col_match):
    rows = np.flatnonzero(row_match >= 0)
    assert np.all(dense[rows, row_match[rows]])
    assert np.all(col_match[row_match[rows]] == rows)
    assert int((col_match >= 0).sum()) == rows.shape[0]


# ------------------------------------------------- the scores on relabelled chains and cycles
EXACT = ["recovery_rate", "clustering_error", "nca", "psi", "pseudo_recovery_rate"]


def _chain_labels(k: int, cycle: bool, seed: int, permute: bool, even: bool = False):
    """Class c (of k) split between clusters c and c + 1 (mod k for a cycle), 1-3 items on
    each side (one when ``even``: every cell ties, none is fixed before the solver); ids
    permuted at random when ``permute``."""
    rng = np.random.default_rng(seed)
    left, right = rng.integers(1, 4, k), rng.integers(1, 4, k)
    if even:
        left[:], right[:] = 1, 1
    classes = np.arange(k)
    nc = k if cycle else k + 1
    t = np.concatenate([np.repeat(classes, left), np.repeat(classes, right)])
    p = np.concatenate([np.repeat(classes, left), np.repeat((classes + 1) % nc, right)])
    if permute:
        t, p = rng.permutation(k)[t], rng.permutation(nc)[p]
    return t, p


@contextmanager
def _kernels_mode(mode: str):
    old = _kernels.set_kernels(mode)
    try:
        yield
    finally:
        _kernels.set_kernels(old)


@pytest.mark.parametrize("kernels", ["numba", "numpy"])
@settings(max_examples=4, deadline=None)
@given(st.integers(2001, 2600), st.booleans(), st.booleans(), st.integers(0, 2**32 - 1))
def test_exact_scores_do_not_depend_on_the_ids_of_a_chain(kernels, k, cycle, even, seed):
    """Beyond 2000 classes (a dense 2000 x 2000 matrix) the sparse solvers run."""
    t, p = _chain_labels(k, cycle, seed, permute=False, even=even)
    tp, pp = _chain_labels(k, cycle, seed, permute=True, even=even)
    with _kernels_mode(kernels):
        for key in EXACT:
            assert cm.METRICS[key].func(tp, pp) == cm.METRICS[key].func(t, p), key


def test_the_chain_tables_reach_the_compiled_start(monkeypatch):
    """The tables above go through the compiled start (and are no test of it otherwise):
    PSI's graded weights too, on rows of two cells each (the auction takes graded rows of
    several cells at once)."""
    from clustermetrics.matching import phases as _phase_kernels

    calls = []
    inner = _phase_kernels.maximum_matching
    monkeypatch.setattr(_phase_kernels, "maximum_matching",
                        lambda *a: calls.append(a[2]) or inner(*a))
    with _kernels_mode("numba"):
        for key in EXACT:
            calls.clear()
            cm.METRICS[key].func(*_chain_labels(2001, True, 0, permute=True, even=True))
            assert calls, key


@pytest.mark.parametrize("kernels", ["numba", "numpy"])
@settings(max_examples=25, deadline=None)
@given(st.integers(2, 80), st.booleans(), st.booleans(), st.integers(0, 2**32 - 1))
def test_the_sparse_matching_of_a_relabelled_chain_is_optimal(kernels, k, cycle, even, seed):
    """The sparse solvers (forced, as on large tables) against scipy's dense solver, on the
    counts and the recall weights n_ij / a_i of a relabelled chain or cycle; the pseudo
    recovery rate against a maximum matching of the non-zero cells."""
    t, p = _chain_labels(k, cycle, seed, permute=True, even=even)
    table = cm.Contingency.from_labels(t, p)
    counts = np.zeros((table.n_classes, table.n_clusters))
    counts[table.rows, table.cols] = table.counts
    recall = counts / counts.sum(axis=1, keepdims=True)
    with _kernels_mode(kernels):
        for dense in (counts, recall):
            w = dense[table.rows, table.cols]
            cells = max_weight_matching(table.rows, table.cols, w, dense.shape,
                                        dense_max_cells=0)
            assert np.unique(table.rows[cells]).shape == cells.shape
            assert np.unique(table.cols[cells]).shape == cells.shape
            r, c = linear_sum_assignment(dense, maximize=True)
            assert math.fsum(w[cells].tolist()) == pytest.approx(
                math.fsum(dense[r, c].tolist()), rel=1e-12)
        r, c = linear_sum_assignment(counts > 0, maximize=True)
        assert cm.pseudo_recovery_rate_score(t, p) == \
            int((counts[r, c] > 0).sum()) / table.n_classes
