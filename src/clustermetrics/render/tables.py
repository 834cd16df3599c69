"""One structured form for every tabular result, and its plain-text rendering.

A :class:`ResultTable` holds a caption, its columns (each a title and how its numbers are
shown), the rows as raw values, and the notes that belong under it. Every output renders
from it: the terminal text here, Markdown (:mod:`.markdown`), LaTeX (:mod:`.latex`) and
HTML (:func:`clustermetrics.render.html.table_html`). A result is a list of
:data:`Block`: tables and paragraphs of prose between them.

A cell is a raw value -- a number, shown by its column's format and kept as a number for
sorting and for machine-readable outputs; text; None, shown as the column's ``missing``
text -- or a :class:`Cell`, text whose number is not its format (an interval's midpoint,
a p-value shown ``< 0.001``). Text is user text: each renderer shows it as the terminal
does (:func:`~clustermetrics.render.text.visible`) and escapes it for its format.
"""

from __future__ import annotations

import math
import numbers
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .text import LINE_WIDTH, Shown, visible, wrapped_table

__all__ = ["Block", "Cell", "Column", "ResultTable", "blocks_text", "cell_number", "cell_text",
           "paragraph_text", "prose_lines", "table_text"]


@dataclass(frozen=True)
class Cell:
    """A cell shown as ``text``; ``value``, when given, is the number it stands for (what
    an HTML table sorts by)."""

    text: str
    value: float | int | None = None


@dataclass(frozen=True)
class Column:
    """A column's title and how a number in it is shown: ``fmt``, a format specification
    (``".4f"``, ``"+.3f"``) or a function of the number; without one, an integer as its
    digits and a float as Python's shortest round-trip text. ``missing``: the text of a
    None cell. ``align``: "left" or "right"; by default a column of numbers is
    right-aligned (one of text whose numbers are its bounds, an interval, reads better
    left-aligned)."""

    title: str
    fmt: str | Callable[[Any], str] = ""
    missing: str = "-"
    align: str | None = None

    def __post_init__(self) -> None:
        if self.align not in (None, "left", "right"):
            raise ValueError(f"align must be 'left', 'right' or None, got {self.align!r}")


@dataclass(frozen=True)
class ResultTable:
    """A table of results: ``columns`` (titles or :class:`Column`), ``rows`` of raw values
    or :class:`Cell`, a ``caption`` above it and ``notes`` below it. ``keep``: the columns
    that name a row, which a text table folded to the line width repeats; ``groups``: the
    counts of the other columns that stay together when it folds (see
    :func:`~clustermetrics.render.text.wrapped_table`); ``indent``: spaces before a text
    table's lines.

    >>> t = ResultTable(["score", Column("value", ".3f")], [["ari", 0.51234], ["nmi", None]],
    ...                 caption="Two scores", notes=["nmi: undefined"])
    >>> print(table_text(t))
    Two scores
    score  value
    ari    0.512
    nmi        -
    nmi: undefined
    """

    columns: Sequence[Column | str]
    rows: Sequence[Sequence[Any]]
    caption: str = ""
    notes: Sequence[str] = ()
    keep: int = 1
    groups: Sequence[int] = ()
    indent: int = 0
    header: tuple[Column, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        header = tuple(c if isinstance(c, Column) else Column(str(c)) for c in self.columns)
        if not header:
            raise ValueError("columns must name at least one column")
        rows = tuple(tuple(r) for r in self.rows)
        for i, row in enumerate(rows):
            if len(row) != len(header):
                raise ValueError(f"rows[{i}] has {len(row)} cells; the table has "
                                 f"{len(header)} columns")
        if not 0 <= self.keep <= len(header):
            raise ValueError(f"keep must be between 0 and the {len(header)} columns, "
                             f"got {self.keep}")
        object.__setattr__(self, "header", header)
        object.__setattr__(self, "rows", rows)
        object.__setattr__(self, "notes", tuple(self.notes))
        object.__setattr__(self, "groups", tuple(self.groups))

    @property
    def titles(self) -> list[str]:
        return [c.title for c in self.header]

    def texts(self) -> list[list[str]]:
        """Every body cell as shown (before escaping), row by row."""
        return [[cell_text(v, c) for v, c in zip(row, self.header, strict=True)]
                for row in self.rows]

    def numbers(self) -> list[list[float | int | None]]:
        """Every body cell's number (:func:`cell_number`), row by row."""
        return [[cell_number(v) for v in row] for row in self.rows]

    def numeric(self) -> list[bool]:
        """Which columns hold numbers: those with at least one numeric cell."""
        return [any(cell_number(row[j]) is not None for row in self.rows)
                for j in range(len(self.header))]

    def right(self) -> list[bool]:
        """Which columns every rendering right-aligns: the numeric ones, unless their
        column says otherwise (:attr:`Column.align`)."""
        return [c.align == "right" or (c.align is None and numeric)
                for c, numeric in zip(self.header, self.numeric(), strict=True)]


#: What a result is made of: tables, and paragraphs of prose between them.
Block = ResultTable | str


def _is_number(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def cell_number(value: Any) -> float | int | None:
    """The number a cell stands for, or None for text and missing cells.

    >>> cell_number(0.5), cell_number(Cell("< 0.001", 0.0004)), cell_number("x"), cell_number(True)
    (0.5, 0.0004, None, None)
    """
    if isinstance(value, Cell):
        return value.value
    if not _is_number(value):
        return None
    return int(value) if isinstance(value, numbers.Integral) else float(value)


def cell_text(value: Any, column: Column) -> str:
    """A cell as shown, before any escaping: a number by the column's format.

    >>> col = Column("p", ".2f")
    >>> [cell_text(v, col) for v in (0.125, None, "best", float("nan"), 2**1100)][:4]
    ['0.12', '-', 'best', 'nan']
    >>> cell_text(2**1100, col) == str(2**1100)  # beyond a float: its digits
    True
    """
    if isinstance(value, Cell):
        return value.text
    if value is None:
        return column.missing
    number = cell_number(value)
    if number is None:
        return str(value)
    if callable(column.fmt):
        return column.fmt(number)
    if column.fmt:
        try:
            return format(number, column.fmt)
        except (OverflowError, ValueError):  # an integer too large for a float format
            return str(number)
    return repr(number) if isinstance(number, float) and math.isfinite(number) else str(number)


# --------------------------------------------------------------------- plain text
def prose_lines(text: str) -> list[Shown]:
    """The lines of a caption, note or paragraph, as every renderer shows them: split at
    the line breaks the code wrote, control characters escaped. Prose is written by the
    code, with user text in it already shown (:func:`~clustermetrics.render.text.visible`),
    so backslashes are left as they are: nothing is escaped twice."""
    return [visible(line, backslash=False) for line in str(text).split("\n")]


def paragraph_text(text: str, width: int = LINE_WIDTH) -> Shown:
    """A paragraph of prose for the terminal (:func:`prose_lines`), each line longer
    than ``width`` folded, its continuations indented."""
    return Shown("\n".join(
        textwrap.fill(line, width, subsequent_indent="  ", break_long_words=False,
                      break_on_hyphens=False) if len(line) > width else line
        for line in prose_lines(text)))


def table_text(table: ResultTable, width: int = LINE_WIDTH) -> Shown:
    """The caption, the table (numbers right-aligned; folded into tables that repeat the
    ``keep`` columns when wider than ``width``) and the notes, lines within ``width``
    wherever a single column allows it."""
    lines = [paragraph_text(table.caption, width)] if table.caption else []
    lines.append(wrapped_table(table.titles, table.texts(), table.keep, table.groups,
                               table.indent, width, right=table.right()))
    lines += [paragraph_text(note, width) for note in table.notes]
    return Shown("\n".join(lines))


def blocks_text(blocks: Sequence[Block], width: int = LINE_WIDTH) -> Shown:
    """A result as the terminal shows it: its tables and paragraphs, a blank line
    between them."""
    return Shown("\n\n".join(table_text(b, width) if isinstance(b, ResultTable)
                             else paragraph_text(b, width) for b in blocks))
