"""Every CSV output writes a number, and a missing one, the same way: a number as the
shortest text that reads back to it (``float(cell) == value``, ``inf`` and ``-inf``
included), and a missing or undefined number (None, NaN: ``null`` in JSON) as an empty
cell, never ``nan``. One writer (``clustermetrics.render.text.csv_text``) writes every CSV."""

from __future__ import annotations

import ast
import csv
import io
import json
import math
from pathlib import Path

import numpy as np
import pytest
from cli_helpers import run
from hypothesis import given, settings
from hypothesis import strategies as st

import clustermetrics as cm
from clustermetrics.evaluation.paired_results import PairedComparison, PairedScore
from clustermetrics.experiments.coverage import CoverageResult, CoverageRow
from clustermetrics.inference.bootstrap import Interval
from clustermetrics.render.text import csv_text

SRC = Path(__file__).resolve().parents[2] / "src" / "clustermetrics"

numbers = st.one_of(st.floats(), st.integers(-2**70, 2**70), st.none(),
                    st.floats(width=32).map(np.float32), st.integers(0, 2**40).map(np.int64),
                    st.floats().map(np.float64))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(numbers, min_size=1, max_size=4), min_size=1, max_size=4))
def test_numbers_read_back_and_missing_ones_are_empty(rows):
    text = csv_text(rows)
    back = list(csv.reader(io.StringIO(text)))
    assert len(back) == len(rows)
    for row, cells in zip(rows, back, strict=True):
        for value, cell in zip(row, cells, strict=True):
            if value is None or (isinstance(value, (float, np.floating)) and np.isnan(value)):
                assert cell == "", (value, cell)
            elif isinstance(value, (float, np.floating)):
                assert float(cell) == float(value), (value, cell)  # inf and -inf too
            else:
                assert int(cell) == int(value), (value, cell)


def test_one_writer_writes_every_csv():
    """No module but render/text.py writes CSV with the csv module: a second writer is where a
    second way of writing a missing number comes from."""
    writers = []
    for path in SRC.rglob("*.py"):
        if path.relative_to(SRC).as_posix() == "render/text.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and node.attr in ("writer", "DictWriter") \
                    and isinstance(node.value, ast.Name) and node.value.id == "csv":
                writers.append(f"{path.relative_to(SRC)}:{node.lineno}")
    assert writers == []


def _cells(text):
    return [cell for row in csv.reader(io.StringIO(text)) for cell in row]


def _no_nan(text):
    assert not [c for c in _cells(text) if c.strip().lower() in ("nan", "-nan", "+nan")], text


def test_report_csv_leaves_undefined_numbers_empty():
    table = cm.Contingency.from_labels([0, 0, 1, 1], [0, 1, 0, 1])
    nan = math.nan
    report = cm.Report(table, {"ari": nan, "nmi": 0.25}, {}, {},
                       intervals={"ari": Interval(nan, nan, 0.9, 10, 10, "normal"),
                                  "nmi": Interval(0.1, 0.4, 0.9, 10, 0, "normal")})
    rows = list(csv.DictReader(io.StringIO(report.to_csv())))
    assert rows[0]["value"] == rows[0]["ci_low"] == rows[0]["ci_high"] == ""
    assert float(rows[1]["value"]) == 0.25 and float(rows[1]["ci_high"]) == 0.4
    data = json.loads(report.to_json())
    assert data["scores"]["ari"] is None and data["intervals"]["ari"] == [None, None]
    _no_nan(report.to_csv())
    multi = cm.MultiReport({"r1": report, "r2": report})
    _no_nan(multi.to_csv())


def test_paired_csv_leaves_an_undefined_interval_empty():
    score = PairedScore("ari", 0.5, 0.5, 0.0, (math.nan, math.nan), math.nan, "tie",
                        n_skipped=10)
    result = PairedComparison({"ari": score}, 0.95, 10, 10)
    (row,) = csv.DictReader(io.StringIO(result.to_csv()))
    assert row["low"] == row["high"] == row["pvalue"] == "" and row["skipped"] == "10"
    assert "undefined" in str(result)


def test_coverage_csv_leaves_an_undefined_coverage_empty():
    """The reported case: coverage among the unflagged intervals, when every interval
    was flagged, is undefined."""
    row = CoverageRow("8x10", 100, "ari", "normal", 0.4, 0.5, 0.1, 1.0, math.nan, 2.7, 2, 5)
    (got,) = csv.DictReader(io.StringIO(CoverageResult([row]).to_csv()))
    assert got["coverage_unflagged"] == "" and float(got["coverage"]) == 0.5
    assert json.loads(CoverageResult([row]).to_json())[0]["coverage_unflagged"] is None


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_coverage_command_writes_an_undefined_number_as_csv_and_json_agree(capsys, fmt):
    code, out, err = run(capsys, "coverage", "--metrics", "ari", "--tables", "2",
                         "--n-boot", "5", "--population", "1000", "--sizes", "100",
                         "--shapes", "8x10", "--methods", "normal", "--format", fmt)
    assert code == 0, err
    if fmt == "json":
        (row,) = json.loads(out)
        assert (row["coverage_unflagged"] is None) == (row["flagged"] == 1.0)
    else:
        _no_nan(out)
        (row,) = csv.DictReader(io.StringIO(out))
        assert (row["coverage_unflagged"] == "") == (float(row["flagged"]) == 1.0)


def test_metric_listing_writes_unbounded_ranges_as_inf(capsys):
    code, out, _ = run(capsys, "metrics", "--format", "csv")
    rows = {r["key"]: r for r in csv.DictReader(io.StringIO(out))}
    assert code == 0 and float(rows["sri"]["lower"]) == -math.inf
    assert float(rows["sri"]["upper"]) == math.inf and float(rows["ari"]["upper"]) == 1.0
