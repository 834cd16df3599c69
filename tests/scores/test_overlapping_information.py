"""Overlapping NMI against its definition (a pure-Python visit of every pair of
communities), a peer's printed values, and its conventions (item sets, 0/0 cases)."""

from __future__ import annotations

import numpy as np
import pytest
from cover_reference import onmi
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import clustermetrics as cm
from clustermetrics import Cover, CoverPair

VARIANTS = ("max", "lfk", "sum")


@st.composite
def covers(draw, n_max: int = 9):
    """Covers of up to n_max items: singletons, one community of every item, repeated
    communities and items of several communities all occur."""
    n = draw(st.integers(1, n_max))
    universe = list(range(n))
    community = st.one_of(st.just(frozenset(universe)),
                          st.frozensets(st.sampled_from(universe), min_size=1))
    return draw(st.lists(community, min_size=1, max_size=5))


@pytest.mark.parametrize("variant", VARIANTS)
@settings(max_examples=150, deadline=None)
@given(t=covers(), p=covers())
def test_equals_its_definition_on_generated_covers(variant, t, p):
    assume(set().union(*t) & set().union(*p))  # else refused: no item in common
    got = cm.overlapping_nmi_score(t, p, variant=variant)
    assert got == pytest.approx(onmi(t, p, variant), abs=1e-12)
    assert 0.0 <= got <= 1.0 + 1e-12


@st.composite
def large_and_small(draw):
    """Covers of 30 to 40 items mixing large runs of items and communities of one to
    three: a disjoint pair passes LFK's constraint only when one is large and the other
    small."""
    n = draw(st.integers(30, 40))
    small = st.frozensets(st.integers(0, n - 1), min_size=1, max_size=3)
    large = st.integers(0, n // 3).flatmap(
        lambda start: st.integers(n // 2, n - start).map(
            lambda size: frozenset(range(start, start + size))))
    return draw(st.lists(st.one_of(small, large), min_size=1, max_size=5))


@pytest.mark.parametrize("variant", VARIANTS)
@settings(max_examples=150, deadline=None)
@given(t=large_and_small(), p=large_and_small())
def test_every_community_as_candidate_equals_the_literal_definition(variant, t, p):
    assume(set().union(*t) & set().union(*p))  # else refused: no item in common
    got = cm.overlapping_nmi_score(t, p, variant=variant, candidates="all")
    assert got == pytest.approx(onmi(t, p, variant, disjoint=True), abs=1e-12)


def test_disjoint_candidates_of_one_size_are_blocked_only_when_all_overlap():
    """X = {0..26} of 40 items: two one-item communities, {27} disjoint and {0}
    overlapping; the disjoint one explains X, whichever order they come in."""
    truth = [list(range(27)), list(range(27, 40))]
    for pred in ([[0], [27], list(range(28, 40))], [[27], [0], list(range(28, 40))]):
        got = cm.overlapping_nmi_score(truth, pred, candidates="all")
        sets = [set(c) for c in truth], [set(c) for c in pred]
        assert got == pytest.approx(onmi(*sets, "max", disjoint=True), abs=1e-12)
        assert got != pytest.approx(onmi(*sets, "max"), abs=1e-6)


@pytest.mark.parametrize("variant", VARIANTS)
@settings(max_examples=60, deadline=None)
@given(t=covers(), p=covers())
def test_an_explicit_item_set_is_the_n_of_the_definition(variant, t, p):
    union = set().union(*t, *p)
    items = sorted(union) + [100, 101]  # two items of no community
    got = cm.overlapping_nmi_score(t, p, variant=variant, items=items)
    assert got == pytest.approx(onmi(t, p, variant, n=len(items)), abs=1e-12)


@pytest.mark.parametrize("variant", VARIANTS)
@settings(max_examples=60, deadline=None)
@given(labels=st.lists(st.integers(0, 3), min_size=1, max_size=12),
       other=st.lists(st.integers(0, 3), min_size=12, max_size=12))
def test_a_partition_given_as_labels_is_the_cover_of_its_classes(variant, labels, other):
    other = other[:len(labels)]
    as_sets = [[{i for i, v in enumerate(x) if v == k} for k in sorted(set(x))]
               for x in (labels, other)]
    got = cm.overlapping_nmi_score(Cover.from_labels(labels), Cover.from_labels(other),
                                   variant=variant)
    assert got == pytest.approx(onmi(*as_sets, variant), abs=1e-12)


# Printed by cdlib 0.4.1's onmi (cdlib.evaluation.internal.onmi, variant "MGH" and
# "LFK"), whose documentation states it is checked against McDaid's C++ onmi; these
# covers have no community of every item and no two identical covers, where cdlib's
# conventions differ (docs/peers.md).
PEER_VALUES = [
    ([[1, 2, 3, 4, 5], [4, 5, 6, 7, 8], [9, 10, 11, 12]],
     [[1, 2, 3, 4], [5, 6, 7, 8, 9], [10, 11, 12], [3, 4, 5]],
     {"max": 0.48161306715015745, "lfk": 0.5326405068995387}),
    ([["a", "b", "c"], ["c", "d", "e", "f"], ["g", "h"]],
     [["a", "b"], ["c", "d", "e"], ["f", "g", "h"], ["b", "c"]],
     {"max": 0.4859478169749932, "lfk": 0.5458313613874759}),
]


@pytest.mark.parametrize(("t", "p", "values"), PEER_VALUES)
def test_equals_the_values_cdlib_prints(t, p, values):
    for variant, value in values.items():
        assert cm.overlapping_nmi_score(t, p, variant=variant) == pytest.approx(value,
                                                                               abs=1e-12)


def test_only_overlapping_communities_explain_each_other_by_default():
    """McDaid's onmi visits overlapping pairs only: two covers sharing no item share no
    information. A disjoint community passing LFK's constraint (a large X, a single-item
    Y) explains X under the literal reading, ``candidates="all"``, whose values cdlib
    0.4.1's onmi prints here (variants "MGH" and "LFK")."""
    truth, pred = [list(range(27))], [[27], list(range(28, 40))]
    every = list(range(40))  # covers sharing no item are compared on the items named
    for variant in VARIANTS:
        assert cm.overlapping_nmi_score(truth, pred, variant=variant, items=every) == 0.0
    assert onmi([set(c) for c in truth], [set(c) for c in pred], "max") == 0.0
    literal = {"max": 0.039532073855624524, "lfk": 0.08433652368366817}
    for variant, value in literal.items():
        assert cm.overlapping_nmi_score(truth, pred, variant=variant, candidates="all",
                                        items=every) \
            == pytest.approx(value, abs=1e-12)


def test_the_zero_over_zero_cases_follow_onmi():
    everything = [[1, 2, 3]]
    # every community of both covers holds every item: max and sum agree (1.0); LFK's
    # ratio of such a community counts 1, as in onmi and LFK's program
    assert cm.overlapping_nmi_score(everything, everything, variant="max") == 1.0
    assert cm.overlapping_nmi_score(everything, everything, variant="sum") == 1.0
    assert cm.overlapping_nmi_score(everything, everything, variant="lfk") == 0.0
    # one of two identical communities holds every item: LFK averages 1 and 0 per side
    same = [[1, 2, 3], [1, 2]]
    assert cm.overlapping_nmi_score(same, same, variant="lfk") == 0.5
    assert cm.overlapping_nmi_score(same, same, variant="max") == 1.0
    # one cover all-items, the other informative: no information is shared
    assert cm.overlapping_nmi_score(everything, [[1], [2, 3]], variant="max") == 0.0


@pytest.mark.parametrize("variant", VARIANTS)
def test_items_true_leaves_out_the_predictions_other_items(variant):
    truth, pred = [[1, 2], [3, 4]], [[1, 2], [3, 4, 5, 6]]
    got = cm.overlapping_nmi_score(truth, pred, variant=variant, items="true")
    assert got == cm.overlapping_nmi_score(truth, [[1, 2], [3, 4]], variant=variant) == 1.0


def test_a_pair_built_once_scores_as_its_covers():
    rng = np.random.default_rng(3)
    t = [rng.choice(50, 8, replace=False).tolist() for _ in range(6)]
    p = [rng.choice(50, 8, replace=False).tolist() for _ in range(7)]
    pair = CoverPair(Cover.from_communities(t), Cover.from_communities(p))
    for variant in VARIANTS:
        assert cm.overlapping_nmi_score(pair, variant=variant) == \
            cm.overlapping_nmi_score(t, p, variant=variant)


def test_an_unknown_variant_or_candidate_set_is_refused_by_name():
    with pytest.raises(ValueError, match="unknown variant 'mgh'"):
        cm.overlapping_nmi_score([[1]], [[1]], variant="mgh")
    with pytest.raises(ValueError, match="unknown candidates 'some'"):
        cm.overlapping_nmi_score([[1]], [[1]], candidates="some")


def test_large_covers_take_the_sparse_path():
    """10^5 items, 10^4 communities a side: only the overlapping pairs are visited."""
    rng = np.random.default_rng(0)
    n, k = 10**5, 10**4
    labels = rng.integers(0, k, n)
    noisy = np.where(rng.random(n) < 0.1, rng.integers(0, k, n), labels)
    value = cm.overlapping_nmi_score(Cover.from_labels(labels), Cover.from_labels(noisy))
    assert 0.5 < value < 1.0
