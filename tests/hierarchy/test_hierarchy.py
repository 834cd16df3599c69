"""score_hierarchy: every level equals scoring that cut from scratch.

The reference cuts are independent of the library: a union-find over the first N - k
merges, and scipy's fcluster(maxclust) where heights are distinct; each cut is scored from
scratch by the registry on its own table.
"""

from __future__ import annotations

import math
from types import SimpleNamespace

import genieclust
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.cluster.hierarchy import fcluster, linkage
from sklearn import cluster as sklearn_cluster
from sklearn.neighbors import kneighbors_graph

import clustermetrics as cm
from clustermetrics.compute import dispatch as _kernels
from clustermetrics.hierarchy import cuts as hierarchy_module
from clustermetrics.hierarchy import merge_kernels as _hierarchy_kernels
from clustermetrics.hierarchy.cuts import _level_stats, _Levels, as_merges, cut_labels
from clustermetrics.scores._elementwise import select, undefined_where
from clustermetrics.scores._entropies import _info
from clustermetrics.scores.pair_table import PairCounts, _pairs
from clustermetrics.scores.registry import METRICS
from clustermetrics.scores.spec import MetricInfo

UPDATABLE = cm.updatable_metrics()


def union_find_cut(children: np.ndarray, n: int, k: int) -> list[int]:
    """Labels of the cut into k clusters: apply the first n - k merges to singletons."""
    members = {i: [i] for i in range(n)}
    for m, (a, b) in enumerate(children[:n - k].tolist()):
        members[n + m] = members.pop(a) + members.pop(b)
    labels = [0] * n
    for label, points in enumerate(members.values()):
        for p in points:
            labels[p] = label
    return labels


def assert_levels_match(result, truth, children, keys, tol=1e-12):
    n = len(truth)
    for i, k in enumerate(result.n_clusters.tolist()):
        ref = union_find_cut(children, n, k)
        table = cm.Contingency.from_labels(truth, ref)
        assert table.n_clusters == k
        assert cm.Contingency.from_labels(ref, result.labels(k)).nnz == k  # same partition
        for key in keys:
            want = METRICS[key].compute(table)[0]
            got = result.values[key][i]
            assert math.isclose(got, want, rel_tol=0, abs_tol=tol), (key, k, got, want)


@st.composite
def trees(draw, max_n=24):
    """A random full binary tree over n points (any merge order) and a truth labelling."""
    n = draw(st.integers(1, max_n))
    nodes, children = list(range(n)), []
    for m in range(n - 1):
        i = draw(st.integers(0, len(nodes) - 1))
        a = nodes.pop(i)
        j = draw(st.integers(0, len(nodes) - 1))
        b = nodes.pop(j)
        nodes.append(n + m)
        children.append((a, b))
    n_classes = draw(st.integers(1, n))
    truth = draw(st.lists(st.integers(0, n_classes - 1), min_size=n, max_size=n))
    return np.array(children, dtype=np.int64).reshape(-1, 2), truth


class FittedTree:
    """What score_hierarchy reads of a fitted scikit-learn / genieclust estimator."""

    def __init__(self, children, distances=None):
        self.children_ = children
        if distances is not None:
            self.distances_ = distances
        self.n_leaves_ = children.shape[0] + 1


def as_form(children: np.ndarray, form: str, heights: np.ndarray):
    """The tree in one of the input forms score_hierarchy takes."""
    if form == "children":
        return children
    if form == "float children":
        return children.astype(np.float64)
    if form == "linkage":  # scipy's Z: children, height, size of the new cluster
        n = children.shape[0] + 1
        sizes = np.ones(2 * n - 1, dtype=np.int64)
        for m, (a, b) in enumerate(children.tolist()):
            sizes[n + m] = sizes[a] + sizes[b]
        return np.column_stack([children, heights, sizes[n:]]).astype(np.float64)
    return FittedTree(children, heights if form == "estimator with distances" else None)


FORMS = ["children", "float children", "linkage", "estimator", "estimator with distances"]


@settings(max_examples=60, deadline=None)
@given(trees(), st.sampled_from(FORMS), st.randoms(use_true_random=False))
def test_every_level_equals_scoring_the_cut_from_scratch(case, form, random):
    children, truth = case
    heights = np.array(sorted(random.random() for _ in range(children.shape[0])))
    result = cm.score_hierarchy(truth, as_form(children, form, heights), UPDATABLE)
    assert result.n_clusters.tolist() == list(range(1, len(truth) + 1))
    assert result.cut_only == []
    assert_levels_match(result, truth, children, UPDATABLE)
    if form in ("linkage", "estimator with distances") and len(truth) > 1:
        np.testing.assert_array_equal(result.heights[:-1], heights[::-1])


@settings(max_examples=20, deadline=None)
@given(trees(max_n=40))
def test_compiled_loop_equals_python_loop(case):
    children, truth = case
    codes = np.unique(truth, return_inverse=True)[1].astype(np.int64)
    sizes = np.bincount(codes)
    old = _kernels.set_kernels("numpy")
    try:
        plain = _level_stats(codes, sizes, children)
    finally:
        _kernels.set_kernels("numba")
    try:
        compiled = _level_stats(codes, sizes, children)
    finally:
        _kernels.set_kernels(old)
    for a, b in zip(plain, compiled, strict=True):
        np.testing.assert_array_equal(a, b)


def test_linkage_with_distinct_heights_matches_fcluster():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(70, 3))
    truth = rng.integers(0, 4, 70)
    for method in ("single", "average", "ward", "centroid"):
        Z = linkage(X, method)
        result = cm.score_hierarchy(truth, Z, ["ari", "nmi", "vi"])
        for i, k in enumerate(result.n_clusters.tolist()):
            if method == "centroid":  # not monotone: maxclust is not the merge order
                break
            table = cm.Contingency.from_labels(truth, fcluster(Z, k, "maxclust"))
            assert table.n_clusters == k
            assert math.isclose(result.values["ari"][i], cm.adjusted_rand_score(table),
                                abs_tol=1e-12)
        assert_levels_match(result, truth, Z[:, :2].astype(np.int64), ["ari", "nmi", "vi"])
        assert np.array_equal(result.heights[:-1], Z[::-1, 2])


def test_tied_heights_follow_the_merge_order():
    # duplicated integer points: many merges at the same height
    X = np.repeat([0.0, 1.0, 5.0, 6.0, 10.0, 11.0], 4)[:, None]
    truth = np.repeat([0, 0, 1, 1, 2, 2], 4)
    Z = linkage(X, "single")
    assert len(np.unique(Z[:, 2])) < Z.shape[0]
    result = cm.score_hierarchy(truth, Z, UPDATABLE)
    assert_levels_match(result, truth, Z[:, :2].astype(np.int64), UPDATABLE)
    # where a height threshold cannot give k clusters, fcluster gives fewer
    assert len(np.unique(fcluster(Z, 20, "maxclust"))) < 20
    assert result.best["ari"] == hierarchy_module.BestCut(3, 1.0)


def test_sklearn_agglomerative_children_and_distances():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(60, 2))
    truth = rng.integers(0, 3, 60)
    with_d = sklearn_cluster.AgglomerativeClustering(
        n_clusters=None, distance_threshold=0.0, linkage="average").fit(X)
    without = sklearn_cluster.AgglomerativeClustering(
        n_clusters=4, compute_full_tree=True, linkage="ward").fit(X)
    for model in (with_d, without):
        result = cm.score_hierarchy(truth, model, ["ari", "nmi"])
        assert (result.heights is None) == (model is without)
        assert_levels_match(result, truth, model.children_, ["ari", "nmi"])
    for k in (1, 2, 5, 17, 60):  # the cut is scikit-learn's own clustering at k
        ref = sklearn_cluster.AgglomerativeClustering(n_clusters=k, linkage="ward").fit(X)
        got = cm.score_hierarchy(truth, without, ["ari"]).labels(k)
        assert cm.adjusted_rand_score(ref.labels_, got) == 1.0
    partial = sklearn_cluster.AgglomerativeClustering(  # stops at 5 clusters
        n_clusters=5, compute_full_tree=False, connectivity=kneighbors_graph(X, 10)).fit(X)
    assert partial.children_.shape[0] < 59
    with pytest.raises(ValueError, match="compute_full_tree=True"):
        cm.score_hierarchy(truth, partial)


def test_genieclust_children():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(80, 2))
    truth = rng.integers(0, 3, 80)
    model = genieclust.Genie(n_clusters=4).fit(X)
    result = cm.score_hierarchy(truth, model, ["ari", "v_measure"])
    assert_levels_match(result, truth, model.children_, ["ari", "v_measure"])
    assert cm.adjusted_rand_score(model.labels_, result.labels(4)) == 1.0
    # its scipy-style linkage (children, distances, counts) is read the same way
    Z = np.column_stack([model.children_, model.distances_, model.counts_]).astype(float)
    again = cm.score_hierarchy(truth, Z, ["ari", "v_measure"])
    np.testing.assert_array_equal(again.values["ari"], result.values["ari"])


def test_one_and_two_points():
    one = cm.score_hierarchy(["a"], np.empty((0, 4)), UPDATABLE)
    assert one.n_clusters.tolist() == [1]
    assert_levels_match(one, ["a"], np.empty((0, 2), dtype=np.int64), UPDATABLE)
    Z = linkage([[0.0], [1.0]], "single")
    for truth in (["a", "a"], ["a", "b"]):
        two = cm.score_hierarchy(truth, Z, UPDATABLE)
        assert_levels_match(two, truth, Z[:, :2].astype(np.int64), UPDATABLE)


def test_cut_only_scores_at_chosen_cuts():
    rng = np.random.default_rng(11)
    X = rng.normal(size=(40, 2))
    truth = rng.integers(0, 3, 40)
    Z = linkage(X, "ward")
    result = cm.score_hierarchy(truth, Z, ["ari", "ami", "recovery_rate"], k=[2, 7])
    best_ari = result.best["ari"].n_clusters
    assert result.cut_only == ["ami", "recovery_rate"]
    assert result.cut_only_at == sorted({2, 7, best_ari})
    assert "computed only at" in result.notes[0]
    for i, k in enumerate(result.n_clusters.tolist()):
        table = cm.Contingency.from_labels(truth, union_find_cut(Z[:, :2].astype(int), 40, k))
        if k in result.cut_only_at:
            assert result.values["ami"][i] == cm.adjusted_mutual_info_score(table)
        else:
            assert math.isnan(result.values["ami"][i])
    grid = cm.score_hierarchy(truth, Z, ["ami"], n_clusters=range(2, 6))
    assert grid.n_clusters.tolist() == [2, 3, 4, 5] and not np.isnan(grid.values["ami"]).any()
    with pytest.raises(ValueError, match="n_clusters= or k="):
        cm.score_hierarchy(truth, Z, ["ami"])


def test_frame_and_best():
    Z = linkage([[0.0], [0.1], [3.0], [3.1], [9.0]], "single")
    result = cm.score_hierarchy([0, 0, 1, 1, 2], Z, ["ari", "vi", "nmi"])
    frame = result.frame
    assert list(frame.columns) == ["n_clusters", "height", "ari", "vi", "nmi"]
    assert frame["n_clusters"].tolist() == [1, 2, 3, 4, 5]
    assert result.best["ari"] == (3, 1.0) and result.best["vi"].n_clusters == 3
    assert result.labels(3).tolist() == [0, 0, 1, 1, 2]


@pytest.mark.parametrize("tree, match", [
    (np.array([[0, 1, 1.0, 2], [0, 2, 2.0, 3]]), "tree"),
    (np.array([[0, 3], [1, 2]]), "before it is formed"),
    (np.array([[0, 1], [0, 3]]), "twice"),
    (np.array([[0.5, 1], [2, 3]]), "whole"),
    (np.zeros((2, 3)), "4 columns"),
    ("Z.npy", "linkage matrix"),
])
def test_bad_trees(tree, match):
    with pytest.raises(ValueError, match=match):
        as_merges(tree, 3)


def test_bad_arguments():
    Z = linkage([[0.0], [1.0], [3.0]], "single")
    with pytest.raises(ValueError, match="labels_true has 4"):
        cm.score_hierarchy([0, 0, 1, 1], Z)
    with pytest.raises(ValueError, match="n_clusters"):
        cm.score_hierarchy([0, 0, 1], Z, n_clusters=[0, 1])
    with pytest.raises(ValueError, match="k must"):
        cm.score_hierarchy([0, 0, 1], Z, k=4)
    with pytest.raises(ValueError, match="unknown metric"):
        cm.score_hierarchy([0, 0, 1], Z, ["nope"])
    with pytest.raises(ValueError, match="n_clusters must be between"):
        cut_labels(Z[:, :2].astype(np.int64), 5)


def test_a_score_reading_more_on_some_branch_falls_back_to_chosen_cuts(monkeypatch):
    # MARI reads the cells whenever the labellings disagree; declared updatable by
    # mistake it must still come out right, computed from scratch at the chosen cuts
    updatable = dict(hierarchy_module._updatable())
    updatable["mari"] = ("pairs",)
    monkeypatch.setattr(hierarchy_module, "_updatable", lambda: updatable)
    Z = linkage(np.arange(12.0)[:, None] ** 1.5, "single")
    truth = [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3]
    result = cm.score_hierarchy(truth, Z, ["ari", "mari"], k=[4])
    assert result.cut_only == ["mari"] and 4 in result.cut_only_at
    i = result.n_clusters.tolist().index(4)
    table = cm.Contingency.from_labels(truth, union_find_cut(Z[:, :2].astype(int), 12, 4))
    assert result.values["mari"][i] == cm.modified_adjusted_rand_score(table)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.integers(0, 40)), max_size=200),
       st.sampled_from([2, 4, 8, 16]))
def test_compiled_cell_table_is_a_dict(ops, cap):
    # the compiled loop's open-addressing table (linear probing, backward-shift deletion)
    # against a dict, small enough that probes collide and wrap around the end
    table = np.full(2 * cap, -1, dtype=np.int64)
    reference: dict[int, int] = {}
    for step, (drop, key) in enumerate(ops):
        if drop and key in reference:
            _hierarchy_kernels._cell_drop(table, key)
            del reference[key]
        elif not drop and (key in reference or len(reference) < cap - 1):
            want = reference.setdefault(key, step)
            got = _hierarchy_kernels._cell_claim(table, key, step)
            assert got == (-1 if want == step else want)
        keys = table[0::2]
        stored = {int(k): int(v) for k, v in zip(keys, table[1::2], strict=True) if k != -1}
        assert stored == reference
        for k, v in reference.items():  # every key is found from its home slot
            assert _hierarchy_kernels._cell_claim(table, k, -5) == v


# ----------------------------------------------------------- all levels in one call
def levels_of(tables: list) -> _Levels:
    """Many tables of one truth (same class sizes) as score_hierarchy hands them to the
    score functions: arrays of their statistics, the pair counts rounded to float64."""
    pairs = [_pairs(t) for t in tables]
    infos = [_info(t) for t in tables]
    n = tables[0].n_samples
    dtype = np.float64 if math.comb(n, 2) < hierarchy_module._FLOAT_EXACT else object
    return _Levels(n, tables[0].n_classes,
                   np.array([t.n_clusters for t in tables]), np.array([t.nnz for t in tables]),
                   PairCounts(*(np.array([p[i] for p in pairs], dtype=dtype)
                                for i in range(4))),
                   (np.array([i[0] for i in infos]), infos[0][1],
                    np.array([i[2] for i in infos])))


@st.composite
def tables_of_one_truth(draw):
    """Up to 8 tables sharing their class sizes: each class split at random over up to 5
    clusters (empty clusters dropped); counts small (every 0/0 case), large (pair
    counts up to 2^53, products of them beyond: float64) or huge (N up to 2^32, pair
    counts beyond 2^53: Python ints)."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32)))
    top = draw(st.sampled_from([5, 2**24, 2**30]))
    sizes = rng.integers(1, top, draw(st.integers(1, 4)), endpoint=True)
    tables = []
    for _ in range(draw(st.integers(1, 8))):
        n_clusters = draw(st.integers(1, 5))
        weights = rng.random((sizes.shape[0], n_clusters)) * (rng.random(n_clusters) < 0.8)
        weights[:, 0] += 1e-9  # every class lands somewhere
        rows = [rng.multinomial(a, w / w.sum()) for a, w in zip(sizes, weights, strict=True)]
        tables.append(cm.Contingency.from_matrix(np.array(rows)))
    return tables


@settings(max_examples=80, deadline=None)
@given(tables_of_one_truth())
def test_every_updatable_score_runs_on_arrays_as_on_each_table(tables):
    # registry-wide: each updatable score's one function, called once on the arrays of
    # many tables' statistics, equals calling it on each table (exact ints there), also
    # at large and huge pair counts; and none falls back to the level-by-level loop
    # where the counts are float64
    levels = levels_of(tables)
    exact_ints = levels._pairs.tp.dtype == object
    one = hierarchy_module._Level(levels.n_samples, levels.n_classes, 0, 0, None, None)
    each = (levels.n_clusters.tolist(), levels.nnz.tolist(),
            list(map(PairCounts._make, zip(*levels._pairs, strict=True))),
            list(zip(levels._info[0].tolist(), [levels._info[1]] * len(tables),
                     levels._info[2].tolist(), strict=True)))
    for key in UPDATABLE:
        by_level = hierarchy_module._values(METRICS[key], one, *each)
        # Python ints (pair counts past 2^53) go level by level: numpy raises at their 0/0
        arrays = None if exact_ints and "pairs" in METRICS[key].spec.reads \
            else METRICS[key].compute_many(levels)
        for i, table in enumerate(tables):
            want = METRICS[key].compute(table)[0]
            for got in (by_level, arrays):
                if got is not None:
                    assert math.isclose(got[i], want, rel_tol=1e-12, abs_tol=1e-12), \
                        (key, got[i], want)


@settings(max_examples=15, deadline=None)
@given(trees(max_n=30))
def test_level_by_level_equals_all_at_once(case):
    # pair counts as Python ints (as past 2^53) take the loop that calls a score on one
    # level at a time: the same values as the arrays of float64 counts
    children, truth = case
    fast = cm.score_hierarchy(truth, children, UPDATABLE)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(hierarchy_module, "_FLOAT_EXACT", 1)
        slow = cm.score_hierarchy(truth, children, UPDATABLE)
    for key in UPDATABLE:
        np.testing.assert_allclose(fast.values[key], slow.values[key], rtol=0, atol=1e-12)


def test_trees_beyond_int64_pair_counts_are_refused(monkeypatch):
    # pair counts are int64 in the merge loop: exact while C(N, 2) < 2^63, i.e. N <= 2^32
    assert math.comb(2**32, 2) < 2**63 <= math.comb(2**32 + 1, 2)
    assert hierarchy_module._MAX_POINTS == 2**32
    monkeypatch.setattr(hierarchy_module, "_MAX_POINTS", 4)
    Z = linkage(np.arange(5.0)[:, None], "single")
    with pytest.raises(ValueError, match="at most 2\\*\\*32 points"):
        cm.score_hierarchy([0, 0, 1, 1, 1], Z, ["ari"])
    four = cm.score_hierarchy([0, 0, 1, 1], linkage(np.arange(4.0)[:, None], "single"))
    assert four.n_clusters.tolist() == [1, 2, 3, 4]  # at the limit: scored


@pytest.mark.parametrize("finite_default", [None, 0.25])
def test_all_at_once_follows_the_one_table_zero_division_rules(finite_default):
    # a made-up score with two overlapping 0/0 cases and one of the whole table: on
    # arrays, the first case met wins (as the first raise on one table) and the
    # default zero-division value replaces conventions, exactly as level by level
    def body(table):
        k = table.n_clusters
        undefined_where(table, table.n_samples == 7, -1.0, "whole table")
        undefined_where(table, k % 2 == 0, select(k > 4, 2.0, 3.0), "even")
        undefined_where(table, k % 3 == 0, 5.0, "multiple of three")
        return k / 100

    spec = SimpleNamespace(body=body, finite_default=finite_default)
    entry = SimpleNamespace(spec=spec, options={}, lower=-math.inf, upper=math.inf)
    ks = np.arange(1, 13)
    for n in (12, 7):
        one = hierarchy_module._Level(n, 2, 0, 0, None, None)
        want = [hierarchy_module._value(entry, hierarchy_module._Level(n, 2, k, 0, None, None))
                for k in ks.tolist()]
        assert hierarchy_module._values(entry, one, ks.tolist(), ks.tolist(), [None] * 12,
                                        [None] * 12).tolist() == want
        got = MetricInfo.compute_many(entry, _Levels(n, 2, ks, ks, None, None))
        assert got.tolist() == want


# ------------------------------------------------------------------ information precision
# every updatable score that reads (MI, H(truth), H(prediction))
INFORMATION = [key for key, reads in hierarchy_module._updatable().items()
               if "information" in reads]


def skewed_truth(n: int, outliers: list[int], n_classes: int) -> np.ndarray:
    """All points of class 0 but a few outliers (tiny H(truth): scores divided by it)."""
    truth = np.zeros(n, dtype=np.int64)
    for i, p in enumerate(outliers):
        truth[p % n] = 1 + i % n_classes
    return truth


def random_tree(n: int, rng: np.random.Generator) -> np.ndarray:
    nodes, children = list(rng.permutation(n)), []
    for m in range(n - 1):
        i, j = sorted(rng.choice(len(nodes), 2, replace=False).tolist())
        b, a = nodes.pop(j), nodes.pop(i)
        nodes.append(n + m)
        children.append((a, b))
    return np.array(children, dtype=np.int64).reshape(-1, 2)


def balanced_tree(n: int) -> np.ndarray:
    nodes, children, nxt = list(range(n)), [], n
    while len(nodes) > 1:
        pairs = [(nodes[i], nodes[i + 1]) for i in range(0, len(nodes) - 1, 2)]
        children += pairs
        nodes = list(range(nxt, nxt + len(pairs))) + nodes[2 * len(pairs):]
        nxt += len(pairs)
    return np.array(children, dtype=np.int64).reshape(-1, 2)


def assert_relative(result, truth, ks, keys, rel=1e-12):
    """Every information score within ``rel`` of its own value from scratch (evaluate)."""
    for k in ks:
        want = cm.evaluate(truth, result.labels(k), keys)
        i = int(np.searchsorted(result.n_clusters, k))
        for key in keys:
            got = result.values[key][i]
            assert abs(got - want[key]) <= rel * abs(want[key]), (key, k, got, want[key])


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 400), st.lists(st.integers(0, 10**6), min_size=1, max_size=3),
       st.integers(1, 3), st.sampled_from(["random", "balanced", "chain"]),
       st.integers(0, 2**32 - 1))
def test_information_scores_with_tiny_entropies_match_evaluate_relatively(
        n, outliers, n_classes, shape, seed):
    truth = skewed_truth(n, outliers, n_classes)
    children = {"random": lambda: random_tree(n, np.random.default_rng(seed)),
                "balanced": lambda: balanced_tree(n),
                "chain": lambda: np.array([(0, 1)] + [(i + 1, n + i - 1) for i in range(1, n - 1)],
                                          dtype=np.int64).reshape(-1, 2)}[shape]()
    result = cm.score_hierarchy(truth, children, INFORMATION)
    assert_relative(result, truth, range(1, n + 1), INFORMATION)


@pytest.mark.parametrize("n, shape", [(30_000, "balanced"), (30_000, "random")])
def test_information_scores_of_large_trees_with_one_outlier(n, shape):
    truth = skewed_truth(n, [0], 1)
    children = balanced_tree(n) if shape == "balanced" else random_tree(
        n, np.random.default_rng(n))
    result = cm.score_hierarchy(truth, children, INFORMATION)
    assert_relative(result, truth, [2, 3, 17, n // 100, n // 2, n - 1, n], INFORMATION)
    if shape == "balanced":  # the outlier's pair is the only mixed column at both cuts
        for key in ("homogeneity", "nmi_min", "mi"):
            if key in INFORMATION:
                assert result.values[key][n // 2 - 1] == result.values[key][n - 2], key


# ------------------------------------------------------------------ arguments and results
@settings(max_examples=20, deadline=None)
@given(trees(max_n=12))
def test_results_compare_equal_field_by_field(case):
    children, truth = case
    keys = ["ari", "nmi", "ami"]
    a = cm.score_hierarchy(truth, children, keys, k=1)
    b = cm.score_hierarchy(truth, children, keys, k=1)
    assert a == b and not a != b  # NaN (cut-only scores elsewhere) equal to NaN
    assert a != cm.score_hierarchy(truth, children, keys[:2], k=1)
    assert a != "a result"
    assert a.frame is a.frame  # built once


@settings(max_examples=20, deadline=None)
@given(trees(max_n=12), st.data())
def test_whole_float_cuts_are_their_ints(case, data):
    children, truth = case
    n = len(truth)
    cuts = data.draw(st.lists(st.integers(1, n), min_size=1, max_size=3, unique=True))
    as_ints = cm.score_hierarchy(truth, children, ["ari", "ami"], cuts, k=cuts)
    as_floats = cm.score_hierarchy(truth, children, ["ari", "ami"],
                                   [float(c) for c in cuts], k=[float(c) for c in cuts])
    assert as_ints == as_floats
    assert as_ints.labels(float(cuts[0])).tolist() == as_ints.labels(cuts[0]).tolist()
    for bad in (cuts[0] + 0.5, math.nan, math.inf, True):
        for name in ("n_clusters", "k"):
            with pytest.raises(ValueError, match=f"{name} must hold whole numbers"):
                cm.score_hierarchy(truth, children, ["ari"], **{name: [bad]})


@pytest.mark.parametrize("metrics", [5, 2.5, b"ari", {"pair_f1": {"beta": 2}}, {"ari": None}])
@pytest.mark.parametrize("func", ["score_hierarchy", "evaluate"])
def test_metrics_of_the_wrong_type_name_the_parameter(metrics, func):
    truth, pred = [0, 0, 1, 1], [0, 1, 1, 1]
    args = (truth, np.array([[0, 1], [2, 3], [4, 5]])) if func == "score_hierarchy" else \
        (truth, pred)
    with pytest.raises(TypeError, match="^metrics "):
        getattr(cm, func)(*args, metrics)


def test_estimators_without_a_tree_are_named():
    from sklearn.cluster import KMeans

    X = np.arange(8.0).reshape(4, 2)
    for tree in (sklearn_cluster.AgglomerativeClustering(), KMeans(2, n_init=1).fit(X)):
        with pytest.raises(ValueError, match=rf"tree \({type(tree).__name__}\) has no "
                                             "children_: it is not fitted"):
            cm.score_hierarchy([0, 0, 1, 1], tree)


@settings(max_examples=30, deadline=None)
@given(trees(max_n=12), st.data())
def test_linkage_sizes_must_match_the_merges(case, data):
    children, truth = case
    n = len(truth)
    Z = as_form(children, "linkage", np.arange(n - 1, dtype=np.float64))
    assert cm.score_hierarchy(truth, Z, ["ari"]).n_clusters.shape == (n,)
    if n < 2:
        return
    row = data.draw(st.integers(0, n - 2))
    bad = Z.copy()
    bad[row, 3] = data.draw(st.sampled_from([math.nan, Z[row, 3] - 1, Z[row, 3] + 0.5]))
    if 0 < bad[row, 3] <= n or math.isnan(bad[row, 3]):  # else scipy's own check says it
        with pytest.raises(ValueError, match=f"merge {row} forms a cluster of"):
            cm.score_hierarchy(truth, bad, ["ari"])
    else:
        with pytest.raises(ValueError):
            cm.score_hierarchy(truth, bad, ["ari"])


@pytest.mark.parametrize("children", [[[0.0, 1e300]], [[0.0, -1e300]], [[0.0, 2.0**63]],
                                      [[1e18, 0.0]]])
def test_huge_float_node_ids_are_refused_without_a_warning(children):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="before it is formed"):
            cm.score_hierarchy([0, 1], children)


@pytest.mark.parametrize("tree", [[], np.empty(0), np.empty((0, 2)), np.empty((0, 4))])
def test_the_tree_of_one_point_may_be_empty(tree):
    result = cm.score_hierarchy(["a"], tree, ["ari", "nmi"])
    assert result.n_clusters.tolist() == [1]
