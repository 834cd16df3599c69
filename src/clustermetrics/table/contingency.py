"""The contingency table: the one data structure every score is computed from.

Rows are true classes, columns predicted clusters (scikit-learn's orientation). Only the
non-zero cells are stored (COO, sorted by row then column), so memory is O(nnz) whatever
the numbers of classes and clusters. Tables are immutable and mergeable: the table of a
union of disjoint item sets is the sum of their tables, aligned by label value.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

import numpy as np

from ..render.html import capped_counts, heatmap_table
from ..render.html import text as html_text
from .counting import (
    aggregate,
    cell_groups,
    compact,
    compact_sizes,
    count_pairs,
    group_sum,
    new_codes,
    sort_cells,
)
from .device_labels import device_cells, device_items
from .devices import is_device_array, to_host
from .exact_sums import BinaryRows, RationalSums, Subject, decide
from .factorize import factorize, factorize_for_counting
from .parse import axis_labels, matrix_cells, union_labels
from .validation import MAX_ITEMS, REAL_TOTAL, as_label_array, check_same_length
from .weight_values import Weights, read_weights

__all__ = ["Contingency", "Factorized", "as_contingency", "contingency_matrix",
           "REAL_MASSES"]

# why a table has no whole items: weights or counts given as real numbers
REAL_MASSES = "the table holds real-valued masses (from sample_weight or real counts)"
_COUNTS, _MATRIX = (Subject(f"{name} holds", f"{name} adds up to",
                            "the table is empty: all counts are zero")
                    for name in ("counts", "matrix"))


class Factorized(NamedTuple):
    """Labels as codes into their sorted ``labels``; ``complete`` is False when some
    labels may not occur (small-range integers are only offset)."""

    codes: np.ndarray
    labels: np.ndarray
    complete: bool


class Contingency:
    """Sparse contingency table of true classes (rows) against predicted clusters (columns).

    Build it with :meth:`from_labels`, :meth:`from_matrix`, :meth:`from_counts` or by merging
    tables (``a + b``, :meth:`merge`). Every score in the library accepts a table in place of
    the two label arrays, so a table built once can be scored many times.

    Examples
    --------
    >>> t = Contingency.from_labels(["a", "a", "b", "b"], [0, 0, 0, 1])
    >>> t.n_samples, t.n_classes, t.n_clusters, t.nnz
    (4, 2, 2, 3)
    >>> t.to_dense()
    array([[2, 0],
           [1, 1]])

    Counts are int64 item counts; a table built from ``sample_weight`` (or counts) whose
    cells do not all sum to whole numbers holds float64 cell masses instead, n_ij = the
    exact sum of the weights of the items in the cell, rounded once (:attr:`real_valued`).
    """

    __slots__ = ("_rows", "_cols", "_counts", "_class_labels", "_cluster_labels",
                 "_class_sizes", "_cluster_sizes", "_n", "_derived")

    def __init__(self, rows: np.ndarray, cols: np.ndarray, counts: np.ndarray,
                 class_labels: np.ndarray, cluster_labels: np.ndarray,
                 class_sizes: np.ndarray, cluster_sizes: np.ndarray) -> None:
        # Private: callers pass a canonical table. Use the from_* constructors.
        self._rows, self._cols, self._counts = _frozen(rows), _frozen(cols), _frozen(counts)
        self._class_labels = _frozen(class_labels)
        self._cluster_labels = _frozen(cluster_labels)
        self._class_sizes = _frozen(class_sizes)
        self._cluster_sizes = _frozen(cluster_sizes)
        self._n: int | float = int(class_sizes.sum(dtype=np.int64)) \
            if counts.dtype.kind != "f" else math.fsum(counts.tolist())
        self._derived: dict[str, Any] = {}

    # ----------------------------------------------------------------- constructors
    @classmethod
    def from_labels(cls, labels_true: Any, labels_pred: Any,
                    sample_weight: Any = None) -> Contingency:
        """Table of two label sequences of equal length (any hashable labels).

        ``sample_weight``: a non-negative number per item. A cell weighs the exact sum of
        its items' weights: when every cell's sum is whole the table counts items (a
        weight of 2 counts the item twice, exactly as if it were repeated), else it holds
        float64 cell masses, each sum rounded once (see :attr:`real_valued` and the user
        guide's "Sample weights"). Items of weight 0 are left out.

        Labels held by another array library (CuPy, PyTorch, JAX, any array-API array)
        are counted on their device, and only the table's cells come to the host: the
        same table as of the same labels in numpy (the user guide's "Labels on a GPU")."""
        if any(map(is_device_array, (labels_true, labels_pred, sample_weight))):
            table = cls._from_device(labels_true, labels_pred, sample_weight)
            if table is not None:
                return table
            labels_true, labels_pred, sample_weight = (  # no device path for their dtype
                to_host(v) if is_device_array(v) else v
                for v in (labels_true, labels_pred, sample_weight))
        t = as_label_array(labels_true, "labels_true")
        p = as_label_array(labels_pred, "labels_pred")
        check_same_length(t, p, "labels_true", "labels_pred")
        if sample_weight is not None:
            return cls._weighted(t, p, sample_weight)
        t_codes, t_labels, t_complete = factorize_for_counting(t)
        p_codes, p_labels, p_complete = factorize_for_counting(p)
        cells = count_pairs(t_codes, p_codes, t_labels.shape[0], p_labels.shape[0])
        return cls._from_counted(cells, t_labels, p_labels, t_complete, p_complete)

    @classmethod
    def _from_device(cls, labels_true: Any, labels_pred: Any,
                     sample_weight: Any) -> Contingency | None:
        """The table of labels on a device (``device_labels.py``), or None when their
        dtype has no device path."""
        if sample_weight is not None:
            items = device_items(labels_true, labels_pred, sample_weight)
            if items is None:
                return None
            subject = Subject.argument("sample_weight")
            weights = read_weights(items.weights, "sample_weight")
            if not weights.positive.any():
                raise ValueError(subject.zero)
            return cls.from_weights(items.rows, items.cols, weights, items.class_labels,
                                    items.cluster_labels, subject)
        cells = device_cells(labels_true, labels_pred)
        if cells is None:
            return None
        if cells.canonical:
            return cls._from_counted(cells[:5], cells.class_labels, cells.cluster_labels,
                                     *cells.complete)
        return cls.from_cells(cells.rows, cells.cols, cells.counts, cells.class_labels,
                              cells.cluster_labels)

    @classmethod
    def _weighted(cls, t: np.ndarray, p: np.ndarray, sample_weight: Any) -> Contingency:
        w = read_weights(sample_weight, "sample_weight")
        check_same_length(t, w.positive, "labels_true", "sample_weight")
        return cls.from_weighted_labels(t, p, w, Subject.argument("sample_weight"))

    @classmethod
    def from_weighted_labels(cls, t: np.ndarray, p: np.ndarray, weights: Weights,
                             subject: Subject) -> Contingency:
        """Table of checked label arrays with their checked weights (one per label),
        whose problems ``subject`` names: each cell the exact sum of its items' weights,
        counts or real masses by the rule of :mod:`.exact_sums`."""
        keep = weights.positive
        if not keep.any():
            raise ValueError(subject.zero)
        if not keep.all():
            t, p, weights = t[keep], p[keep], weights.take(keep)
        t_codes, t_labels = factorize(t)
        p_codes, p_labels = factorize(p)
        return cls.from_weights(t_codes, p_codes, weights, t_labels, p_labels, subject)

    @classmethod
    def from_counts(cls, class_labels: Any, cluster_labels: Any, counts: Any) -> Contingency:
        """Table from one row per cell, e.g. a group-by result; repeated pairs add up.
        ``counts`` are item counts, or real masses, summed as ``sample_weight`` is."""
        t = as_label_array(class_labels, "class_labels")
        p = as_label_array(cluster_labels, "cluster_labels")
        c = read_weights(counts, "counts", noun="counts")
        check_same_length(t, p, "class_labels", "cluster_labels")
        check_same_length(t, c.positive, "class_labels", "counts")
        t_codes, t_labels = factorize(t)
        p_codes, p_labels = factorize(p)
        return cls.from_weights(t_codes, p_codes, c, t_labels, p_labels, _COUNTS)

    @classmethod
    def from_matrix(cls, matrix: Any, class_labels: Any = None,
                    cluster_labels: Any = None) -> Contingency:
        """Table from a dense or scipy-sparse count matrix (rows = classes).

        All-zero rows and columns are dropped with their labels: a class with no items is not
        part of the partition.
        """
        rows, cols, values, shape = matrix_cells(matrix)
        t_labels, t_map = axis_labels(class_labels, shape[0], "class_labels")
        p_labels, p_map = axis_labels(cluster_labels, shape[1], "cluster_labels")
        # its non-zero entries: their positions in that list mean nothing to the caller
        weights = read_weights(values, "matrix", item=None, noun="counts")
        return cls.from_weights(t_map[rows], p_map[cols], weights, t_labels, p_labels,
                                _MATRIX)

    @classmethod
    def merge(cls, tables: Iterable[Contingency]) -> Contingency:
        """Table of the union of disjoint item sets, from their tables (labels aligned by
        value; one table is returned as it is)."""
        tables = list(tables)
        if not tables:
            raise ValueError("tables is empty: merge needs at least one Contingency")
        for i, t in enumerate(tables):
            if not isinstance(t, Contingency):
                raise ValueError(f"tables[{i}] is a {type(t).__name__}, not a Contingency")
        if len(tables) == 1:
            return tables[0]
        total = sum(t.n_samples for t in tables)
        if any(t.real_valued for t in tables):  # real masses: their own range
            if total > REAL_TOTAL[1]:
                raise ValueError(f"tables hold a total mass of {total:.3g} together, more "
                                 "than 1e150, the largest total of real masses")
        elif total > MAX_ITEMS:
            raise ValueError(f"tables hold {total} items together, more than 2**63 - 1 = "
                             f"{MAX_ITEMS}, the largest table counted exactly")
        t_labels, t_maps = union_labels([t._class_labels for t in tables], "class labels")
        p_labels, p_maps = union_labels([t._cluster_labels for t in tables], "cluster labels")
        rows = np.concatenate([m[t._rows] for m, t in zip(t_maps, tables, strict=True)])
        cols = np.concatenate([m[t._cols] for m, t in zip(p_maps, tables, strict=True)])
        counts = np.concatenate([t._counts for t in tables])
        real = counts.dtype.kind == "f"
        weights = Weights(BinaryRows.of_floats(counts) if real else RationalSums(counts),
                          real, counts > 0)
        # the tables' masses are weights like any other: their exact sums, by the rule
        return cls.from_weights(rows, cols, weights, t_labels, p_labels,
                                Subject.argument("tables"))

    def __add__(self, other: object) -> Contingency:
        if not isinstance(other, Contingency):
            return NotImplemented
        return Contingency.merge([self, other])

    # The building blocks below are the table's internal API for sources and table
    # rewrites (noise, bootstrap): their inputs are arrays the caller has already checked.
    @classmethod
    def from_group_counts(cls, t: np.ndarray, p: np.ndarray, counts: np.ndarray,
                          overwrite: bool = False) -> Contingency:
        """From (t, p) label pairs with positive counts in any order, normally unique (a
        GROUP BY result): the cells are sorted as packed keys (``counting.sort_cells``).
        Non-integral float64 counts (summed real weights) give a table of real masses.
        ``overwrite``: the three arrays belong to the caller alone and may be reused."""
        if np.asarray(counts).dtype.kind == "f":  # masses, decided by the caller
            t_codes, t_labels = factorize(t)
            p_codes, p_labels = factorize(p)
            return cls.from_cells(t_codes, p_codes, counts, t_labels, p_labels)
        t_codes, t_labels, t_complete = factorize_for_counting(t)
        p_codes, p_labels, p_complete = factorize_for_counting(p)
        cells = sort_cells(t_codes, p_codes, counts, t_labels.shape[0], p_labels.shape[0],
                           overwrite=overwrite)
        return cls._from_counted(cells, t_labels, p_labels, t_complete, p_complete)

    @classmethod
    def from_cells(cls, rows: np.ndarray, cols: np.ndarray, counts: np.ndarray,
                   class_labels: np.ndarray, cluster_labels: np.ndarray) -> Contingency:
        """From cells given as codes into sorted label arrays, in any order: repeated cells
        are summed, zero cells dropped and then the labels left without items. Float64
        counts are masses, summed exactly: counts or real masses by the rule of
        :mod:`.exact_sums`."""
        if np.asarray(counts).dtype.kind == "f":
            counts = np.asarray(counts, dtype=np.float64)
            return cls.from_weights(rows, cols, Weights(BinaryRows.of_floats(counts), True,
                                                        counts > 0),
                                    class_labels, cluster_labels, Subject.argument("counts"))
        rows, cols, counts = aggregate(rows, cols, counts, cluster_labels.shape[0])
        if counts.shape[0] == 0:
            raise ValueError("the table is empty: all counts are zero")
        rows, class_labels = compact(rows, class_labels)
        cols, cluster_labels = compact(cols, cluster_labels)
        return cls.from_sorted_cells(rows, cols, counts, class_labels, cluster_labels)

    @staticmethod
    def weighted_cells(t: np.ndarray, p: np.ndarray,
                       weights: Weights) -> tuple[np.ndarray, np.ndarray, Weights]:
        """The cells of label arrays with their weights: each cell's labels and the exact
        sum of its items' weights, not yet decided counts or masses (cells summing to 0
        left out). Feeding the cells of several parts to :meth:`from_weighted_labels`
        gives the table of all the parts."""
        t_codes, t_labels = factorize(t)
        p_codes, p_labels = factorize(p)
        cell, rows, cols = _held_cells(*cell_groups(t_codes, p_codes, t_labels.shape[0],
                                                    p_labels.shape[0]))
        sums = weights.rows.reduce(cell, rows.shape[0])
        keep = np.flatnonzero(sums.positive())
        return t_labels[rows[keep]], p_labels[cols[keep]], \
            Weights(sums.take(keep), weights.floats, np.ones(keep.shape[0], dtype=bool))

    @classmethod
    def from_weights(cls, rows: np.ndarray, cols: np.ndarray, weights: Weights,
                     class_labels: np.ndarray, cluster_labels: np.ndarray,
                     subject: Subject) -> Contingency:
        """From items given as codes into sorted label arrays, with their checked weights
        (their problems named by ``subject``):
        each cell their exact sum, counts or real masses by the rule of
        :mod:`.exact_sums`; cells of weight 0 are dropped, then the labels left without
        items."""
        n_t, n_p = class_labels.shape[0], cluster_labels.shape[0]
        cell, cell_rows, cell_cols = _held_cells(*cell_groups(rows, cols, n_t, n_p))
        sums = weights.rows.reduce(cell, cell_rows.shape[0])
        held = np.flatnonzero(sums.positive())
        cell_rows, cell_cols = cell_rows[held], cell_cols[held]
        values = decide(sums.take(held), subject, weights.floats)
        keep = np.flatnonzero(values > 0)
        if keep.shape[0] == 0:  # positive sums below the smallest float
            raise ValueError(f"{subject.zero}")
        rows, cols, counts = cell_rows[keep], cell_cols[keep], values[keep]
        rows, class_labels = compact(rows, class_labels)
        cols, cluster_labels = compact(cols, cluster_labels)
        return cls.from_sorted_cells(rows, cols, counts, class_labels, cluster_labels)

    @classmethod
    def from_sorted_cells(cls, rows: np.ndarray, cols: np.ndarray, counts: np.ndarray,
                          class_labels: np.ndarray, cluster_labels: np.ndarray) -> Contingency:
        """From cells already unique, sorted by (row, col), with positive counts, and
        covering every label of both sorted label arrays."""
        class_sizes = group_sum(rows, counts, class_labels.shape[0])
        cluster_sizes = group_sum(cols, counts, cluster_labels.shape[0])
        return cls(rows, cols, counts, class_labels, cluster_labels, class_sizes,
                   cluster_sizes)

    def with_counts(self, counts: np.ndarray) -> Contingency:
        """The same cells with other non-negative counts: cells at 0 are dropped, then the
        labels left without items. O(nnz + labels), no re-sort (a bootstrap replicate, a
        filtered column). The new margins are summed over the fixed row and column index
        of the cells; labels are renumbered only when one lost all its items."""
        # a copy: the caller may reuse its array; real masses stay float64
        counts = np.array(counts, dtype=np.float64) \
            if np.asarray(counts).dtype.kind == "f" else np.array(counts, dtype=np.int64)
        if counts.shape != self._counts.shape:
            raise ValueError(f"counts must hold one count per cell ({self.nnz}), got "
                             f"shape {counts.shape}")
        keep = np.flatnonzero(counts > 0)  # an index gathers ~10x faster than a mask
        kept = int(keep.shape[0])
        if not kept:
            raise ValueError("the table is empty: all counts are zero")
        class_sizes = group_sum(self._rows, counts, self.n_classes)
        cluster_sizes = group_sum(self._cols, counts, self.n_clusters)
        if kept == counts.shape[0]:
            rows, cols = self._rows, self._cols
        else:
            rows, cols, counts = self._rows[keep], self._cols[keep], counts[keep]
        t_labels, p_labels = self._class_labels, self._cluster_labels
        if not class_sizes.all():
            rows, t_labels, class_sizes = compact_sizes(rows, t_labels, class_sizes)
        if not cluster_sizes.all():
            cols, p_labels, cluster_sizes = compact_sizes(cols, p_labels, cluster_sizes)
        return Contingency(rows, cols, counts, t_labels, p_labels, class_sizes,
                           cluster_sizes)

    def with_labels(self, class_labels: np.ndarray, cluster_labels: np.ndarray) -> Contingency:
        """The same cells under other names, given in the same (sorted) order as the
        current labels."""
        if class_labels.shape != self._class_labels.shape or \
                cluster_labels.shape != self._cluster_labels.shape:
            raise ValueError("with_labels needs one new label per class and per cluster")
        return Contingency(self._rows, self._cols, self._counts, class_labels, cluster_labels,
                           self._class_sizes, self._cluster_sizes)

    @staticmethod
    def factorized(labels: Any, name: str = "labels_true") -> Factorized:
        """Labels checked and factorised once, to be paired with many labelings
        (:meth:`from_factorized`): the truth of a data frame with many runs."""
        values = as_label_array(labels, name)
        return Factorized(*factorize_for_counting(values))

    @classmethod
    def from_factorized(cls, truth: Factorized, labels_pred: Any, *,
                        rows: np.ndarray | None = None,
                        name: str = "labels_pred") -> Contingency:
        """Table of factorised true labels (:meth:`factorized`), or of the items at
        ``rows`` of them, against ``labels_pred`` (one label per item kept): the same
        table as :meth:`from_labels` of the raw labels."""
        codes, t_labels, complete = truth
        if rows is not None:
            codes, complete = codes[rows], False  # a subset may miss some classes
        p = as_label_array(labels_pred, name)
        if p.shape[0] != codes.shape[0]:
            raise ValueError(f"{name} holds {p.shape[0]} labels for {codes.shape[0]} items")
        p_codes, p_labels, p_complete = factorize_for_counting(p)
        cells = count_pairs(codes, p_codes, t_labels.shape[0], p_labels.shape[0])
        return cls._from_counted(cells, t_labels, p_labels, complete, p_complete)

    @classmethod
    def _from_counted(cls, cells: tuple[np.ndarray, ...], t_labels: np.ndarray,
                      p_labels: np.ndarray, t_complete: bool, p_complete: bool,
                      ) -> Contingency:
        """From sorted (rows, cols, counts, a, b); labels from ``factorize_for_counting``,
        whose small-range integer axes may list values that never occur: drop those."""
        rows, cols, counts, a, b = cells
        if not t_complete:
            rows, t_labels, a = compact_sizes(rows, t_labels, a)
        if not p_complete:
            cols, p_labels, b = compact_sizes(cols, p_labels, b)
        return cls(rows, cols, counts, t_labels, p_labels, a, b)

    # ----------------------------------------------------------------- properties
    @property
    def n_samples(self) -> int | float:
        """Total number of items N (the total weight, a float, when :attr:`real_valued`)."""
        return self._n

    @property
    def real_valued(self) -> bool:
        """True when the cells hold real-valued masses (float64; built from real
        ``sample_weight``) rather than int64 item counts. Scores that need whole items
        (chance models, significance, resampling) refuse such a table."""
        return self._counts.dtype.kind == "f"

    @property
    def n_classes(self) -> int:
        return int(self._class_labels.shape[0])

    @property
    def n_clusters(self) -> int:
        return int(self._cluster_labels.shape[0])

    @property
    def nnz(self) -> int:
        """Number of non-zero cells."""
        return int(self._counts.shape[0])

    @property
    def rows(self) -> np.ndarray:
        """Row (class) index of each non-zero cell, sorted by row then column."""
        return self._rows

    @property
    def cols(self) -> np.ndarray:
        """Column (cluster) index of each non-zero cell."""
        return self._cols

    @property
    def counts(self) -> np.ndarray:
        """Count n_ij of each non-zero cell (int64; float64 masses when
        :attr:`real_valued`)."""
        return self._counts

    @property
    def class_sizes(self) -> np.ndarray:
        """Row sums a_i, in the order of :attr:`class_labels`."""
        return self._class_sizes

    @property
    def cluster_sizes(self) -> np.ndarray:
        """Column sums b_j, in the order of :attr:`cluster_labels`."""
        return self._cluster_sizes

    @property
    def class_labels(self) -> np.ndarray:
        """Original true-class labels, sorted."""
        return self._class_labels

    @property
    def cluster_labels(self) -> np.ndarray:
        """Original predicted-cluster labels, sorted."""
        return self._cluster_labels

    def to_dense(self) -> np.ndarray:
        """The full (n_classes, n_clusters) int64 matrix. Allocates every cell, so a table
        whose dense form exceeds the memory available is refused (use :meth:`to_sparse`)."""
        _check_dense_fits(self.n_classes, self.n_clusters)
        dense = np.zeros((self.n_classes, self.n_clusters), dtype=self._counts.dtype)
        dense[self._rows, self._cols] = self._counts
        return dense

    def to_sparse(self) -> Any:
        """The table as a ``scipy.sparse.csr_matrix`` (int64)."""
        from scipy import sparse  # here, not at the top: ~0.09 s of import time

        return sparse.csr_matrix((self._counts, (self._rows, self._cols)),
                                 shape=(self.n_classes, self.n_clusters),
                                 dtype=self._counts.dtype)

    def transpose(self) -> Contingency:
        """The same table with the roles of classes and clusters swapped."""
        order = np.lexsort((self._rows, self._cols))
        return Contingency(self._cols[order], self._rows[order], self._counts[order],
                           self._cluster_labels, self._class_labels, self._cluster_sizes,
                           self._class_sizes)

    @property
    def T(self) -> Contingency:
        return self.transpose()

    def require_counts(self, what: str, why: str,
                       error: type[ValueError] = ValueError) -> None:
        """Raise ``error`` saying so when the table holds real-valued masses
        and ``what`` (a score, an interval, a test) needs whole items, for the reason
        ``why``."""
        if self.real_valued:
            raise error(f"{what} needs integer item counts, but {REAL_MASSES}: {why}; "
                        "use integer weights or counts (repetitions)")

    def cached(self, key: str, compute: Callable[[Contingency], Any]) -> Any:
        """Value of ``compute(self)``, computed once per table (tables are immutable).

        Arrays are cached read-only: scores share them (see ``metrics._cells``)."""
        try:
            return self._derived[key]
        except KeyError:
            value = compute(self)
            if isinstance(value, np.ndarray):
                value = _frozen(value)
            self._derived[key] = value
            return value

    def peek(self, key: str) -> Any:
        """The value cached under ``key`` by :meth:`cached`, or None (nothing computed)."""
        return self._derived.get(key)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Contingency):
            return NotImplemented
        return (
            _same_labels(self._class_labels, other._class_labels)
            and _same_labels(self._cluster_labels, other._cluster_labels)
            and np.array_equal(self._rows, other._rows)
            and np.array_equal(self._cols, other._cols)
            and np.array_equal(self._counts, other._counts)
        )

    # numpy and pandas would otherwise broadcast ``array == table`` over the elements
    __array_ufunc__ = None
    __pandas_priority__ = 10_000

    def __hash__(self) -> int:
        """Consistent with ``==``: equal labels (Python equality) and equal cells."""
        return self.cached("hash", lambda t: hash((
            tuple(t._class_labels.tolist()), tuple(t._cluster_labels.tolist()),
            t._rows.tobytes(), t._cols.tobytes(), t._counts.tobytes())))

    def __repr__(self) -> str:
        return (f"Contingency(n_samples={self.n_samples}, n_classes={self.n_classes}, "
                f"n_clusters={self.n_clusters}, nnz={self.nnz})")

    def _repr_html_(self) -> str:
        """Notebook view: the size line and a heatmap of each class's share per cluster,
        clusters ordered after the class they hold most of (a near-diagonal), at most
        ``HEATMAP_MAX_LINES`` rows and columns (the rest summed into "+N others")."""
        rows = np.arange(self.n_classes, dtype=np.int64)
        dense, row_names, col_names = capped_counts(
            self._rows, self._cols, self._counts, rows, self._diagonal_columns(),
            self._class_labels, self._cluster_labels)
        return (f"<div><p>{html_text(repr(self))}</p>"
                f"{heatmap_table(dense, row_names, col_names)}</div>")

    def _diagonal_columns(self) -> np.ndarray:
        """Clusters ordered by the class holding most of them (ties: first class), then
        by decreasing size: the table's mass on and near the diagonal."""
        if self.nnz == 0:
            return np.arange(self.n_clusters, dtype=np.int64)
        order = np.lexsort((self._rows, -self._counts, self._cols))
        cols = self._cols[order]
        first = np.concatenate(([True], cols[1:] != cols[:-1]))
        majority = np.zeros(self.n_clusters, dtype=np.int64)
        majority[cols[first]] = self._rows[order][first]
        return np.lexsort((np.arange(self.n_clusters), -self._cluster_sizes, majority))

    def __reduce__(self) -> tuple[Any, ...]:
        return (Contingency, (self._rows, self._cols, self._counts, self._class_labels,
                              self._cluster_labels, self._class_sizes, self._cluster_sizes))


def _held_cells(cell: np.ndarray, rows: np.ndarray,
                cols: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Only the cells that hold an item, of a dense grid of cells: exact sums cost a few
    digits per cell, and the grid may be mostly empty."""
    held = np.bincount(cell, minlength=rows.shape[0]) > 0
    if held.all():
        return cell, rows, cols
    return new_codes(held)[cell], rows[held], cols[held]


def as_contingency(labels_true: Any, labels_pred: Any = None,
                   sample_weight: Any = None) -> Contingency:
    """The table for a metric call: a Contingency passed as is, or built from two label arrays
    (with ``sample_weight``: one weight per item, see :meth:`Contingency.from_labels`)."""
    if isinstance(labels_true, Contingency):
        if labels_pred is not None:
            raise ValueError("labels_pred must be None when labels_true is a Contingency")
        if sample_weight is not None:
            raise ValueError("sample_weight applies to labels, not to a table: a table's "
                             "counts already weigh its cells")
        return labels_true
    if labels_pred is None:
        raise ValueError("labels_pred is required unless labels_true is a Contingency")
    return Contingency.from_labels(labels_true, labels_pred, sample_weight)


def _check_dense_fits(n_rows: int, n_cols: int) -> None:
    """ValueError before allocating a dense int64 table larger than the available memory."""
    need = n_rows * n_cols * 8
    available = _available_memory()
    if need > available:
        raise ValueError(
            f"the dense table would hold {n_rows} x {n_cols} = {n_rows * n_cols} cells "
            f"({need / 2**30:.1f} GiB), more than the {available / 2**30:.1f} GiB of memory "
            "available; use to_sparse() or the non-zero cells (rows, cols, counts)")


def _available_memory() -> int:
    """Bytes of memory available now (physical pages free for use), or 2**63 if unknown."""
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return 2**63


def _same_labels(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and a.tolist() == b.tolist()


def _frozen(arr: np.ndarray) -> np.ndarray:
    arr = np.asarray(arr)
    if arr.flags.writeable:
        arr = arr.view()
        arr.flags.writeable = False
    return arr


def contingency_matrix(labels_true: Any, labels_pred: Any, *, eps: float | None = None,
                       sparse: bool = False, dtype: Any = np.int64,
                       sample_weight: Any = None) -> Any:
    """scikit-learn's ``contingency_matrix``: counts of (class, cluster) pairs.

    Rows follow the sorted true labels, columns the sorted predicted labels. Returns a dense
    array, or a ``scipy.sparse.csr_matrix`` with ``sparse=True``; ``eps`` is added to every
    cell of the dense matrix (not allowed with ``sparse``). Build a :class:`Contingency`
    instead to keep the table sparse and reusable. ``sample_weight`` (one non-negative
    weight per item) makes each cell the sum of its items' weights, as
    :meth:`Contingency.from_labels`; real weights need a float ``dtype``.

    Examples
    --------
    >>> contingency_matrix([0, 0, 1, 2], [0, 0, 1, 1]).tolist()
    [[2, 0], [0, 1], [0, 1]]
    """
    if eps is not None and sparse:
        raise ValueError("Cannot set 'eps' when sparse=True")
    table = Contingency.from_labels(labels_true, labels_pred, sample_weight)
    if table.real_valued and np.dtype(dtype).kind in "biu":
        raise ValueError(f"sample_weight has non-integral values, whose cell masses dtype "
                         f"{np.dtype(dtype)} would truncate: pass dtype=np.float64")
    if sparse:
        return table.to_sparse().astype(dtype)
    if eps is not None:
        return table.to_dense() + eps
    return table.to_dense().astype(dtype, copy=False)
