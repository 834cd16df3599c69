"""The SMI variance by the orthogonal expansion of the cells' joint laws
(clustermetrics.scores._smi_expansion): its pieces against exact rationals and enumeration, its
truncation bound against the full expansion, its large-mean Taylor path against the
windows, and the pass over a stack's tables against each table alone."""

import math
from contextlib import contextmanager
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from smi_reference import tables

import clustermetrics as cm
from clustermetrics import Contingency
from clustermetrics.compute import dispatch as _kernels
from clustermetrics.scores import _smi, _smi_cost, _smi_expansion, _smi_projection, _smi_shift
from clustermetrics.scores import compiled as score_kernels
from clustermetrics.table.stack import TableStack


def _pmf(n, a, b):
    """Hyp(n, a, b) as exact rationals over its support."""
    lo, hi = max(0, a + b - n), min(a, b)
    total = math.comb(n, a)
    return {k: Fraction(math.comb(b, k) * math.comb(n - b, a - k), total)
            for k in range(lo, hi + 1)}


def _polynomials(n, a, b, orders):
    """Q_0 .. Q_orders of Hyp(n, a, b) at each support point, from the module's
    recurrence (as the kernels evaluate them)."""
    diag, off = np.empty(orders + 1), np.empty(orders + 2)
    shift, anchor, frac = _smi_projection.recurrence(n, a, b, orders, diag, off)
    out = {}
    for k in _pmf(n, a, b):
        y = float(k - shift - anchor) + frac  # y - E[Y]
        values = [0.0, 1.0]
        for q in range(orders):
            values.append(((y - diag[q]) * values[-1] - off[q] * values[-2]) / off[q + 1])
        out[k] = values[1:]
    return out


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 60).flatmap(lambda n: st.tuples(
    st.just(n), st.integers(1, n - 1), st.integers(1, n - 1))))
def test_recurrence_gives_orthonormal_polynomials(nab):
    """The closed-form Hahn recurrence (with the shift where a + b > n) against the exact
    law: sum p Q_i Q_j = [i = j] for every order below the support's size."""
    n, a, b = nab
    pmf = _pmf(n, a, b)
    orders = min(len(pmf) - 1, 12)
    if orders < 1:
        return
    values = _polynomials(n, a, b, orders)
    for i in range(orders + 1):
        for j in range(i + 1):
            inner = sum(float(p) * values[k][i] * values[k][j] for k, p in pmf.items())
            assert inner == pytest.approx(float(i == j), abs=1e-9), (i, j)


def _rho(a, b, n, q, i, j, k, m):
    """R_q(i, k) D_q(j, m) of the module docstring, from the sizes."""
    def factor(sizes, u, v):
        if u == v:
            return (-1.0) ** q
        return math.sqrt(math.prod((sizes[u] - t) * (sizes[v] - t) for t in range(q))
                         / math.prod((n - sizes[u] - t) * (n - sizes[v] - t)
                                     for t in range(q)))
    return factor(a, i, k) * factor(b, j, m)


@pytest.mark.parametrize("a,b", [([3, 2, 2], [2, 3, 2]), ([4, 1, 2], [3, 3, 1]),
                                 ([2, 2, 2, 1], [4, 3]), ([5, 3], [2, 2, 2, 2])])
def test_two_cells_joint_law_is_diagonal_with_the_stated_correlations(a, b):
    """Every table with these margins enumerated, each with its exact probability: for
    every pair of cells, E[Q_p(n) Q'_q(n')] = [p = q] rho_q (the Lancaster expansion the
    variance rests on, with its sign and factors), up to the orders both laws have."""
    n = sum(a)
    law = []
    top = math.prod(math.factorial(v) for v in a) * math.prod(math.factorial(v) for v in b)
    for t in tables(a, b):
        law.append((t, Fraction(top, math.factorial(n) * math.prod(
            math.factorial(v) for row in t for v in row))))
    assert sum(p for _, p in law) == 1
    cells = [(i, j) for i in range(len(a)) for j in range(len(b))]
    top = {c: len(_pmf(n, a[c[0]], b[c[1]])) - 1 for c in cells}  # the highest order
    polys = {c: _polynomials(n, a[c[0]], b[c[1]], top[c]) for c in cells if top[c]}
    for c in polys:
        for d in polys:
            if c == d:
                continue
            for p in range(1, top[c] + 1):
                for q in range(1, top[d] + 1):
                    got = sum(float(pr) * polys[c][t[c[0]][c[1]]][p]
                              * polys[d][t[d[0]][d[1]]][q] for t, pr in law)
                    want = _rho(a, b, n, q, *c, *d) if p == q else 0.0
                    assert got == pytest.approx(want, abs=1e-9), (c, d, p, q)


def _terms(n, a, b, orders, moments, cells=4.0):
    """pair_terms of the law Hyp(n, a, b) alone (slope and anchor as for a dense table)."""
    out = [np.empty(1) for _ in range(5)]
    reached = np.empty(1, dtype=np.int64)
    alpha = np.empty((orders + 1, 1))
    k0 = np.array([(a * b + n // 2) // n])
    slope = np.array([math.log(a) + math.log(b) - math.log(n) + 1.0])
    _smi_expansion.pair_terms(n, np.array([a]), np.array([b]), k0, slope,
                              _smi_cost.expansion_cut(n, cells), orders, moments, *out, reached,
                              alpha)
    return [o[0] for o in out], alpha[1:, 0]


@settings(max_examples=25, deadline=None)
@given(st.integers(10**4, 10**7), st.floats(0.05, 0.95), st.floats(0.05, 0.95))
def test_taylor_polynomial_matches_the_window(n, x, y):
    """Large means (a b / N >= MOMENT_MEAN): the coefficients from the Taylor polynomial
    (O(degree^2)) equal those summed over the window, and its remainder bound is tiny."""
    a, b = max(1, int(x * n)), max(1, int(y * n))
    if a * b < _smi_expansion.MOMENT_MEAN * n:
        return
    (m1, s1, b1, _, e1), al1 = _terms(n, a, b, 8, True)
    (m2, s2, b2, _, e2), al2 = _terms(n, a, b, 8, False)
    assert e2 == 0.0 and 0.0 < e1 < 1e-15 * math.sqrt(s2)
    assert s1 == pytest.approx(s2, rel=1e-12)
    assert b1 == pytest.approx(b2, rel=1e-9, abs=1e-12)
    assert np.allclose(al1[1:], al2[1:], rtol=1e-9, atol=1e-12 * math.sqrt(s2))
    assert m1 == pytest.approx(m2, rel=1e-9, abs=1e-9)


@st.composite
def small_tables(draw):
    r, c = draw(st.integers(2, 4)), draw(st.integers(2, 4))
    cells = draw(st.lists(st.lists(st.integers(0, 60), min_size=c, max_size=c),
                          min_size=r, max_size=r))
    t = np.asarray(cells, dtype=np.int64)
    a, b = t.sum(axis=1), t.sum(axis=0)
    return a[a > 0], b[b > 0]


@settings(max_examples=30, deadline=None)
@given(small_tables(), st.integers(1, 5))
def test_tail_bound_covers_the_orders_left_out(sizes, orders):
    """Stopped after a few orders, the expansion's value lies within its stated bound of the
    complete expansion (every order up to the supports: exact but for rounding)."""
    a, b = sizes
    n = int(a.sum())
    if not (2 <= a.shape[0] < n and 2 <= b.shape[0] < n):
        return
    ua, ca = np.unique(a, return_counts=True)
    ub, cb = np.unique(b, return_counts=True)
    k0, slope, _ = _smi_shift.shifts(ua, ca, ub, cb, n)
    cut = _smi_cost.expansion_cut(n, float(a.shape[0] * b.shape[0]))
    pa, pb = np.repeat(ua, ub.shape[0]), np.tile(ub, ua.shape[0])
    index = np.arange(pa.shape[0]).reshape(ua.shape[0], ub.shape[0])
    full = _smi.exact_variance(a, b, n, path="numpy")[1]
    out = [np.empty(pa.shape[0]) for _ in range(5)]
    reached = np.empty(pa.shape[0], dtype=np.int64)
    alpha = np.empty((orders + 1, pa.shape[0]))
    _smi_expansion.pair_terms(n, pa, pb, k0.ravel(), slope.ravel(), cut, orders, False,
                              *out, reached, alpha)
    parts = np.empty(orders + 1)
    code, bound = _smi_expansion.table_sum(ua, ca, ub, cb, n, index, orders, *out[1:],
                                           reached, alpha, parts)
    assert code in (0, 1)
    assert abs(math.fsum(parts.tolist()) - full) <= bound + 1e-12 * full


def test_expansion_that_cannot_bound_its_orders_hands_over_to_the_nested_sums(monkeypatch):
    """Allowed too few orders, the expansion reports it cannot bound the rest, and the
    numpy sums give the value."""
    monkeypatch.setattr(_smi_expansion, "MAX_ORDER", 2)
    monkeypatch.setattr(_smi_expansion, "FIRST_ORDER", 2)
    a, b = np.array([30, 40, 30]), np.array([50, 25, 25])
    assert _smi.exact_variance(a, b, 100, path="python") == \
        _smi.exact_variance(a, b, 100, path="numpy")


@contextmanager
def compiled():
    old = _kernels.set_kernels("numba")
    try:
        yield
    finally:
        _kernels.set_kernels(old)


def _replicates(matrix, count, seed):
    table = Contingency.from_matrix(np.asarray(matrix))
    rng = np.random.default_rng(seed)
    counts = rng.multinomial(table.n_samples, table.counts / table.n_samples, size=count)
    return table, TableStack(table, counts)


@settings(max_examples=15, deadline=None)
@given(st.integers(2, 5).flatmap(lambda c: st.lists(
    st.lists(st.integers(0, 80), min_size=c, max_size=c), min_size=2, max_size=5)),
    st.integers(0, 2**32 - 1))
def test_a_stack_pass_equals_each_table_alone(matrix, seed):
    """The tables of a stack share their laws in one pass; each variance equals that
    table's alone (numpy's nested sums, an independent formulation) to rounding."""
    if np.sum(matrix) < 2:
        return
    _, stack = _replicates(matrix, 6, seed)
    rows, cols = stack.class_sizes, stack.cluster_sizes
    with compiled():
        var, done = _smi.exact_variances(rows, cols, int(stack.n_samples[0]),
                                         score_kernels.smi_variances_kernel(math.inf))
    for r in range(len(stack)):
        a, b = rows[r][rows[r] > 0], cols[r][cols[r] > 0]
        if not done[r] or a.shape[0] < 2 or b.shape[0] < 2:
            continue
        want = _smi.exact_variance(a, b, int(a.sum()), path="numpy")[1]
        assert var[r] == pytest.approx(want, rel=1e-11, abs=1e-13)


def test_smi_of_a_stack_equals_each_table_alone():
    """The stack's SMI (exact ones together, a one-class replicate undefined) equals each
    table's, and the stack's choice of method is each table's."""
    table, stack = _replicates([[30, 2, 1], [3, 25, 4], [2, 3, 30]], 30, 3)
    counts = np.vstack([stack.counts, [[100, 0, 0, 0, 0, 0, 0, 0, 0]]])
    stack = TableStack(table, counts[:, :table.nnz])
    with compiled():
        got = cm.METRICS["smi"].compute_many(stack)
    for r in range(len(stack)):
        alone = stack.table(r)
        if alone.n_classes < 2 or alone.n_clusters < 2:
            assert got[r] == 0.0
            continue
        assert got[r] == pytest.approx(cm.standardized_mutual_info_score(alone), rel=1e-11)
    n = int(stack.n_samples[0])
    costs = _smi.exact_costs(stack.class_sizes, stack.cluster_sizes, n)
    sampling = _smi.sample_costs(stack.n_classes, stack.n_clusters, n)
    for r in range(len(stack)):
        alone = stack.table(r)
        assert costs[r] == _smi.exact_cost(alone.class_sizes, alone.cluster_sizes).cost
        assert sampling[r] == _smi.sample_cost(alone.class_sizes, alone.cluster_sizes)


def test_large_means_against_mpmath():
    """One 2 x 2 table whose laws take the Taylor path: against a 40-digit sum over the
    one free cell."""
    a, b = np.array([600_000, 400_000]), np.array([700_000, 300_000])
    n = 1_000_000
    with mpmath.workdps(40):
        lo, hi = 0, 300_000
        mean = mpmath.mpf(a[1]) * b[1] / n
        sd = mpmath.sqrt(mean * (n - a[1]) * (n - b[1]) / (mpmath.mpf(n) * (n - 1)))
        start, stop = int(mean - 40 * sd), int(mean + 40 * sd)  # mass beyond: < e^-700

        def log_choose(m, k):
            return mpmath.loggamma(m + 1) - mpmath.loggamma(k + 1) - mpmath.loggamma(m - k + 1)

        log_total = log_choose(n, int(a[1]))

        def s_of(x):
            cells = [a[0] - b[1] + x, b[1] - x, b[0] - a[1] + x, a[1] - x]
            cells = [b[0] - (a[1] - x), b[1] - x, a[1] - x, x]
            return sum(c * mpmath.log(c) for c in cells if c > 1)

        m1 = m2 = mass = mpmath.mpf(0)
        for x in range(max(lo, start), min(hi, stop) + 1):
            p = mpmath.exp(log_choose(int(b[1]), x) + log_choose(n - int(b[1]), int(a[1]) - x)
                           - log_total)
            s = s_of(x)
            mass += p
            m1 += p * s
            m2 += p * s * s
        want = m2 / mass - (m1 / mass) ** 2
    assert _smi.exact_variance(a, b, n, path="python")[1] == pytest.approx(float(want),
                                                                          rel=1e-12)
