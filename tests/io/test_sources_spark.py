"""Spark local mode gives the identical table to the in-memory path.

Spark needs Java: `make test` installs it where it is missing (see the Makefile), and
without it these tests fail with that reason rather than being skipped.
"""


import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from clustermetrics import Contingency
from clustermetrics.io import from_spark

BIG = 2**53


@pytest.fixture(scope="module")
def spark(spark_session):
    spark_session.conf.set("spark.sql.shuffle.partitions", "4")
    return spark_session


def test_identical_table_with_big_ints_and_strings(spark):
    rng = np.random.default_rng(0)
    n = 20_000
    t = (rng.integers(0, 50, n) + BIG).tolist()
    p = [f"c{v}" for v in rng.integers(0, 40, n)]
    frame = spark.createDataFrame(list(zip(t, p, strict=True)), "t long, p string")
    table = from_spark(frame, "t", "p")
    assert table == Contingency.from_labels(np.array(t), np.array(p))
    assert table.class_labels.dtype == np.int64


def test_nulls_error_or_dropped(spark):
    frame = spark.createDataFrame([(1, "a"), (None, "b"), (2, None), (2, "b")], "t long, p string")
    with pytest.raises(ValueError, match="column 't' has 1 NULL labels"):
        from_spark(frame, "t", "p")
    stats = {}
    table = from_spark(frame, "t", "p", drop_null=True, stats=stats)
    assert stats == {"rows": 4, "skipped": 2}
    assert table == Contingency.from_labels([1, 2], ["a", "b"])


def test_errors(spark):
    frame = spark.createDataFrame([(1, [1])], "t long, p array<long>")
    with pytest.raises(ValueError, match="no column 'q' \\(pred_col\\); columns are: 't', 'p'"):
        from_spark(frame, "t", "q")
    with pytest.raises(ValueError, match="column 'p' has type array"):
        from_spark(frame, "t", "p")
    with pytest.raises(ValueError, match="must be a pyspark.sql.DataFrame"):
        from_spark([1, 2], "t", "p")
    empty = spark.createDataFrame([], "t long, p string")
    with pytest.raises(ValueError, match="has no rows"):
        from_spark(empty, "t", "p")
    # a plan that fails when it runs: one line, the cause, no Java class or py4j wrapper
    failing = spark.range(3).selectExpr("id AS t", "raise_error('labels went wrong') AS p")
    with pytest.raises(ValueError) as info:
        from_spark(failing, "t", "p")
    message = str(info.value)
    assert "\n" not in message and "labels went wrong" in message, message
    assert "py4j" not in message and "An error occurred" not in message, message


def test_cli_spark_engine_matches_memory(tmp_path, capsys):
    from clustermetrics.cli import main

    rng = np.random.default_rng(3)
    t = np.array(["a", "b", "c"])[rng.integers(0, 3, 300)]
    p = np.array(["x", "y"])[rng.integers(0, 2, 300)]
    pq.write_table(pa.table({"t": t, "p": p}), tmp_path / "d.parquet")
    outputs = []
    for engine in ("spark", "duckdb"):
        code = main(["score", str(tmp_path / "d.parquet"), "--true-col", "t", "--pred-col", "p",
                     "--engine", engine, "--format", "csv"])
        out, err = capsys.readouterr()
        assert code == 0, err
        outputs.append(out)
    assert outputs[0] == outputs[1]


@pytest.mark.slow
def test_cli_spark_keeps_the_terminal_quiet(tmp_path, capsys):
    # a fresh process, so a fresh JVM: its log4j lines, Java's warnings and Spark's
    # progress bars must not reach the terminal; a Spark-side error is one line
    import subprocess
    import sys

    pq.write_table(pa.table({"t": pa.array([1, 2, 2], pa.uint64()),
                             "p": pa.array([0.5, -0.0, 0.0], pa.float16())}),
                   tmp_path / "d.parquet")
    script = ("import sys; from clustermetrics.cli import main; "
              "sys.exit(main(sys.argv[1:]))")
    args = [sys.executable, "-c", script, "score", str(tmp_path / "d.parquet"), "--true-col",
            "t", "--pred-col", "p", "--engine", "spark", "--metrics", "ari", "--format",
            "json", "--details"]
    done = subprocess.run(args, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    from clustermetrics.cli import main

    assert main(args[3:-6] + ["memory"] + args[-5:]) == 0
    assert done.stdout == capsys.readouterr().out
    assert '"0.0"' not in done.stdout and "-0.0" not in done.stdout  # 0.0 as a number


def test_a_read_without_a_session_leaves_the_callers_session_running(spark, tmp_path):
    """A file read with the Spark engine and no session given uses the session running in
    the process and leaves it running (it stops only a session it started itself)."""
    from clustermetrics.cli import main

    pq.write_table(pa.table({"t": [1, 1, 2], "p": [1, 2, 2]}), tmp_path / "d.parquet")
    code = main(["score", str(tmp_path / "d.parquet"), "--true-col", "t", "--pred-col", "p",
                 "--engine", "spark", "--metrics", "ari", "--format", "csv"])
    assert code == 0
    assert spark.range(3).count() == 3  # still running
