"""Omega and extended B-cubed of covers against their definitions over every pair
(Fractions) on generated covers; on partitions against the crisp scores and scikit-learn;
their 0/0 conventions; invariance under item order and community relabelling, and
declared symmetry, over every pair-based cover score."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from sklearn.metrics import adjusted_rand_score as sk_ari
from tests.support import cover_pair_reference as ref
from tests.support.cover_pair_reference import Cover, cover, cover_sets, from_labels

import clustermetrics as cm
from clustermetrics import UndefinedMetricError
from clustermetrics.scores.cover_element_centric import element_centric_of_pair
from clustermetrics.scores.cover_pairs import (  # the bodies, on built pairs
    COVER_ENTRIES,
)
from clustermetrics.scores.cover_pairs import (
    bcubed_f_of_pair as extended_bcubed_f_score,
)
from clustermetrics.scores.cover_pairs import (
    bcubed_precision_of_pair as extended_bcubed_precision_score,
)
from clustermetrics.scores.cover_pairs import (
    bcubed_recall_of_pair as extended_bcubed_recall_score,
)
from clustermetrics.scores.cover_pairs import (
    omega_of_pair as omega_score,
)

SETTINGS = settings(max_examples=150, deadline=None)


@SETTINGS
@given(cover_sets())
def test_omega_is_the_definition_rounded_once(sets):
    expected = ref.omega(*sets)
    got = omega_score(cover(*sets), finite_value=7.0)
    assert got == (7.0 if expected is None else float(expected))


@SETTINGS
@given(cover_sets())
def test_extended_bcubed_equals_its_definition(sets):
    precision, recall = ref.bcubed(*sets)
    c = cover(*sets)
    if precision is None or recall is None:  # a side with no community: no CoverPair
        with pytest.raises(ValueError, match="has no community"):
            extended_bcubed_f_score(c)
        return
    p = extended_bcubed_precision_score(c)
    r = extended_bcubed_recall_score(c)
    assert p == pytest.approx(float(precision), abs=1e-12)
    assert r == pytest.approx(float(recall), abs=1e-12)
    if precision is not None and recall is not None:
        f = (2 * precision * recall / (precision + recall)) if precision + recall else 0
        assert extended_bcubed_f_score(c) == pytest.approx(float(f), abs=1e-12)


@SETTINGS
@given(cover_sets())
def test_identical_covers_score_exactly_one(sets):
    same = cover(sets[0], sets[0])
    assert omega_score(same) == 1.0
    if any(sets[0]):
        assert extended_bcubed_precision_score(same) == 1.0
        assert extended_bcubed_recall_score(same) == 1.0
        assert extended_bcubed_f_score(same) == 1.0


def _partitions(count, seed):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        n = int(rng.integers(2, 60))
        t = rng.integers(0, int(rng.integers(1, 8)), n)
        yield t, np.where(rng.random(n) < rng.random(), t, rng.integers(0, 8, n))


def test_omega_of_partitions_is_the_ari():
    for t, p in _partitions(300, seed=3):
        omega = omega_score(from_labels(t, p))
        assert omega == pytest.approx(cm.adjusted_rand_score(t, p), abs=1e-12)
        assert omega == pytest.approx(sk_ari(t, p), abs=1e-12)


def test_extended_bcubed_of_partitions_is_the_bcubed():
    for t, p in _partitions(300, seed=4):
        c = from_labels(t, p)
        assert extended_bcubed_precision_score(c) == pytest.approx(
            cm.bcubed_precision_score(t, p), abs=1e-12)
        assert extended_bcubed_recall_score(c) == pytest.approx(
            cm.bcubed_recall_score(t, p), abs=1e-12)
        assert extended_bcubed_f_score(c) == pytest.approx(cm.bcubed_f_score(t, p),
                                                           abs=1e-12)


@pytest.mark.parametrize("sets", [
    ([{0}], [{0}]),                                  # one item: no pair
    ([{0}, {0}, {0}], [{0}, {0}, {0}]),              # one community of all, both sides
    ([{0}, {1}, {2}], [set(), set(), set()]),        # every pair shares nothing, both
    ([{0, 1}] * 3, [{4, 5}] * 3),                    # every pair shares two, both
])
def test_omega_zero_over_zero(sets):
    c = cover(*sets)
    assert omega_score(c) == 1.0
    assert omega_score(c, finite_value=0.25) == 0.25
    with pytest.raises(UndefinedMetricError, match="Omega is undefined"):
        omega_score(c, force_finite=False)


def test_omega_is_defined_when_pairs_share_different_counts_everywhere():
    """Every pair shares one true and two predicted communities: nothing agrees, nothing
    is expected to (exp = 0), Omega = 0 - no 0/0."""
    assert omega_score(cover([{0}] * 3, [{0, 1}] * 3)) == 0.0


def test_extended_bcubed_has_no_zero_over_zero():
    """A side with no community is the only 0/0, and a CoverPair refuses it first (every
    item counted outside the other cover's communities): no finite_value to document."""
    with pytest.raises(ValueError, match="pred_cover has no community"):
        cm.extended_bcubed_precision_score([[0, 1]], [[1], [2]], items=[0])
    with pytest.raises(ValueError, match="cover.pred has no community"):
        extended_bcubed_precision_score(cover([{0}, {0}], [set(), set()]))
    with pytest.raises(TypeError):
        cm.extended_bcubed_precision_score([[0, 1]], [[0]], finite_value=1.0)


@settings(max_examples=40, deadline=None)
@given(force_finite=st.one_of(st.sampled_from(["no", "", 0, 1, None]), st.floats()),
       finite_value=st.one_of(st.sampled_from([float("nan"), float("inf"), "x", None, True]),
                              st.floats(allow_nan=True).filter(lambda v: v != v)))
def test_zero_division_options_are_refused_by_name(force_finite, finite_value):
    """Every cover score with a 0/0 case checks its options once, as the label scores
    do: a string read as true, or a nan returned as the score, never gets through."""
    for entry in cm.COVER_METRICS.values():
        if "finite_value" not in entry.func.__code__.co_varnames:
            continue
        with pytest.raises(ValueError, match="force_finite must be True or False"):
            entry.func([[0]], [[0]], force_finite=force_finite)
        with pytest.raises(ValueError, match="finite_value must be a finite number"):
            entry.func([[0]], [[0]], finite_value=finite_value)


def test_multiplicity_recall_counts_missing_shared_categories():
    """Two items sharing two categories but only one cluster: by the definition of Amigó et
    al. (2009, Sec. 5) their multiplicity precision is 1 and recall 1/2, each with itself
    too."""
    c = cover([{0, 1}, {0, 1}], [{0}, {0}])
    assert extended_bcubed_precision_score(c) == 1.0
    assert extended_bcubed_recall_score(c) == 0.5  # (1/2 + 1/2) / 2 per item: itself too


def _permuted(c: Cover, rng) -> Cover:
    items = rng.permutation(c.n_items)
    t_cols, p_cols = rng.permutation(c.true.shape[1]), rng.permutation(c.pred.shape[1])
    return Cover(c.true[items][:, t_cols], c.pred[items][:, p_cols], c.n_items)


def _scores():
    """Each registered pair score with its body, which the stand-in covers reach."""
    bodies = {"omega": omega_score, "extended_bcubed_precision": extended_bcubed_precision_score,
              "extended_bcubed_recall": extended_bcubed_recall_score,
              "extended_bcubed_f": extended_bcubed_f_score, "cover_ecs": element_centric_of_pair}
    return [pytest.param(info, bodies[info.key], id=info.key) for info in COVER_ENTRIES]


def _assume_defined(info, sets) -> None:
    """B-cubed refuses a side with no community (a CoverPair never holds one)."""
    if info.key.startswith("extended_bcubed"):
        assume(any(sets[0]) and any(sets[1]))


@pytest.mark.parametrize(("info", "body"), _scores())
@settings(max_examples=40, deadline=None)
@given(sets=cover_sets(), seed=st.integers(0, 2**32 - 1))
def test_invariant_under_item_order_and_relabelling(info, body, sets, seed):
    _assume_defined(info, sets)
    c = cover(*sets)
    assert body(_permuted(c, np.random.default_rng(seed))) == pytest.approx(
        body(c), abs=1e-12)


@pytest.mark.parametrize(("info", "body"), _scores())
@settings(max_examples=40, deadline=None)
@given(sets=cover_sets())
def test_symmetric_where_declared_and_in_range(info, body, sets):
    _assume_defined(info, sets)
    value = body(cover(*sets))
    assert info.lower - 1e-12 <= value <= info.upper + 1e-12
    if info.symmetric:
        assert body(cover(sets[1], sets[0])) == pytest.approx(value, abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(cover_sets())
def test_precision_is_recall_swapped(sets):
    if ref.bcubed(*sets)[0] is None or ref.bcubed(*sets)[1] is None:
        return  # a side with no community: refused (test above)
    assert extended_bcubed_precision_score(cover(*sets)) == pytest.approx(
        extended_bcubed_recall_score(cover(sets[1], sets[0])), abs=1e-12)


def test_omega_exact_at_many_items():
    """10^6 items in three signatures: Omega equals the fraction of the pair counts worked
    out by hand, in exact integers."""
    a, b, c = 500_000, 300_000, 200_000
    rows = np.repeat(np.arange(3), [a, b, c])
    t = ref.memberships([{0}, {0, 1}, {1}])[rows]
    p = ref.memberships([{0}, {0}, {1}])[rows]
    m = (a + b + c) * (a + b + c - 1) // 2
    pairs = {(1, 1): a * (a - 1) // 2 + a * b + c * (c - 1) // 2,
             (2, 1): b * (b - 1) // 2, (1, 0): b * c}
    pairs[(0, 0)] = m - sum(pairs.values())
    agree = pairs[(1, 1)] + pairs[(0, 0)]
    by_t = {0: pairs[(0, 0)], 1: pairs[(1, 1)] + pairs[(1, 0)], 2: pairs[(2, 1)]}
    by_p = {0: pairs[(0, 0)] + pairs[(1, 0)], 1: pairs[(1, 1)] + pairs[(2, 1)]}
    chance = sum(by_t[j] * by_p.get(j, 0) for j in by_t)
    expected = Fraction(m * agree - chance, m * m - chance)
    assert omega_score(Cover(t, p, a + b + c)) == float(expected)


@settings(max_examples=80, deadline=None)
@given(cover_sets())
def test_omega_equals_clusim_where_clusim_is_defined(sets):
    """clusim 0.4's ``omega_index`` needs every item in a community (an item in none gets
    a singleton here), items labelled 0..n-1, and gives NaN for our 0/0 (docs/peers.md)."""
    import warnings

    import clusim.sim as sim
    from clusim.clustering import Clustering

    sets = tuple([s or {100 + i} for i, s in enumerate(side)] for side in sets)
    clusterings = [Clustering(elm2clu_dict={i: sorted(s) for i, s in enumerate(side)})
                   for side in sets]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        theirs = float(sim.omega_index(*clusterings))
    try:
        ours = omega_score(cover(*sets), force_finite=False)
    except UndefinedMetricError:
        ours = float("nan")  # clusim's value of 0/0
    assert ours == pytest.approx(theirs, abs=1e-12, nan_ok=True)
