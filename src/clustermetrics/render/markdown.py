"""Results as Markdown: GitHub-flavoured pipe tables, ready to paste.

Each table is a caption line (``Table: ...``, which pandoc reads as the table's caption
and other readers show as a line above it), the pipe table (numeric columns
right-aligned) and its notes, one paragraph each. Text is shown as the terminal shows it
(:func:`~clustermetrics.render.text.visible`), then every character Markdown would read
as markup is escaped with a backslash, so a label can neither end a cell (``|``) nor
start emphasis, a link or HTML.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .tables import Block, ResultTable, prose_lines
from .text import visible

__all__ = ["markdown_text", "table_markdown", "blocks_markdown"]

# ASCII punctuation that is inline markup (CommonMark, GFM tables, strikethrough, HTML,
# entities); a backslash before any ASCII punctuation shows it as itself.
_INLINE = re.compile(r"([\\`*_\[\]<>|~&!])")
# What starts a block at the beginning of a line: a heading, quote, list item, rule or
# setext underline (an ordered item's number is markup only with its "." or ")").
_BLOCK_START = re.compile(r"^(?:[#>+=-]|\d+(?=[.)]))")


def markdown_text(text: str) -> str:
    """Text (already shown as the terminal shows it) with Markdown's inline markup
    escaped.

    >>> print(markdown_text("a|b *c* <d> x_1 \\\\n"))
    a\\|b \\*c\\* \\<d\\> x\\_1 \\\\n
    """
    return _INLINE.sub(r"\\\1", text)


def _paragraph(text: str) -> str:
    """A caption, note or paragraph: one Markdown paragraph, its code-written line breaks
    kept as hard breaks, no line read as the start of a block."""
    lines = []
    for line in prose_lines(text):
        escaped = markdown_text(line.strip())
        start = _BLOCK_START.match(escaped)
        if start:
            escaped = (escaped[:start.end()] + "\\" + escaped[start.end():]
                       if start.group().isdigit() else "\\" + escaped)
        if escaped:
            lines.append(escaped)
    return "\\\n".join(lines)


def table_markdown(table: ResultTable) -> str:
    """The caption, the pipe table and the notes of ``table``.

    >>> from .tables import Column
    >>> print(table_markdown(ResultTable(["k", Column("v", ".2f")], [["a|b", 0.5]], "T")))
    Table: T
    <BLANKLINE>
    | k | v |
    | :-- | --: |
    | a\\|b | 0.50 |
    """
    right = table.right()

    def row(cells: Sequence[str]) -> str:
        return "| " + " | ".join(markdown_text(visible(c).strip()) for c in cells) + " |"

    lines = [row(table.titles),
             "| " + " | ".join("--:" if r else ":--" for r in right) + " |",
             *(row(cells) for cells in table.texts())]
    parts = [f"Table: {_paragraph(table.caption)}"] if table.caption else []
    parts.append("\n".join(lines))
    parts += [p for note in table.notes if (p := _paragraph(note))]
    return "\n\n".join(p for p in parts if p)


def blocks_markdown(blocks: Sequence[Block]) -> str:
    """A result in Markdown: its tables and paragraphs, a blank line between them."""
    parts = [table_markdown(b) if isinstance(b, ResultTable) else _paragraph(b)
             for b in blocks]
    return "\n\n".join(p for p in parts if p)
