"""Integer sample weights are exact repetition of items, for every registered score and for
evaluate; NaN, infinite, negative and missing weights are refused naming ``sample_weight``
(real weights: tests/scores/test_real_weights.py)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import clustermetrics as cm
from clustermetrics import METRICS


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_integer_weights_equal_repeating_the_items_for_every_score(data):
    n = data.draw(st.integers(1, 30))
    t = data.draw(st.lists(st.sampled_from([0, 1, 2, "a"]), min_size=n, max_size=n))
    p = data.draw(st.lists(st.integers(0, 4), min_size=n, max_size=n))
    w = data.draw(st.lists(st.integers(0, 5), min_size=n, max_size=n))
    if sum(w) == 0:
        w[0] = 1
    tt = [x for x, k in zip(t, w, strict=True) for _ in range(k)]
    pp = [x for x, k in zip(p, w, strict=True) for _ in range(k)]
    for key, entry in METRICS.items():
        if key == "smi":  # Monte Carlo on some tables: compared where both are exact below
            continue
        weighted = entry.func(t, p, sample_weight=w, **entry.options)
        repeated = entry.func(tt, pp, **entry.options)
        assert weighted == pytest.approx(repeated, abs=1e-12, nan_ok=True), key
    report = cm.evaluate(t, p, ["ari", "nmi", "recovery_rate"], sample_weight=np.array(w))
    assert report.table == cm.Contingency.from_labels(tt, pp)


@pytest.mark.parametrize("weights, message", [
    ([1, 2.5, float("inf")], "sample_weight holds 1 infinite weights"),
    ([1, -1.5, 1], "sample_weight holds 1 negative weights \\(the first: sample_weight\\[1\\]"),
    ([1, -1, 1], "sample_weight holds 1 negative weights"),
    ([0, 0, 0], "0 for every item"),
    ([1, 1], "labels_true and sample_weight have different lengths"),
    ([1, float("nan"), 1], "NaN"),
    (3, "a sequence of one weight per item"),
])
def test_bad_weights_are_refused_naming_sample_weight(weights, message):
    with pytest.raises(ValueError, match=message):
        cm.adjusted_rand_score([0, 0, 1], [0, 1, 1], sample_weight=weights)


def test_weights_apply_to_labels_not_to_tables():
    table = cm.Contingency.from_labels([0, 0, 1], [0, 1, 1])
    for call in (lambda: cm.adjusted_rand_score(table, sample_weight=[1, 1, 1]),
                 lambda: cm.adjusted_rand_score(contingency=table, sample_weight=[1, 1, 1])):
        with pytest.raises(ValueError, match="sample_weight applies to labels"):
            call()


@pytest.mark.parametrize("weights", [
    np.array([2**61, 2**61, 2**61, 1], dtype=np.uint64),
    [2**61, 2**61, 2**61, 1],
    np.array([3.0, 1.0, 2.0, 5.0], dtype=np.float32),
])
def test_weight_dtypes_and_magnitudes_give_the_table_of_the_counts(weights):
    t, p = ["a", "a", "b", "b"], [0, 1, 1, 1]
    ints = [int(w) for w in np.asarray(weights).tolist()]
    keep = [i for i, w in enumerate(ints) if w]
    want = cm.Contingency.from_counts([t[i] for i in keep], [p[i] for i in keep],
                                      [ints[i] for i in keep])
    assert cm.Contingency.from_labels(t, p, sample_weight=weights) == want
    assert cm.adjusted_rand_score(t, p, sample_weight=weights) == \
        cm.adjusted_rand_score(want)


@pytest.mark.parametrize("weights, message", [
    ([2**62, 2**62, 1, 1], "more than 2\\*\\*63 - 1"),
    (np.array([True, True, False, True]), "holds 4 weights that are not numbers \\(dtype bool"),
    (np.ma.masked_array([1, 2, 3, 4], mask=[0, 1, 0, 0]), "masked"),
    ([1, None, 1, 1], "sample_weight"),
    (["1", "2", "3", "4"], "sample_weight"),
])
def test_weights_beyond_int64_or_missing_are_refused(weights, message):
    with pytest.raises(ValueError, match=message):
        cm.Contingency.from_labels(["a", "a", "b", "b"], [0, 1, 1, 1], sample_weight=weights)
