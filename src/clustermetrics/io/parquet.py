"""Typed label columns: one set of label types and one exact value per type, whatever
engine reads the file; Parquet's check and reader, and the in-memory reader of every
format of typed columns (:func:`typed_table`).

The type of a Parquet column is the Arrow type pyarrow reads from the file (the Parquet
schema and the Arrow schema stored beside it); another format of typed columns gives its
columns Arrow types by its own check. Every engine checks the label columns against
:func:`label_types` before it reads a row, so a type that some engine cannot read exactly
is refused by all of them with the same message, and :meth:`LabelType.exact` turns what
each engine returns into the one value of the type:

============================  ===============================================
Arrow type                    label
============================  ===============================================
int8 ... int64, uint8 ...     the integer, exact at every width (numpy int64/uint64)
float16, float32, float64     the float (``-0.0`` is the label ``0.0``; NaN is missing)
decimal, up to 38 digits      ``decimal.Decimal``
bool                          bool
string, large_string, dict    str (a dictionary column: its values)
binary, fixed_size_binary     bytes
date32, date64                ``numpy.datetime64`` in days
timestamp (s ... ns, any tz)  ``numpy.datetime64`` in UTC, nanoseconds kept
time32, time64 (s ... us)     ``datetime.time``
duration                      ``numpy.timedelta64`` in the column's unit
null                          missing
============================  ===============================================

Refused: decimals wider than 38 digits (DuckDB reads them as floats, Spark not at all),
nanosecond times of day (``datetime.time`` holds microseconds; DuckDB and pyarrow would
drop the nanoseconds), nested and other types.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..render.text import find_column
from ..table import Contingency
from ..table.exact_sums import Subject
from ..table.weight_values import PROBLEMS, Weights
from ._common import PARAMETERS, check_nulls, labels
from .chunks import ContingencyBuilder
from .weights import check_problems, column_weights

__all__ = ["ColumnTypes", "LabelType", "arrow_labels", "duckdb_parquet", "from_parquet",
           "label_types", "parquet_batches", "parquet_columns", "parquet_frame", "pyarrow",
           "spark_parquet", "typed_table", "weight_type"]

_DECIMAL_DIGITS = 38  # the widest DECIMAL DuckDB and Spark hold


def pyarrow():
    """pyarrow, which reads the types of Parquet columns for every engine."""
    try:
        import pyarrow
        import pyarrow.parquet  # noqa: F401
    except ImportError:
        raise ImportError("reading Parquet files needs pyarrow: pip install "
                          "'clustermetrics[parquet]'") from None
    return pyarrow


@dataclass(frozen=True)
class LabelType:
    """The checked type of one Parquet label column."""

    arrow: Any  # the pyarrow DataType (a dictionary column: its value type)
    unit: str | None = None  # the unit a time or duration is stored in (Parquet's)

    def spark(self):
        """The Spark type to read the column as: its own, or its stored (physical) values
        where Spark has no type for it (float16, times, nanosecond timestamps)."""
        from pyspark.sql import types as T

        pa, kind = pyarrow(), self.arrow
        if pa.types.is_integer(kind):
            width = kind.bit_width
            if pa.types.is_unsigned_integer(kind):  # Spark widens unsigned integers
                return {8: T.ShortType(), 16: T.IntegerType(), 32: T.LongType()}.get(
                    width, T.DecimalType(20, 0))
            return {8: T.ByteType(), 16: T.ShortType(), 32: T.IntegerType()}.get(
                width, T.LongType())
        if pa.types.is_float16(kind) or _is_binary(kind):
            return T.BinaryType()
        if pa.types.is_float32(kind):
            return T.FloatType()
        if pa.types.is_float64(kind):
            return T.DoubleType()
        if pa.types.is_decimal(kind):
            return T.DecimalType(kind.precision, kind.scale)
        if pa.types.is_boolean(kind):
            return T.BooleanType()
        if _is_string(kind):
            return T.StringType()
        if pa.types.is_date(kind):
            return T.DateType()
        if pa.types.is_timestamp(kind) and kind.unit != "ns":
            return T.TimestampType() if kind.tz else T.TimestampNTZType()
        if pa.types.is_time32(kind):
            return T.IntegerType()
        if pa.types.is_null(kind):
            return T.NullType()
        return T.LongType()  # nanosecond timestamps, time64, durations: the stored int64

    def exact(self, values: np.ndarray) -> np.ndarray:
        """An engine's (masked) array of this column's grouped values, as the labels of
        the table above; DuckDB's and Spark's own representations are turned back."""
        pa, kind = pyarrow(), self.arrow
        mask = np.ma.getmaskarray(values)
        data = np.ma.getdata(values)
        if pa.types.is_float16(kind) and data.dtype.kind == "O":  # Spark: the two bytes
            raw = b"".join(b"\0\0" if m else bytes(v) for v, m in
                           zip(data.tolist(), mask.tolist(), strict=True))
            data = np.frombuffer(raw, dtype="<f2").copy()
        elif pa.types.is_unsigned_integer(kind) and data.dtype.kind in "Oif":
            data = _ints(data, mask, np.uint64)  # Spark: DECIMAL(20, 0) or a wider int
        elif _is_binary(kind):
            data = _objects(data, mask, bytes)  # DuckDB: bytearray
        elif pa.types.is_timestamp(kind) and data.dtype.kind in "iu":
            data = data.astype(np.int64).view("M8[ns]")  # Spark: nanoseconds as int64
        elif pa.types.is_timestamp(kind) and data.dtype.kind == "M" and kind.unit == "ns":
            data = data.astype("M8[ns]")
        elif (pa.types.is_time32(kind) or pa.types.is_time64(kind)) and data.dtype.kind in "iu":
            micro = {"s": 10**6, "ms": 1000, "us": 1}[self.unit or kind.unit]
            data = _objects(data, mask, lambda v: _time_of_day(int(v) * micro))
        elif pa.types.is_duration(kind):
            unit = self.unit or kind.unit
            data = data.astype(np.int64).view(f"m8[{unit}]") if data.dtype.kind in "iu" \
                else data.astype(f"m8[{unit}]")
        return np.ma.masked_array(data, mask=mask)


def _is_binary(kind) -> bool:
    pa = pyarrow()
    return (pa.types.is_binary(kind) or pa.types.is_large_binary(kind)
            or pa.types.is_fixed_size_binary(kind)
            or getattr(pa.types, "is_binary_view", lambda k: False)(kind))


def _is_string(kind) -> bool:
    pa = pyarrow()
    return (pa.types.is_string(kind) or pa.types.is_large_string(kind)
            or getattr(pa.types, "is_string_view", lambda k: False)(kind))


def _ints(data, mask, dtype):
    out = np.zeros(data.shape[0], dtype=dtype)
    keep = ~mask
    out[keep] = [int(v) for v in data[keep].tolist()]
    return out


def _objects(data, mask, make):
    out = np.empty(data.shape[0], dtype=object)
    out[:] = [None if m else make(v) for v, m in zip(data.tolist(), mask.tolist(), strict=True)]
    return out


def _time_of_day(micro: int) -> datetime.time:
    return (datetime.datetime.min + datetime.timedelta(microseconds=micro)).time()


def _refusal(kind) -> str | None:
    """Why a column of Arrow type ``kind`` cannot hold labels read exactly, or None."""
    pa = pyarrow()
    if pa.types.is_decimal(kind) and kind.precision > _DECIMAL_DIGITS:
        return (f"wider than the {_DECIMAL_DIGITS} digits DuckDB and Spark hold exactly "
                "(DuckDB would read it as a float); store it as a string or as a decimal "
                f"of at most {_DECIMAL_DIGITS} digits")
    if pa.types.is_time64(kind) and kind.unit == "ns":
        return ("a time of day in nanoseconds, which no engine keeps exactly "
                "(datetime.time holds microseconds); store it as int64 nanoseconds")
    if (pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_decimal(kind)
            or pa.types.is_boolean(kind) or _is_string(kind) or _is_binary(kind)
            or pa.types.is_date(kind) or pa.types.is_timestamp(kind)
            or pa.types.is_time(kind) or pa.types.is_duration(kind)
            or pa.types.is_null(kind)):
        return None
    return "which cannot hold labels"


def _stored_unit(parquet_schema, arrow_schema, col: str) -> str | None:
    """The unit the Parquet file stores a time in (pyarrow may show another)."""
    pa = pyarrow()
    kind = arrow_schema.field(col).type
    if not (pa.types.is_time(kind)):
        return None
    index = arrow_schema.get_field_index(col)
    logical = str(parquet_schema.column(index).logical_type).lower()
    for unit, word in (("ms", "milli"), ("us", "micro"), ("ns", "nano")):
        if word in logical:
            return unit
    return kind.unit


def label_types(files: list[str], true_col: str, pred_col: str, name: str,
                names: Mapping[str, str] | None = None) -> dict[str, LabelType]:
    """{column: LabelType} of the two label columns of the Parquet ``files``: each part
    names each column exactly once, with one type across parts, and a type that holds
    labels exactly (see the module's table). Errors name the part and the column."""
    pa = pyarrow()
    spell = {**PARAMETERS, **(names or {})}
    first: dict[str, tuple] = {}
    for path in files:
        try:
            parquet = pa.parquet.ParquetFile(path)
            schema = parquet.schema_arrow
        except Exception as exc:  # pyarrow's errors: not a Parquet file, unreadable...
            raise ValueError(f"{path} cannot be read as Parquet: "
                             f"{str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"
                             ) from None
        for option, col in ((spell["true_col"], true_col), (spell["pred_col"], pred_col)):
            if not isinstance(col, str) or not col:
                raise ValueError(f"{option} must be a column name, got {col!r}")
            find_column(path, schema.names, col, option)
            twins = [n for n in schema.names if n != col and n.lower() == col.lower()]
            if twins:
                raise ValueError(f"{path} has columns {col!r} and {twins[0]!r} ({option}), "
                                 "names that differ only in case, which DuckDB and Spark "
                                 "take for one; rename one of them")
            kind = schema.field(col).type
            value = kind.value_type if pa.types.is_dictionary(kind) else kind
            why = _refusal(value)
            if why:
                raise ValueError(f"{path}: column {col!r} has type {kind}, {why}")
            seen = first.setdefault(col, (_plain(value), path,
                                          _stored_unit(parquet.schema, schema, col), kind))
            if seen[0] != _plain(value):
                raise ValueError(f"{name}: column {col!r} is {seen[3]} in {seen[1]} but "
                                 f"{kind} in {path}")
    return {col: LabelType(kind, unit) for col, (kind, _, unit, _) in first.items()}


def weight_type(files: list[str], weight_col: str, name: str,
                names: Mapping[str, str] | None = None) -> tuple[LabelType, str]:
    """(type, family) of the weight column of the Parquet ``files``: each part names it
    once, with one type across parts: integers, floats (32 or 64 bits), decimals of at
    most 38 digits, or strings (read as text: see :mod:`.weights`). ``family``: "int",
    "uint", "float", "decimal" or "text"."""
    pa = pyarrow()
    option = {**PARAMETERS, **(names or {})}["weight_col"]
    if not isinstance(weight_col, str) or not weight_col:
        raise ValueError(f"{option} must be a column name, got {weight_col!r}")
    first = None
    for path in files:
        try:
            schema = pa.parquet.ParquetFile(path).schema_arrow
        except Exception as exc:
            raise ValueError(f"{path} cannot be read as Parquet: "
                             f"{str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"
                             ) from None
        find_column(path, schema.names, weight_col, option)
        kind = schema.field(weight_col).type
        value = kind.value_type if pa.types.is_dictionary(kind) else kind
        family = ("uint" if pa.types.is_unsigned_integer(value) else "int"
                  if pa.types.is_integer(value) else "float"
                  if pa.types.is_floating(value) else "decimal"
                  if pa.types.is_decimal(value) and value.precision <= _DECIMAL_DIGITS
                  else "text" if _is_string(value) else None)
        if family is None:
            raise ValueError(f"{path}: column {weight_col!r} ({option}) has type {kind}; "
                             "weights are integers, floats, decimals of at "
                             f"most {_DECIMAL_DIGITS} digits or numbers written as text")
        if first is None:
            first = (_plain(value), path, kind, family)
        elif first[0] != _plain(value):
            raise ValueError(f"{name}: column {weight_col!r} is {first[2]} in {first[1]} but "
                             f"{kind} in {path}")
    assert first is not None
    return LabelType(first[0]), first[3]


def _plain(kind):
    """The type of the labels a column holds: a dictionary's values, strings and bytes
    whatever their offsets (parts of a glob may store them either way)."""
    pa = pyarrow()
    if _is_string(kind):
        return pa.string()
    if pa.types.is_binary(kind) or pa.types.is_large_binary(kind) or \
            getattr(pa.types, "is_binary_view", lambda k: False)(kind):
        return pa.binary()
    return kind


def arrow_labels(column) -> np.ma.MaskedArray:
    """An Arrow column as a masked numpy array (mask = NULL), every value exact: integer
    columns with NULLs stay integers, strings are Python objects (never fixed-width)."""
    pa = pyarrow()
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    if pa.types.is_dictionary(column.type):
        column = column.dictionary_decode()
    mask = column.is_null().to_numpy(zero_copy_only=False)
    if pa.types.is_null(column.type):
        return np.ma.masked_array(np.full(len(column), None, dtype=object), mask=mask)
    present = column.drop_null()
    if mask.any() and len(present):
        # an int column with nulls would convert to float (2**53 + 1 lost): fill them first
        column = column.fill_null(present[0])
    return np.ma.masked_array(column.to_numpy(zero_copy_only=False), mask=mask)


@dataclass(frozen=True)
class ColumnTypes:
    """What the check of a format of typed columns found, before any engine reads a row:
    the :class:`LabelType` of each label column and of the weight column, and how the
    weights are read (``weight``: "int", "uint", "float", "decimal" or "text"; None
    without weights). ``longest``: bytes of the longest record, where a reader has a
    limit (0: none)."""

    types: dict[str, LabelType]
    weight: str | None = None
    longest: int = 0


def parquet_columns(files: list[str], true_col: str, pred_col: str, weight_col: str | None,
                    name: str, names: Mapping[str, str] | None = None) -> ColumnTypes:
    """The check of Parquet files: :func:`label_types`, and :func:`weight_type`."""
    types = label_types(files, true_col, pred_col, name, names)
    if weight_col is None:
        return ColumnTypes(types)
    types[weight_col], family = weight_type(files, weight_col, name, names)
    return ColumnTypes(types, family)


def parquet_batches(path: str, columns: list[str], checked: ColumnTypes, batch_rows: int):
    """The record batches of ``columns`` of one Parquet file, read by pyarrow."""
    pa = pyarrow()
    try:
        yield from pa.parquet.ParquetFile(path).iter_batches(batch_size=batch_rows,
                                                             columns=columns)
    except (OSError, pa.ArrowException) as exc:
        raise ValueError(f"{path} cannot be read as Parquet: "
                         f"{str(exc).splitlines()[0]}") from None


def duckdb_parquet(con: Any, links: list[str], checked: ColumnTypes) -> Any:
    """The DuckDB relation of Parquet parts (combined by column name)."""
    return con.read_parquet(links, union_by_name=len(links) > 1)


def spark_parquet(reader: Any, links: list[str], checked: ColumnTypes) -> Any:
    """Spark's frame of Parquet parts (``reader``: ``spark.read``, told the schema)."""
    return reader.parquet(*links)


def parquet_frame(path: str, sep: str | None = None) -> tuple[list[str], list[list]]:
    """The column names and the values of each column of a Parquet file (names may
    repeat), read by pyarrow, else by DuckDB."""
    try:
        import pyarrow.parquet as pq
    except ImportError:
        pq = None
    if pq is not None:
        table = pq.ParquetFile(path).read()  # read_table refuses a repeated name
        return list(table.column_names), [c.to_pylist() for c in table.columns]
    try:
        import duckdb
    except ImportError as exc:
        raise ImportError("reading Parquet needs pyarrow or duckdb: "
                          "pip install 'clustermetrics[duckdb]'") from exc
    rel = duckdb.connect().read_parquet(path)
    rows = rel.fetchall()
    return list(rel.columns), [[r[i] for r in rows] for i in range(len(rel.columns))]


def from_parquet(source: str | list[str], true_col: str, pred_col: str, *,
                 drop_null: bool = False, stats: dict | None = None,
                 names: Mapping[str, str] | None = None, batch_rows: int = 1 << 20,
                 weight_col: str | None = None) -> Contingency:
    """The table of two columns of a Parquet file (or of the files of ``source``, a list of
    parts), read in memory by pyarrow one record batch at a time (memory follows the
    table, not the file); :func:`typed_table` reads the batches."""
    files = [source] if isinstance(source, str) else list(source)
    name = str(source) if isinstance(source, str) else ", ".join(files)
    checked = parquet_columns(files, true_col, pred_col, weight_col, name, names)
    return typed_table(files, checked, parquet_batches, true_col, pred_col, name,
                       drop_null=drop_null, stats=stats, names=names, batch_rows=batch_rows,
                       weight_col=weight_col)


def typed_table(files: list[str], checked: ColumnTypes, batches: Any, true_col: str,
                pred_col: str, name: str, *, drop_null: bool = False,
                stats: dict | None = None, names: Mapping[str, str] | None = None,
                batch_rows: int = 1 << 20, weight_col: str | None = None) -> Contingency:
    """The table of two typed columns of ``files``, read in memory one record batch at a
    time from ``batches(path, columns, checked, batch_rows)`` (the format's reader).

    Labels and missing labels are those of every other engine (see the module's table):
    NULL and NaN are missing, an error naming the column and the count unless
    ``drop_null``; infinite labels are an error. ``weight_col``: a column of weights
    (:mod:`.weights`); each batch's cells keep their exact sums, which the table sums
    across batches and decides on once.
    """
    types, family = checked.types, checked.weight
    option = {**PARAMETERS, **(names or {})}["weight_col"]
    builder = ContingencyBuilder()
    cells = _WeightedCells()
    rows = t_null = p_null = skipped = 0
    problems = np.zeros(len(PROBLEMS) + 2, dtype=np.int64)
    columns = list(dict.fromkeys((true_col, pred_col, *([weight_col] if weight_col else []))))
    for path in files:
        for batch in batches(path, columns, checked, batch_rows):
            t, t_missing = labels(types[true_col].exact(arrow_labels(
                batch.column(columns.index(true_col)))), name, true_col, False)
            p, p_missing = labels(types[pred_col].exact(arrow_labels(
                batch.column(columns.index(pred_col)))), name, pred_col, False)
            bad = t_missing | p_missing
            rows += batch.num_rows
            t_null += int(t_missing.sum())
            p_null += int(p_missing.sum())
            skipped += int(bad.sum())
            if bad.any():
                t, p = t[~bad], p[~bad]
            if family is not None:
                w = arrow_labels(batch.column(columns.index(weight_col)))[~bad]
                kinds, values = column_weights(w, family)
                problems += np.bincount(kinds, minlength=problems.shape[0])
                if not problems[list(PROBLEMS)].any():  # else refused below
                    cells.update(t, p, Weights.of(values, family == "float"))
            elif t.shape[0]:
                builder.update(t, p)
    check_nulls(name, true_col, pred_col, t_null, p_null, skipped, rows, drop_null, stats)
    if family is None:
        return builder.result()
    subject = Subject.column(name, str(weight_col), option)
    check_problems({k: int(problems[k]) for k in PROBLEMS}, subject)
    return cells.table(subject)


class _WeightedCells:
    """The weighted cells of a stream of batches: each batch's cells with their exact
    sums, merged every ``merge_every`` batches (memory follows the table)."""

    def __init__(self, merge_every: int = 32):
        self._parts: list[tuple[np.ndarray, np.ndarray, Weights]] = []
        self._merge_every = merge_every

    def update(self, t: np.ndarray, p: np.ndarray, weights: Weights) -> None:
        if t.shape[0]:
            self._parts.append(Contingency.weighted_cells(t, p, weights))
        if len(self._parts) >= self._merge_every:
            self._parts = [self._merged()]

    def _merged(self) -> tuple[np.ndarray, np.ndarray, Weights]:
        if len(self._parts) == 1:
            return self._parts[0]
        t = np.concatenate([part[0] for part in self._parts])
        p = np.concatenate([part[1] for part in self._parts])
        return Contingency.weighted_cells(t, p, Weights.concat([part[2]
                                                                for part in self._parts]))

    def table(self, subject: Subject) -> Contingency:
        if not self._parts:
            raise ValueError(subject.zero)
        t, p, weights = self._merged()
        return Contingency.from_weighted_labels(t, p, weights, subject)
