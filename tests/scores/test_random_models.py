"""ARI and AMI under the one-sided random models of Gates & Ahn (2017): the prediction
uniform over the partitions with its number of clusters ("num") or over all partitions
("all"), the truth fixed. References: enumeration of every set partition (N <= 7, exact
Fractions for the Rand index), clusim (a peer, mpmath), and known Stirling / Bell values."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import clustermetrics as cm
from clustermetrics.scores import _random_models as rm
from clustermetrics.scores.information import expected_mi_random


def set_partitions(n):
    """Every partition of range(n) as a restricted growth string."""
    def rec(prefix, top):
        if len(prefix) == n:
            yield tuple(prefix)
            return
        for v in range(top + 2):
            yield from rec(prefix + [v], max(top, v))
    if n == 0:
        yield ()
        return
    yield from rec([0], 0)


def rand_fraction(truth, pred) -> Fraction:
    n = len(truth)
    agree = sum((truth[i] == truth[j]) == (pred[i] == pred[j])
                for i in range(n) for j in range(i + 1, n))
    return Fraction(agree, n * (n - 1) // 2)


def test_stirling_and_bell_known_values():
    assert rm.stirling2(10, 3) == 9330 and rm.stirling2(7, 7) == 1 and rm.stirling2(5, 0) == 0
    assert rm.bell_numbers(10)[-1] == 115975
    assert [rm.stirling2(8, k) for k in range(9)] == list(rm._stirling_column(8, 0)[8:]) + \
        [rm._stirling_column(8, k)[8] for k in range(1, 9)]
    assert sum(rm.stirling2(12, k) for k in range(13)) == rm.bell_numbers(12)[12]


CASES = [
    ([0, 0, 0, 1, 1, 1, 2], [0, 0, 1, 1, 1, 2, 2]),
    ([0, 0, 1, 1, 2, 2, 2], [0, 1, 0, 1, 0, 1, 0]),
    ([0, 0, 0, 0, 1, 1], [0, 0, 0, 0, 0, 1]),
    ([0, 1, 2, 3, 4, 5], [0, 0, 1, 1, 2, 2]),
]


@pytest.mark.parametrize("truth, pred", CASES)
@pytest.mark.parametrize("model", ["num", "all"])
def test_expectations_equal_enumeration_of_partitions(truth, pred, model):
    n, k = len(truth), len(set(pred))
    parts = [p for p in set_partitions(n) if model == "all" or len(set(p)) == k]
    expected_ri = sum(rand_fraction(truth, p) for p in parts) / len(parts)
    ri = rand_fraction(truth, pred)
    if expected_ri != 1:
        want = float((ri - expected_ri) / (1 - expected_ri))
        assert cm.adjusted_rand_score(truth, pred, random_model=model) == want
    emi = math.fsum(cm.mutual_info_score(truth, p) for p in parts) / len(parts)
    table = cm.Contingency.from_labels(truth, pred)
    assert expected_mi_random(table, model) == pytest.approx(emi, rel=1e-12, abs=1e-15)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=2, max_size=40), st.data())
def test_against_clusim(truth, data):
    import clusim.sim as sim
    from clusim.clustering import Clustering

    pred = data.draw(st.lists(st.integers(0, 4), min_size=len(truth), max_size=len(truth)))

    def clu(x):
        return Clustering(elm2clu_dict={i: [int(v)] for i, v in enumerate(x)})

    table = cm.Contingency.from_labels(truth, pred)
    _, fn, fp, _ = cm.pair_counts(truth, pred)
    for model in ("perm", "num", "all"):
        # clusim: the second clustering is the fixed reference of the one-sided models
        peer = sim.adjrand_index(clu(pred), clu(truth), random_model=model + "1"
                                 if model != "perm" else "perm")
        ours = cm.adjusted_rand_score(truth, pred, random_model=model)
        if fn == fp == 0:  # agreement on every pair: 1.0 (scikit-learn); clusim 0.0 at 0/0
            assert ours == 1.0
        else:
            assert ours == pytest.approx(peer, rel=1e-9, abs=1e-12), model
        if model != "perm":
            peer_emi = float(sim.expected_mi(
                n_elements=len(truth), n_clusters1=table.n_clusters,
                clu_size_seq2=table.class_sizes.tolist(), random_model=model + "1",
                logbase=math.e))
            assert expected_mi_random(table, model) == pytest.approx(peer_emi, rel=1e-9,
                                                                     abs=1e-12)


def test_perm_is_the_default_and_unchanged():
    rng = np.random.default_rng(1)
    t, p = rng.integers(0, 5, 200), rng.integers(0, 6, 200)
    assert cm.adjusted_rand_score(t, p, random_model="perm") == cm.adjusted_rand_score(t, p)
    assert cm.adjusted_mutual_info_score(t, p, random_model="perm") == \
        cm.adjusted_mutual_info_score(t, p)


def test_identical_and_degenerate():
    t = [0, 0, 1, 1, 2, 2]
    for model in ("num", "all"):
        assert cm.adjusted_rand_score(t, t, random_model=model) == 1.0
        assert cm.adjusted_rand_score([0], [0], random_model=model) == 1.0
    assert cm.adjusted_mutual_info_score(t, [0] * 6, random_model="num") == 0.0
    # truth one cluster, prediction K = 1 under "num": every random clustering agrees
    assert cm.adjusted_rand_score([0, 0, 0], [1, 1, 1], random_model="num") == 1.0


def test_limits_are_refused_clearly():
    big = np.arange(3000) % 7
    with pytest.raises(ValueError, match="random_model='all' is computed exactly up to N"):
        cm.adjusted_rand_score(big, np.arange(3000) % 5, random_model="all")
    with pytest.raises(ValueError, match="random_model='num'.*N = 100,000, K = 5"):
        cm.adjusted_mutual_info_score(np.arange(100_000) % 3, np.arange(100_000) % 5,
                                      random_model="num")
    with pytest.raises(ValueError, match="random_model must be one of"):
        cm.adjusted_rand_score([0, 1], [0, 1], random_model="binomial")
    # the permutation model has no such limit
    assert cm.adjusted_rand_score(big, big, random_model="perm") == 1.0
