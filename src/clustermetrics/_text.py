"""Plain-text tables for the terminal renderings (reports, diagnostics, the CLI)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["text_table"]


def text_table(header: Sequence[str], rows: Sequence[Sequence[Any]], indent: int = 0) -> str:
    """Left-aligned columns separated by two spaces, trailing blanks stripped."""
    cells = [[str(v) for v in header]] + [[str(v) for v in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(cells[0]))]
    pad = " " * indent
    return "\n".join(pad + "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
                     for r in cells)
