"""Properties every registered metric must have; a new registry entry is tested at once.

For each metric: Python float, declared bounds, value on identical labellings, invariance to
item order and (unless declared otherwise) to label names and types, declared symmetry,
Contingency input equal to label input, and evaluate() equal to the direct call.
"""

import math

import numpy as np
import pytest

from clustermetrics import METRICS, Contingency, evaluate

KEYS = list(METRICS)
# properties declared per metric: MI has no constant perfect value; greedy ties follow labels
WITH_PERFECT = [k for k in KEYS if METRICS[k].perfect is not None]
LABEL_INVARIANT = [k for k in KEYS if METRICS[k].label_invariant]


def _cases():
    rng = np.random.default_rng(2024)
    cases = [
        (np.array([0, 0, 0, 1, 1, 1]), np.array([0, 0, 1, 1, 2, 2])),
        (np.array([0]), np.array([0])),  # one item
        (np.array([0, 0, 0]), np.array([1, 2, 3])),  # one class, singleton clusters
        (np.array([0, 1, 2, 3]), np.array([0, 0, 0, 0])),  # singletons vs one cluster
        (np.array([0, 1, 2, 3]), np.array([3, 2, 1, 0])),  # identical singletons
    ]
    for n, kt, kp in [(10, 2, 3), (40, 5, 5), (60, 3, 9), (120, 8, 4), (200, 12, 12)]:
        t = rng.integers(0, kt, n)
        p = np.where(rng.random(n) < 0.5, t % kp, rng.integers(0, kp, n))
        cases.append((t, p))
    return cases


CASES = _cases()


def _value(key, t, p):
    return METRICS[key].compute(Contingency.from_labels(t, p))[0]


def _rename(labels, seed):
    """Apply a random bijection to label values (and make them strings)."""
    uniq = np.unique(labels)
    perm = np.random.default_rng(seed).permutation(len(uniq))
    mapping = {u: f"L{perm[i]:03d}" for i, u in enumerate(uniq.tolist())}
    return np.array([mapping[v] for v in labels.tolist()])


@pytest.mark.parametrize("key", KEYS)
def test_float_within_declared_bounds(key):
    entry = METRICS[key]
    for t, p in CASES:
        value = _value(key, t, p)
        assert type(value) is float
        assert not math.isnan(value)
        assert entry.lower <= value <= entry.upper, (t, p, value)  # exactly: no rounding out


@pytest.mark.parametrize("key", WITH_PERFECT)
def test_perfect_match_value(key):
    entry = METRICS[key]
    for t, _ in CASES:
        renamed = _rename(t, seed=1)
        assert _value(key, t, renamed) == entry.perfect, t  # exactly


@pytest.mark.parametrize("key", KEYS)
def test_item_order_invariance(key):
    rng = np.random.default_rng(9)
    for t, p in CASES:
        order = rng.permutation(len(t))
        assert _value(key, t[order], p[order]) == _value(key, t, p)


@pytest.mark.parametrize("key", LABEL_INVARIANT)
def test_label_name_and_type_invariance(key):
    for seed, (t, p) in enumerate(CASES):
        base = _value(key, t, p)
        assert _value(key, _rename(t, seed), _rename(p, seed + 100)) == pytest.approx(
            base, abs=1e-12)
        big = t.astype(object) + 2**60
        assert _value(key, big, p.astype(float) - 0.5) == pytest.approx(base, abs=1e-12)


@pytest.mark.parametrize("key", KEYS)
def test_declared_symmetry(key):
    entry = METRICS[key]
    asymmetric_seen = False
    for t, p in CASES:
        forward, backward = _value(key, t, p), _value(key, p, t)
        if entry.symmetric:
            assert forward == pytest.approx(backward, abs=1e-12), (t, p)
        else:
            asymmetric_seen |= abs(forward - backward) > 1e-9
    if not entry.symmetric:
        assert asymmetric_seen, f"{key} is declared asymmetric but never was on the cases"


@pytest.mark.parametrize("key", KEYS)
def test_table_input_and_evaluate_agree_with_labels(key):
    entry = METRICS[key]
    t, p = CASES[-1]
    table = Contingency.from_labels(t, p)
    direct = entry.func(t, p, **entry.options)
    direct = float(getattr(direct, "rate", direct))
    assert entry.compute(table)[0] == direct
    assert evaluate(t, p, metrics=[key])[key] == direct
    assert evaluate(table, metrics=[key])[key] == direct


def test_registry_entries_are_complete():
    families = {"pair counting", "information", "set matching"}
    for key, entry in METRICS.items():
        assert entry.key == key
        assert entry.family in families
        assert entry.lower < entry.upper
        assert entry.reference and entry.name
        assert entry.perfect is None or entry.lower <= entry.perfect <= entry.upper
