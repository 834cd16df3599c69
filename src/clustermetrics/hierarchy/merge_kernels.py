"""numba version of :mod:`clustermetrics.hierarchy.merge_loop` (the per-merge loop of
:mod:`clustermetrics.hierarchy.cuts`); loaded only through :mod:`clustermetrics.compute.dispatch`,
when the tree is large enough to repay compiling or loading it.

The same Python source is compiled, so both paths do the same operations in the same
order; tests/hierarchy/test_hierarchy.py checks that their outputs are identical. Only the map from
a cell's key (column * n_classes + class) to its entry differs: here an open-addressing
hash table in one int64 array (slot i: key at 2 i, -1 when free, and its entry at
2 i + 1: one cache line per probe), linear probing, deletion by backward shift (no
tombstones), at most half full (every key is a non-zero cell, at most N at once).
numba's typed dict costs about twice the whole loop's time.
"""

from __future__ import annotations

import types

import numpy as np

from ..compute.jit import kernel
from ..compute.kernel_arrays import one_type
from . import merge_loop as _merge_loop

_MIX = np.uint64(0x9E3779B97F4A7C15)  # Fibonacci hashing: 2^64 / golden ratio, odd
_SHIFT = np.uint64(32)


@kernel(inner=True)
def _home(table, key):
    """The slot a key's probe starts at."""
    x = np.uint64(key) * _MIX
    x ^= x >> _SHIFT
    return np.int64(x & np.uint64(table.shape[0] // 2 - 1))


@kernel
def _cell_claim(table, key, e):
    mask = table.shape[0] // 2 - 1
    i = _home(table, key)
    while True:
        k = table[2 * i]
        if k == key:
            return table[2 * i + 1]
        if k == -1:
            table[2 * i] = key
            table[2 * i + 1] = e
            return -1
        i = (i + 1) & mask


@kernel
def _cell_drop(table, key):
    mask = table.shape[0] // 2 - 1
    i = _home(table, key)
    while table[2 * i] != key:
        i = (i + 1) & mask
    j = i
    while True:  # backward shift: move up each later key whose probe passed slot i
        j = (j + 1) & mask
        k = table[2 * j]
        if k == -1:
            break
        h = _home(table, k)
        if (j - h) & mask >= (j - i) & mask:  # its home is at or before i (cyclically)
            table[2 * i] = k
            table[2 * i + 1] = table[2 * j + 1]
            i = j
    table[2 * i] = -1


# the loop calls these by their global names: the compiled loop gets compiled ones (called,
# not inlined by numba: its inlining types their code again at every call, ~0.3 s more to
# compile; LLVM inlines them all the same)
_add_compensated = kernel(_merge_loop.add_compensated, inner=True)
_log_ratio = kernel(_merge_loop.log_ratio, inner=True)
_merge_levels = kernel(types.FunctionType(
    _merge_loop.merge_levels.__code__,
    {**vars(_merge_loop), "add_compensated": _add_compensated, "log_ratio": _log_ratio,
     "cell_claim": _cell_claim,
     "cell_drop": _cell_drop}, "merge_levels"))


def merge_levels(n, left, right, classes, weights, total, n_classes, size_terms, cell_offset,
                 cell_terms, out_tp, out_joined, out_nnz, out_h_pred, out_h_cond,
                 out_h_cond_true):
    """Run the compiled loop (its state allocated here)."""
    cap = 1 << max(2 * n - 1, 1).bit_length()  # a power of two >= 2 n
    table = np.full(2 * cap, -1, dtype=np.int64)
    entry = np.empty(3 * n, dtype=np.int64)
    col = np.empty(2 * n, dtype=np.int64)
    column = np.empty(2 * n - 1 if n else 0, dtype=np.int64)
    # the outputs are filled in place: hierarchy._level_stats makes them int64 and float64
    _merge_levels(int(n), one_type(left, np.int64), one_type(right, np.int64),
                  one_type(classes, np.int64), one_type(weights, np.int64), int(total),
                  int(n_classes), one_type(size_terms, np.float64),
                  one_type(cell_offset, np.int64), one_type(cell_terms, np.float64),
                  table, entry, col, column, out_tp, out_joined, out_nnz, out_h_pred,
                  out_h_cond, out_h_cond_true)
