"""Exact maximum-weight matching on every table shape, by every solver path.

Generated tables of the shapes the benchmarks use (noise, near-diagonal, entity-like,
few-vs-many, one line), with the three weightings the scores use (counts; recall
n_ij / a_i; PSI's n_ij / max(a_i, b_j)), solved by the compiled phase solver, scipy's
LAPJVsp and the dense solver, and checked against an exact rational brute force and
scipy's dense ``linear_sum_assignment``.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linear_sum_assignment

import clustermetrics as cm
from clustermetrics.compute import dispatch as _kernels
from clustermetrics.matching.assignment import integer_weights, max_weight_matching

SHAPES = ["noise", "diagonal", "entity", "few_vs_many", "many_vs_few", "one_row", "one_col",
          "ties"]


def shaped_matrix(shape: str, seed: int, size: int) -> np.ndarray:
    """A small count matrix of the given shape (rows and columns may be empty; callers
    drop them)."""
    rng = np.random.default_rng(seed)
    n_r, n_c = rng.integers(1, size + 1, 2)
    if shape == "noise":
        return rng.poisson(rng.uniform(0.2, 1.5), (n_r, n_c))
    if shape == "diagonal":
        m = rng.poisson(0.3, (n_r, n_c))
        k = min(n_r, n_c)
        m[np.arange(k), rng.permutation(n_c)[:k]] += rng.integers(1, 20, k)
        return m
    if shape == "entity":
        m = np.zeros((n_r, n_c), dtype=np.int64)
        sizes = np.minimum(rng.zipf(2.0, n_r), 6)
        for i, s in enumerate(sizes):
            for _ in range(int(s)):
                j = i % n_c if rng.random() > 0.2 else rng.integers(0, n_c)
                m[i, j] += 1
        return m
    if shape == "few_vs_many":
        m = np.zeros((min(n_r, 3), n_c + 3), dtype=np.int64)
        m[rng.integers(0, m.shape[0], 4 * m.shape[1]), rng.integers(0, m.shape[1],
                                                                    4 * m.shape[1])] += 1
        return m
    if shape == "many_vs_few":
        return shaped_matrix("few_vs_many", seed, size).T
    if shape == "one_row":
        return rng.integers(0, 4, (1, n_c))
    if shape == "one_col":
        return rng.integers(0, 4, (n_r, 1))
    # "ties": every cell of a row the same count, many equal weights
    return (rng.random((n_r, n_c)) < 0.5) * rng.integers(1, 3, (n_r, 1))


def weightings(m: np.ndarray):
    """(name, Fraction matrix) for counts, recall and PSI weights of a count matrix."""
    a = m.sum(axis=1)
    b = m.sum(axis=0)
    counts = [[Fraction(int(x)) for x in row] for row in m]
    recall = [[Fraction(int(x), int(a[i])) if x else Fraction(0) for x in row]
              for i, row in enumerate(m)]
    psi = [[Fraction(int(x), int(max(a[i], b[j]))) if x else Fraction(0)
            for j, x in enumerate(row)] for i, row in enumerate(m)]
    return [("counts", counts), ("recall", recall), ("psi", psi)]


def brute_force(frac) -> Fraction:
    """Exact best total over all matchings (dynamic programme over column subsets)."""
    n_c = len(frac[0])
    best = {0: Fraction(0)}
    for row in frac:
        new = dict(best)
        for mask, value in best.items():
            for j in range(n_c):
                if row[j] and not mask >> j & 1:
                    key, total = mask | 1 << j, value + row[j]
                    if total > new.get(key, Fraction(-1)):
                        new[key] = total
        best = new
    return max(best.values())


def solve_with(mode: str, m: np.ndarray, frac, exact: bool, graded: bool = False):
    """Cells chosen by ``max_weight_matching`` forced onto its sparse path (``graded``:
    the compiled solver's auction at once, as for PSI's weights)."""
    r, c = np.nonzero(m)
    den = np.array([frac[i][j].denominator for i, j in zip(r, c, strict=True)], dtype=np.int64)
    num_exact = np.array([frac[i][j].numerator for i, j in zip(r, c, strict=True)],
                         dtype=np.int64)
    weights = num_exact / den
    old = _kernels.set_kernels(mode)
    try:
        cells = max_weight_matching(r, c, weights, m.shape, dense_max_cells=0,
                                    fraction=(num_exact, den) if exact else None,
                                    graded=graded)
    finally:
        _kernels.set_kernels(old)
    assert np.unique(r[cells]).shape[0] == cells.shape[0]  # one cell per row
    assert np.unique(c[cells]).shape[0] == cells.shape[0]  # and per column
    return sum((frac[i][j] for i, j in zip(r[cells], c[cells], strict=True)), Fraction(0))


@settings(max_examples=120, deadline=None)
@given(st.sampled_from(SHAPES), st.integers(0, 2**32 - 1), st.sampled_from(["numba", "numpy"]),
       st.booleans())
def test_every_solver_path_is_exact_on_every_shape(shape, seed, mode, graded):
    m = shaped_matrix(shape, seed, 8)
    m = m[m.sum(axis=1) > 0][:, m.sum(axis=0) > 0]
    if m.size == 0:
        return
    for name, frac in weightings(m):
        expected = brute_force(frac)
        # with exact integer weights the optimum itself is found, to the last bit
        assert solve_with(mode, m, frac, exact=True, graded=graded) == expected, \
            (shape, name, m)
        # from float weights: up to rounding, as scipy's solvers
        got = solve_with(mode, m, frac, exact=False, graded=graded)
        assert float(got) == pytest.approx(float(expected), rel=1e-12, abs=1e-15)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(SHAPES), st.integers(0, 2**32 - 1))
def test_compiled_and_scipy_paths_agree_with_dense_lsa_on_larger_tables(shape, seed):
    """Tables beyond brute force (up to 60 x 60): the compiled phases, LAPJVsp and the
    dense solver reach the same optimum as scipy's dense linear_sum_assignment."""
    m = shaped_matrix(shape, seed, 60)
    m = m[m.sum(axis=1) > 0][:, m.sum(axis=0) > 0]
    if m.size == 0:
        return
    for _, frac in weightings(m):
        dense = np.array([[float(x) for x in row] for row in frac])
        r, c = linear_sum_assignment(dense, maximize=True)
        expected = math.fsum(dense[r, c].tolist())
        for mode, graded in (("numba", False), ("numba", True), ("numpy", False)):
            got = float(solve_with(mode, m, frac, exact=True, graded=graded))
            assert got == pytest.approx(expected, rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("score", ["recovery_rate", "clustering_error", "nca", "npa", "psi",
                                   "psi_simplified", "pseudo_recovery_rate"])
def test_scores_identical_with_and_without_compiled_kernels(score, monkeypatch):
    """A noise table big enough for the sparse path (130 x 140 over 3000 items): every
    matching score gives the same value whichever solver runs, and the dense optimum."""
    rng = np.random.default_rng(7)
    t, p = rng.integers(0, 3000 // 23, 3000), rng.integers(0, 3000 // 21, 3000)
    values = {}
    for mode, dense_max in (("numba", 0), ("numpy", 0), ("numpy", 10**9)):
        _dense_solver(monkeypatch, dense_max > 0)
        old = _kernels.set_kernels(mode)
        try:
            values[(mode, dense_max)] = cm.METRICS[score].compute(
                cm.Contingency.from_labels(t, p))[0]
        finally:
            _kernels.set_kernels(old)
    reference = values[("numpy", 10**9)]
    for got in values.values():
        assert got == pytest.approx(reference, rel=1e-12, abs=1e-15)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 40), st.integers(1, 40)), min_size=1, max_size=30))
def test_integer_weights_are_exact_multiples(pairs):
    num = np.array([min(a, b) for a, b in pairs], dtype=np.int64)
    den = np.array([max(a, b) for a, b in pairs], dtype=np.int64)
    scaled = integer_weights(num, den)
    lcm = math.lcm(*den.tolist())
    if lcm >= 2**50:
        assert scaled is None
        return
    assert scaled is not None
    for x, n, d in zip(scaled.tolist(), num.tolist(), den.tolist(), strict=True):
        assert Fraction(int(x)) == Fraction(n, d) * lcm and x == int(x)


def test_integer_weights_refuse_a_huge_common_denominator():
    primes = np.array([1000003, 1000033, 1000037, 1000039], dtype=np.int64)
    assert integer_weights(np.ones(4, dtype=np.int64), primes) is None


def test_scipy_takes_over_when_the_compiled_solver_gives_up(monkeypatch):
    """The kernel returns None if float rounding ever stalled it; the same optimum then
    comes from scipy's LAPJVsp."""
    from clustermetrics.matching import assignment as _assignment

    calls = []

    def gives_up(indptr, cols, weights, n_cols):
        calls.append(n_cols)
        return None

    monkeypatch.setattr(_assignment.compiled, "matching_kernel",
                        lambda cells, graded=False: gives_up)
    m = shaped_matrix("noise", 3, 30)
    m = m[m.sum(axis=1) > 0][:, m.sum(axis=0) > 0]
    r, c = np.nonzero(m)
    w = m[r, c].astype(float)
    cells = max_weight_matching(r, c, w, m.shape, dense_max_cells=0)
    rr, cc = linear_sum_assignment(m.astype(float), maximize=True)
    assert calls and w[cells].sum() == m[rr, cc].sum()


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 40), st.integers(1, 40),
       st.sampled_from(["ties", "distinct"]))
def test_compiled_phases_alone_reach_the_optimum(seed, n_rows, n_cols, kind):
    """The phase solver itself, without its work budget (so it never hands over to
    scipy), on tables with many ties and with none."""
    from clustermetrics.matching import phases as _phase_kernels

    rng = np.random.default_rng(seed)
    present = rng.random((n_rows, n_cols)) < rng.uniform(0.05, 0.9)
    values = rng.integers(1, 4, (n_rows, n_cols)) if kind == "ties" else \
        rng.random((n_rows, n_cols)) + 0.01
    dense = np.where(present, values, 0.0).astype(float)
    r, c = np.nonzero(dense)
    if r.shape[0] == 0:
        return
    indptr = np.zeros(n_rows + 1, dtype=np.int64)
    np.cumsum(np.bincount(r, minlength=n_rows), out=indptr[1:])
    match, ok = _phase_kernels._matching_phases(indptr, c.astype(np.int64), -dense[r, c],
                                                n_rows, n_cols, 1 << 62)
    assert ok
    rows = np.flatnonzero(match < n_cols)
    cols = match[rows]
    assert np.unique(cols).shape[0] == cols.shape[0] and np.all(dense[rows, cols] > 0)
    lr, lc = linear_sum_assignment(dense, maximize=True)
    assert math.fsum(dense[rows, cols].tolist()) == pytest.approx(
        math.fsum(dense[lr, lc].tolist()), rel=1e-12)


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 60), st.integers(1, 60),
       st.sampled_from(["ties", "recall", "psi", "blocks", "chain", "distinct"]))
def test_phases_from_the_row_max_start_reach_the_optimum(seed, n_rows, n_cols, kind):
    """The phases as ``max_weight_matching`` runs them (from a maximum matching of the
    cells largest in their row, searches seeded from as many free rows as the last one
    augmented), without their budget: heavy ties and small integer weights (counts 1-3,
    recall and PSI weights of them, block-diagonal noise), exact against the dense
    solver; integer weights to the last unit."""
    from clustermetrics.matching import phases as _phase_kernels

    dense = _random_table(np.random.default_rng(seed), n_rows, n_cols, kind)
    r, c = np.nonzero(dense)
    if r.shape[0] == 0:
        return
    indptr = np.zeros(n_rows + 1, dtype=np.int64)
    np.cumsum(np.bincount(r, minlength=n_rows), out=indptr[1:])
    c = c.astype(np.int64)
    w = dense[r, c]
    start = _phase_kernels._row_max_start(indptr, c, w, n_cols)
    u, v, row_match, col_match, free, nfree = start
    assert np.all(row_match[row_match >= 0] < n_cols)  # a matching of row-largest cells
    assert np.all(dense[np.flatnonzero(row_match >= 0), row_match[row_match >= 0]] == -u[
        row_match >= 0])
    match, ok = _phase_kernels._phases(indptr, c, -w, n_rows, n_cols, 1 << 62, *start, 1)
    assert ok
    rows = np.flatnonzero(match < n_cols)
    cols = match[rows]
    assert np.unique(cols).shape[0] == cols.shape[0] and np.all(dense[rows, cols] > 0)
    lr, lc = linear_sum_assignment(dense, maximize=True)
    got, best = math.fsum(dense[rows, cols].tolist()), math.fsum(dense[lr, lc].tolist())
    if kind in ("ties", "chain"):
        assert got == best
    else:
        assert got == pytest.approx(best, rel=1e-12)


# ------------------------------------------------------------- the auction, on its own
def _random_table(rng, n_rows, n_cols, kind):
    """A dense weight matrix (0 = no cell) of one of the kinds the solvers must get right."""
    present = rng.random((n_rows, n_cols)) < rng.uniform(0.05, 0.9)
    if kind == "distinct":  # tie-free floats, like PSI weights
        values = rng.random((n_rows, n_cols)) + 0.01
    elif kind == "ties":  # few distinct integers
        values = rng.integers(1, 4, (n_rows, n_cols)).astype(float)
    elif kind == "big":  # large integers: the auction's rounded path and its finishing phases
        values = rng.integers(1, 2**40, (n_rows, n_cols)).astype(float)
    elif kind == "chain":  # row i -> columns i and i + 1, nearly equal weights
        present = np.zeros((n_rows, n_cols), dtype=bool)
        k = np.arange(n_rows)
        present[k, k % n_cols] = True
        present[k, (k + 1) % n_cols] = True
        values = rng.integers(4, 7, (n_rows, n_cols)).astype(float)
    elif kind in ("recall", "psi", "blocks"):
        # n_ij / a_i (recall) or n_ij / max(a_i, b_j) (PSI) of noise counts, mostly 1 with a
        # few 2s and 3s; "blocks": recall weights of noise inside diagonal blocks
        counts = rng.choice([1, 1, 1, 1, 1, 1, 2, 2, 3], (n_rows, n_cols)) * present
        if kind == "blocks":
            n_blocks = int(rng.integers(1, 6))
            counts *= (np.arange(n_rows)[:, None] * n_blocks // n_rows ==
                       np.arange(n_cols)[None, :] * n_blocks // n_cols)
        a = np.maximum(counts.sum(axis=1, keepdims=True), 1)
        b = np.maximum(counts.sum(axis=0, keepdims=True), 1)
        values = counts / (np.maximum(a, b) if kind == "psi" else a)
        present = counts > 0
    else:
        raise ValueError(kind)
    dense = np.where(present, values, 0.0)
    if rng.random() < 0.2 and n_rows > 1:  # an empty row
        dense[rng.integers(0, n_rows)] = 0.0
    return dense


def _auction_on(dense):
    from clustermetrics.matching import auction as _auction_kernels

    n_rows, n_cols = dense.shape
    r, c = np.nonzero(dense)
    indptr = np.zeros(n_rows + 1, dtype=np.int64)
    np.cumsum(np.bincount(r, minlength=n_rows), out=indptr[1:])
    match = _auction_kernels.auction_matching(indptr, c.astype(np.int64), dense[r, c], n_cols)
    assert match is not None
    rows = np.flatnonzero(match >= 0)
    cols = match[rows]
    assert np.unique(cols).shape[0] == cols.shape[0] and np.all(dense[rows, cols] > 0)
    return rows, cols


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 40), st.integers(1, 40),
       st.sampled_from(["distinct", "ties", "big", "chain", "recall", "psi", "blocks"]),
       st.sampled_from([float(1 << 60), 2.0**20]))
def test_auction_alone_reaches_the_optimum(seed, n_rows, n_cols, kind, auction_max):
    """The epsilon-scaling auction without the phases in front, on tables with ties, without
    any, chains, one row or column and empty rows; with its full integer range and with a
    small one (2**20), which sends integer weights through its rounded path and the phases
    that finish it. Integer weights: the optimum to the last unit (dense
    linear_sum_assignment sums integers exactly below 2**53)."""
    from clustermetrics.matching import auction as _auction_kernels

    rng = np.random.default_rng(seed)
    dense = _random_table(rng, n_rows, n_cols, kind)
    if not dense.any():
        return
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_auction_kernels, "_AUCTION_MAX", auction_max)
        rows, cols = _auction_on(dense)
    lr, lc = linear_sum_assignment(dense, maximize=True)
    got, best = math.fsum(dense[rows, cols].tolist()), math.fsum(dense[lr, lc].tolist())
    if kind in ("ties", "big", "chain"):
        assert got == best
    else:
        assert got == pytest.approx(best, rel=1e-12)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(SHAPES), st.integers(0, 2**32 - 1))
def test_auction_path_is_exact_on_every_shape_by_brute_force(shape, seed):
    """``max_weight_matching`` with the phases' budget at 0, so the auction solves every
    sparse problem: exact rational optimum (brute force) with integer weights, up to
    rounding from floats."""
    from clustermetrics.matching import kernels as _numba_kernels

    m = shaped_matrix(shape, seed, 8)
    m = m[m.sum(axis=1) > 0][:, m.sum(axis=0) > 0]
    if m.size == 0:
        return
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_numba_kernels, "_PHASE_SCANS", 0)
        for name, frac in weightings(m):
            expected = brute_force(frac)
            assert solve_with("numba", m, frac, exact=True) == expected, (shape, name, m)
            got = solve_with("numba", m, frac, exact=False)
            assert float(got) == pytest.approx(float(expected), rel=1e-12, abs=1e-15)


def _bench_shapes():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_shapes.py"
    spec = importlib.util.spec_from_file_location("bench_shapes", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("phase_scans", [4, 0])
def test_matching_scores_on_every_benchmark_shape(phase_scans, monkeypatch):
    """Every shape of benchmarks/bench_shapes.py at N = 2000 plus a chain (class i split
    between clusters i and i + 1): the matching scores from the compiled solvers (phases
    first, or the auction alone) equal those from a dense linear_sum_assignment."""
    from clustermetrics.matching import kernels as _numba_kernels

    bench = _bench_shapes()
    monkeypatch.setattr(_numba_kernels, "_PHASE_SCANS", phase_scans)
    rng = np.random.default_rng(5)
    chain = np.arange(2000) // 10
    pairs = [bench.shape_labels(s, 2000, seed=1) for s in bench.SHAPES]
    pairs.append((chain, chain + (rng.random(2000) < 0.5)))
    scores = ["recovery_rate", "clustering_error", "nca", "npa", "psi", "psi_simplified"]
    for t, p in pairs:
        _compiled_equal_dense(monkeypatch, t, p, scores)


@pytest.mark.parametrize("k", [60, 400])
@pytest.mark.parametrize("blocks", [1, 8])
def test_matching_scores_on_noise_with_about_100_items_per_class(k, blocks, monkeypatch):
    """Uniform noise (and noise inside diagonal blocks) with ~100 items per class: counts
    mostly 1, recall weights equal along a row but not between rows, PSI's graded by the
    clusters' sizes (the phases hand those to the auction). The compiled solvers' scores
    equal those of a dense linear_sum_assignment."""
    rng = np.random.default_rng(k + blocks)
    per = k // blocks
    b = rng.integers(0, blocks, 100 * k)
    t = b * per + rng.integers(0, per, 100 * k)
    p = b * per + rng.integers(0, per, 100 * k)
    scores = ["recovery_rate", "clustering_error", "nca", "npa", "psi", "psi_simplified"]
    _compiled_equal_dense(monkeypatch, t, p, scores)


def _dense_solver(monkeypatch, on: bool) -> None:
    """Every assignment solved densely (the reference: scipy's linear_sum_assignment on
    the full grid, however sparse the table), or none."""
    monkeypatch.setattr("clustermetrics.matching.assignment.DENSE_MAX_CELLS",
                        10**9 if on else 0)
    monkeypatch.setattr("clustermetrics.matching.assignment._DENSE_FILL",
                        math.inf if on else 0)


def _compiled_equal_dense(monkeypatch, t, p, scores) -> None:
    """The compiled sparse solvers' scores equal the dense reference's."""
    values = {}
    for mode, dense in (("numba", False), ("numpy", True)):
        _dense_solver(monkeypatch, dense)
        old = _kernels.set_kernels(mode)
        try:
            table = cm.Contingency.from_labels(t, p)
            values[mode] = [cm.METRICS[s].compute(table)[0] for s in scores]
        finally:
            _kernels.set_kernels(old)
    assert values["numba"] == pytest.approx(values["numpy"], rel=1e-12, abs=1e-15)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 7), st.integers(1, 7), st.integers(0, 2**32 - 1), st.integers(1, 4),
       st.sampled_from([1, 2**47 - 1]))
def test_small_grids_enumerated_reach_scipys_optimum(n_rows, n_cols, seed, levels, scale):
    """Grids whose assignments are few are solved by trying them all (no scipy import):
    the optimum of scipy's dense solver, on ties and zeros too, each side the larger, and
    integer weights near 2**49 (the exact integers the solvers receive stay below 2**50)."""
    from clustermetrics.matching import assignment as _assignment

    rng = np.random.default_rng(seed)
    dense = (rng.integers(0, levels + 1, (n_rows, n_cols)) * scale).astype(np.float64)
    if math.perm(max(n_rows, n_cols), min(n_rows, n_cols)) > _assignment._ENUMERATED_MAX:
        return
    r, c = _assignment._enumerated_matching(dense)
    assert np.unique(r).shape[0] == r.shape[0] and np.unique(c).shape[0] == c.shape[0]
    assert r.shape[0] == min(n_rows, n_cols)
    sr, sc = linear_sum_assignment(dense, maximize=True)
    assert dense[r, c].sum() == dense[sr, sc].sum()
