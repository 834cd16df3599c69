"""Many tables of one layout of cells, scored at once: :class:`TableStack`.

Bootstrap replicates of a table keep its cells and redraw their counts; a stack holds B
such tables as one (B, nnz) array of counts over the cells of a *layout* (a
:class:`~clustermetrics.Contingency`). A cell drawn zero is absent from that table, and so
is a class or cluster left without items: every per-table quantity (``n_samples``,
``n_classes``, ``n_clusters``, ``nnz``) is an array with one entry per table, and the line
sizes are (B, R) and (B, C) arrays with zeros for the absent lines.

The score functions run on a stack as they run on one table: the helpers they are written
with (:mod:`clustermetrics.scores._cells`, :mod:`clustermetrics.scores._elementwise`)
reduce over the last axis (per-line sums and maxima, per-table totals), so one formula
gives one table's value or B tables' values in one vectorised pass; the few steps that are
one problem per table (an assignment, an expected mutual information) loop over the tables
inside their helper. A score's 0/0 entries are recorded (:meth:`TableStack.record_undefined`)
instead of raised, and get its convention.

Only integer counts are stacked (a stack is a set of resampled tables of whole items), and
only while every sum of products of two counts fits in int64 (N < 3.04e9): the helpers
then compute with int64 and float64 arrays.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from ..compute.dispatch import repeated
from .contingency import Contingency

if TYPE_CHECKING:  # typing_extensions is mypy's, not a runtime dependency
    from typing_extensions import TypeIs

__all__ = ["TableStack", "STACK_MAX_N", "Table", "is_stack"]

# below this N every product of two counts, and any sum of such products, fits in int64
STACK_MAX_N = 3_037_000_499


def is_stack(table: object) -> TypeIs[TableStack]:
    """Is ``table`` a :class:`TableStack` (many tables), not one table?"""
    return isinstance(table, TableStack)


class TableStack:
    """B tables sharing the cells of ``layout``, the b-th with cell counts ``counts[b]``.

    ``counts`` is a (B, nnz) array of non-negative integers in the order of the layout's
    cells (rows sorted, as in every :class:`~clustermetrics.Contingency`); each table must
    hold at least one item. The layout's labels are the stack's: ``class_sizes[b, i]`` is
    the size of class i in table b (0 when absent there).
    """

    real_valued = False

    def __init__(self, layout: Contingency, counts: np.ndarray) -> None:
        if layout.real_valued:
            raise ValueError("a stack holds tables of whole items, not real masses")
        counts = np.asarray(counts, dtype=np.int64)
        if counts.ndim != 2 or counts.shape[1] != layout.nnz:
            raise ValueError(f"counts must have shape (tables, {layout.nnz}), got "
                             f"{counts.shape}")
        self.layout = layout
        self.rows, self.cols = layout.rows, layout.cols
        self.counts = counts
        self._row_starts = _starts(layout.rows, layout.n_classes)
        self._col_order = np.argsort(layout.cols, kind="stable")
        self._col_starts = _starts(layout.cols[self._col_order], layout.n_clusters)
        self.n_samples = counts.sum(axis=1)
        if counts.size and (counts.min() < 0 or not self.n_samples.all()):
            raise ValueError("every table of a stack needs non-negative counts and an item")
        if counts.shape[0] and int(self.n_samples.max()) >= STACK_MAX_N:
            raise ValueError(f"a stack counts fewer than {STACK_MAX_N} items per table")
        self.class_sizes = self.row_sum(counts)
        self.cluster_sizes = self.col_sum(counts)
        self.n_classes = np.count_nonzero(self.class_sizes, axis=1)
        self.n_clusters = np.count_nonzero(self.cluster_sizes, axis=1)
        self.nnz = np.count_nonzero(counts, axis=1)
        self._derived: dict[str, Any] = {}
        self.undefined: list[tuple[np.ndarray, np.ndarray]] = []

    def __len__(self) -> int:
        return int(self.counts.shape[0])

    @property
    def width(self) -> tuple[int, int]:
        """(R, C): the layout's numbers of rows and columns (lines present in any table)."""
        return self.layout.n_classes, self.layout.n_clusters

    # ------------------------------------------------------------ per-line reductions
    def row_sum(self, values: np.ndarray) -> np.ndarray:
        """(B, R) sums over each row's cells of a (B, nnz) per-cell array."""
        return np.add.reduceat(values, self._row_starts, axis=-1)

    def col_sum(self, values: np.ndarray) -> np.ndarray:
        """(B, C) sums over each column's cells of a (B, nnz) per-cell array."""
        return np.add.reduceat(values[..., self._col_order], self._col_starts, axis=-1)

    def row_max(self, values: np.ndarray) -> np.ndarray:
        """(B, R) maxima over each row's cells."""
        return np.maximum.reduceat(values, self._row_starts, axis=-1)

    def col_max(self, values: np.ndarray) -> np.ndarray:
        """(B, C) maxima over each column's cells."""
        return np.maximum.reduceat(values[..., self._col_order], self._col_starts, axis=-1)

    # ------------------------------------------------------------ one table at a time
    def table(self, b: int) -> Contingency:
        """Table b as a :class:`~clustermetrics.Contingency` (its absent lines dropped)."""
        return self.layout.with_counts(self.counts[b])

    def each(self, compute: Callable[[Contingency], Any], name: str | None = None,
             ) -> list[Any]:
        """``compute`` of every table, one at a time (for the steps that are one problem
        per table); tables with equal counts are computed once. With a ``name`` (what
        ``compute`` computes), each value is also kept on the layout for the stacks of
        its other blocks of replicates (a small table's replicates repeat)."""
        return self.each_batch(lambda tables: [compute(t) for t in tables], name)

    def each_batch(self, compute: Callable[[list[Contingency]], list[Any]],
                   name: str | None = None) -> list[Any]:
        """:meth:`each` for a ``compute`` that takes the list of tables to compute at
        once (a step vectorised across tables: every table's codes minimised together)."""
        keys = [c.tobytes() for c in self.counts[self._distinct()[0]]]
        values = self._memo(name, keys, self.distinct_tables, compute)
        return [values[i] for i in self.distinct_index().tolist()]

    def by_margins(self, compute: Callable[[Contingency], Any], name: str | None = None,
                   among: np.ndarray | None = None) -> list[Any]:
        """``compute`` of every table (or of the tables ``among``, indices), for a
        ``compute`` that depends on a table's class and cluster sizes alone (as multisets:
        an expected mutual information, a variance under the permutation model): computed
        once per distinct pair of margins (kept on the layout under ``name``, as
        :meth:`each`, so the stacks of one sample's replicates share them)."""
        chosen = np.arange(len(self)) if among is None else np.asarray(among, dtype=np.int64)
        sizes = np.concatenate((np.sort(self.class_sizes[chosen], axis=1),
                                np.sort(self.cluster_sizes[chosen], axis=1)), axis=1)
        first, inverse = _distinct_rows(sizes)
        keys = [sizes[b].tobytes() for b in first.tolist()]
        values = self._memo(name, keys,
                            lambda: [self.table(int(chosen[b])) for b in first.tolist()],
                            lambda tables: [compute(t) for t in tables])
        return [values[i] for i in inverse.tolist()]

    def _memo(self, name: str | None, keys: list[bytes],
              tables: Callable[[], list[Contingency]],
              compute: Callable[[list[Contingency]], list[Any]]) -> list[Any]:
        """``compute`` of the tables behind ``keys`` (``tables()``, in their order), those
        already computed under ``name`` for this layout taken from there."""
        memo: dict[bytes, Any] = {} if name is None else \
            self.layout.cached(f"stack:{name}", lambda t: {})
        missing = [i for i, key in enumerate(keys) if key not in memo]
        if missing:
            made = tables()
            # the rest of a loop of stacks is likely to compute as small a share anew
            with repeated(len(missing) / max(len(self), 1)):
                values = compute([made[i] for i in missing])
            for i, value in zip(missing, values, strict=True):
                memo[keys[i]] = value
        return [memo[key] for key in keys]

    def distinct_tables(self) -> list[Contingency]:
        """One :class:`~clustermetrics.Contingency` per distinct row of counts, in the
        order of :meth:`distinct_index`'s values."""
        return [self.table(int(b)) for b in self._distinct()[0].tolist()]

    def distinct_index(self) -> np.ndarray:
        """For each table, the index of its counts among :meth:`distinct_tables`."""
        return self._distinct()[1]

    def _distinct(self) -> tuple[np.ndarray, np.ndarray]:
        return self.cached("distinct", lambda s: _distinct_rows(s.counts))

    # ------------------------------------------------------------ what scores read
    def cached(self, key: str, compute: Callable[[TableStack], Any]) -> Any:
        """``compute(self)``, once per stack (the tables do not change)."""
        try:
            return self._derived[key]
        except KeyError:
            value = self._derived[key] = compute(self)
            return value

    def peek(self, key: str) -> Any:
        return self._derived.get(key)

    def record_undefined(self, mask: Any, value: Any) -> None:
        """The tables where ``mask`` holds are a 0/0 of the score being computed, whose
        convention there is ``value`` (see :func:`~clustermetrics.scores._elementwise.
        undefined_where`)."""
        shape = self.n_samples.shape
        self.undefined.append((np.broadcast_to(np.asarray(mask, dtype=bool), shape),
                               np.broadcast_to(np.asarray(value, dtype=np.float64), shape)))

    def require_counts(self, what: str, why: str, error: type[ValueError] = ValueError,
                       ) -> None:
        """Nothing to refuse: a stack holds whole items."""


# what a score function reads: one table, or many tables of one layout
Table = Contingency | TableStack


def _starts(sorted_index: np.ndarray, size: int) -> np.ndarray:
    """Index of the first entry of each value 0 .. size - 1 in a sorted index array in
    which every value occurs."""
    return np.searchsorted(sorted_index, np.arange(size))


def _distinct_rows(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(the index of each distinct row's first occurrence, each row's index among those)
    of a 2-D array, distinct rows in order of first occurrence. Rows are told apart by
    their bytes in a dict: ``np.unique(axis=0)`` sorts a structured view of the rows,
    ~20 ms for 50 replicates of a 10^4-cell table, paid by every stack of a bootstrap."""
    rows = np.ascontiguousarray(rows)
    seen: dict[bytes, int] = {}
    first: list[int] = []
    inverse = np.empty(rows.shape[0], dtype=np.int64)
    for b in range(rows.shape[0]):
        index = seen.setdefault(rows[b].tobytes(), len(first))
        if index == len(first):
            first.append(b)
        inverse[b] = index
    return np.array(first, dtype=np.int64), inverse
