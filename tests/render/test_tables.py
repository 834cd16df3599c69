"""The structured table and its plain-text rendering: every cell shown by its column's
format, numbers right-aligned, lines within the width wherever one column allows it, and
every row one line whatever the labels hold."""

import dataclasses
import math

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from table_strategies import result_tables

from clustermetrics.render.tables import (
    Cell,
    Column,
    ResultTable,
    blocks_text,
    cell_number,
    cell_text,
    table_text,
)
from clustermetrics.render.text import LINE_WIDTH, display_width, visible


def test_cells_show_their_column_format_and_keep_their_number():
    col = Column("x", "+.3f")
    assert [cell_text(v, col) for v in (0.5, -2, None, "n/a", Cell("< 0.001", 1e-4))] == \
        ["+0.500", "-2.000", "-", "n/a", "< 0.001"]
    assert [cell_number(v) for v in (0.5, -2, None, "n/a", Cell("< 0.001", 1e-4), False)] == \
        [0.5, -2, None, None, 1e-4, None]
    assert cell_text(2.5, Column("x", lambda v: f"{100 * v:.0f} %")) == "250 %"
    assert cell_text(0.1, Column("x")) == "0.1" and cell_text(10**30, Column("x")) == str(10**30)
    assert math.isnan(cell_number(float("nan")))


def test_a_row_of_the_wrong_length_is_refused():
    with pytest.raises(ValueError, match=r"rows\[1\] has 1 cells; the table has 2 columns"):
        ResultTable(["a", "b"], [[1, 2], [3]])
    with pytest.raises(ValueError, match="keep must be between 0 and the 2 columns, got 3"):
        ResultTable(["a", "b"], [[1, 2]], keep=3)
    with pytest.raises(ValueError, match="columns must name at least one column"):
        ResultTable([], [])


def test_numbers_right_text_left_unless_the_column_says():
    t = ResultTable(["name", Column("v", ".2f"), Column("w", ".1f", align="left")],
                    [["a", 1.0, 2.0], ["bbbb", 10.5, 20.0]])
    assert table_text(t).splitlines() == ["name      v  w", "a      1.00  2.0",
                                          "bbbb  10.50  20.0"]
    assert t.numeric() == [False, True, True] and t.right() == [False, True, False]
    with pytest.raises(ValueError, match="align must be 'left', 'right' or None, got 'up'"):
        Column("x", align="up")


def test_a_wide_table_folds_repeating_the_columns_that_name_rows():
    t = ResultTable(["key", *(Column(f"column {i}", ".6f") for i in range(12))],
                    [["ari", *(0.1 * i for i in range(12))]], keep=1)
    text = table_text(t)
    assert max(map(len, text.splitlines())) <= LINE_WIDTH
    assert text.count("key") == text.count("ari") >= 2


@settings(max_examples=150, deadline=None)
@given(result_tables())
def test_every_cell_is_shown_once_on_one_line(table):
    """Each row (and the header) is one line per fold; a cell's text appears as
    ``visible`` shows it; no raw control character survives."""
    text = table_text(table)
    assert not any(ch in text for ch in "\r\x1b\x00\u2028\u202e")
    shown = [visible(c) for row in table.texts() for c in row]
    for cell in shown:
        assert cell.strip() in text
    if not table.caption and not table.notes:  # f + 1 folds of 1 + R lines, f blank lines
        lines = text.count("\n") + 1
        assert (lines + 1) % (len(table.rows) + 2) == 0


@settings(max_examples=100, deadline=None)
@given(result_tables(max_title=12, max_text=12))
def test_tables_of_short_cells_fit_the_line_width(table):
    """Folding keeps every line within the width when the columns are narrow (no cell
    wider than 24: a number formatted with hundreds of digits is a column of its own)."""
    cells = [visible(c) for c in table.titles] + [visible(c) for r in table.texts() for c in r]
    assume(all(display_width(c) <= 24 for c in cells))
    text = table_text(dataclasses.replace(table, caption="", notes=()))
    assert max((display_width(line) for line in text.splitlines()), default=0) <= LINE_WIDTH


@given(st.lists(st.text(max_size=300), max_size=4))
def test_paragraphs_fold_to_the_width_and_keep_their_words(paragraphs):
    text = blocks_text(paragraphs)
    words = [w for p in paragraphs for line in p.split("\n")  # the code's line breaks
             for w in visible(line, backslash=False).split()]
    assert text.split() == words
    for line in text.splitlines():
        assert display_width(line) <= LINE_WIDTH or " " not in line.strip()
