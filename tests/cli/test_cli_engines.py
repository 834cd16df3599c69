"""clustermetrics score with --engine/--memory-limit/--drop-null: same report on every path."""

import json
import sys

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from cli_helpers import run as _run

import clustermetrics as cm
from clustermetrics.cli.engines import choose_engine


@pytest.fixture
def files(tmp_path):
    rng = np.random.default_rng(11)
    t = np.array(["a", "b", "c", "d"])[rng.integers(0, 4, 400)]
    p = np.array(["x", "y", "z"])[rng.integers(0, 3, 400)]
    pq.write_table(pa.table({"t": t, "p": p}), tmp_path / "d.parquet")
    (tmp_path / "d.csv").write_text("t,p\n" + "".join(f"{a},{b}\n" for a, b in zip(t, p,
                                                                                   strict=True)))
    (tmp_path / "d.jsonl").write_text("".join(json.dumps({"p": b, "t": a}) + "\n"
                                              for a, b in zip(t, p, strict=True)))
    return tmp_path, t, p


@pytest.mark.parametrize("engine", ["auto", "memory", "duckdb",
                                    pytest.param("spark", marks=pytest.mark.slow)])
def test_json_lines_give_the_report_of_the_same_table_as_csv(files, capsys, engine):
    d, t, p = files
    reports = []
    for path in (d / "d.jsonl", d / "d.csv"):
        code, out, err = _run(capsys, "score", path, "--true-col", "t", "--pred-col", "p",
                              "--format", "json", "--engine", engine)
        assert code == 0, err
        reports.append(json.loads(out))
    assert reports[0]["scores"] == reports[1]["scores"] == dict(cm.evaluate(t, p))


def test_parquet_auto_uses_duckdb_and_matches_memory(files, capsys):
    d, t, p = files
    code, out, err = _run(capsys, "score", d / "d.parquet", "--true-col", "t", "--pred-col",
                          "p", "--format", "json")
    assert code == 0, err
    via_duckdb = json.loads(out)["scores"]
    code, out, _ = _run(capsys, "score", d / "d.csv", "--true-col", "t", "--pred-col", "p",
                        "--format", "json", "--engine", "memory")
    assert json.loads(out)["scores"] == via_duckdb == dict(cm.evaluate(t, p))
    code, out, _ = _run(capsys, "score", d / "d.csv", "--true-col", "t", "--pred-col", "p",
                        "--format", "json", "--engine", "duckdb", "--memory-limit", "256MB")
    assert code == 0 and json.loads(out)["scores"] == via_duckdb


def test_engine_choice():
    assert choose_engine("auto", "x.parquet", None) == "duckdb"
    assert choose_engine("auto", "parts/*.parquet", None) == "duckdb"
    assert choose_engine("auto", "small.csv", None) == "memory"
    assert choose_engine("auto", "t.txt", "p.txt") == "memory"
    assert choose_engine("spark", "x.parquet", None) == "spark"


def test_nulls_reported_or_skipped(tmp_path, capsys):
    path = tmp_path / "n.parquet"
    pq.write_table(pa.table({"t": pa.array([1, None, 2, 2, None, 1]),
                             "p": pa.array(["a", "b", "b", "b", "a", "a"])}), path)
    code, out, err = _run(capsys, "score", path, "--true-col", "t", "--pred-col", "p")
    assert code == 2 and out == ""
    assert err.strip().endswith("column 't' has 2 NULL labels (--drop-null skips those rows)")
    code, out, err = _run(capsys, "score", path, "--true-col", "t", "--pred-col", "p",
                          "--drop-null", "--format", "json", "--metrics", "ari")
    assert code == 0
    assert "skipped 2 of 6 rows with a missing label" in err
    assert json.loads(out)["scores"]["ari"] == cm.adjusted_rand_score([1, 2, 2, 1],
                                                                      list("abba"))


def test_drop_null_in_memory_text_files(tmp_path, capsys):
    (tmp_path / "t.txt").write_text("a\n\nb\nb\n")
    (tmp_path / "p.txt").write_text("x\ny\n\ny\n")
    code, _, err = _run(capsys, "score", tmp_path / "t.txt", tmp_path / "p.txt")
    assert code == 2 and "line 2 is empty" in err and "--drop-null" in err
    code, out, err = _run(capsys, "score", tmp_path / "t.txt", tmp_path / "p.txt",
                          "--drop-null", "--format", "json", "--metrics", "ari")
    assert code == 0 and "skipped 2 of 4 rows" in err
    assert json.loads(out)["n_samples"] == 2
    (tmp_path / "c.csv").write_text("t,p\na,x\n,y\nb,y\n")
    code, out, err = _run(capsys, "score", tmp_path / "c.csv", "--true-col", "t", "--pred-col",
                          "p", "--drop-null", "--format", "json", "--metrics", "ri")
    assert code == 0 and json.loads(out)["n_samples"] == 2 and "skipped 1 of 3" in err


@pytest.mark.parametrize("argv, message", [
    (["score", "{d}/d.parquet", "--true-col", "t", "--pred-col", "p", "--sep", ";"],
     "--sep applies to delimited text files; {d}/d.parquet is Parquet"),
    (["score", "{d}/d.jsonl", "--true-col", "t", "--pred-col", "p", "--sep", ";"],
     "--sep applies to delimited text files; {d}/d.jsonl is JSON Lines"),
    (["score", "{d}/d.jsonl", "{d}/d.jsonl"], "{d}/d.jsonl is JSON Lines: label files hold "
     "one label per line of text; read a JSON Lines table with --true-col and --pred-col"),
    (["score", "{d}/d.jsonl", "--true-col", "t", "--pred-col", "q", "--engine", "spark"],
     "{d}/d.jsonl has no column 'q' (--pred-col); columns are: 'p', 't'"),
    (["score", "{d}/d.csv", "--true-col", "t", "--pred-col", "p", "--header"],
     "--header applies to the two-file form"),
    (["score", "", "--true-col", "t", "--pred-col", "p"], "TRUTH is an empty path"),
    (["score", "{d}/d.csv", ""], "PRED is an empty path"),
    (["score", "{d}/d.csv", "--true-col", "t", "--pred-col", "p", "--memory-limit", "1GB",
      "--engine", "memory"], "--memory-limit applies to --engine duckdb, not memory"),
    (["score", "{d}/d.csv", "{d}/d.csv", "--engine", "duckdb"],
     "--engine duckdb reads one table"),
    (["score", "{d}/d.parquet", "--engine", "duckdb"], "--engine duckdb needs --true-col"),
    (["score", "{d}/d.parquet", "--true-col", "t", "--pred-col", "q"],
     "has no column 'q' (--pred-col); columns are: 't', 'p'"),
    (["score", "{d}/missing.parquet", "--true-col", "t", "--pred-col", "p"], "no such file"),
    (["score", "{d}/d.csv", "--true-col", "t", "--pred-col", "p", "--engine", "gpu"],
     "invalid choice: 'gpu'"),
])
def test_engine_errors_are_one_line(files, capsys, argv, message):
    d, _, _ = files
    code, out, err = _run(capsys, *[a.format(d=d) for a in argv])
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and message.format(d=d) in err, err


def _csv_scores(text: str) -> dict[str, float]:
    rows = [line.split(",") for line in text.strip().splitlines()[1:]]
    return {key: float(value) for key, value in rows}


def test_auto_without_duckdb_reads_parquet_in_memory(monkeypatch, files, capsys):
    # without DuckDB, Parquet is read by pyarrow in memory, to the same table; without
    # pyarrow either, the message names both extras
    d, _, _ = files
    with_duckdb = _run(capsys, "score", d / "d.parquet", "--true-col", "t", "--pred-col", "p",
                       "--format", "csv")
    monkeypatch.setitem(sys.modules, "duckdb", None)
    assert choose_engine("auto", str(d / "d.parquet"), None) == "memory"
    without = _run(capsys, "score", d / "d.parquet", "--true-col", "t", "--pred-col", "p",
                   "--format", "csv")
    # the same table: the same scores (to the last digits the compiled and numpy paths of
    # E[MI] share, whichever a kernel loaded in between makes the second call take)
    assert without[0] == with_duckdb[0] == 0 and _csv_scores(without[1]) == pytest.approx(
        _csv_scores(with_duckdb[1]), rel=1e-12, abs=1e-15)
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    with pytest.raises(ValueError, match=r"clustermetrics\[duckdb\].*clustermetrics\[parquet\]"):
        choose_engine("auto", str(d / "d.parquet"), None)
