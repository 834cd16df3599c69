"""The table's own sharp edges: comparison with non-tables, the label a merge keeps for
equal values of different types, and dense copies that would not fit in memory."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import clustermetrics.table.contingency as contingency_module
from clustermetrics import Contingency, contingency_matrix

# values equal under Python equality, of different types
_ONES = [1, 1.0, True, np.int64(1), np.float32(1.0), np.uint8(1), np.bool_(True), 1 + 0j]
_TWOS = [2, 2.0, np.int16(2), np.float64(2.0)]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.sampled_from(_ONES + _TWOS + ["a", "b"]), min_size=1,
                         max_size=4), min_size=2, max_size=4))
def test_merge_keeps_the_same_labels_in_any_order(label_lists):
    tables = [Contingency.from_labels(labels, ["x"] * len(labels)) for labels in label_lists]
    results = [Contingency.merge(order) for order in itertools.permutations(tables)]
    first = results[0]
    for other in results[1:]:
        assert other == first
        assert [(type(v), v) for v in other.class_labels.tolist()] == \
            [(type(v), v) for v in first.class_labels.tolist()]


def test_merge_prefers_the_simplest_type():
    parts = [Contingency.from_labels([v], ["x"]) for v in (1.0, True, np.int64(1), 1)]
    assert Contingency.merge(parts).class_labels.tolist() == [1]
    assert type(Contingency.merge(parts).class_labels.tolist()[0]) is int


@pytest.mark.parametrize("other", [np.array([1, 2]), np.array([]), [1], "table", 3, None,
                                   np.zeros((2, 2))])
def test_a_table_equals_no_other_kind_of_object(other):
    table = Contingency.from_labels([0, 1], [0, 0])
    assert (table == other) is False and (other == table) is False
    assert (table != other) is True and (other != table) is True


def test_dense_copies_beyond_available_memory_are_refused(monkeypatch):
    monkeypatch.setattr(contingency_module, "_available_memory", lambda: 8 * 1000)
    small = Contingency.from_labels(np.arange(30), np.arange(30))  # 900 cells: 7200 bytes
    assert small.to_dense().shape == (30, 30)
    big = Contingency.from_labels(np.arange(40), np.arange(40))  # 1600 cells: 12800 bytes
    for dense in (big.to_dense, lambda: contingency_matrix(np.arange(40), np.arange(40))):
        with pytest.raises(ValueError, match="40 x 40 = 1600 cells .* use to_sparse"):
            dense()


def test_a_dense_copy_of_a_huge_sparse_table_is_refused_at_once():
    table = Contingency.from_labels(np.arange(10**6), np.arange(10**6))
    with pytest.raises(ValueError, match="1000000 x 1000000"):
        table.to_dense()
    assert table.to_sparse().nnz == 10**6
