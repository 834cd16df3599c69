"""The Monte Carlo SMI's control variates and random-table sampler: the controls' exact
moments against enumeration of every pairing, the compiled sampler against the numpy one,
and the control-variate variance against the exact variance within its standard error."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import clustermetrics as cm
from clustermetrics.compute import dispatch as _kernels
from clustermetrics.scores import _smi, _smi_monte_carlo


def _enumerated_moments(a, b):
    """Mean and covariance of [P, W, L1, L2] over every pairing of the items (brute force)."""
    a, b = _smi_monte_carlo._canonical(np.array(a), np.array(b))
    n = int(a.sum())
    ctl = _smi_monte_carlo._Controls(a, b, n)
    base = _smi_monte_carlo._layout(a) * b.shape[0]
    values = []
    for perm in itertools.permutations(_smi_monte_carlo._layout(b).tolist()):
        rows, cols, counts = _smi_monte_carlo._count_pairing(base, np.array(perm), b.shape[0],
                                                             a.shape[0])
        values.append(ctl.stats(rows, cols, counts)[1:])
    v = np.array(values).T[:ctl.mean.shape[0]]
    return ctl, v.mean(axis=1), np.cov(v, bias=True)


MARGINS = [([3, 2, 2], [4, 3]), ([2, 2, 1, 1, 1], [3, 2, 2]), ([4, 3], [2, 2, 2, 1]),
           ([1, 1, 1, 1, 3], [5, 2]), ([2, 2, 2], [2, 2, 2])]


@pytest.mark.parametrize(("a", "b"), MARGINS)
def test_control_moments_equal_enumeration(a, b):
    ctl, mean, cov = _enumerated_moments(a, b)
    assert ctl.mean == pytest.approx(mean, rel=1e-10, abs=1e-12)
    scale = np.sqrt(np.outer(np.diag(cov), np.diag(cov))) + 1e-300
    assert np.all(np.abs(ctl.cov - cov) <= 1e-9 * scale + 1e-12), (ctl.cov, cov)


def _margins(seed, n, kt, kp, giant=0.0):
    rng = np.random.default_rng(seed)
    t = rng.integers(0, kt, n)
    t[: int(giant * n)] = 0  # one giant class, as in entity resolution
    p = np.where(rng.random(n) < 0.6, t % kp, rng.integers(0, kp, n))
    p[: int(giant * n * 0.9)] = 0
    return t, p


@pytest.mark.parametrize("case", [(0, 3000, 300, 250, 0.0), (1, 3000, 12, 400, 0.0),
                                  (2, 4000, 900, 800, 0.3)])
def test_compiled_sampler_matches_numpy(case):
    t, p = _margins(*case)
    table = cm.Contingency.from_labels(t, p)
    a, b = table.class_sizes, table.cluster_sizes
    old = _kernels.set_kernels("numba")
    try:
        fast = _smi_monte_carlo.sample_stats(a, b, 5, 3)
        ca, cb = _smi_monte_carlo._canonical(a, b)
        _kernels.set_kernels("numpy")
        slow = _smi_monte_carlo.sample_stats(a, b, 5, 3)
    finally:
        _kernels.set_kernels(old)
    if _smi_monte_carlo._sampler(ca, cb)[0] == "pairing":  # same draws, same statistics
        assert fast == pytest.approx(slow, rel=1e-11, abs=1e-9)


@pytest.mark.parametrize(("case", "gain"), [((3, 2000, 200, 180, 0.0), 0.5),
                                            ((4, 3000, 40, 30, 0.0), 1.0),
                                            ((5, 3000, 600, 500, 0.3), 0.5)])
def test_control_variate_variance_within_its_error(case, gain):
    """The regression estimate of Var[S] lands within 4 stated standard errors of the
    exact variance, with an error well below the plain mean's on the same draws on sparse
    tables and on a giant class (on a dense 40 x 30 table, with cells of ~2.5 items, S is
    neither quadratic nor linear in the controls and the gain is small)."""
    t, p = _margins(*case)
    table = cm.Contingency.from_labels(t, p)
    a, b, n = table.class_sizes, table.cluster_sizes, table.n_samples
    e_s, var_s = _smi.exact_variance(a, b, n)
    ca, cb = _smi_monte_carlo._canonical(a, b)
    ctl = _smi_monte_carlo._Controls(ca, cb, n)
    stats = _smi_monte_carlo.sample_stats(ca, cb, 60, case[0], ctl)
    est, se = _smi_monte_carlo.variance_from_stats(stats, e_s, ctl.mean, ctl.cov)
    y = (stats[0] - e_s) ** 2
    plain_se = y.std(ddof=1) / math.sqrt(y.shape[0])
    assert abs(est - var_s) <= 4 * se, (est, var_s, se)
    assert se < gain * plain_se, (se, plain_se)


def test_monte_carlo_smi_close_to_exact_with_few_tables():
    t, p = _margins(6, 3000, 500, 450, 0.3)
    exact = cm.standardized_mutual_info(t, p, method="exact")
    mc = cm.standardized_mutual_info(t, p, method="monte_carlo", n_samples=20)
    assert mc.method == "monte_carlo" and mc.n_samples == 20
    assert abs(mc.value - exact.value) <= 4 * mc.standard_error
    assert mc.standard_error < 0.1 * abs(mc.value)


def test_stated_error_covers_the_exact_variance():
    """Over 30 seeds of 20 tables, (estimate - exact) / stated error has sd near 1 and a
    mean near 0 (the standard error is honest, not only the estimate)."""
    t, p = _margins(8, 2000, 200, 180, 0.3)
    table = cm.Contingency.from_labels(t, p)
    a, b, n = table.class_sizes, table.cluster_sizes, table.n_samples
    e_s, var_s = _smi.exact_variance(a, b, n)
    ca, cb = _smi_monte_carlo._canonical(a, b)
    ctl = _smi_monte_carlo._Controls(ca, cb, n)
    z = []
    for seed in range(30):
        stats = _smi_monte_carlo.sample_stats(ca, cb, 20, seed, ctl)
        est, se = _smi_monte_carlo.variance_from_stats(stats, e_s, ctl.mean, ctl.cov)
        z.append((est - var_s) / se)
    z = np.array(z)
    assert abs(z.mean()) < 0.6 and 0.6 < z.std() < 1.4, z


def test_rare_tables_give_no_error_rather_than_a_wrong_one():
    """A 2 x 2 table with 4 stray items: the variance of S sits in tables with an item in
    the rare cell; draws that miss them state an infinite error, never a small one."""
    table = cm.Contingency.from_matrix(np.array([[1980, 4], [4, 0]]))
    exact = cm.standardized_mutual_info(table, method="exact")
    for seed in range(6):
        mc = cm.standardized_mutual_info(table, method="monte_carlo", n_samples=50,
                                         random_state=seed)
        assert mc.standard_error == math.inf or \
            abs(mc.value - exact.value) <= 4 * mc.standard_error, (mc, exact)


def _zipf_labels(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Entity-resolution-like labels: Zipf(2) class sizes, a tenth of the items moved."""
    rng = np.random.default_rng(seed)
    sizes = rng.zipf(2.0, n)
    sizes = sizes[:np.searchsorted(np.cumsum(sizes), n) + 1]
    t = np.repeat(np.arange(sizes.shape[0]), sizes)[:n]
    p = np.where(rng.random(n) < 0.1, rng.integers(0, sizes.shape[0], n), t)
    return t, p


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(0, 2**32 - 1), st.sampled_from([3000, 20000, 100000]))
@example(0, 100000)  # the nested sums would cost ~60 s here: the expansion cannot bound
def test_auto_never_runs_the_numpy_sums_beyond_its_budget(monkeypatch, seed, n):
    """Where the expansion cannot bound its orders (Zipf-like sizes), ``auto`` takes the
    numpy sums only within its exact budget, else the Monte Carlo estimate: a default
    call stays within about a second whatever the table."""
    from clustermetrics.scores import standardized_information as si
    from clustermetrics.scores._smi import sample_cost
    from clustermetrics.scores._smi_cost import EXACT_TERM_COST, nested_terms

    t, p = _zipf_labels(n, seed)
    table = cm.Contingency.from_labels(t, p)
    budget = max(si._SMI_EXACT_BUDGET, si._SMI_EXACT_PREFERENCE * si._SMI_AUTO_MIN_SAMPLES
                 * sample_cost(table.class_sizes, table.cluster_sizes))
    costs, nested = [], _smi.nested_sums

    def counted(ua, ca, ub, cb, size):
        costs.append(nested_terms(ua, ca, ub, cb, size) * EXACT_TERM_COST)
        return nested(ua, ca, ub, cb, size)

    monkeypatch.setattr(_smi, "nested_sums", counted)
    result = cm.standardized_mutual_info(table)
    assert all(c <= budget for c in costs), (costs, budget)
    assert result.method in ("exact", "monte_carlo") and math.isfinite(result.value)
