"""Standardized MI (exact and Monte Carlo) and reduced MI against independent references:
enumeration of every table with the given margins (exact rationals, mpmath), fastami's
Monte Carlo SMI, clustering-mi's RMI, and mpmath at 50 digits for the log-gamma sums."""

import math

import mpmath
import numpy as np
import pytest
from clustering_mi import _core as cmi_core
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize_scalar
from smi_reference import mi_law

import clustermetrics as cm
from clustermetrics import Contingency, UndefinedMetricError
from clustermetrics.scores import _reduced, _smi, standardized_information

sizes = st.lists(st.integers(1, 4), min_size=2, max_size=3)


@pytest.mark.parametrize("path", ["numpy", "compiled", "python"])
@settings(max_examples=25, deadline=None)
@given(sizes, sizes)
def test_exact_variance_equals_enumeration(path, a, b):
    """E[MI] and Var[MI] of every table with the margins, summed exactly."""
    total = sum(a)
    if sum(b) != total:  # make b a partition of the same N: stretch its last part
        b = b[:-1] + [total - sum(b[:-1])] if total - sum(b[:-1]) > 0 else [total]
    if len(b) < 2:
        return
    e_ref, v_ref = mi_law(a, b)
    e_s, var_s = _smi.exact_variance(np.array(a), np.array(b), total, path=path)
    slog = sum(v * math.log(v) for v in a) + sum(v * math.log(v) for v in b)
    assert (e_s + total * math.log(total) - slog) / total == pytest.approx(float(e_ref),
                                                                         rel=1e-12)
    assert var_s / total**2 == pytest.approx(float(v_ref), rel=1e-10, abs=1e-15)


@pytest.mark.parametrize("a,b", [([5, 3, 3, 1], [4, 4, 2, 2]), ([7, 5, 3], [6, 5, 3, 1]),
                                 ([2, 2, 2, 2, 2], [5, 5])])
def test_smi_matches_enumeration(a, b):
    t = np.repeat(np.arange(len(a)), a)
    rng = np.random.default_rng(3)
    p = rng.permutation(np.repeat(np.arange(len(b)), b))
    e_ref, v_ref = mi_law(a, b)
    mi = cm.mutual_info_score(t, p)
    want = (mi - float(e_ref)) / math.sqrt(float(v_ref))
    assert cm.standardized_mutual_info_score(t, p, method="exact") == pytest.approx(want,
                                                                                   rel=1e-9)
    result = cm.standardized_mutual_info(t, p)
    assert result.method == "exact" and result.standard_error == 0.0


def _noisy(n, kt, kp, seed, keep=0.5):
    rng = np.random.default_rng(seed)
    t = rng.integers(0, kt, n)
    p = np.where(rng.random(n) < keep, t % kp, rng.integers(0, kp, n))
    return t, p


def test_exact_smi_within_fastami_monte_carlo_error(monkeypatch):
    import fastami.fastsmi
    from sklearn.metrics import mutual_info_score

    # fastami 0.2.1 passes its loop counter as the labels next to contingency=, which
    # scikit-learn >= 1.3 refuses; the labels are unused there
    monkeypatch.setattr(fastami.fastsmi, "mutual_info_score",
                        lambda _t, _p, contingency: mutual_info_score(None, None,
                                                                      contingency=contingency))
    t, p = _noisy(80, 4, 5, seed=1, keep=0.3)
    ours = cm.standardized_mutual_info_score(t, p, method="exact")
    theirs, err = fastami.fastsmi.standardized_mutual_info_mc(t, p, seed=0, precision_goal=0.05)
    assert abs(ours - theirs) <= 4 * err + 1e-9, (ours, theirs, err)


@pytest.mark.parametrize("seed", [0, 1])
def test_monte_carlo_within_its_standard_error(seed):
    t, p = _noisy(300, 6, 7, seed=seed, keep=0.2)
    exact = cm.standardized_mutual_info(t, p, method="exact")
    mc = cm.standardized_mutual_info(t, p, method="monte_carlo", n_samples=2000,
                                     random_state=seed)
    assert mc.method == "monte_carlo" and mc.n_samples == 2000
    assert mc.expected_mi == exact.expected_mi  # the mean is exact in both
    assert 0 < mc.standard_error < 0.1 * abs(mc.value)
    assert abs(mc.value - exact.value) <= 4 * mc.standard_error
    again = cm.standardized_mutual_info(t, p, method="monte_carlo", n_samples=2000,
                                        random_state=seed)
    assert again == mc
    # the draw depends only on the margins: the same for the transposed table
    assert cm.standardized_mutual_info(p, t, method="monte_carlo", n_samples=2000,
                                       random_state=seed).value == pytest.approx(mc.value,
                                                                                 rel=1e-12)


def test_smi_is_about_zero_under_chance():
    rng = np.random.default_rng(5)
    values = [cm.standardized_mutual_info_score(rng.integers(0, 4, 60), rng.integers(0, 6, 60))
              for _ in range(40)]
    assert abs(np.mean(values)) < 0.5 and 0.6 < np.std(values) < 1.5


def test_auto_falls_back_to_monte_carlo(monkeypatch):
    t, p = _noisy(200, 5, 5, seed=2)
    assert cm.standardized_mutual_info(t, p).method == "exact"
    # the exact variance is cheaper than 20 random tables here: price it out of reach
    monkeypatch.setattr(standardized_information, "_SMI_EXACT_BUDGET", 10.0)
    monkeypatch.setattr(standardized_information, "_SMI_EXACT_PREFERENCE", 0.0)
    result = cm.standardized_mutual_info(t, p, n_samples=50)
    assert result.method == "monte_carlo" and result.n_samples == 50
    report = cm.evaluate(t, p, "smi")
    assert report.details["smi"].method == "monte_carlo"  # evaluate records the method
    assert report["smi"] == cm.standardized_mutual_info(t, p).value


def test_smi_undefined_and_bad_options():
    assert cm.standardized_mutual_info_score([0, 0, 1, 1], [0, 0, 0, 0]) == 0.0
    assert cm.standardized_mutual_info_score([0, 1, 2, 3], [0, 0, 1, 1]) == 0.0
    with pytest.raises(UndefinedMetricError):
        cm.standardized_mutual_info_score([0, 0, 1, 1], [0, 0, 0, 0], force_finite=False)
    with pytest.raises(ValueError, match="method"):
        cm.standardized_mutual_info_score([0, 1], [0, 1], method="fast")
    with pytest.raises(ValueError, match="n_samples"):
        cm.standardized_mutual_info_score([0, 1], [0, 1], n_samples=1)


# --------------------------------------------------------------------------- RMI
def _dense(t, p):
    _, t = np.unique(t, return_inverse=True)
    _, p = np.unique(p, return_inverse=True)
    table = np.zeros((t.max() + 1, p.max() + 1), dtype=np.int64)
    np.add.at(table, (t, p), 1)
    return table


def _tight_min(f):
    """min over [1e-4, 1e4] of f, on a fine grid refined by bounded Brent."""
    grid = np.linspace(math.log(1e-4), math.log(1e4), 401)
    values = [f(math.exp(x)) for x in grid]
    k = int(np.argmin(values))
    res = minimize_scalar(lambda x: f(math.exp(x)), method="bounded",
                          bounds=(grid[max(k - 1, 0)], grid[min(k + 1, 400)]),
                          options={"xatol": 1e-12})
    return min(float(res.fun), values[k])


labellings = st.tuples(st.integers(2, 300), st.integers(1, 7), st.integers(1, 7),
                       st.integers(0, 10**6), st.floats(0.0, 1.0))


@settings(max_examples=30, deadline=None)
@given(labellings)
def test_rmi_matches_clustering_mi(case):
    n, kt, kp, seed, keep = case
    t, p = _noisy(n, kt, kp, seed, keep)
    table = _dense(t, p)
    a, b = table.sum(axis=1), table.sum(axis=0)
    # clustering-mi: rows are the labelling described (our truth), result in bits
    ref = cmi_core.reduced_mutual_information(table) * math.log(2) / n
    ours = cm.reduced_mutual_info_score(t, p)
    # its golden-section search stops at 1e-5 in log alpha: values agree to ~1e-8
    assert ours == pytest.approx(ref, rel=1e-7, abs=1e-9)
    # the same objectives minimised tightly agree to rounding
    lf = [math.lgamma(v + 1) for v in range(n + 1)]
    h_ref = (_tight_min(lambda x: cmi_core.H_ng_G_alpha(a, x)) + lf[n]
             - sum(lf[v] for v in a)) if len(a) > 1 else 0.0
    hc_ref = (_tight_min(lambda x: cmi_core.H_ngc_G_nc_alpha(table, x))
              + sum(lf[v] for v in b) - sum(lf[v] for v in table.ravel())) \
        if len(a) > 1 else 0.0
    # ours keep the concentration-dependent parts apart from the log-factorials
    whole = (np.array([float(n)]), np.ones(1))
    code, code_given = _reduced.minimise([
        _reduced.CodeSpec(len(a), *whole, *_reduced.distinct(a)),
        _reduced.CodeSpec(len(a), *_reduced.distinct(b), *_reduced.distinct(table))])
    h = code.e_form + lf[n] - sum(lf[v] for v in a)
    hc = code_given.e_form + sum(lf[v] for v in b) - sum(lf[v] for v in table.ravel())
    assert h == pytest.approx(h_ref, rel=1e-10, abs=1e-10)
    assert hc == pytest.approx(hc_ref, rel=1e-10, abs=1e-10)


@pytest.mark.parametrize("normalization,theirs", [
    ("truth", "second"), ("prediction", "first"), ("arithmetic", "mean"),
    ("geometric", "geometric"), ("min", "min"), ("max", "max")])
def test_normalized_rmi_matches_clustering_mi(normalization, theirs):
    import clustering_mi

    for seed in range(4):
        t, p = _noisy(150, 4, 6, seed, keep=0.6)
        ref = clustering_mi.normalized_mutual_information(p, t, normalization=theirs)
        ours = cm.normalized_reduced_mutual_info_score(t, p, normalization=normalization)
        assert ours == pytest.approx(ref, rel=1e-6, abs=1e-8)


def test_rnmi_identical_and_single_label():
    t = np.array([0, 0, 1, 1, 1, 2])
    assert cm.normalized_reduced_mutual_info_score(t, t) == 1.0
    assert cm.normalized_reduced_mutual_info_score([0, 0, 0], [0, 1, 2]) == 0.0
    assert cm.normalized_reduced_mutual_info_score([0, 0], [1, 1]) == 1.0
    with pytest.raises(UndefinedMetricError):
        cm.normalized_reduced_mutual_info_score([0, 0, 0], [0, 1, 2], force_finite=False)


@pytest.mark.parametrize("x", [1e-4, 0.3, 1.0, 9.99, 10.0, 57.5, 1e4, 3.7e7])
def test_log_binomial_against_mpmath(x):
    """E(x, n) = log Gamma(x + n) - log Gamma(x) - log n!, up to n = 1e17: a few ulps of
    the result, or of |log Gamma(x)| < 10 where x < 10 and n < 10."""
    n = np.array([0, 1, 2, 9, 10, 11, 99, 1000, 12345, 10**6, 4616395404224264, 10**17])
    got = _reduced.log_binomial(x, n)
    with mpmath.workdps(50):
        for k, value in zip(n.tolist(), got.tolist(), strict=True):
            mx = mpmath.mpf(x)
            want = float(mpmath.loggamma(mx + k) - mpmath.loggamma(mx) - mpmath.loggamma(k + 1))
            scale = abs(want) + abs(math.lgamma(x)) + math.lgamma(k + 1) * (k < 10)
            assert abs(value - want) <= 1e-15 * scale + 1e-300, (k, value, want)


def test_rmi_objective_against_mpmath_on_a_large_sparse_table():
    """The concentration-dependent code length at its optimum, in doubles, against 50
    digits."""
    rng = np.random.default_rng(0)
    n, k = 200_000, 20_000
    table = Contingency.from_labels(rng.integers(0, k, n), rng.integers(0, k, n))
    found = _reduced.minimise([_reduced.CodeSpec(table.n_classes,
                                                 *_reduced.distinct(table.cluster_sizes),
                                                 *_reduced.distinct(table.counts))])[0]
    value, beta = found.e_form, found.x
    with mpmath.workdps(50):
        b = mpmath.mpf(beta)
        q = table.n_classes
        lr = lambda x, m: mpmath.loggamma(x + m) - mpmath.loggamma(x)  # noqa: E731
        ref = mpmath.mpf(0)
        lf = lambda m: mpmath.loggamma(m + 1)  # noqa: E731
        for s, c in zip(*np.unique(table.cluster_sizes, return_counts=True), strict=True):
            ref += int(c) * (lr(q * b, int(s)) - lf(int(s)))
        for s, c in zip(*np.unique(table.counts, return_counts=True), strict=True):
            ref -= int(c) * (lr(b, int(s)) - lf(int(s)))
    assert value == pytest.approx(float(ref), rel=1e-13)


def test_rmi_on_sparse_noise_is_about_zero():
    rng = np.random.default_rng(1)
    n, k = 200_000, 50_000
    t, p = rng.integers(0, k, n), rng.integers(0, k, n)
    table = Contingency.from_labels(t, p)
    assert cm.mutual_info_score(table) > 1.0  # MI credits the noise with nats per item
    assert abs(cm.normalized_reduced_mutual_info_score(table)) < 0.02
    assert cm.reduced_mutual_info_score(table) < 0.05


@pytest.mark.parametrize("x", [1e-4, 0.3, 9.99, 10.0, 57.5, 1e4, 3.7e7])
def test_log_rising_over_power_against_mpmath(x):
    """F(x, n) = log Gamma(x + n) - log Gamma(x) - n log x, small for large x."""
    n = np.array([0, 1, 2, 9, 10, 11, 99, 1000, 12345, 10**6, 10**17])
    got = _reduced.log_rising_over_power(x, n)
    with mpmath.workdps(60):
        for k, value in zip(n.tolist(), got.tolist(), strict=True):
            mx = mpmath.mpf(x)
            want = float(mpmath.loggamma(mx + k) - mpmath.loggamma(mx) - k * mpmath.log(mx))
            scale = abs(want) + (abs(math.lgamma(x)) + k * abs(math.log(x))) * (x < 10) \
                + 0.0
            assert abs(value - want) <= 4e-15 * scale + 1e-40, (k, value, want)


def test_smi_refuses_what_it_cannot_compute():
    """Counts of 1e17: the exact sum would need ~1e34 terms and the sampler N < 1e9, so
    every method says so (ValueError naming the limit) instead of running for ever."""
    table = Contingency.from_matrix(np.array([[10**17, 5], [3, 10**16]]))
    with pytest.raises(ValueError, match="too costly"):
        cm.standardized_mutual_info_score(table)
    with pytest.raises(ValueError, match="method='exact' needs N"):
        cm.standardized_mutual_info_score(table, method="exact")
    with pytest.raises(ValueError, match="N < 1e"):
        cm.standardized_mutual_info_score(table, method="monte_carlo")
    # 4e6 items in a 2 x 2 table: the exact sums run over windows of ~1e4 counts, cheap
    big = Contingency.from_matrix(np.array([[10**6, 10**6], [10**6, 10**6]]))
    result = cm.standardized_mutual_info(big)
    assert result.method == "exact" and result.sd_mi > 0
