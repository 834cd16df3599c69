"""numba version of :mod:`clustermetrics._merge_loop` (the per-merge loop of
:mod:`clustermetrics.hierarchy`); loaded only through :mod:`clustermetrics._kernels`
(numba is the optional ``fast`` / ``hierarchy`` extra).

The same Python source is compiled, so both paths do the same operations in the same
order; tests/test_hierarchy.py checks that their outputs are identical.
"""

from __future__ import annotations

import types

import numba
import numpy as np

from . import _merge_loop

# the loop calls add_compensated by its global name: the compiled loop gets a compiled one
_add_compensated = numba.njit(cache=True, nogil=True, inline="always")(
    _merge_loop.add_compensated)
_merge_levels = numba.njit(cache=True, nogil=True)(types.FunctionType(
    _merge_loop.merge_levels.__code__,
    {**vars(_merge_loop), "add_compensated": _add_compensated}, "merge_levels"))


def merge_levels(n, left, right, classes, n_classes, size_terms, cell_offset, cell_terms,
                 out_tp, out_joined, out_nnz, out_h_pred, out_h_cond):
    """Run the compiled loop (its state allocated here)."""
    cell_of = numba.typed.Dict.empty(numba.types.int64, numba.types.int64)
    entries = [np.empty(n, dtype=np.int64) for _ in range(3)]
    cols = [np.empty(n, dtype=np.int64) for _ in range(2)]
    column = np.empty(2 * n - 1 if n else 0, dtype=np.int64)
    _merge_levels(n, left, right, classes, n_classes, size_terms, cell_offset, cell_terms,
                  cell_of, *entries, *cols, column, out_tp, out_joined, out_nnz, out_h_pred,
                  out_h_cond)
