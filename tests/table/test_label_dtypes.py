"""Every label container and dtype gives the table of its Python values, or a clear error.

The reference is pure Python: the items' values as the container itself converts them to
Python (``list(array)``, ``Series.tolist()``, ``to_pylist()``), grouped with Python
equality in a dict. Our table must put two items in the same class exactly when their
values are equal, and name each class by a value equal to its items' values. Each table
is built with the items as the clusters (``range(n)``), so the class of item i can be read
off the cell in column i. Missing values of every kind and infinities must be refused.
"""

from __future__ import annotations

import datetime
import decimal
import math

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clustermetrics import Contingency, adjusted_rand_score

SETTINGS = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
INT_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
FLOAT_DTYPES = ["float16", "float32", "float64"]


def item_classes(table: Contingency) -> tuple[list[int], list]:
    """(class index of each item, class labels) of a table whose clusters are 0..n-1."""
    assert table.cluster_labels.tolist() == list(range(table.n_clusters))
    by_item = [0] * table.n_clusters
    for r, c in zip(table.rows.tolist(), table.cols.tolist(), strict=True):
        by_item[c] = r
    return by_item, list(table.class_labels)


def assert_table_of_python_values(labels, values: list, *, compare_labels: bool = True):
    """The table of ``labels`` groups items exactly as Python equality groups ``values``."""
    n = len(values)
    for build in (lambda: Contingency.from_labels(labels, list(range(n))),
                  lambda: Contingency.from_counts(labels, list(range(n)), [1] * n)):
        codes, class_labels = item_classes(build())
        groups: dict = {}
        expected = [groups.setdefault(v, len(groups)) for v in values]
        # same partition: equal codes exactly where the Python values are equal
        first: dict = {}
        assert [first.setdefault(c, e) for c, e in zip(codes, expected, strict=True)] == \
            expected
        assert len(class_labels) == len(groups)
        if compare_labels:
            for code, value in zip(codes, values, strict=True):
                assert class_labels[code] == value, (class_labels[code], value)


# --------------------------------------------------------------------------- numpy
@st.composite
def int_arrays(draw):
    dtype = np.dtype(draw(st.sampled_from(INT_DTYPES)))
    info = np.iinfo(dtype)
    edge = st.sampled_from([info.min, info.max, info.min + 1, info.max - 1, 0, -1, 1])
    anywhere = st.integers(int(info.min), int(info.max))
    near_low = st.integers(int(info.min), min(int(info.min) + 300, int(info.max)))
    values = draw(st.lists(st.one_of(edge, anywhere, near_low).filter(
        lambda v: info.min <= v <= info.max), min_size=1, max_size=30))
    return np.array(values, dtype=dtype)


@SETTINGS
@given(int_arrays())
def test_every_integer_dtype(arr):
    assert_table_of_python_values(arr, [int(v) for v in arr.tolist()])


@SETTINGS
@given(st.sampled_from(FLOAT_DTYPES).flatmap(lambda d: st.lists(
    st.floats(allow_nan=False, allow_infinity=False, width=int(d[5:])), min_size=1,
    max_size=30).map(lambda v: np.array(v, dtype=d))))
def test_every_float_dtype(arr):
    assert_table_of_python_values(arr, arr.tolist())


@SETTINGS
@given(st.lists(st.integers(0, 3), min_size=1, max_size=20), st.sampled_from([
    np.longdouble, np.clongdouble]))
def test_extended_precision_keeps_its_last_bits(steps, dtype):
    """float128 labels 1 and 1 + 2^-60 are two labels (pandas' hashing merged them)."""
    tiny = np.longdouble(2) ** -60
    arr = np.array([1 + k * tiny for k in steps], dtype=dtype)
    assert_table_of_python_values(arr, list(arr))


@SETTINGS
@given(st.lists(st.booleans(), min_size=1, max_size=20))
def test_bools(values):
    assert_table_of_python_values(np.array(values), values)
    assert_table_of_python_values(values, values)


@SETTINGS
@given(st.sampled_from(["datetime64", "timedelta64"]),
       st.sampled_from(["D", "s", "ms", "us", "ns"]),
       st.lists(st.integers(-10**6, 10**6), min_size=1, max_size=20))
def test_datetimes(kind, unit, ticks):
    arr = np.array(ticks, dtype=f"{kind}[{unit}]")
    assert_table_of_python_values(arr, list(arr))


@SETTINGS
@given(st.lists(st.complex_numbers(allow_nan=False, allow_infinity=False, max_magnitude=1e6),
                min_size=1, max_size=20))
def test_complex(values):
    assert_table_of_python_values(np.array(values), values)


# Python scalars of every kind the object path meets; equal values across types must merge
_SCALARS = st.one_of(
    st.integers(-2**70, 2**70), st.integers(-3, 3),
    st.floats(allow_nan=False, allow_infinity=False), st.sampled_from([0.0, -0.0, 1.0, 2.5]),
    st.text(max_size=4), st.sampled_from(["", "a", "a\x00", "\x00", "1", "-1"]),
    st.binary(max_size=3), st.booleans(),
    st.decimals(allow_nan=False, allow_infinity=False, places=2),
    st.tuples(st.integers(0, 2), st.text(max_size=1)),
    st.sampled_from([np.int8(-1), np.uint64(2**64 - 1), np.float32(0.5), np.int64(2**53 + 1)]),
)


@SETTINGS
@given(st.lists(_SCALARS, min_size=1, max_size=25))
def test_mixed_python_scalars(values):
    arr = np.empty(len(values), dtype=object)
    arr[:] = values
    assert_table_of_python_values(arr, values)
    if not any(isinstance(v, tuple) for v in values):  # a list of tuples reads as 2-D
        assert_table_of_python_values(values, values)


@SETTINGS
@given(st.lists(st.text(), min_size=1, max_size=25))
def test_arbitrary_strings(values):
    assert_table_of_python_values(values, values)
    assert_table_of_python_values(np.array(values, dtype=object), values)


# --------------------------------------------------------------------------- frames
def _pandas_cases(values: list[int]):
    yield pd.array(values, dtype="Int64"), values
    if _fits(values, "int8"):
        yield pd.Series(values, dtype="Int8"), values
        yield pd.Series(values, dtype="int8[pyarrow]"), values
    if all(v >= 0 for v in values):
        yield pd.Series(values, dtype="UInt64"), values
    strings = [f"s{v}" for v in values]
    yield pd.Series(strings, dtype="category"), strings
    yield pd.Series(values, dtype="category"), values
    yield pd.Series(strings, dtype="string"), strings
    yield pd.Series(strings, dtype="string[pyarrow]"), strings


def _polars_cases(values: list[int]):
    for dtype, name in ((pl.Int8, "int8"), (pl.Int16, "int16"), (pl.Int64, "int64"),
                        (pl.UInt8, "uint8"), (pl.UInt64, "uint64")):
        if _fits(values, name):
            yield pl.Series(values, dtype=dtype), values
    strings = [f"s{v}" for v in values]
    yield pl.Series(strings, dtype=pl.Categorical), strings
    yield pl.Series(strings, dtype=pl.String), strings
    dates = [datetime.date(2000, 1, 1) + datetime.timedelta(days=v % 10**5) for v in values]
    yield pl.Series(dates), None
    decimals = [decimal.Decimal(v) / 100 for v in values]
    yield pl.Series(decimals, dtype=pl.Decimal(20, 2)), decimals


def _fits(values: list[int], dtype: str) -> bool:
    info = np.iinfo(dtype)
    return all(info.min <= v <= info.max for v in values)


def _arrow_cases(values: list[int]):
    for name in ("int8", "int16", "int64", "uint8", "uint64"):
        if _fits(values, name):
            yield pa.array(values, getattr(pa, name)()), values
    strings = [f"s{v}" for v in values]
    yield pa.array(strings).dictionary_encode(), strings
    yield pa.array(strings, pa.large_string()), strings
    yield pa.chunked_array([values[:1], values[1:]], pa.int64()), values
    big = [2**60 + v for v in values]
    yield pa.array([decimal.Decimal(v) for v in big], pa.decimal128(38, 0)), big
    yield pa.array([v % 10**5 for v in values], pa.date32()), None
    yield pa.array(values, pa.timestamp("ns")), None


@SETTINGS
@given(st.lists(st.one_of(st.integers(-128, 127), st.integers(0, 2**40)), min_size=1,
                max_size=20))
def test_pandas_polars_arrow(values):
    for cases in (_pandas_cases, _polars_cases, _arrow_cases):
        for container, expected in cases(values):
            python = expected if expected is not None else _python_values(container)
            assert_table_of_python_values(container, python,
                                          compare_labels=expected is not None)


def _python_values(container) -> list:
    return container.to_pylist() if hasattr(container, "to_pylist") else container.to_list()


def test_narrow_signed_integers_from_the_report():
    """int8 labels spanning more than 127 wrapped around in the offset (0.444, not 1.0)."""
    labels = np.array([-1, -1, 127, 127, 0, 0], np.int8)
    assert adjusted_rand_score(labels, [0, 0, 1, 1, 2, 2]) == 1.0


# --------------------------------------------------------------------------- refused
_MISSING = [None, float("nan"), np.float32("nan"), np.float16("nan"), decimal.Decimal("NaN"),
            decimal.Decimal("sNaN"), np.datetime64("NaT"), np.timedelta64("NaT"),
            complex("nan"), complex(1, float("nan")), pd.NA, pd.NaT]
_INFINITE = [float("inf"), -math.inf, np.float32("inf"), decimal.Decimal("-Infinity"),
             complex("inf")]


@SETTINGS
@given(st.lists(st.one_of(st.integers(0, 3), st.text(max_size=2)), min_size=1, max_size=10),
       st.sampled_from(_MISSING + _INFINITE), st.data())
def test_missing_and_infinite_labels_are_refused(values, bad, data):
    at = data.draw(st.integers(0, len(values)))
    mixed = values[:at] + [bad] + values[at:]
    what = "infinity: 1 of its" if any(bad is x for x in _INFINITE) else "1 missing"
    arr = np.empty(len(mixed), dtype=object)
    arr[:] = mixed
    for labels in (mixed, arr):
        with pytest.raises(ValueError, match=f"labels_true contains {what} labels"):
            Contingency.from_labels(labels, list(range(len(mixed))))


@pytest.mark.parametrize("labels, what", [
    (np.array([1.0, np.nan]), "1 missing"), (np.array([1.0, np.inf], np.float32), "infinity"),
    (np.array([1 + 1j, complex("nan")]), "1 missing"),
    (np.array(["2020-01-01", "NaT"], "datetime64[D]"), "1 missing"),
    (np.ma.masked_array([1, 2], mask=[False, True]), "1 missing"),
    (pd.Series([1, None], dtype="Int64"), "1 missing"), (pl.Series([1, None]), "1 missing"),
    (pa.array(["a", None]).dictionary_encode(), "1 missing"),
    (pd.Series(["a", None], dtype="category"), "1 missing"),
])
def test_missing_in_every_container(labels, what):
    with pytest.raises(ValueError, match=f"labels_true contains {what}"):
        Contingency.from_labels(labels, [0, 1])


def test_masked_array_without_masked_entries_is_its_data():
    masked = np.ma.masked_array([3, 1, 3], mask=[False, False, False])
    assert Contingency.from_labels(masked, [0, 0, 1]) == Contingency.from_labels([3, 1, 3],
                                                                                 [0, 0, 1])


def _generator():
    yield from [1, 2]


@pytest.mark.parametrize("labels, match", [
    (_generator(), "an iterator \\(generator\\)"), (iter([1, 2]), "an iterator"),
    ({1, 2}, "a set"), ({1: 0, 2: 0}, "a mapping"), (np.array(5), "a single value"),
    (5, "a single value"), ("ab", "a single string"), (np.zeros((2, 2)), "1-D"),
    (np.array([{}, {}], dtype=object), "unhashable"),
    (np.zeros(2, dtype=[("a", int)]), "unsupported dtype"),
])
def test_not_a_sequence_of_labels(labels, match):
    with pytest.raises(ValueError, match=f"labels_true .*{match}"):
        Contingency.from_labels(labels, [0, 1])


@pytest.mark.parametrize("counts, match", [
    ([1.0, float("nan")], "NaN"), ([1, None], "1 missing"),
    (["1", "2"], "2 counts that are not numbers"), ([1, -2], "1 negative counts"),
    ([1.5, float("inf")], "infinite"), ([2.0**63, 1], "2\\*\\*63"),
    ([2**62, 2**62], "adds up to 9223372036854775808"), (np.array([True, True]), "dtype bool"),
    (np.array([2**63, 1], np.uint64), "2\\*\\*63"),
])
def test_bad_counts_say_counts(counts, match):
    with pytest.raises(ValueError, match=f"counts.*{match}"):
        Contingency.from_counts(["a", "b"], ["x", "y"], counts)


def test_tables_beyond_int64_are_refused_everywhere():
    half = Contingency.from_counts(["a"], ["x"], [2**62])
    with pytest.raises(ValueError, match="2\\*\\*63 - 1"):
        half + half
    with pytest.raises(ValueError, match="matrix adds up to 9223372036854775808, more than"):
        Contingency.from_matrix(np.array([[2**62, 2**62]], dtype=object))
    assert Contingency.from_matrix(np.array([[2**62, 2**62 - 1]], dtype=object)).n_samples \
        == 2**63 - 1


_NULLS = [None, float("nan")]


@SETTINGS
@given(st.lists(st.one_of(st.floats(-5, 5), st.sampled_from(_NULLS)), min_size=1,
                max_size=12), st.data())
def test_every_missing_value_is_counted_once(values, data):
    """Nulls, NaNs and masked entries mixed in one column: the error counts each once."""
    mask = data.draw(st.lists(st.booleans(), min_size=len(values), max_size=len(values)))
    missing = sum(v is None or v != v for v in values)
    with_mask = sum(m or v is None or v != v for v, m in zip(values, mask, strict=True))
    filled = [0.0 if v is None else v for v in values]
    containers = [(pl.Series(values, dtype=pl.Float64), missing),
                  (pa.array(values, pa.float64()), missing),
                  (pd.Series(values, dtype="Float64"), missing),
                  (np.ma.masked_array(filled, mask=[m or v is None for v, m in
                                                    zip(values, mask, strict=True)]), with_mask)]
    for container, count in containers:
        if count == 0:
            Contingency.from_labels(container, list(range(len(values))))
            continue
        with pytest.raises(ValueError, match=f"labels_true contains {count} missing"):
            Contingency.from_labels(container, list(range(len(values))))


def test_types_numpy_cannot_hold_are_read_as_python_values():
    big = [2**100, -(2**100), 2**100]
    assert_table_of_python_values(pl.Series(big, dtype=pl.Int128), big)


def test_masked_counts_are_refused_in_every_constructor():
    with pytest.raises(ValueError, match="matrix contains 1 masked"):
        Contingency.from_matrix(np.ma.array([[1, 2], [3, 4]], mask=[[0, 1], [0, 0]]))
    with pytest.raises(ValueError, match="counts holds 1 missing \\(None, NULL, masked"):
        Contingency.from_counts([0, 1], [0, 1], np.ma.array([1, 2], mask=[0, 1]))


def test_nanosecond_times_of_day_are_refused_in_every_container():
    """datetime.time holds microseconds: distinct ns times would merge into one label."""
    from clustermetrics import adjusted_rand_score

    raw = pa.array([1, 2, 1, 3, 3], type=pa.time64("ns"))
    for labels in (raw, pa.chunked_array([raw]), pl.Series([1, 2, 1, 3, 3]).cast(pl.Time),
                   pd.Series(raw, dtype=pd.ArrowDtype(pa.time64("ns")))):
        with pytest.raises(ValueError, match="labels_true holds times of day in nanoseconds"):
            adjusted_rand_score(labels, [0, 1, 0, 1, 1])
    micro = pa.array([1000, 2000, 1000, 3000, 3000], type=pa.time64("us"))
    assert adjusted_rand_score(micro, [0, 1, 0, 1, 1]) == \
        adjusted_rand_score([1, 2, 1, 3, 3], [0, 1, 0, 1, 1])
