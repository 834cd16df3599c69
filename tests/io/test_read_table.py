"""read_table: one file, one table, whatever its format and whatever engine counts it.

Hypothesis draws labels (text with separators, quotes, line breaks and non-ASCII letters,
integers, floats, booleans, missing labels) and writes them in every file format (CSV,
TSV, gzip CSV, Parquet, JSON Lines) and as globs of parts; every engine must give the
table of the labels written, or, with a missing label and no ``drop_null``, an error
naming the column. A file that breaks a format's rules is refused alike by every engine.
The format registry is checked against the names it declares, and every bad argument is
a ValueError naming it.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import os
import sys
import tempfile

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import clustermetrics as cm
from clustermetrics import Contingency
from clustermetrics.cli.engines import table_from_files
from clustermetrics.io import engines
from clustermetrics.io.formats import DELIMITED, FORMATS, JSON_LINES, PARQUET, format_of

ENGINES = ("memory", "duckdb", "spark")
LAYOUTS = ("csv", "tsv", "csv.gz", "parquet", "jsonl", "csv parts", "parquet parts",
           "jsonl parts")
TYPED = ("parquet", "jsonl")  # layouts whose labels keep their type
WHITESPACE = " \t\n\r\x0b\x0c"


@pytest.fixture(scope="module")
def spark(spark_session):
    spark_session.conf.set("spark.sql.shuffle.partitions", "1")
    return spark_session


# labels as a delimited file holds them: any text but NUL and a lone carriage return
# (line ends are LF here; the rules for CR are test_file_spec's); None is a missing label
TEXT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00\r"),
               max_size=6)
LABELS = st.one_of(*(st.lists(st.one_of(values, st.none()), min_size=1, max_size=30)
                     for values in (TEXT, st.integers(-2**63, 2**63 - 1),
                                    st.floats(allow_nan=False, allow_infinity=False),
                                    st.booleans())))


def _text(value) -> str:
    return "" if value is None else str(value)


def _write_text(path: str, columns: dict[str, list], sep: str, gz: bool = False) -> None:
    out = io.StringIO()
    writer = csv.writer(out, delimiter=sep, lineterminator="\n")
    writer.writerow(list(columns))
    writer.writerows(zip(*([_text(v) for v in c] for c in columns.values()), strict=True))
    with (gzip.open(path, "wb") if gz else open(path, "wb")) as fh:
        fh.write(out.getvalue().encode())


def _arrow_type(values: list) -> pa.DataType:
    """One type per column, in every part: text, booleans, floats, integers, else only
    missing."""
    for kind, arrow in ((str, pa.string()), (bool, pa.bool_()), (float, pa.float64()),
                        (int, pa.int64())):
        if any(isinstance(v, kind) for v in values):
            return arrow
    return pa.null()


def _write_jsonl(path: str, columns: dict[str, list], ascii_only: bool) -> None:
    """One object per row; a missing label is null, or after the first row of the file
    every other time an absent key (the first row names every column)."""
    lines = []
    for i, row in enumerate(zip(*columns.values(), strict=True)):
        obj = {c: v for c, v in zip(columns, row, strict=True) if not (v is None and i % 2)}
        lines.append(json.dumps(obj, ensure_ascii=ascii_only))
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")


def write(folder: str, layout: str, t: list, p: list) -> str:
    """The labels in ``layout``; the path (a glob for parts) read_table is given."""
    if layout in ("csv", "tsv", "csv.gz"):
        path = os.path.join(folder, f"labels.{layout}")
        _write_text(path, {"t": t, "p": p}, "\t" if layout == "tsv" else ",",
                    gz=layout == "csv.gz")
        return path
    types = {"t": _arrow_type(t), "p": _arrow_type(p)}
    if layout == "parquet":
        path = os.path.join(folder, "labels.parquet")
        pq.write_table(pa.table({c: pa.array(v, types[c]) for c, v in (("t", t), ("p", p))}),
                       path)
        return path
    if layout == "jsonl":
        path = os.path.join(folder, "labels.jsonl")
        _write_jsonl(path, {"t": t, "p": p}, ascii_only=False)
        return path
    # two parts with their columns in either order, combined by name
    suffix = layout.split()[0]
    cut = (len(t) + 1) // 2
    for i, part in enumerate(((("t", t[:cut]), ("p", p[:cut])),
                              (("p", p[cut:]), ("t", t[cut:])))):
        if not part[0][1]:
            continue
        path = os.path.join(folder, f"part-{i}.{suffix}")
        if suffix == "csv":
            _write_text(path, dict(part), ",")
        elif suffix == "jsonl":
            _write_jsonl(path, dict(part), ascii_only=True)
        else:
            pq.write_table(pa.table({c: pa.array(v, types[c]) for c, v in part}), path)
    return os.path.join(folder, f"part-*.{suffix}")


def expected(t: list, p: list, layout: str, drop_null: bool):
    """("table", the table of the labels written) or ("error", what the message says)."""
    text = not layout.startswith(TYPED)

    def missing(value) -> bool:
        return value is None or (text and not _text(value).strip(WHITESPACE))

    def label(value):
        return _text(value) if text else value

    kept = [(label(a), label(b)) for a, b in zip(t, p, strict=True)
            if not (missing(a) or missing(b))]
    if len(kept) < len(t) and not drop_null:
        return "error", "drop_null"  # the message names the option that skips them
    if not kept:
        return "error", "every row"
    return "table", Contingency.from_labels([a for a, _ in kept], [b for _, b in kept])


def outcome(path: str, engine: str, drop_null: bool, spark) -> tuple:
    try:
        return "table", cm.read_table(path, true_col="t", pred_col="p", engine=engine,
                                      drop_null=drop_null, spark=spark)
    except ValueError as exc:
        return "error", str(exc)


@pytest.mark.slow  # ~13 s: 25 files, each read by the three engines
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.data_too_large])
@given(t=LABELS, p=LABELS, layout=st.sampled_from(LAYOUTS), drop_null=st.booleans())
def test_every_engine_reads_every_format_to_the_labels_written(spark, t, p, layout,
                                                                drop_null):
    n = min(len(t), len(p))
    t, p = t[:n], p[:n]
    want = expected(t, p, layout, drop_null)
    with tempfile.TemporaryDirectory() as folder:
        path = write(folder, layout, t, p)
        got = {engine: outcome(path, engine, drop_null, spark) for engine in ENGINES}
        got["auto"] = outcome(path, "auto", drop_null, None)
    for engine, (what, value) in got.items():
        assert what == want[0], (engine, layout, value)
        if what == "table":
            assert value == want[1], (engine, layout)
        else:
            assert want[1] in value, (engine, layout, value)


def test_read_table_reads_as_the_command_line_reads(tmp_path):
    # the CLI's bridge and read_table are one reading: the same table, the same stats
    path = tmp_path / "d.csv"
    path.write_text("t,p,w\na,x,1\na,y,2\n,y,1\nb,y,3\n")
    for engine in ENGINES:
        stats: dict = {}
        table = cm.read_table(path, true_col="t", pred_col="p", weight_col="w",
                              engine=engine, drop_null=True, stats=stats)
        assert table == table_from_files(engine, str(path), None, true_col="t",
                                         pred_col="p", weight_col="w", drop_null=True)
        assert stats == {"rows": 4, "skipped": 1}
        assert table.to_dense().tolist() == [[1, 2], [0, 3]]


def test_two_label_files(tmp_path):
    (tmp_path / "t.txt").write_text("y\na\na\nb\n")
    (tmp_path / "p.txt").write_text("y\n1\n2\n2\n")
    table = cm.read_table(tmp_path / "t.txt", tmp_path / "p.txt", header=True)
    assert table == Contingency.from_labels(["a", "a", "b"], ["1", "2", "2"])


def test_read_table_is_exported_and_lazy():
    assert cm.read_table is engines.read_table
    from clustermetrics import io as sources

    assert sources.read_table is engines.read_table
    assert "read_table" in cm.__all__ and "read_table" in sources.__all__


# ------------------------------------------------------------------ the format registry
@pytest.mark.parametrize("name, kind", [
    ("a.parquet", PARQUET), ("A.PQ", PARQUET), ("dir/*.parquet", PARQUET),
    ("a.csv", DELIMITED), ("a.tsv", DELIMITED), ("a.csv.gz", DELIMITED),
    ("a.parquet.gz", DELIMITED), ("labels", DELIMITED), ("a.txt", DELIMITED),
    ("a.jsonl", JSON_LINES), ("B.NDJSON", JSON_LINES), ("parts/*.jsonl", JSON_LINES),
])
def test_format_of_a_name(name, kind):
    assert format_of(name) is kind


@pytest.mark.parametrize("name, sep, compressed, link", [
    ("a.csv", ",", False, ".csv"), ("a.TSV", "\t", False, ".csv"),
    ("a.tab.gz", "\t", True, ".csv.gz"), ("a.txt", ",", False, ".csv"),
    ("a.GZ", ",", True, ".csv.gz"),
])
def test_the_text_dialect_of_a_name(name, sep, compressed, link):
    assert DELIMITED.separator(name) == sep
    assert DELIMITED.compressed(name) is compressed
    assert DELIMITED.link_name(name) == link


def test_every_format_is_recognised_by_its_suffixes():
    # a catch-all format comes last, or it would hide the formats after it
    assert [f.catch_all for f in FORMATS] == sorted(f.catch_all for f in FORMATS)
    for kind in FORMATS:
        for suffix in kind.suffixes:
            assert format_of(f"x{suffix}") is kind
            assert format_of(f"x{suffix.upper()}") is kind
        assert kind.delimited == (kind.dialect is not None)


def test_a_glob_of_two_formats_is_refused(tmp_path):
    (tmp_path / "a.csv").write_text("t,p\n1,2\n")
    pq.write_table(pa.table({"t": [1], "p": [2]}), tmp_path / "b.parquet")
    with pytest.raises(ValueError, match="matches both Parquet and text files"):
        cm.read_table(tmp_path / "[ab].*", true_col="t", pred_col="p", engine="memory")


# ------------------------------------------------------------- JSON Lines: types and rules
@pytest.mark.slow  # starts Spark
def test_json_lines_keep_each_json_type_exactly(tmp_path, spark):
    """int64 extremes, a float column with integers in it, booleans, weights; blank
    lines, CRLF line ends and absent keys, the same table from every engine."""
    path = tmp_path / "d.jsonl"
    path.write_bytes(b'{"t": 9223372036854775807, "p": 0.5, "w": 2, "x": [1]}\r\n\n \t\n'
                     b'{"p": 1, "t": -9223372036854775808, "w": 0.25}\n'
                     b'{"t": 9223372036854775807, "p": 1e-300, "w": 1}\n'
                     b'{"t": 5, "w": 1}\n{"t": null, "p": 2.5, "w": 7}')
    want = Contingency.from_labels([2**63 - 1, -2**63, 2**63 - 1], [0.5, 1.0, 1e-300],
                                   sample_weight=[2, 0.25, 1])
    for engine in ENGINES:
        stats: dict = {}
        got = cm.read_table(path, true_col="t", pred_col="p", weight_col="w",
                            engine=engine, spark=spark, drop_null=True, stats=stats)
        assert got == want and got.real_valued, engine
        assert stats == {"rows": 5, "skipped": 2}, engine
    bools = tmp_path / "b.ndjson"
    bools.write_text('{"t": true, "p": "\\u00e9"}\n{"t": false, "p": "e\\u0301"}\n')
    want = Contingency.from_labels([True, False], ["\u00e9", "e\u0301"])
    for engine in ENGINES:
        assert cm.read_table(bools, true_col="t", pred_col="p", engine=engine,
                             spark=spark) == want, engine


JSONL_REFUSED = [
    (b'{"t": 1, "p": "a"}\n{"t": "1", "p": "a"}\n',
     r"column 't' holds numbers \(.*d.jsonl line 1\) and strings \(.*d.jsonl line 2\)"),
    (b'{"t": true, "p": 1}\n{"t": 1, "p": 1}\n', "column 't' holds true/false"),
    (b'{"t": 9223372036854775808, "p": 1}\n',
     "line 1: column 't' holds the integer 9223372036854775808, beyond the 64-bit"),
    (b'{"t": -9223372036854775809, "p": 1}\n', "beyond the 64-bit integers"),
    (b'{"t": 9007199254740993, "p": 1}\n{"t": 0.5, "p": 1}\n',
     "line 1: column 't' holds the integer 9007199254740993 among numbers with a fraction"),
    (b'{"t": 1, "p": 1e999}\n', "line 1: column 'p' holds a number beyond the floats"),
    (b'{"t": NaN, "p": 1}\n', "line 1: NaN is not a JSON number"),
    (b'{"t": 1, "p": 2, "t": 3}\n', "line 1: key 't' appears twice in one object"),
    (b'{"t": "\\ud800", "p": 1}\n', "line 1: a .u escape names half of a surrogate pair"),
    (b'{"t": 1, "p": 1}\n[1, 2]\n', "line 2 holds a JSON list, not an object"),
    (b'{"t": {"a": 1}, "p": 1}\n', "column 't' holds an object, which cannot hold labels"),
    (b'{"t": 1, "p": [1]}\n', "column 'p' holds an array"),
    (b'{"t": 1, "p": 1}\r{"t": 2, "p": 1}\n', "line 1: a carriage return that does not end"),
    (b'{"t": 1, "p": 1,}\n', "line 1 is not JSON"),
    (b'{"t": "\xff", "p": 1}\n', "line 1 is not UTF-8 text"),
    (b'{"t": 1, "T": 1, "p": 1}\n', "has columns 't' and 'T' \\(true_col\\), names that differ"),
    (b'{"t": 1}\n{"t": 2, "q": 1}\n', "has no column 'p' \\(pred_col\\); columns are: 't', 'q'"),
    (b"\n \n", "d.jsonl has no rows"),
]


@pytest.mark.parametrize("content, message", JSONL_REFUSED)
@pytest.mark.parametrize("engine", ENGINES + ("auto",))
def test_a_json_lines_file_breaking_its_rules_is_refused_by_every_engine(tmp_path, content,
                                                                        message, engine):
    # the check runs before an engine reads a row (before Spark starts)
    path = tmp_path / "d.jsonl"
    path.write_bytes(content)
    with pytest.raises(ValueError, match=message):
        cm.read_table(path, true_col="t", pred_col="p", engine=engine)


@pytest.mark.parametrize("weights, message", [
    (b'true', "column 'w' \\(weight_col\\) holds true/false; weights are integers"),
    (b'null', "column 'w' \\(weight_col\\) holds only null"),
    (b'"1"}\n{"t": 1, "p": 1, "w": 2', "column 'w' holds strings"),
])
@pytest.mark.parametrize("engine", ENGINES)
def test_json_lines_weights_are_numbers_or_text(tmp_path, weights, message, engine):
    path = tmp_path / "d.jsonl"
    path.write_bytes(b'{"t": 1, "p": 1, "w": ' + weights + b"}\n")
    with pytest.raises(ValueError, match=message):
        cm.read_table(path, true_col="t", pred_col="p", weight_col="w", engine=engine)


# ------------------------------------------------------------------------ bad arguments
@pytest.fixture
def table_file(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("t,p\na,x\nb,y\n")
    pq.write_table(pa.table({"t": ["a", "b"], "p": ["x", "y"]}), tmp_path / "d.parquet")
    return path


@pytest.mark.parametrize("kwargs, message", [
    ({"engine": "gpu"}, "unknown engine 'gpu'; choose from auto, memory, duckdb, spark"),
    ({"engine": 1}, "unknown engine 1"),
    ({"pred_col": "q"}, "has no column 'q' (pred_col); columns are: 't', 'p'"),
    ({"weight_col": "w"}, "has no column 'w' (weight_col)"),
    ({"memory_limit": "1GB", "engine": "memory"},
     "memory_limit applies to engine='duckdb', not memory"),
    ({"drop_null": "no"}, "drop_null must be True or False, got 'no'"),
    ({"stats": []}, "stats must be a dict to fill with the counts, got list"),
    ({"true_col": 0}, "true_col must be a column name, got 0"),
    ({"weight_col": 2}, "weight_col must be a column name, got 2"),
    ({"sep": 1}, "sep must be a string, got 1"),
    ({"header": True}, "header applies to the two-file form"),
    ({"sep": ";;"}, "sep must be one ASCII character"),
])
@pytest.mark.parametrize("engine", ["memory", "duckdb"])
def test_bad_arguments_are_value_errors_naming_them(table_file, kwargs, message, engine):
    call = {"true_col": "t", "pred_col": "p", "engine": engine, **kwargs}
    with pytest.raises(ValueError) as err:
        cm.read_table(table_file, **call)
    assert message in str(err.value)


def test_a_path_that_is_no_path_is_refused_alike_by_every_engine(table_file):
    for engine in ("memory", "duckdb", "auto"):
        for path, message in ((os.fsencode(table_file), "path must be a file path or a "
                               "glob, got bytes"), ([table_file], "path must be a file "
                               "path or a glob, got list"), ("", "path is an empty path")):
            with pytest.raises(ValueError, match=message):
                cm.read_table(path, true_col="t", pred_col="p", engine=engine)


def test_a_memory_limit_asks_auto_for_duckdb(table_file):
    """A memory limit is DuckDB's: with engine auto it reads a small text file through
    DuckDB (it once refused the option, auto having chosen memory by the size)."""
    stats: dict = {}
    table = cm.read_table(table_file, true_col="t", pred_col="p", memory_limit="1GB",
                          stats=stats)
    assert table == cm.read_table(table_file, true_col="t", pred_col="p", engine="memory")
    assert engines.choose_engine("auto", table_file, memory_limit="1GB") == "duckdb"
    assert stats["rows"] == 2


@pytest.mark.parametrize("engine", ENGINES + ("auto",))
def test_a_separator_for_a_typed_format_is_refused_by_every_engine(table_file, engine):
    with pytest.raises(ValueError, match="sep applies to delimited text files; .* is Parquet"):
        cm.read_table(table_file.with_suffix(".parquet"), true_col="t", pred_col="p",
                      sep=";", engine=engine)
    jsonl = table_file.with_suffix(".jsonl")
    jsonl.write_text('{"t": "a", "p": "x"}\n')
    with pytest.raises(ValueError, match="sep applies to delimited text files; .* is JSON Lines"):
        cm.read_table(jsonl, true_col="t", pred_col="p", sep=";", engine=engine)


@pytest.mark.parametrize("engine", ["duckdb", "spark"])
def test_engines_reading_one_table_refuse_two_files(table_file, engine):
    with pytest.raises(ValueError, match=f"engine='{engine}' reads one table: give path "
                                         "with true_col and pred_col instead of path and "
                                         "pred_path"):
        cm.read_table(table_file, table_file, engine=engine)
    with pytest.raises(ValueError, match=f"engine='{engine}' needs true_col and pred_col"):
        cm.read_table(table_file, engine=engine)


def test_missing_columns_and_files(table_file):
    with pytest.raises(ValueError, match="a single file needs true_col and pred_col"):
        cm.read_table(table_file)
    with pytest.raises(ValueError, match="no such file"):
        cm.read_table(table_file.parent / "none.csv", true_col="t", pred_col="p")
    with pytest.raises(ValueError, match="weight_col reads a column of the table"):
        cm.read_table(table_file, table_file, weight_col="w")
    with pytest.raises(ValueError, match="is Parquet: label files hold one label per line"):
        cm.read_table(table_file.with_suffix(".parquet"), table_file)


def test_auto_without_the_extras(monkeypatch, table_file):
    parquet = table_file.with_suffix(".parquet")
    assert engines.choose_engine("auto", parquet) == "duckdb"
    monkeypatch.setitem(sys.modules, "duckdb", None)
    assert engines.choose_engine("auto", parquet) == "memory"
    assert cm.read_table(parquet, true_col="t", pred_col="p") == \
        cm.read_table(table_file, true_col="t", pred_col="p")
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    with pytest.raises(ValueError, match=r"needs DuckDB or pyarrow: .*clustermetrics\[parquet\]"):
        cm.read_table(parquet, true_col="t", pred_col="p")
    # text needs no extra in memory
    assert engines.choose_engine("auto", table_file) == "memory"
