"""One rule for weights, whatever the path: generated weight columns of every type (int64,
uint64, float64 and float32 with subnormal, huge and whole-above-2**53 values, DECIMAL of
several scales, text, mixed Python lists; missing, NaN, infinite, negative and zero
weights) read by every engine (in memory from arrays and lists, from Parquet and CSV in
memory, by DuckDB and by Spark) give the table of a pure-Python reference of the rule,
bit for bit, or its error: the same class of problem and count, naming the column (or
``sample_weight``).

The reference, written from the rule alone: a weight is the exact number it holds (a
float's binary value, a decimal's or a text's digits); a cell weighs the exact sum
(``Fraction``) of its rows' weights; counts when every cell's sum is whole and their total
is at most 2**63 - 1, else real masses, each sum rounded once to float64, their total
within [1e-150, 1e150].

Spark needs Java (`make java`); these tests fail rather than skip without it.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal
from fractions import Fraction
from functools import partial

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import clustermetrics as cm
from clustermetrics import Contingency
from clustermetrics.cli.engines import table_from_files
from clustermetrics.io import from_duckdb, from_spark

MAX = 2**63 - 1
CLASSES = ["missing", "not numbers", "NaN", "infinite", "negative"]  # in refusal order


# ----------------------------------------------------------------- the reference
def _text_value(cell):
    """A text cell by the dialect: (class, exact value)."""
    if cell.strip(" \t\n\r\v\f") == "":
        return "missing", None
    if re.fullmatch(r"[+-]?(?i:nan)", cell):
        return "NaN", None
    if re.fullmatch(r"[+-]?(?i:inf|infinity)", cell):
        return "infinite", None
    if not re.fullmatch(r"-?[0-9]+(\.[0-9]+)?", cell):
        return "not numbers", None
    value = Fraction(cell)
    return ("negative", None) if value < 0 else ("ok", value)


def _value(v, text):
    """(class, exact value) of one weight: text by the dialect, numbers as they are."""
    if v is None:
        return "missing", None
    if text:
        return _text_value(v)
    if isinstance(v, (bool, str)):
        return "not numbers", None
    if isinstance(v, float) and math.isnan(v) or isinstance(v, Decimal) and v.is_nan():
        return "NaN", None
    if isinstance(v, float) and math.isinf(v):
        return "infinite", None
    value = Fraction(v)  # a float's binary value, a Decimal's digits
    return ("negative", None) if value < 0 else ("ok", value)


def expected(t, p, weights, text=False):
    """What the rule makes of the rows: ("table", real, {cell: value}) or an error
    ("problem", class, count), ("total", exact total), ("range",) or ("zero",)."""
    found = [_value(v, text) for v in weights]
    for name in CLASSES:
        count = sum(1 for kind, _ in found if kind == name)
        if count:
            return ("problem", name, count)
    cells: dict = {}
    for a, b, (_, value) in zip(t, p, found, strict=True):
        cells[(str(a), str(b))] = cells.get((str(a), str(b)), Fraction(0)) + value
    total = sum(cells.values(), Fraction(0))
    if total == 0:
        return ("zero",)
    if all(v.denominator == 1 for v in cells.values()):
        if total > MAX:
            return ("total", int(total))
        return ("table", False, {k: int(v) for k, v in cells.items() if v})
    if not Fraction(1e-150) <= total <= Fraction(1e150):
        return ("range",)
    masses = {k: v.numerator / v.denominator for k, v in cells.items()}
    return ("table", True, {k: m for k, m in masses.items() if m})


# ----------------------------------------------------------------- what an engine gave
def outcome(call, names):
    """The table or the error of ``call``, in the reference's terms; an error must name
    the weights as ``names`` does (the column and its option, or sample_weight)."""
    try:
        table = call()
    except ValueError as exc:
        message = str(exc)
        assert names in message, message
        problem = re.search(r"holds (\d+) (missing|(.*) that are not numbers|NaN|infinite|"
                            r"negative)", message)
        if problem:
            name = "not numbers" if problem.group(3) else problem.group(2)
            return ("problem", name, int(problem.group(1)))
        total = re.search(r"add(?:s)? up to (\d+), more than 2\*\*63 - 1", message)
        if total:
            return ("total", int(total.group(1)))
        if "must total between 1e-150 and 1e150" in message:
            return ("range",)
        assert "nothing to score" in message or "all counts are zero" in message, message
        return ("zero",)
    t, p = table.class_labels.tolist(), table.cluster_labels.tolist()
    values = table.counts.tolist()
    assert table.counts.dtype == (np.float64 if table.real_valued else np.int64)
    return ("table", table.real_valued,
            {(str(t[r]), str(p[c])): v for r, c, v in
             zip(table.rows.tolist(), table.cols.tolist(), values, strict=True)})


# ----------------------------------------------------------------- generated columns
FLOATS = st.one_of(
    st.floats(0, 8, allow_nan=False, width=64),
    st.sampled_from([0.0, -0.0, 0.1, 0.5, 0.25, 1.0, 3.0, 2.0**-1074, 2.0**-1022,
                     2.0**-1022 - 2.0**-1074, 2.0**53, 2.0**53 + 2, 2.0**60, 1e20, 2.0**70,
                     1 / 3, 1e-300, 6e149, 9e149]),
)
WHOLE_FLOATS = st.one_of(st.integers(0, 9).map(float),
                         st.floats(0, 1e20, allow_nan=False).map(lambda x: float(int(x))),
                         st.sampled_from([2.0**53, 2.0**53 + 2, 2.0**62, 2.0**70]))


def _float32(x):
    """The float32 nearest x (beyond its range: infinite), as a Python float."""
    with np.errstate(over="ignore"):
        return float(np.float32(x))


def _decimals(scale):
    return st.one_of(st.decimals(0, 10**6, places=scale, allow_nan=False,
                                 allow_infinity=False),
                     st.sampled_from([Decimal("0.1"), Decimal(0), Decimal(1)]))


TEXT = st.one_of(
    st.integers(0, 50).map(str),
    st.decimals(0, 100, places=3).map(str),
    st.integers(0, 2**70).map(str),
    st.sampled_from(["0.1", "0.10", "007", "3.000", "-0", "-0.0", "0.5", "2.5",
                     "9007199254740993.5", "9223372036854775808.5",
                     "0." + "0" * 24 + "1", "1" * 25, "1" * 25 + ".5", "3." + "3" * 30]),
)
# (usable values, values refused, Arrow type) of each kind of column
KINDS = {
    "int64": (st.one_of(st.integers(0, 5), st.integers(0, 2**62)), [-1, None], pa.int64()),
    "uint64": (st.one_of(st.integers(0, 5), st.integers(0, 2**64 - 1),
                         st.sampled_from([2**62, 2**63, 2**64 - 1])), [None], pa.uint64()),
    "float64": (FLOATS, [float("nan"), float("inf"), -1.5, None], pa.float64()),
    "whole64": (WHOLE_FLOATS, [float("-inf"), None], pa.float64()),
    "float32": (FLOATS.map(_float32), [float("nan"), -1.5, None], pa.float32()),
    "decimal2": (_decimals(2), [Decimal(-1), None], pa.decimal128(10, 2)),
    "decimal9": (_decimals(9), [Decimal("-0.5"), None], pa.decimal128(20, 9)),
    "decimal30": (_decimals(30), [None], pa.decimal128(38, 30)),
    "text": (TEXT, ["", " ", "nan", "NaN", "-inf", "Infinity", "1e3", "+3", " 3", "1_000",
                    "-2", "abc", None], pa.string()),
}


@st.composite
def columns(draw, kinds=tuple(KINDS)):
    """(kind, labels, labels, weights): usable weights of one kind, a few refused ones
    in a quarter of the columns, and in some ten tenths in one cell (one count as
    decimals, a real mass of 1.0 as floats)."""
    kind = draw(st.sampled_from(kinds))
    usable, refused, _ = KINDS[kind]
    n = draw(st.integers(1, 14))
    weights = draw(st.lists(usable, min_size=n, max_size=n))
    if draw(st.integers(0, 3)) == 0:
        for _ in range(draw(st.integers(1, 2))):
            weights[draw(st.integers(0, n - 1))] = draw(st.sampled_from(refused))
    if draw(st.integers(0, 3)) == 0 and kind in ("float64", "decimal2", "text"):
        weights += [0.1 if kind == "float64" else Decimal("0.10") if kind == "decimal2"
                    else "0.1"] * 10
    n = len(weights)
    t = draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
    p = draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
    return kind, t, p, weights


def _parquet(path, kind, t, p, weights):
    pq.write_table(pa.table({"t": pa.array(t, pa.int64()), "p": pa.array(p, pa.int64()),
                             "w": pa.array(weights, KINDS[kind][2])}), path)


def _csv(path, t, p, weights):
    """Text weights as cells (quoted: a cell may hold a comma or be blank), None empty."""
    lines = ["t,p,w"] + [f'{a},{b},{"" if w is None else chr(34) + w + chr(34)}'
                         for a, b, w in zip(t, p, weights, strict=True)]
    path.write_text("\n".join(lines) + "\n")


def _api_weights(kind, weights):
    """The column as an in-memory array of its type (nulls: a masked array)."""
    if kind.startswith("decimal"):
        return weights  # a list of Decimals and None
    dtype = {"int64": np.int64, "uint64": np.uint64, "float64": np.float64,
             "whole64": np.float64, "float32": np.float32}[kind]
    mask = [w is None for w in weights]
    data = np.array([0 if w is None else w for w in weights], dtype=dtype)
    return np.ma.masked_array(data, mask=mask) if any(mask) else data


COLUMN = "column 'w' (--weight-col)"


def _check_files(tmp, kind, t, p, weights, engines, spark=None):
    text = kind == "text"
    want = expected(t, p, weights, text=text)
    path = tmp / "d.parquet"
    _parquet(path, kind, t, p, weights)
    readers = [(engine, path) for engine in engines]
    if text:
        csv = tmp / "d.csv"
        _csv(csv, t, p, weights)
        readers += [(engine, csv) for engine in engines]
    for engine, source in readers:
        got = outcome(partial(table_from_files, engine, str(source), None, true_col="t",
                              pred_col="p", weight_col="w", spark=spark), COLUMN)
        assert got == want, (engine, source.suffix, kind, weights)


@pytest.mark.slow
@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture,
                                 HealthCheck.too_slow])
@given(columns())
def test_memory_and_duckdb_agree_with_the_rule(tmp_path_factory, column):
    kind, t, p, weights = column
    _check_files(tmp_path_factory.mktemp("w"), kind, t, p, weights, ("memory", "duckdb"))
    if kind != "text":  # an argument takes numbers: text is refused there
        got = outcome(lambda: Contingency.from_labels(t, p, sample_weight=_api_weights(
            kind, weights)), "sample_weight")
        assert got == expected(t, p, weights), (kind, weights)


@pytest.fixture(scope="module")
def spark(spark_session):
    spark_session.conf.set("spark.sql.shuffle.partitions", "2")
    return spark_session


@pytest.mark.slow
@settings(max_examples=24, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture,
                                 HealthCheck.too_slow])
@given(columns())
def test_spark_agrees_with_the_rule(tmp_path_factory, spark, column):
    kind, t, p, weights = column
    _check_files(tmp_path_factory.mktemp("w"), kind, t, p, weights, ("spark",), spark)


# ----------------------------------------------------------------- Python lists
ITEMS = st.one_of(st.integers(0, 6), st.integers(0, 2**64), st.floats(0, 4), FLOATS,
                  st.decimals(0, 9, places=2), st.fractions(0, 5, max_denominator=7),
                  st.sampled_from([None, True, False, "3", "1_000", "nan", -2, -0.5,
                                   Decimal("NaN"), Decimal("-0.00")]))


@settings(max_examples=200, deadline=None)
@given(st.lists(ITEMS, min_size=1, max_size=12), st.data())
def test_mixed_lists_follow_the_rule(weights, data):
    """Lists of any mixture: numbers by their exact values, text and booleans refused,
    None missing, each class counted."""
    n = len(weights)
    t = data.draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
    p = data.draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
    got = outcome(lambda: Contingency.from_labels(t, p, sample_weight=weights),
                  "sample_weight")
    assert got == expected(t, p, weights), weights


# numbers numpy would round if it read a list of them as one array (2**64 - 1 next to 1:
# float64), and their neighbours
BIG_INTS = st.one_of(st.integers(0, 6), st.integers(0, 2**66), st.sampled_from(
    [2**53, 2**53 + 1, 2**63 - 1, 2**63, 2**63 + 1, 2**64 - 2, 2**64 - 1, 2**64, 2**70]))


@settings(max_examples=200, deadline=None)
@given(st.lists(BIG_INTS, min_size=1, max_size=8), st.data())
def test_lists_of_python_ints_are_exact_weights(weights, data):
    """A list of Python ints as weights, counts or a matrix row is the ints themselves:
    the table or the total its error names is the exact one."""
    n = len(weights)
    t = data.draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
    p = data.draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
    want = expected(t, p, weights)
    assert outcome(lambda: Contingency.from_labels(t, p, sample_weight=weights),
                   "sample_weight") == want, weights
    assert outcome(lambda: Contingency.from_counts(t, p, weights), "counts") == want
    row = expected([0] * n, list(range(n)), weights)
    assert outcome(lambda: Contingency.from_matrix([weights]), "") == row  # all 0: "empty"


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(BIG_INTS, BIG_INTS.map(lambda v: -v)), min_size=1, max_size=8))
def test_lists_of_python_ints_are_exact_labels(labels):
    table = Contingency.from_labels(labels, [0] * len(labels))
    assert table.class_labels.tolist() == sorted(set(labels))
    assert all(type(v) is int for v in table.class_labels.tolist())
    assert table.class_sizes.tolist() == [labels.count(v) for v in sorted(set(labels))]


# ----------------------------------------------------------------- merged tables
MASSES = st.one_of(st.integers(0, 3), st.sampled_from([0.5, 0.25, 1.5, 0.1, 1 / 3, 2.0]),
                   st.fractions(0, 3, max_denominator=4))


@st.composite
def parts(draw):
    """Items of a few tables: (labels, labels, weights) each, some weight positive."""
    out = []
    for _ in range(draw(st.integers(1, 4))):
        n = draw(st.integers(1, 5))
        w = draw(st.lists(MASSES, min_size=n, max_size=n).filter(lambda w: any(w)))
        out.append((draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)),
                    draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)), w))
    if draw(st.booleans()):  # one more table that makes every cell's sum whole
        sums: dict = {}
        for t, p, w in out:
            for cell, v in zip(zip(t, p, strict=True), w, strict=True):
                sums[cell] = sums.get(cell, Fraction(0)) + Fraction(v)
        rest = [(cell, math.ceil(v) - v) for cell, v in sums.items() if v % 1]
        if rest:
            out.append(([c[0] for c, _ in rest], [c[1] for c, _ in rest],
                        [v for _, v in rest]))
    return out


def _cells(table):
    """A table's cells as items: (class, cluster, mass) each."""
    t = table.class_labels[table.rows].tolist()
    p = table.cluster_labels[table.cols].tolist()
    return t, p, table.counts.tolist()


@settings(max_examples=200, deadline=None)
@given(parts())
def test_merged_tables_follow_the_rule(items):
    """Merging tables applies the one rule to their masses: each merged cell the exact
    sum of the tables' cells, counts when every sum is whole (two halves are one item,
    as from the labels), else real masses."""
    tables = [Contingency.from_labels(t, p, sample_weight=w) for t, p, w in items]
    if len(tables) == 1:  # nothing to merge: the table itself
        assert Contingency.merge(tables) is tables[0]
        return
    cells = [_cells(table) for table in tables]
    want = expected(*(sum((c[k] for c in cells), []) for k in range(3)))
    assert outcome(lambda: Contingency.merge(tables), "tables") == want
    if len(tables) == 2:
        assert outcome(lambda: tables[0] + tables[1], "tables") == want
    # masses that are sums of binary fractions are exact: the merge is the table of all
    if all(isinstance(v, int) or float(v) * 8 == int(float(v) * 8)
           for _, _, w in items for v in w):
        every = Contingency.from_labels(*(sum((part[k] for part in items), [])
                                          for k in range(3)))
        assert outcome(lambda: Contingency.merge(tables), "tables") == \
            outcome(lambda: every, "sample_weight")


def test_two_halves_merged_are_one_item():
    half = Contingency.from_counts([0], [0], [0.5])
    merged = half + half
    assert not merged.real_valued and merged.counts.tolist() == [1]
    assert merged == Contingency.from_labels([0, 0], [0, 0], sample_weight=[0.5, 0.5])
    t, p = [0, 0, 1, 1], [0, 1, 1, 1]
    a = Contingency.from_labels(t, p, sample_weight=[0.5, 0.5, 1.5, 0.5])
    b = Contingency.from_labels(t, p, sample_weight=[0.5] * 4)
    both = Contingency.from_labels(t + t, p + p, sample_weight=[0.5, 0.5, 1.5, 0.5] + [0.5] * 4)
    assert a + b == both and not (a + b).real_valued
    assert cm.adjusted_mutual_info_score(a + b) == cm.adjusted_mutual_info_score(both)


# ----------------------------------------------------------------- the review's cases
def test_ten_tenths_one_rule_per_type(tmp_path):
    """Ten 0.1 in one cell: as decimals (DECIMAL, text, Decimal) one count, as floats a
    real mass of 1.0 (their exact sum is 1.0000000000000000555...), on every path."""
    t, p = [0] * 11, [0] * 10 + [1]
    floats = [0.1] * 10 + [1.0]
    assert expected(t, p, floats) == ("table", True, {("0", "0"): 1.0, ("0", "1"): 1.0})
    assert expected(t, p, [Decimal("0.1")] * 10 + [Decimal(1)]) == \
        ("table", False, {("0", "0"): 1, ("0", "1"): 1})
    for kind, weights in (("float64", floats), ("decimal2", [Decimal("0.10")] * 10 + [1]),
                          ("text", ["0.1"] * 10 + ["1"])):
        _check_files(tmp_path, kind, t, p, weights, ("memory", "duckdb"))


@pytest.mark.parametrize("cell", ["9007199254740993.5", "9223372036854775808.5"])
def test_long_decimals_are_real_masses_everywhere(tmp_path, cell):
    t, p = [0, 1], [0, 1]
    want = expected(t, p, [cell, "1"], text=True)
    assert want[0] == "table" and want[1]
    _check_files(tmp_path, "text", t, p, [cell, "1"], ("memory", "duckdb"))


def test_large_whole_floats_are_counts_and_say_so():
    w = np.random.default_rng(0).random(50) * 1e20  # all whole: every float >= 2**53 is
    w[w < 2.0**53] = 2.0**53
    with pytest.raises(ValueError, match="every float from 2\\*\\*53 up is a whole number"):
        Contingency.from_labels(np.arange(50) % 3, np.arange(50) % 2, sample_weight=w)
    table = Contingency.from_labels(np.arange(50) % 3, np.arange(50) % 2,
                                    sample_weight=w / w.sum())
    assert table.real_valued


# ----------------------------------------------------------------- every float exponent
def _edge_floats():
    """Powers of two from the smallest subnormal to about 1e148 and their neighbours
    (log2 rounds near them; the engines' 52-bit blocks start at some of them)."""
    out = []
    for e in range(-1074, 492):
        x = 2.0 ** e
        out += [x, np.nextafter(x, 0.0), np.nextafter(x, np.inf)]
    return np.array([x for x in out if x > 0], dtype=np.float64)


def test_every_float_exponent_is_summed_exactly_by_duckdb():
    x = np.append(_edge_floats(), 0.5)  # one fraction: real masses, each its float
    t = np.arange(x.shape[0])
    relation = duckdb.from_arrow(pa.table({"t": t, "p": np.zeros_like(t), "w": x}))
    table = Contingency.from_labels(t, np.zeros_like(t), sample_weight=x)
    got = outcome(lambda: from_duckdb(relation, "t", "p", weight_col="w"), "column 'w'")
    assert got == outcome(lambda: table, "") == ("table", True, {
        (str(i), "0"): float(v) for i, v in enumerate(x.tolist())})


def test_every_float_exponent_is_summed_exactly_by_spark(spark):
    x = np.append(_edge_floats(), 0.5)
    frame = spark.createDataFrame([(i, 0, float(v)) for i, v in enumerate(x.tolist())],
                                  "t long, p long, w double")
    got = outcome(lambda: from_spark(frame, "t", "p", weight_col="w"), "column 'w'")
    assert got == ("table", True, {(str(i), "0"): float(v) for i, v in enumerate(x.tolist())})
