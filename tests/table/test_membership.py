"""Checking membership matrices: every violation a ValueError naming the argument, the
row and the problem; crisp labels one-hot; unassigned items by the chosen convention."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sparse

from clustermetrics.table.membership import as_membership, memberships


@pytest.mark.parametrize(("values", "message"), [
    ([[0.5, 0.5], [np.nan, 1.0]], "membership_true must be finite: row 1, column 0"),
    ([[0.5, 0.5], [np.inf, 0.0]], "membership_true must be finite: row 1, column 0"),
    ([[1.5, -0.5]], "membership_true must be non-negative: row 0, column 1"),
    ([[0.6, 0.6]], "row 0 sums to 1.2, more than 1"),
    ([[1.0, 0.0], [0.2, 0.3]], "row 1 sums to 0.5, an unassigned"),
    ([[[1.0]]], "3 dimensions"),
    ([["a", "b"]], "must hold numbers"),
    (np.zeros((0, 2)), "is empty"),
    ([0, None], "membership_true"),
])
def test_bad_memberships_are_refused_by_name_row_and_problem(values, message):
    with pytest.raises(ValueError, match=message):
        memberships(values, [[1.0]] * max(1, len(values)))


def test_mismatched_items_and_bad_options_are_refused():
    with pytest.raises(ValueError, match="same number of items.*got 2 and 3"):
        memberships([0, 1], [0, 1, 1])
    with pytest.raises(ValueError, match="unassigned must be one of"):
        memberships([0, 1], [0, 1], unassigned="ignore")
    with pytest.raises(ValueError, match="tol must be"):
        memberships([0, 1], [0, 1], tol=-1)
    with pytest.raises(ValueError, match="membership_pred must be non-negative"):
        memberships([0, 1], [[1.0, 0.0], [-0.1, 1.1]])


def test_labels_are_one_hot_in_sorted_label_order():
    got = as_membership(["b", "a", "b"], "x")
    assert got.tolist() == [[0, 1], [1, 0], [0, 1]]
    m = memberships(["b", "a", "b"], [[0.5, 0.5]] * 3)
    assert m.true_crisp and not m.pred_crisp


def test_sparse_is_read_as_its_dense_matrix():
    dense = np.array([[0.25, 0.75, 0.0], [0.0, 0.0, 1.0]])
    assert (as_membership(sparse.csr_matrix(dense), "x") == dense).all()


def test_unassigned_items_as_noise_or_dropped():
    u = [[0.5, 0.5], [0.0, 0.0], [0.2, 0.3]]
    v = [0, 1, 1]
    noise = memberships(u, v, unassigned="noise_cluster")
    assert noise.true.tolist() == [[0.5, 0.5, 0.0], [0.0, 0.0, 1.0], [0.2, 0.3, 0.5]]
    dropped = memberships(u, v, unassigned="drop")
    assert dropped.true.tolist() == [[0.5, 0.5]] and dropped.pred.tolist() == [[1.0, 0.0]]
    with pytest.raises(ValueError, match="left no item"):
        memberships([[0.0, 0.0]], [0], unassigned="drop")


def test_rows_within_tol_of_one_are_accepted():
    assert memberships([[0.5, 0.5 - 1e-12]], [0]).true.shape == (1, 2)
    with pytest.raises(ValueError, match="unassigned"):
        memberships([[0.5, 0.5 - 1e-6]], [0])
    assert memberships([[0.5, 0.5 - 1e-6]], [0], tol=1e-5).true.shape == (1, 2)
