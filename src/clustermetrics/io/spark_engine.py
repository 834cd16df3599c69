"""Tables from Spark DataFrames and files: groupBy/count runs in Spark, only the cells come
back.

The non-zero cells (usually far fewer than the rows) are fetched through Arrow.
"""

from __future__ import annotations

import logging
import os
import re
import sys
import tempfile
import warnings
from collections.abc import Mapping
from typing import Any

from ..render.text import find_column
from ..table import Contingency
from ._common import PARAMETERS, TextPart, stage, table_from_groups, text_parts
from .files import expand_paths
from .formats import Columns, FileFormat, format_of
from .parquet import arrow_labels
from .spark_cluster import (
    LOCAL_MASTER,
    check_master,
    cluster_paths,
    is_local,
    reach_master,
    wait_for_executors,
)
from .weights import FETCH, WeightCells, weight_cells, weight_plan

__all__ = ["from_spark", "from_spark_files"]

_NOT_LABELS = ("array", "map", "struct")


def from_spark(dataframe: Any, true_col: str, pred_col: str, *, drop_null: bool = False,
               stats: dict | None = None, weight_col: str | None = None) -> Contingency:
    """The table of two columns of a ``pyspark.sql.DataFrame``.

    ``groupBy(true_col, pred_col).count()`` runs in Spark; the result comes back through
    Arrow, label values exact (integers of every width, decimals as ``decimal.Decimal``).
    NULL and NaN labels are an error naming the column and the count unless ``drop_null``
    (infinite labels always are);
    ``stats`` (a dict) receives ``rows`` and ``skipped``. ``weight_col``: a column of
    weights, summed exactly in Spark: each cell the exact sum of its rows' weights, counts
    when every cell's sum is whole, else real masses
    (:mod:`clustermetrics.io.weights`).
    Needs the ``spark`` extra.
    """
    if not (hasattr(dataframe, "groupBy") and hasattr(dataframe, "schema")):
        raise ValueError(f"dataframe must be a pyspark.sql.DataFrame, got "
                         f"{type(dataframe).__name__}")
    _check_columns(dataframe, "DataFrame", true_col, pred_col)
    weight = None if weight_col is None else (weight_col, PARAMETERS["weight_col"])
    if weight is not None:
        _check_weight(dataframe, "DataFrame", *weight)
    t, p, n, cells = _spark_call("DataFrame", {}, lambda: _grouped(dataframe, true_col,
                                                                  pred_col, weight))
    return table_from_groups(t, p, n, "DataFrame", true_col, pred_col, drop_null, stats,
                             weights=cells)


def from_spark_files(path: str, true_col: str, pred_col: str, *, sep: str | None = None,
                     drop_null: bool = False, stats: dict | None = None, spark: Any = None,
                     names: Mapping[str, str] | None = None,
                     weight_col: str | None = None,
                     master: str | None = None) -> Contingency:
    """The table of two columns of a file (of any format of the user guide's "How files
    are read") or glob, counted by Spark.

    Files are read as :func:`~clustermetrics.io.from_duckdb` reads them (a path that
    exists is itself; parts of a glob combine by column name; text by the rules of
    the user guide's "How files are read"). ``spark``: the SparkSession to use (default:
    the one active in this process, else one started and stopped here). ``master``: the
    Spark master URL of the session started here (default ``local[2]``): ``local[N]``,
    ``spark://HOST:PORT`` (a standalone cluster), ``yarn`` or ``k8s://HOST:PORT``. A
    cluster must accept a connection within
    :data:`~clustermetrics.io.spark_cluster.CONNECT_TIMEOUT_S` seconds; its executors
    open the files themselves, so each must see every file at the same absolute path (a
    shared filesystem). A session given as ``spark`` wins: ``master`` is then checked but
    not used; an active session on another master than ``master`` is an error (a
    process runs one). ``names`` respells the parameters in messages.

    Spark cannot be told every rule for files with CRLF line ends: it reads a CRLF inside a
    quoted label as LF, and takes a line break inside a quoted column name for the line
    end; such files are an error here (DuckDB and the in-memory reader read them).
    Parquet label columns have the types and values of every engine
    (:mod:`clustermetrics.io.parquet`): those Spark has no type for (float16, times,
    nanosecond timestamps) are read as their stored values and turned back exactly.
    ``weight_col``: a column of weights, summed exactly in Spark, as
    :func:`~clustermetrics.io.from_duckdb` reads them.
    """
    spell = {**PARAMETERS, "master": "master", **(names or {})}
    if master is not None:
        check_master(master, spell["master"])
    files = expand_paths(path)
    kind = format_of(files[0])
    kind.check_sep(sep, path, spell["sep"])
    return kind.reader.table(_Files(path, files, kind, true_col, pred_col, sep, drop_null,
                                    stats, spark, names, weight_col, master))


class _Files:
    """One source of files read by Spark: each reading checks the files before Spark
    starts (a bad file fails in a moment), then reads them in a session."""

    def __init__(self, path, files, kind: FileFormat, true_col, pred_col, sep, drop_null,
                 stats, spark, names, weight_col, master=None):
        self.path, self.files, self.kind = path, files, kind
        self.master = master
        self.option = {**PARAMETERS, "master": "master", **(names or {})}["master"]
        self.true_col, self.pred_col, self.sep = true_col, pred_col, sep
        self.drop_null, self.stats, self.spark, self.names = drop_null, stats, spark, names
        self.weight = None if weight_col is None else \
            (weight_col, {**PARAMETERS, **(names or {})}["weight_col"])

    def text(self) -> Contingency:
        parts = text_parts(self.files, self.sep, self.true_col, self.pred_col,
                           self.drop_null, self.names, self.weight and self.weight[0])
        for part in parts:
            _check_spark_can_read(part.layout)
        return self._in_session(lambda spark, staged: _text_table(
            spark, self.path, staged, parts, self.true_col, self.pred_col, self.drop_null,
            self.stats, self.weight))

    def columns(self, reader: Columns) -> Contingency:
        weight_col = self.weight and self.weight[0]
        checked = reader.check(self.files, self.true_col, self.pred_col, weight_col,
                               str(self.path), self.names)
        types = checked.types
        if self.weight is not None and str(types[self.weight[0]].arrow) == "halffloat":
            raise ValueError(f"{self.path}: column {self.weight[0]!r} ({self.weight[1]}) "
                             "holds 16-bit floats, which Spark cannot read as weights; the "
                             "memory and DuckDB engines read them exactly")

        def read(spark, staged):
            t, p, n, cells = _spark_call(self.path, staged, lambda: _typed_groups(
                spark, reader, list(staged), checked, self.true_col, self.pred_col,
                self.weight))
            return table_from_groups(types[self.true_col].exact(t),
                                     types[self.pred_col].exact(p), n, str(self.path),
                                     self.true_col, self.pred_col, self.drop_null, self.stats,
                                     weights=cells)
        return self._in_session(read)

    def _in_session(self, read):
        """``read(spark, staged)`` in the session given, else the one running in this
        process, else one of our own (stopped after)."""
        spark, own = (self.spark, False) if self.spark is not None else \
            _local_session(self.master, self.option)
        try:
            with tempfile.TemporaryDirectory(prefix="clustermetrics-") as work:
                # executors elsewhere cannot see links in a folder of this machine
                staged = stage(self.files, work, self.kind.link_name) \
                    if is_local(_master_of(spark)) else cluster_paths(self.files, self.path)
                return read(spark, staged)
        finally:
            if own:
                spark.stop()


def _local_session(master: str | None = None, option: str = "master"):
    """(session, ours): the SparkSession active in this process (the caller's: never
    stopped by us), else one of our own on ``master`` (default local mode) that keeps the
    terminal quiet: the JVM's own output (its log, its warnings) goes to a log file, not to
    stderr, and Spark shows no progress bars. A process runs one SparkContext: an active
    one on another master than ``master`` is an error naming ``option``."""
    try:
        from pyspark import SparkContext
        from pyspark.sql import SparkSession
    except ImportError:
        raise ImportError("reading files with Spark needs the spark extra: pip install "
                          "'clustermetrics[spark]'") from None
    active = SparkSession.getActiveSession()
    running = active.sparkContext if active is not None else SparkContext._active_spark_context
    builder = (SparkSession.builder.master(master or LOCAL_MASTER).appName("clustermetrics")
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.shuffle.partitions", "8"))
    if running is not None:
        if master is not None and running.master != master:
            raise ValueError(f"{option} {master!r}: this process already runs Spark on "
                             f"{running.master!r}; pass that session as spark=, or stop it "
                             "first")
        # the caller's: a session on their context, which is theirs to stop
        return (active if active is not None else builder.getOrCreate()), False
    if master is not None and not is_local(master):
        reach_master(master, option)  # Spark would wait minutes for a master that is not there
    session = _started(builder, master)
    try:
        wait_for_executors(session.sparkContext, master or LOCAL_MASTER, option)
    except ValueError:
        session.stop()
        raise
    return session, True


def _started(builder, master: str | None):
    """A new session of ``builder``; the JVM it may start writes to a log file."""
    from pyspark import SparkContext

    if SparkContext._gateway is not None:  # a JVM runs already: its output goes where it goes
        return builder.getOrCreate()
    # the JVM inherits stderr when it starts: it gets a log file instead, for its life
    log = os.path.join(tempfile.mkdtemp(prefix="clustermetrics-spark-"), "spark.log")
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(log, "ab") as fh:
            os.dup2(fh.fileno(), 2)
        try:
            return builder.getOrCreate()
        except Exception as exc:  # no Java, a JVM that does not start, a refused app...
            raise ValueError(f"Spark could not start on {master or LOCAL_MASTER!r} (is Java "
                             f"installed? `java -version`); its log: {log}: "
                             f"{_first_line(exc)}") from None
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def _master_of(spark) -> str:
    """The master URL of a session ("" where it has none to tell, as over Spark Connect,
    whose server is another process: read as a cluster)."""
    try:
        return spark.sparkContext.master
    except Exception:  # Spark Connect sessions have no SparkContext here
        return ""


def _text_table(spark, path, staged, parts: list[TextPart], true_col, pred_col, drop_null,
                stats, weight=None) -> Contingency:
    """Checked text parts read with Spark's CSV reader told every choice of the rules."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import StringType, StructField, StructType

    groups: dict[tuple, list[str]] = {}
    for link, part in zip(staged, parts, strict=True):
        key = (part.layout.ncols, part.t, part.p, part.layout.sep, part.layout.crlf, part.w)
        groups.setdefault(key, []).append(link)

    def read():
        frames = []
        for (ncols, ti, pi, sep, crlf, wi), links in groups.items():
            schema = StructType([StructField(f"c{i}", StringType()) for i in range(ncols)])
            reader = spark.read if crlf else spark.read.option("lineSep", "\n")
            frame = (reader.schema(schema).option("header", True).option("sep", sep)
                     .option("quote", '"').option("escape", '"').option("multiLine", True)
                     .option("mode", "FAILFAST").option("encoding", "UTF-8")
                     .option("ignoreLeadingWhiteSpace", False)
                     .option("ignoreTrailingWhiteSpace", False)
                     .option("enforceSchema", True).csv(links))
            frames.append(frame.select(F.col(f"c{ti}").alias("t"), F.col(f"c{pi}").alias("p"),
                                       *([F.col(f"c{wi}").alias("w")] if weight else [])))
        union = frames[0]
        for frame in frames[1:]:
            union = union.unionAll(frame)
        return _grouped(union, "t", "p", None if weight is None else ("w", *weight[1:]),
                        names=weight)

    t, p, n, cells = _spark_call(path, staged, read)
    # Spark skips every blank line: those among the rows are rows of missing labels
    return table_from_groups(t, p, n, str(path), true_col, pred_col, drop_null, stats,
                             text=True, blank_rows=sum(part.layout.blank for part in parts),
                             expected_rows=sum(part.layout.rows for part in parts),
                             weights=cells)


def _check_spark_can_read(layout) -> None:
    """Spark's CSV reader (univocity) takes the first line break of a file for its line end
    unless told one, and it can only be told a one-character one (LF); in a CRLF file it
    also turns a CRLF inside a quoted label into LF. Such CRLF files are errors here."""
    if not layout.crlf:
        return
    if "CRLF" in layout.quoted_breaks:
        raise ValueError(f"{layout.path}: a quoted label holds a CRLF line break in a file "
                         "with CRLF line ends, and Spark would read it as LF; read this file "
                         "with engine 'duckdb' or 'memory'")
    if any("\n" in name or "\r" in name for name in layout.header):
        raise ValueError(f"{layout.path}: a column name holds a line break in a file with "
                         "CRLF line ends, and Spark would take it for the line end; read "
                         "this file with engine 'duckdb' or 'memory'")


def _spark_call(path, staged, call):
    """Run ``call``; Spark's own errors (Java's included) become one-line ValueErrors that
    name the user's files. pyspark's warnings about its own dependencies are not ours to
    show."""
    loggers = [logging.getLogger(name) for name in _PYSPARK_LOGGERS]
    disabled = [logger.disabled for logger in loggers]
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", category=FutureWarning, module="pyspark")
            for logger in loggers:  # pyspark logs every error it raises, stack and all
                logger.disabled = True
            return call()
    except ValueError:
        raise
    except Exception as exc:  # py4j and pyspark raise many classes; all are read errors
        message = _first_line(exc)
        for link, original in staged.items():
            message = message.replace(link, original)
        raise ValueError(f"{path}: Spark could not read it: {message}") from None
    finally:
        for logger, was in zip(loggers, disabled, strict=True):
            logger.disabled = was


_PYSPARK_LOGGERS = ("DataFrameQueryContextLogger", "SQLQueryContextLogger")


# "org.apache.spark.SparkException: " and the like, before the message itself
_JAVA_CLASS = re.compile(r"^(?:Caused by: )?(?:[a-z_$][\w$]*\.)+[\w$]*(?:Exception|Error)"
                         r"(?::\s*|$)")


def _first_line(exc: BaseException) -> str:
    """The first line of an error that says something: not py4j's "An error occurred
    while calling o42.method", not a Java stack frame, without the Java class name."""
    for line in str(exc).splitlines():
        line = line.strip().lstrip(":").strip()
        if not line or line.startswith(("An error occurred while calling", "at ", "...",
                                        "JVM stacktrace", "Exception thrown in awaitResult")):
            continue
        line = _JAVA_CLASS.sub("", line).strip()
        if line:
            return line
    return type(exc).__name__


def _typed_groups(spark, reader: Columns, links, checked, true_col, pred_col, weight=None):
    """Grouped cells of two typed columns, read by the format's Spark reader with the
    schema of those columns alone (Spark cannot even open a Parquet file holding a type it
    lacks, such as float16, in another column); types Spark lacks are read as their stored
    values (``LabelType.spark``)."""
    from pyspark.sql.types import StructField, StructType

    columns = (true_col, pred_col, *([weight[0]] if weight else []))
    schema = StructType([StructField(col, checked.types[col].spark())
                         for col in dict.fromkeys(columns)])
    frame = reader.spark(spark.read.schema(schema), links, checked)
    return _grouped(frame, true_col, pred_col, weight)


def _check_columns(dataframe, name, true_col, pred_col) -> None:
    fields = {f.name: f.dataType.typeName() for f in dataframe.schema.fields}
    for option, col in (("true_col", true_col), ("pred_col", pred_col)):
        find_column(name, [f.name for f in dataframe.schema.fields], col, option)
        if fields[col] in _NOT_LABELS:
            raise ValueError(f"{name} column {col!r} has type {fields[col]}, which cannot "
                             "hold labels")


def _weight_family(type_name: str) -> str | None:
    """How the weights of a Spark column of this type are read (None: refused)."""
    return {"byte": "int", "short": "int", "integer": "int", "long": "int",
            "decimal": "decimal", "float": "float", "double": "float",
            "string": "text"}.get(type_name)


def _check_weight(dataframe, name, col, option) -> None:
    fields = {f.name: f.dataType.typeName() for f in dataframe.schema.fields}
    find_column(name, [f.name for f in dataframe.schema.fields], col, option)
    if _weight_family(fields[col]) is None:
        raise ValueError(f"{name}: column {col!r} ({option}) has type {fields[col]}; "
                         "weights are integers, floats, decimals or numbers written as text")


def _quoted(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def _grouped(dataframe, true_col, pred_col, weight=None, names=None):
    """(t, p, n, WeightCells or None) of the GROUP BY (true_col, pred_col); ``weight``:
    (column, option) of a weight column, summed exactly (:mod:`.weights`); ``names``: the
    (column, option) messages name, when the column was renamed."""
    if weight is None:
        arrow = _to_arrow(dataframe.groupBy(true_col, pred_col).count())
        return (arrow_labels(arrow.column(0)), arrow_labels(arrow.column(1)),
                arrow.column(2).to_numpy(), None)
    from pyspark.sql import functions as F

    fields = {f.name: f.dataType.typeName() for f in dataframe.schema.fields}
    family = _weight_family(fields[weight[0]])
    assert family is not None
    rows = dataframe.select(F.col(_quoted(true_col)).alias("t"),
                            F.col(_quoted(pred_col)).alias("p"),
                            F.col(_quoted(weight[0])).alias("w"))
    row_steps, sums, group_steps = weight_plan(family, "spark")
    for name, expr in row_steps:  # exact digits of each weight
        rows = rows.withColumn(name, F.expr(expr))
    grouped = rows.groupBy("t", "p", "wk", "wx").agg(
        F.count(F.lit(1)).alias("n"), *(F.expr(expr).alias(name) for name, expr in sums))
    for name, expr in group_steps:
        grouped = grouped.withColumn(name, F.expr(expr))
    arrow = _to_arrow(grouped.selectExpr("t", "p", "n", *FETCH))
    cells: WeightCells = weight_cells({c: arrow.column(c) for c in arrow.column_names},
                                      *(names or weight), family)
    return (arrow_labels(arrow.column(0)), arrow_labels(arrow.column(1)),
            arrow.column(2).to_numpy(), cells)


def _to_arrow(grouped: Any):
    if hasattr(grouped, "toArrow"):  # pyspark >= 4.0
        return grouped.toArrow()
    import pyarrow as pa

    session = grouped.sparkSession
    session.conf.set("spark.sql.execution.arrow.pyspark.enabled", "true")
    return pa.Table.from_pandas(grouped.toPandas(), preserve_index=False)
