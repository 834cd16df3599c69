"""Pair counts of two covers against the enumeration of every pair, on generated covers of
every awkward shape, in small chunks and with the integer (beyond 2**53) summation."""

import numpy as np
import pytest
from hypothesis import given, settings
from tests.support.cover_pair_reference import Cover, cover, cover_sets, memberships, shared_counts

from clustermetrics.scores import cover_signatures
from clustermetrics.scores.cover_signatures import pair_counts, signatures

SETTINGS = settings(max_examples=150, deadline=None)


def _as_dict(counts):
    return {(t, p): n for t, p, n in zip(counts.shared_true.tolist(),
                                         counts.shared_pred.tolist(), counts.pairs.tolist(),
                                         strict=True)}


@SETTINGS
@given(cover_sets())
def test_pair_counts_equal_enumeration(sets):
    expected = shared_counts(*sets)
    n = len(sets[0])
    counts = pair_counts(cover(*sets))
    assert _as_dict(counts) == {k: v for k, v in expected.items() if v}
    assert counts.n_pairs == n * (n - 1) // 2 == int(counts.pairs.sum())


@SETTINGS
@given(cover_sets(max_items=9))
def test_chunks_and_integer_sums_change_nothing(sets):
    expected = {k: v for k, v in shared_counts(*sets).items() if v}
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(cover_signatures, "_EXACT_FLOAT", 0)  # the int64 reduceat path
        assert _as_dict(pair_counts(cover(*sets), chunk_pairs=1)) == expected
    assert _as_dict(pair_counts(cover(*sets), chunk_pairs=3)) == expected


def test_identical_items_collapse_to_one_signature_each():
    rng = np.random.default_rng(0)
    t, p = rng.integers(0, 5, 10_000), rng.integers(0, 7, 10_000)
    sig = signatures(Cover(memberships([{int(x)} for x in t]),
                           memberships([{int(x)} for x in p]), t.size))
    cells = set(zip(t.tolist(), p.tolist(), strict=True))
    assert sig.weights.size == len(cells) and int(sig.weights.sum()) == t.size


def test_many_identical_items_pair_counts_exact():
    """200,000 items in three signatures: the counts are C(w, 2) and products of weights."""
    n = 200_000
    true = [{0}] * (n // 2) + [{0, 1}] * (n // 4) + [set()] * (n // 4)
    pred = [{0}] * (n // 2) + [{0}] * (n // 4) + [{1}] * (n // 4)
    a, b, c = n // 2, n // 4, n // 4
    got = _as_dict(pair_counts(cover(true, pred)))
    assert got == {(1, 1): a * (a - 1) // 2 + a * b, (2, 1): b * (b - 1) // 2,
                   (0, 1): c * (c - 1) // 2, (0, 0): (a + b) * c}


def test_items_in_no_community_are_counted():
    got = _as_dict(pair_counts(Cover(memberships([set()] * 4, 2), memberships([set()] * 4, 0),
                                     4)))
    assert got == {(0, 0): 6}


@pytest.mark.parametrize("bad, message", [
    (lambda c: c._replace(n_items=5), "cover.true has 4 rows for n_items=5"),
    (lambda c: c._replace(pred=[[1], [1]]), "cover.pred must be a 2-D scipy sparse"),
    (lambda c: c._replace(n_items=2**33), "overflow 64-bit integers"),
])
def test_bad_cover_is_a_value_error_naming_it(bad, message):
    good = cover([{0}, {0}, {1}, {1}], [{0}, {0}, {0}, {1}])
    with pytest.raises(ValueError, match=message):
        pair_counts(bad(good))


def test_items_in_hundreds_of_communities():
    """Codes b t + p beyond a dense count (an item in 300 communities of each side)."""
    wide = set(range(300))
    true = [wide, wide, {0, 5}, {7}, set(), {299}]
    pred = [wide, set(range(150)), {5}, {7, 8}, {8}, wide]
    expected = {k: v for k, v in shared_counts(true, pred).items() if v}
    assert _as_dict(pair_counts(cover(true, pred))) == expected
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(cover_signatures, "_EXACT_FLOAT", 0)
        assert _as_dict(pair_counts(cover(true + true, pred + pred))) == {
            k: v for k, v in shared_counts(true + true, pred + pred).items() if v}
