"""The distinct line sizes of many tables (a stack's replicates, or one table) and the
pairs of a row size with a column size, laid end to end: what the sums over
hypergeometric laws (the expected mutual information, the SMI's variance) iterate over,
each law once per distinct pair of sizes."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

__all__ = ["Tables", "tables_of"]


class Tables(NamedTuple):
    """The distinct line sizes of many tables and their pairs, laid end to end: table r
    has the row sizes ua[row_off[r]:row_off[r + 1]] (ascending, multiplicities ca), the
    column sizes likewise, and the pairs pa, pb[pair_off[r]:pair_off[r + 1]] (row-major),
    each held by pair_count of the table's cells (the two sizes' multiplicities
    multiplied)."""

    ua: np.ndarray
    ca: np.ndarray
    row_off: np.ndarray
    ub: np.ndarray
    cb: np.ndarray
    col_off: np.ndarray
    pa: np.ndarray
    pb: np.ndarray
    pair_off: np.ndarray
    pair_count: np.ndarray


def _distinct_rows(sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(values, counts, offsets): the distinct positive entries of each row of a (B, L)
    array, ascending, laid end to end (one sort for all the rows)."""
    sizes = np.asarray(sizes, dtype=np.int64)
    if sizes.shape[0] == 1:
        values, counts = np.unique(sizes[0][sizes[0] > 0], return_counts=True)
        return values, counts.astype(np.int64), np.array([0, values.shape[0]])
    width = int(sizes.max(initial=0)) + 1
    rows = np.broadcast_to(np.arange(sizes.shape[0], dtype=np.int64)[:, None], sizes.shape)
    keep = sizes > 0
    keys, counts = np.unique(rows[keep] * width + sizes[keep], return_counts=True)
    table = keys // width
    offsets = np.searchsorted(table, np.arange(sizes.shape[0] + 1))
    return keys - table * width, counts.astype(np.int64), offsets.astype(np.int64)


def tables_of(class_sizes: np.ndarray, cluster_sizes: np.ndarray) -> Tables:
    """:class:`Tables` of the tables whose class sizes are the rows of ``class_sizes`` and
    cluster sizes those of ``cluster_sizes`` (zeros: absent lines)."""
    ua, ca, row_off = _distinct_rows(class_sizes)
    ub, cb, col_off = _distinct_rows(cluster_sizes)
    if class_sizes.shape[0] == 1:  # one table: its pairs row-major, as below
        return Tables(ua, ca, row_off, ub, cb, col_off, np.repeat(ua, ub.shape[0]),
                      np.tile(ub, ua.shape[0]), np.array([0, ua.shape[0] * ub.shape[0]]),
                      np.outer(ca, cb).ravel())
    na, nb = np.diff(row_off), np.diff(col_off)
    pair_off = np.concatenate([[0], np.cumsum(na * nb)]).astype(np.int64)
    # each row entry repeated once per column of its table, then that table's columns
    row_table = np.repeat(np.arange(na.shape[0]), na)
    block = np.repeat(np.arange(ua.shape[0]), nb[row_table])  # the row entry of each pair
    starts = np.concatenate([[0], np.cumsum(nb[row_table])])[:-1]
    col = col_off[row_table[block]] + np.arange(block.shape[0]) - starts[block]
    return Tables(ua, ca, row_off, ub, cb, col_off, ua[block], ub[col], pair_off,
                  ca[block] * cb[col])
