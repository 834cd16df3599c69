"""F1 and NF1 of matched communities against their definition in Fractions (every pair
of communities visited), and the conventions the authors' program leaves open."""

from __future__ import annotations

import pytest
from cover_reference import community_f1, nf1
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import clustermetrics as cm
from clustermetrics import Cover

COMMUNITY = st.frozensets(st.integers(0, 9), min_size=1, max_size=7)
COVER = st.lists(COMMUNITY, min_size=1, max_size=5)


@settings(max_examples=200, deadline=None)
@given(COVER, COVER)
def test_f1_and_nf1_equal_their_definition(t, p):
    assume(set().union(*t) & set().union(*p))  # else refused: no item in common
    assert cm.community_f1_score(t, p) == pytest.approx(float(community_f1(t, p)),
                                                        rel=1e-15, abs=1e-15)
    assert cm.nf1_score(t, p) == pytest.approx(float(nf1(t, p)), rel=1e-15, abs=1e-15)


def test_the_published_components_multiply():
    """NF1 = F1 x coverage / redundancy (Rossetti et al. 2016, Section 3): two predicted
    communities match the first true one, none the second."""
    truth, pred = [[1, 2, 3, 4], [5, 6, 7, 8]], [[1, 2, 3], [2, 3, 4]]
    f1 = 6 / 7  # each: 2 * 3 / (4 + 3)
    assert cm.community_f1_score(truth, pred) == pytest.approx(f1, abs=1e-15)
    assert cm.nf1_score(truth, pred) == pytest.approx(f1 * (1 / 2) / (2 / 1), abs=1e-15)


def test_a_community_tied_between_true_ones_matches_each():
    """As the authors' nf1 program: each true community tied at the largest overlap is a
    match (so NF1 exceeds 1 here: redundancy 1/2)."""
    truth, pred = [[1], [2]], [[1, 2]]
    assert cm.community_f1_score(truth, pred) == pytest.approx(2 / 3, abs=1e-15)
    assert cm.nf1_score(truth, pred) == pytest.approx(4 / 3, abs=1e-15)


def test_a_prediction_sharing_no_item_scores_zero_and_counts():
    truth, pred = [[1, 2]], [[1, 2], [3, 4]]
    assert cm.community_f1_score(truth, pred) == 0.5
    assert cm.nf1_score(truth, pred) == 0.25
    assert cm.nf1_score([[1, 2]], [[3, 4]], items=[1, 2, 3, 4]) == 0.0


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=1, max_size=15))
def test_identical_partitions_score_one(labels):
    cover = Cover.from_labels(labels)
    assert cm.community_f1_score(cover, cover) == 1.0
    assert cm.nf1_score(cover, cover) == 1.0
