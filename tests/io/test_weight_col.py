"""A weight column read by every source (in memory, DuckDB, Spark; text and Parquet) gives
the table of ``Contingency.from_labels(..., sample_weight=)`` of the same rows and exact
weights, bit for bit (integer counts, or real masses: each cell's exact sum rounded once);
every problem with the weights is refused naming the column, by every engine alike, and
by the command line in one line with exit status 2.

Spark needs Java (`make java`); these tests fail rather than skip without it.
"""

import json
from decimal import Decimal

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from cli_helpers import run as _run
from hypothesis import given, settings
from hypothesis import strategies as st

import clustermetrics as cm
from clustermetrics import Contingency
from clustermetrics.cli.engines import table_from_files
from clustermetrics.io import from_duckdb, from_spark
from clustermetrics.io.parquet import from_parquet

MAX = 2**63 - 1


@pytest.fixture(scope="module")
def spark(spark_session):
    spark_session.conf.set("spark.sql.shuffle.partitions", "2")
    return spark_session


def _csv(path, header, rows):
    path.write_text(",".join(header) + "\n"
                    + "".join(",".join(str(c) for c in row) + "\n" for row in rows))
    return path


def _reference(t, p, w):
    """The table of the rows repeated by their weights, from the in-memory builder with
    integer sample weights (tests/table/test_sample_weight.py checks it against repetition)."""
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
    ("", "holds 1 missing (None, NULL, masked or empty) weights"),
    ("abc", "holds 1 weights that are not numbers"),
    ("1e3", "holds 1 weights that are not numbers"),
    (" 3", "holds 1 weights that are not numbers"),
    ("1_000", "holds 1 weights that are not numbers"),
    ("nan", "holds 1 NaN weights"),
    ("-Infinity", "holds 1 infinite weights"),
    ("-2", "holds 1 negative weights"),
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


@pytest.mark.parametrize("rows, total", [
    ([("a", "x", 2**62), ("b", "y", 2**62)], 2**63),
    ([("a", "x", 1), ("b", "y", 2**63), ("a", "y", "-0")], 2**63 + 1),
    # whole numbers of any size are counts, however many digits they have
    ([("a", "x", "0" * 30 + "5"), ("b", "y", 10**30)], 10**30 + 5),
])
def test_totals_above_the_exact_range_are_refused(tmp_path, capsys, rows, total):
    path = _csv(tmp_path / "d.csv", ["t", "p", "w"], rows)
    for engine in ("memory", "duckdb"):
        code, _, err = _run(capsys, "score", path, "--true-col", "t", "--pred-col", "p",
                            "--weight-col", "w", "--engine", engine)
        assert code == 2 and len(err.splitlines()) == 1
        assert f"the weights of column 'w' (--weight-col) add up to {total}, more " in err


@pytest.mark.parametrize("column, message", [
    (pa.array([1.0, float("nan"), 2.0]), "holds 1 NaN weights"),
    (pa.array([1.0, float("inf"), 2.0]), "holds 1 infinite weights"),
    (pa.array([1, None, 2], pa.int64()), "holds 1 missing (None, NULL, masked or empty)"),
    (pa.array([1, -4, 2], pa.int32()), "holds 1 negative weights"),
    (pa.array([1e-151, 0.0, 0.0]), "add up to 1e-151: real-valued weights must total "
                                    "between 1e-150 and 1e150"),
    (pa.array([0.5, 1e150, 1e150]), "add up to 2e+150: real-valued weights must total"),
    # whole floats that large are counts: too many, with a word on why
    (pa.array([0.0, 0.0, float(2**70)]), f"add up to {2**70}, more than 2**63 - 1 = "
                                         f"{2**63 - 1}, the largest table counted exactly; "
                                         "every float from 2**53 up is a whole number"),
    (pa.array([1.0, 2.0**63, 2.0]), f"add up to {2**63 + 3}, more than 2**63 - 1"),
    (pa.array([1, 2**63, 2], pa.uint64()), f"add up to {2**63 + 3}, more than 2**63 - 1 = "
                                           f"{2**63 - 1}, the largest table counted exactly"),
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
    with pytest.raises(ValueError, match="column 'w' \\(weight_col\\) holds 1 NaN weights"):
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
     "--weight-col names 'p', the column of --pred-col"),
    (["{d}/d.csv", "--true-col", "t", "--pred-col", "p", "--weight-col", "q"],
     "has no column 'q' (--weight-col)"),
])
def test_command_line_weight_errors(tmp_path, capsys, argv, message):
    _csv(tmp_path / "d.csv", ["t", "p", "w"], [("a", "x", 1)])
    (tmp_path / "t.txt").write_text("a\nb\n")
    code, out, err = _run(capsys, "score", *[a.format(d=tmp_path) for a in argv])
    assert code == 2 and out == "" and len(err.splitlines()) == 1 and message in err, err


# ----------------------------------------------------------------- real-valued weights
def _close(table, want):
    """The same cells and labels, and the same counts or real masses, bit for bit (each
    cell's exact sum, rounded once, whatever order the engine adds in)."""
    assert table.real_valued == want.real_valued
    assert [str(v) for v in table.class_labels.tolist()] == \
        [str(v) for v in want.class_labels.tolist()]
    assert [str(v) for v in table.cluster_labels.tolist()] == \
        [str(v) for v in want.cluster_labels.tolist()]
    assert table.rows.tolist() == want.rows.tolist()
    assert table.cols.tolist() == want.cols.tolist()
    assert table.counts.dtype == want.counts.dtype
    assert table.counts.tolist() == want.counts.tolist()


def _real_reference(t, p, w):
    """The in-memory table of the exact weights: text as the decimal written (Decimal),
    floats as themselves."""
    exact = np.empty(len(w), dtype=object)
    exact[:] = [Decimal(x) if isinstance(x, str) else x for x in w]
    return Contingency.from_labels(np.array(t, dtype=object), np.array(p, dtype=object),
                                   sample_weight=exact)


# eighths and decimal fractions, and integers of any size next to them
REAL_WEIGHT = st.one_of(st.integers(0, 5).map(str), st.integers(0, 40).map(lambda k: f"{k / 8}"),
                        st.decimals(0, 50, places=3).map(str),
                        st.just(str(2**60)), st.just(str(2**64 + 1)), st.just("0.1"),
                        st.just("0"))


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.lists(REAL_WEIGHT, min_size=1, max_size=40))
def test_real_text_weights_memory_and_duckdb_equal_from_labels(tmp_path_factory, seed, w):
    rng = np.random.default_rng(seed)
    if not any(float(x) for x in w) or (str(2**64 + 1) in w and
                                        all(float(x) == int(float(x)) for x in w)):
        w.append("0.5")  # something to score; weights above 2**63 - 1 next to a fraction
    n = len(w)
    t = [f"c{v}" for v in rng.integers(0, 4, n)]
    p = [f"k{v}" for v in rng.integers(0, 3, n)]
    path = _csv(tmp_path_factory.mktemp("w") / "d.csv", ["t", "w", "p"],
                [(a, x, b) for a, x, b in zip(t, w, p, strict=True)])
    want = _real_reference(t, p, w)  # counts when every cell's exact sum is whole
    for engine in ("memory", "duckdb"):
        _close(table_from_files(engine, str(path), None, true_col="t", pred_col="p",
                                weight_col="w"), want)


def _real_parquet_cases():
    """(name, arrow weight column, the exact values it holds): fractions of every type
    that holds them, and integers next to fractions (two groups of one cell in an
    engine)."""
    floats = [0.5, 0.0, 1.0, 2.25, 5.0, 1e-3, 2.0, 7.125]
    decimals = [Decimal(str(x)) for x in floats]  # 1e-3 is one thousandth there
    return [
        ("float32", pa.array(floats, pa.float32()),
         [float(np.float32(x)) for x in floats]),  # the float32 values, widened
        ("float64", pa.array([0.1, 0.0, 1.0, 2.0**60, 5.0, 0.2, 2.0, 7.3]),
         [0.1, 0.0, 1.0, 2.0**60, 5.0, 0.2, 2.0, 7.3]),
        # next to a fraction, weights above 2**63 - 1 are real masses too
        ("big", pa.array([0.5, 0.0, 1.0, 2.0**70, 5.0, 3e20, 2.0, 7.0]),
         [0.5, 0.0, 1.0, 2.0**70, 5.0, 3e20, 2.0, 7.0]),
        ("uint64", pa.array([1, 0, 1, 2**64 - 1, 5, 2**63, 2, 7], pa.uint64()), None),
        ("decimal", pa.array(decimals, pa.decimal128(20, 3)), decimals),
        ("string", pa.array([str(x) for x in floats]), decimals),
        # fractions adding up to whole numbers in every cell: an integer table
        ("halves", pa.array([0.5, 0.5, 1.5, 1.5, 0.5, 2.5, 3.0, 1.0]),
         [0.5, 0.5, 1.5, 1.5, 0.5, 2.5, 3.0, 1.0]),
    ]


T8B = [1, 1, 2, 2, 3, 3, 9, 1]
P8B = ["a", "a", "a", "a", "b", "b", "z", "a"]


@pytest.mark.parametrize("name, column, floats", _real_parquet_cases(),
                         ids=lambda x: x if isinstance(x, str) else "")
def test_real_parquet_weights_memory_and_duckdb(tmp_path, name, column, floats):
    path = tmp_path / "d.parquet"
    if floats is None:  # integers above 2**63 - 1 next to a fraction in another column
        return _uint_next_to_fraction(path, column)
    pq.write_table(pa.table({"t": T8B, "p": P8B, "w": column}), path)
    want = _real_reference(T8B, P8B, floats)
    assert want.real_valued == (name != "halves")
    for engine in ("memory", "duckdb"):
        _close(table_from_files(engine, str(path), None, true_col="t", pred_col="p",
                                weight_col="w"), want)
    # the in-memory reader decides batch by batch: integer batches, then a real one
    _close(from_parquet(str(path), "t", "p", weight_col="w", batch_rows=2),
           want)


def _uint_next_to_fraction(path, column):
    """uint64 weights adding up to more than 2**63 - 1 are refused (a uint64 column holds
    whole numbers); as floats next to a fraction they are real masses."""
    pq.write_table(pa.table({"t": T8B, "p": P8B, "w": column}), path)
    for engine in ("memory", "duckdb"):
        with pytest.raises(ValueError, match=f"add up to {sum(column.to_pylist())}, more"):
            table_from_files(engine, str(path), None, true_col="t", pred_col="p",
                             weight_col="w")
    floats = [float(x) for x in column.to_pylist()] + [0.25]
    pq.write_table(pa.table({"t": T8B + [2], "p": P8B + ["b"], "w": pa.array(floats)}),
                   path)
    want = _real_reference(T8B + [2], P8B + ["b"], floats)
    for engine in ("memory", "duckdb"):
        _close(table_from_files(engine, str(path), None, true_col="t", pred_col="p",
                                weight_col="w"), want)


def test_parquet_batches_of_integers_then_one_fraction(tmp_path):
    """Integer batches are exact tables, merged with the real one into real masses."""
    t = [0, 0, 1, 1, 2, 2, 0, 1]
    p = [0, 1, 1, 1, 2, 0, 0, 1]
    w = [3, 1, 2**40, 4, 1, 2, 5, 0.75]
    path = tmp_path / "d.parquet"
    pq.write_table(pa.table({"t": t, "p": p, "w": pa.array([float(x) for x in w])}), path)
    got = from_parquet(str(path), "t", "p", weight_col="w", batch_rows=3)
    _close(got, _real_reference(t, p, w))


def test_spark_reads_the_same_real_weights(tmp_path, spark):
    for name, column, floats in _real_parquet_cases():
        path = tmp_path / f"{name}.parquet"
        pq.write_table(pa.table({"t": T8B, "p": P8B, "w": column}), path)
        if floats is None:  # integers above 2**63 - 1 alone: refused
            with pytest.raises(ValueError, match=f"add up to {sum(column.to_pylist())}, "):
                table_from_files("spark", str(path), None, true_col="t", pred_col="p",
                                 weight_col="w", spark=spark)
            continue
        _close(table_from_files("spark", str(path), None, true_col="t", pred_col="p",
                                weight_col="w", spark=spark),
               _real_reference(T8B, P8B, floats))
    rng = np.random.default_rng(2)
    t = [f"c{v}" for v in rng.integers(0, 4, 60)]
    p = [f"k{v}" for v in rng.integers(0, 3, 60)]
    w = [f"{v / 8}" if v % 3 else str(v) for v in rng.integers(0, 40, 60)]
    path = _csv(tmp_path / "d.csv", ["t", "p", "w"],
                [(a, b, x) for a, b, x in zip(t, p, w, strict=True)])
    _close(table_from_files("spark", str(path), None, true_col="t", pred_col="p",
                            weight_col="w", spark=spark), _real_reference(t, p, w))
    frame = spark.createDataFrame(list(zip(T8B, P8B, [x / 3 for x in range(8)],
                                           strict=True)), "t long, p string, w double")
    _close(from_spark(frame, "t", "p", weight_col="w"),
           _real_reference(T8B, P8B, [x / 3 for x in range(8)]))


def test_duckdb_relation_of_real_weights():
    relation = duckdb.sql("SELECT * FROM (VALUES (1, 'a', 0.25::DOUBLE), (1, 'a', 2), "
                          "(1, 'b', 0), (2, 'a', 1.5)) v(t, p, w)")
    _close(from_duckdb(relation, "t", "p", weight_col="w"),
           _real_reference([1, 1, 1, 2], ["a", "a", "b", "a"], [0.25, 2, 0, 1.5]))


def test_command_line_scores_real_weights_and_notes_the_refused(tmp_path, capsys):
    t = ["a", "a", "b", "b", "b", "c"]
    p = ["x", "x", "x", "y", "y", "y"]
    w = ["0.5", "1.25", "2", "0.25", "1.75", "3"]
    path = _csv(tmp_path / "d.csv", ["t", "p", "w"], list(zip(t, p, w, strict=True)))
    want = cm.evaluate(t, p, ["ari", "nmi", "purity"], sample_weight=[float(x) for x in w])
    for engine in ("memory", "duckdb"):
        code, out, err = _run(capsys, "score", path, "--true-col", "t", "--pred-col", "p",
                              "--weight-col", "w", "--engine", engine, "--format", "json")
        assert code == 0, err
        scores = json.loads(out)["scores"]
        for key in ("ari", "nmi", "purity"):
            assert scores[key] == pytest.approx(want[key], rel=1e-12)
        assert "ami" not in scores and "sri" not in scores
        notes = err.splitlines()
        assert len(notes) == 1 and notes[0].startswith("clustermetrics: note: "), err
        assert "ami" in notes[0] and "the table holds real-valued masses" in notes[0]
        code, out, err = _run(capsys, "score", path, "--true-col", "t", "--pred-col", "p",
                              "--weight-col", "w", "--engine", engine, "--metrics", "ami")
        assert code == 2 and out == "" and len(err.splitlines()) == 1
        assert "the table holds real-valued masses" in err


def test_paired_command_with_real_weights(tmp_path, capsys):
    rows = [("a", "x", "x", "0.5"), ("a", "x", "y", "1.25"), ("b", "x", "y", "2"),
            ("b", "y", "y", "0.25"), ("b", "y", "x", "1.75"), ("c", "y", "y", "3"),
            ("c", "y", "y", "1.5"), ("a", "x", "x", "2")]
    path = _csv(tmp_path / "p.csv", ["t", "a", "b", "w"], rows)
    t, a, b, w = (list(c) for c in zip(*rows, strict=True))
    w = [float(x) for x in w]
    code, out, err = _run(capsys, "paired", path, "--true-col", "t", "--a-col", "a",
                          "--b-col", "b", "--weight-col", "w", "--format", "json")
    assert code == 0, err
    got = json.loads(out)
    assert got["n_samples"] == pytest.approx(sum(w))
    assert got["scores"]["nmi"]["a"] == pytest.approx(
        cm.normalized_mutual_info_score(t, a, sample_weight=w), rel=1e-12)
    assert "ami" not in got["scores"]
    assert len(err.splitlines()) == 1 and "ami left out" in err
    code, out, err = _run(capsys, "paired", path, "--true-col", "t", "--a-col", "a",
                          "--b-col", "b", "--weight-col", "w", "--metrics", "ami")
    assert code == 2 and "the table holds real-valued masses" in err
