"""Covers: clusterings in which an item may belong to several communities or to none.

A :class:`Cover` is one such clustering, stored as a sparse items x communities 0/1
membership matrix with the original item and community ids kept beside it. A
:class:`CoverPair` puts two covers on one set of item rows, once, with the community
sizes and the sparse matrix of overlaps |C_i ∩ D_j|: the analogue, for covers, of the
contingency table. Memory is O(memberships + overlapping community pairs), never
O(items²) and never dense communities x communities.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from .contingency import Contingency
from .factorize import factorize
from .parse import union_labels
from .validation import as_label_array, check_same_length

if TYPE_CHECKING:
    from scipy.sparse import csr_array

__all__ = ["ITEM_SETS", "Cover", "CoverPair", "as_cover", "as_cover_pair"]

# which items a pair of covers counts: those of either cover (McDaid's onmi counts every
# item named in either file), or the truth's; an explicit collection is the third form
ITEM_SETS = ("union", "true")


class Cover:
    """One cover: a sparse items x communities 0/1 membership matrix.

    Items and communities are factorised (rows and columns in the sorted order of their
    ids, as a :class:`~clustermetrics.Contingency` sorts labels); :attr:`items` and
    :attr:`communities` keep the original ids. An item may be in several communities
    or in none (a row of zeros: an item the cover knows but does not assign). Every
    community holds at least one item; a membership given twice counts once.

    Examples
    --------
    >>> c = Cover.from_communities([["a", "b"], ["b", "c"]])
    >>> c.n_items, c.n_communities, c.sizes.tolist()
    (3, 2, [2, 2])
    >>> c.membership.toarray().tolist()
    [[1, 0], [1, 1], [0, 1]]
    >>> Cover.from_pairs(["a", "b", "b"], [7, 7, 8]).to_communities()
    {7: ['a', 'b'], 8: ['b']}
    """

    __slots__ = ("_membership", "_items", "_communities")

    def __init__(self, membership: csr_array, items: np.ndarray,
                 communities: np.ndarray) -> None:
        # Private: callers pass a canonical matrix (0/1 int64, sorted, no empty column).
        self._membership = membership
        self._items = items
        self._communities = communities

    # ----------------------------------------------------------------- constructors
    @classmethod
    def from_pairs(cls, items: Any, communities: Any) -> Cover:
        """Cover of long-format (item, community) pairs: one membership per position.

        Both are 1-D sequences of labels of any type the label readers accept; a
        missing value is refused, naming the argument."""
        item_values = as_label_array(items, "items")
        community_values = as_label_array(communities, "communities")
        check_same_length(item_values, community_values, "items", "communities")
        item_codes, item_ids = factorize(item_values)
        community_codes, community_ids = factorize(community_values)
        return cls._from_codes(item_codes, community_codes, item_ids, community_ids)

    @classmethod
    def from_communities(cls, communities: Iterable[Iterable[Any]] | Mapping[Any, Any],
                         name: str = "communities") -> Cover:
        """Cover of a list of communities, each an iterable of item ids (the cdlib and
        NetworkX form); a mapping gives each community its key as id, a list its
        position. An empty community, or a string given as a community, is refused."""
        ids, members = _community_lists(communities, name)
        sizes = [len(m) for m in members]
        flat = [item for m in members for item in m]
        item_values = as_label_array(_ids(flat), f"the items of {name}")
        item_codes, item_ids = factorize(item_values)
        community_values = as_label_array(_ids(ids), f"the ids of {name}")
        community_codes, community_ids = factorize(community_values)  # a mapping's keys
        positions = np.repeat(np.arange(len(members), dtype=np.int64), sizes)
        return cls._from_codes(item_codes, community_codes[positions], item_ids,
                               community_ids)

    @classmethod
    def from_membership(cls, matrix: Any, items: Any = None, communities: Any = None,
                        name: str = "membership") -> Cover:
        """Cover of an items x communities 0/1 matrix (dense, or scipy sparse).

        ``items`` and ``communities`` name the rows and columns (default: their
        positions). A row of zeros is an item in no community; a column of zeros (an
        empty community) and any value other than 0 and 1 are refused."""
        rows, cols, values, shape = _matrix_entries(matrix, name)
        if values.size and not np.isin(values, (0, 1)).all():
            raise ValueError(f"{name} holds values other than 0 and 1: a membership "
                             "matrix says which item is in which community")
        rows, cols = rows[values != 0], cols[values != 0]
        empty = np.flatnonzero(np.bincount(cols, minlength=shape[1]) == 0)
        if empty.size:
            raise ValueError(f"{name} has {empty.size} empty communities (columns with no "
                             f"item, the first at column {int(empty[0])}): drop them")
        item_ids, row_map = _axis(items, shape[0], "items")
        community_ids, col_map = _axis(communities, shape[1], "communities")
        return cls._from_codes(row_map[rows], col_map[cols], item_ids, community_ids)

    @classmethod
    def from_labels(cls, labels: Any, name: str = "labels") -> Cover:
        """The partition of a label sequence as a cover: item i (its position) in the
        community of its label."""
        values = as_label_array(labels, name)
        codes, community_ids = factorize(values)
        n = values.shape[0]
        return cls._from_codes(np.arange(n, dtype=np.int64), codes,
                               np.arange(n, dtype=np.int64), community_ids)

    @classmethod
    def from_table(cls, table: Contingency) -> Cover:
        """Cover of a table of (item, community) pairs read as labels: rows are items,
        columns communities, each non-zero cell one membership (how many times a pair
        was read does not matter)."""
        return cls._from_codes(table.rows, table.cols, table.class_labels,
                               table.cluster_labels)

    @classmethod
    def _from_codes(cls, item_codes: np.ndarray, community_codes: np.ndarray,
                    item_ids: np.ndarray, community_ids: np.ndarray) -> Cover:
        """The cover of membership codes into ``item_ids`` and ``community_ids`` (every
        community id used); repeated memberships count once."""
        from scipy import sparse  # here: ~0.09 s of import time, not paid by import

        n_items, n_communities = item_ids.shape[0], community_ids.shape[0]
        rows = np.asarray(item_codes, dtype=np.int64)
        cols = np.asarray(community_codes, dtype=np.int64)
        order = np.lexsort((cols, rows))
        rows, cols = rows[order], cols[order]
        keep = np.ones(rows.shape[0], dtype=bool)
        keep[1:] = (rows[1:] != rows[:-1]) | (cols[1:] != cols[:-1])
        rows, cols = rows[keep], cols[keep]
        indptr = np.zeros(n_items + 1, dtype=np.int64)
        np.cumsum(np.bincount(rows, minlength=n_items), out=indptr[1:])
        membership = sparse.csr_array(
            (np.ones(rows.shape[0], dtype=np.int64), cols, indptr),
            shape=(n_items, n_communities))
        membership.has_sorted_indices = True
        return cls(membership, item_ids, community_ids)

    # ----------------------------------------------------------------- views
    @property
    def membership(self) -> csr_array:
        """The items x communities 0/1 matrix (int64 ``csr_array``, sorted indices)."""
        return self._membership

    @property
    def items(self) -> np.ndarray:
        """Original item ids, sorted: the ids of the rows."""
        return self._items

    @property
    def communities(self) -> np.ndarray:
        """Original community ids, sorted: the ids of the columns."""
        return self._communities

    @property
    def n_items(self) -> int:
        return int(self._items.shape[0])

    @property
    def n_communities(self) -> int:
        return int(self._communities.shape[0])

    @property
    def n_memberships(self) -> int:
        return int(self._membership.nnz)

    @property
    def sizes(self) -> np.ndarray:
        """Number of items of each community (int64)."""
        return np.bincount(self._membership.indices, minlength=self.n_communities)

    def to_communities(self) -> dict[Any, list[Any]]:
        """Each community id with its items' ids, in sorted order."""
        columns = self._membership.tocsc()
        items = self._items.tolist()
        return {cid: [items[i] for i in columns.indices[columns.indptr[k]:
                                                         columns.indptr[k + 1]].tolist()]
                for k, cid in enumerate(self._communities.tolist())}

    def __repr__(self) -> str:
        return (f"Cover(n_items={self.n_items}, n_communities={self.n_communities}, "
                f"n_memberships={self.n_memberships})")


class CoverPair:
    """Two covers over one set of item rows, built once: what every cover score reads.

    Either cover may be given in any form :func:`as_cover` reads. Two membership matrices
    (rows named by position) must have as many rows; two covers must share at least one
    item, unless ``items`` lists the items counted.

    ``true`` and ``pred`` are int64 0/1 ``csr_array`` memberships with the same rows
    (``n_items`` x ``n_true`` and ``n_items`` x ``n_pred``, sorted indices, no repeated
    membership). ``items`` says which items count: ``"union"`` (default) every item of
    either cover, as McDaid's ``onmi`` program counts them; ``"true"`` the items of the
    true cover (the prediction's other items are left out); or an explicit collection
    of item ids (items of the covers outside it are left out; items in it that neither
    cover names are in no community of either). A community left with no counted item
    is dropped; a cover left with no community is an error.

    Examples
    --------
    >>> pair = CoverPair(Cover.from_communities([[1, 2, 3], [3, 4]]),
    ...                  Cover.from_communities([[1, 2], [3, 4, 5]]))
    >>> pair.n_items, pair.true_sizes.tolist(), pair.pred_sizes.tolist()
    (5, [3, 2], [2, 3])
    >>> pair.overlaps.toarray().tolist()
    [[2, 1], [0, 2]]
    >>> CoverPair(Cover.from_communities([[1, 2, 3], [3, 4]]),
    ...           Cover.from_communities([[1, 2], [3, 4, 5]]), items="true").pred_sizes.tolist()
    [2, 2]
    """

    __slots__ = ("true", "pred", "n_items", "items", "true_communities",
                 "pred_communities", "true_sizes", "pred_sizes", "_overlaps")

    def __init__(self, true_cover: Any, pred_cover: Any, *,
                 items: str | Iterable[Any] = "union") -> None:
        # two matrices name their items by row position: rows of different counts cannot
        # be the same items, and read as positions they would silently pair unrelated ones
        rows = _positional_rows(true_cover), _positional_rows(pred_cover)
        if None not in rows and rows[0] != rows[1]:
            raise ValueError(f"true_cover has {rows[0]} rows and pred_cover {rows[1]} "
                             f"(shapes {true_cover.shape} and {pred_cover.shape}): "
                             "the rows of two membership matrices are the same items, in "
                             "the same order; name them with Cover.from_membership(matrix, "
                             "items=...) when they are not")
        true_cover = as_cover(true_cover, "true_cover")
        pred_cover = as_cover(pred_cover, "pred_cover")
        universe, true_rows, pred_rows = _item_universe(true_cover, pred_cover, items)
        self.items: np.ndarray = universe
        self.n_items: int = int(universe.shape[0])
        self.true, self.true_communities = _on_rows(true_cover, true_rows, self.n_items,
                                                    "true_cover", items)
        self.pred, self.pred_communities = _on_rows(pred_cover, pred_rows, self.n_items,
                                                    "pred_cover", items)
        self.true_sizes: np.ndarray = np.bincount(self.true.indices,
                                                  minlength=self.true.shape[1])
        self.pred_sizes: np.ndarray = np.bincount(self.pred.indices,
                                                  minlength=self.pred.shape[1])
        self._overlaps: csr_array | None = None

    @property
    def n_true(self) -> int:
        return int(self.true.shape[1])

    @property
    def n_pred(self) -> int:
        return int(self.pred.shape[1])

    @property
    def overlaps(self) -> csr_array:
        """|C_i ∩ D_j| of every overlapping pair (true community i, predicted community
        j): an int64 ``csr_array`` n_true x n_pred holding only the non-zero overlaps,
        computed once in O(Σ over items of their true x predicted memberships)."""
        if self._overlaps is None:
            product = (self.true.T @ self.pred).tocsr()
            product.sum_duplicates()
            product.sort_indices()
            self._overlaps = product
        return self._overlaps

    def __repr__(self) -> str:
        return f"CoverPair(n_items={self.n_items}, n_true={self.n_true}, n_pred={self.n_pred})"


def as_cover(value: Any, name: str) -> Cover:
    """``value`` as a :class:`Cover`: a Cover, a membership matrix (2-D numpy array or
    scipy sparse), or a list (or mapping) of communities. A flat sequence of labels is
    refused: a partition's labels say nothing of which item each is, so pass
    ``Cover.from_labels(labels)``."""
    if isinstance(value, Cover):
        return value
    if isinstance(value, CoverPair):
        raise ValueError(f"{name} is a CoverPair, which holds two covers: give it alone, "
                         "as true_cover")
    if hasattr(value, "tocoo"):
        return Cover.from_membership(value, name=name)
    if hasattr(value, "to_numpy") and not isinstance(value, Mapping):
        # pandas: a DataFrame is a membership matrix whose index and columns name its
        # items and communities; a Series of communities is a mapping id -> items
        if getattr(value, "ndim", None) == 2:
            return Cover.from_membership(value.to_numpy(), items=_labels_of(value, "index"),
                                         communities=_labels_of(value, "columns"),
                                         name=name)
        if hasattr(value, "index") and _all_communities(value.to_numpy()):
            return Cover.from_communities(dict(zip(value.index, value.to_numpy(),
                                                   strict=True)), name=name)
        value = value.to_numpy()
    if isinstance(value, np.ndarray):
        if value.ndim == 2:
            return Cover.from_membership(value, name=name)
        if value.ndim == 1 and value.size and _all_communities(value):
            return Cover.from_communities(list(value), name=name)
        if value.ndim == 1:
            raise ValueError(f"{name} is a 1-D array of labels: a cover is a list of "
                             "communities, a membership matrix or a Cover; for a "
                             "partition's labels pass Cover.from_labels(labels)")
        raise ValueError(f"{name} is an array of shape {value.shape}: a membership matrix "
                         "is 2-D (items x communities)")
    if value is None or isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise ValueError(f"{name} must be a cover (a list or mapping of communities, an "
                         "items x communities 0/1 matrix, or a Cover), got "
                         f"{type(value).__name__}")
    return Cover.from_communities(value, name=name)


def as_cover_pair(true_cover: Any, pred_cover: Any = None, *,
                  items: str | Iterable[Any] = "union") -> CoverPair:
    """The pair of two covers (any form :func:`as_cover` reads) over the items ``items``
    names, or ``true_cover`` itself when it is a :class:`CoverPair` (then ``pred_cover``
    must be None and ``items`` its default)."""
    if isinstance(true_cover, CoverPair):
        if pred_cover is not None:
            raise ValueError("true_cover is a CoverPair, which holds both covers: "
                             "pred_cover must be None")
        if not (isinstance(items, str) and items == "union"):
            raise ValueError("items applies when the pair is built: give it to CoverPair")
        return true_cover
    if pred_cover is None:
        raise ValueError("pred_cover is required (or give a CoverPair as true_cover)")
    return CoverPair(true_cover, pred_cover, items=items)


# ----------------------------------------------------------------- helpers
def _positional_rows(value: Any) -> int | None:
    """The row count of a membership matrix whose rows are named by position (a numpy
    array or a scipy sparse matrix), else None."""
    if hasattr(value, "tocoo") or (isinstance(value, np.ndarray) and value.ndim == 2):
        return int(value.shape[0])
    return None


def _labels_of(frame: Any, axis: str) -> Any:
    return np.asarray(getattr(frame, axis), dtype=object) if hasattr(frame, axis) else None


def _all_communities(values: np.ndarray) -> bool:
    """Is every element a community (a non-string iterable), as in a Series of lists?"""
    return values.dtype == object and all(
        isinstance(v, Iterable) and not isinstance(v, (str, bytes)) for v in values)


def _describe_ids(ids: np.ndarray) -> str:
    """'str ('1', '2', ...)': the type and first ids of a cover's items."""
    first = ids[:2].tolist()
    kinds = sorted({type(v).__name__ for v in first})
    more = ", ..." if ids.shape[0] > 2 else ""
    return f"{'/'.join(kinds)} ({', '.join(map(repr, first))}{more})"


def _community_lists(communities: Any, name: str) -> tuple[list[Any], list[list[Any]]]:
    """(ids, members) of a list or mapping of communities, each checked."""
    if isinstance(communities, (str, bytes)) or not isinstance(communities, Iterable):
        raise ValueError(f"{name} must be a list of communities (each an iterable of item "
                         f"ids), got {type(communities).__name__}")
    if isinstance(communities, Mapping):
        ids, groups = list(communities.keys()), list(communities.values())
    else:
        groups = list(communities)
        ids = list(range(len(groups)))
    if not groups:
        raise ValueError(f"{name} is empty: at least one community is needed")
    members = []
    for cid, group in zip(ids, groups, strict=True):
        if isinstance(group, (str, bytes)) or not isinstance(group, Iterable):
            raise ValueError(f"{name}[{cid!r}] is a {type(group).__name__}, not a "
                             "community: each community is an iterable of item ids (a "
                             "flat list of labels is a partition: Cover.from_labels)")
        items = list(group)
        if not items:
            raise ValueError(f"{name}[{cid!r}] is an empty community: drop it")
        members.append(items)
    return ids, members


def _ids(values: list[Any]) -> Any:
    """Ids as a 1-D array: tuples (NetworkX names grid nodes by them) stay one id each,
    where numpy would read a list of them as a 2-D array."""
    if not any(isinstance(v, tuple) for v in values):
        return values
    out = np.empty(len(values), dtype=object)
    for k, v in enumerate(values):
        out[k] = v
    return out


def _matrix_entries(matrix: Any, name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                     tuple[int, int]]:
    if hasattr(matrix, "tocoo"):
        coo = matrix.tocoo()
        if coo.ndim != 2:
            raise ValueError(f"{name} must be 2-D, got {coo.ndim}-D")
        coo.sum_duplicates()
        rows, cols, values, shape = coo.row, coo.col, np.asarray(coo.data), coo.shape
    else:
        dense = np.asarray(matrix)
        if dense.ndim != 2:
            raise ValueError(f"{name} must be a 2-D items x communities matrix, got an "
                             f"array of shape {dense.shape}")
        rows, cols = np.nonzero(dense)
        values, shape = dense[rows, cols], dense.shape
    if shape[0] == 0 or shape[1] == 0:
        raise ValueError(f"{name} is empty (shape {shape}): at least one item and one "
                         "community are needed")
    if values.dtype.kind not in "biuf":
        raise ValueError(f"{name} has dtype {values.dtype}: a membership matrix holds "
                         "0 and 1")
    return rows.astype(np.int64), cols.astype(np.int64), values, (int(shape[0]),
                                                                  int(shape[1]))


def _axis(labels: Any, size: int, name: str) -> tuple[np.ndarray, np.ndarray]:
    """Sorted ids of one axis of a membership matrix and the map from position to them."""
    if labels is None:
        return np.arange(size, dtype=np.int64), np.arange(size, dtype=np.int64)
    values = as_label_array(labels, name)
    if values.shape[0] != size:
        raise ValueError(f"{name} has {values.shape[0]} ids but the membership matrix "
                         f"has {size} on that axis")
    codes, ids = factorize(values)
    if ids.shape[0] != size:
        raise ValueError(f"{name} names {size - ids.shape[0]} ids twice")
    return ids, codes


def _item_universe(true_cover: Cover, pred_cover: Cover,
                   items: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The counted items' ids, and for each cover the map from its rows to theirs (-1:
    not counted)."""
    arrays = [true_cover.items, pred_cover.items]
    kind = items if isinstance(items, str) else "explicit"
    if isinstance(items, str):
        if items not in ITEM_SETS:
            raise ValueError(f"unknown items {items!r}: choose 'union', 'true' or give "
                             "the collection of item ids to count")
    else:
        if isinstance(items, (set, frozenset)):
            items = sorted(items, key=repr)  # an order only to read it; the ids sort again
        explicit = as_label_array(items, "items")
        arrays.append(explicit)
    union, (true_codes, pred_codes, *rest) = union_labels(arrays, "items")
    if kind != "explicit" and np.intersect1d(true_codes, pred_codes).size == 0:
        # nothing to compare: every score would be computed on the two covers side by
        # side, a number with no meaning; most often the ids differ in type ('1' and 1).
        # An explicit item set is the caller's word on which items are the same.
        t, p = _describe_ids(true_cover.items), _describe_ids(pred_cover.items)
        kinds = (f": true ids are {t}, predicted ids are {p}"
                 if t.split(" ")[0] != p.split(" ")[0] else f" (true ids {t}, predicted {p})")
        raise ValueError(f"true_cover and pred_cover share no item{kinds}")
    counted = np.zeros(union.shape[0], dtype=bool)
    if kind == "union":
        counted[:] = True
    elif kind == "true":
        counted[true_codes] = True
    else:
        if np.unique(rest[0]).shape[0] != rest[0].shape[0]:
            raise ValueError("items names an item twice")
        counted[rest[0]] = True
    position = np.cumsum(counted) - 1
    position[~counted] = -1
    return union[counted], position[true_codes], position[pred_codes]


def _on_rows(cover: Cover, row_map: np.ndarray, n_items: int, name: str,
             items: Any) -> tuple[csr_array, np.ndarray]:
    """The cover's membership on the counted items' rows, and its kept community ids."""
    from scipy import sparse  # here: ~0.09 s of import time, not paid by import

    m = cover.membership
    if np.array_equal(row_map, np.arange(n_items)) and row_map.shape[0] == m.shape[0]:
        return m, cover.communities
    rows = np.repeat(row_map, np.diff(m.indptr))
    keep = rows >= 0
    rows, cols = rows[keep], m.indices[keep].astype(np.int64)
    used = np.bincount(cols, minlength=m.shape[1]) > 0
    if not used.any():
        which = f"items={items!r}" if isinstance(items, str) else "the items given"
        raise ValueError(f"{name} has no community with an item among the items counted "
                         f"({which})")
    new_col = np.cumsum(used) - 1
    cols = new_col[cols]
    order = np.lexsort((cols, rows))
    rows, cols = rows[order], cols[order]
    indptr = np.zeros(n_items + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=n_items), out=indptr[1:])
    out = sparse.csr_array((np.ones(rows.shape[0], dtype=np.int64), cols, indptr),
                           shape=(n_items, int(used.sum())))
    out.has_sorted_indices = True
    return out, cover.communities[used]
