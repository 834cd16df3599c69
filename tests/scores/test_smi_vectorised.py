"""The SMI variance's expansion vectorised in numpy (clustermetrics.scores._smi_vectorised)
against the scalar expansion run as plain Python (the same algorithm, loop by loop) and
against Romano et al.'s nested sums (an independent formulation), over the table shapes
that stress it: tiny tables, one class of more than N / 2, mostly singletons, 2 x 2 up to
15 x 15, N from 2 to 5000; one table and stacks. And the dispatch: where the compiled
kernel is not ready, the numpy path runs and numba stays unimported."""

import json
import math
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import mpmath
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import clustermetrics as cm
from clustermetrics import Contingency
from clustermetrics.compute import dispatch as _kernels
from clustermetrics.scores import (
    _smi,
    _smi_cost,
    _smi_expansion,
    _smi_law_terms,
    _smi_shift,
    _smi_vectorised,
)
from clustermetrics.scores._line_sizes import tables_of
from clustermetrics.table.stack import TableStack

SRC = Path(cm.__file__).resolve().parents[1]


@st.composite
def margins(draw, n: int) -> np.ndarray:
    """Line sizes summing to n: a random partition, one line of more than n / 2, or
    mostly singletons; at most 15 lines."""
    style = draw(st.sampled_from(["random", "big", "singletons"]))
    rest, sizes = n, []
    if style == "big" and n >= 3:
        sizes.append(draw(st.integers(n // 2 + 1, n - 1)))
    elif style == "singletons" and n >= 3:
        ones = draw(st.integers(1, min(n - 1, 12)))
        sizes += [1] * ones
    rest -= sum(sizes)
    room = 15 - len(sizes)
    cuts = draw(st.lists(st.integers(1, max(rest - 1, 1)), max_size=min(room - 1, rest - 1),
                         unique=True)) if rest > 1 and room > 1 else []
    sizes += np.diff([0, *sorted(cuts), rest]).tolist()
    return np.array([s for s in sizes if s > 0], dtype=np.int64)


@st.composite
def table_margins(draw, low: int = 2, high: int = 5000):
    n = draw(st.one_of(st.integers(low, min(high, 60)), st.integers(low, min(high, 1000)),
                       st.integers(low, high)))
    a, b = draw(margins(n)), draw(margins(n))
    assume(a.shape[0] >= 2 and b.shape[0] >= 2)
    return a, b, n


def _kernel_args(a, b, n):
    ua, ca = _smi_cost.distinct_sizes(a)
    ub, cb = _smi_cost.distinct_sizes(b)
    k0, slope, _ = _smi_shift.shifts(ua, ca, ub, cb, n)
    cut = _smi_cost.expansion_cut(n, float(ca.sum()) * float(cb.sum()))
    return ua, ca, ub, cb, n, k0, slope, cut


@settings(max_examples=60, deadline=None)
@given(table_margins(high=1200))
def test_one_table_equals_the_scalar_expansion(sizes):
    """Every output of the one-table expansion (the means of each pair's law, the parts of
    Var[S], whether the orders could be bounded) equals the scalar loops' as plain
    Python, but for the order of summation."""
    a, b, n = sizes
    args = _kernel_args(a, b, n)
    m1, p1, b1 = _smi_expansion.expansion_moments(*args)
    m2, p2, b2 = _smi_vectorised.vectorised_moments(*args)
    assert math.isfinite(b1) == math.isfinite(b2)
    assert p1.shape == p2.shape
    v1, v2 = math.fsum(p1.tolist()), math.fsum(p2.tolist())
    scale = math.fsum(np.abs(p1).tolist())
    # each path's rounding reaches ~6e-13 of the variance where it is tiny against the
    # terms it is formed from (test_a_one_item_row_against_its_enumeration)
    assert v2 == pytest.approx(v1, rel=4e-12, abs=1e-13 * scale + 1e-300)
    assert np.allclose(m2, m1, rtol=1e-12, atol=1e-12)
    if math.isfinite(b1):
        assert b2 <= 2.0 ** -59 * max(v1, 0.0) or b2 == pytest.approx(b1, rel=1e-6,
                                                                      abs=1e-30 * scale)


@settings(max_examples=40, deadline=None)
@given(table_margins())
def test_one_table_equals_the_nested_sums(sizes):
    """exact_variance forced on the numpy expansion equals Romano et al.'s nested sums
    (E[S] and Var[S])."""
    a, b, n = sizes
    e0, v0 = _smi.exact_variance(a, b, n, path="numpy")
    e1, v1 = _smi.exact_variance(a, b, n, path="vectorised")
    assert e1 == pytest.approx(e0, rel=1e-12, abs=1e-12)
    assert v1 == pytest.approx(v0, rel=1e-11, abs=1e-12)


def test_a_one_item_row_against_its_enumeration():
    """Sizes (1, 1159) x (581, 579): the one item's column decides the table, so Var[S] =
    p (1 - p) (S_1 - S_2)^2 exactly, 3e-6 (to 40 digits: mpmath), while S is ~7400."""
    a, b, n = np.array([1, 1159]), np.array([581, 579]), 1160
    with mpmath.workdps(40):
        p = mpmath.mpf(581) / 1160
        s1 = 580 * mpmath.log(580) + 579 * mpmath.log(579)
        s2 = 581 * mpmath.log(581) + 578 * mpmath.log(578)
        want = float(p * (1 - p) * (s1 - s2) ** 2)
    for path in ("vectorised", "python", "numpy"):
        assert _smi.exact_variance(a, b, n, path=path)[1] == pytest.approx(want, rel=1e-12)


def _replicates(matrix, count, seed):
    table = Contingency.from_matrix(np.asarray(matrix))
    rng = np.random.default_rng(seed)
    counts = rng.multinomial(table.n_samples, table.counts / table.n_samples, size=count)
    return TableStack(table, counts)


@st.composite
def small_matrices(draw):
    rows, cols = draw(st.integers(2, 6)), draw(st.integers(2, 6))
    top = draw(st.sampled_from([3, 30, 100]))
    cells = draw(st.lists(st.lists(st.integers(0, top), min_size=cols, max_size=cols),
                          min_size=rows, max_size=rows))
    assume(np.sum(cells) >= 2)
    return cells


@settings(max_examples=20, deadline=None)
@given(small_matrices(), st.integers(0, 2**32 - 1))
def test_a_stack_equals_the_scalar_pass_and_each_table_alone(matrix, seed):
    """The stack's pass (laws shared between tables, padded table sums, orders doubled for
    the tables that need them; with and without the memo, which a second stack of the same
    sample reads) equals the scalar pass as plain Python, and each table's variance its
    nested sums."""
    stack = _replicates(matrix, 6, seed)
    rows, cols, n = stack.class_sizes, stack.cluster_sizes, int(stack.n_samples[0])
    want, done = _smi.exact_variances(rows, cols, n, _smi_expansion.expansion_variances)
    memo: dict = {}
    for kernel in (_smi_vectorised.vectorised_variances,
                   lambda *args: _smi_vectorised.vectorised_variances(*args, memo=memo),
                   lambda *args: _smi_vectorised.vectorised_variances(*args, memo=memo)):
        got, got_done = _smi.exact_variances(rows, cols, n, kernel)
        assert np.array_equal(got_done, done)
        assert np.allclose(got[done], want[done], rtol=1e-12, atol=1e-13)
    for r in np.flatnonzero(done).tolist():
        a, b = rows[r][rows[r] > 0], cols[r][cols[r] > 0]
        if a.shape[0] >= 2 and b.shape[0] >= 2:
            nested = _smi.exact_variance(a, b, n, path="numpy")[1]
            assert got[r] == pytest.approx(nested, rel=1e-11, abs=1e-13)


@pytest.mark.parametrize("matrix,bounded", [
    ([[300000, 20000, 50], [15000, 250000, 30], [20, 40, 400]], True),
    ([[3000, 200, 5], [150, 2500, 3], [2, 4, 40]], False)])
def test_a_stack_of_replicates_with_laws_of_large_means(matrix, bounded):
    """Replicates of a table whose laws include large means (the Taylor polynomial, run by
    the scalar code) and small ones, in one stack: the same as the scalar pass, down to
    the tables it declines (where the Taylor remainder is too large for the variance)."""
    stack = _replicates(matrix, 5, 7)
    rows, cols, n = stack.class_sizes, stack.cluster_sizes, int(stack.n_samples[0])
    want, done = _smi.exact_variances(rows, cols, n, _smi_expansion.expansion_variances)
    got, got_done = _smi.exact_variances(rows, cols, n, _smi_vectorised.vectorised_variances)
    assert np.array_equal(got_done, done) and done.all() == bounded
    assert np.allclose(got[done], want[done], rtol=1e-12)


def test_laws_whose_recurrence_stops_early_are_orthonormalised_explicitly(monkeypatch):
    """Small laws whose whole support is the window and whose mass falls off steeply stop
    the recurrence early; their orders then come from explicit orthonormalisation, and
    every law's terms equal the scalar code's."""
    calls = []
    explicit = _smi_law_terms._explicit_orders
    monkeypatch.setattr(_smi_law_terms, "_explicit_orders",
                        lambda win, orders: calls.append(win.root.shape[0])
                        or explicit(win, orders))
    n, orders = 1000, 16
    pa = np.array([12, 15, 20, 25, 30, 40, 33, 35])
    pb = np.array([30, 33, 35, 40, 25, 30, 33, 35])
    k0 = _smi_shift.anchor(pa, pb, n)
    slope = _smi_shift.tangent_slope(pa, pb, n, False)
    cut = _smi_cost.expansion_cut(n, 900.0)
    want = [np.empty(pa.shape[0]) for _ in range(5)]
    reached = np.empty(pa.shape[0], dtype=np.int64)
    alpha = np.zeros((orders + 1, pa.shape[0]))
    _smi_expansion.pair_terms(n, pa, pb, k0, slope, cut, orders, True, *want, reached, alpha)
    got = _smi_law_terms.law_terms(n, pa, pb, k0, slope, cut, orders, True)
    assert sum(calls) > 0
    assert np.array_equal(got.reached, reached)
    for mine, theirs in zip(got[:5], want, strict=True):
        assert np.allclose(mine, theirs, rtol=1e-12, atol=1e-14)
    assert np.allclose(got.alpha[1:], alpha[1:], rtol=1e-10, atol=1e-13)


@settings(max_examples=25, deadline=None)
@given(st.integers(10**4, 10**7), st.lists(st.tuples(st.floats(0.02, 0.98),
                                                     st.floats(0.02, 0.98)),
                                           min_size=1, max_size=12))
def test_laws_of_large_means_equal_the_scalar_taylor_polynomials(n, shares):
    """Laws of large means (a b / N >= MOMENT_MEAN) from their Taylor polynomials, all at
    once (each its own degree): the scalar code's terms (means, variances, the order-1
    slope, the coefficients, the remainders' bounds) and orders, to rounding; the tail
    left out (resid, a bound's input) to 1e-12 of the law's variance."""
    pa = np.array([max(1, int(x * n)) for x, _ in shares])
    pb = np.array([max(1, int(y * n)) for _, y in shares])
    k0 = _smi_shift.anchor(pa, pb, n)
    slope = _smi_shift.tangent_slope(pa, pb, n, True)
    cut, orders = _smi_cost.expansion_cut(n, 100.0), 16
    want = [np.empty(pa.shape[0]) for _ in range(5)]
    reached = np.empty(pa.shape[0], dtype=np.int64)
    alpha = np.zeros((orders + 1, pa.shape[0]))
    _smi_expansion.pair_terms(n, pa, pb, k0, slope, cut, orders, True, *want, reached, alpha)
    got = _smi_law_terms.law_terms(n, pa, pb, k0, slope, cut, orders, True)
    assert np.array_equal(got.reached, reached)
    means, second, beta, resid, err = want
    assert np.allclose(got.means, means, rtol=1e-12, atol=1e-9)
    assert np.allclose(got.second, second, rtol=1e-12)
    assert np.allclose(got.beta, beta, rtol=1e-12, atol=1e-15)
    assert np.allclose(got.err, err, rtol=1e-12, atol=0.0)
    assert np.allclose(got.resid, resid, rtol=0.0, atol=1e-12 * second.max())
    assert np.allclose(got.alpha[1:], alpha[1:], rtol=1e-10, atol=1e-13 * second.max())


def test_a_table_that_needs_more_orders_doubles_them(monkeypatch):
    """Started with 2 orders, the tables whose bound needs more get them (doubled), in
    the one-table and the stack drivers alike; too few allowed, both say so."""
    monkeypatch.setattr(_smi_vectorised, "FIRST_ORDER", 2)
    a, b = np.array([30, 40, 30]), np.array([50, 25, 25])
    args = _kernel_args(a, b, 100)
    want = _smi.exact_variance(a, b, 100, path="numpy")[1]
    means, parts, bound = _smi_vectorised.vectorised_moments(*args)
    assert parts.shape[0] > 3 and math.isfinite(bound)
    assert math.fsum(parts.tolist()) == pytest.approx(want, rel=1e-12)
    monkeypatch.setattr(_smi_vectorised, "MAX_ORDER", 2)
    assert not math.isfinite(_smi_vectorised.vectorised_moments(*args)[2])
    var, done = _smi.exact_variances(a[None], b[None], 100,
                                     _smi_vectorised.vectorised_variances)
    assert not done[0]


def _child(script: str, tmp_path: Path) -> dict:
    """Run ``script`` in a fresh process on an empty numba cache, in the default kernels
    mode; its last line of output is JSON."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("NUMBA_", "CLUSTERMETRICS_", "PYTHON"))}
    env.update(PYTHONPATH=str(SRC), NUMBA_CACHE_DIR=str(tmp_path / "numba-cache"))
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(script)], env=env,
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_small_work_runs_in_numpy_and_leaves_numba_unimported(tmp_path):
    """On a fresh install, the README's 8 items with bootstrap intervals, and one SMI of
    10 x 10 labels over 1000 items, cost less in numpy than numba's set-up: numba is
    never imported, and the SMI is the exact one."""
    got = _child("""
        import json, sys
        import numpy as np
        import clustermetrics as cm
        report = cm.evaluate([0, 0, 0, 1, 1, 1, 2, 2], [0, 0, 1, 1, 1, 2, 2, 2], ci=0.95)
        first = "numba" in sys.modules
        rng = np.random.default_rng(0)
        a, b = rng.integers(0, 10, 1000), rng.integers(0, 10, 1000)
        method = cm.standardized_mutual_info(a, b).method
        print(json.dumps([first, "numba" in sys.modules, method]))
    """, tmp_path)
    assert got == [False, False, "exact"]


def test_the_stack_pass_counts_its_sums_once_per_stack_and_its_laws_once(monkeypatch):
    """Inside a loop of replicates (repeats = the replicates), a pass over a stack of B of
    them asks the compiled kernel with its work counted repeats / B times: its sums over
    the cells each time, and the laws the memo does not hold yet (none once they are)."""
    asked = []
    monkeypatch.setattr(_smi.compiled, "smi_variances_kernel",
                        lambda work: asked.append((work, _kernels.repeats())) or None)
    stack = _replicates([[30, 2, 1], [3, 25, 4], [2, 3, 30]], 50, 3)
    rows, cols = stack.class_sizes, stack.cluster_sizes
    memo: dict = {}
    with _kernels.repeated(1000):
        kernel = _smi.stack_expansion(rows, cols, 100, memo)
        assert kernel.func is _smi_vectorised.vectorised_variances
        _smi.exact_variances(rows, cols, 100, kernel)
        _smi.stack_expansion(rows, cols, 100, memo)
    sums = _smi_cost.stack_sums_cost(_smi.tables_of(rows, cols)) / _smi.EXACT_TERM_COST
    assert [r for _, r in asked] == [1000, 20, 1000, 20]
    assert asked[0][0] == asked[2][0] == 0.0
    assert asked[1][0] > sums and asked[3][0] == pytest.approx(sums, rel=1e-12)


def test_auto_runs_no_uncompiled_expansion_beyond_its_budget(monkeypatch):
    """Where the uncompiled expansion is estimated above auto's budget, it does not run
    (auto estimates instead), on Zipf-like sizes too: there the laws of large mean are
    priced with their windows, since their Taylor remainders may turn out too large and
    the windows be summed after all (a 10^6-item table once ran ~4 s of them)."""
    monkeypatch.setattr(_kernels, "_mode", "numpy")
    rng = np.random.default_rng(0)
    truth, pred = (np.minimum(rng.zipf(1.6, 20000), 5000) for _ in range(2))
    a, b = np.bincount(truth), np.bincount(pred)
    a, b, n = a[a > 0], b[b > 0], truth.shape[0]
    cost = float(_smi_cost.vectorised_costs(tables_of(a[None], b[None]), n)[0])
    ran = []
    monkeypatch.setattr(_smi, "_expanded", lambda *args: ran.append(1))
    assert _smi.exact_variance(a, b, n, nested_max=cost / 2) is None
    assert not ran
    _smi.exact_variance(a, b, n, nested_max=cost * 2)
    assert ran


@pytest.mark.parametrize("a, b", [([2, 2], [1, 3]), ([5, 1], [2, 2, 2]),
                                  ([11, 1], [3, 3, 3, 3]), ([29, 1], [5] * 6)])
def test_an_s_the_same_for_every_pairing_gives_the_smi_0_0_convention(a, b):
    """Class sizes (N - 1, 1) against equal cluster sizes (or 2, 2 against 1, 3): wherever
    the lone item goes, S = sum n log n is the same, so SMI is a 0/0 (0 by convention),
    alone and as a table of a stack, on every path of the variance: not the quotient of
    the ~1e-31 the variance's sums may round to (the scalar expansion's do here)."""
    truth = np.repeat(np.arange(len(a)), a)
    pred = np.repeat(np.arange(len(b)), b)
    table = Contingency.from_labels(truth, pred)
    for path in ("numpy", "python", "vectorised"):
        assert _smi.exact_variance(np.array(a), np.array(b), len(truth), path=path)[1] \
            < 1e-25
    assert cm.standardized_mutual_info_score(truth, pred) == 0.0
    stack = TableStack(table, np.stack([table.counts, table.counts]))
    assert np.all(cm.standardized_mutual_info_score.spec.body(stack) == 0.0)
