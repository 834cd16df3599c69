"""Markdown pipe tables: every row has the header's cells whatever a label holds (a pipe,
a backslash, markup), each cell reads back as the terminal shows it, and prose never
starts a block."""

import re

from hypothesis import given, settings
from hypothesis import strategies as st
from table_strategies import result_tables, texts

from clustermetrics.render.markdown import blocks_markdown, markdown_text, table_markdown
from clustermetrics.render.tables import Column, ResultTable
from clustermetrics.render.text import visible

_UNESCAPED_PIPE = re.compile(r"(?<!\\)(?:\\\\)*\|")


def _cells(line: str) -> list[str]:
    """A table row's cells, split at unescaped pipes, markdown escapes removed."""
    inner = line.strip()[2:-2]
    parts, start = [], 0
    for m in _UNESCAPED_PIPE.finditer(" " + inner + " "):
        end = m.end() - 2
        parts.append(inner[start:end].strip())
        start = end + 1
    parts.append(inner[start:].strip())
    return [re.sub(r"\\(.)", r"\1", p) for p in parts]


def _table_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("| ")]


@settings(max_examples=200, deadline=None)
@given(result_tables())
def test_every_row_has_the_header_s_cells(table):
    lines = _table_lines(table_markdown(table))
    n = len(table.header)
    assert len(lines) == 2 + len(table.rows)
    for line in lines:
        assert len(_UNESCAPED_PIPE.findall(line)) == n + 1, line
    assert lines[1] == "| " + " | ".join("--:" if r else ":--" for r in table.right()) + " |"
    expected = [[visible(t) for t in table.titles],
                *([visible(c) for c in row] for row in table.texts())]
    assert [_cells(line) for line in [lines[0], *lines[2:]]] == [
        [c.strip() for c in row] for row in expected]


@settings(max_examples=200, deadline=None)
@given(texts(60))
def test_prose_is_one_paragraph_that_starts_no_block(text):
    out = blocks_markdown([text])
    assert "\n\n" not in out
    for line in out.splitlines():
        assert not re.match(r"\s*(?:[#>*+=|-]|\d+[.)]|```|<)", line), line
        assert not re.search(r"(?<!\\)(?:\\\\)*[|*_`<\[]", line) or "\\" in line


def test_markup_is_escaped():
    assert markdown_text("*a* _b_ `c` <i> [x](y) a|b ~~s~~ &amp;") == \
        r"\*a\* \_b\_ \`c\` \<i\> \[x\](y) a\|b \~\~s\~\~ \&amp;"
    t = ResultTable(["label", Column("v", ".1f")], [["# h", 1.0]], "1. caption",
                    ["- note", "2) second"])
    assert table_markdown(t).split("\n\n") == [
        r"Table: 1\. caption", "| label | v |\n| :-- | --: |\n| # h | 1.0 |", r"\- note",
        r"2\) second"]


@given(st.lists(st.one_of(texts(30), result_tables()), max_size=4))
def test_blocks_are_paragraphs_apart(blocks):
    out = blocks_markdown(blocks)
    assert not out.startswith("\n") and not out.endswith("\n")
