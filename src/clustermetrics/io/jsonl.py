"""JSON Lines tables: one JSON object per line (https://jsonlines.org), its keys the columns.

Every engine reads a JSON Lines file by one reading, which :func:`jsonl_columns` checks
first with Python's ``json`` module (one pass, memory bounded by a line) before any
engine reads a row, giving each column read one type; DuckDB (``read_json``) and Spark
(``spark.read.json``) are then told those types, and the in-memory reader builds Arrow
batches of the values Python parsed. The reading:

* UTF-8; lines end with LF or CRLF (a carriage return that ends no line is an error).
  A blank line (only spaces and tabs) is no row. Every other line is one JSON object
  (RFC 8259: ``NaN`` and ``Infinity`` are not JSON numbers), each key once in it, no
  ``\\u`` escape naming half of a surrogate pair.
* A label column holds one JSON type: strings (``str``), integers (``int64``: an integer
  beyond -2**63 .. 2**63 - 1 is refused, as no engine reads it exactly as a number),
  numbers with a fraction or an exponent (``float``: then every number of the column is
  a float, and an integer a float cannot hold exactly is refused), or ``true``/``false``
  (``bool``). ``null`` and a key a line lacks are missing labels. A column mixing these
  types, or holding an object or an array, is refused naming the lines.
* A weight column holds numbers (integers or floats, as above) or numbers written as
  strings (the text weights of :mod:`.weights`).
* Each part of a glob names each column read on some line, and no other key of it
  differs from the column's name only in case (DuckDB and Spark take those for one).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator, Mapping
from typing import Any

from ..render.text import find_column
from ._common import PARAMETERS
from .parquet import ColumnTypes, LabelType, pyarrow

__all__ = ["duckdb_json", "jsonl_batches", "jsonl_columns", "jsonl_frame", "spark_json"]

_INT64 = (-2**63, 2**63 - 1)
_FLOAT_EXACT = 2**53  # every integer up to this magnitude is a float exactly
_SURROGATE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_KINDS = {str: "strings", bool: "true/false", int: "numbers", float: "numbers"}
_DUCKDB = {"int64": "BIGINT", "double": "DOUBLE", "string": "VARCHAR", "bool": "BOOLEAN",
           "null": "VARCHAR"}
_DEFAULT_OBJECT = 16_777_216  # DuckDB's maximum_object_size


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        twice = next(k for i, (k, _) in enumerate(pairs) if k in dict(pairs[:i]))
        raise ValueError(f"key {twice!r} appears twice in one object")
    return out


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


# one decoder for every line: json.loads with hooks builds a decoder per call (half the
# time of a short line)
_DECODER = json.JSONDecoder(object_pairs_hook=_unique, parse_constant=_no_constant)


def _objects(path: str) -> Iterator[tuple[int, int, dict[str, Any]]]:
    """(line number, bytes, object) of each row of the file, every line checked."""
    try:
        with open(path, "rb") as fh:
            for number, raw in enumerate(fh, 1):
                yield from _object(path, number, raw)
    except OSError as exc:
        raise ValueError(f"{path} cannot be read: {exc}") from None


def _object(path: str, number: int, raw: bytes) -> Iterator[tuple[int, int, dict[str, Any]]]:
    line = raw[:-1] if raw.endswith(b"\n") else raw
    line = line[:-1] if line.endswith(b"\r") else line
    if b"\r" in line:
        raise ValueError(f"{path} line {number}: a carriage return that does not end a line "
                         "(lines must end with LF or CRLF)")
    if not line.strip(b" \t"):
        return
    try:
        text = line.decode("utf-8")
        value = _DECODER.decode(text)
    except UnicodeDecodeError:
        raise ValueError(f"{path} line {number} is not UTF-8 text (is it a binary "
                         "file?)") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path} line {number} is not JSON: {exc.msg} (character "
                         f"{exc.colno})") from None
    except ValueError as exc:
        raise ValueError(f"{path} line {number}: {exc}") from None
    except RecursionError:
        raise ValueError(f"{path} line {number} nests JSON too deeply") from None
    if not isinstance(value, dict):
        raise ValueError(f"{path} line {number} holds a JSON {type(value).__name__}, not an "
                         "object: a JSON Lines table holds one object per line")
    if _SURROGATE.search(text):
        try:
            json.dumps(value, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError(f"{path} line {number}: a \\u escape names half of a "
                             "surrogate pair, which is no character") from None
    yield number, len(raw), value


class _Column:
    """What the check saw of one column read: its one JSON type, where that was first
    seen, whether a number had a fraction, and the first integer a float cannot hold."""

    def __init__(self, name: str, option: str):
        self.name, self.option = name, option
        self.kind: str | None = None
        self.first: tuple[str, int] = ("", 0)
        self.fraction: tuple[str, int] | None = None
        self.inexact: tuple[str, int, int] | None = None
        self.known: type | None = None  # a type of value whose sight changes nothing

    def seen(self, value: Any) -> bool:
        """Whether ``value`` tells nothing new (the check's fast path)."""
        kind = type(value)
        if kind is int:
            return self.kind == "numbers" and -_FLOAT_EXACT <= value <= _FLOAT_EXACT
        if kind is float:
            return self.fraction is not None and value - value == 0  # finite
        return kind is self.known

    def see(self, value: Any, path: str, number: int, source: str) -> None:
        kind = _KINDS.get(type(value))
        if kind is None:
            what = "an object" if isinstance(value, dict) else "an array"
            raise ValueError(f"{path} line {number}: column {self.name!r} holds {what}, which "
                             "cannot hold labels")
        if self.kind is None:
            self.kind, self.first = kind, (path, number)
            self.known = type(value) if type(value) in (str, bool) else None
        elif kind != self.kind:
            raise ValueError(f"{source}: column {self.name!r} holds {self.kind} "
                             f"({self.first[0]} line {self.first[1]}) and {kind} ({path} line "
                             f"{number}); a column holds one JSON type (write every value "
                             "as a string to read them as text)")
        if type(value) is float:
            if math.isinf(value):
                raise ValueError(f"{path} line {number}: column {self.name!r} holds a number "
                                 "beyond the floats (an infinite value)")
            self.fraction = self.fraction or (path, number)
        elif type(value) is int:
            if not _INT64[0] <= value <= _INT64[1]:
                raise ValueError(f"{path} line {number}: column {self.name!r} holds the "
                                 f"integer {value}, beyond the 64-bit integers every engine "
                                 "reads exactly; write it as a string")
            if self.inexact is None and abs(value) > _FLOAT_EXACT and float(value) != value:
                self.inexact = (path, number, value)

    def label_type(self) -> LabelType:
        if self.fraction is not None and self.inexact is not None:
            path, number, value = self.inexact
            raise ValueError(f"{path} line {number}: column {self.name!r} holds the integer "
                             f"{value} among numbers with a fraction ({self.fraction[0]} line "
                             f"{self.fraction[1]}), and a float cannot hold it exactly; "
                             "write the column's numbers as strings")
        pa = pyarrow()
        return LabelType({None: pa.null(), "strings": pa.string(), "true/false": pa.bool_(),
                          "numbers": pa.float64() if self.fraction else pa.int64()}[self.kind])

    def weight_family(self, source: str) -> str:
        if self.kind not in ("numbers", "strings"):
            what = "only null" if self.kind is None else "true/false"
            raise ValueError(f"{source}: column {self.name!r} ({self.option}) holds {what}; "
                             "weights are integers, floats or numbers written as text")
        return "text" if self.kind == "strings" else \
            "float" if self.fraction else "int"


def jsonl_columns(files: list[str], true_col: str, pred_col: str, weight_col: str | None,
                  name: str, names: Mapping[str, str] | None = None) -> ColumnTypes:
    """The check of JSON Lines files (the module's reading): the one type of each column
    read, every part holding every column; errors name the part, the line and the
    column."""
    spell = {**PARAMETERS, **(names or {})}
    wanted = {true_col: spell["true_col"], pred_col: spell["pred_col"]}
    if weight_col is not None:
        wanted[weight_col] = spell["weight_col"]
    for col, option in wanted.items():
        if not isinstance(col, str) or not col:
            raise ValueError(f"{option} must be a column name, got {col!r}")
    columns = {col: _Column(col, option) for col, option in wanted.items()}
    longest = 0
    items = list(columns.items())
    for path in files:
        keys: dict[str, None] = {}
        shapes: set[tuple[str, ...]] = set()  # the keys of each line, as met
        rows = 0
        for number, size, row in _objects(path):
            rows += 1
            longest = max(longest, size)
            shape = tuple(row)
            if shape not in shapes:
                shapes.add(shape)
                keys.update(dict.fromkeys(shape))
            for col, column in items:
                value = row.get(col)
                if value is not None and not column.seen(value):
                    column.see(value, path, number, name)
        if not rows:
            raise ValueError(f"{path} has no rows: a JSON Lines table holds one object per "
                             "line")
        _check_keys(path, list(keys), wanted)
    types = {col: column.label_type() for col, column in columns.items()}
    family = None if weight_col is None else columns[weight_col].weight_family(name)
    return ColumnTypes(types, family, longest)


def _check_keys(path: str, keys: list[str], wanted: Mapping[str, str]) -> None:
    for col, option in wanted.items():
        find_column(path, keys, col, option)
        twins = [k for k in keys if k != col and k.lower() == col.lower()]
        if twins:
            raise ValueError(f"{path} has columns {col!r} and {twins[0]!r} ({option}), names "
                             "that differ only in case, which DuckDB and Spark take for one; "
                             "rename one of them")


def jsonl_batches(path: str, columns: list[str], checked: ColumnTypes,
                  batch_rows: int) -> Iterator[Any]:
    """Record batches of ``columns`` of one JSON Lines file: the values Python parsed, as
    the checked types (a float column's integers as floats, exactly)."""
    pa = pyarrow()
    kinds = [checked.types[col].arrow for col in columns]
    values: list[list[Any]] = [[] for _ in columns]

    def batch():
        arrays = [pa.array([None if v is None else float(v) for v in vs], kind)
                  if pa.types.is_floating(kind) else pa.array(vs, kind)
                  for vs, kind in zip(values, kinds, strict=True)]
        return pa.record_batch(arrays, names=columns)

    for _, _, row in _objects(path):
        for col, out in zip(columns, values, strict=True):
            out.append(row.get(col))
        if len(values[0]) == batch_rows:
            yield batch()
            values = [[] for _ in columns]
    if values[0]:
        yield batch()


def jsonl_frame(path: str, sep: str | None = None) -> tuple[list[str], list[list]]:
    """The keys (in the order they first appear) and the values of each key of a JSON
    Lines file, as Python parsed them (a line without a key: None)."""
    rows = [row for _, _, row in _objects(path)]
    keys = list(dict.fromkeys(key for row in rows for key in row))
    return keys, [[row.get(key) for row in rows] for key in keys]


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def duckdb_json(con: Any, links: list[str], checked: ColumnTypes) -> Any:
    """DuckDB's relation of JSON Lines parts: ``read_json`` told the type of each column
    read (nothing is detected), the others' keys ignored."""
    columns = ", ".join(f"{_literal(col)}: '{_DUCKDB[str(kind.arrow)]}'"
                        for col, kind in checked.types.items())
    size = f", maximum_object_size = {checked.longest + 1}" \
        if checked.longest >= _DEFAULT_OBJECT else ""
    files = ", ".join(_literal(link) for link in links)
    return con.sql(f"SELECT * FROM read_json([{files}], format = 'newline_delimited', "
                   f"records = true, columns = {{{columns}}}, auto_detect = false, "
                   f"ignore_errors = false, compression = 'none'{size})")


def spark_json(reader: Any, links: list[str], checked: ColumnTypes) -> Any:
    """Spark's frame of JSON Lines parts (``reader``: ``spark.read`` told the schema):
    lines split at LF only, as the check splits them, and any read error an error."""
    return (reader.option("mode", "FAILFAST").option("lineSep", "\n")
            .option("encoding", "UTF-8").option("allowNonNumericNumbers", False)
            .json(links))
