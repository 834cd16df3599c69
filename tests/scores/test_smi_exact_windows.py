"""The exact SMI variance summed over windows of the hypergeometric laws, on small tables
with large counts: against Romano et al.'s nested sums over every support point in
mpmath (40 digits), a direct 2 x 2 sum in mpmath, the previous dense implementation, and
fastami's Monte Carlo SMI; and the refusal of ``method="exact"`` where it is too costly."""

import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from smi_dense_reference import dense_exact_variance
from smi_reference import nested_variance, two_by_two_variance

import clustermetrics as cm
from clustermetrics import Contingency
from clustermetrics.compute import dispatch as _kernels
from clustermetrics.scores import _smi


def _margins(table):
    t = np.asarray(table, dtype=np.int64)
    a, b = t.sum(axis=1), t.sum(axis=0)
    a, b = a[a > 0], b[b > 0]
    n = int(a.sum())
    ok = 2 <= a.shape[0] < n and 2 <= b.shape[0] < n  # SMI defined
    return a, b, n, ok


@st.composite
def dominant_row(draw):
    """R, C <= 4: one row of counts up to 1e6, the others of a few items (the laws then
    have short supports, so the mpmath reference is affordable)."""
    r, c = draw(st.integers(2, 4)), draw(st.integers(2, 4))
    top = draw(st.lists(st.integers(0, 10**6), min_size=c, max_size=c))
    rest = draw(st.lists(st.lists(st.integers(0, 3), min_size=c, max_size=c),
                         min_size=r - 1, max_size=r - 1))
    return [top, *rest]


# every reference test runs both the numpy sums and the compiled row-conditioning pass
# (the plain-Python run of the latter where the tables are small)
PATHS = pytest.mark.parametrize("path", ["numpy", "compiled"])
SMALL_PATHS = pytest.mark.parametrize("path", ["numpy", "compiled", "python"])


@PATHS
@settings(max_examples=10, deadline=None)
@given(dominant_row())
def test_large_counts_match_the_nested_sums_in_mpmath(path, table):
    a, b, n, ok = _margins(table)
    if not ok:
        return
    e_ref, v_ref = nested_variance(a, b)
    e_s, var_s = _smi.exact_variance(a, b, n, path=path)
    assert e_s == pytest.approx(float(e_ref), rel=1e-14)
    assert var_s == pytest.approx(float(v_ref), rel=1e-12)
    # the transposed table runs the other orientation of the sums
    assert _smi.exact_variance(b, a, n, path=path)[1] == pytest.approx(float(v_ref),
                                                                             rel=1e-12)


@PATHS
@settings(max_examples=10, deadline=None)
@given(st.lists(st.integers(0, 10**6), min_size=2, max_size=2),
       st.lists(st.integers(0, 1000), min_size=2, max_size=2))
def test_two_by_two_matches_the_direct_sum(path, big, small):
    a, b, n, ok = _margins([big, small])
    if not ok:
        return
    e_ref, v_ref = two_by_two_variance(a, b)
    e_s, var_s = _smi.exact_variance(a, b, n, path=path)
    assert e_s == pytest.approx(float(e_ref), rel=1e-14)
    assert var_s == pytest.approx(float(v_ref), rel=1e-12)


@SMALL_PATHS
@settings(max_examples=25, deadline=None)
@given(st.integers(2, 4).flatmap(lambda c: st.lists(
    st.lists(st.integers(0, 25), min_size=c, max_size=c), min_size=2, max_size=4)))
def test_matches_the_dense_implementation(path, table):
    """The previous implementation (dense laws, log k! table) where it is cheap; its own
    rounding grows with N (1e-11 at N ~ 1e3 against 40 digits), hence the small counts."""
    a, b, n, ok = _margins(table)
    if not ok:
        return
    e0, v0 = dense_exact_variance(a, b, n)
    e1, v1 = _smi.exact_variance(a, b, n, path=path)
    assert e1 == pytest.approx(e0, rel=1e-13)
    assert v1 == pytest.approx(v0, rel=1e-12)


def test_rare_tables_get_the_exact_value():
    """[[999980, 10], [10, 0]]: the dense sums needed ~1e12 doubles and the random tables
    miss the rare ones (P ~ 1e-4) that carry the variance; ``auto`` is now exact."""
    table = Contingency.from_matrix(np.array([[999980, 10], [10, 0]]))
    start = time.perf_counter()
    result = cm.standardized_mutual_info(table)
    assert time.perf_counter() - start < 5.0
    assert result.method == "exact" and result.standard_error == 0.0
    _, v_ref = two_by_two_variance([999990, 10], [999990, 10])
    assert result.sd_mi == pytest.approx(float(v_ref) ** 0.5 / 10**6, rel=1e-12)
    assert cm.standardized_mutual_info(table, method="exact") == result


def test_exact_smi_within_fastami_monte_carlo_error(monkeypatch):
    import fastami.fastsmi
    from sklearn.metrics import mutual_info_score

    # fastami 0.2.1 passes its loop counter as the labels next to contingency=, which
    # scikit-learn >= 1.3 refuses; the labels are unused there
    monkeypatch.setattr(fastami.fastsmi, "mutual_info_score",
                        lambda _t, _p, contingency: mutual_info_score(None, None,
                                                                      contingency=contingency))
    matrix = np.array([[10**6, 300, 40], [200, 5000, 10], [30, 20, 2000]])
    rows, cols = np.nonzero(matrix)
    t = np.repeat(rows, matrix[rows, cols])
    p = np.repeat(cols, matrix[rows, cols])
    ours = cm.standardized_mutual_info(Contingency.from_matrix(matrix), method="exact")
    assert ours.value == cm.standardized_mutual_info_score(t, p, method="exact")
    theirs, err = fastami.fastsmi.standardized_mutual_info_mc(t, p, seed=0, precision_goal=0.05)
    assert abs(ours.value - theirs) <= 4 * err, (ours.value, theirs, err)


def test_exact_refuses_what_would_take_minutes():
    """1500 classes and 1500 clusters of distinct sizes (3000 to 4499 items): 2.3e6 laws,
    each summed over ~100 points. Without the compiled kernels (the numpy expansion ~10 ns
    a step, plain Python ~2 us, or the numpy sums) ``method="exact"`` says so at once. On
    300 of them (90,000 laws, ~5 s in numpy) the compiled estimate is the lower, but
    ``auto`` still samples (20 random tables are the cheaper)."""
    big = np.arange(3000, 4500)
    order = np.random.default_rng(1).permutation(big.shape[0])
    huge = Contingency.from_cells(np.arange(big.shape[0]), order, big, np.arange(big.shape[0]),
                                  np.arange(big.shape[0]))
    sizes = np.arange(3000, 3300)
    rng = np.random.default_rng(0)
    labels = np.repeat(np.arange(300), sizes)
    table = Contingency.from_labels(labels, rng.permutation(labels))
    old = _kernels.set_kernels("numpy")
    try:
        start = time.perf_counter()  # refused before its E[MI] (seconds) is computed
        with pytest.raises(ValueError, match=r"method='exact' is too costly.*~\d\.\de\+\d+ "
                                             r"steps"):
            cm.standardized_mutual_info_score(huge, method="exact")
        assert time.perf_counter() - start < 2.0
        numpy_cost = _smi.exact_cost(table.class_sizes, table.cluster_sizes)[0]
    finally:
        _kernels.set_kernels(old)
    compiled_cost = _smi.exact_cost(table.class_sizes, table.cluster_sizes)[0]
    assert compiled_cost < numpy_cost / 2
    result = cm.standardized_mutual_info(table, n_samples=20)
    assert result.method == "monte_carlo" and 0 < result.standard_error < np.inf


def test_compiled_pass_is_what_auto_runs_on_mid_size_tables():
    """10 x 10 labels over 1000 items: Monte Carlo before the compiled sums (the numpy sums
    would need ~1e7 terms); now exact, and equal to the numpy sums."""
    rng = np.random.default_rng(0)
    t, p = rng.integers(0, 10, 1000), rng.integers(0, 10, 1000)
    table = Contingency.from_labels(t, p)
    a, b = table.class_sizes, table.cluster_sizes
    result = cm.standardized_mutual_info(table)
    assert result.method == "exact" and result.standard_error == 0.0
    e0, v0 = _smi.exact_variance(a, b, 1000, path="numpy")
    e1, v1 = _smi.exact_variance(a, b, 1000, path="compiled")
    assert e1 == pytest.approx(e0, rel=1e-14) and v1 == pytest.approx(v0, rel=1e-13)
    assert result.sd_mi == pytest.approx(v0 ** 0.5 / 1000, rel=1e-13)


@PATHS
@pytest.mark.parametrize("n,k,seed", [(500, 100, 0), (3000, 1000, 1), (2000, 40, 2)])
def test_many_sparse_cells_match_the_dense_implementation(path, n, k, seed):
    """Many labels, most cells empty: the summands' shifts must not bring in terms of the
    size of N (sum_ij a_i b_j / N = N) that cancel only up to rounding."""
    rng = np.random.default_rng(seed)
    table = Contingency.from_labels(rng.integers(0, k, n), rng.integers(0, k, n))
    a, b = table.class_sizes, table.cluster_sizes
    e0, v0 = dense_exact_variance(a, b, n)
    e1, v1 = _smi.exact_variance(a, b, n, path=path)
    assert e1 == pytest.approx(e0, rel=1e-12)
    assert v1 == pytest.approx(v0, rel=1e-11)
