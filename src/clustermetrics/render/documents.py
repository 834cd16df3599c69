"""A result's blocks (:mod:`.tables`) in each output format that renders them.

A new format is one renderer here; every result that gives its blocks gets it, on the
command line too (``--format``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .latex import blocks_latex
from .markdown import blocks_markdown
from .tables import Block, blocks_text

__all__ = ["DESCRIPTIONS", "RENDERERS", "render_blocks"]

#: Output format -> its renderer of blocks: the terminal's text table, a GFM pipe table,
#: a booktabs LaTeX table.
RENDERERS: dict[str, Callable[[Sequence[Block]], str]] = {
    "table": blocks_text, "markdown": blocks_markdown, "latex": blocks_latex}

#: What each renderer writes, for help texts and the docs.
DESCRIPTIONS = {
    "table": "text tables for the terminal, folded to 100 characters",
    "markdown": "GitHub-flavoured Markdown pipe tables",
    "latex": "booktabs LaTeX tables, ready to paste",
}


def render_blocks(blocks: Sequence[Block], fmt: str) -> str:
    """``blocks`` in the output format ``fmt`` (a key of :data:`RENDERERS`)."""
    if fmt not in RENDERERS:
        raise ValueError(f"fmt must be one of {', '.join(RENDERERS)}, got {fmt!r}")
    return RENDERERS[fmt](blocks)
