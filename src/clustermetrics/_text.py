"""Plain-text tables for the terminal renderings (reports, diagnostics, experiments, CLI).

User text (labels, file, column and reference names) is shown as written, with one
exception so that one row stays one line and a terminal cannot be reprogrammed by a
label: control characters are shown as Python-style escapes (``\\n``, ``\\t``, ``\\x1b``),
and so are the line and paragraph separators and the bidirectional-text controls
(U+200E, U+202E, U+2066, ...), which would reorder the rest of the line. A backslash is
shown doubled (``\\\\``), as in a Python string literal, so the display is lossless: the
label ``a`` + newline + ``b`` shows as ``a\\nb`` and the four characters ``a\\nb`` as
``a\\\\nb``.

Messages (errors and notes) are different: the code writes the user strings in them as
Python literals (``repr``), already escaped, so :func:`visible` is applied with
``backslash=False`` and only escapes what a raw string left; whitespace is never
collapsed or dropped.
"""

from __future__ import annotations

import csv
import io
import unicodedata
from collections.abc import Iterable, Sequence
from typing import Any

__all__ = ["text_table", "visible", "display_width", "csv_text", "plural", "quoted_list"]

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\\": "\\\\"}
# Format characters that reorder text (Unicode bidi controls): shown escaped.
_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
                  "\u2066\u2067\u2068\u2069")


def _escape(ch: str) -> str:
    if ch in _NAMED:
        return _NAMED[ch]
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 \
        else f"\\U{code:08x}"


def _shown_escaped(ch: str) -> bool:
    return ch in _BIDI or unicodedata.category(ch) in ("Cc", "Zl", "Zp")


def visible(text: Any, *, backslash: bool = True) -> str:
    """``str(text)`` with control characters, line separators and bidi controls escaped,
    and (unless ``backslash=False``, for messages whose user strings are already
    ``repr``-escaped) every backslash doubled, so that two different texts never look
    the same.

    >>> print(visible("a\\nb\\tc\\x1bd\\u202ee é"))
    a\\nb\\tc\\x1bd\\u202ee é
    >>> print(visible("a\\\\nb"), visible("a\\\\nb", backslash=False))
    a\\\\nb a\\nb
    """
    text = str(text)
    if text.isprintable() and (not backslash or "\\" not in text):  # the common case
        return text
    return "".join(_escape(ch) if _shown_escaped(ch) or (backslash and ch == "\\") else ch
                   for ch in text)


def plural(count: int | float, noun: str, plural_form: str | None = None) -> str:
    """``count`` and the noun, singular for exactly one.

    >>> plural(1, "class", "classes"), plural(2, "cluster"), plural(0, "reference")
    ('1 class', '2 clusters', '0 references')
    """
    return f"{count} {noun if count == 1 else plural_form or noun + 's'}"


def quoted_list(names: Iterable[Any]) -> str:
    """Names (columns, files) for a message, each as a Python literal (``repr`` of its
    text), as messages write one name: spaces at either end, empty names, commas and
    control characters stay visible, and a message line stays lossless.

    >>> print(quoted_list(["item", " lead", "tru\\nth", "a\\\\nb"]))
    'item', ' lead', 'tru\\nth', 'a\\\\nb'
    """
    return ", ".join(repr(str(name)) for name in names)


def no_such_column(source: Any, column: Any, option: str, columns: Iterable[Any]) -> ValueError:
    """The one error for a column a file or frame does not have, naming the option and
    listing the columns there are."""
    return ValueError(f"{source} has no column {column!r} ({option}); columns are: "
                      f"{quoted_list(columns)}")


def display_width(text: str) -> int:
    """Terminal columns of ``text``: wide East Asian characters take two, combining marks
    and other zero-width format characters none.

    >>> display_width("ab"), display_width("日本"), display_width("e\\u0301")
    (2, 4, 1)
    """
    if text.isascii():
        return len(text)
    width = 0
    for ch in text:
        if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me", "Cf"):
            continue
        width += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return width


def text_table(header: Sequence[str], rows: Sequence[Sequence[Any]], indent: int = 0,
               align_numbers: bool = False) -> str:
    """Columns two spaces apart, padded to their widest cell, trailing blanks stripped;
    every cell goes through :func:`visible`, so each row is exactly one line.

    Text is left-aligned; with ``align_numbers`` a column whose cells are all numbers (or
    "-" / empty) is right-aligned.

    >>> print(text_table(["a", "n"], [["x", "1"], ["y\\ny", "10"]], align_numbers=True))
    a      n
    x      1
    y\\ny  10
    """
    cells = [[visible(v) for v in header]] + [[visible(v) for v in row] for row in rows]
    sizes = [[display_width(c) for c in row] for row in cells]
    widths = [max(r[i] for r in sizes) for i in range(len(cells[0]))]
    right = [align_numbers and len(cells) > 1 and all(_is_number(r[i]) for r in cells[1:])
             for i in range(len(widths))]
    pad = " " * indent

    def cell(text: str, size: int, width: int, right_: bool) -> str:
        fill = " " * (width - size)
        return fill + text if right_ else text + fill

    return "\n".join(
        pad + "  ".join(cell(c, s, w, r_) for c, s, w, r_ in
                        zip(row, size_row, widths, right, strict=True)).rstrip()
        for row, size_row in zip(cells, sizes, strict=True))


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return text in ("-", "")
    return True


def csv_text(rows: Iterable[Sequence[Any]]) -> str:
    r"""Rows as CSV text (``csv`` module quoting, ``\n`` after each row). A field holding a
    carriage return is quoted too (Python's writer quotes only the characters of its row
    terminator, so a bare ``\r`` would otherwise end the row for every reader).

    >>> csv_text([["a", "b\rc"], [1, "d,e"]])
    'a,"b\rc"\n1,"d,e"\n'
    """
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    lines = []
    for row in rows:
        buffer.seek(0)
        buffer.truncate()
        writer.writerow(row)
        lines.append(buffer.getvalue()[:-2] + "\n")
    return "".join(lines)
