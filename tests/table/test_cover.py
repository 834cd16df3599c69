"""The cover structure: every input form gives the same memberships, the pair's rows and
overlaps equal their definitions on generated covers, and bad input is refused by name."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from clustermetrics import Cover, CoverPair
from clustermetrics.table.cover import as_cover, as_cover_pair

ITEMS = st.one_of(st.integers(-3, 8), st.sampled_from(["a", "b", "c", "d", "é"]))
COMMUNITY = st.frozensets(ITEMS, min_size=1, max_size=6)
COVER = st.lists(COMMUNITY, min_size=1, max_size=5)


def _sets(cover: Cover) -> dict:
    return {k: set(v) for k, v in cover.to_communities().items()}


def _canonical(matrix) -> None:
    """0/1 int64 csr, sorted indices, no repeated membership."""
    assert isinstance(matrix, sp.csr_array)
    assert matrix.dtype == np.int64 and (matrix.data == 1).all()
    for r in range(matrix.shape[0]):
        row = matrix.indices[matrix.indptr[r]:matrix.indptr[r + 1]]
        assert (np.diff(row) > 0).all()


@settings(max_examples=60, deadline=None)
@given(COVER)
def test_every_input_form_gives_the_same_cover(communities):
    by_list = Cover.from_communities(communities)
    pairs = [(i, k) for k, c in enumerate(communities) for i in c]
    by_pairs = Cover.from_pairs([i for i, _ in pairs], [k for _, k in pairs])
    dense = np.zeros((by_list.n_items, by_list.n_communities), dtype=np.int8)
    dense[by_list.membership.nonzero()] = 1
    by_matrix = Cover.from_membership(dense, items=by_list.items)
    by_sparse = Cover.from_membership(sp.coo_array(dense), items=by_list.items)
    expected = {k: set(c) for k, c in enumerate(communities)}
    for cover in (by_list, by_pairs, by_matrix, by_sparse):
        assert _sets(cover) == expected
        _canonical(cover.membership)
        assert cover.sizes.tolist() == [len(c) for c in communities]


@settings(max_examples=80, deadline=None)
@given(COVER, COVER, st.sampled_from(["union", "true", "explicit"]))
def test_the_pair_holds_both_covers_on_one_item_set_and_their_overlaps(t, p, mode):
    union = set().union(*t, *p)
    explicit = sorted(union, key=repr)[::2] + ["never named"]
    items = explicit if mode == "explicit" else mode
    counted = set(explicit) if mode == "explicit" else set().union(*t) if mode == "true" \
        else union
    if mode != "explicit" and not set().union(*t) & set().union(*p):
        with pytest.raises(ValueError, match="share no item"):
            CoverPair(Cover.from_communities(t), Cover.from_communities(p), items=items)
        return
    kept_t = [c & counted for c in t if c & counted]
    kept_p = [c & counted for c in p if c & counted]
    if not kept_t or not kept_p:
        with pytest.raises(ValueError, match="no community with an item"):
            CoverPair(Cover.from_communities(t), Cover.from_communities(p), items=items)
        return
    pair = CoverPair(Cover.from_communities(t), Cover.from_communities(p), items=items)
    assert pair.n_items == len(counted) == pair.true.shape[0] == pair.pred.shape[0]
    assert set(pair.items.tolist()) == counted
    _canonical(pair.true)
    _canonical(pair.pred)
    row = {item: r for r, item in enumerate(pair.items.tolist())}
    got_t = [{pair.items[r] for r in pair.true[:, [k]].nonzero()[0]} for k in range(pair.n_true)]
    assert got_t == kept_t and [set(c) for c in got_t] == kept_t
    assert pair.true_sizes.tolist() == [len(c) for c in kept_t]
    assert pair.pred_sizes.tolist() == [len(c) for c in kept_p]
    dense = [[len(c & d) for d in kept_p] for c in kept_t]
    assert pair.overlaps.toarray().tolist() == dense
    assert pair.overlaps.nnz == sum(v > 0 for r in dense for v in r)  # only non-zeros
    assert all(row[i] < pair.n_items for i in counted)


def test_items_in_no_community_count_in_the_item_set():
    membership = np.array([[1, 0], [1, 1], [0, 0]])  # item 2 is in no community
    pair = CoverPair(Cover.from_membership(membership), Cover.from_communities([[0, 1]]))
    assert pair.n_items == 3
    pair = CoverPair(Cover.from_communities([[0, 1]]), Cover.from_communities([[1]]),
                     items=[0, 1, 5, 6])
    assert pair.n_items == 4 and pair.items.tolist() == [0, 1, 5, 6]


def test_ids_of_different_types_stay_distinct_and_equal_ones_merge():
    pair = CoverPair(Cover.from_communities([[1, "1"]]), Cover.from_communities([[1.0, 2]]))
    assert pair.n_items == 3  # 1 == 1.0 is one item (Python equality); "1" another
    assert pair.overlaps.toarray().tolist() == [[1]]


def test_a_partition_is_a_cover_of_one_community_per_item():
    cover = Cover.from_labels(["x", "y", "x"])
    assert cover.to_communities() == {"x": [0, 2], "y": [1]}
    assert (cover.membership.sum(axis=1) == 1).all()


def test_a_repeated_membership_counts_once():
    cover = Cover.from_pairs([1, 1, 2], ["a", "a", "a"])
    assert cover.n_memberships == 2 and cover.sizes.tolist() == [2]


def test_a_mapping_names_its_communities():
    cover = Cover.from_communities({"red": [1, 2], "blue": [2]})
    assert cover.to_communities() == {"blue": [2], "red": [1, 2]}


def test_tuples_are_ids_as_networkx_names_grid_nodes():
    cover = Cover.from_communities({(0, "x"): [(0, 1), (0, 2)], "b": [(1, 1)]})
    assert _sets(cover) == {(0, "x"): {(0, 1), (0, 2)}, "b": {(1, 1)}}


def test_scores_take_every_form_of_a_cover():
    communities = [[0, 1], [1, 2], [3]]
    dense = np.array([[1, 0, 0], [1, 1, 0], [0, 1, 0], [0, 0, 1]])
    forms = [communities, {"a": [0, 1], "b": [1, 2], "c": [3]}, dense, sp.csr_array(dense),
             sp.coo_matrix(dense), Cover.from_communities(communities)]
    for form in forms:
        assert sorted(map(sorted, _sets(as_cover(form, "true_cover")).values())) == \
            [[0, 1], [1, 2], [3]]


def test_an_item_set_may_be_a_set():
    pair = CoverPair(Cover.from_communities([[0, 1]]), Cover.from_communities([[1, 2]]),
                     items={0, 1, 5})
    assert pair.items.tolist() == [0, 1, 5] and pair.pred_sizes.tolist() == [1]


def test_a_pair_is_built_once_and_passed_as_is():
    pair = as_cover_pair([[1, 2]], [[2, 3]])
    assert as_cover_pair(pair) is pair


@pytest.mark.parametrize(("make", "message"), [
    (lambda: Cover.from_communities([[1, 2], []]), r"communities\[1\] is an empty community"),
    (lambda: Cover.from_communities([]), "communities is empty"),
    (lambda: Cover.from_communities([[1], "ab"]), r"communities\[1\] is a str, not a community"),
    (lambda: Cover.from_communities([1, 2]), r"communities\[0\] is a int, not a community"),
    (lambda: Cover.from_communities("ab"), "communities must be a list of communities"),
    (lambda: Cover.from_communities([[1, None]]), "missing labels"),
    (lambda: Cover.from_pairs([1, None], [1, 2]), "items contains 1 missing"),
    (lambda: Cover.from_pairs([1, 2], [1, float("nan")]), "communities contains 1 missing"),
    (lambda: Cover.from_pairs([1, 2], [1]), "items and communities have different lengths"),
    (lambda: Cover.from_membership([[1, 2]]), "membership holds values other than 0 and 1"),
    (lambda: Cover.from_membership([[1, 0]]), "1 empty communities"),
    (lambda: Cover.from_membership([1, 0]), "membership must be a 2-D"),
    (lambda: Cover.from_membership(np.zeros((0, 2))), "membership is empty"),
    (lambda: Cover.from_membership([[1]], items=[1, 2]), "items has 2 ids"),
    (lambda: Cover.from_membership([[1], [1]], items=[1, 1]), "items names 1 ids twice"),
    (lambda: CoverPair(Cover.from_labels([1]), Cover.from_labels([1]), items="all"),
     "unknown items 'all'"),
    (lambda: CoverPair(Cover.from_labels([1]), Cover.from_labels([1]), items=[0, 0]),
     "items names an item twice"),
    (lambda: CoverPair(Cover.from_communities([[1]]), Cover.from_communities([[1], [2]]),
                       items=[2]), "true_cover has no community"),
    (lambda: CoverPair(Cover.from_communities([[1, 2]]), Cover.from_communities([[2]]),
                       items=[1]), "pred_cover has no community"),
    (lambda: as_cover(np.array([0, 1, 1]), "true_cover"), "true_cover is a 1-D array of labels"),
    (lambda: as_cover_pair([[1]]), "pred_cover is required"),
    (lambda: as_cover_pair(as_cover_pair([[1]], [[1]]), [[1]]), "pred_cover must be None"),
])
def test_bad_input_is_refused_by_name(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_memory_is_memberships_plus_overlapping_pairs():
    """10^4 disjoint communities on each side: the overlaps hold 10^4 entries, not 10^8."""
    labels = np.arange(10**5) // 10
    pair = CoverPair(Cover.from_labels(labels), Cover.from_labels(labels))
    assert pair.overlaps.shape == (10**4, 10**4)
    assert pair.overlaps.nnz == 10**4


def _matrix(draw, rows: int) -> np.ndarray:
    """A 0/1 items x communities matrix of ``rows`` rows and no empty column."""
    cols = draw(st.integers(1, 3))
    m = np.array(draw(st.lists(st.lists(st.integers(0, 1), min_size=cols, max_size=cols),
                               min_size=rows, max_size=rows)), dtype=np.int64)
    m[draw(st.integers(0, rows - 1)), :] = 1
    return m


@settings(max_examples=60, deadline=None)
@given(st.data(), st.integers(1, 6), st.integers(1, 6), st.booleans())
def test_membership_matrices_of_different_row_counts_are_refused(data, n, m, sparse):
    """Rows of a matrix are items by position: unequal counts cannot be the same items."""
    a, b = _matrix(data.draw, n), _matrix(data.draw, m)
    if sparse:
        a, b = sp.csr_array(a), sp.csr_array(b)
    if n == m:
        assert CoverPair(a, b).n_items == n
        return
    for make in (CoverPair, as_cover_pair):
        with pytest.raises(ValueError, match=rf"true_cover has {n} rows and pred_cover "
                                             rf"{m} \(shapes \({n}, \d\) and \({m}, \d\)\)"):
            make(a, b)


@settings(max_examples=60, deadline=None)
@given(COVER, st.booleans())
def test_covers_sharing_no_item_are_refused_saying_when_id_types_differ(t, as_text):
    """Ids read from a file are text: '1' is not 1, and a cover of one scored against a
    cover of the other shares no item; the error says so rather than scoring them."""
    t = [frozenset(v + 100 for v in c if isinstance(v, int)) or frozenset({100}) for c in t]
    p = [frozenset(str(v) for v in c) for c in t] if as_text else \
        [frozenset(v + 1000 for v in c) for c in t]
    message = (r"share no item: true ids are int \(\d+.*\), predicted ids are str \('"
               if as_text else r"share no item \(true ids int")
    with pytest.raises(ValueError, match=message):
        CoverPair(t, p)


@pytest.mark.parametrize("value", [None, 3, 2.5, "ab", b"ab"])
def test_a_cover_pair_refuses_what_is_not_a_cover_by_name(value):
    with pytest.raises(ValueError, match="true_cover must be a cover"):
        CoverPair(value, [["a"]])
    with pytest.raises(ValueError, match="pred_cover must be a cover"):
        CoverPair([["a"]], value)


@settings(max_examples=60, deadline=None)
@given(COVER, COVER)
def test_a_cover_pair_takes_every_form_the_scores_take(t, p):
    """CoverPair reads the same forms as as_cover_pair (lists, mappings, Covers)."""
    if not set().union(*t) & set().union(*p):
        return
    built = as_cover_pair(Cover.from_communities(t), Cover.from_communities(p))
    for a, b in ((t, p), (dict(enumerate(t)), p), (Cover.from_communities(t), p)):
        pair = CoverPair(a, b)
        assert pair.items.tolist() == built.items.tolist()
        assert (pair.overlaps != built.overlaps).nnz == 0


@settings(max_examples=40, deadline=None)
@given(st.data(), st.integers(1, 6))
def test_array_likes_are_read_as_their_shape_says(data, n):
    """A 0/1 DataFrame is a membership matrix (index: items, columns: communities), a
    Series or object array of lists a list of communities; a 3-D array is refused with its
    shape, a 1-D array of labels with the way to give a partition."""
    import pandas as pd

    m = _matrix(data.draw, n)
    expected = _sets(Cover.from_membership(m))
    assert _sets(as_cover(pd.DataFrame(m), "x")) == expected
    frame = pd.DataFrame(m, index=[f"i{k}" for k in range(n)])
    assert _sets(as_cover(frame, "x")) == {
        k: {f"i{v}" for v in c} for k, c in expected.items()}
    communities = [sorted(c) for c in expected.values()]
    objects = np.empty(len(communities), dtype=object)
    objects[:] = communities
    assert _sets(as_cover(objects, "x")) == _sets(Cover.from_communities(communities))
    assert _sets(as_cover(pd.Series(communities, index=list(expected)), "x")) == expected
    with pytest.raises(ValueError, match=r"x is an array of shape \(1, "):
        as_cover(m[None], "x")
    with pytest.raises(ValueError, match="x is a 1-D array of labels"):
        as_cover(np.arange(n), "x")
