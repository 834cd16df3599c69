"""numba kernels for random tables with fixed margins; loaded only through
:mod:`clustermetrics.compute.dispatch`, when the work repays compiling or loading it.

A random pairing of the items (the column codes laid out by cluster size and shuffled, the
items sorted by class) is counted into its non-zero cells in O(N) with one dense counter
of the columns, reset after each row: no sort. The numpy path (a sort or a ``bincount`` of
cell keys) gives the same cells; tests compare them.
"""

from __future__ import annotations

import math

import numpy as np

from ..compute.jit import kernel
from ..compute.kernel_arrays import one_type


@kernel(inner=True)
def _count_row(cols, pos, size, counts, touched):
    """Counts one row's ``size`` items, ``cols[pos:pos + size]``, into ``counts``; the
    columns met, in first-seen order, go to ``touched``; returns how many."""
    nt = 0
    for t in range(pos, pos + size):
        c = cols[t]
        if counts[c] == 0:
            touched[nt] = c
            nt += 1
        counts[c] += 1
    return nt


@kernel
def _pairing_stats(row_sizes, cols, row_idx, col_idx, wa, wb, lin, counts, touched):
    """:func:`pairing_stats` with its work arrays: ``counts`` zeros, ``touched`` one per
    column (numpy allocates them: nothing for numba to compile)."""
    s = 0.0
    p = 0
    w = 0.0
    l1 = 0.0
    l2 = 0.0
    n_lin = lin.shape[0]
    pos = np.int64(0)  # not 0: a literal would compile _count_row twice (_numba_kernels)
    for i in range(row_sizes.shape[0]):
        nt = _count_row(cols, pos, row_sizes[i], counts, touched)
        pos += row_sizes[i]
        ia = row_idx[i]
        w_row = 0.0
        for t in range(nt):
            c = touched[t]
            k = counts[c]
            counts[c] = 0
            ib = col_idx[c]
            if k > 1:
                s += k * math.log(k)
                pk = k * (k - 1) // 2
                p += pk
                w_row += pk * wb[ib]
            if n_lin:
                l1 += k * lin[0, ia, ib]
                l2 += k * lin[1, ia, ib]
        w += w_row * wa[ia]
    return s, float(p), w, l1, l2


def pairing_stats(row_sizes, cols, n_cols, row_idx, col_idx, wa, wb, lin):
    """Statistics of a random pairing without forming its cells:
    (sum n log n, sum C(n, 2), sum wa[row_idx[i]] wb[col_idx[j]] C(n_ij, 2),
    sum lin[0, row_idx[i], col_idx[j]] n_ij, the same with lin[1]); ``lin`` of shape
    (0, 1, 1) leaves the last two 0. ``cols`` are int32 column codes (half the memory
    traffic of int64 ones, and one compiled version)."""
    return _pairing_stats(one_type(row_sizes, np.int64), one_type(cols, np.int32),
                          one_type(row_idx, np.int64), one_type(col_idx, np.int64),
                          one_type(wa, np.float64), one_type(wb, np.float64),
                          one_type(lin, np.float64), np.zeros(int(n_cols), np.int64),
                          np.empty(int(n_cols), np.int64))
