"""The file formats a table is read from, each declared once with how every engine reads it.

A :class:`FileFormat` says what a format is called in messages, the suffixes that
recognise it, the name a file of it keeps when an engine reads it through a link, what
the in-memory reader needs installed, whether engine ``auto`` counts it in DuckDB
whatever its size, and its ``reader``: how each engine reads it. Every reader asks
:func:`format_of` (or :func:`format_of_files` for the parts of a glob) which format a
path holds; nothing else looks at a file's name, and no engine asks which format it
reads: each hands itself to the format's reader, which calls it back.

There are two kinds of reader. :class:`Text` is delimited text: the rules of the user
guide, checked by one scan before any engine reads (``delimited``), each engine told
every choice of its own CSV reader. :class:`Columns` is a format of typed columns: its
check gives each column one Arrow type (``parquet.ColumnTypes``) before any engine reads,
and it names the reader of each engine, told those types: the record batches read in
memory, the DuckDB relation and the Spark reader. A new format of typed columns is one
``Columns`` here and its check and readers in a module of its own; the engines do not
change.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from .delimited import TEXT, Dialect, text_frame
from .jsonl import duckdb_json, jsonl_batches, jsonl_columns, jsonl_frame, spark_json
from .parquet import (
    ColumnTypes,
    duckdb_parquet,
    parquet_batches,
    parquet_columns,
    parquet_frame,
    spark_parquet,
)

__all__ = ["DELIMITED", "FORMATS", "JSON_LINES", "PARQUET", "Columns", "Engine", "FileFormat",
           "Text", "format_of", "format_of_files"]


class Engine(Protocol):
    """What an engine offers a format's reader: a reading of delimited text by the rules,
    and a reading of typed columns through a :class:`Columns` reader."""

    def text(self) -> Any: ...

    def columns(self, reader: Columns) -> Any: ...


# every column of a file, (names, values of each): a data file of the experiments
Frame = tuple[list[str], list[list[Any]]]


@dataclass(frozen=True)
class Text:
    """Delimited text: read by each engine's reading of text by the rules."""

    def table(self, engine: Engine) -> Any:
        return engine.text()

    def frame(self, path: str, sep: str | None = None) -> Frame:
        """Every column of a table, as text."""
        return text_frame(path, sep)


@dataclass(frozen=True)
class Columns:
    """A format of typed columns. ``check(files, true_col, pred_col, weight_col, name,
    names)``: the :class:`~clustermetrics.io.parquet.ColumnTypes` of the columns read,
    every file checked (errors name the file and the column) before any engine reads a
    row. The engines' readers, each told those types: ``batches(path, columns, checked,
    batch_rows)``, the record batches the in-memory reader counts; ``duckdb(con, links,
    checked)``, the DuckDB relation of the files; ``spark(reader, links, checked)``, the
    Spark frame (``reader``: ``spark.read`` told the schema). ``read_frame(path, sep)``:
    every column of a file, as Python values (the experiments' data files)."""

    check: Callable[..., ColumnTypes]
    batches: Callable[[str, list[str], ColumnTypes, int], Iterator[Any]]
    duckdb: Callable[[Any, list[str], ColumnTypes], Any]
    spark: Callable[[Any, list[str], ColumnTypes], Any]
    read_frame: Callable[[str, str | None], Frame]

    def table(self, engine: Engine) -> Any:
        return engine.columns(self)

    def frame(self, path: str, sep: str | None = None) -> Frame:
        return self.read_frame(path, sep)


@dataclass(frozen=True)
class FileFormat:
    """One file format. ``suffixes`` recognise it (lower case; any case matches); a format
    with ``catch_all`` reads every file no other format recognises. ``reader``: how every
    engine reads it. ``dialect``: for delimited text, the separator each suffix implies
    and the suffix of a compressed file (None for a format that is not text: a separator
    does not apply to it). ``link_suffix``: the suffix engines recognise the format by
    when a file is read through a link of a plain name. ``in_memory``: the module the
    in-memory reader imports and the extra that installs it (None: nothing beyond the
    core). ``out_of_core``: engine ``auto`` counts any file of it in DuckDB, not only big
    ones. ``labels``: what its labels are, for the user guide's table of formats."""

    name: str
    suffixes: tuple[str, ...]
    link_suffix: str
    reader: Text | Columns
    labels: str
    dialect: Dialect | None = None
    catch_all: bool = False
    in_memory: tuple[str, str] | None = None
    out_of_core: bool = False

    @property
    def delimited(self) -> bool:
        """Delimited text: a separator applies, and the text rules of the user guide."""
        return self.dialect is not None

    def compressed(self, path: str | os.PathLike) -> bool:
        """The file is gzip compressed (read decompressed by every engine)."""
        return self.dialect is not None and self.dialect.compressed(path)

    def recognises(self, path: str | os.PathLike) -> bool:
        name = self.dialect.plain_name(path) if self.dialect else str(path).lower()
        return self.catch_all or name.endswith(self.suffixes)

    def separator(self, path: str | os.PathLike) -> str:
        """The separator of a delimited file whose reader was given none."""
        assert self.dialect is not None, f"{self.name} files have no separator"
        return self.dialect.separator(path)

    def link_name(self, path: str | os.PathLike) -> str:
        """The suffix of a link to ``path`` that engines read as this format."""
        if self.dialect is not None and self.compressed(path):
            return self.link_suffix + self.dialect.compression
        return self.link_suffix

    def check_sep(self, sep: str | None, source: object, option: str = "sep") -> None:
        """A separator says how to split text: given for another format it is an error,
        not ignored. ``option``: how the message names the separator."""
        if sep is not None and not self.delimited:
            raise ValueError(f"{option} applies to delimited text files; {source} is "
                             f"{self.name}")


PARQUET = FileFormat(
    name="Parquet", suffixes=(".parquet", ".pq"), link_suffix=".parquet",
    reader=Columns(check=parquet_columns, batches=parquet_batches, duckdb=duckdb_parquet,
                   spark=spark_parquet, read_frame=parquet_frame),
    labels="the column's own type, exactly (see below)",
    in_memory=("pyarrow", "parquet"), out_of_core=True)
JSON_LINES = FileFormat(
    name="JSON Lines", suffixes=(".jsonl", ".ndjson"), link_suffix=".jsonl",
    reader=Columns(check=jsonl_columns, batches=jsonl_batches, duckdb=duckdb_json,
                   spark=spark_json, read_frame=jsonl_frame),
    labels="one JSON object per line, its keys the columns; each column holds one JSON "
           "type: strings, 64-bit integers, floats or true/false (a mix, an integer beyond "
           "64 bits, or one a float column cannot hold exactly is an error naming the "
           "line); `null` or an absent key is a missing label",
    in_memory=("pyarrow", "parquet"))
DELIMITED = FileFormat(
    name="text", suffixes=(".csv", ".tsv", ".tab", ".txt"), link_suffix=".csv",
    reader=Text(), dialect=TEXT, catch_all=True,
    labels="the exact text of each field (the rules below)")
# the order of recognition: a catch-all format comes last
FORMATS = (PARQUET, JSON_LINES, DELIMITED)


def format_of(path: str | os.PathLike) -> FileFormat:
    """The format of the file (or of the files a glob names) at ``path``, by its name."""
    return next(f for f in FORMATS if f.recognises(path))


def format_of_files(files: list[str], pattern: str | os.PathLike) -> FileFormat:
    """The one format of the files ``pattern`` matched; files of several formats are an
    error naming them (each engine reads one format per source)."""
    found = {format_of(f) for f in files}
    if len(found) > 1:
        names = [f.name for f in FORMATS if f in found]
        listed = " and ".join(names) if len(names) == 2 else ", ".join(names)
        raise ValueError(f"{pattern} matches {'both ' if len(names) == 2 else ''}{listed} "
                         "files; a glob must match files of one kind")
    return found.pop()
