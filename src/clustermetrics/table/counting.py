"""Counting (class, cluster) pairs into the sorted non-zero cells of a table.

Building the table is the only O(N) step of the library (with factorising the labels, see
``_factorize.py``), so each case takes its fastest exact path: one bincount over a dense key
when the table is small next to N, a sort of packed keys otherwise, a lexsort when the codes
cannot be packed into one int64.
"""

from __future__ import annotations

import numpy as np

__all__ = ["DENSE_CELLS", "aggregate", "cell_groups", "compact", "compact_sizes", "count_pairs",
           "group_sum", "new_codes", "sort_cells"]

# Pairs are counted with one bincount over all cells when there are at most 8 cells per
# item (measured: beyond that, zeroing and scanning the cells costs more than sorting the
# keys) and at most this many cells (256 MB of counts).
DENSE_CELLS = 1 << 25


def count_pairs(t_codes, p_codes, n_t, n_p):
    """Unique (row, col) cells, sorted, their counts, and the row and column sums, from two
    dense code arrays (codes below n_t and n_p; some codes may not occur)."""
    n = t_codes.shape[0]
    cells = n_t * n_p
    if cells >= 1 << 62:  # codes cannot be packed into one int64 key
        rows, cols, counts = _count_pairs_lexsort(t_codes, p_codes)
        return rows, cols, counts, group_sum(rows, counts, n_t), group_sum(cols, counts, n_p)
    key = t_codes * n_p
    key += p_codes
    if cells <= min(DENSE_CELLS, 8 * n):
        full = np.bincount(key, minlength=cells)
        square = full.reshape(n_t, n_p)
        # row and column sums of the dense count are the class and cluster sizes, and the
        # rows of the non-zero cells follow from the per-row number of them (no division)
        idx = np.flatnonzero(full != 0)
        rows = _rows_of_sorted_keys(idx, n_t, n_p)
        cols = idx - rows * n_p
        return rows, cols, full[idx], square.sum(axis=1), square.sum(axis=0)
    key.sort()
    starts = np.flatnonzero(np.concatenate(([True], key[1:] != key[:-1])))
    counts = np.diff(np.append(starts, n))
    rows, cols = np.divmod(key[starts], n_p)
    return rows, cols, counts, group_sum(rows, counts, n_t), group_sum(cols, counts, n_p)


def cell_groups(t_codes, p_codes, n_t, n_p):
    """(cell of each pair, row and column of each cell): the cells sorted by (row, col),
    some possibly without pairs (a dense grid when it is small next to the pairs)."""
    n = t_codes.shape[0]
    cells = n_t * n_p
    if cells >= 1 << 62:  # codes cannot be packed into one int64 key
        order = np.lexsort((p_codes, t_codes))
        t, p = t_codes[order], p_codes[order]
        new = np.concatenate(([True], (t[1:] != t[:-1]) | (p[1:] != p[:-1])))
        cell = np.empty(n, dtype=np.int64)
        cell[order] = np.cumsum(new) - 1
        return cell, t[new], p[new]
    key = np.asarray(t_codes, dtype=np.int64) * n_p + p_codes
    if cells <= min(DENSE_CELLS, 8 * n):
        grid = np.arange(cells, dtype=np.int64)
        return key, grid // n_p, grid % n_p
    keys, cell = np.unique(key, return_inverse=True)
    return cell.reshape(-1), keys // n_p, keys % n_p


def _count_pairs_lexsort(t_codes, p_codes):
    order = np.lexsort((p_codes, t_codes))
    t, p = t_codes[order], p_codes[order]
    new = np.concatenate(([True], (t[1:] != t[:-1]) | (p[1:] != p[:-1])))
    starts = np.flatnonzero(new)
    counts = np.diff(np.append(starts, t.shape[0]))
    return t[starts], p[starts], counts.astype(np.int64)


def compact_sizes(codes, labels, sizes):
    """Drop the labels whose size is 0, renumbering the codes of the cells."""
    present = sizes > 0
    if present.all():
        return codes, labels, sizes
    lookup = new_codes(present)
    kept = np.flatnonzero(present)  # an index gathers ~10x faster than a random mask
    return lookup[codes], labels[kept], sizes[kept]


def new_codes(present: np.ndarray) -> np.ndarray:
    """int64 code of each present entry among the present ones (the count of present
    entries before it), from a boolean mask. numpy's cumsum of a bool array into int64
    takes a slow casting loop (~7 ns an entry); into int32 it runs ~10x faster."""
    if present.shape[0] < 2**31:
        return np.cumsum(present, dtype=np.int32).astype(np.int64) - 1
    return np.cumsum(present, dtype=np.int64) - 1


def aggregate(rows, cols, counts, n_p):
    """Sum counts of repeated (row, col) cells; drop zeros; sort by row then column."""
    keep = counts != 0
    rows, cols, counts = rows[keep], cols[keep], counts[keep]
    order = np.lexsort((cols, rows))
    rows, cols, counts = rows[order], cols[order], counts[order]
    if rows.shape[0] == 0:
        return rows, cols, counts
    new = np.concatenate(([True], (rows[1:] != rows[:-1]) | (cols[1:] != cols[:-1])))
    starts = np.flatnonzero(new)
    return rows[starts], cols[starts], np.add.reduceat(counts, starts)


def compact(codes, labels):
    """Renumber codes to 0..k-1 over the labels that still have cells."""
    present = np.bincount(codes, minlength=labels.shape[0]) > 0
    if present.all():
        return codes, labels
    return new_codes(present)[codes], labels[np.flatnonzero(present)]


def group_sum(index, counts, size):
    """Exact integer sums of counts grouped by index (np.add.at on int64: numpy 2's fast
    path is ~3x quicker than a float-weighted bincount, measured on 6e7 cells); float64
    masses (real sample weights) are summed as float64."""
    counts = np.asarray(counts)
    if counts.dtype.kind == "f":
        return np.bincount(index, weights=counts, minlength=size).astype(np.float64)
    out = np.zeros(size, dtype=np.int64)
    np.add.at(out, index, np.asarray(counts, dtype=np.int64))
    return out


def sort_cells(t_codes, p_codes, counts, n_t, n_p, overwrite=False):
    """Cells given in any order (e.g. a GROUP BY result), sorted by (row, col), and the row
    and column sums; repeated cells (an engine may group apart values that are one label
    here) are summed.

    Row, column and count are packed into one int64 with power-of-two fields when they fit
    (63 bits), sorted in place (numpy's vectorised sort; an argsort is ~8x slower) and
    unpacked with shifts and masks; else the keys are argsorted, or lexsorted when they
    cannot be packed at all. With ``overwrite`` the three input arrays are the work space
    (a fresh array of 6e7 int64 costs ~0.6 s of page faults, a pass over one ~0.06 s).
    """
    counts = np.asarray(counts, dtype=np.int64)
    row_bits, col_bits = max(n_t - 1, 1).bit_length(), max(n_p - 1, 1).bit_length()
    count_bits = max(int(counts.max(initial=0)).bit_length(), 1)
    if row_bits + col_bits + count_bits > 63:
        rows, cols, counts = aggregate(t_codes, p_codes, counts, n_p)
        return rows, cols, counts, group_sum(rows, counts, n_t), group_sum(cols, counts, n_p)
    reuse = overwrite and _own_buffers(t_codes, p_codes, counts)
    if reuse:
        key = t_codes
        key <<= col_bits
    else:
        key = t_codes << col_bits
    key |= p_codes
    key <<= count_bits
    key |= counts
    key.sort()
    counts = np.bitwise_and(key, (1 << count_bits) - 1, out=counts if reuse else None)
    key >>= count_bits
    merged = _merge_repeats(key, counts)
    if merged is not None:
        (key, counts), reuse = merged, False
    rows = np.right_shift(key, col_bits, out=p_codes if reuse else None)
    key &= (1 << col_bits) - 1
    return rows, key, counts, _sorted_group_sum(rows, counts, n_t), \
        group_sum(key, counts, n_p)


def _own_buffers(*arrays) -> bool:
    """Whether the arrays can serve as distinct int64 work buffers."""
    ok = all(a.dtype == np.int64 and a.flags.writeable and a.flags.c_contiguous
             and a.base is None for a in arrays)
    return ok and not any(np.may_share_memory(a, b) for i, a in enumerate(arrays)
                          for b in arrays[i + 1:])


def _merge_repeats(key, counts):
    """(keys, counts) with repeated sorted keys summed, or None when every key is unique."""
    if key.shape[0] < 2 or not np.any(key[1:] == key[:-1]):
        return None
    starts = np.flatnonzero(np.concatenate(([True], key[1:] != key[:-1])))
    return key[starts], np.add.reduceat(counts, starts)


def _sorted_group_sum(groups, counts, size):
    """Exact int64 sums of counts per group for sorted groups (no float weights)."""
    bounds = np.searchsorted(groups, np.arange(size + 1))
    out = np.zeros(size, dtype=np.int64)
    filled = bounds[1:] > bounds[:-1]
    out[filled] = np.add.reduceat(counts, bounds[:-1][filled])
    return out


def _rows_of_sorted_keys(key, n_t, n_p):
    """Row of each sorted key row * n_p + col, from per-row counts (no division)."""
    per_row = np.diff(np.searchsorted(key, np.arange(n_t + 1) * n_p))
    return np.repeat(np.arange(n_t), per_row)
