"""Element-centric similarity of covers against the personalised PageRank solved exactly
over all items (Fractions) on generated covers and several restart parameters; on
partitions against the flat score for every alpha; and its checks of alpha."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.support import cover_pair_reference as ref
from tests.support.cover_pair_reference import cover, cover_sets, from_labels

import clustermetrics as cm
from clustermetrics.scores import cover_element_centric
from clustermetrics.scores.cover_element_centric import (
    element_centric_of_pair as ecs,
)

ALPHAS = st.sampled_from([Fraction(9, 10), Fraction(1, 2), Fraction(1, 10), Fraction(99, 100)])


@settings(max_examples=120, deadline=None)
@given(cover_sets(max_items=6), ALPHAS)
def test_equals_pagerank_over_all_items(sets, alpha):
    expected = ref.element_centric(*sets, alpha=alpha)
    assert ecs(cover(*sets), alpha=float(alpha)) == pytest.approx(float(expected), abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(cover_sets(max_items=6))
def test_small_chunks_change_nothing(sets):
    expected = ecs(cover(*sets))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(cover_element_centric, "_CHUNK_CELLS", 1)
        assert ecs(cover(*sets)) == pytest.approx(expected, abs=1e-14)


def test_reaches_beyond_co_members():
    """Items 0 and 2 share no community but meet through item 1: the affinity of a cover
    is not confined to co-members (Gates et al. 2019's walk), and the score differs from
    one built on co-members alone. 21/38 from the exact PageRank."""
    sets = ([{0}, {0, 1}, {1}, {1}], [{0}, {0}, {1}, {1}])
    assert ref.element_centric(*sets) == Fraction(21, 38)
    assert ecs(cover(*sets)) == pytest.approx(21 / 38, abs=1e-15)


def test_partitions_give_the_flat_score_for_every_alpha():
    rng = np.random.default_rng(5)
    for _ in range(150):
        n = int(rng.integers(1, 50))
        t = rng.integers(0, int(rng.integers(1, 7)), n)
        p = np.where(rng.random(n) < rng.random(), t, rng.integers(0, 7, n))
        flat = cm.element_centric_similarity_score(t, p)
        for alpha in (0.9, 0.3):
            assert ecs(from_labels(t, p), alpha=alpha) == pytest.approx(flat, abs=1e-12)


def test_item_in_no_community_is_its_own_singleton():
    with_none = cover([{0}, {0}, set()], [{0}, {0}, {0}])
    with_singleton = cover([{0}, {0}, {1}], [{0}, {0}, {0}])
    assert ecs(with_none) == pytest.approx(ecs(with_singleton), abs=1e-15)
    assert ecs(cover([set()] * 3, [set()] * 3)) == 1.0


@settings(max_examples=60, deadline=None)
@given(cover_sets())
def test_identical_covers_score_one(sets):
    assert ecs(cover(sets[0], sets[0])) == pytest.approx(1.0, abs=1e-14)


@pytest.mark.parametrize("alpha", [0, 1, 1.5, -0.1, True, "0.9", float("nan")])
def test_alpha_outside_the_open_unit_interval_is_refused(alpha):
    with pytest.raises(ValueError, match="alpha must be a number strictly between 0 and 1"):
        ecs(cover([{0}], [{0}]), alpha=alpha)


def test_long_solves_show_progress_chunk_by_chunk(monkeypatch):
    """Past the work threshold the solve reports each chunk of each component to a bar
    (shown on a terminal), and closes it."""
    calls = {"total": None, "enabled": None, "updates": 0, "closed": False}

    class Bar:
        def update(self, n):
            calls["updates"] += n

        def close(self):
            calls["closed"] = True

    def bar(total, desc, enabled=None):
        calls["total"], calls["enabled"] = total, enabled
        return Bar()

    monkeypatch.setattr(cover_element_centric, "_PROGRESS_WORK", 0)
    monkeypatch.setattr(cover_element_centric, "_CHUNK_CELLS", 4)
    monkeypatch.setattr(cover_element_centric, "progress_bar", bar)
    t = [[0, 1, 2], [2, 3, 4], [5, 6]]
    p = [[0, 1], [1, 2, 3, 4], [5], [6]]
    value = cm.cover_element_centric_similarity_score(t, p)
    assert calls["enabled"] is None and calls["closed"]
    assert calls["updates"] == calls["total"] > 2
    monkeypatch.undo()
    assert cm.cover_element_centric_similarity_score(t, p) == value
