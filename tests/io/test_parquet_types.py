"""Every Parquet column type, every engine: the identical table or the identical error.

For each Arrow type a label column can have, hypothesis writes a Parquet file of values of
that type (edges included: 2**63 - 1, 2**64 - 1, 38-digit decimals, -0.0, NaN, +-inf,
nanosecond timestamps) and ``--engine memory``, ``duckdb`` and ``spark`` must each give
the table of ``expected`` below -- an independent statement of README.md's "How files are
read" from the Python values written -- or the same error. Labels are compared by
``repr`` of the values shown (``label_values``): 2**63 + 1 is not a float, ``Decimal``
stays ``Decimal``, a duration is not an integer, a nanosecond is not dropped.
"""

from __future__ import annotations

import datetime
import decimal
import math
import os
import tempfile

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clustermetrics import Contingency
from clustermetrics.cli.engines import table_from_files
from clustermetrics.table import label_values

EPOCH = datetime.datetime(1970, 1, 1)
UNIT_US = {"s": 10**6, "ms": 10**3, "us": 1}
MICROS = (-62135596800 * 10**6, 253402300799 * 10**6)  # years 1 to 9999
DAYS = (-719162, 2932896)


@pytest.fixture(scope="module")
def spark(spark_session):
    spark_session.conf.set("spark.sql.shuffle.partitions", "1")
    return spark_session


class Refused(Exception):
    """The rules refuse this column (the message must say this)."""


def _float(v):
    if math.isnan(v):
        return None
    if math.isinf(v):
        raise Refused("infinite label")
    return 0.0 if v == 0 else float(v)  # -0.0 is the label 0.0


def _ints(bits, signed):
    lo, hi = (-2**(bits - 1), 2**(bits - 1) - 1) if signed else (0, 2**bits - 1)
    return st.one_of(st.sampled_from([lo, hi, lo + 1, hi - 1, 0]), st.integers(lo, hi))


def _decimal(digits, scale):
    return st.integers(-10**digits + 1, 10**digits - 1).map(
        lambda i: decimal.Decimal(f"{i}E-{scale}"))


def _micros(unit):
    lo, hi = MICROS
    return st.integers(lo // UNIT_US[unit], hi // UNIT_US[unit])


def _moment(unit):
    return lambda v: EPOCH + datetime.timedelta(microseconds=v * UNIT_US[unit])


def _time(unit):
    return lambda v: (datetime.datetime.min
                      + datetime.timedelta(microseconds=v * UNIT_US[unit])).time()


class _refused(str):  # noqa: N801 - a type refused whatever its values
    """The rules refuse the type itself, before any row is read."""


# (id, Arrow type, strategy of the values written, the label each value is)
TYPES = [
    *[(f"int{b}", getattr(pa, f"int{b}")(), _ints(b, True), int) for b in (8, 16, 32, 64)],
    *[(f"uint{b}", getattr(pa, f"uint{b}")(), _ints(b, False), int) for b in (8, 16, 32, 64)],
    ("float16", pa.float16(), st.floats(width=16).map(np.float16), _float),
    ("float32", pa.float32(), st.floats(width=32), _float),
    ("float64", pa.float64(), st.one_of(st.sampled_from([-0.0, 0.0, 2.0**53 + 2]),
                                        st.floats()), _float),
    ("decimal38", pa.decimal128(38, 0), _decimal(38, 0), lambda v: v),
    ("decimal38.20", pa.decimal128(38, 20), _decimal(38, 20), lambda v: v),
    ("decimal9.3", pa.decimal128(9, 3), _decimal(9, 3), lambda v: v),
    ("decimal50", pa.decimal256(50, 0), _decimal(50, 0), _refused("wider than the 38 digits")),
    ("bool", pa.bool_(), st.booleans(), bool),
    ("string", pa.string(), st.text(st.characters(exclude_categories=["Cs"]), max_size=4),
     lambda v: v),
    ("large_string", pa.large_string(), st.sampled_from(["a", "é", "NaN", " "]), lambda v: v),
    ("dictionary", pa.dictionary(pa.int32(), pa.string()), st.sampled_from(["x", "y", ""]),
     lambda v: v),
    ("binary", pa.binary(), st.binary(max_size=3), bytes),
    ("fixed_size_binary", pa.binary(2), st.binary(min_size=2, max_size=2), bytes),
    ("date32", pa.date32(), st.integers(*DAYS),
     lambda v: datetime.date(1970, 1, 1) + datetime.timedelta(days=v)),
    ("date64", pa.date64(), st.integers(*DAYS).map(lambda d: d * 86_400_000),
     lambda v: datetime.date(1970, 1, 1) + datetime.timedelta(days=v // 86_400_000)),
    *[(f"timestamp_{u}{'_tz' if tz else ''}", pa.timestamp(u, tz=tz), _micros(u), _moment(u))
      for u in ("s", "ms", "us") for tz in (None, "Asia/Kolkata")],
    *[(f"timestamp_ns{'_tz' if tz else ''}", pa.timestamp("ns", tz=tz),
       st.integers(-2**63 + 1, 2**63 - 1), lambda v: np.datetime64(v, "ns"))
      for tz in (None, "UTC")],
    ("time32_s", pa.time32("s"), st.integers(0, 86399), _time("s")),
    ("time32_ms", pa.time32("ms"), st.integers(0, 86_399_999), _time("ms")),
    ("time64_us", pa.time64("us"), st.integers(0, 86_399_999_999), _time("us")),
    ("time64_ns", pa.time64("ns"), st.integers(0, 86_399_999_999_999),
     _refused("a time of day in nanoseconds")),
    *[(f"duration_{u}", pa.duration(u), st.integers(-10**12 // UNIT_US[u] * 10**3,
                                                    10**12 // UNIT_US[u] * 10**3),
       lambda v, u=u: datetime.timedelta(microseconds=v * UNIT_US[u])) for u in ("s", "ms", "us")],
    ("duration_ns", pa.duration("ns"), st.integers(-2**63 + 1, 2**63 - 1),
     lambda v: np.timedelta64(v, "ns")),
    ("null", pa.null(), st.none(), None),
    ("list", pa.list_(pa.int64()), st.lists(st.integers(0, 3), max_size=2),
     _refused("cannot hold labels")),
]
BY_ID = {case[0]: case for case in TYPES}


def expected(t_case, t_values, p_case, p_values, drop_null):
    """("table", labels, cells) or ("error", what the message must say), from the values."""
    for case in (t_case, p_case):
        if isinstance(case[3], _refused):
            return ("error", str(case[3]))
    try:
        t, p = ([None if v is None or case[3] is None else case[3](v) for v in values]
                for case, values in ((t_case, t_values), (p_case, p_values)))
    except Refused as why:
        return ("error", str(why))
    kept = [(a, b) for a, b in zip(t, p, strict=True) if a is not None and b is not None]
    if not t:
        return ("error", "has no rows")
    if len(kept) < len(t) and not drop_null:
        t_null = t.count(None)
        col, count = ("t", t_null) if t_null else ("p", p.count(None))
        return ("error", f"column {col!r} has {count} NULL labels")
    if not kept:
        return ("error", "every row has a NULL label")
    t_kept, p_kept = np.empty(len(kept), dtype=object), np.empty(len(kept), dtype=object)
    t_kept[:], p_kept[:] = [a for a, _ in kept], [b for _, b in kept]
    return ("table", *_shown(Contingency.from_labels(t_kept, p_kept)))


def _shown(table):
    return ([repr(v) for v in label_values(table.class_labels)],
            [repr(v) for v in label_values(table.cluster_labels)],
            (table.rows.tolist(), table.cols.tolist(), table.counts.tolist()))


def outcome(engine, path, drop_null, spark=None):
    try:
        table = table_from_files(engine, path, None, true_col="t", pred_col="p",
                                 drop_null=drop_null, spark=spark)
    except ValueError as exc:
        return ("error", str(exc))
    return ("table", *_shown(table))


def _column(kind, values):
    if pa.types.is_dictionary(kind):
        return pa.array(values, pa.string()).dictionary_encode()
    return pa.array(values, kind)


def check(engines, t_column, p_column, drop_null, spark=None):
    (t_case, t_values), (p_case, p_values) = t_column, p_column
    want = expected(t_case, t_values, p_case, p_values, drop_null)
    context = (t_case[0], p_case[0])
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "labels.parquet")
        pq.write_table(pa.table({"t": _column(t_case[1], t_values),
                                 "p": _column(p_case[1], p_values)}), path)
        got = {engine: outcome(engine, path, drop_null, spark) for engine in engines}
    first = got[engines[0]]
    for engine in engines:  # the engines agree to the letter, errors included
        assert got[engine] == first, (context, engine, got[engine], first)
    assert first[0] == want[0], (context, first, want)
    if want[0] == "table":
        assert first[1:] == want[1:], (context, first, want)
    else:
        assert want[1] in first[1], (context, first, want)


@st.composite
def columns(draw, rows=None):
    """(type case, values with None for NULL) of a label column of ``rows`` values."""
    case = draw(st.sampled_from(TYPES))
    values = st.one_of(case[2], st.none()) if draw(st.booleans()) else case[2]
    size = dict(min_size=0, max_size=8) if rows is None else dict(min_size=rows,
                                                                  max_size=rows)
    return case, draw(st.lists(values, **size))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), st.booleans())
def test_memory_and_duckdb_read_every_type_alike(data, drop_null):
    t_column = data.draw(columns())
    p_column = data.draw(columns(len(t_column[1])))
    check(("memory", "duckdb"), t_column, p_column, drop_null)


EDGES = {  # per type, the values most likely to be read wrong
    "int64": [2**63 - 1, 2**63 - 2, -2**63, 2**53 + 1, 2**53], "uint64": [2**64 - 1, 2**64 - 2,
                                                                        2**63, 0],
    "float16": [np.float16(-0.0), np.float16(0.0), np.float16(65504.0), np.float16(6e-08)],
    "float64": [-0.0, 0.0, 2.0**53, 2.0**53 + 2, None],
    "decimal38": [decimal.Decimal(10**38 - 1), decimal.Decimal(10**38 - 2),
                  decimal.Decimal(-10**38 + 1)],
    "timestamp_ns": [1, 2, 1_000, -1], "timestamp_ns_tz": [2**62, 2**62 + 1],
    "duration_s": [1, 2, -1], "duration_ns": [1, 2, 1_000],
    "time32_s": [0, 1, 86399], "time64_us": [1, 2, 86_399_999_999],
}


def _edges(case):
    if case[0] == "null":
        return [None, None]
    return EDGES.get(case[0]) or [v for v in _examples(case[2]) if v is not None]


# each Spark job reads two types, one per column; refused types cost no job
PAIRS = [(a[0], b[0]) for a, b in zip(TYPES[::2], TYPES[1::2] + TYPES[:1], strict=False)]


@pytest.mark.parametrize("t_name, p_name", PAIRS)
def test_spark_reads_every_type_as_the_others_do(spark, t_name, p_name):
    t_case, p_case = BY_ID[t_name], BY_ID[p_name]
    t_values, p_values = _edges(t_case), _edges(p_case)
    rows = max(len(t_values), len(p_values))
    t_values, p_values = (t_values * rows)[:rows], (p_values[::-1] * rows)[:rows]
    check(("memory", "duckdb", "spark"), (t_case, t_values), (p_case, p_values), False,
          spark)


def _examples(strategy, n=4):
    found = []

    @settings(max_examples=n, database=None, deadline=None)
    @given(strategy)
    def collect(v):
        found.append(v)

    collect()
    return found or [None]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["t", "T", "p", "P", "q", "t "]), min_size=1, max_size=5),
       st.sampled_from(["t", "T", "t "]), st.sampled_from(["p", "P"]))
def test_column_names_are_found_alike(names, true_col, pred_col):
    # a label column is read when it is named exactly once and no other column differs
    # from it only in case (DuckDB and Spark take such names for one); otherwise every
    # engine gives the same error
    table = pa.Table.from_arrays([pa.array([i, i + 1, i]) for i in range(len(names))],
                                 names=names)
    hits = {c: names.count(c) for c in (true_col, pred_col)}
    twins = any(n != c and n.lower() == c.lower() for c in (true_col, pred_col) for n in names)
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "labels.parquet")
        pq.write_table(table, path)
        got = {engine: outcome_cols(engine, path, true_col, pred_col)
               for engine in ("memory", "duckdb")}
    assert got["memory"] == got["duckdb"], got
    if all(count == 1 for count in hits.values()) and not twins:
        assert got["memory"][0] == "table", got
    else:
        assert got["memory"][0] == "error", got
        assert ("differ only in case" in got["memory"][1] or "named once" in
                got["memory"][1] or "has no column" in got["memory"][1]), got


def outcome_cols(engine, path, true_col, pred_col):
    try:
        table = table_from_files(engine, path, None, true_col=true_col, pred_col=pred_col)
    except ValueError as exc:
        return ("error", str(exc))
    return ("table", *_shown(table))


STORAGES = {"string": lambda v: pa.array(v, pa.string()),
            "large_string": lambda v: pa.array(v, pa.large_string()),
            "dictionary": lambda v: pa.array(v, pa.string()).dictionary_encode()}


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(list(STORAGES)),
                          st.lists(st.sampled_from(["a", "b", "é"]), min_size=1, max_size=4)),
                min_size=1, max_size=3))
def test_parts_storing_strings_differently_are_one_column(parts):
    # a glob's parts may store a string column plainly, with large offsets or as a
    # dictionary: the labels are the strings, and every engine reads them as one file
    with tempfile.TemporaryDirectory() as folder:
        every = []
        for i, (storage, values) in enumerate(parts):
            pq.write_table(pa.table({"t": STORAGES[storage](values),
                                     "p": pa.array([len(v) for v in values])}),
                           os.path.join(folder, f"part{i}.parquet"))
            every += values
        want = Contingency.from_labels(np.array(every, dtype=object),
                                       np.array([len(v) for v in every]))
        for engine in ("memory", "duckdb"):
            got = table_from_files(engine, os.path.join(folder, "part*.parquet"), None,
                                   true_col="t", pred_col="p")
            assert got == want, engine


RELATION_TYPES = [  # DuckDB types no Parquet file has: (SQL type, values, the label of each)
    ("HUGEINT", st.integers(-2**127, 2**127 - 1), int),
    ("UHUGEINT", st.integers(0, 2**128 - 1), int),
    ("DECIMAL(38,0)", st.integers(-10**38 + 1, 10**38 - 1), decimal.Decimal),
    ("DECIMAL(38,19)", st.integers(-10**38 + 1, 10**38 - 1),
     lambda v: decimal.Decimal(f"{v}E-19")),
    ("BLOB", st.binary(max_size=3), bytes),
]


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(RELATION_TYPES), st.data())
def test_duckdb_relations_keep_wide_values_exact(case, data):
    # 128-bit integers and 38-digit decimals would merge through float64 in numpy
    import duckdb

    sql_type, values, label = case
    t = data.draw(st.lists(values, min_size=1, max_size=6))
    p = list(range(len(t)))
    rows = ", ".join(f"(CAST({_sql(v, sql_type)} AS {sql_type}), {i})" for i, v in enumerate(t))
    con = duckdb.connect()
    try:
        relation = con.sql(f"SELECT * FROM (VALUES {rows}) AS v(t, p)")
        from clustermetrics.io import from_duckdb

        table = from_duckdb(relation, "t", "p")
    finally:
        con.close()
    want = np.empty(len(t), dtype=object)
    want[:] = [label(v) for v in t]
    assert _shown(table) == _shown(Contingency.from_labels(want, np.array(p)))


def _sql(value, sql_type):
    if isinstance(value, bytes):
        return "'" + "".join(f"\\x{b:02x}" for b in value) + "'::BLOB"
    if sql_type.startswith("DECIMAL(38,19)"):
        return f"'{decimal.Decimal(f'{value}E-19')}'"
    return f"'{value}'"
