"""score's file errors: one line on stderr and exit status 2 on every engine."""

import sys

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from cli_helpers import run as _run

from clustermetrics.io import from_duckdb
from clustermetrics.io.delimited import resolve_sep

ENGINES = ("memory", "duckdb", "spark")


def _one_line_error(capsys, *argv):
    code, out, err = _run(capsys, *argv)
    assert code == 2 and out == "", (code, out, err)
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("clustermetrics: error: "), err
    assert "Traceback" not in err
    return lines[0]


@pytest.fixture
def table(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("t;p\na;x\nb;y\n")
    return path


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("sep", [";;", "", '"', "\n", "é", "\\n"])
def test_a_bad_separator_is_named(capsys, table, engine, sep):
    line = _one_line_error(capsys, "score", table, "--true-col", "t", "--pred-col", "p",
                           "--engine", engine, "--sep", sep)
    assert "--sep must be one ASCII character" in line and repr(sep) in line


@pytest.mark.parametrize("engine", ["memory", "duckdb"])  # Spark: in test_file_spec.py
@pytest.mark.parametrize("sep", [";", "\\t", "tab"])
def test_the_separator_is_used(capsys, tmp_path, engine, sep):
    delim = ";" if sep == ";" else "\t"
    path = tmp_path / "d.csv"  # .csv: the comma would be the default
    path.write_text(f"t{delim}p\na,b{delim}x\nc{delim}y\n")
    code, out, err = _run(capsys, "score", path, "--true-col", "t", "--pred-col", "p",
                          "--engine", engine, "--sep", sep, "--format", "json")
    assert code == 0, err
    assert '"n_samples": 2' in out and '"n_classes": 2' in out


def test_the_library_names_sep(tmp_path):
    with pytest.raises(ValueError, match="sep must be one ASCII character.*';;'"):
        resolve_sep("x.csv", ";;")
    (tmp_path / "d.csv").write_text("t,p\na,x\n")
    with pytest.raises(ValueError, match="^sep must be one ASCII character"):
        from_duckdb(tmp_path / "d.csv", "t", "p", sep="")


@pytest.mark.parametrize("engine, module, extra", [
    ("duckdb", "duckdb", "duckdb"), ("spark", "pyspark", "spark"),
])
def test_a_missing_extra_is_one_line(capsys, monkeypatch, table, engine, module, extra):
    for name in [m for m in sys.modules if m == module or m.startswith(module + ".")]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, module, None)
    line = _one_line_error(capsys, "score", table, "--sep", ";", "--true-col", "t",
                           "--pred-col", "p", "--engine", engine)
    assert line.endswith(f"pip install 'clustermetrics[{extra}]'"), line


def test_auto_without_duckdb(capsys, monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "duckdb", None)
    pq.write_table(pa.table({"t": [1, 2], "p": [1, 1]}), tmp_path / "d.parquet")
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # Parquet needs DuckDB or pyarrow
    line = _one_line_error(capsys, "score", tmp_path / "d.parquet", "--true-col", "t",
                           "--pred-col", "p")
    assert "pip install 'clustermetrics[duckdb]'" in line
    monkeypatch.setitem(sys.modules, "pyarrow", pa)
    for i in range(2):  # a glob of text files: the in-memory reader reads it the same way
        (tmp_path / f"part{i}.csv").write_text("t,p\na,x\n")
    code, out, err = _run(capsys, "score", tmp_path / "part*.csv", "--true-col", "t",
                          "--pred-col", "p", "--format", "json")
    assert code == 0 and '"n_samples": 2' in out, err


def _gz_not_gzip(d):
    (d / "x.csv.gz").write_bytes(b"t,p\na,x\n")
    return d / "x.csv.gz", "x.csv.gz cannot be read"


def _binary(d):
    (d / "x.csv").write_bytes(b"\x89PNG\x00\x01\xff")
    return d / "x.csv", "is not UTF-8 text"


def _latin1(d):
    (d / "x.csv").write_bytes("t,p\ncafé,x\n".encode("latin-1"))
    return d / "x.csv", "is not UTF-8 text"


def _folder(d):
    (d / "sub").mkdir()
    return d / "sub", "is a directory"


def _no_match(d):
    return d / "nothing-*.csv", "no such file"


def _mixed(d):
    (d / "a.csv").write_text("t,p\na,x\n")
    pq.write_table(pa.table({"t": [1], "p": [1]}), d / "b.parquet")
    return d / "[ab].*", "matches both Parquet and text files"


def _unbalanced(d):
    (d / "x.csv").write_text('t,p\na,"x\nb,y\n')
    return d / "x.csv", "line 2: unbalanced quote"


def _parquet_part_without_column(d):
    pq.write_table(pa.table({"t": [1], "p": [1]}), d / "a.parquet")
    pq.write_table(pa.table({"t": [1], "q": [1]}), d / "b.parquet")
    return d / "*.parquet", "b.parquet has no column 'p' (--pred-col)"


def _parquet_parts_of_two_types(d):
    pq.write_table(pa.table({"t": [1], "p": [1]}), d / "a.parquet")
    pq.write_table(pa.table({"t": ["1"], "p": [1]}), d / "b.parquet")
    return d / "*.parquet", "column 't' is"


def _jsonl_and_text(d):
    (d / "a.csv").write_text("t,p\na,x\n")
    (d / "b.jsonl").write_text('{"t": "a", "p": "x"}\n')
    return d / "[ab].*", "matches both JSON Lines and text files"


def _jsonl_not_json(d):
    (d / "x.jsonl").write_text('{"t": "a", "p": "x"}\nt,p\n')
    return d / "x.jsonl", "x.jsonl line 2 is not JSON: Expecting value (character 1)"


def _jsonl_parts_of_two_types(d):
    (d / "a.jsonl").write_text('{"t": 1, "p": "x"}\n')
    (d / "b.jsonl").write_text('{"p": "x", "t": "1"}\n')
    return d / "*.jsonl", "column 't' holds numbers"


def _jsonl_part_without_column(d):
    (d / "a.jsonl").write_text('{"t": 1, "p": "x"}\n')
    (d / "b.jsonl").write_text('{"t": 1, "q": "x"}\n')
    return d / "*.jsonl", "b.jsonl has no column 'p' (--pred-col); columns are: 't', 'q'"


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("make", [_gz_not_gzip, _binary, _latin1, _folder, _no_match, _mixed,
                                  _unbalanced, _parquet_part_without_column,
                                  _parquet_parts_of_two_types, _jsonl_and_text,
                                  _jsonl_not_json, _jsonl_parts_of_two_types,
                                  _jsonl_part_without_column])
def test_unreadable_files_are_one_line(capsys, tmp_path, engine, make):
    path, message = make(tmp_path)
    line = _one_line_error(capsys, "score", path, "--true-col", "t", "--pred-col", "p",
                           "--engine", engine)
    assert message in line, line
