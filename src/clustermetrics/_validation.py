"""Turn user input into clean 1-D label arrays, or fail with a message naming the argument.

Every entry point (labels, counts, files) validates through here, once.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import numpy as np

__all__ = ["as_label_array", "check_same_length"]

_EXACT_FLOAT_INT = 2**53


def as_label_array(values: Any, name: str) -> np.ndarray:
    """Return ``values`` as a non-empty 1-D numpy array of hashable labels.

    Accepts lists, tuples, numpy arrays, pandas/polars Series and pyarrow arrays. Raises
    ``ValueError`` naming ``name`` for scalars, 2-D input, empty input and missing labels
    (None, NaN, NaT, nulls). Mixed-type Python sequences become object arrays, so ``1`` and
    ``"1"`` stay distinct and integers above 2**53 are never rounded through float.
    """
    if values is None:
        raise ValueError(f"{name} is required, got None")
    if isinstance(values, (str, bytes)):
        raise ValueError(f"{name} must be a 1-D sequence of labels, got a single string")
    arr = _to_numpy(values, name)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got an array of shape {arr.shape}")
    if arr.shape[0] == 0:
        raise ValueError(f"{name} is empty: at least one label is needed")
    _check_missing(arr, name)
    return arr


def check_same_length(a: np.ndarray, b: np.ndarray, name_a: str, name_b: str) -> None:
    if a.shape[0] != b.shape[0]:
        raise ValueError(
            f"{name_a} and {name_b} have different lengths: {a.shape[0]} and {b.shape[0]}"
        )


def _to_numpy(values: Any, name: str) -> np.ndarray:
    if isinstance(values, np.ndarray):
        return values
    null_count = _arrow_or_polars_nulls(values)
    if null_count:
        raise ValueError(f"{name} contains {null_count} missing (null) labels")
    if hasattr(values, "to_numpy") and not isinstance(values, (list, tuple)):
        try:
            arr = values.to_numpy(zero_copy_only=False)  # pyarrow
        except TypeError:
            arr = values.to_numpy()  # pandas, polars
        return np.asarray(arr)
    if isinstance(values, (list, tuple)):
        return _sequence_to_numpy(values)
    try:
        arr = np.asarray(values)
    except Exception as exc:  # ragged nested sequences and the like
        raise ValueError(f"{name} could not be read as a 1-D sequence of labels: {exc}") from None
    if arr.ndim == 0:
        raise ValueError(f"{name} must be a 1-D sequence of labels, got a scalar")
    return arr


def _arrow_or_polars_nulls(values: Any) -> int:
    count = getattr(values, "null_count", None)
    if count is None:
        return 0
    return int(count() if callable(count) else count)


def _sequence_to_numpy(values: list | tuple) -> np.ndarray:
    try:
        arr = np.asarray(values)
    except ValueError:
        arr = None
    if arr is not None and arr.ndim > 1:
        return arr  # reported as 2-D by the caller
    kinds = {type(v) for v in values}
    if arr is None or arr.dtype.kind in "USf" and not _homogeneous(kinds, arr.dtype.kind, values):
        # numpy would turn [1, "1"] into two equal strings, or 2**53+1 into a float: keep objects.
        arr = np.empty(len(values), dtype=object)
        arr[:] = values
    return arr


def _homogeneous(kinds: set, kind: str, values: list | tuple) -> bool:
    if kind in "US":
        return kinds <= {str, np.str_} or kinds <= {bytes, np.bytes_}
    # float arrays: ints are exact only up to 2**53
    return not any(type(v) is int and abs(v) > _EXACT_FLOAT_INT for v in values)


def _check_missing(arr: np.ndarray, name: str) -> None:
    kind = arr.dtype.kind
    if kind == "f":
        if np.isfinite(arr).all():
            return
        _refuse_infinity(int(np.isinf(arr).sum()), name)
        n_bad = int(np.isnan(arr).sum())
    elif kind in "mM":
        n_bad = int(np.isnat(arr).sum())
    elif kind == "O":
        n_bad = _count_missing_objects(arr, name)
    elif kind in "biuUS":
        return
    else:
        raise ValueError(
            f"{name} has unsupported dtype {arr.dtype}: labels must be hashable scalars"
        )
    if n_bad:
        raise ValueError(f"{name} contains {n_bad} missing labels (None/NaN)")


def _count_missing_objects(arr: np.ndarray, name: str) -> int:
    n_bad = n_inf = 0
    for v in arr.tolist():
        special = _non_finite(v)
        if special == "inf":
            n_inf += 1
            continue
        if special == "nan" or v is None or type(v).__name__ in _NA_TYPES:
            n_bad += 1
            continue
        try:
            hash(v)
        except TypeError:
            raise ValueError(
                f"{name} contains an unhashable label of type {type(v).__name__}; "
                "labels must be scalars (is the input 2-D?)"
            ) from None
    _refuse_infinity(n_inf, name)
    return n_bad


def _non_finite(v: Any) -> str | None:
    """"nan" or "inf" for a non-finite float of any type (numpy's, Decimal), else None."""
    if isinstance(v, Decimal):
        return "nan" if v.is_nan() else "inf" if v.is_infinite() else None
    if isinstance(v, (float, np.floating)) and not np.isfinite(v):
        return "nan" if v != v else "inf"
    return None


def _refuse_infinity(n_inf: int, name: str) -> None:
    # as scikit-learn's check_array: an infinite label is a numeric bug upstream, not a class
    if n_inf:
        raise ValueError(f"{name} contains infinity: {n_inf} of its labels are +inf or -inf; "
                         "labels must be finite")


_NA_TYPES = {"NAType", "NaTType"}  # pandas.NA and pandas.NaT, recognised without importing pandas
