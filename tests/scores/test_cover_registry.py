"""Every registered cover score: invariant to the order and the names of items and
communities, symmetric where declared, within its range, perfect on identical covers,
and equal to its crisp counterpart on partitions. A score registered in COVER_METRICS
is checked here without a line of its own."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import clustermetrics as cm
from clustermetrics import Cover, CoverPair
from clustermetrics.scores.registry import COVER_METRICS, METRICS, cover_metrics

KEYS = list(COVER_METRICS)
COMMUNITY = st.frozensets(st.integers(0, 9), min_size=1, max_size=8)
COVER = st.lists(COMMUNITY, min_size=1, max_size=5)


def _score(key, t, p, **kwargs):
    entry = COVER_METRICS[key]
    return entry.func(t, p, **entry.options, **kwargs)


def _close(a: float, b: float) -> bool:
    return a == b or math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)


def test_the_cover_registry_is_its_own():
    assert KEYS and [e.key for e in cover_metrics()] == KEYS
    assert not set(KEYS) & set(METRICS)
    for entry in cover_metrics():
        assert entry.func.__name__ in cm.__all__ and getattr(cm, entry.func.__name__) is \
            entry.func
        assert entry.func.__name__.endswith("_score") == (entry.better == "higher")


@pytest.mark.parametrize("key", KEYS)
@settings(max_examples=40, deadline=None)
@given(t=COVER, p=COVER, data=st.data())
def test_invariant_to_order_and_names_of_items_and_communities(key, t, p, data):
    assume(set().union(*t) & set().union(*p))  # else refused: no item in common
    base = _score(key, t, p)
    rename = {i: f"item {9 - i}" for i in range(10)}  # new ids, in another sorted order
    renamed = _score(key, [[rename[i] for i in c] for c in t],
                     [[rename[i] for i in c] for c in p])
    order_t = data.draw(st.permutations(range(len(t))))
    order_p = data.draw(st.permutations(range(len(p))))
    reordered = _score(key, [sorted(t[k], reverse=True) for k in order_t],
                       [list(p[k]) for k in order_p])
    named = _score(key, {f"c{k}": t[k] for k in order_t}, {(k, "x"): p[k] for k in order_p})
    assert _close(base, renamed) and _close(base, reordered) and _close(base, named)


@pytest.mark.parametrize("key", KEYS)
@settings(max_examples=40, deadline=None)
@given(t=COVER, p=COVER)
def test_range_and_declared_symmetry(key, t, p):
    assume(set().union(*t) & set().union(*p))  # else refused: no item in common
    entry = COVER_METRICS[key]
    value = _score(key, t, p)
    assert entry.lower - 1e-12 <= value <= entry.upper + 1e-12
    assert isinstance(value, float)
    if entry.symmetric:
        assert _close(value, _score(key, p, t))


@pytest.mark.parametrize("key", KEYS)
@settings(max_examples=40, deadline=None)
@given(t=COVER)
def test_identical_covers_score_perfect(key, t):
    """On covers without a community holding another or every item, for every score; on
    every cover where the score declares it (``perfect_always``)."""
    entry = COVER_METRICS[key]
    if entry.perfect_always:
        assert _close(_score(key, t, t), entry.perfect)
    items = set().union(*t)
    plain = [c for c in set(t) if c != items and not any(c < d for d in t)]
    if plain:
        assert _close(_score(key, plain, plain), entry.perfect)


@pytest.mark.parametrize("key", [k for k in KEYS if not COVER_METRICS[k].perfect_always])
def test_a_score_not_always_perfect_shows_why(key):
    """The conventions that keep such a score below perfect on identical covers occur
    (else the declaration would hide nothing and should be dropped)."""
    nested = [[1, 2, 3, 4, 5, 6], [1, 2], [5, 6]]  # nested, and one of every item
    assert _score(key, nested, nested) != COVER_METRICS[key].perfect


def test_crisp_counterparts_are_registered_label_scores():
    for entry in cover_metrics():
        assert entry.crisp is None or entry.crisp in METRICS, entry.key


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 4)), min_size=1, max_size=20))
def test_a_partition_given_as_a_cover_gives_the_crisp_score(labels):
    t, p = [a for a, _ in labels], [b for _, b in labels]
    table = cm.Contingency.from_labels(t, p)
    for entry in (e for e in cover_metrics() if e.crisp is not None):
        got = _score(entry.key, Cover.from_labels(t), Cover.from_labels(p))
        assert _close(got, METRICS[entry.crisp].compute(table)[0]), entry.key


@pytest.mark.parametrize("key", KEYS)
def test_a_pair_built_once_gives_the_value_of_its_covers(key):
    rng = np.random.default_rng(7)
    t = [rng.choice(30, 6, replace=False).tolist() for _ in range(5)]
    p = [rng.choice(30, 5, replace=False).tolist() for _ in range(6)]
    pair = CoverPair(Cover.from_communities(t), Cover.from_communities(p))
    assert COVER_METRICS[key].compute(pair) == _score(key, t, p)


@pytest.mark.parametrize("key", KEYS)
@settings(max_examples=20, deadline=None)
@given(t=COVER, shift=st.integers(10, 20), text=st.booleans())
def test_covers_sharing_no_item_are_refused_by_every_score(key, t, shift, text):
    """Covers of no common item (ids of another type: '1' is not 1) have nothing to
    compare: every score refuses them, and scores them on an explicit item set."""
    p = [[str(i) for i in c] if text else [i + shift for i in c] for c in t]
    with pytest.raises(ValueError, match="share no item"):
        _score(key, t, p)
    _score(key, t, p, items=sorted(set().union(*t)) + sorted(set().union(*p), key=str))


@pytest.mark.parametrize("key", KEYS)
@settings(max_examples=60, deadline=None)
@given(t=st.lists(st.frozensets(st.integers(0, 30), min_size=1, max_size=25), min_size=1,
                  max_size=6),
       p=st.lists(st.frozensets(st.integers(0, 30), min_size=1, max_size=25), min_size=1,
                  max_size=6))
def test_perfect_and_symmetric_bit_for_bit(key, t, p):
    """Identical covers give exactly the perfect value (where the registry says always),
    and a symmetric score the same float both ways round, not one rounding apart."""
    entry = COVER_METRICS[key]
    if entry.perfect_always:
        assert _score(key, t, t) == entry.perfect
    assume(set().union(*t) & set().union(*p))
    if entry.symmetric:
        assert _score(key, t, p) == _score(key, p, t)
