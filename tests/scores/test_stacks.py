"""Every score of many tables at once (a stack of bootstrap replicates) equals the score of
each table alone: registry-wide, on generated tables of every shape."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import clustermetrics as cm
from clustermetrics.compute import dispatch as _kernels
from clustermetrics.evaluation.evaluate import replicate_scores, score_values
from clustermetrics.inference.bootstrap import replicate_table
from clustermetrics.matching import greedy as _greedy
from clustermetrics.scores.pair_table import copy_pairs, leave_out_copies
from clustermetrics.table.stack import TableStack, _distinct_rows

BOOTSTRAPPED = [k for k, e in cm.METRICS.items() if e.no_bootstrap is None]

# (truth, prediction) label pairs of every shape: noise, one class, one cluster, a side of
# singletons, identical, a class split in two, ties everywhere
_shapes = st.sampled_from(["noise", "one_class", "one_cluster", "singletons_pred",
                           "singletons_true", "identical", "split", "ties"])


@st.composite
def tables(draw):
    shape = draw(_shapes)
    n = draw(st.integers(1, 40))
    k = draw(st.integers(1, 6))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    t = rng.integers(0, k, n)
    p = {"noise": lambda: rng.integers(0, draw(st.integers(1, 6)), n),
         "one_class": lambda: rng.integers(0, k, n),
         "one_cluster": lambda: np.zeros(n, dtype=np.int64),
         "singletons_pred": lambda: np.arange(n),
         "singletons_true": lambda: rng.integers(0, k, n),
         "identical": lambda: t.copy(),
         "split": lambda: np.where((t == 0) & (np.arange(n) % 2 == 0), k, t),
         "ties": lambda: (t + np.arange(n)) % max(k, 1)}[shape]()
    if shape == "one_class":
        t = np.zeros(n, dtype=np.int64)
    if shape == "singletons_true":
        t = np.arange(n)
    return cm.Contingency.from_labels(t, p), seed


def _per_table(table: cm.Contingency, counts: np.ndarray, keys: list[str]) -> np.ndarray:
    """Each replicate scored alone, as its own table (the reference), kept in the score's
    range as replicate scores are (a replicate's pair counts leave out an item's pairs
    with its own copies, which can put a pair score past its range)."""
    out = np.full((len(keys), counts.shape[0]), np.nan)
    for b, row in enumerate(counts):
        if row.any():
            values = score_values(replicate_table(table, row), keys)
            out[:, b] = [min(max(values[k], cm.METRICS[k].lower), cm.METRICS[k].upper)
                         for k in keys]
    return out


def _assert_same(got: np.ndarray, want: np.ndarray, keys: list[str]) -> None:
    for i, key in enumerate(keys):
        assert got[i] == pytest.approx(want[i], rel=1e-11, abs=1e-12, nan_ok=True), key


@settings(max_examples=60, deadline=None)
@given(tables(), st.integers(1, 12))
def test_every_score_of_a_stack_equals_each_replicate_alone(drawn, replicates):
    table, seed = drawn
    rng = np.random.default_rng(seed)
    counts = rng.multinomial(table.n_samples, table.counts / table.n_samples,
                             size=replicates)
    counts = counts[counts.any(axis=1)]
    if not counts.shape[0]:
        return
    _assert_same(replicate_scores(table, counts, BOOTSTRAPPED),
                 _per_table(table, counts, BOOTSTRAPPED), BOOTSTRAPPED)



@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(st.integers(0, 2), min_size=3, max_size=3), min_size=1,
                max_size=12))
def test_distinct_rows_against_a_scan_of_the_rows(rows):
    """Each row maps to the first row equal to it; the distinct rows are those first rows,
    in order (the stack computes one value per distinct table and hands it to its
    copies)."""
    array = np.array(rows, dtype=np.int64)
    first, inverse = _distinct_rows(array)
    want_first = [b for b, row in enumerate(rows) if row not in rows[:b]]
    assert first.tolist() == want_first
    assert [want_first[i] for i in inverse.tolist()] == [rows.index(r) for r in rows]


@settings(max_examples=30, deadline=None)
@given(tables(), st.integers(2, 6))
def test_a_stack_of_repeated_replicates_scores_each_copy(drawn, copies):
    """Replicates drawn more than once (small tables repeat) share one computation: each
    copy still gets its own table's score."""
    table, seed = drawn
    rng = np.random.default_rng(seed)
    drawn_counts = rng.multinomial(table.n_samples, table.counts / table.n_samples, size=3)
    drawn_counts = drawn_counts[drawn_counts.any(axis=1)]
    if not drawn_counts.shape[0]:
        return
    counts = drawn_counts[rng.integers(0, drawn_counts.shape[0], copies * 3)]
    _assert_same(replicate_scores(table, counts, BOOTSTRAPPED),
                 _per_table(table, counts, BOOTSTRAPPED), BOOTSTRAPPED)

@settings(max_examples=30, deadline=None)
@given(tables())
def test_leave_one_out_stacks_equal_each_table_alone(drawn):
    """The jackknife's tables (one item less in one cell) as one stack: cells and lines
    that empty out are absent from that table only."""
    table, _ = drawn
    counts = np.repeat(table.counts[None, :], table.nnz, axis=0)
    counts[np.arange(table.nnz), np.arange(table.nnz)] -= 1
    counts = counts[counts.any(axis=1)]
    if not counts.shape[0]:
        return
    stack = TableStack(table, counts)
    want = np.array([[cm.METRICS[k].compute(table.with_counts(row))[0] if _defined(
        table, row, k) else math.nan for row in counts] for k in BOOTSTRAPPED])
    got = np.array([_many(cm.METRICS[k], stack) for k in BOOTSTRAPPED])
    _assert_same(got, want, BOOTSTRAPPED)


def _defined(table, row, key) -> bool:
    try:
        cm.METRICS[key].compute(table.with_counts(row))
    except ValueError:
        return False
    return True


def _many(entry, stack):
    try:
        return entry.compute_many(stack)
    except ValueError:
        return np.full(len(stack), np.nan)


def test_a_stack_answers_its_tables_sizes():
    table = cm.Contingency.from_labels([0, 0, 1, 1, 2], [0, 1, 1, 2, 2])
    counts = np.array([[2, 0, 1, 1, 1], [0, 0, 0, 0, 3], [1, 1, 1, 1, 1]])
    stack = TableStack(table, counts)
    for b, row in enumerate(counts):
        alone = table.with_counts(row)
        assert (stack.n_samples[b], stack.n_classes[b], stack.n_clusters[b],
                stack.nnz[b]) == (alone.n_samples, alone.n_classes, alone.n_clusters,
                                  alone.nnz)
        assert stack.class_sizes[b][stack.class_sizes[b] > 0].tolist() == \
            alone.class_sizes.tolist()


@pytest.mark.parametrize("counts, message", [
    (np.zeros((2, 5), dtype=np.int64), "an item"),
    (np.ones((2, 4), dtype=np.int64), "shape"),
    (-np.ones((1, 5), dtype=np.int64), "non-negative"),
])
def test_a_stack_refuses_tables_it_cannot_hold(counts, message):
    table = cm.Contingency.from_labels([0, 0, 1, 1, 2], [0, 1, 1, 2, 2])
    with pytest.raises(ValueError, match=message):
        TableStack(table, counts)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 60), st.integers(1, 8), st.integers(1, 8))
def test_greedy_scan_of_a_stack_equals_algorithm_2_on_each_table(seed, n, k1, k2):
    """Stacks scanned together (layouts of up to 512 cells) against the table algorithm,
    on tables full of tied recall weights (small classes, counts of 1 and 2)."""
    rng = np.random.default_rng(seed)
    table = cm.Contingency.from_labels(rng.integers(0, k1, n), rng.integers(0, k2, n))
    counts = rng.multinomial(n, table.counts / n, size=8)
    stack = TableStack(table, counts)
    leave_out_copies(stack, copy_pairs(table.counts, counts).sum(axis=1))
    weights = np.divide(counts, stack.class_sizes[:, table.rows],
                        out=np.zeros(counts.shape), where=counts > 0)
    scanned = _greedy.greedy_scan_totals(stack, weights)
    assert scanned is not None
    want = [cm.recovery_rate_score(table.with_counts(row), method="greedy") *
            table.with_counts(row).n_clusters for row in counts]
    assert scanned.tolist() == pytest.approx(want, rel=1e-14)


@settings(max_examples=30, deadline=None)
@given(tables(), st.integers(1, 12))
def test_smi_of_a_stack_without_compiled_kernels_equals_each_replicate_alone(drawn,
                                                                            replicates):
    """Without the compiled pass every SMI of a stack comes from the null of its margins
    (shared by the tables that have them): each equals its table's SMI alone."""
    table, seed = drawn
    rng = np.random.default_rng(seed)
    counts = rng.multinomial(table.n_samples, table.counts / table.n_samples,
                             size=replicates)
    counts = counts[counts.any(axis=1)]
    if not counts.shape[0]:
        return
    old = _kernels.set_kernels("numpy")
    try:
        _assert_same(replicate_scores(table, counts, ["smi"]),
                     _per_table(table, counts, ["smi"]), ["smi"])
    finally:
        _kernels.set_kernels(old)
