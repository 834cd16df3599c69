"""Labels held by another array library (CuPy, PyTorch, JAX, or any array with an
``__array_namespace__``): the table's O(N) pass runs where they live, with the array's own
namespace, and only the O(non-zero cells) result and the distinct labels come to the host.

The pass mirrors the host one (``factorize.py``, ``counting.py``): small-range integers
and bools are only offset, other labels factorised by the namespace's ``unique_inverse``;
the two codes are packed into one integer key, counted by a bincount over the dense grid
where the library has one and the grid is small next to N, else by ``unique_counts``.
Every count is an exact integer, so the table, and every score of it, is the one the same
labels give as numpy arrays. The host then names the codes: the distinct labels are
factorised again there (a few values), which sorts them the host's way and merges what
the host calls one label (``-0.0`` and ``0.0``) should a library keep them apart.

Weights are not summed on the device: float sums there are rounded, and the exact rule of
``exact_sums.py`` needs every weight. Labels are factorised on the device, and the codes
and weights come to the host.
"""

from __future__ import annotations

import sys
from typing import Any, NamedTuple

import numpy as np

from .counting import DENSE_CELLS, group_sum
from .devices import is_device_array, to_host
from .factorize import dense_range, factorize, from_offsets
from .validation import report_bad_labels

__all__ = ["DeviceCells", "DeviceItems", "device_cells", "device_items", "is_device_array",
           "to_host"]

class DeviceCells(NamedTuple):
    """The non-zero cells of a table counted on a device, as numpy arrays: codes into
    ``class_labels`` and ``cluster_labels``. ``canonical``: cells unique and sorted by
    (row, col), the labels sorted and distinct, ``class_sizes`` and ``cluster_sizes`` their
    sums; else the cells need the host's aggregation. ``complete`` (per axis): every label
    holds an item (small-range integers are only offset, so some may not)."""

    rows: np.ndarray
    cols: np.ndarray
    counts: np.ndarray
    class_sizes: np.ndarray
    cluster_sizes: np.ndarray
    class_labels: np.ndarray
    cluster_labels: np.ndarray
    complete: tuple[bool, bool]
    canonical: bool


class DeviceItems(NamedTuple):
    """Labels factorised on a device and weights, brought to the host: int64 codes into
    sorted ``class_labels`` and ``cluster_labels`` (some of which may hold no item), and
    one weight per item as a numpy array."""

    rows: np.ndarray
    cols: np.ndarray
    class_labels: np.ndarray
    cluster_labels: np.ndarray
    weights: np.ndarray


class _Axis(NamedTuple):
    codes: Any  # on the device, the namespace's index dtype
    size: int  # how many codes
    labels: np.ndarray  # on the host
    complete: bool
    remap: np.ndarray | None  # host codes of the device codes, where they differ


def device_cells(labels_true: Any, labels_pred: Any) -> DeviceCells | None:
    """The cells of two label arrays of one library on one device, counted there; None
    when a label dtype has no device path (complex numbers): the caller takes the host's.
    """
    xp, index = _namespace(labels_true, labels_pred, None)
    n = _check(xp, labels_true, labels_pred, None)
    if not (_countable(xp, labels_true) and _countable(xp, labels_pred)):
        return None
    t, p = _axis(xp, labels_true, index, n), _axis(xp, labels_pred, index, n)
    n_t, n_p = t.size, p.size
    if n_t * n_p - 1 > int(xp.iinfo(index).max):  # the key would wrap: count on the host
        return _host_counted(t, p)
    key = t.codes * n_p + p.codes
    grid = _bincount(key, n_t * n_p) if n_t * n_p <= min(DENSE_CELLS, 8 * n) else None
    if grid is not None:
        cell = xp.nonzero(grid)[0]
        rows, cols = cell // n_p, cell % n_p
        square = xp.reshape(grid, (n_t, n_p))
        a, b = to_host(xp.sum(square, axis=1)), to_host(xp.sum(square, axis=0))
        counts = xp.take(grid, cell)
        rows, cols, counts = to_host(rows), to_host(cols), to_host(counts)
        canonical = True
    else:
        keys, counts = xp.unique_counts(key)
        rows, cols, counts = to_host(keys // n_p), to_host(keys % n_p), to_host(counts)
        key_host = rows * n_p + cols  # the spec leaves the order of unique values open
        canonical = bool(np.all(key_host[1:] > key_host[:-1]))
        a, b = group_sum(rows, counts, n_t), group_sum(cols, counts, n_p)
    return _named(t, p, rows, cols, counts, a, b, canonical)


def device_items(labels_true: Any, labels_pred: Any, sample_weight: Any) -> DeviceItems | None:
    """Two label arrays and their weights, of one library on one device: the labels
    factorised there, codes and weights brought to the host; None as for
    :func:`device_cells`."""
    xp, index = _namespace(labels_true, labels_pred, sample_weight)
    n = _check(xp, labels_true, labels_pred, sample_weight)
    if not (_countable(xp, labels_true) and _countable(xp, labels_pred)):
        return None
    t, p = _axis(xp, labels_true, index, n), _axis(xp, labels_pred, index, n)
    rows, cols = _host_codes(t), _host_codes(p)
    return DeviceItems(rows, cols, t.labels, p.labels, to_host(_host_safe(xp, sample_weight)))


def _named(t: _Axis, p: _Axis, rows: np.ndarray, cols: np.ndarray, counts: np.ndarray,
           a: np.ndarray, b: np.ndarray, canonical: bool) -> DeviceCells:
    """Device codes renamed as host codes: a remapped axis leaves the cells to the host's
    aggregation."""
    if t.remap is not None:
        rows, canonical = t.remap[rows], False
    if p.remap is not None:
        cols, canonical = p.remap[cols], False
    return DeviceCells(rows.astype(np.int64, copy=False), cols.astype(np.int64, copy=False),
                       counts.astype(np.int64, copy=False), a.astype(np.int64, copy=False),
                       b.astype(np.int64, copy=False), t.labels, p.labels,
                       (t.complete, p.complete), canonical)


def _host_counted(t: _Axis, p: _Axis) -> DeviceCells:
    """Codes whose packed key does not fit the device's index type (more than 2**63
    cells, or 2**31 where the library has no 64-bit integers) are counted on the host."""
    rows, cols = _host_codes(t), _host_codes(p)
    n_t, n_p = t.labels.shape[0], p.labels.shape[0]  # host codes, after any remap
    ones = np.ones(rows.shape[0], dtype=np.int64)
    return DeviceCells(rows, cols, ones, group_sum(rows, ones, n_t), group_sum(cols, ones, n_p),
                       t.labels, p.labels, (t.complete, p.complete), False)


def _host_codes(axis: _Axis) -> np.ndarray:
    codes = to_host(axis.codes).astype(np.int64, copy=False)
    return codes if axis.remap is None else axis.remap[codes]


# ----------------------------------------------------------------- one label array
def _axis(xp: Any, values: Any, index: Any, n: int) -> _Axis:
    """Codes of one label array on its device, and its labels on the host."""
    if xp.isdtype(values.dtype, "bool"):
        return _Axis(xp.astype(values, index), 2, np.array([False, True]), False, None)
    if xp.isdtype(values.dtype, "integral"):
        lo, hi = to_host(xp.min(values)), to_host(xp.max(values))
        if dense_range(int(hi) - int(lo), n):
            labels = from_offsets(np.arange(int(hi) - int(lo) + 1), int(lo), lo.dtype)
            return _Axis(_offsets(xp, values, int(lo), index), labels.shape[0], labels,
                         int(hi) == int(lo), None)
    uniques, inverse = xp.unique_inverse(values)
    codes, labels = factorize(to_host(_host_safe(xp, uniques)))
    remap = None if np.array_equal(codes, np.arange(codes.shape[0])) else codes
    return _Axis(xp.astype(inverse, index), codes.shape[0], labels, True, remap)


def _offsets(xp: Any, values: Any, lo: int, index: Any) -> Any:
    """``values - lo`` in the index dtype, exact: formed in the widest type of the input's
    sign (values >= lo, so an unsigned difference cannot wrap), then narrowed, which the
    small range allows."""
    if xp.isdtype(values.dtype, "unsigned integer"):
        return xp.astype(values - lo, index)
    return xp.astype(values, index) - lo


def _countable(xp: Any, values: Any) -> bool:
    return bool(xp.isdtype(values.dtype, ("bool", "integral", "real floating")))


def _host_safe(xp: Any, values: Any) -> Any:
    """Values numpy can hold: a float type numpy lacks (bfloat16) as float32, which holds
    each of its values exactly."""
    if xp.isdtype(values.dtype, "real floating") and \
            values.dtype not in (xp.float32, xp.float64) and \
            str(values.dtype).rpartition(".")[2] != "float16":
        return xp.astype(values, xp.float32)
    return values


def _bincount(key: Any, cells: int) -> Any:
    """The library's own bincount (not part of the array API standard), or None. The
    library is loaded already: its array is at hand."""
    lib = type(key).__module__.partition(".")[0]
    if lib in ("torch", "cupy"):
        return sys.modules[lib].bincount(key, minlength=cells)
    if lib in ("jax", "jaxlib"):
        return sys.modules["jax.numpy"].bincount(key, length=cells)
    return None


# ----------------------------------------------------------------- checks and transfers
def _namespace(labels_true: Any, labels_pred: Any, sample_weight: Any) -> tuple[Any, Any]:
    """The arrays' one namespace and its index dtype on their device; a ValueError naming
    both arguments when they are of two libraries or on two devices."""
    import array_api_compat as compat  # here: only device arrays need it

    named = [("labels_true", labels_true), ("labels_pred", labels_pred)]
    if sample_weight is not None:
        named.append(("sample_weight", sample_weight))
    (first, a), *others = named
    for name, b in others:
        where_a, where_b = _where(compat, a), _where(compat, b)
        if where_a != where_b:
            raise ValueError(f"{first} is {where_a} but {name} is {where_b}: put both on "
                             "one device of one array library")
    xp = compat.array_namespace(a)
    info = xp.__array_namespace_info__()
    return xp, info.default_dtypes(device=compat.device(a))["indexing"]


def _where(compat: Any, values: Any) -> str:
    """Which library holds ``values``, and on which device, in words."""
    if not is_device_array(values):
        return f"in host memory ({type(values).__name__})"
    lib = type(values).__module__.partition(".")[0]
    return f"on device {compat.device(values)} ({lib})"


def _check(xp: Any, labels_true: Any, labels_pred: Any, sample_weight: Any) -> int:
    """N, after the host's checks of shape, length and values (NaN, infinity)."""
    for name, values in (("labels_true", labels_true), ("labels_pred", labels_pred)):
        if values.ndim != 1:
            raise ValueError(f"{name} must be 1-D, got an array of shape {tuple(values.shape)}")
        if values.shape[0] == 0:
            raise ValueError(f"{name} is empty: at least one label is needed")
        if xp.isdtype(values.dtype, "real floating") and not bool(xp.all(xp.isfinite(values))):
            report_bad_labels(name, int(xp.sum(xp.astype(xp.isnan(values), xp.int64))),
                              int(xp.sum(xp.astype(xp.isinf(values), xp.int64))))
    n, m = int(labels_true.shape[0]), int(labels_pred.shape[0])
    if n != m:
        raise ValueError(f"labels_true and labels_pred have different lengths: {n} and {m}")
    if sample_weight is not None:
        if sample_weight.ndim != 1:
            raise ValueError(f"sample_weight must be 1-D, got an array of shape "
                             f"{tuple(sample_weight.shape)}")
        if int(sample_weight.shape[0]) != n:
            raise ValueError(f"labels_true and sample_weight have different lengths: {n} "
                             f"and {int(sample_weight.shape[0])}")
    return n
