"""Label arrays -> dense integer codes, with the unique labels in sorted order.

This and the pair counting in ``contingency.py`` are the only O(N) work in the library, so
each dtype takes its fastest exact path:

* small-range integers and bools: offset + ``np.bincount`` (no sort, no hash);
* everything else: pandas' hash-based ``factorize`` when pandas is installed (it is ~4x
  faster than sorting) and either already imported or the labels number enough to repay
  importing it, else ``np.unique``; object arrays fall back to a dict. Both give the same
  codes (tests compare them).

Codes always follow the sorted order of the labels, so every result is deterministic and
independent of the order in which labels first appear.
"""

from __future__ import annotations

import math
import numbers
import sys
import warnings
from decimal import Decimal

import numpy as np

__all__ = ["dense_range", "factorize", "factorize_for_counting", "from_offsets",
           "label_values", "positive_zero", "resort", "sort_labels"]

# An integer range is counted densely (offset + bincount, then a pass over every value of
# the range) when it spans fewer than _DENSE_FLOOR values or _DENSE_PER_ITEM per label:
# a pass over a range costs ~5 ns a value, hashing or sorting the labels ~20-60 ns a label,
# so the range must be judged against the number of labels, never alone (a fixed 2**22
# made two labels 1 and 4,000,000 cost ~0.1 s).
_DENSE_FLOOR = 1 << 12
_DENSE_PER_ITEM = 2


def factorize(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(codes, uniques)``: ``uniques`` sorted, ``uniques[codes] == values``."""
    kind = values.dtype.kind
    if kind == "b":
        return _factorize_small_ints(values.view(np.uint8), values.dtype)
    if kind in "iu":
        lo, hi = int(values.min()), int(values.max())
        if dense_range(hi - lo, values.shape[0]):
            return _factorize_small_ints(values, values.dtype, lo, hi)
    if kind == "O":
        codes, uniques = _factorize_objects(values)
    else:
        codes, uniques = _factorize_hashed(values)
    return codes, positive_zero(uniques)


def positive_zero(uniques: np.ndarray) -> np.ndarray:
    """``-0.0`` and ``0.0`` are one label (they are equal, as for numpy and Python); it is
    ``0.0`` whichever came first, so every engine and every row order names it alike."""
    kind = uniques.dtype.kind
    if kind == "f":
        zero = np.flatnonzero((uniques == 0) & np.signbit(uniques))
        if zero.size:
            uniques = uniques.copy()
            uniques[zero] = 0
    elif kind == "O":
        zero = [i for i, v in enumerate(uniques.tolist())
                if isinstance(v, float) and v == 0 and math.copysign(1, v) < 0]
        if zero:
            uniques = uniques.copy()
            for i in zero:
                uniques[i] = type(uniques[i])(0.0)
    return uniques


def label_values(labels: np.ndarray) -> list:
    """Labels as Python values for showing them: ``tolist()``, except that times finer
    than microseconds stay numpy values (``tolist`` turns a nanosecond timestamp into a
    bare integer; ``str`` of the numpy value shows every nanosecond)."""
    if labels.dtype.kind in "mM" and np.datetime_data(labels.dtype)[0] in ("ns", "ps", "fs",
                                                                            "as"):
        return list(labels)
    return labels.tolist()


def factorize_for_counting(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, bool]:
    """``(codes, labels, complete)`` like :func:`factorize`, except that small-range integers
    (and bools) are only offset: ``labels`` is then every value from min to max and
    ``complete`` is False, because some may not occur. The pair count finds which do from
    its row and column sums, which saves a presence count over the items."""
    kind = values.dtype.kind
    if kind == "b":
        return values.view(np.uint8).astype(np.int64), np.array([False, True]), False
    if kind in "iu":
        lo, hi = int(values.min()), int(values.max())
        if dense_range(hi - lo, values.shape[0]):
            labels = from_offsets(np.arange(hi - lo + 1), lo, values.dtype)
            return _offsets(values, lo), labels, hi == lo
    codes, uniques = factorize(values)
    return codes, uniques, True


def dense_range(span: int, n: int) -> bool:
    """Whether integers spanning ``span`` (max - min) over ``n`` labels are counted densely."""
    return span < max(_DENSE_FLOOR, _DENSE_PER_ITEM * n)


def _factorize_small_ints(values, dtype, lo=None, hi=None):
    if lo is None:
        lo, hi = int(values.min()), int(values.max())
    shifted = _offsets(values, lo)
    present = np.bincount(shifted, minlength=hi - lo + 1) > 0
    if present.all():
        codes = shifted
    else:
        lookup = np.cumsum(present, dtype=np.int64) - 1
        codes = lookup[shifted]
    offsets = np.flatnonzero(present)
    if dtype.kind == "b":  # offsets count from the smallest value present (True if all are)
        return codes, (offsets + lo).astype(bool)
    return codes, from_offsets(offsets, lo, dtype)


def _offsets(values: np.ndarray, lo: int) -> np.ndarray:
    """``values - lo`` as int64, exact for every integer dtype.

    The difference must not be formed in a narrow input dtype: int8 127 - (-1) wraps to
    -128. Widening to int64 first is exact for every dtype but uint64, whose values may
    exceed int64; there the difference is formed in uint64, where it cannot wrap
    (values >= lo >= 0), and it fits int64 because the range is small.
    """
    if values.dtype.itemsize == 8:
        shifted = values - values.dtype.type(lo) if lo != 0 else values
        return shifted.view(np.int64) if shifted.dtype.kind == "u" else shifted
    shifted = values.astype(np.int64)
    if lo != 0:
        shifted -= lo
    return shifted


def from_offsets(offsets: np.ndarray, lo: int, dtype: np.dtype) -> np.ndarray:
    """The values ``lo + offsets`` in ``dtype``, added in the 64-bit type of its sign."""
    wide = np.uint64 if dtype.kind == "u" else np.int64
    return (offsets.astype(wide) + wide(lo)).astype(dtype, copy=False)


def _factorize_hashed(values):
    pd = _pandas(values.shape[0])
    # pandas hashes extended precision (float128, complex256) as float64 / complex128,
    # merging labels that differ in the last bits: sort them natively instead
    if pd is None or values.dtype.itemsize > (16 if values.dtype.kind == "c" else 8):
        uniques, codes = np.unique(values, return_inverse=True)
        return codes.astype(np.int64, copy=False), uniques
    codes, uniques = _pandas_factorize(pd, values)
    uniques = np.asarray(uniques, dtype=values.dtype)
    return resort(codes, uniques)


def _factorize_objects(values):
    pd = _pandas(values.shape[0])
    if pd is not None:
        codes, uniques = _pandas_factorize(pd, values)
        uniques = np.asarray(uniques, dtype=object)
    else:
        seen: dict = {}
        codes = np.fromiter(
            (seen.setdefault(v, len(seen)) for v in values.tolist()), np.int64, values.shape[0]
        )
        uniques = np.empty(len(seen), dtype=object)
        uniques[:] = list(seen)
    return resort(codes, uniques)


def _pandas_factorize(pd, values):
    """pandas' factorize, quietly: on object arrays it tries numeric casts that may
    overflow (a float beyond float32's range beside a float32) and warns, though the codes
    it returns are right (the label tests check such mixes against Python equality)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return pd.factorize(values, sort=False)


def resort(codes: np.ndarray, uniques: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(codes, uniques) renumbered so that ``uniques`` is in :func:`sort_labels` order."""
    order = sort_labels(uniques)
    if np.array_equal(order, np.arange(order.shape[0])):
        return codes.astype(np.int64, copy=False), uniques
    rank = np.empty_like(order)
    rank[order] = np.arange(order.shape[0])
    return rank[codes], uniques[order]


def sort_labels(uniques: np.ndarray) -> np.ndarray:
    """Indices that sort distinct labels. Mixed types: real numbers first, compared as
    numbers whatever their type (1 < 2.5 < 3), then the others by type name and value;
    labels that still cannot be compared, by their repr."""
    if uniques.dtype.kind != "O":
        return np.argsort(uniques, kind="stable")
    items = uniques.tolist()
    for key in (None, _mixed_key, repr):
        try:
            # numpy compares a Python float with a float32 in float32 and warns when it
            # overflows; the order is still right (inf sorts as the large float it was)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                order = sorted(range(len(items)), key=_keyed(items, key))
            return np.array(order, dtype=np.int64)
        except (TypeError, ValueError):  # numpy scalar vs tuple compares elementwise: ValueError
            continue
    raise AssertionError("repr keys always compare")  # pragma: no cover


def _mixed_key(value):
    if isinstance(value, (numbers.Real, Decimal)):
        return (0, "", value)
    return (1, type(value).__name__, value)


def _keyed(items, key):
    if key is None:
        return items.__getitem__
    return lambda i: key(items[i])


_PANDAS = None


# Labels from which factorising through pandas repays importing it (~0.3 s): numpy sorts
# 10^6 strings in ~0.4 s, pandas hashes them in ~0.1 s
_PANDAS_FROM = 1_000_000


def _pandas(n: int):
    """pandas (an optional speed-up, never required) for ``n`` labels: when it is
    imported already, or installed and ``n`` repays importing it; else None."""
    global _PANDAS
    if "pandas" not in sys.modules and n < _PANDAS_FROM:
        return None
    if _PANDAS is None:
        try:
            import pandas

            _PANDAS = pandas
        except ImportError:
            _PANDAS = False
    return _PANDAS or None
