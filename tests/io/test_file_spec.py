"""One file, one reading, whatever the engine.

Hypothesis writes delimited files (with Python's ``csv`` module, then perturbed byte by
byte) and every engine must give the table of ``spec_table`` below, an independent
character-by-character reading of the user guide's "How files are read"
(docs/guide/cli.md), or a ValueError when
it does; memory, DuckDB and Spark must also agree on the rows read and skipped. Parquet
columns of every type go through DuckDB and Spark and must give the table of the values
pyarrow reads.
"""

from __future__ import annotations

import csv
import datetime
import decimal
import gzip
import io
import os
import tempfile
from unittest.mock import patch

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from clustermetrics import Contingency
from clustermetrics.cli.engines import choose_engine, table_from_files
from clustermetrics.io import delimited as _delimited
from clustermetrics.io.delimited import scan

WHITESPACE = " \t\n\r\x0b\x0c"  # the spec's whitespace, spelled out again here


@pytest.fixture(scope="module")
def spark(spark_session):
    spark_session.conf.set("spark.sql.shuffle.partitions", "1")
    return spark_session


# ---------------------------------------------------------------- the spec, independently
class Refused(Exception):
    """The spec says this file is an error."""


def spec_records(text: str, sep: str) -> list[tuple[int, list[str] | None]]:
    """(start line, fields) of every record, None for a blank line; Refused when the text
    breaks a rule. One character at a time, as RFC 4180 reads (single quotes, '#' and
    spaces are ordinary; a line ends with LF or CRLF, one kind per file)."""
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\x00" in text:
        raise Refused("NUL")
    records, fields, field = [], [], []
    state, line, start, ends = "start", 1, 1, set()
    i = 0
    touched = False  # the current record has content

    def end_record(terminator):
        nonlocal fields, field, touched, start
        if terminator:
            ends.add(terminator)
            if len(ends) > 1:
                raise Refused("mixed line ends")
        records.append((start, fields + ["".join(field)] if touched else None))
        fields, field, touched = [], [], False
        start = line + (terminator is not None)

    while i < len(text):
        c = text[i]
        crlf = text.startswith("\r\n", i)
        if state == "quoted":
            if c == '"':
                state = "quote"
            else:
                field.append(c)
                line += c == "\n"
            i += 1
            continue
        if c == "\r" and not crlf:
            raise Refused("lone CR")
        if c in "\r\n":
            if state in ("start", "unquoted", "quote"):
                end_record("CRLF" if crlf else "LF")
            line += 1
            state = "start"
            i += 2 if crlf else 1
            continue
        touched = True
        if c == sep:
            if state == "quote" or state in ("start", "unquoted"):
                fields.append("".join(field))
                field = []
                state = "start"
        elif c == '"':
            if state == "start":
                state = "quoted"
            elif state == "quote":
                field.append('"')
                state = "quoted"
            else:
                raise Refused("quote in unquoted field")
        else:
            if state == "quote":
                raise Refused("text after closing quote")
            field.append(c)
            state = "unquoted"
        i += 1
    if state == "quoted":
        raise Refused("unbalanced quote")
    if touched or fields or field:
        end_record(None)
    return records


def spec_pairs(text: str, sep: str, true_col: str, pred_col: str) -> list[tuple[str, str]]:
    """The (true, predicted) cells of every row by the spec ("" for a blank line), or
    Refused."""
    if not text.lstrip("\ufeff"):
        raise Refused("empty")
    records = spec_records(text, sep)
    if not records or records[0][1] is None:
        raise Refused("no header / blank first line")
    header = records[0][1]
    body = records[1:]
    while body and body[-1][1] is None:
        body.pop()  # blank lines after the last row are not rows
    if not body:
        raise Refused("no rows")
    for _, fields in body:
        if fields is not None and len(fields) != len(header):
            raise Refused("ragged")
    for col in (true_col, pred_col):
        if not col or header.count(col) != 1:
            raise Refused("column missing or repeated")
    ti, pi = header.index(true_col), header.index(pred_col)
    return [("", "") if fields is None else (fields[ti], fields[pi]) for _, fields in body]


def spec_table(pairs: list[tuple[str, str]], drop_null: bool):
    """("table", table, log line) of the rows by the spec's missing-label rule."""
    kept = [(a, b) for a, b in pairs if a.strip(WHITESPACE) and b.strip(WHITESPACE)]
    skipped = len(pairs) - len(kept)
    if skipped and not drop_null:
        raise Refused("missing label")
    if not kept:
        raise Refused("every row missing")
    t, p = zip(*kept, strict=True)
    log = f"skipped {skipped} of {len(pairs)} rows with a missing label" if skipped else None
    return ("table", Contingency.from_labels(np.array(t, dtype=object),
                                             np.array(p, dtype=object)), log)


# ---------------------------------------------------------------- generated files
CHARS = ["a", "b", "1", " ", "\t", '"', "'", "#", ",", ";", "|", "\\", "é", "中", "😀",
         "\u2028", "\x85", "\xa0", "\n", "\r\n", "\r", "\x0b"]
blank_cells = st.sampled_from(["", " ", "\t", "  ", "\r\n", "\x0b"])
# mostly labels, now and then a missing one: most files must give a table
labels = st.lists(st.sampled_from(CHARS), min_size=1, max_size=4).map("".join).filter(
    lambda label: label.strip(WHITESPACE))
cells = st.integers(0, 11).flatmap(  # mostly labels, now and then a missing one
    lambda k: blank_cells if k == 0 else st.sampled_from(["a", "b", "'x'", "#a", " a", "a "])
    if k == 1 else labels)
names = st.one_of(st.sampled_from(["t", "p", "q", " t", "t "]),
                  st.lists(st.sampled_from(CHARS), min_size=1, max_size=3).map("".join))
SEPS = [",", ";", "\t", "|", " ", "#", "'"]
# a byte sequence that the perturbation may splice in
SPLICES = ['"', "\r", "\n", "\r\n", ",", ";", " ", "'", "#", '""', "\ufeff", "\t"]


@st.composite
def delimited_files(draw):
    """(text, file suffix, sep or None, true_col, pred_col, drop_null)."""
    sep = draw(st.sampled_from(SEPS))
    ncols = draw(st.integers(1, 4))
    if draw(st.integers(0, 4)):
        header = draw(st.lists(names, min_size=ncols, max_size=ncols, unique=True))
    else:  # now and then repeated or empty names
        header = draw(st.lists(st.one_of(names, st.just("")), min_size=ncols, max_size=ncols))
    rows = draw(st.lists(st.lists(cells, min_size=ncols, max_size=ncols), min_size=1,
                         max_size=7))
    end = draw(st.sampled_from(["\n", "\r\n"]))
    out = io.StringIO()
    writer = csv.writer(out, delimiter=sep, quotechar='"', doublequote=True, lineterminator=end,
                        quoting=draw(st.sampled_from([csv.QUOTE_MINIMAL, csv.QUOTE_ALL])))
    writer.writerow(header)
    for row in rows:
        if draw(st.integers(0, 11)) == 0:
            out.write(end * draw(st.integers(1, 2)))  # blank lines among the rows
        writer.writerow(row)
    out.write(end * draw(st.sampled_from([0, 0, 0, 1, 2])))  # blank lines at the end
    text = out.getvalue()
    if draw(st.booleans()) and text.endswith(end):
        text = text[:-len(end)]  # no line end after the last row
    for _ in range(draw(st.sampled_from([0, 0, 0, 0, 1, 2]))):  # perturb: mostly an error
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(st.sampled_from(SPLICES)) + text[at:]
    if draw(st.integers(0, 4)) == 0:
        text = "\ufeff" + text
    suffix = draw(st.sampled_from([".csv", ".tsv", ".txt", ".csv.gz", ".tab"]))
    default = "\t" if suffix in (".tsv", ".tab") else ","
    given_sep = None if sep == default and draw(st.booleans()) else \
        ("\\t" if sep == "\t" and draw(st.booleans()) else sep)
    true_col = draw(st.sampled_from(header))
    pred_col = draw(st.sampled_from(header))
    return text, suffix, given_sep, sep, true_col, pred_col, draw(st.booleans())


raw_texts = st.lists(st.sampled_from(["t", "p", "a", "b", ",", '"', "'", "#", " ", "\t", "\n",
                                      "\r\n", "\r", "é", '""', "\ufeff"]), max_size=24
                     ).map("".join)


def _write(folder: str, name: str, text: str) -> str:
    path = os.path.join(folder, name)
    data = text.encode("utf-8")
    with (gzip.open(path, "wb") if name.endswith(".gz") else open(path, "wb")) as fh:
        fh.write(data)
    return path


def outcome(engine, path, true_col, pred_col, sep, drop_null, spark=None):
    """("table", table, stats) or ("error", message) of reading ``path`` with ``engine``."""
    stats = {}
    try:
        table = table_from_files(engine, path, None, true_col=true_col, pred_col=pred_col,
                                 sep=sep, drop_null=drop_null, spark=spark,
                                 log=lambda message, **k: message.startswith("skipped")
                                 and stats.setdefault("log", message))
    except ValueError as exc:
        return ("error", str(exc))
    return ("table", table, stats.get("log"))


def expected(texts, sep, true_col, pred_col, drop_null):
    """The spec's outcome for the files of ``texts`` (the parts of a glob) read together."""
    try:
        pairs = [pair for text in texts for pair in spec_pairs(text, sep, true_col, pred_col)]
        return spec_table(pairs, drop_null)
    except Refused as why:
        return ("error", str(why))


def assert_same(got, want, context):
    event(f"{context[0]}: {want[0] if want[0] == 'table' else want[1]}")
    assert got[0] == want[0], (context, got, want)
    if got[0] == "table":
        assert got[1] == want[1], (context, got[1], want[1])
        assert got[2] == want[2], (context, got[2], want[2])


def _spark_refuses(got, path, sep) -> bool:
    """Spark's documented limitations, in CRLF files only: a CRLF inside a quoted label (it
    reads LF), a column name holding a line break (it takes it for the line end)."""
    layout = scan(path, sep)
    if not layout.crlf or got[0] != "error":
        return False
    if "CRLF" in layout.quoted_breaks and "Spark would read it as LF" in got[1]:
        return True
    return (any("\n" in n or "\r" in n for n in layout.header)
            and "Spark would take it for the line end" in got[1])


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(delimited_files())
def test_memory_and_duckdb_read_every_file_by_the_spec(case):
    text, suffix, given_sep, sep, true_col, pred_col, drop_null = case
    want = expected([text], sep, true_col, pred_col, drop_null)
    with tempfile.TemporaryDirectory() as folder:
        path = _write(folder, "data" + suffix, text)
        for engine in ("memory", "duckdb"):
            got = outcome(engine, path, true_col, pred_col, given_sep, drop_null)
            assert_same(got, want, (engine, text))


@settings(max_examples=100, deadline=None)
@given(raw_texts, st.booleans())
def test_raw_text_read_by_the_spec(text, drop_null):
    want = expected([text], ",", "t", "p", drop_null)
    with tempfile.TemporaryDirectory() as folder:
        path = _write(folder, "raw.csv", text)
        for engine in ("memory", "duckdb"):
            assert_same(outcome(engine, path, "t", "p", None, drop_null), want, (engine, text))


@pytest.mark.slow
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(delimited_files())
def test_spark_reads_every_file_by_the_spec(spark, case):
    text, suffix, given_sep, sep, true_col, pred_col, drop_null = case
    want = expected([text], sep, true_col, pred_col, drop_null)
    with tempfile.TemporaryDirectory() as folder:
        path = _write(folder, "data" + suffix, text)
        got = outcome("spark", path, true_col, pred_col, given_sep, drop_null, spark)
        if want[0] == "table" and _spark_refuses(got, path, sep):
            return
        assert_same(got, want, ("spark", text))


@settings(max_examples=100, deadline=None)
@given(delimited_files(), st.sampled_from([1, 2, 3, 5, 16]))
def test_scan_is_the_same_in_any_window(case, window):
    # the scan carries its state from one window of bytes to the next: the window size
    # (16 MiB in use) must change nothing
    text, suffix, _, sep, *_ = case
    data = text.encode("utf-8")

    def layout():
        try:
            return scan("f" + suffix, sep, data=data)
        except ValueError:
            return "error"

    whole = layout()
    with patch.object(_delimited, "_WINDOW", window):
        assert layout() == whole


@st.composite
def globbed_parts(draw):
    """Parts of one table whose columns come in any order (and sometimes lack one)."""
    parts = []
    for _ in range(draw(st.integers(1, 3))):
        header = draw(st.permutations(["t", "p", "x"]))
        if draw(st.integers(0, 7)) == 0:
            header = header[1:]  # a part without one of the columns
        rows = draw(st.lists(st.lists(cells, min_size=len(header), max_size=len(header)),
                             min_size=1, max_size=5))
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)
        parts.append(out.getvalue())
    return parts, draw(st.booleans())


@settings(max_examples=60, deadline=None)
@given(globbed_parts())
def test_glob_parts_combine_by_column_name(case):
    parts, drop_null = case
    want = expected(parts, ",", "t", "p", drop_null)
    with tempfile.TemporaryDirectory() as folder:
        for i, text in enumerate(parts):
            _write(folder, f"part-{i}.csv", text)
        pattern = os.path.join(folder, "part-*.csv")
        for engine in ("memory", "duckdb"):
            got = outcome(engine, pattern, "t", "p", None, drop_null)
            assert_same(got, want, (engine, parts))
            if want[1] == "column missing or repeated":
                assert "part-" in got[1] and "has no column" in got[1]  # names the part


def test_glob_parts_through_spark(spark, tmp_path):
    (tmp_path / "a.csv").write_text("t,p\n1,x\n2,y\n")
    (tmp_path / "b.csv").write_text("p,x,t\ny,0,1\nx,0,2\n")  # same names, other order
    (tmp_path / "c.csv").write_text("x,p\n0,x\n")  # no column t
    want = Contingency.from_labels(["1", "2", "1", "2"], ["x", "y", "y", "x"])
    for engine in ("memory", "duckdb", "spark"):
        got = outcome(engine, str(tmp_path / "[ab].csv"), "t", "p", None, False, spark)
        assert got[0] == "table" and got[1] == want, engine
        got = outcome(engine, str(tmp_path / "*.csv"), "t", "p", None, False, spark)
        assert got[0] == "error" and "c.csv has no column 't'" in got[1], (engine, got)


@pytest.mark.parametrize("name", ["run[1].csv", "_part.csv", ".hidden.csv", "a,b.csv",
                                  "c:d.csv", "it's here.csv", "run*.csv", "x{1}.csv"])
def test_a_path_that_exists_is_read_as_itself(spark, tmp_path, name):
    # the decoys are what a glob reading of the name would find instead
    (tmp_path / name).write_text("t,p\nreal,1\nreal,2\n")
    for decoy in ("run1.csv", "runx.csv", "x1.csv"):
        (tmp_path / decoy).write_text("t,p\ndecoy,1\n")
    path = str(tmp_path / name)
    want = Contingency.from_labels(["real", "real"], ["1", "2"])
    assert choose_engine("auto", path, None) == "memory"  # a small text file, not a glob
    for engine in ("memory", "duckdb", "spark"):
        got = outcome(engine, path, "t", "p", None, False, spark)
        assert got[0] == "table" and got[1] == want, (engine, got)


def test_a_label_longer_than_the_engines_line_limits(spark, tmp_path):
    # DuckDB refuses rows over 2 MiB and Python's csv fields over 128 KiB unless told
    long = "é" * 1_500_000 + "x"
    path = tmp_path / "long.csv"
    path.write_text(f't,p\n"{long}",1\nb,1\nb,2\n', encoding="utf-8")
    want = Contingency.from_labels([long, "b", "b"], ["1", "1", "2"])
    for engine in ("memory", "duckdb", "spark"):
        got = outcome(engine, str(path), "t", "p", None, False, spark)
        assert got[0] == "table" and got[1] == want, engine


# ---------------------------------------------------------------- Parquet column types
def _ints(kind, lo, hi):
    return kind, st.sampled_from([lo, hi, lo + 1, hi - 1, 0, 1] + ([-1] if lo < 0 else []))


LABEL_TYPES = [
    _ints(pa.int8(), -2**7, 2**7 - 1), _ints(pa.int16(), -2**15, 2**15 - 1),
    _ints(pa.int32(), -2**31, 2**31 - 1), _ints(pa.int64(), -2**63, 2**63 - 1),
    _ints(pa.uint8(), 0, 2**8 - 1), _ints(pa.uint16(), 0, 2**16 - 1),
    _ints(pa.uint32(), 0, 2**32 - 1), _ints(pa.uint64(), 0, 2**64 - 1),
    (pa.int64(), st.sampled_from([2**53, 2**53 + 1, -2**53 - 1])),
    (pa.float64(), st.sampled_from([0.5, -0.0, 0.0, 1e300, float("nan"), float("inf"),
                                    -float("inf")])),
    (pa.float32(), st.sampled_from([0.5, 1.5, float("nan"), float("inf")])),
    (pa.decimal128(20, 0), st.sampled_from([decimal.Decimal(2**60), decimal.Decimal(2**60 + 1),
                                            decimal.Decimal(-10**19)])),
    (pa.decimal128(10, 3), st.sampled_from([decimal.Decimal("1.500"), decimal.Decimal("-2.001"),
                                            decimal.Decimal("0.000")])),
    (pa.date32(), st.sampled_from([datetime.date(1, 1, 1), datetime.date(2020, 2, 29),
                                   datetime.date(9999, 12, 31)])),
    (pa.timestamp("us"), st.sampled_from([datetime.datetime(2020, 1, 1, 0, 0, 0, 1),
                                          datetime.datetime(2020, 1, 1, 0, 0, 0, 2)])),
    (pa.timestamp("ms", tz="UTC"), st.sampled_from(
        [datetime.datetime(2020, 1, 1, tzinfo=datetime.timezone.utc),
         datetime.datetime(1969, 12, 31, 23, 59, 59, 999000, tzinfo=datetime.timezone.utc)])),
    (pa.string(), st.sampled_from(["a", "b", " ", "", "NaN"])),
    (pa.large_string(), st.sampled_from(["a", "é"])),
    (pa.dictionary(pa.int32(), pa.string()), st.sampled_from(["x", "y"])),
    (pa.bool_(), st.booleans()),
]


@st.composite
def parquet_columns(draw):
    """(pyarrow type, Python values with None for NULL) of a label column."""
    kind, values = draw(st.sampled_from(LABEL_TYPES))
    return kind, draw(st.lists(st.one_of(values, st.just(None)) if draw(st.booleans())
                               else values, min_size=1, max_size=12))


def _arrow(kind, values):
    if pa.types.is_dictionary(kind):
        return pa.array(values, pa.string()).dictionary_encode()
    return pa.array(values, kind)


def _python(value):
    """The label of a value pyarrow reads: a moment in time is naive UTC, as numpy holds it."""
    if isinstance(value, datetime.datetime) and value.tzinfo is not None:
        return value.astimezone(datetime.timezone.utc).replace(tzinfo=None)
    return value


def parquet_expected(t_values, p_values, drop_null):
    def missing(v):
        return v is None or (isinstance(v, float) and v != v)

    if any(isinstance(v, float) and abs(v) == float("inf") for v in t_values + p_values):
        return ("error", "infinite")
    kept = [(a, b) for a, b in zip(t_values, p_values, strict=True)
            if not (missing(a) or missing(b))]
    skipped = len(t_values) - len(kept)
    if (skipped and not drop_null) or not kept:
        return ("error", "missing")
    t, p = zip(*kept, strict=True)
    log = f"skipped {skipped} of {len(t_values)} rows with a missing label" if skipped else None
    return ("table", Contingency.from_labels(np.array([_python(v) for v in t], dtype=object),
                                             np.array([_python(v) for v in p], dtype=object)),
            log)


def _parquet_case(folder, t_col, p_col, n_rows):
    (t_kind, t_values), (p_kind, p_values) = t_col, p_col
    t_values = (t_values * n_rows)[:n_rows]
    p_values = (p_values * n_rows)[:n_rows]
    table = pa.table({"t": _arrow(t_kind, t_values), "p": _arrow(p_kind, p_values)})
    path = os.path.join(folder, "labels.parquet")
    pq.write_table(table, path)
    read = pq.read_table(path)  # the Python values pyarrow reads back
    return path, read.column("t").to_pylist(), read.column("p").to_pylist()


@settings(max_examples=80, deadline=None)
@given(parquet_columns(), parquet_columns(), st.integers(1, 12), st.booleans())
def test_parquet_labels_of_every_type_through_duckdb(t_col, p_col, n_rows, drop_null):
    with tempfile.TemporaryDirectory() as folder:
        path, t_values, p_values = _parquet_case(folder, t_col, p_col, n_rows)
        want = parquet_expected(t_values, p_values, drop_null)
        got = outcome("duckdb", path, "t", "p", None, drop_null)
        assert_same(got, want, ("duckdb", t_col[0], p_col[0]))
        if want[1] == "infinite":
            assert "holds an infinite label" in got[1] and "labels.parquet" in got[1]
        elif want[0] == "error" and t_values.count(None) + p_values.count(None) == 0:
            assert "NaN" not in got[1] and "NULL label" in got[1]  # NaN is reported as NULL


@settings(max_examples=10, deadline=None, suppress_health_check=[
    HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(parquet_columns(), parquet_columns(), st.integers(1, 12), st.booleans())
def test_parquet_labels_of_every_type_through_spark(spark, t_col, p_col, n_rows, drop_null):
    with tempfile.TemporaryDirectory() as folder:
        path, t_values, p_values = _parquet_case(folder, t_col, p_col, n_rows)
        want = parquet_expected(t_values, p_values, drop_null)
        assert_same(outcome("spark", path, "t", "p", None, drop_null, spark), want,
                    ("spark", t_col[0], p_col[0]))


def test_every_integer_width_at_its_extremes(spark, tmp_path):
    # each width holding its minimum and maximum, signed against unsigned: N and every label
    # exact (an int8 column of -1, -1, 127, 127, 0, 0 once printed N = 4 for its 6 rows)
    for bits in (8, 16, 32, 64):
        signed, unsigned = getattr(pa, f"int{bits}")(), getattr(pa, f"uint{bits}")()
        lo, hi, top = -2**(bits - 1), 2**(bits - 1) - 1, 2**bits - 1
        t = [lo, lo, hi, hi, -1, -1, 0]
        p = [0, top, 0, top, top, 1, top - 1]
        path = tmp_path / f"int{bits}.parquet"
        pq.write_table(pa.table({"t": pa.array(t, signed), "p": pa.array(p, unsigned)}), path)
        want = Contingency.from_labels(np.array(t, dtype=object), np.array(p, dtype=object))
        assert want.n_samples == 7 and want.class_labels.tolist() == [lo, -1, 0, hi]
        for engine in ("duckdb", "spark"):
            got = outcome(engine, str(path), "t", "p", None, False, spark)
            assert got[0] == "table" and got[1] == want, (engine, bits)
