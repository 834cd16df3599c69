"""score_hierarchy: every level equals scoring that cut from scratch.

The reference cuts are independent of the library: a union-find over the first N - k
merges, and scipy's fcluster(maxclust) where heights are distinct; each cut is scored from
scratch by the registry on its own table.
"""

from __future__ import annotations

import math

import genieclust
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.cluster.hierarchy import fcluster, linkage
from sklearn import cluster as sklearn_cluster
from sklearn.neighbors import kneighbors_graph

import clustermetrics as cm
from clustermetrics import _hierarchy_kernels, _kernels
from clustermetrics import hierarchy as hierarchy_module
from clustermetrics.hierarchy import _level_stats, as_merges, cut_labels
from clustermetrics.registry import METRICS

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


@settings(max_examples=40, deadline=None)
@given(trees())
def test_every_level_equals_scoring_the_cut_from_scratch(case):
    children, truth = case
    result = cm.score_hierarchy(truth, children, UPDATABLE)
    assert result.n_clusters.tolist() == list(range(1, len(truth) + 1))
    assert_levels_match(result, truth, children, UPDATABLE)


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
    assert result.best["ari"] == cm.hierarchy.BestCut(3, 1.0)


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
    updatable["mari"] = (True, False)
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
