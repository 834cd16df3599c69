"""The one reading of a delimited text file (CSV/TSV), shared by every engine.

The rules are written down in the user guide ("How files are read"). :func:`scan` checks a file
against them in one streaming pass over its bytes (numpy, memory bounded by a window) and
returns its :class:`Layout`: the header, the number of rows, where the blank lines are.
The in-memory reader then splits the fields with Python's ``csv`` module, and DuckDB and
Spark read the same checked file with options that make them agree; what they cannot be
told (blank lines, a bare quote, an unclosed quote, mixed line ends) is settled here,
before they run, so that every engine gives the identical table or an error.

Why the scan can work on bytes: UTF-8 never uses a byte below 0x80 inside a multi-byte
character, and in RFC 4180 text the quote state at any byte is the parity of the number of
double quotes before it (an escaped quote ``""`` adds two).
"""

from __future__ import annotations

import codecs
import csv
import gzip
import io
import os
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..render.text import find_column

__all__ = ["TEXT", "WHITESPACE", "Dialect", "Layout", "csv_rows", "is_blank", "open_text",
           "read_bytes", "read_table_rows", "resolve_sep", "scan", "start_line", "text_frame"]

# a cell of only these characters (or none) is a missing label
WHITESPACE = " \t\n\r\x0b\x0c"
_QUOTE, _LF, _CR = 0x22, 0x0A, 0x0D
_BOM = codecs.BOM_UTF8
_WINDOW = 1 << 24  # bytes per numpy window: memory stays bounded whatever the file size
_EOF = -1  # the "byte" after the last one
_START = -2  # the "byte" before the first one


@dataclass(frozen=True)
class Dialect:
    """What a delimited file's name says of its reading: ``seps``, (suffix, separator)
    pairs, then ``default_sep`` for any other suffix; ``compression``, a suffix after the
    format's own that means the file is gzip compressed (read decompressed by every
    engine). The text format of ``formats`` declares the one dialect, :data:`TEXT`."""

    seps: tuple[tuple[str, str], ...]
    default_sep: str
    compression: str

    def compressed(self, path: str | os.PathLike) -> bool:
        return str(path).lower().endswith(self.compression)

    def plain_name(self, path: str | os.PathLike) -> str:
        """The lower-case name without a compression suffix."""
        name = str(path).lower()
        return name[:-len(self.compression)] if self.compressed(path) else name

    def separator(self, path: str | os.PathLike) -> str:
        """The separator of a file whose reader was given none."""
        name = self.plain_name(path)
        return next((sep for suffix, sep in self.seps if name.endswith(suffix)),
                    self.default_sep)


TEXT = Dialect(seps=((".tsv", "\t"), (".tab", "\t")), default_sep=",", compression=".gz")


def is_blank(label: str) -> bool:
    """True for a missing label: empty, or only spaces, tabs and line breaks."""
    return not label.strip(WHITESPACE)


def resolve_sep(path: str, sep: str | None, name: str = "sep") -> str:
    """The field separator: ``sep`` if given (``\\t`` or ``tab`` mean a tab), else the one
    file's suffix implies (the dialect :data:`TEXT`: a tab for ``.tsv``/``.tab``
    files, a comma for everything else)."""
    if sep is None:
        return TEXT.separator(path)
    if not isinstance(sep, str):
        raise ValueError(f"{name} must be a string, got {sep!r}")
    if sep in ("\\t", "tab"):
        return "\t"
    if len(sep) != 1 or not sep.isascii() or sep in '"\r\n\x00':
        raise ValueError(f"{name} must be one ASCII character other than a double quote or a "
                         f"line break (\\t or tab for a tab), got {sep!r}")
    return sep


@dataclass(frozen=True)
class Layout:
    """What :func:`scan` learned of a file that follows the rules."""

    path: str
    sep: str
    header: list[str] | None  # the column names (None: no header line)
    ncols: int
    rows: int  # data rows, counting the blank lines among them
    blank: int  # blank lines among the rows: rows whose every label is missing
    first_blank: int | None  # line number of the first of them
    trailing_blank: int  # blank lines after the last row: not rows
    crlf: bool  # rows end with CRLF (else LF)
    quoted_breaks: frozenset  # the line breaks inside quoted fields: "CRLF", "LF", "CR"
    longest: int  # bytes of the longest row, line end included
    gzip: bool

    def column(self, col: str, option: str) -> int:
        """Index of the header column named ``col``: it must occur exactly once."""
        assert self.header is not None
        if not isinstance(col, str) or not col:
            raise ValueError(f"{option} must be a column name, got {col!r}")
        return find_column(self.path, self.header, col, option)

    def check_blank(self, drop_null: bool) -> None:
        """Blank lines among the rows are rows of missing labels: an error unless dropped."""
        if self.blank and not drop_null:
            raise ValueError(f"{self.path} line {self.first_blank} is blank: a row with every "
                             "label missing (drop_null=True skips such rows)")


def _chunks(path: str, size: int) -> Iterator[bytes]:
    """The file's bytes (decompressed for ``.gz``), ``size`` at a time, as one error class."""
    if not path:  # Path("") is the current folder
        raise ValueError("the file path is empty ('')")
    file = Path(path)
    if not file.exists():
        raise ValueError(f"{path}: no such file")
    if file.is_dir():
        raise ValueError(f"{path} is a directory, not a file")
    try:
        opened = gzip.open(file, "rb") if TEXT.compressed(path) else open(file, "rb")
        with opened as fh:
            while chunk := fh.read(size):
                yield chunk
    except (OSError, EOFError, zlib.error) as exc:
        raise ValueError(f"{path} cannot be read: {exc}") from None


def read_bytes(path: str) -> bytes:
    """The whole file's bytes (decompressed for ``.gz``)."""
    return b"".join(_chunks(path, _WINDOW))


def open_text(path: str):
    """The file as text for ``csv``: UTF-8 without its BOM; only ``\\n`` splits lines, so
    line numbers count line feeds, as :func:`scan` does."""
    raw = gzip.open(path, "rb") if TEXT.compressed(path) else open(path, "rb")
    return io.TextIOWrapper(raw, encoding="utf-8-sig", newline="\n")


def scan(path: str, sep: str, *, header: bool = True, one_label: bool = False,
         data: bytes | None = None) -> Layout:
    """Check ``path`` (or its bytes ``data``) against the rules; its :class:`Layout`.

    ``header``: the first line names the columns. ``one_label``: every row holds exactly one
    field (a label file). Every violation is a ``ValueError`` naming the file and the line.
    """
    scanner = _Scanner(str(path), sep, header, one_label)
    chunks = _chunks(str(path), _WINDOW) if data is None else \
        (data[i:i + _WINDOW] for i in range(0, len(data), _WINDOW))
    for chunk in chunks:
        scanner.feed(chunk)
    return scanner.finish()


class _Scanner:
    """Streaming check of the rules; state carried from one window of bytes to the next."""

    def __init__(self, path: str, sep: str, header: bool, one_label: bool):
        self.path, self.sep, self.has_header, self.one_label = path, sep, header, one_label
        self.sep_byte = ord(sep)
        self.decoder = codecs.getincrementaldecoder("utf-8")("strict")
        self.started = False  # the BOM check is done
        self.pending = b""  # bytes whose next byte is not known yet
        self.pos = 0  # absolute offset of pending[0] (BOM excluded)
        self.prev = _START  # the byte before pending[0]
        self.quotes = 0  # double quotes before self.pos
        self.lines = 0  # line feeds before self.pos
        self.record_start = 0  # absolute offset where the current record starts
        self.record_line = 1
        self.record_seps = 0  # separators outside quotes in the current record so far
        self.records = 0  # complete records so far (the header included)
        self.header_bytes = bytearray()
        self.ncols = 1 if one_label or not header else None
        self.crlf: bool | None = None
        self.quoted_breaks: set[str] = set()
        self.longest = 0
        self.rows = 0  # non-blank data records
        self.blank = 0
        self.first_blank: int | None = None
        self.run = 0  # blank records since the last non-blank one
        self.run_line = 0
        self.last_open_line = 0

    # ------------------------------------------------------------------ input
    def feed(self, chunk: bytes) -> None:
        self._check_text(chunk, final=False)
        if not self.started:
            self.pending += chunk
            if len(self.pending) < len(_BOM) and _BOM.startswith(self.pending):
                return  # could still be a BOM
            if self.pending.startswith(_BOM):
                self.pending = self.pending[len(_BOM):]
            self.started = True
            chunk, self.pending = self.pending, b""
        data = self.pending + chunk
        if len(data) > 1:
            self._window(data, len(data) - 1)  # the last byte waits for its successor
            self.pending = data[-1:]
        else:
            self.pending = data

    def finish(self) -> Layout:
        self._check_text(b"", final=True)
        if not self.started and self.pending.startswith(_BOM):
            self.pending = self.pending[len(_BOM):]
        if self.pending:
            self._window(self.pending, len(self.pending))
        total = self.pos
        if self.quotes % 2:
            raise self._error(self.last_open_line, "unbalanced quote: the quoted field that "
                              "starts on this line is never closed")
        if total > self.record_start:  # a last row without a line end
            self._records(np.array([total], dtype=np.int64),
                          np.array([self.record_seps], dtype=np.int64),
                          np.array([False]), np.array([self.record_line], dtype=np.int64))
        if total == 0:
            raise ValueError(f"{self.path} is empty")
        if self.rows == 0:
            raise ValueError(f"{self.path} has a header but no rows" if self.has_header
                             else f"{self.path} has no labels: only blank lines")
        return Layout(self.path, self.sep, self._header(), self.ncols or 1,
                      self.rows + self.blank, self.blank, self.first_blank, self.run,
                      bool(self.crlf), frozenset(self.quoted_breaks), self.longest,
                      TEXT.compressed(self.path))

    def _check_text(self, chunk: bytes, final: bool) -> None:
        try:
            self.decoder.decode(chunk, final)
        except UnicodeDecodeError:
            raise ValueError(f"{self.path} is not UTF-8 text (is it a binary file?)") from None
        if b"\x00" in chunk:
            raise ValueError(f"{self.path} contains NUL bytes (is it a binary file?)")

    def _error(self, line: int, what: str) -> ValueError:
        return ValueError(f"{self.path} line {line}: {what}")

    # ------------------------------------------------------------------ one window
    def _window(self, data: bytes, own: int) -> None:
        """Check the bytes data[:own]; data[own] (if any) is the byte after them."""
        arr = np.frombuffer(data, dtype=np.uint8)
        body = arr[:own]
        quotes = np.flatnonzero(body == _QUOTE)
        feeds = np.flatnonzero(body == _LF)

        def line_of(rel):  # line number of relative positions
            return self.lines + 1 + np.searchsorted(feeds, rel)

        def outside(rel):  # positions outside quotes (even number of quotes before)
            if not quotes.size:  # files without quotes: no search
                return np.full(rel.shape, self.quotes % 2 == 0)
            return (self.quotes + np.searchsorted(quotes, rel)) % 2 == 0

        # neighbours as int16: the markers for "no byte" are negative
        def before(rel):
            return np.where(rel > 0, arr[np.maximum(rel - 1, 0)].astype(np.int16), self.prev)

        def after(rel):
            nxt = rel + 1
            return np.where(nxt < len(arr), arr[np.minimum(nxt, len(arr) - 1)].astype(np.int16),
                            _EOF)

        problems = []  # (relative position, line message)
        if quotes.size:
            opening = (self.quotes + np.arange(quotes.size)) % 2 == 0
            start_ok = np.isin(before(quotes), (self.sep_byte, _LF, _QUOTE, _START))
            bad = np.flatnonzero(opening & ~start_ok)
            if bad.size:
                problems.append((quotes[bad[0]], "a double quote inside an unquoted field (a "
                                 "field holding a quote must be quoted whole, the quote "
                                 "doubled: \"a\"\"b\")"))
            end_ok = np.isin(after(quotes), (_QUOTE, self.sep_byte, _LF, _CR, _EOF))
            bad = np.flatnonzero(~opening & ~end_ok)
            if bad.size:
                problems.append((quotes[bad[0]], "text after a closing quote (a quoted field "
                                 "ends at a separator or a line end)"))
            if opening.any():
                self.last_open_line = int(line_of(quotes[opening][-1:])[0])
        returns = np.flatnonzero(body == _CR)
        if returns.size:
            out = outside(returns)
            lone = np.flatnonzero(out & (after(returns) != _LF))
            if lone.size:
                problems.append((returns[lone[0]], "a carriage return that does not end a "
                                 "line (lines must end with LF or CRLF)"))
            if (~out & (after(returns) != _LF)).any():
                self.quoted_breaks.add("CR")
        inside = ~outside(feeds)
        if inside.any():
            crlf = before(feeds[inside]) == _CR
            self.quoted_breaks.update(("CRLF",) if crlf.all() else ("LF",) if not crlf.any()
                                      else ("CRLF", "LF"))
        end_index = np.flatnonzero(~inside)  # which line feeds end a record
        ends = feeds[end_index]
        crlf = arr[np.maximum(ends - 1, 0)] == _CR
        if ends.size and ends[0] == 0:
            crlf[0] = self.prev == _CR
        if ends.size:
            style = bool(crlf[0]) if self.crlf is None else self.crlf
            mixed = np.flatnonzero(crlf != style)
            if mixed.size:
                problems.append((ends[mixed[0]], "mixed line ends: this line ends with "
                                 f"{'CRLF' if crlf[mixed[0]] else 'LF'}, an earlier one with "
                                 f"{'CRLF' if style else 'LF'}"))
            self.crlf = style
        if problems:
            rel, what = min(problems, key=lambda x: x[0])
            raise self._error(int(line_of(np.array([rel]))[0]), what)

        # separators outside quotes
        seps = body == self.sep_byte
        if quotes.size:
            seps &= (np.cumsum(body == _QUOTE, dtype=np.int32) + self.quotes) % 2 == 0
        elif self.quotes % 2:
            seps[:] = False
        if ends.size:
            # separators of each record ending here: sums over [start, end] in one pass
            starts = np.concatenate(([0], ends[:-1] + 1))
            counts = np.add.reduceat(seps[:ends[-1] + 1], starts, dtype=np.int64)
            counts[0] += self.record_seps
            # a record after line feed k of this window starts on line lines + k + 2
            starts_line = np.concatenate(([self.record_line],
                                          self.lines + 2 + end_index[:-1]))
            if self.records == 0 and self.has_header:
                self.header_bytes += data[max(self.record_start - self.pos, 0):ends[0]]
            self._records(ends + self.pos, counts, crlf, starts_line)
            self.record_seps = int(np.count_nonzero(seps[ends[-1] + 1:]))
            self.record_line = self.lines + 2 + int(end_index[-1])
        else:
            if self.records == 0 and self.has_header:
                self.header_bytes += data[max(self.record_start - self.pos, 0):own]
            self.record_seps += int(np.count_nonzero(seps))
        self.quotes += int(quotes.size)
        self.lines += int(feeds.size)
        self.prev = int(arr[own - 1])
        self.pos += own

    def _records(self, ends, seps, crlf, lines) -> None:
        """Account for complete records ending at absolute offsets ``ends`` (at their line
        feed, or at the end of the file)."""
        starts = np.concatenate(([self.record_start], ends[:-1] + 1))
        length = ends - starts - crlf  # bytes of content
        self.longest = max(self.longest, int((ends - starts).max()) + 1)
        first = 0
        if self.records == 0 and self.has_header:
            if length[0] == 0:
                raise self._error(1, "the first line is blank; it must be the header")
            self.ncols = int(seps[0]) + 1
            if self.one_label and self.ncols != 1:
                raise self._error(1, f"the header has {self.ncols} fields; expected one")
            first = 1
        self.records += len(ends)
        self.record_start = int(ends[-1]) + 1
        length, seps, lines = length[first:], seps[first:], lines[first:]
        if not length.size:
            return
        blank = length == 0
        fields = seps + 1
        bad = np.flatnonzero(~blank & (fields != self.ncols))
        if bad.size:
            i = bad[0]
            if self.one_label:
                raise ValueError(f"{self.path} line {lines[i]} has {fields[i]} fields; expected "
                                 "one label per row (a table needs its columns: (true_col), "
                                 "(pred_col))")
            raise ValueError(f"{self.path} line {lines[i]} has {fields[i]} fields but the "
                             f"header has {self.ncols}")
        full = np.flatnonzero(~blank)
        empty = np.flatnonzero(blank)
        if full.size:
            last = full[-1]
            inner = empty[empty < last]
            if self.run:
                self._blank_rows(self.run, self.run_line)
            if inner.size:
                self._blank_rows(inner.size, int(lines[inner[0]]))
            self.rows += full.size
            tail = empty[empty > last]
            self.run = int(tail.size)
            self.run_line = int(lines[tail[0]]) if tail.size else 0
        elif empty.size:
            if not self.run:
                self.run_line = int(lines[empty[0]])
            self.run += int(empty.size)

    def _blank_rows(self, count: int, line: int) -> None:
        self.blank += count
        if self.first_blank is None:
            self.first_blank = line

    def _header(self) -> list[str] | None:
        if not self.has_header:
            return None
        text = bytes(self.header_bytes).decode("utf-8")
        if text.endswith("\r"):
            text = text[:-1]
        reader = csv.reader(io.StringIO(text, newline=""), delimiter=self.sep, quotechar='"',
                            doublequote=True, strict=True)
        names = next(reader, [""])
        assert len(names) == self.ncols, (names, self.ncols)
        return names


def csv_rows(data: bytes, sep: str, longest: int):
    """Python's ``csv`` reader of a checked file's bytes (``longest``: its layout's)."""
    # csv refuses fields above its limit (128 KiB by default): the scan knows the longest
    if longest > csv.field_size_limit():
        csv.field_size_limit(longest + 1)
    # only \n ends a line for csv, so its line numbers count line feeds, as the scan does
    text = io.StringIO(data.decode("utf-8-sig"), newline="\n")
    return csv.reader(text, delimiter=sep, quotechar='"', doublequote=True, strict=True)


def start_line(reader, fields: list[str]) -> int:
    """The line where the row just read starts (quoted fields may span lines)."""
    return reader.line_num - sum(f.count("\n") for f in fields)


def read_table_rows(path: str, sep: str | None = None) -> tuple[list[str], list]:
    """(header, [(line number, fields), ...]) of a CSV/TSV table with a header row; a blank
    line among the rows is a row of empty fields."""
    sep = resolve_sep(path, sep)
    data = read_bytes(path)
    layout = scan(path, sep, data=data)
    reader = csv_rows(data, sep, layout.longest)
    head = next(reader)
    body = []
    for fields in reader:
        if len(body) == layout.rows:
            break
        body.append((start_line(reader, fields), fields or [""] * layout.ncols))
    return head, body

def text_frame(path: str, sep: str | None = None) -> tuple[list[str], list[list]]:
    """The header and the values (text) of each column of a table (names may repeat)."""
    header, body = read_table_rows(path, sep)
    return list(header), [[fields[i] for _, fields in body] for i in range(len(header))]
