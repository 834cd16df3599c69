"""The contingency table: constructors, merging, invariants, memory."""

import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics.cluster import contingency_matrix as sk_contingency_matrix

from clustermetrics import Contingency, contingency_matrix
from clustermetrics.table import counting

labels = st.lists(st.integers(-3, 3), min_size=1, max_size=40)


@st.composite
def label_pairs(draw, max_size=60):
    n = draw(st.integers(1, max_size))
    kt, kp = draw(st.integers(1, 8)), draw(st.integers(1, 8))
    t = draw(st.lists(st.integers(0, kt - 1), min_size=n, max_size=n))
    p = draw(st.lists(st.integers(0, kp - 1), min_size=n, max_size=n))
    return np.array(t), np.array(p)


def _direct_table(t, p):
    """Independent construction: a dict of pair counts."""
    cells = {}
    for a, b in zip(t.tolist(), p.tolist(), strict=True):
        cells[(a, b)] = cells.get((a, b), 0) + 1
    return cells


@settings(max_examples=100, deadline=None)
@given(label_pairs())
def test_table_matches_direct_count_and_sklearn(pair):
    t, p = pair
    table = Contingency.from_labels(t, p)
    cells = {(table.class_labels[r], table.cluster_labels[c]): n
             for r, c, n in zip(table.rows, table.cols, table.counts, strict=True)}
    assert cells == _direct_table(t, p)
    assert np.array_equal(table.to_dense(), sk_contingency_matrix(t, p))
    assert table.class_sizes.tolist() == [int((t == v).sum()) for v in table.class_labels]
    assert table.cluster_sizes.tolist() == [int((p == v).sum()) for v in table.cluster_labels]
    assert table.n_samples == len(t) and table.nnz == len(cells)
    # canonical order: sorted by row then column
    order = np.lexsort((table.cols, table.rows))
    assert np.array_equal(order, np.arange(table.nnz))


@settings(max_examples=60, deadline=None)
@given(label_pairs(), st.integers(1, 5))
def test_merge_of_chunks_equals_whole(pair, n_chunks):
    t, p = pair
    bounds = np.linspace(0, len(t), n_chunks + 1).astype(int)
    parts = [Contingency.from_labels(t[a:b], p[a:b])
             for a, b in zip(bounds[:-1], bounds[1:], strict=True) if b > a]
    whole = Contingency.from_labels(t, p)
    assert Contingency.merge(parts) == whole
    total = parts[0]
    for part in parts[1:]:
        total = total + part
    assert total == whole


def test_merge_aligns_labels_by_value_across_types():
    a = Contingency.from_labels(["x", "y"], [1, 2])
    b = Contingency.from_labels([3, "x"], [2, 5])
    merged = a + b
    whole = Contingency.from_labels(np.array(["x", "y", 3, "x"], dtype=object),
                                    np.array([1, 2, 2, 5]))
    assert merged == whole
    assert merged.n_classes == 3 and merged.n_samples == 4


def test_object_labels_mixing_numpy_scalars_and_tuples_sort():
    # numpy scalars compare with tuples elementwise (ValueError, not TypeError)
    pred = np.empty(4, dtype=object)
    pred[:] = [np.int64(1), (2, 3), np.int64(0), (2, 3)]
    table = Contingency.from_labels([0, 1, 1, 0], pred)
    assert table.cluster_labels.tolist() == [0, 1, (2, 3)]
    assert table.to_dense().tolist() == [[0, 1, 1], [1, 0, 1]]


def test_merge_int_dtypes_keeps_big_ints():
    a = Contingency.from_labels(np.array([2**53 + 1], dtype=np.int64), [0])
    b = Contingency.from_labels(np.array([2**53], dtype=np.int64), [0])
    c = Contingency.from_labels(np.array([7], dtype=np.uint8), [0])
    assert (a + b + c).class_labels.tolist() == [7, 2**53, 2**53 + 1]


def test_merge_errors():
    with pytest.raises(ValueError, match="tables is empty"):
        Contingency.merge([])
    with pytest.raises(ValueError, match=r"tables\[1\] is a list"):
        Contingency.merge([Contingency.from_labels([1], [1]), [1]])


def test_dense_and_sparse_counting_paths_agree(monkeypatch):
    rng = np.random.default_rng(3)
    t, p = rng.integers(0, 300, 5000), rng.integers(0, 200, 5000)
    dense = Contingency.from_labels(t, p)
    monkeypatch.setattr(counting, "DENSE_CELLS", 0)  # forces the sort path
    sparse = Contingency.from_labels(t, p)
    assert dense == sparse
    lex = Contingency.from_sorted_cells(*counting._count_pairs_lexsort(*_codes(t, p)),
                                        dense.class_labels, dense.cluster_labels)
    assert lex == dense


def _codes(t, p):
    return np.unique(t, return_inverse=True)[1], np.unique(p, return_inverse=True)[1]


def test_from_matrix_dense_sparse_and_labels():
    m = np.array([[5, 3, 0], [0, 2, 0]])
    a = Contingency.from_matrix(m)
    b = Contingency.from_matrix(sp.csr_matrix(m))
    assert a == b
    assert a.n_clusters == 2  # the all-zero column is dropped
    c = Contingency.from_matrix(m, class_labels=["q", "p"], cluster_labels=[30, 10, 20])
    assert c.class_labels.tolist() == ["p", "q"] and c.cluster_labels.tolist() == [10, 30]
    assert c.to_dense().tolist() == [[2, 0], [3, 5]]
    assert Contingency.from_matrix(m.astype(float)) == a


@pytest.mark.parametrize("matrix, match", [
    (np.array([1, 2]), "matrix must be 2-D"),
    (np.array([[1, -1]]), "matrix holds 1 negative counts \\(the first: -1\\)"),
    (np.array([[np.inf, 1]]), "infinite"),
    (np.zeros((0, 3)), "matrix is empty"),
    (np.zeros((2, 2)), "the table is empty"),
    (np.array([["a", "b"]]), "matrix holds 2 counts that are not numbers"),
])
def test_from_matrix_errors(matrix, match):
    with pytest.raises(ValueError, match=match):
        Contingency.from_matrix(matrix)


def test_from_matrix_label_errors():
    with pytest.raises(ValueError, match="class_labels has 1 labels but the matrix has 2"):
        Contingency.from_matrix([[1, 0], [0, 1]], class_labels=["a"])
    with pytest.raises(ValueError, match="cluster_labels contains duplicate labels"):
        Contingency.from_matrix([[1, 0], [0, 1]], cluster_labels=["a", "a"])


def test_from_counts_adds_repeats_and_drops_zeros():
    t = Contingency.from_counts(["a", "b", "a", "c"], [1, 1, 1, 2], [3, 4, 5, 0])
    assert t.class_labels.tolist() == ["a", "b"]  # "c" only had a zero count
    assert t.to_dense().tolist() == [[8], [4]]
    with pytest.raises(ValueError, match="counts holds 1 negative counts"):
        Contingency.from_counts([1], [1], [-2])
    with pytest.raises(ValueError, match="class_labels and counts have different lengths"):
        Contingency.from_counts([1, 2], [1, 2], [1])
    with pytest.raises(ValueError, match="class_labels contains 1 missing"):
        Contingency.from_counts([None], [1], [1])
    with pytest.raises(ValueError, match="the table is empty"):
        Contingency.from_counts([1], [1], [0])


def test_huge_counts_are_exact():
    t = Contingency.from_counts([0, 0, 1], [0, 1, 1], [10**10, 3, 10**10 + 7])
    assert t.n_samples == 2 * 10**10 + 10
    assert t.class_sizes.tolist() == [10**10 + 3, 10**10 + 7]


def test_read_only_and_properties():
    t = Contingency.from_labels([0, 0, 1], ["a", "b", "b"])
    with pytest.raises(ValueError):
        t.counts[0] = 5
    assert t.transpose().to_dense().tolist() == t.to_dense().T.tolist()
    assert t.T.T == t
    assert repr(t) == "Contingency(n_samples=3, n_classes=2, n_clusters=2, nnz=3)"
    assert isinstance(t.to_sparse(), sp.csr_matrix)
    assert (t.to_sparse().toarray() == t.to_dense()).all()


def test_sklearn_contingency_matrix_compat():
    t, p = [0, 0, 1, 2], ["a", "a", "b", "b"]
    assert np.array_equal(contingency_matrix(t, p), sk_contingency_matrix(t, p))
    assert np.array_equal(contingency_matrix(t, p, eps=0.5), sk_contingency_matrix(t, p, eps=0.5))
    ours, theirs = contingency_matrix(t, p, sparse=True), sk_contingency_matrix(t, p, sparse=True)
    assert type(ours) is type(theirs) and (ours != theirs).nnz == 0
    with pytest.raises(ValueError, match="Cannot set 'eps' when sparse=True"):
        contingency_matrix(t, p, eps=1.0, sparse=True)


def test_memory_is_proportional_to_nonzeros():
    # 1e5 x 1e5 classes/clusters: a dense table would need 80 GB
    rng = np.random.default_rng(0)
    n, k = 10**6, 10**5
    t = rng.integers(0, k, n)
    p = rng.integers(0, k, n)
    tracemalloc.start()
    table = Contingency.from_labels(t, p)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert table.n_classes > 99_000 and table.n_clusters > 99_000
    assert peak < 200 * 2**20, f"peak {peak / 2**20:.0f} MiB"
