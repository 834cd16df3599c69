"""Parsing what the Contingency constructors receive: counts, matrices, label axes, unions.

Every problem is a ValueError naming the argument.
"""

from __future__ import annotations

import numpy as np

from .factorize import factorize, resort
from .validation import as_label_array

__all__ = ["axis_labels", "matrix_cells", "union_labels"]


def matrix_cells(matrix):
    if hasattr(matrix, "tocoo"):  # scipy sparse
        coo = matrix.tocoo()
        if coo.ndim != 2:
            raise ValueError(f"matrix must be 2-D, got {coo.ndim}-D")
        rows, cols, data, shape = coo.row, coo.col, coo.data, coo.shape
    else:
        if np.ma.isMaskedArray(matrix) and np.ma.count_masked(matrix):
            raise ValueError(f"matrix contains {int(np.ma.count_masked(matrix))} masked "
                             "(missing) counts")
        dense = np.ma.getdata(matrix) if np.ma.isMaskedArray(matrix) else np.asarray(matrix)
        if dense.dtype.kind == "f" and not isinstance(matrix, np.ndarray):
            dense = _python_ints(matrix, dense)
        if dense.ndim != 2:
            raise ValueError(f"matrix must be 2-D, got an array of shape {dense.shape}")
        rows, cols = np.nonzero(dense)
        data, shape = dense[rows, cols], dense.shape
    if shape[0] == 0 or shape[1] == 0:
        raise ValueError(f"matrix is empty (shape {shape})")
    return rows.astype(np.int64), cols.astype(np.int64), np.asarray(data), shape


def _python_ints(matrix, dense):
    """Nested lists of Python ints as Python ints: numpy makes them floats when one is
    beyond int64 ([[2**64 - 1, 1]]: rounded to 2**64), which would change the counts."""
    objects = np.array(matrix, dtype=object)
    if objects.shape == dense.shape and all(type(v) is int for v in objects.ravel().tolist()):
        return objects
    return dense


def axis_labels(labels, size, name):
    """Sorted labels for one axis and the map from matrix position to sorted position."""
    if labels is None:
        return np.arange(size, dtype=np.int64), np.arange(size, dtype=np.int64)
    arr = as_label_array(labels, name)
    if arr.shape[0] != size:
        raise ValueError(f"{name} has {arr.shape[0]} labels but the matrix has {size} on that axis")
    codes, uniques = factorize(arr)
    if uniques.shape[0] != size:
        raise ValueError(f"{name} contains duplicate labels")
    return uniques, codes


def union_labels(arrays, what):
    """Sorted union of label arrays, and for each array the map to positions in the union.

    Labels equal under Python equality but of different types (1, 1.0, True) are one
    label; it keeps the value of the simplest type (int, bool, float, complex, then the
    others; Python's types before numpy's), so a merge does not depend on the order of
    its tables."""
    combined = np.concatenate(_compatible(arrays))
    codes, uniques = factorize(combined)
    if combined.dtype.kind == "O" and uniques.shape[0] < combined.shape[0]:
        # another member may sort elsewhere (by its type): order the labels again
        codes, uniques = resort(codes, _simplest_members(combined, codes, uniques))
    bounds = np.cumsum([0] + [a.shape[0] for a in arrays])
    return uniques, [codes[bounds[i]:bounds[i + 1]] for i in range(len(arrays))]


def _compatible(arrays):
    """Arrays whose concatenation keeps every label distinct (no int->float, no ->str)."""
    dtypes = {a.dtype for a in arrays}
    if len(dtypes) == 1:
        return arrays
    kinds = {d.kind for d in dtypes}
    common = np.result_type(*dtypes)
    if kinds <= set("iu") and common.kind in "iu":
        return [a.astype(common) for a in arrays]
    # strings of different widths: objects, not every label padded to the longest
    return [a.astype(object) for a in arrays]


_TYPE_RANK = {int: 0, bool: 1, np.bool_: 1, float: 2, complex: 3}


def _type_key(value) -> tuple[int, str, str]:
    kind = type(value)
    rank = _TYPE_RANK.get(kind)
    if rank is None:
        rank = 0 if isinstance(value, np.integer) else 2 if isinstance(value, np.floating) \
            else 3 if isinstance(value, np.complexfloating) else 4
    return rank, kind.__module__, kind.__name__  # numpy 2 names np.bool_ "bool" too


def _simplest_members(combined, codes, uniques):
    """For each label, the member of its group of equal values with the simplest type."""
    best = uniques.copy()
    keys = [_type_key(v) for v in best.tolist()]
    for code, value in zip(codes.tolist(), combined.tolist(), strict=True):
        key = _type_key(value)
        if key < keys[code]:
            keys[code] = key
            best[code] = value
    return best
