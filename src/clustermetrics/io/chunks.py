"""Tables from streams: chunk by chunk, memory bounded by the table, not by the stream."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..render.text import find_column
from ..table import Contingency

__all__ = ["ContingencyBuilder", "from_chunks"]


class ContingencyBuilder:
    """Build a table incrementally from chunks of (true, predicted) labels.

    Each ``update`` counts one chunk into a small table; pending tables are merged every
    ``merge_every`` chunks, so memory stays at about the final table plus ``merge_every``
    chunk tables, however long the stream. The result equals the table of all the labels
    at once (tables are mergeable).

    Examples
    --------
    >>> b = ContingencyBuilder()
    >>> b.update([0, 0, 1], ["x", "x", "y"]).update([1, 2], ["y", "y"]).n_samples
    5
    >>> b.result().to_dense().tolist()
    [[2, 0], [0, 2], [0, 1]]
    """

    def __init__(self, merge_every: int = 32):
        if merge_every < 1:
            raise ValueError(f"merge_every must be >= 1, got {merge_every}")
        self._merge_every = merge_every
        self._pending: list[Contingency] = []
        self._n = 0

    def update(self, labels_true: Any, labels_pred: Any = None) -> ContingencyBuilder:
        """Count one chunk: two label sequences, or a Contingency of those items.

        Empty chunks (both sequences of length 0, as filtered record batches can be) are
        skipped.
        """
        if _length(labels_true) == 0 and _length(labels_pred) == 0:
            return self
        table = labels_true if isinstance(labels_true, Contingency) and labels_pred is None \
            else Contingency.from_labels(labels_true, labels_pred)
        self._pending.append(table)
        self._n += table.n_samples
        if len(self._pending) >= self._merge_every:
            self._pending = [Contingency.merge(self._pending)]
        return self

    @property
    def n_samples(self) -> int:
        """Items counted so far."""
        return self._n

    def result(self) -> Contingency:
        """The table of every chunk so far (the builder can keep being updated)."""
        if not self._pending:
            raise ValueError("no chunks were added: call update(labels_true, labels_pred)")
        self._pending = [Contingency.merge(self._pending)]
        return self._pending[0]


def from_chunks(chunks: Iterable[Any], *, true_col: str | None = None,
                pred_col: str | None = None, merge_every: int = 32) -> Contingency:
    """The table of a stream of chunks.

    Each chunk is a ``(labels_true, labels_pred)`` pair, or, with ``true_col`` and
    ``pred_col``, a table-like object indexed by column name: a pandas DataFrame, a pyarrow
    RecordBatch/Table, a polars DataFrame or a dict of arrays.

    Examples
    --------
    >>> from_chunks([([0, 1], [0, 0]), ([1], [1])]).to_dense().tolist()
    [[1, 0], [1, 1]]
    """
    if (true_col is None) != (pred_col is None):
        raise ValueError("give both true_col and pred_col, or neither")
    builder = ContingencyBuilder(merge_every=merge_every)
    for i, chunk in enumerate(chunks):
        try:
            _count_chunk(builder, chunk, i, true_col, pred_col)
        except ValueError as exc:  # the parameter, then which of its items
            raise ValueError(f"chunks[{i}]: {exc}") from None
    if builder.n_samples == 0:
        raise ValueError("chunks is empty: no labels to count")
    return builder.result()


def _count_chunk(builder, chunk, i, true_col, pred_col) -> None:
    if true_col is not None:
        builder.update(_column(chunk, true_col, "true_col"), _column(chunk, pred_col, "pred_col"))
        return
    if isinstance(chunk, Contingency):
        builder.update(chunk)
        return
    try:
        labels_true, labels_pred = chunk
    except (TypeError, ValueError):
        raise ValueError(f"a chunk must be a (labels_true, labels_pred) pair, got "
                         f"{type(chunk).__name__}; for DataFrames or record batches pass "
                         "true_col and pred_col") from None
    builder.update(labels_true, labels_pred)


def _length(values: Any) -> int | None:
    try:
        return len(values)
    except TypeError:
        return None


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
