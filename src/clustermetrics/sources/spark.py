"""Tables from Spark DataFrames and files: groupBy/count runs in Spark, only the cells come
back.

The non-zero cells (usually far fewer than the rows) are fetched through Arrow.
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping
from typing import Any

import numpy as np

from .._text import no_such_column
from ..table import Contingency
from ._common import TextPart, stage, table_from_groups, text_parts
from .files import PARAMETERS, expand_paths, is_parquet

__all__ = ["from_spark", "from_spark_files"]

_NOT_LABELS = ("array", "map", "struct", "binary")


def from_spark(dataframe: Any, true_col: str, pred_col: str, *, drop_null: bool = False,
               stats: dict | None = None) -> Contingency:
    """The table of two columns of a ``pyspark.sql.DataFrame``.

    ``groupBy(true_col, pred_col).count()`` runs in Spark; the result comes back through
    Arrow, label values exact (integers of every width, decimals as ``decimal.Decimal``).
    NULL and NaN labels are an error naming the column and the count unless ``drop_null``
    (infinite labels always are);
    ``stats`` (a dict) receives ``rows`` and ``skipped``. Needs the ``spark`` extra.
    """
    if not (hasattr(dataframe, "groupBy") and hasattr(dataframe, "schema")):
        raise ValueError(f"dataframe must be a pyspark.sql.DataFrame, got "
                         f"{type(dataframe).__name__}")
    _check_columns(dataframe, "DataFrame", true_col, pred_col)
    t, p, n = _grouped(dataframe, true_col, pred_col)
    return table_from_groups(t, p, n, "DataFrame", true_col, pred_col, drop_null, stats)


def from_spark_files(path: str, true_col: str, pred_col: str, *, sep: str | None = None,
                     drop_null: bool = False, stats: dict | None = None, spark: Any = None,
                     names: Mapping[str, str] | None = None) -> Contingency:
    """The table of two columns of a Parquet/CSV/TSV file or glob, counted by Spark.

    Files are read as :func:`~clustermetrics.sources.from_duckdb` reads them (a path that
    exists is itself; parts of a glob combine by column name; text by the rules of
    the user guide's "How files are read"). ``spark``: the SparkSession to use (default: a local
    one, started and stopped here). ``names`` respells the parameters in messages.

    Spark cannot be told every rule for files with CRLF line ends: it reads a CRLF inside a
    quoted label as LF, and takes a line break inside a quoted column name for the line
    end; such files are an error here (DuckDB and the in-memory reader read them).
    Parquet nanosecond timestamps are refused by Spark itself (its timestamps are in
    microseconds).
    """
    files = expand_paths(path)
    # the files are checked before Spark starts: a bad file fails in a moment
    parquet = is_parquet(files[0])
    if parquet:
        _check_parquet_parts(files, true_col, pred_col, str(path), names)
    else:
        parts = text_parts(files, sep, true_col, pred_col, drop_null, names)
        for part in parts:
            _check_spark_can_read(part.layout)
    own = spark is None
    if own:
        spark = _local_session()
    try:
        with tempfile.TemporaryDirectory(prefix="clustermetrics-") as work:
            staged = stage(files, work)
            if not parquet:
                return _text_table(spark, path, staged, parts, true_col, pred_col, drop_null,
                                   stats)
            frame = _spark_call(path, staged, lambda: spark.read.parquet(*staged))
            _check_columns(frame, str(path), true_col, pred_col)
            t, p, n = _spark_call(path, staged, lambda: _grouped(frame, true_col, pred_col))
            return table_from_groups(t, p, n, str(path), true_col, pred_col, drop_null, stats)
    finally:
        if own:
            spark.stop()


def _local_session():
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        raise ImportError("reading files with Spark needs the spark extra: pip install "
                          "'clustermetrics[spark]'") from None
    return (SparkSession.builder.master("local[2]").appName("clustermetrics")
            .config("spark.ui.enabled", "false")
            .config("spark.sql.shuffle.partitions", "8").getOrCreate())


def _text_table(spark, path, staged, parts: list[TextPart], true_col, pred_col, drop_null,
                stats) -> Contingency:
    """Checked text parts read with Spark's CSV reader told every choice of the rules."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import StringType, StructField, StructType

    groups: dict[tuple, list[str]] = {}
    for link, part in zip(staged, parts, strict=True):
        key = (part.layout.ncols, part.t, part.p, part.layout.sep, part.layout.crlf)
        groups.setdefault(key, []).append(link)

    def read():
        frames = []
        for (ncols, ti, pi, sep, crlf), links in groups.items():
            schema = StructType([StructField(f"c{i}", StringType()) for i in range(ncols)])
            reader = spark.read if crlf else spark.read.option("lineSep", "\n")
            frame = (reader.schema(schema).option("header", True).option("sep", sep)
                     .option("quote", '"').option("escape", '"').option("multiLine", True)
                     .option("mode", "FAILFAST").option("encoding", "UTF-8")
                     .option("ignoreLeadingWhiteSpace", False)
                     .option("ignoreTrailingWhiteSpace", False)
                     .option("enforceSchema", True).csv(links))
            frames.append(frame.select(F.col(f"c{ti}").alias("t"), F.col(f"c{pi}").alias("p")))
        union = frames[0]
        for frame in frames[1:]:
            union = union.unionAll(frame)
        return _grouped(union, "t", "p")

    t, p, n = _spark_call(path, staged, read)
    # Spark skips every blank line: those among the rows are rows of missing labels
    return table_from_groups(t, p, n, str(path), true_col, pred_col, drop_null, stats,
                             text=True, blank_rows=sum(part.layout.blank for part in parts),
                             expected_rows=sum(part.layout.rows for part in parts))


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
    name the user's files."""
    try:
        return call()
    except ValueError:
        raise
    except Exception as exc:  # py4j and pyspark raise many classes; all are read errors
        lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
        message = lines[0] if lines else type(exc).__name__
        for link, original in staged.items():
            message = message.replace(link, original)
        raise ValueError(f"{path}: Spark could not read it: {message}") from None


def _check_parquet_parts(files, true_col, pred_col, name, names) -> None:
    """Every Parquet part holds both columns, with one type across parts (Spark would read
    a part lacking a column as NULLs)."""
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise ImportError("reading files with Spark needs the spark extra: pip install "
                          "'clustermetrics[spark]'") from None
    spell = {**PARAMETERS, **(names or {})}
    first: dict[str, tuple] = {}
    for path in files:
        try:
            schema = pq.read_schema(path)
        except Exception as exc:  # pyarrow's errors: not a Parquet file, unreadable...
            raise ValueError(f"{path}: cannot read as Parquet: "
                             f"{str(exc).splitlines()[0]}") from None
        for option, col in ((spell["true_col"], true_col), (spell["pred_col"], pred_col)):
            if col not in schema.names:
                raise no_such_column(path, col, option, schema.names)
            kind = schema.field(col).type
            seen = first.setdefault(col, (kind, path))
            if seen[0] != kind:
                raise ValueError(f"{name}: column {col!r} is {seen[0]} in {seen[1]} but "
                                 f"{kind} in {path}")


def _check_columns(dataframe, name, true_col, pred_col) -> None:
    fields = {f.name: f.dataType.typeName() for f in dataframe.schema.fields}
    for option, col in (("true_col", true_col), ("pred_col", pred_col)):
        if col not in fields:
            raise no_such_column(name, col, option, fields)
        if fields[col] in _NOT_LABELS:
            raise ValueError(f"{name} column {col!r} has type {fields[col]}, which cannot "
                             "hold labels")


def _grouped(dataframe, true_col, pred_col):
    arrow = _to_arrow(dataframe.groupBy(true_col, pred_col).count())
    return _masked(arrow.column(0)), _masked(arrow.column(1)), arrow.column(2).to_numpy()


def _to_arrow(grouped: Any):
    if hasattr(grouped, "toArrow"):  # pyspark >= 4.0
        return grouped.toArrow()
    import pyarrow as pa

    session = grouped.sparkSession
    session.conf.set("spark.sql.execution.arrow.pyspark.enabled", "true")
    return pa.Table.from_pandas(grouped.toPandas(), preserve_index=False)


def _masked(column) -> np.ma.MaskedArray:
    """Arrow column -> masked numpy array (mask = NULL), values kept exactly."""
    column = column.combine_chunks() if hasattr(column, "combine_chunks") else column
    mask = column.is_null().to_numpy(zero_copy_only=False)
    present = column.drop_null()
    if mask.any() and len(present):
        # an int column with nulls would convert to float (2**53 + 1 lost): fill them first
        column = column.fill_null(present[0])
    return np.ma.masked_array(column.to_numpy(zero_copy_only=False), mask=mask)
