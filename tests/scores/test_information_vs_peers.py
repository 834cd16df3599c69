"""Information scores against entropies computed directly from the labels (joint
counts by dictionary, natural logs), scikit-learn's NMI/AMI variants, scipy's chi-square
test statistic, and clusim's VI and NMI variants."""

import math
from collections import Counter

import numpy as np
import pytest
from scipy.stats import chi2_contingency
from sklearn import metrics as skm

from clustermetrics.scores import information as ie


def _h(counter, n):
    return -sum(c / n * math.log(c / n) for c in counter.values())


def _direct(t, p):
    n = len(t)
    ht, hp = _h(Counter(t), n), _h(Counter(p), n)
    hj = _h(Counter(zip(t, p, strict=True)), n)
    return ht, hp, hj, ht + hp - hj


def _cases(count, seed, n_max=120):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        n = int(rng.integers(2, n_max))
        t = rng.integers(0, int(rng.integers(1, 8)), n)
        p = np.where(rng.random(n) < rng.random(), t, rng.integers(0, int(rng.integers(1, 8)), n))
        yield t.tolist(), p.tolist()


def test_vi_nvi_nid_nmi_joint_from_direct_entropies():
    for t, p in _cases(200, seed=1):
        ht, hp, hj, mi = _direct(t, p)
        assert ie.variation_of_information_distance(t, p) == \
            pytest.approx(2 * hj - ht - hp, abs=1e-12)
        if hj > 0:
            assert ie.normalized_variation_of_information_distance(t, p) == pytest.approx(
                1 - mi / hj, abs=1e-12)
            assert ie.normalized_mutual_info_score(t, p, average_method="joint") == \
                pytest.approx(mi / hj, abs=1e-12)
        if max(ht, hp) > 0:
            assert ie.normalized_information_distance(t, p) == pytest.approx(
                1 - mi / max(ht, hp), abs=1e-12)


def test_identical_and_single_cluster_conventions():
    t = [3, 3, 1, 1, 2]
    p = ["a", "a", "b", "b", "c"]
    assert ie.variation_of_information_distance(t, p) == 0.0
    assert ie.normalized_variation_of_information_distance(t, p) == 0.0
    assert ie.normalized_information_distance(t, p) == 0.0
    assert ie.normalized_mutual_info_score(t, p, average_method="joint") == 1.0
    one = [0, 0, 0]
    assert ie.normalized_mutual_info_score(one, one, average_method="joint") == 1.0
    assert ie.normalized_variation_of_information_distance(one, one) == 0.0
    assert ie.normalized_variation_of_information_distance(one, [0, 1, 1]) == 1.0
    assert ie.normalized_mutual_info_score(one, [0, 1, 1], average_method="joint") == 0.0


@pytest.mark.parametrize("method", ["geometric", "min", "max"])
def test_nmi_and_ami_variants_match_scikit_learn(method):
    for t, p in _cases(40, seed=2):
        nmi = ie.normalized_mutual_info_score(t, p, average_method=method)
        ami = ie.adjusted_mutual_info_score(t, p, average_method=method)
        assert nmi == pytest.approx(
            skm.normalized_mutual_info_score(t, p, average_method=method), abs=1e-12)
        assert ami == pytest.approx(
            skm.adjusted_mutual_info_score(t, p, average_method=method), abs=1e-10)


def test_cluster_entropy_is_conditional_entropy_per_cluster():
    for t, p in _cases(150, seed=3):
        n = len(t)
        expected = 0.0
        for cluster, size in Counter(p).items():
            inside = Counter(ti for ti, pi in zip(t, p, strict=True) if pi == cluster)
            expected += size / n * _h(inside, size)
        assert ie.cluster_entropy_error(t, p) == pytest.approx(expected, abs=1e-12)
    assert ie.cluster_entropy_error([0, 0, 1, 1], [0, 0, 1, 2]) == 0.0  # pure clusters
    assert ie.cluster_entropy_error([0, 0, 1, 1], [0, 0, 0, 0]) == pytest.approx(math.log(2))


def test_chi2_matches_scipy():
    for t, p in _cases(100, seed=4):
        if len(set(t)) < 2 or len(set(p)) < 2:
            assert ie.chi2_score(t, p) == 0.0
            continue
        dense = skm.cluster.contingency_matrix(t, p)
        stat = chi2_contingency(dense, correction=False).statistic
        assert ie.chi2_score(t, p) == pytest.approx(stat, rel=1e-10, abs=1e-9)


def test_against_clusim_vi_and_nmi():
    import clusim.sim as sim
    from clusim.clustering import Clustering

    def clu(labels):
        return Clustering(elm2clu_dict={i: [int(v)] for i, v in enumerate(labels)})

    for t, p in _cases(30, seed=5):
        if len(set(t)) < 2 or len(set(p)) < 2:
            continue
        c1, c2 = clu(t), clu(p)
        # clusim works in bits
        assert ie.variation_of_information_distance(t, p) / math.log(2) == pytest.approx(
            sim.vi(c1, c2), abs=1e-10)
        assert ie.normalized_mutual_info_score(t, p, average_method="max") == \
            pytest.approx(sim.nmi(c1, c2, "max"), abs=1e-10)
        assert ie.normalized_mutual_info_score(t, p, average_method="min") == \
            pytest.approx(sim.nmi(c1, c2, "min"), abs=1e-10)
        assert ie.normalized_mutual_info_score(t, p, average_method="geometric") == \
            pytest.approx(sim.nmi(c1, c2, "sqrt"), abs=1e-10)
