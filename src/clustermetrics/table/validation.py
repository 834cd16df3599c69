"""Turn user input into clean 1-D label arrays (and weights into raw arrays, read by
:mod:`.weight_values`), or fail with a message naming the argument.

Every entry point (labels, counts, files) validates through here, once. The rule for
labels: the table of an array is the table of its Python values, compared with Python
equality (``1 == 1.0 == True``; ``1 != "1"``). Every NaN-like value (None, NaN of any float
or complex type, ``Decimal('NaN')``, NaT, ``pd.NA``, Arrow and polars nulls, masked
entries) is a missing label and an error; infinite labels are refused, as scikit-learn
refuses them.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterator, Mapping
from decimal import Decimal
from typing import Any

import numpy as np

from .devices import is_device_array, to_host

__all__ = ["MAX_ITEMS", "REAL_TOTAL", "as_label_array", "as_raw_array", "check_same_length",
           "report_bad_labels"]

MAX_ITEMS = 2**63 - 1  # counts, sums of counts and N are exact int64 up to here
REAL_TOTAL = (1e-150, 1e150)  # real masses: their products stay normal float64
# numbers that can be NaN or infinite, and are checked for it one by one in object arrays
_INEXACT = (float, complex, np.inexact, Decimal)
_NAT = (np.datetime64, np.timedelta64)
_NA_TYPES = {"NAType", "NaTType"}  # pandas.NA and pandas.NaT, recognised without pandas
_PLAIN = {str, int, bytes, bool}  # always hashable, never missing: the common labels


def as_label_array(values: Any, name: str) -> np.ndarray:
    """Return ``values`` as a non-empty 1-D numpy array of hashable labels.

    Accepts lists, tuples, ranges, numpy arrays (masked entries count as missing), pandas
    and polars Series, pyarrow arrays. Raises ``ValueError`` naming ``name`` for scalars,
    unordered or one-shot inputs (sets, dicts, generators), 2-D input, empty input, missing
    labels and infinite labels, and for labels that cannot be hashed. Mixed-type Python
    sequences become object arrays, so ``1`` and ``"1"`` stay distinct, integers above
    2**53 are never rounded through float, and strings ending in NUL keep it.
    """
    arr = _to_numpy(values, name)
    _check_shape(arr, name)
    _check_labels(arr, name)
    return arr


def as_raw_array(values: Any, name: str, noun: str = "value") -> np.ndarray:
    """``values`` as a 1-D numpy array, its items not checked: masked entries and the nulls
    of Arrow and polars columns become None (numpy would make an integer column with
    nulls floats, its nulls NaN)."""
    if isinstance(values, (str, bytes)) or (not hasattr(values, "__len__")
                                            and np.ndim(values) == 0):
        raise ValueError(f"{name} must be a sequence of one {noun} per item, got "
                         f"{type(values).__name__}")
    nulls = getattr(values, "null_count", 0)
    if callable(nulls):  # polars
        nulls = nulls()
    if nulls and (hasattr(values, "to_pylist") or hasattr(values, "to_list")):
        items = values.to_pylist() if hasattr(values, "to_pylist") else values.to_list()
        arr = np.empty(len(items), dtype=object)
        arr[:] = items
        return arr
    arr = _to_numpy(values, name, noun)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got an array of shape {arr.shape}")
    return arr


def check_same_length(a: np.ndarray, b: np.ndarray, name_a: str, name_b: str) -> None:
    if a.shape[0] != b.shape[0]:
        raise ValueError(
            f"{name_a} and {name_b} have different lengths: {a.shape[0]} and {b.shape[0]}"
        )


# ----------------------------------------------------------------- conversion
def _is_masked_array(values: Any) -> bool:
    """Is ``values`` a numpy masked array? Asked without importing numpy.ma (np.ma loads it
    on first use, ~10 ms of the first score): while it is not loaded, no masked array
    exists, since its class is defined there."""
    ma = sys.modules.get("numpy.ma")
    return ma is not None and isinstance(values, ma.MaskedArray)


def _to_numpy(values: Any, name: str, noun: str = "label") -> np.ndarray:
    if values is None:
        raise ValueError(f"{name} is required, got None")
    if isinstance(values, (str, bytes)):
        raise ValueError(f"{name} must be a 1-D sequence of labels, got a single string")
    if is_device_array(values):  # entry points that count on the host copy it there
        return to_host(values)
    if _is_masked_array(values):
        if np.ma.count_masked(values):  # masked entries are missing, like None
            filled = np.ma.getdata(values).astype(object)
            filled[np.ma.getmaskarray(values)] = None
            return filled
        return np.ma.getdata(values)
    if isinstance(values, np.ndarray):
        return values
    if hasattr(values, "to_numpy") and not isinstance(values, (list, tuple)):
        return _frame_column_to_numpy(values, name)
    if isinstance(values, (list, tuple)):
        return _sequence_to_numpy(values)
    _refuse_unordered(values, name, noun)
    try:
        arr = np.asarray(values)
    except Exception as exc:  # ragged nested sequences and the like
        raise ValueError(f"{name} could not be read as a 1-D sequence of {noun}s: {exc}") \
            from None
    return arr


def _refuse_unordered(values: Any, name: str, noun: str = "label") -> None:
    """Sets and dicts have no item order; iterators would be consumed by reading them.
    ``noun``: what one value is (a label, a weight)."""
    if isinstance(values, (set, frozenset)):
        kind = "a set, which has no order"
    elif isinstance(values, Mapping):
        kind = f"a mapping ({type(values).__name__}), whose keys say nothing of which {noun} " \
            "is which item's"
    elif isinstance(values, Iterator):
        kind = f"an iterator ({type(values).__name__}), which can be read only once"
    else:
        return
    raise ValueError(f"{name} must be a 1-D sequence of one {noun} per item, got {kind}; "
                     "pass a list in the items' order")


def _check_shape(arr: np.ndarray, name: str) -> None:
    if arr.ndim == 0:
        raise ValueError(f"{name} must be a 1-D sequence of labels, got a single value of "
                         f"type {type(arr.item()).__name__}")
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got an array of shape {arr.shape}")
    if arr.shape[0] == 0:
        raise ValueError(f"{name} is empty: at least one label is needed")


def _frame_column_to_numpy(values: Any, name: str) -> np.ndarray:
    """A pandas, polars or pyarrow column as numpy; nulls become None or NaN (counted as
    missing with the NaNs), and types numpy cannot hold (128-bit integers) Python objects."""
    if _nanosecond_times(values):
        raise ValueError(f"{name} holds times of day in nanoseconds, which Python's "
                         "datetime.time (microseconds) cannot hold: distinct labels would "
                         "merge; cast them to integers (nanoseconds) or to microseconds")
    try:
        try:
            arr = values.to_numpy(zero_copy_only=False)  # pyarrow
        except TypeError:
            arr = values.to_numpy()  # pandas, polars
    except Exception:  # e.g. polars Int128: numpy has no such integer type
        items = values.to_pylist() if hasattr(values, "to_pylist") else \
            values.to_list() if hasattr(values, "to_list") else None
        if items is None:
            raise ValueError(f"{name} of type {type(values).__name__} could not be read as "
                             "labels") from None
        arr = np.empty(len(items), dtype=object)
        arr[:] = items
    return np.ma.getdata(np.asarray(arr))


def _nanosecond_times(values: Any) -> bool:
    """An Arrow time64[ns] column (pyarrow, pandas' ArrowDtype) or a polars Time one."""
    kind = getattr(values, "type", None)
    if kind is None:
        kind = getattr(getattr(values, "dtype", None), "pyarrow_dtype", None)
    if kind is not None:
        return str(kind) == "time64[ns]"
    return type(values).__module__.startswith("polars") and str(values.dtype) == "Time"


def _sequence_to_numpy(values: list | tuple) -> np.ndarray:
    """A list or tuple as numpy: numbers of one type as numpy numbers, anything else as
    Python objects. numpy would turn [1, "1"] into two equal strings, 2**53 + 1 into a
    float, [1, 2.5] into floats and True into 1, drop trailing NULs of strings, and pad
    every string to the longest (one label of 10^5 characters among 10^6: 400 GB), and
    Python ints beyond int64 into floats."""
    kinds = set(map(type, values))
    if not kinds & _TEXT:
        try:
            arr = np.asarray(values)
        except ValueError:
            arr = None
        # numpy makes Python ints beyond int64 floats ([2**64 - 1, 1]: rounded to 2**64):
        # those stay Python ints
        exact = arr is not None and (kinds != {int} or arr.dtype.kind in "iu")
        if exact and (arr.ndim > 1  # reported as 2-D by the caller
                      or arr.dtype.kind in "fiubc" and len(kinds) == 1
                      or arr.dtype.kind not in "USfiubc"):
            return arr
    arr = np.empty(len(values), dtype=object)
    arr[:] = values
    return arr


_TEXT = {str, bytes, np.str_, np.bytes_}


# ----------------------------------------------------------------- label checks
def _check_labels(arr: np.ndarray, name: str) -> None:
    kind = arr.dtype.kind
    if kind in "fc":
        report_bad_labels(name, int(np.isnan(arr).sum()), int(np.isinf(arr).sum()))
    elif kind in "mM":
        report_bad_labels(name, int(np.isnat(arr).sum()), 0)
    elif kind == "O":
        report_bad_labels(name, *_object_problems(arr, name))
    elif kind not in "biuUS":
        raise ValueError(f"{name} has unsupported dtype {arr.dtype}: labels must be "
                         "hashable scalars")


def report_bad_labels(name: str, n_missing: int, n_infinite: int) -> None:
    if n_missing:
        raise ValueError(f"{name} contains {n_missing} missing labels (None/NaN/NaT/NA/"
                         "null/masked)")
    if n_infinite:  # as scikit-learn's check_array: an infinite label is a bug upstream
        raise ValueError(f"{name} contains infinity: {n_infinite} of its labels are +inf or "
                         "-inf; labels must be finite")


def _object_problems(arr: np.ndarray, name: str) -> tuple[int, int]:
    """(missing, infinite) labels of an object array; unhashable labels are an error."""
    n_missing = n_infinite = 0
    for v in arr.tolist():
        if type(v) in _PLAIN:
            continue
        if v is None or type(v).__name__ in _NA_TYPES:
            n_missing += 1
        elif isinstance(v, _INEXACT):  # before hashing: a signalling NaN cannot be hashed
            missing, infinite = _nan_or_inf(v)
            n_missing += missing
            n_infinite += infinite
        elif isinstance(v, _NAT) and np.isnat(v):
            n_missing += 1
        else:
            try:
                hash(v)
            except TypeError:
                raise ValueError(
                    f"{name} contains an unhashable label of type {type(v).__name__}; "
                    "labels must be scalars (is the input 2-D?)"
                ) from None
    return n_missing, n_infinite


def _nan_or_inf(v: Any) -> tuple[bool, bool]:
    if isinstance(v, Decimal):  # sNaN raises on comparison: ask the Decimal itself
        return v.is_nan(), v.is_infinite()
    if isinstance(v, (complex, np.complexfloating)):
        return math.isnan(v.real) or math.isnan(v.imag), \
            math.isinf(v.real) or math.isinf(v.imag)
    return math.isnan(v), math.isinf(v)
