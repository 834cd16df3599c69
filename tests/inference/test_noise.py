"""Noise handling: the rewritten table equals the table of relabelled / filtered items."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import clustermetrics as cm
from clustermetrics import METRICS, Contingency, evaluate
from clustermetrics.inference.noise import NoiseSingleton, with_noise

NOISE = -1


def _relabelled(t, p):
    """Each noise point gets its own label NoiseSingleton(NOISE, k), k increasing in class
    order."""
    order = np.argsort(t, kind="stable")
    p2 = np.empty(len(p), dtype=object)
    p2[:] = list(p)
    k = 0
    for i in order.tolist():
        if p[i] == NOISE:
            p2[i] = NoiseSingleton(NOISE, k)
            k += 1
    return p2


labels = st.lists(st.tuples(st.integers(0, 4), st.integers(-1, 4)), min_size=2, max_size=60)


@settings(max_examples=60, deadline=None)
@given(labels)
def test_singletons_equal_table_of_relabelled_items(pairs):
    t = np.array([a for a, _ in pairs])
    p = np.array([b for _, b in pairs])
    # every point noise included: the table of N one-item clusters
    table, info = with_noise(Contingency.from_labels(t, p), NOISE)
    assert info.n_noise == int((p == NOISE).sum())
    assert table == Contingency.from_labels(t, _relabelled(t, p))


@settings(max_examples=60, deadline=None)
@given(labels)
def test_exclude_equals_table_of_clustered_items(pairs):
    t = np.array([a for a, _ in pairs])
    p = np.array([b for _, b in pairs])
    keep = p != NOISE
    if not keep.any():  # nothing left to score: an error, never an empty table
        with pytest.raises(ValueError, match="excluding the noise points .* leaves nothing"):
            with_noise(Contingency.from_labels(t, p), NOISE, "exclude")
        return
    table, info = with_noise(Contingency.from_labels(t, p), NOISE, "exclude")
    assert table == Contingency.from_labels(t[keep], p[keep])
    assert info.n_samples - info.n_noise == table.n_samples


def test_every_score_sees_the_same_rewritten_table():
    rng = np.random.default_rng(7)
    t = rng.integers(0, 4, 300)
    p = np.where(rng.random(300) < 0.2, NOISE, t)
    report = evaluate(t, p, noise_label=NOISE)
    direct = evaluate(t, _relabelled(t, p))
    for key in METRICS:
        assert report[key] == pytest.approx(direct[key], rel=1e-12, abs=1e-12), key
    excluded = evaluate(t, p, noise_label=NOISE, noise="exclude")
    keep = p != NOISE
    assert excluded["ari"] == cm.adjusted_rand_score(t[keep], p[keep])


def test_pair_precision_ignores_singletons_and_recall_pays_for_them():
    rng = np.random.default_rng(3)
    t = rng.integers(0, 5, 400)
    p = np.where(rng.random(400) < 0.3, NOISE, np.where(rng.random(400) < 0.8, t, 0))
    single = evaluate(t, p, "pair_precision,pair_recall", noise_label=NOISE)
    excl = evaluate(t, p, "pair_precision,pair_recall", noise_label=NOISE, noise="exclude")
    assert single["pair_precision"] == excl["pair_precision"]
    assert single["pair_recall"] < excl["pair_recall"]


def test_absent_noise_label_changes_nothing_but_a_wrong_type_is_an_error():
    t, p = [0, 0, 1, 1], [5, 5, 6, 6]
    table = Contingency.from_labels(t, p)
    same, info = with_noise(table, -1)
    assert same is table and info.n_noise == 0
    with pytest.raises(ValueError, match=r"noise_label '-1' \(str\) matches no predicted label"):
        with_noise(table, "-1")
    with pytest.raises(ValueError, match="every predicted label is the noise label"):
        with_noise(Contingency.from_labels([0, 1], [-1, -1]), -1, "exclude")
    with pytest.raises(ValueError, match="noise must be one of 'singletons', 'exclude'"):
        evaluate(t, p, noise_label=5, noise="drop")


def test_report_says_what_noise_handling_did():
    r = evaluate(["a", "a", "b"], ["x", "noise", "y"], "ari", noise_label="noise")
    assert r.noise.n_noise == 1 and r.noise.mode == "singletons"
    assert "noise label 'noise': 1 of 3 points as singleton clusters" in str(r)
    assert r.to_dict(details=True)["noise"] == {"label": "noise", "mode": "singletons",
                                                "n_noise": 1, "n_samples": 3}
