"""A weight column read by every source (in memory, DuckDB, Spark; text and Parquet) gives
the table of ``Contingency.from_labels(..., sample_weight=)`` of the same rows, summed
exactly at any size; every problem with the weights is refused naming the column, by
every engine alike, and by the command line in one line with exit status 2.

Spark needs Java (`make java`); these tests fail rather than skip without it.
"""

import json
from decimal import Decimal

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import clustermetrics as cm
from cli_helpers import run as _run
from clustermetrics import Contingency
from clustermetrics.cli.engines import table_from_files
from clustermetrics.sources import from_duckdb, from_spark
from spark_session import local_spark

MAX = 2**63 - 1


@pytest.fixture(scope="module")
def spark():
    session = local_spark("clustermetrics-weights", cores=1, partitions=2)
    yield session
    session.stop()


def _csv(path, header, rows):
    path.write_text(",".join(header) + "\n"
                    + "".join(",".join(str(c) for c in row) + "\n" for row in rows))
    return path


def _reference(t, p, w):
    """The table of the rows repeated by their weights, from the in-memory builder with
    integer sample weights (tests/test_sample_weight.py checks it against repetition)."""
    return Contingency.from_labels(np.array(t, dtype=object), np.array(p, dtype=object),
                                   sample_weight=np.array([int(x) for x in w],
                                                          dtype=object))


def _same(table, want):
    assert [str(v) for v in table.class_labels.tolist()] == \
        [str(v) for v in want.class_labels.tolist()]
    assert [str(v) for v in table.cluster_labels.tolist()] == \
        [str(v) for v in want.cluster_labels.tolist()]
    assert table.rows.tolist() == want.rows.tolist()
    assert table.cols.tolist() == want.cols.tolist()
    assert table.counts.tolist() == want.counts.tolist()


def _text_weight(rng, w):
    """A text spelling of the integer w: plain, zero-padded, or with a zero fraction."""
    form = rng.integers(0, 3)
    return str(w) if form == 0 else f"00{w}" if form == 1 else f"{w}.000"


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 40), st.sampled_from(["w", "5", "weight"]))
def test_text_tables_memory_and_duckdb_equal_the_weighted_labels(tmp_path_factory, seed, n,
                                                                 col):
    rng = np.random.default_rng(seed)
    t = [f"c{v}" for v in rng.integers(0, 4, n)]
    p = [f"k{v}" for v in rng.integers(0, 3, n)]
    w = rng.integers(0, 4, n).tolist()
    w[0] = max(w[0], 1)
    if rng.random() < 0.3:  # big weights: the sums pass 2**53, well within 2**63
        w = [x * (2**53 + 1) for x in w]
    path = _csv(tmp_path_factory.mktemp("w") / "d.csv", ["t", col, "p"],
                [(a, _text_weight(rng, x), b) for a, x, b in zip(t, w, p, strict=True)])
    want = _reference(t, p, w)
    for engine in ("memory", "duckdb"):
        _same(table_from_files(engine, str(path), None, true_col="t", pred_col="p",
                               weight_col=col), want)


def _parquet_cases():
    """(name, arrow weight column, the integers it holds) for every weight type."""
    ints = [3, 0, 1, 2**40 + 1, 5, 1, 2, 7]
    return [
        ("int8", pa.array([3, 0, 1, 2, 5, 1, 2, 7], pa.int8()), [3, 0, 1, 2, 5, 1, 2, 7]),
        ("int64", pa.array(ints, pa.int64()), ints),
        ("uint64", pa.array([2**62, 1, 0, 2**61, 3, 1, 1, 1], pa.uint64()),
         [2**62, 1, 0, 2**61, 3, 1, 1, 1]),
        ("float32", pa.array([3.0, 0.0, 1.0, 2.0, 5.0, 1.0, 2.0, 7.0], pa.float32()),
         [3, 0, 1, 2, 5, 1, 2, 7]),
        ("float64", pa.array([float(2**60), 0.0, 1.0, 2.0, 5.0, 1.0, 2.0, 7.0]),
         [2**60, 0, 1, 2, 5, 1, 2, 7]),
        ("decimal", pa.array([Decimal("3.00"), Decimal(0), Decimal(1), Decimal("2.0"),
                              Decimal(5), Decimal(1), Decimal(2), Decimal(7)],
                             pa.decimal128(20, 2)), [3, 0, 1, 2, 5, 1, 2, 7]),
        ("string", pa.array(["3", "0", "1", "2.0", "005", "1", "2", "7"]),
         [3, 0, 1, 2, 5, 1, 2, 7]),
    ]


T8 = [1, 1, 2, 2, 3, 3, 9, 1]
P8 = ["a", "b", "a", "a", "b", "c", "z", "a"]


@pytest.mark.parametrize("name, column, ints", _parquet_cases(), ids=lambda x: x
                         if isinstance(x, str) else "")
def test_parquet_weights_of_every_type_memory_and_duckdb(tmp_path, name, column, ints):
    # integer and text labels: DuckDB numbers text labels in its own tables
    for t in (T8, [f"c{v}" for v in T8]):
        path = tmp_path / "d.parquet"
        pq.write_table(pa.table({"t": t, "p": P8, "w": column}), path)
        want = _reference(t, P8, ints)
        for engine in ("memory", "duckdb"):
            _same(table_from_files(engine, str(path), None, true_col="t", pred_col="p",
                                   weight_col="w"), want)


def test_spark_reads_the_same_weights(tmp_path, spark):
    """Every Parquet weight type and a text table, through Spark (one session)."""
    for name, column, ints in _parquet_cases():
        path = tmp_path / f"{name}.parquet"
        pq.write_table(pa.table({"t": T8, "p": P8, "w": column}), path)
        _same(table_from_files("spark", str(path), None, true_col="t", pred_col="p",
                               weight_col="w", spark=spark), _reference(T8, P8, ints))
    rng = np.random.default_rng(1)
    t = [f"c{v}" for v in rng.integers(0, 4, 60)]
    p = [f"k{v}" for v in rng.integers(0, 3, 60)]
    w = (rng.integers(0, 4, 60) * (2**55 + 3)).tolist()
    path = _csv(tmp_path / "d.csv", ["t", "p", "5"],
                [(a, b, _text_weight(rng, x)) for a, b, x in zip(t, p, w, strict=True)])
    _same(table_from_files("spark", str(path), None, true_col="t", pred_col="p",
                           weight_col="5", spark=spark), _reference(t, p, w))
    # a DataFrame
    frame = spark.createDataFrame(list(zip(T8, P8, [float(x) for x in range(8)],
                                           strict=True)), "t long, p string, w double")
    _same(from_spark(frame, "t", "p", weight_col="w"), _reference(T8, P8, range(8)))


def test_duckdb_relation(tmp_path):
    relation = duckdb.sql("SELECT * FROM (VALUES (1, 'a', 2::UBIGINT), (1, 'b', 0), "
                          "(2, 'a', 9223372036854775000)) v(t, p, w)")
    _same(from_duckdb(relation, "t", "p", weight_col="w"),
          _reference([1, 1, 2], ["a", "b", "a"], [2, 0, 9223372036854775000]))


# ----------------------------------------------------------------- refusals
TEXT_PROBLEMS = [
    ("", "holds 1 missing (NULL or empty) weights"),
    ("abc", "holds 1 weights that are not numbers"),
    ("1e3", "holds 1 weights that are not numbers"),
    (" 3", "holds 1 weights that are not numbers"),
    ("nan", "holds 1 weights that are not numbers"),
    ("-2", "holds 1 negative weights"),
    ("2.5", "holds 1 non-integral weights (a weight counts repetitions of a row: "
            "real-valued weights are not supported)"),
    ("9223372036854775808", "holds 1 weights above 2**63 - 1"),
]


@pytest.mark.parametrize("cell, message", TEXT_PROBLEMS)
def test_text_weight_problems_are_refused_alike(tmp_path, capsys, cell, message):
    path = _csv(tmp_path / "d.csv", ["t", "p", "w"],
                [("a", "x", "1"), ("b", "y", f'"{cell}"' if cell else ""), ("a", "y", "-0")])
    for engine in ("memory", "duckdb"):
        code, out, err = _run(capsys, "score", path, "--true-col", "t", "--pred-col", "p",
                              "--weight-col", "w", "--engine", engine, "--metrics", "ari")
        assert code == 2 and out == "" and len(err.splitlines()) == 1, err
        assert f"{path}: column 'w' (--weight-col) {message}" in err


def test_totals_above_the_exact_range_are_refused(tmp_path, capsys):
    path = _csv(tmp_path / "d.csv", ["t", "p", "w"],
                [("a", "x", 2**62), ("b", "y", 2**62)])
    for engine in ("memory", "duckdb"):
        code, _, err = _run(capsys, "score", path, "--true-col", "t", "--pred-col", "p",
                            "--weight-col", "w", "--engine", engine)
        assert code == 2 and len(err.splitlines()) == 1
        assert f"the weights of column 'w' (--weight-col) add up to {2**63}" in err


@pytest.mark.parametrize("column, message", [
    (pa.array([1.0, float("nan"), 2.0]), "holds 1 NaN or infinite weights"),
    (pa.array([1.0, float("inf"), 2.0]), "holds 1 NaN or infinite weights"),
    (pa.array([1, None, 2], pa.int64()), "holds 1 missing (NULL or empty) weights"),
    (pa.array([1, -4, 2], pa.int32()), "holds 1 negative weights"),
    (pa.array([1.0, 0.25, 2.0]), "holds 1 non-integral weights"),
    (pa.array([1.0, 2.0**63, 2.0]), "holds 1 weights above 2**63 - 1"),
    (pa.array([1, 2**63, 2], pa.uint64()), "holds 1 weights above 2**63 - 1"),
    (pa.array([0, 0, 0], pa.int64()), "column 'w' (--weight-col) is 0 on every row"),
    (pa.array([True, False, True]), "column 'w' (--weight-col) has type bool"),
])
def test_parquet_weight_problems_are_refused_alike(tmp_path, capsys, column, message):
    path = tmp_path / "d.parquet"
    pq.write_table(pa.table({"t": [1, 2, 3], "p": [1, 1, 2], "w": column}), path)
    for engine in ("memory", "duckdb"):
        code, out, err = _run(capsys, "score", path, "--true-col", "t", "--pred-col", "p",
                              "--weight-col", "w", "--engine", engine, "--metrics", "ari")
        assert code == 2 and out == "" and len(err.splitlines()) == 1, err
        assert message in err and str(path) in err


def test_spark_refuses_alike(tmp_path, spark):
    for i, (cell, message) in enumerate(TEXT_PROBLEMS):
        path = _csv(tmp_path / f"d{i}.csv", ["t", "p", "w"],
                    [("a", "x", "1"), ("b", "y", f'"{cell}"' if cell else "")])
        with pytest.raises(ValueError) as info:
            table_from_files("spark", str(path), None, true_col="t", pred_col="p",
                             weight_col="w", spark=spark)
        assert str(info.value).startswith(f"{path}: column 'w' (--weight-col) {message}")
    frame = spark.createDataFrame([(1, "a", 1.0), (2, "b", float("nan"))],
                                  "t long, p string, w double")
    with pytest.raises(ValueError, match="column 'w' \\(weight_col\\) holds 1 NaN"):
        from_spark(frame, "t", "p", weight_col="w")


def test_rows_dropped_for_a_missing_label_take_their_weight_along(tmp_path, capsys):
    path = _csv(tmp_path / "d.csv", ["t", "p", "w"],
                [("a", "x", "2"), ("", "y", ""), ("b", "", "oops"), ("b", "y", "3")])
    want = cm.evaluate(["a", "b"], ["x", "y"], ["ari", "nmi"], sample_weight=[2, 3])
    for engine in ("memory", "duckdb"):
        code, out, err = _run(capsys, "score", path, "--true-col", "t", "--pred-col", "p",
                              "--weight-col", "w", "--engine", engine, "--drop-null",
                              "--metrics", "ari,nmi", "--format", "json")
        assert code == 0, err
        assert "skipped 2 of 4 rows" in err
        assert json.loads(out)["scores"] == dict(want)
        code, _, err = _run(capsys, "score", path, "--true-col", "t", "--pred-col", "p",
                            "--weight-col", "w", "--engine", engine)
        assert code == 2 and ("NULL labels" in err or "is empty" in err), err


@pytest.mark.parametrize("argv, message", [
    (["{d}/t.txt", "{d}/t.txt", "--weight-col", "w"], "--weight-col reads a column of one"),
    (["{d}/d.csv", "--true-col", "t", "--pred-col", "p", "--weight-col", "p"],
     "--weight-col names the --pred-col column 'p'"),
    (["{d}/d.csv", "--true-col", "t", "--pred-col", "p", "--weight-col", "q"],
     "has no column 'q' (--weight-col)"),
])
def test_command_line_weight_errors(tmp_path, capsys, argv, message):
    _csv(tmp_path / "d.csv", ["t", "p", "w"], [("a", "x", 1)])
    (tmp_path / "t.txt").write_text("a\nb\n")
    code, out, err = _run(capsys, "score", *[a.format(d=tmp_path) for a in argv])
    assert code == 2 and out == "" and len(err.splitlines()) == 1 and message in err, err
