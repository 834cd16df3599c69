"""Plain-text tables for the terminal renderings (reports, diagnostics, experiments, CLI)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["text_table"]


def text_table(header: Sequence[str], rows: Sequence[Sequence[Any]], indent: int = 0,
               align_numbers: bool = False) -> str:
    """Columns two spaces apart, padded to their widest cell, trailing blanks stripped.

    Text is left-aligned; with ``align_numbers`` a column whose cells are all numbers (or
    "-" / empty) is right-aligned.

    >>> print(text_table(["a", "n"], [["x", "1"], ["yy", "10"]], align_numbers=True))
    a    n
    x    1
    yy  10
    """
    cells = [[str(v) for v in header]] + [[str(v) for v in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(cells[0]))]
    right = [align_numbers and len(cells) > 1 and all(_is_number(r[i]) for r in cells[1:])
             for i in range(len(widths))]
    pad = " " * indent
    return "\n".join(
        pad + "  ".join(c.rjust(w) if r_ else c.ljust(w)
                        for c, w, r_ in zip(row, widths, right, strict=True)).rstrip()
        for row in cells)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return text in ("-", "")
    return True
