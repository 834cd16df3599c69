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
import math
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

__all__ = ["Shown", "text_table", "wrapped_table", "LINE_WIDTH", "visible", "display_width",
           "csv_cell", "csv_text", "plural", "pvalue_text", "PVALUE_FLOOR",
           "quoted_list", "no_such_column", "find_column", "one_role", "named_twice"]

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


class Shown(str):
    """Text as the terminal shows it: user text already through :func:`visible`.

    :func:`visible` returns it as it is, so a line built from shown parts (a report's
    summary, a table) can be handed to any renderer -- a text table's cell, an HTML
    paragraph -- and is escaped exactly once. Operations on it (``+``, f-strings,
    ``join``) give a plain ``str``: a line composed of shown parts is marked by wrapping
    it, ``Shown(f"... {visible(name)} ...")``.
    """

    __slots__ = ()


def visible(text: Any, *, backslash: bool = True) -> Shown:
    """``str(text)`` with control characters, line separators and bidi controls escaped,
    and (unless ``backslash=False``, for messages whose user strings are already
    ``repr``-escaped) every backslash doubled, so that two different texts never look
    the same. Text already shown (:class:`Shown`) is returned as it is: nothing is
    escaped twice.

    >>> print(visible("a\\nb\\tc\\x1bd\\u202ee é"))
    a\\nb\\tc\\x1bd\\u202ee é
    >>> print(visible("a\\\\nb"), visible("a\\\\nb", backslash=False))
    a\\\\nb a\\nb
    >>> print(visible(visible("a\\nb")))
    a\\nb
    """
    if isinstance(text, Shown):
        return text
    text = str(text)
    if text.isprintable() and (not backslash or "\\" not in text):  # the common case
        return Shown(text)
    return Shown("".join(_escape(ch) if _shown_escaped(ch) or (backslash and ch == "\\")
                         else ch for ch in text))


#: Below it a p-value is shown as ``< 0.001``: its digits there say more about the
#: approximation (normal tails, a finite number of draws) than about the data.
PVALUE_FLOOR = 0.001


def pvalue_text(p: float) -> str:
    """A p-value as every table shows one: three significant digits, ``< 0.001`` below
    that, ``undefined`` for NaN.

    >>> [pvalue_text(p) for p in (1.0, 0.05, 0.012345, 0.001, 0.00099, 0.0, float("nan"))]
    ['1.00', '0.0500', '0.0123', '0.00100', '< 0.001', '< 0.001', 'undefined']
    """
    if math.isnan(p):
        return "undefined"
    return f"< {PVALUE_FLOOR:g}" if p < PVALUE_FLOOR else f"{p:#.3g}"


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


def find_column(source: Any, columns: Sequence[Any], column: Any, option: str) -> int:
    """The position of ``column`` among ``columns`` (a file's header, a frame's column
    names): the one rule of every reader for a column asked for by name, which must be
    there exactly once (other names may repeat). The errors name ``option``.

    >>> find_column("t.csv", ["a", "b", "a"], "b", "pred_col")
    1
    >>> find_column("t.csv", ["a", "b", "a"], "a", "true_col")
    Traceback (most recent call last):
    ...
    ValueError: t.csv has 2 columns named 'a' (true_col); the column to read must be named once
    """
    hits = [i for i, name in enumerate(columns) if name == column]
    if not hits:
        raise no_such_column(source, column, option, columns)
    if len(hits) > 1:
        raise ValueError(f"{source} has {len(hits)} columns named {column!r} ({option}); "
                         "the column to read must be named once")
    return hits[0]


def one_role(columns: Mapping[str, Iterable[Any]]) -> None:
    """The one error for a column that two options name (option -> the columns it names,
    first the ones that take precedence): a column is read for one role, so the truth is
    never also a prediction, a feature or a weight.

    >>> one_role({"true_col": ["y"], "pred_col": ["a", "y"]})
    Traceback (most recent call last):
    ...
    ValueError: pred_col names 'y', the column of true_col: a column has one role
    """
    role: dict[Any, str] = {}
    for option, names in columns.items():
        for name in names:
            if role.setdefault(name, option) != option:
                raise ValueError(f"{option} names {name!r}, the column of {role[name]}: a "
                                 "column has one role")


def named_twice(names: Sequence[Any], option: str,
                given: Sequence[Any] | None = None) -> None:
    """The one error for a list of names (columns, values of an option) that repeats one:
    each is named once. ``given``: the values as written, where ``names`` are what they
    mean (a score's key for any of its names), so the message shows both spellings.

    >>> named_twice(["x", "y", "x"], "features")
    Traceback (most recent call last):
    ...
    ValueError: features names 'x' twice
    >>> named_twice(["ari", "ari"], "metrics", ["ari", "adjusted_rand_score"])
    Traceback (most recent call last):
    ...
    ValueError: metrics names 'ari' twice (as 'ari' and 'adjusted_rand_score')
    """
    seen: dict[Any, int] = {}
    for i, name in enumerate(names):
        if name in seen:
            first, again = (None, None) if given is None else (given[seen[name]], given[i])
            spelled = f" (as {first!r} and {again!r})" if first != again else ""
            raise ValueError(f"{option} names {name!r} twice{spelled}")
        seen[name] = i


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
               right: Sequence[bool] | None = None) -> Shown:
    """Columns two spaces apart, padded to their widest cell, trailing blanks stripped;
    every cell goes through :func:`visible`, so each row is exactly one line.

    Text is left-aligned; ``right`` says which columns are right-aligned (the numbers of
    a :class:`~clustermetrics.render.tables.ResultTable`).

    >>> print(text_table(["a", "n"], [["x", "1"], ["y\\ny", "10"]], right=[False, True]))
    a      n
    x      1
    y\\ny  10
    """
    cells = [[visible(v) for v in header]] + [[visible(v) for v in row] for row in rows]
    sizes = [[display_width(c) for c in row] for row in cells]
    widths = [max(r[i] for r in sizes) for i in range(len(cells[0]))]
    if right is None:
        right = [False] * len(widths)
    pad = " " * indent

    def cell(text: str, size: int, width: int, right_: bool) -> str:
        fill = " " * (width - size)
        return fill + text if right_ else text + fill

    return Shown("\n".join(
        pad + "  ".join(cell(c, s, w, r_) for c, s, w, r_ in
                        zip(row, size_row, widths, right, strict=True)).rstrip()
        for row, size_row in zip(cells, sizes, strict=True)))


#: The width a wide table is folded to (:func:`wrapped_table`).
LINE_WIDTH = 100


def wrapped_table(header: Sequence[str], rows: Sequence[Sequence[Any]], keep: int,
                  groups: Sequence[int] = (), indent: int = 0,
                  width: int = LINE_WIDTH, right: Sequence[bool] | None = None) -> Shown:
    """:func:`text_table`, folded into as many tables as it takes to keep lines within
    ``width``: each repeats the first ``keep`` columns (those that name the rows), a blank
    line between them. The other columns come in ``groups`` (their counts, in order; by
    default one group each), kept whole while they fit: the values of every run in one
    table, their intervals in the next. A group wider than ``width`` is cut between its
    columns; a column wider than that alone still gets a table of its own. ``right``:
    the right-aligned columns, as in :func:`text_table`.

    >>> print(wrapped_table(["k", "a", "b", "c"], [["x", "1", "2", "3"]], 1, [2, 1], width=8))
    k  a  b
    x  1  2
    <BLANKLINE>
    k  c
    x  3
    """
    cells = [list(header), *(list(r) for r in rows)]
    sizes = [max(display_width(visible(r[i])) for r in cells) + 2 for i in range(len(header))]
    room = width - indent - sum(sizes[:keep]) + 2  # no gap after a line's last column
    spans, start = [], keep
    for count in [*groups, *[1] * (len(header) - keep - sum(groups))]:
        spans.append(list(range(start, start + count)))
        start += count
    tables: list[list[int]] = []
    for span in spans:
        whole = sum(sizes[i] for i in span)
        if tables and sum(sizes[i] for i in tables[-1]) + whole <= room:
            tables[-1] += span
            continue
        tables.append([])
        for i in span:  # a group too wide for one line: cut between its columns
            if tables[-1] and sum(sizes[j] for j in tables[-1]) + sizes[i] > room:
                tables.append([])
            tables[-1].append(i)
    if len(tables) <= 1:
        return text_table(header, rows, indent, right=right)
    shown = [[*range(keep), *t] for t in tables]
    return Shown("\n\n".join(
        text_table([header[i] for i in cols], [[r[i] for i in cols] for r in rows], indent,
                   right=None if right is None else [right[i] for i in cols])
        for cols in shown))


def csv_cell(value: Any) -> Any:
    """One CSV field: a number as Python's shortest round-trip text (``float()`` reads it
    back exactly; ``inf`` and ``-inf`` as such), a missing or undefined number (None,
    NaN) as an empty field, as JSON writes it ``null``; anything else as its ``str()``.

    >>> [csv_cell(v) for v in [0.1, float("nan"), None, float("-inf"), 3, True, "x"]]
    ['0.1', '', '', '-inf', '3', 'True', 'x']
    """
    if value is None:
        return ""
    if isinstance(value, (bool, str)):
        return str(value)
    if hasattr(value, "dtype") and hasattr(value, "item") and value.dtype.kind in "biuf":
        value = value.item()  # a numpy scalar: its Python number (repr of np.float64 differs)
    if isinstance(value, float):
        return "" if math.isnan(value) else repr(value)
    return str(value)


def csv_text(rows: Iterable[Sequence[Any]]) -> str:
    r"""Rows as CSV text (``csv`` module quoting, ``\n`` after each row), every field
    written by :func:`csv_cell`, so every CSV output writes a number, and a missing one,
    the same way. A field holding a carriage return is quoted too (Python's writer quotes
    only the characters of its row terminator, so a bare ``\r`` would otherwise end the
    row for every reader).

    >>> csv_text([["a", "b\rc"], [1, "d,e"], [float("nan"), 0.5]])
    'a,"b\rc"\n1,"d,e"\n,0.5\n'
    """
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    lines = []
    for row in rows:
        buffer.seek(0)
        buffer.truncate()
        writer.writerow([csv_cell(v) for v in row])
        lines.append(buffer.getvalue()[:-2] + "\n")
    return "".join(lines)
