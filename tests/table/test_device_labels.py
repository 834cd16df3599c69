"""Labels held by another array library take the device path (table/device_labels.py) and
give exactly the table, and so every score, of the same labels as numpy arrays.

array-api-strict is the array library: the reference implementation of the array API
standard, with only what the standard promises (no bincount, no implicit conversion to
numpy), and with several simulated devices to mix."""

from __future__ import annotations

import json
import subprocess
import sys

import array_api_strict as xps
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import clustermetrics as cm
from clustermetrics import Contingency
from clustermetrics.io.chunks import ContingencyBuilder
from clustermetrics.table import device_labels
from clustermetrics.table.device_labels import is_device_array

SETTINGS = settings(max_examples=60, deadline=None)
DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
          np.float32, np.float64, np.bool_]


@st.composite
def labels_of(draw, dtype, n):
    """``n`` labels of ``dtype``: few or many distinct, dense ranges and the extremes."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        edges = [info.min, info.max, info.min + 1, info.max - 1, 0]
        values = st.one_of(st.sampled_from(edges), st.integers(info.min, info.max),
                           st.integers(max(info.min, -3), min(info.max, 5)))
    else:
        values = st.one_of(st.sampled_from([0.0, -0.0, 1.5, -2.25, 1e30, -1e-30]),
                           st.floats(allow_nan=False, allow_infinity=False,
                                     width=dtype.itemsize * 8))
    shape = draw(st.sampled_from(["any", "one", "singletons"]))
    if shape == "one":
        return np.full(n, draw(values), dtype=dtype)
    if shape == "singletons" and dtype.kind in "iu" and n <= 100:
        start = draw(st.integers(int(np.iinfo(dtype).min), int(np.iinfo(dtype).max) - n))
        return np.array([start + i for i in range(n)], dtype=dtype)  # start + n fits the dtype
    return np.array(draw(st.lists(values, min_size=n, max_size=n)), dtype=dtype)


@st.composite
def label_pairs(draw, max_n=60):
    n = draw(st.integers(1, max_n))
    t = draw(labels_of(draw(st.sampled_from(DTYPES)), n))
    p = draw(labels_of(draw(st.sampled_from(DTYPES)), n))
    return t, p


def same_table(a: Contingency, b: Contingency) -> None:
    """Equal cells and labels, the labels of the same values and dtypes."""
    assert a == b
    assert a.class_labels.dtype == b.class_labels.dtype
    assert a.cluster_labels.dtype == b.cluster_labels.dtype
    assert a.counts.dtype == b.counts.dtype
    assert np.array_equal(a.class_sizes, b.class_sizes)
    assert np.array_equal(a.cluster_sizes, b.cluster_sizes)
    assert a.n_samples == b.n_samples


@SETTINGS
@given(label_pairs())
def test_from_labels_gives_the_table_of_the_numpy_labels(pair):
    t, p = pair
    same_table(Contingency.from_labels(xps.asarray(t), xps.asarray(p)),
               Contingency.from_labels(t, p))


@SETTINGS
@given(label_pairs(), st.data())
def test_builder_chunks_give_the_table_of_all_the_labels(pair, data):
    t, p = pair
    cuts = sorted(data.draw(st.lists(st.integers(0, t.shape[0]), max_size=4)))
    builder = ContingencyBuilder(merge_every=data.draw(st.integers(1, 3)))
    for lo, hi in zip([0, *cuts], [*cuts, t.shape[0]], strict=True):
        builder.update(xps.asarray(t[lo:hi]), xps.asarray(p[lo:hi]))  # empty chunks too
    same_table(builder.result(), Contingency.from_labels(t, p))


@settings(max_examples=30, deadline=None)
@given(label_pairs(max_n=30))
def test_scores_and_evaluate_equal_those_of_the_numpy_labels(pair):
    t, p = pair
    dt, dp = xps.asarray(t), xps.asarray(p)
    assert cm.adjusted_rand_score(dt, dp) == cm.adjusted_rand_score(t, p)
    got, want = cm.evaluate(dt, dp), cm.evaluate(t, p)  # every registered score
    assert json.loads(got.to_json()) == json.loads(want.to_json())


weights_of = st.one_of(
    st.lists(st.integers(0, 3), min_size=1).map(lambda w: np.array(w, dtype=np.int64)),
    st.lists(st.sampled_from([0.0, 0.5, 0.1, 1.0, 2.5e-3, 7.0])).map(
        lambda w: np.array(w, dtype=np.float64)),
    st.lists(st.sampled_from([0.0, 0.25, 3.0])).map(lambda w: np.array(w, dtype=np.float32)))


@SETTINGS
@given(label_pairs(max_n=40), weights_of, st.data())
def test_weights_on_the_device_give_the_weighted_table(pair, raw, data):
    t, p = pair
    w = np.resize(raw, t.shape[0]) if raw.shape[0] else np.zeros(t.shape[0])
    try:
        want = Contingency.from_labels(t, p, sample_weight=w)
    except ValueError as exc:  # every weight 0: the same refusal
        with pytest.raises(ValueError, match=str(exc)):
            Contingency.from_labels(xps.asarray(t), xps.asarray(p), xps.asarray(w))
        return
    same_table(Contingency.from_labels(xps.asarray(t), xps.asarray(p), xps.asarray(w)), want)
    cut = data.draw(st.integers(0, t.shape[0]))
    builder = ContingencyBuilder()
    for part in (slice(0, cut), slice(cut, None)):
        builder.update(xps.asarray(t[part]), xps.asarray(p[part]), xps.asarray(w[part]))
    same_table(builder.result(), want)


def test_extremes_of_every_integer_width_come_back_exactly():
    for dtype in DTYPES[:8]:
        info = np.iinfo(dtype)
        t = np.array([info.min, info.max, info.max, info.min + 1], dtype=dtype)
        table = Contingency.from_labels(xps.asarray(t), xps.asarray(t[::-1].copy()))
        assert table.class_labels.tolist() == sorted({int(v) for v in t.tolist()})
        same_table(table, Contingency.from_labels(t, t[::-1].copy()))


def test_complex_labels_take_the_host_path():
    t = np.array([1 + 2j, 1 + 2j, 3j], dtype=np.complex128)
    same_table(Contingency.from_labels(xps.asarray(t), xps.asarray(t)),
               Contingency.from_labels(t, t))


def test_numpy_and_sequences_are_not_device_arrays():
    for value in (np.arange(3), np.int64(3), [1, 2], (1,), "ab", b"ab", range(3), None,
                  np.ma.masked_array([1, 2])):
        assert not is_device_array(value)
    assert is_device_array(xps.asarray([1, 2]))


@pytest.mark.parametrize("labels_pred, what", [
    (np.array([0, 1, 1]), r"labels_true is on device .*CPU_DEVICE.* \(array_api_strict\) but "
                          r"labels_pred is in host memory \(ndarray\)"),
    ([0, 1, 1], r"but labels_pred is in host memory \(list\)"),
    (xps.asarray([0, 1, 1], device=xps.Device("device1")),
     r"labels_true is on device .*CPU_DEVICE.*but labels_pred is on device .*device1"),
])
def test_mixed_libraries_and_devices_are_refused_naming_both(labels_pred, what):
    with pytest.raises(ValueError, match=what):
        cm.adjusted_rand_score(xps.asarray([0, 0, 1]), labels_pred)


def test_weights_elsewhere_than_the_labels_are_refused():
    labels = xps.asarray([0, 0, 1])
    with pytest.raises(ValueError, match=r"labels_true is on device .* but sample_weight is "
                                         r"in host memory \(list\)"):
        Contingency.from_labels(labels, labels, [1, 1, 1])


@pytest.mark.parametrize("t, p, message", [
    ([[0, 1]], [0, 1], r"labels_true must be 1-D, got an array of shape \(1, 2\)"),
    ([], [], "labels_true is empty: at least one label is needed"),
    ([0, 1], [0, 1, 1], "labels_true and labels_pred have different lengths: 2 and 3"),
    ([0.0, np.nan, np.nan], [0, 1, 1], "labels_true contains 2 missing labels"),
    ([0, 1, 1], [0.0, np.inf, -np.inf], "labels_pred contains infinity: 2 of its labels"),
])
def test_bad_labels_get_the_host_message(t, p, message):
    with pytest.raises(ValueError, match=message):
        Contingency.from_labels(np.array(t), np.array(p))
    with pytest.raises(ValueError, match=message):
        Contingency.from_labels(xps.asarray(np.array(t)), xps.asarray(np.array(p)))


def test_keys_that_would_wrap_the_index_type_are_counted_on_the_host(monkeypatch):
    """A library without 64-bit integers (JAX by default) packs keys in int32: a grid of
    2**31 cells or more is counted from codes brought to the host."""
    namespace = device_labels._namespace
    monkeypatch.setattr(device_labels, "_namespace",
                        lambda *a: (namespace(*a)[0], xps.int32))
    rng = np.random.default_rng(5)
    t, p = rng.integers(0, 10**9, 300), rng.integers(0, 10**9, 300)  # ~9e4 x 9e4 codes
    t[:150] = p[:150]
    same_table(Contingency.from_labels(xps.asarray(t), xps.asarray(p)),
               Contingency.from_labels(t, p))


def test_a_library_with_its_own_order_of_uniques_is_renamed_on_the_host(monkeypatch):
    """The standard leaves the order of unique values open and a library may keep -0.0
    apart from 0.0: the host sorts the labels its way and merges what it calls one."""
    def unique_inverse(x):  # reversed order, -0.0 its own value
        bits = np.from_dlpack(x)
        keys = bits.view(np.int64) if bits.dtype == np.float64 else bits
        values, inverse = np.unique(keys, return_inverse=True)
        values, inverse = values[::-1].copy(), values.shape[0] - 1 - inverse
        values = values.view(bits.dtype) if bits.dtype == np.float64 else values
        return xps.asarray(values), xps.asarray(inverse)

    def unique_counts(x):
        values, counts = np.unique(np.from_dlpack(x), return_counts=True)
        return xps.asarray(values[::-1].copy()), xps.asarray(counts[::-1].copy())

    monkeypatch.setattr(xps, "unique_inverse", unique_inverse)
    monkeypatch.setattr(xps, "unique_counts", unique_counts)
    t = np.array([0.0, -0.0, 1.5, -0.0, 2.0, 1.5])
    p = np.array([7, 10**12, 7, 3, 3, 10**12])
    table = Contingency.from_labels(xps.asarray(t), xps.asarray(p))
    same_table(table, Contingency.from_labels(t, p))
    assert not np.signbit(table.class_labels).any()


def test_numpy_labels_never_load_array_api_compat():
    code = ("import sys, numpy as np, clustermetrics as cm\n"
            "cm.adjusted_rand_score(np.arange(4), [0, 0, 1, 1])\n"
            "from clustermetrics.io.chunks import ContingencyBuilder\n"
            "ContingencyBuilder().update(np.arange(4), np.arange(4), np.ones(4)).result()\n"
            "assert 'array_api_compat' not in sys.modules\n"
            "import array_api_strict as xps\n"
            "cm.adjusted_rand_score(xps.asarray([0, 1]), xps.asarray([0, 1]))\n"
            "assert 'array_api_compat' in sys.modules\n")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


@SETTINGS
@given(label_pairs())
def test_the_dense_grid_path_gives_the_table_of_the_numpy_labels(pair):
    """CuPy, PyTorch and JAX count a small grid with their bincount (the standard has
    none): the grid's cells and sums, here with numpy's bincount behind the strict array."""
    def bincount(key, cells):
        return xps.asarray(np.bincount(np.from_dlpack(key), minlength=cells))

    t, p = pair
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(device_labels, "_bincount", bincount)
        got = Contingency.from_labels(xps.asarray(t), xps.asarray(p))
    same_table(got, Contingency.from_labels(t, p))


class _CupyLike:
    """Stands in for a CuPy array: numpy cannot read it implicitly (CuPy's ``__array__``
    raises TypeError), and ``get`` copies it to the host."""

    __module__ = "cupy._core.core"

    def __init__(self, values):
        self._values = np.asarray(values)
        self.shape = self._values.shape
        self.dtype = self._values.dtype

    def __array__(self, *args, **kwargs):
        raise TypeError("Implicit conversion to a NumPy array is not allowed.")

    def __len__(self):
        return len(self._values)

    def get(self):
        return self._values.copy()


def test_entry_points_that_count_on_the_host_take_device_arrays():
    """Every reader of labels accepts a device array: the entry points without a device
    pass (the paired comparison, the entropy) copy it to the host and give the numpy
    labels' values."""
    import clustermetrics as cm

    t = np.array([0, 0, 1, 1, 2, 2, 2, 0])
    p = np.array([1, 1, 0, 0, 2, 2, 0, 1])
    assert cm.entropy(_CupyLike(t)) == cm.entropy(t)
    assert cm.paired_comparison(_CupyLike(t), _CupyLike(p), p).to_dict() == \
        cm.paired_comparison(t, p, p).to_dict()
