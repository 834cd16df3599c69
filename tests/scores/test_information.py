"""Information scores: EMI against an exact rational reference, pruning bound, identities."""

import math

import numpy as np
import pytest
from emi_reference import exact_emi
from hypothesis import given, settings
from hypothesis import strategies as st

import clustermetrics as cm
from clustermetrics.compute import dispatch
from clustermetrics.scores._emi import (
    expected_mutual_information,
    expected_mutual_information_of_tables,
)


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 150).flatmap(lambda n: st.tuples(
    st.just(n), st.lists(st.integers(0, 9), min_size=n, max_size=n),
    st.lists(st.integers(0, 9), min_size=n, max_size=n))))
def test_emi_matches_exact_reference(case):
    n, t, p = case
    table = cm.Contingency.from_labels(t, p)
    a, b = table.class_sizes.tolist(), table.cluster_sizes.tolist()
    expected = exact_emi(a, b, n) if len(a) > 1 and len(b) > 1 else 0.0
    got = cm.expected_mutual_info_score(table)
    assert got == pytest.approx(expected, rel=1e-13, abs=1e-15)


def test_emi_exact_reference_moderate_size():
    rng = np.random.default_rng(5)
    t = rng.integers(0, 30, 600)
    p = rng.integers(0, 25, 600)
    table = cm.Contingency.from_labels(t, p)
    expected = exact_emi(table.class_sizes.tolist(), table.cluster_sizes.tolist(), 600)
    assert cm.expected_mutual_info_score(table) == pytest.approx(expected, rel=1e-13)


@pytest.mark.parametrize("n, k", [(500, 3), (3000, 40), (20000, 500), (50000, 20)])
def test_pruned_emi_equals_full_sum(n, k):
    rng = np.random.default_rng(n)
    sizes_a = np.bincount(rng.integers(0, k, n))
    sizes_b = np.bincount(rng.integers(0, k, n) ** 2 % k)  # unequal sizes
    sizes_a, sizes_b = sizes_a[sizes_a > 0], sizes_b[sizes_b > 0]
    pruned = expected_mutual_information(sizes_a, sizes_b, n)
    full = expected_mutual_information(sizes_a, sizes_b, n, tol=0)
    assert pruned == pytest.approx(full, abs=1e-12, rel=0)


def test_emi_skewed_margins_stay_within_bound():
    # one huge class against many small clusters: windows hit both ends of the support
    a = np.array([9000, 500, 300, 200])
    b = np.array([5000, 2500, 2000, 400, 100])
    full = expected_mutual_information(a, b, 10000, tol=0)
    assert expected_mutual_information(a, b, 10000) == pytest.approx(full, abs=1e-14, rel=0)


def test_ami_of_identical_and_independent():
    t = np.repeat(np.arange(10), 50)
    assert cm.adjusted_mutual_info_score(t, t) == 1.0
    assert cm.normalized_mutual_info_score(t, t) == 1.0
    assert cm.v_measure_score(t, t) == 1.0
    rng = np.random.default_rng(0)
    scores = [cm.adjusted_mutual_info_score(t, rng.integers(0, 10, t.size)) for _ in range(20)]
    assert abs(np.mean(scores)) < 0.01


def test_nmi_identities():
    rng = np.random.default_rng(2)
    t, p = rng.integers(0, 5, 400), rng.integers(0, 7, 400)
    mi = cm.mutual_info_score(t, p)
    ht, hp = cm.entropy(t), cm.entropy(p)
    assert cm.normalized_mutual_info_score(t, p) == pytest.approx(2 * mi / (ht + hp))
    assert cm.normalized_mutual_info_score(t, p, average_method="min") == pytest.approx(
        mi / min(ht, hp))
    assert cm.v_measure_score(t, p) == pytest.approx(cm.normalized_mutual_info_score(t, p))
    assert cm.homogeneity_score(t, p) == pytest.approx(mi / ht)
    assert cm.completeness_score(t, p) == pytest.approx(mi / hp)


def test_mutual_info_direct_formula():
    t = ["a", "a", "b", "b", "b", "c"]
    p = [1, 2, 2, 2, 3, 3]
    n = len(t)
    direct = 0.0
    for x in set(t):
        for y in set(p):
            nxy = sum(1 for u, v in zip(t, p, strict=True) if u == x and v == y)
            if nxy:
                direct += nxy / n * math.log(n * nxy / (t.count(x) * p.count(y)))
    assert cm.mutual_info_score(t, p) == pytest.approx(direct, abs=1e-15)


def test_single_label_conventions():
    assert cm.adjusted_mutual_info_score([1, 1, 1], [2, 2, 2]) == 1.0
    assert cm.adjusted_mutual_info_score([1, 1, 1], [1, 2, 2]) == 0.0
    assert cm.normalized_mutual_info_score([1, 1, 1], [1, 2, 2]) == 0.0
    assert cm.mutual_info_score([1, 1, 1], [1, 2, 2]) == 0.0
    assert cm.homogeneity_completeness_v_measure([1, 1, 1], [1, 2, 2]) == (1.0, 0.0, 0.0)
    assert cm.entropy(["x"]) == 0.0
    assert cm.expected_mutual_info_score([1, 1, 2], [3, 3, 3]) == 0.0


def test_pure_clusterings_score_exactly_one():
    # every cluster pure (a refinement of the truth): homogeneity is 1 in theory, so exactly
    truth, refined = [0, 0, 1, 1, 1, 2], [0, 1, 2, 3, 3, 4]
    assert cm.homogeneity_score(truth, refined) == 1.0
    assert cm.completeness_score(refined, truth) == 1.0
    assert cm.completeness_score(truth, refined) < 1.0
    assert cm.homogeneity_score(refined, truth) < 1.0


def _stack_case(draw_sizes, rng, tables, n):
    """(class_sizes, cluster_sizes) rows of ``tables`` tables of ``n`` items, zero-padded."""
    rows = [draw_sizes(rng, n) for _ in range(tables)]
    cols = [draw_sizes(rng, n) for _ in range(tables)]
    width_r = max(r.shape[0] for r in rows)
    width_c = max(c.shape[0] for c in cols)
    pad = lambda xs, w: np.array([np.pad(x, (0, w - x.shape[0])) for x in xs])  # noqa: E731
    return pad(rows, width_r), pad(cols, width_c)


_SHAPES = {
    "uniform": lambda rng, n: np.bincount(rng.integers(0, 6, n)),
    "one class": lambda rng, n: np.array([n]),
    "singletons": lambda rng, n: np.bincount(rng.integers(0, n, n)),
    "one big line": lambda rng, n: np.bincount(np.minimum(rng.geometric(0.05, n), 40)),
    "two halves": lambda rng, n: np.array([n // 2, n - n // 2]),
}


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(sorted(_SHAPES)), st.sampled_from(sorted(_SHAPES)),
       st.integers(0, 2**32 - 1), st.sampled_from([2, 7, 60, 900, 40_000]),
       st.integers(1, 12), st.sampled_from(["numpy", "numba"]))
def test_emi_of_a_stack_equals_each_table_alone(shape_a, shape_b, seed, n, tables, mode):
    """Each law summed once for a whole stack (the strictest tail tolerance of its tables)
    gives each table's EMI alone, on every kernels path, margins mixed in one stack (one
    class, singletons, sizes above N/2 whose means pass the moment expansion's threshold)
    and tables of different N."""
    rng = np.random.default_rng(seed)
    draw = lambda r, m: (_SHAPES[shape_a] if r.random() < 0.5 else  # noqa: E731
                         _SHAPES[shape_b])(r, m)
    nonzero = lambda x: x[x > 0]  # noqa: E731
    a1, b1 = _stack_case(draw, rng, tables, n)
    a2, b2 = _stack_case(draw, rng, 2, n + 1)  # another N in the same stack
    a = np.zeros((tables + 2, max(a1.shape[1], a2.shape[1])), dtype=np.int64)
    b = np.zeros((tables + 2, max(b1.shape[1], b2.shape[1])), dtype=np.int64)
    a[:tables, :a1.shape[1]], a[tables:, :a2.shape[1]] = a1, a2
    b[:tables, :b1.shape[1]], b[tables:, :b2.shape[1]] = b1, b2
    sizes = np.array([n] * tables + [n + 1] * 2)
    old = dispatch.set_kernels(mode)
    try:
        got = expected_mutual_information_of_tables(a, b, sizes)
    finally:
        dispatch.set_kernels(old)
    for r in range(tables + 2):
        alone = expected_mutual_information(nonzero(a[r]), nonzero(b[r]), int(sizes[r]), tol=0)
        assert got[r] == pytest.approx(alone, rel=1e-13, abs=1e-15), r
