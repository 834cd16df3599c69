"""Element-centric similarity against a direct per-element computation (affinity rows and
their L1 distance, O(N^2)), against clusim's element_sim (personalised PageRank) on small
inputs for two restart parameters, and on limiting cases."""

import numpy as np
import pytest

from clustermetrics.scores.element_centric import element_centric_similarity_score as ecs


def _affinity(labels):
    """Row u: the affinity distribution of item u for a flat partition, uniform over the
    members of u's cluster (Gates et al. 2019; clusim's element_sim gives the same for every
    restart parameter, checked below)."""
    labels = np.asarray(labels)
    same = (labels[:, None] == labels[None, :]).astype(float)
    return same / same.sum(axis=1, keepdims=True)


def _direct(t, p):
    """Mean over items of 1 - L1/2 between the two affinity rows: O(N^2), no closed form."""
    a1, a2 = _affinity(t), _affinity(p)
    return float(np.mean(1 - 0.5 * np.abs(a1 - a2).sum(axis=1)))


def _cases(count, seed, n_max=25):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        n = int(rng.integers(1, n_max))
        t = rng.integers(0, int(rng.integers(1, 6)), n)
        yield t, np.where(rng.random(n) < rng.random(), t, rng.integers(0, 6, n))


def test_against_direct_per_element_affinities():
    for t, p in _cases(100, seed=1):
        assert ecs(t, p) == pytest.approx(_direct(t, p), abs=1e-12)


def test_against_clusim_element_sim():
    import clusim.sim as sim
    from clusim.clustering import Clustering

    def clu(labels):
        return Clustering(elm2clu_dict={i: [int(v)] for i, v in enumerate(labels)})

    for t, p in _cases(25, seed=2):
        if len(t) < 2:
            continue
        c1, c2 = clu(t), clu(p)
        assert ecs(t, p) == pytest.approx(sim.element_sim(c1, c2), abs=1e-12)
        assert ecs(t, p) == pytest.approx(sim.element_sim(c1, c2, alpha=0.5), abs=1e-12)


def test_limiting_cases():
    n = 12
    t = np.repeat(np.arange(3), 4)
    assert ecs(t, t[::-1] + 7) == 1.0
    # one cluster vs classes of 4: every item keeps 4 of max(4, 12)
    assert ecs(t, np.zeros(n)) == pytest.approx(4 / 12)
    # all singletons: 1 / 4 each
    assert ecs(t, np.arange(n)) == pytest.approx(1 / 4)
    assert ecs(t, np.arange(n)) == ecs(np.arange(n), t)
