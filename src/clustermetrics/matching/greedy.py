"""The greedy recovery rate's matching (Li & Klette, Algorithm 2), exactly and fast.

Algorithm 2 scans the cells by (-W, cluster, class), W = n_ij / a_i compared as exact
fractions, and keeps each cell whose class and cluster are both still free.

A cell that comes first in that order among the cells of its class *and* among the cells of
its cluster is always kept: every cell scanned before it lies on other lines. Its two lines
are then taken by it, so the other cells on them are never kept and never affect the rest
of the scan. Greedy on the table is therefore these "mutual first" cells plus greedy on the
cells left off their lines. Finding them is O(nnz) without sorting, and on a clustering
close to its truth nearly every cell is settled this way; what is left is sorted and
scanned (float order, with runs of equal floats that hide distinct fractions re-sorted
exactly).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from ..table import Contingency
from .assignment import Leaders, off_lines

__all__ = ["STACK_SCAN_MAX_CELLS", "greedy_cells", "greedy_scan_totals"]

# Below this N every count * size product fits in int64 (N**2 < 2**63).
_INT64_PRODUCT_N = 3_037_000_499
# Below this N counts and sizes are exact floats, so float order of W agrees with the exact
# order (correctly rounded division is monotone) except where distinct ratios round equal.
_EXACT_FLOAT_N = 1 << 53
# Below this N distinct ratios of counts and sizes never round to one float: two of them
# differ by at least 1/N^2 > 2^-52, more than the spacing of floats in (0, 1]
_DISTINCT_FLOAT_N = 1 << 26
# Layouts of at most this many cells scan a stack of tables together (one vectorised step
# per position of the scan); larger ones run the table algorithm on each table
STACK_SCAN_MAX_CELLS = 512


def greedy_cells(table: Contingency, weights: np.ndarray,
                 first_round: Leaders | None = None) -> np.ndarray:
    """Indices (ascending) of the cells Algorithm 2 keeps; ``weights`` = counts / a_row.

    ``first_round``: the :func:`~._assignment.leaders` of ``weights`` if already computed
    (largest in their row, first on ties, and the unique largest in their column: exactly
    the mutual first cells, since within a class W orders like the count and a unique float
    maximum is the exact maximum).
    """
    if table.n_samples >= _EXACT_FLOAT_N:
        order = np.array(sorted(range(table.nnz), key=_exact_key(table)), dtype=np.int64)
        return _scan(table, order)
    taken, rest = _mutual_firsts(table, weights, first_round)
    if rest.shape[0]:
        order = rest[np.lexsort((table.rows[rest], table.cols[rest], -weights[rest]))]
        taken = np.concatenate([taken, _scan(table, _resolve_float_ties(table, weights,
                                                                           order))])
    return np.sort(taken)


def _mutual_firsts(table: Contingency, weights: np.ndarray,
                   first_round: Leaders | None) -> tuple[np.ndarray, np.ndarray]:
    """Cells first on both their lines, found round by round; and the cells left over.

    Stops when a round settles less than half of what is left (the sort is then cheaper).
    """
    active = np.arange(table.nnz)
    taken = []
    if first_round is not None:
        taken.append(first_round.cells)
        active = off_lines(table.rows, table.cols, first_round.cells, active,
                            table.n_classes, table.n_clusters)
    while active.shape[0]:
        first = _row_firsts(table, active) & _col_firsts(table, weights, active)
        chosen = active[first]
        if chosen.shape[0] == 0:
            break
        taken.append(chosen)
        before = active.shape[0]
        active = off_lines(table.rows, table.cols, chosen, active, table.n_classes,
                            table.n_clusters)
        if 2 * active.shape[0] > before:
            break
    done = np.concatenate(taken) if taken else np.zeros(0, dtype=np.int64)
    return done, active


def _row_firsts(table: Contingency, active: np.ndarray) -> np.ndarray:
    """Per active cell: first in its class? Within a class W orders like the count (one
    denominator), ties go to the smaller cluster, i.e. the earlier cell (cells are sorted)."""
    rows, counts = table.rows[active], table.counts[active]
    starts = np.flatnonzero(np.concatenate(([True], rows[1:] != rows[:-1])))
    best = np.maximum.reduceat(counts, starts)
    top = np.flatnonzero(counts == np.repeat(best, np.diff(np.append(starts, rows.shape[0]))))
    lead = top[np.concatenate(([True], rows[top[1:]] != rows[top[:-1]]))]
    out = np.zeros(active.shape[0], dtype=bool)
    out[lead] = True
    return out


def _col_firsts(table: Contingency, weights: np.ndarray, active: np.ndarray) -> np.ndarray:
    """Per active cell: first in its cluster (largest exact W, then smallest class)?

    The float maximum marks the candidates; a cluster whose candidates are not all the same
    fraction (distinct ratios that round equal) is left to the exact sort.
    """
    cols, w = table.cols[active], weights[active]
    best = np.zeros(table.n_clusters)
    np.maximum.at(best, cols, w)
    top = np.flatnonzero(w == best[cols])
    tc = cols[top]
    # candidates in cell order: the first of each cluster has the smallest class
    lead_pos = np.full(table.n_clusters, active.shape[0])
    np.minimum.at(lead_pos, tc, top)
    lead = lead_pos[tc]
    same = _same_fraction(table, active[top], active[lead])
    unsure = np.zeros(table.n_clusters, dtype=bool)
    unsure[tc[~same]] = True
    out = np.zeros(active.shape[0], dtype=bool)
    firsts = lead_pos[lead_pos < active.shape[0]]
    out[firsts[~unsure[cols[firsts]]]] = True
    return out


def _same_fraction(table: Contingency, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """n_a / size_a == n_b / size_b, exactly, for cell index arrays a and b."""
    ca, cb = table.counts[a], table.counts[b]
    sa, sb = table.class_sizes[table.rows[a]], table.class_sizes[table.rows[b]]
    if table.real_valued:  # float masses: their products compared as exact rationals
        return np.array([Fraction(x) * Fraction(y) == Fraction(u) * Fraction(v)
                         for x, y, u, v in zip(ca.tolist(), sb.tolist(), cb.tolist(),
                                               sa.tolist(), strict=True)], dtype=bool)
    if table.n_samples < _INT64_PRODUCT_N:
        return ca * sb == cb * sa
    return np.array([x * y == u * v for x, y, u, v in
                     zip(ca.tolist(), sb.tolist(), cb.tolist(), sa.tolist(), strict=True)],
                    dtype=bool)


def _scan(table: Contingency, order: np.ndarray) -> np.ndarray:
    """Keep each cell of ``order`` whose class and cluster are still free."""
    free_class = bytearray(b"\x01") * table.n_classes
    free_cluster = bytearray(b"\x01") * table.n_clusters
    # numpy views of the same flags: blocks of the scan drop cells on taken lines in bulk,
    # so the Python loop only sees cells whose lines were free when their block started.
    class_view = np.frombuffer(free_class, dtype=np.uint8)
    cluster_view = np.frombuffer(free_cluster, dtype=np.uint8)
    taken: list[int] = []
    start, size = 0, 256
    while start < order.shape[0]:
        block = order[start:start + size]
        start, size = start + size, min(2 * size, 1 << 16)
        rows, cols = table.rows[block], table.cols[block]
        keep = (class_view[rows] & cluster_view[cols]).astype(bool)
        for e, r, c in zip(block[keep].tolist(), rows[keep].tolist(), cols[keep].tolist(),
                           strict=True):
            if free_class[r] and free_cluster[c]:
                free_class[r] = free_cluster[c] = 0
                taken.append(e)
    return np.array(taken, dtype=np.int64)


def _exact_key(table: Contingency):
    counts, sizes = table.counts.tolist(), table.class_sizes.tolist()
    rows, cols = table.rows.tolist(), table.cols.tolist()
    # Fraction of each operand: exact for int counts and float masses alike
    return lambda e: (-(Fraction(counts[e]) / Fraction(sizes[rows[e]])), cols[e], rows[e])


def _resolve_float_ties(table: Contingency, w: np.ndarray, order: np.ndarray) -> np.ndarray:
    """Re-sort exactly the runs of equal floats W that hide distinct fractions.

    Equal fractions give identical floats, so most equal-float runs are true ties, already
    in (cluster, class) order; only runs mixing distinct fractions need the exact sort.
    """
    ws = w[order]
    same = np.flatnonzero(ws[1:] == ws[:-1])
    if same.shape[0] == 0:
        return order
    differ = ~_same_fraction(table, order[same], order[same + 1])
    if not differ.any():
        return order
    starts = np.flatnonzero(np.concatenate(([True], ws[1:] != ws[:-1])))
    ends = np.append(starts[1:], ws.shape[0])
    key = _exact_key(table)
    order = order.copy()
    for run in np.unique(np.searchsorted(starts, same[differ], side="right") - 1).tolist():
        lo, hi = int(starts[run]), int(ends[run])
        order[lo:hi] = sorted(order[lo:hi].tolist(), key=key)
    return order


def greedy_scan_totals(stack, weights: np.ndarray) -> np.ndarray | None:
    """The total weight Algorithm 2 keeps in each table of a stack of tables of one layout
    (``weights``: W of every table's cells, 0 on its empty cells), all tables scanned
    together, position by position of their (-W, cluster, class) orders; None where this
    does not apply (a layout of more than :data:`STACK_SCAN_MAX_CELLS` cells, or tables
    of :data:`_DISTINCT_FLOAT_N` items or more, where distinct fractions could round to
    one float and the exact order needs the table algorithm)."""
    if stack.rows.shape[0] > STACK_SCAN_MAX_CELLS or \
            int(stack.n_samples.max(initial=0)) >= _DISTINCT_FLOAT_N:
        return None
    tables = np.arange(len(stack))
    order = np.lexsort((np.broadcast_to(stack.rows, weights.shape),
                        np.broadcast_to(stack.cols, weights.shape), -weights), axis=-1)
    free_class = np.ones((len(stack), stack.width[0]), dtype=bool)
    free_cluster = np.ones((len(stack), stack.width[1]), dtype=bool)
    totals = np.zeros(len(stack))
    terms = []
    for cells in order.T:  # position by position: each table's next cell in its order
        w = weights[tables, cells]
        rows, cols = stack.rows[cells], stack.cols[cells]
        keep = (w > 0) & free_class[tables, rows] & free_cluster[tables, cols]
        if not (w > 0).any():
            break
        free_class[tables[keep], rows[keep]] = False
        free_cluster[tables[keep], cols[keep]] = False
        terms.append(np.where(keep, w, 0.0))
    if terms:  # summed in scan order per table, as the table algorithm's fsum of its cells
        totals = np.array([math.fsum(column) for column in np.array(terms).T.tolist()])
    return totals
