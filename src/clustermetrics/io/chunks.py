"""Tables from streams: chunk by chunk, memory bounded by the table, not by the stream."""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from typing import Any

import numpy as np

from ..render.text import find_column
from ..table import Contingency
from ..table.device_labels import device_items, is_device_array, to_host
from ..table.exact_sums import BinaryRows, RationalSums, Subject
from ..table.parse import union_labels
from ..table.validation import as_label_array, check_same_length
from ..table.weight_values import Weights, read_weights

__all__ = ["ContingencyBuilder", "from_chunks"]


class ContingencyBuilder:
    """Build a table incrementally from chunks of (true, predicted) labels.

    Each ``update`` counts one chunk into a small table; pending tables are merged every
    ``merge_every`` chunks, so memory stays at about the final table plus ``merge_every``
    chunk tables, however long the stream. The result equals the table of all the labels
    at once (tables are mergeable).

    Chunks may carry ``sample_weight``: the table is then the one
    ``Contingency.from_labels`` gives for all the labels and weights at once, by the same
    rule (each cell the exact sum of its items' weights; counts when every sum is whole,
    else real masses, each rounded once). The pending chunks keep their cells' exact sums,
    and the rule is applied once, by :meth:`result`.

    Examples
    --------
    >>> b = ContingencyBuilder()
    >>> b.update([0, 0, 1], ["x", "x", "y"]).update([1, 2], ["y", "y"]).n_samples
    5
    >>> b.result().to_dense().tolist()
    [[2, 0], [0, 2], [0, 1]]
    >>> w = ContingencyBuilder().update([0, 1], [0, 0], [0.5, 0.25]).update([1], [0], [0.25])
    >>> w.result().to_dense().tolist()
    [[0.5], [0.5]]
    """

    def __init__(self, merge_every: int = 32):
        if merge_every < 1:
            raise ValueError(f"merge_every must be >= 1, got {merge_every}")
        self._merge_every = merge_every
        self._pending: list[Contingency] = []
        self._weighted: list[tuple[np.ndarray, np.ndarray, Weights]] = []
        self._n = 0
        self._made: Contingency | None = None  # result() since the last update

    def update(self, labels_true: Any, labels_pred: Any = None,
               sample_weight: Any = None) -> ContingencyBuilder:
        """Count one chunk: two label sequences (with ``sample_weight``, one non-negative
        weight per item, as in ``Contingency.from_labels``), or a Contingency of those
        items.

        Empty chunks (both sequences of length 0, as filtered record batches can be) are
        skipped.
        """
        if _length(labels_true) == 0 and _length(labels_pred) == 0:
            return self
        self._made = None
        if sample_weight is not None:
            return self._update_weighted(labels_true, labels_pred, sample_weight)
        table = labels_true if isinstance(labels_true, Contingency) and labels_pred is None \
            else Contingency.from_labels(labels_true, labels_pred)
        self._pending.append(table)
        self._n += table.n_samples
        if len(self._pending) >= self._merge_every:
            self._pending = [Contingency.merge(self._pending)]
        return self

    def _update_weighted(self, labels_true: Any, labels_pred: Any,
                         sample_weight: Any) -> ContingencyBuilder:
        if isinstance(labels_true, Contingency):
            raise ValueError("sample_weight weighs label sequences: a Contingency holds "
                             "its own counts")
        arrays = (labels_true, labels_pred, sample_weight)
        if any(map(is_device_array, arrays)):
            items = device_items(*arrays)
            if items is not None:  # labels factorised on their device
                return self._add_weighted(items.class_labels[items.rows],
                                          items.cluster_labels[items.cols], items.weights)
            labels_true, labels_pred, sample_weight = (
                to_host(v) if is_device_array(v) else v for v in arrays)
        t = as_label_array(labels_true, "labels_true")
        p = as_label_array(labels_pred, "labels_pred")
        check_same_length(t, p, "labels_true", "labels_pred")
        return self._add_weighted(t, p, sample_weight)

    def _add_weighted(self, t: np.ndarray, p: np.ndarray,
                      sample_weight: Any) -> ContingencyBuilder:
        weights = read_weights(sample_weight, "sample_weight")
        check_same_length(t, weights.positive, "labels_true", "sample_weight")
        keep = weights.positive
        if keep.any():
            self._weighted.append(Contingency.weighted_cells(t[keep], p[keep],
                                                             weights.take(keep)))
        if len(self._weighted) >= self._merge_every:
            self._weighted = [_merged_cells(self._weighted)]
        return self

    @property
    def n_samples(self) -> int | float:
        """Items counted so far (with weights: the total of the table :meth:`result`
        makes, the sum of its cells' masses each rounded once by the weight rule; the
        exact total where that table cannot be made)."""
        if not self._weighted:
            return self._n
        try:
            return self.result().n_samples
        except ValueError:  # out of range: the exact total says by how much
            total = sum((cells[2].rows.total() for cells in self._weighted),
                        Fraction(self._n))
            return int(total) if total.denominator == 1 else float(total)

    def result(self) -> Contingency:
        """The table of every chunk so far (the builder can keep being updated)."""
        if not self._pending and not self._weighted:
            raise ValueError("no chunks were added: call update(labels_true, labels_pred)")
        if self._weighted:
            if self._made is None:  # n_samples reads it too: made once per update
                # counted chunks join as weights: their counts (or masses) are exact
                parts = self._weighted + [_cells_of(table) for table in self._pending]
                t, p, weights = _merged_cells(parts)
                self._made = Contingency.from_weighted_labels(
                    t, p, weights, Subject.argument("sample_weight"))
            return self._made
        self._pending = [Contingency.merge(self._pending)]
        return self._pending[0]


def _cells_of(table: Contingency) -> tuple[np.ndarray, np.ndarray, Weights]:
    """A table's cells as labels with exact weights (a float mass is the number it holds)."""
    t, p, counts = table.class_labels[table.rows], table.cluster_labels[table.cols], \
        table.counts
    rows = BinaryRows.of_floats(counts) if table.real_valued else RationalSums(counts)
    return t, p, Weights(rows, table.real_valued, counts > 0)


def _merged_cells(parts: list[tuple[np.ndarray, np.ndarray, Weights]],
                  ) -> tuple[np.ndarray, np.ndarray, Weights]:
    """One list of cells with exact sums from several: labels equal across parts (of any
    types: 1 in an int64 chunk, 1 in an object one) are one label."""
    if len(parts) == 1:
        return parts[0]
    t = _common_labels([part[0] for part in parts], "class labels")
    p = _common_labels([part[1] for part in parts], "cluster labels")
    return Contingency.weighted_cells(t, p, Weights.concat([part[2] for part in parts]))


def _common_labels(arrays: list[np.ndarray], what: str) -> np.ndarray:
    """The label arrays end to end, each value kept as the union of labels keeps it
    (np.concatenate would turn the ints of one chunk into the strings or floats of
    another)."""
    labels, maps = union_labels(arrays, what)
    return labels[np.concatenate(maps)]


def from_chunks(chunks: Iterable[Any], *, true_col: str | None = None,
                pred_col: str | None = None, merge_every: int = 32,
                weight_col: str | None = None) -> Contingency:
    """The table of a stream of chunks.

    Each chunk is a ``(labels_true, labels_pred)`` pair or a ``(labels_true, labels_pred,
    sample_weight)`` triple, or, with ``true_col`` and ``pred_col`` (and ``weight_col``),
    a table-like object indexed by column name: a pandas DataFrame, a pyarrow
    RecordBatch/Table, a polars DataFrame or a dict of arrays. Weighted chunks give the
    table ``Contingency.from_labels`` gives for all of them at once
    (:class:`ContingencyBuilder`).

    Examples
    --------
    >>> from_chunks([([0, 1], [0, 0]), ([1], [1])]).to_dense().tolist()
    [[1, 0], [1, 1]]
    >>> from_chunks([([0, 1], [0, 0], [2, 1]), ([1], [1], [3])]).to_dense().tolist()
    [[2, 0], [1, 3]]
    """
    if (true_col is None) != (pred_col is None):
        raise ValueError("give both true_col and pred_col, or neither")
    if weight_col is not None and true_col is None:
        raise ValueError("weight_col names a column of table-like chunks: give true_col "
                         "and pred_col too")
    builder = ContingencyBuilder(merge_every=merge_every)
    for i, chunk in enumerate(chunks):
        try:
            _count_chunk(builder, chunk, true_col, pred_col, weight_col)
        except ValueError as exc:  # the parameter, then which of its items
            raise ValueError(f"chunks[{i}]: {exc}") from None
    if builder.n_samples == 0:
        raise ValueError("chunks is empty: no labels to count")
    return builder.result()


def _count_chunk(builder, chunk, true_col, pred_col, weight_col) -> None:
    if true_col is not None:
        weights = None if weight_col is None else _column(chunk, weight_col, "weight_col")
        builder.update(_column(chunk, true_col, "true_col"), _column(chunk, pred_col, "pred_col"),
                       weights)
        return
    if isinstance(chunk, Contingency):
        builder.update(chunk)
        return
    try:
        parts = () if isinstance(chunk, (str, bytes)) else tuple(chunk)
    except TypeError:
        parts = ()
    if len(parts) not in (2, 3):
        raise ValueError(f"a chunk must be a (labels_true, labels_pred) pair or a "
                         f"(labels_true, labels_pred, sample_weight) triple, got "
                         f"{type(chunk).__name__}; for DataFrames or record batches pass "
                         "true_col and pred_col")
    builder.update(*parts)


def _length(values: Any) -> int | None:
    try:
        return len(values)
    except TypeError:  # an array-API array need not have a len: its shape says
        shape = getattr(values, "shape", None)
        return shape[0] if isinstance(shape, tuple) and len(shape) == 1 else None


def _column_names(chunk: Any) -> list[str]:
    """Column names of a pandas/polars DataFrame, pyarrow batch or table, or a dict."""
    for attr in ("column_names", "columns"):
        names = getattr(chunk, attr, None)
        if names is not None:
            return [str(n) for n in list(names)]
    return [str(k) for k in chunk.keys()] if hasattr(chunk, "keys") else []


def _column(chunk: Any, name: str, option: str) -> Any:
    find_column("the chunk", _column_names(chunk), name, option)
    return chunk[name]
