"""No score leaves its documented range, not even by a rounding, and every score with a
perfect value takes it exactly on identical partitions: registry-wide, on generated
labellings, through every path (the function, a table, a stack of replicates)."""

from __future__ import annotations

import warnings

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st

import clustermetrics as cm
from clustermetrics.evaluation.evaluate import replicate_scores

KEYS = list(cm.METRICS)
PERFECT = [k for k in KEYS if cm.METRICS[k].perfect is not None]
BOOTSTRAPPED = [k for k in KEYS if cm.METRICS[k].no_bootstrap is None]

labellings = st.tuples(st.integers(1, 60), st.integers(1, 12), st.integers(0, 2**32 - 1)).map(
    lambda a: np.random.default_rng(a[2]).integers(0, a[1], a[0]))


def _relabelled(t: np.ndarray, seed: int) -> np.ndarray:
    uniq = np.unique(t)
    perm = np.random.default_rng(seed).permutation(uniq.shape[0])
    return perm[np.searchsorted(uniq, t)]


def _scores(t, p, keys):
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scores left out of a table are not checked here
        for key in keys:
            try:
                out[key] = cm.METRICS[key].compute(cm.Contingency.from_labels(t, p))[0]
            except ValueError:
                pass
    return out


@settings(max_examples=150, deadline=None)
@given(labellings, st.integers(0, 2**32 - 1))
def test_identical_partitions_score_their_perfect_value_exactly(t, seed):
    p = _relabelled(t, seed)
    for key, value in _scores(t, p, PERFECT).items():
        assert value == cm.METRICS[key].perfect, (key, value)


@settings(max_examples=150, deadline=None)
@given(labellings, labellings)
def test_every_value_lies_within_its_range(t, p):
    n = min(t.shape[0], p.shape[0])
    for key, value in _scores(t[:n], p[:n], KEYS).items():
        entry = cm.METRICS[key]
        assert entry.lower <= value <= entry.upper, (key, value)


@settings(max_examples=60, deadline=None)
@given(labellings, st.integers(0, 2**32 - 1), st.booleans())
def test_replicates_lie_within_their_range(t, seed, perfect):
    """Bootstrap replicates (stacks) of identical and of noisy partitions."""
    rng = np.random.default_rng(seed)
    p = _relabelled(t, seed) if perfect else rng.integers(0, 4, t.shape[0])
    table = cm.Contingency.from_labels(t, p)
    counts = rng.multinomial(table.n_samples, table.counts / table.n_samples, size=8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        values = replicate_scores(table, counts, BOOTSTRAPPED)
    for key, row in zip(BOOTSTRAPPED, values, strict=True):
        entry, kept = cm.METRICS[key], row[~np.isnan(row)]
        assert ((entry.lower <= kept) & (kept <= entry.upper)).all(), (key, kept)
        if perfect and entry.perfect is not None:
            assert (kept == entry.perfect).all(), (key, kept)


huge_tables = st.tuples(st.integers(1, 4), st.integers(1, 3), st.integers(0, 2**32 - 1),
                        st.sampled_from([10**6, 10**8, 10**9, 2**40, 2**53, 2**59])).map(
    lambda a: np.random.default_rng(a[2]).integers(0, a[3], (a[0], a[1])) + (
        np.random.default_rng(a[2] + 1).random((a[0], a[1])) < 0.3))


@settings(max_examples=300, deadline=None)
@given(huge_tables)
@example(np.array([[134217729], [268435458], [402653187], [402653193]]))  # MP precision
@example(np.array([[0, 1125899906842627], [2251799813685248, 0]]))  # AFMI of a perfect table
@example(np.array([[2**53 + 3], [3]]))  # MP recall
def test_every_value_of_a_huge_table_lies_within_its_range(matrix):
    """Tables of 10^6 to ~2^63 items, few cells (where a float formula cancels to a few
    ulps beside an end of its range): every score stays in its range."""
    if not matrix.any():
        return
    table = cm.Contingency.from_matrix(matrix)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for key, entry in cm.METRICS.items():
            try:
                value = entry.compute(table)[0]
            except (ValueError, cm.UndefinedMetricError):
                continue
            assert np.isnan(value) or entry.lower <= value <= entry.upper, (key, value)
