"""The file formats a table is read from, each declared once.

A :class:`FileFormat` says what a format is called in messages, the suffixes that
recognise it, the name a file of it keeps when an engine reads it through a link, what
the in-memory reader needs installed, and whether engine ``auto`` counts it in DuckDB
whatever its size. Delimited text also declares its dialects: the separator each suffix
implies and the suffix of a compressed file. Every reader asks :func:`format_of` (or
:func:`format_of_files` for the parts of a glob) which format a path holds; nothing
else looks at a file's name.

The readers of each format are the engines' own: in memory ``files`` (text) and
``parquet`` (pyarrow), and ``duckdb_engine`` and ``spark_engine``, each dispatching on
the format this module names; ``engines.read_table`` chooses the engine.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

__all__ = ["DELIMITED", "FORMATS", "PARQUET", "FileFormat", "format_of", "format_of_files"]


@dataclass(frozen=True)
class FileFormat:
    """One file format. ``suffixes`` recognise it (lower case; any case matches); a format
    with ``catch_all`` reads every file no other format recognises. ``dialects``: for
    delimited text, (suffix, separator) pairs and then the separator of any other suffix;
    empty for a format that is not text (a separator does not apply to it).
    ``compression``: a suffix after the format's own that means the file is gzip
    compressed. ``link_suffix``: the suffix engines recognise the format by when a file
    is read through a link of a plain name. ``in_memory``: the module the in-memory
    reader imports and the extra that installs it (None: nothing beyond the core).
    ``out_of_core``: engine ``auto`` counts any file of it in DuckDB, not only big ones."""

    name: str
    suffixes: tuple[str, ...]
    link_suffix: str
    dialects: tuple[tuple[str, str], ...] = ()
    default_sep: str | None = None
    compression: str | None = None
    catch_all: bool = False
    in_memory: tuple[str, str] | None = None
    out_of_core: bool = False

    @property
    def delimited(self) -> bool:
        """Delimited text: a separator applies, and the text rules of the user guide."""
        return self.default_sep is not None

    def compressed(self, path: str | os.PathLike) -> bool:
        """The file is gzip compressed (read decompressed by every engine)."""
        return self.compression is not None and _lower(path).endswith(self.compression)

    def _plain_name(self, path: str | os.PathLike) -> str:
        """The lower-case name without a compression suffix: what the rest says it holds."""
        name = _lower(path)
        return name[:-len(self.compression)] if self.compression and self.compressed(path) \
            else name

    def recognises(self, path: str | os.PathLike) -> bool:
        return self.catch_all or self._plain_name(path).endswith(self.suffixes)

    def separator(self, path: str | os.PathLike) -> str:
        """The separator of a delimited file whose reader was given none."""
        assert self.default_sep is not None, f"{self.name} files have no separator"
        name = self._plain_name(path)
        return next((sep for suffix, sep in self.dialects if name.endswith(suffix)),
                    self.default_sep)

    def link_name(self, path: str | os.PathLike) -> str:
        """The suffix of a link to ``path`` that engines read as this format."""
        if self.compression and self.compressed(path):
            return self.link_suffix + self.compression
        return self.link_suffix

    def check_sep(self, sep: str | None, source: object, option: str = "sep") -> None:
        """A separator says how to split text: given for another format it is an error,
        not ignored. ``option``: how the message names the separator."""
        if sep is not None and not self.delimited:
            raise ValueError(f"{option} applies to delimited text files; {source} is "
                             f"{self.name}")


PARQUET = FileFormat(name="Parquet", suffixes=(".parquet", ".pq"), link_suffix=".parquet",
                     in_memory=("pyarrow", "parquet"), out_of_core=True)
DELIMITED = FileFormat(name="text", suffixes=(".csv", ".tsv", ".tab", ".txt"),
                       link_suffix=".csv", dialects=((".tsv", "\t"), (".tab", "\t")),
                       default_sep=",", compression=".gz", catch_all=True)
# the order of recognition: a catch-all format comes last
FORMATS = (PARQUET, DELIMITED)


def _lower(path: str | os.PathLike) -> str:
    return str(path).lower()


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
