"""HTML tables of results: parsed back, the same cells as the text table shows, numbers
carrying their value for sorting, a header that stays in view, a container that scrolls;
and the page's sort script keeps the contract the browser tests click on."""

import math
from html.parser import HTMLParser

from hypothesis import given, settings
from table_strategies import result_tables

from clustermetrics.render.html import SORT_SCRIPT, TABLE_CSS, table_html
from clustermetrics.render.tables import ResultTable
from clustermetrics.render.text import visible


class _Cells(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.head, self.rows, self.values, self.classes = [], [], [], []
        self.in_cell = None
        self.stack = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.stack.append(tag)
        if tag == "table":
            self.classes.append(attrs.get("class"))
        if tag == "tr" and "tbody" in self.stack:
            self.rows.append([])
            self.values.append([])
        if tag in ("th", "td"):
            self.in_cell = [tag, ""]
            if tag == "td":
                self.values[-1].append(attrs.get("data-value"))

    def handle_endtag(self, tag):
        while self.stack and self.stack.pop() != tag:
            pass
        if tag in ("th", "td") and self.in_cell:
            (self.head if tag == "th" else self.rows[-1]).append(self.in_cell[1])
            self.in_cell = None

    def handle_data(self, data):
        if self.in_cell:
            self.in_cell[1] += data


@settings(max_examples=200, deadline=None)
@given(result_tables())
def test_cells_read_back_as_shown(table):
    parser = _Cells()
    parser.feed(table_html(table))
    parser.close()
    assert parser.classes == ["sortable"]
    assert parser.head == [visible(t) for t in table.titles]
    assert parser.rows == [[visible(c) for c in row] for row in table.texts()]
    numeric = table.numeric()
    for values, numbers in zip(parser.values, table.numbers(), strict=True):
        for got, number, in_numbers in zip(values, numbers, numeric, strict=True):
            if number is None:  # text: a value only among numbers, where it sorts last
                assert got == ("NaN" if in_numbers else None)
            elif isinstance(number, float) and math.isnan(number):
                assert got == "NaN"
            else:
                assert float(got.replace("Infinity", "inf")) == float(number)


def test_numeric_columns_and_notes():
    out = table_html(ResultTable(["name", "n"], [["a", 3], ["b", None]], "Cap <1>",
                                 ["note\nsecond line"]))
    assert '<p class="caption">Cap &lt;1&gt;</p>' in out
    assert '<th scope="col" class="num">n</th>' in out
    assert '<td class="num" data-value="3">3</td>' in out
    assert '<td class="num" data-value="NaN">-</td>' in out
    assert '<p class="note">note<br>second line</p>' in out


def test_the_page_style_and_script_keep_the_contract():
    assert "position:sticky" in TABLE_CSS and "overflow-x:auto" in TABLE_CSS
    assert "tabular-nums" in TABLE_CSS and "text-align:right" in TABLE_CSS
    for needle in ('querySelectorAll("table.sortable")', "data-value", "aria-sort",
                   "localeCompare", '"ascending"', '"descending"', "click"):
        assert needle in SORT_SCRIPT
    assert SORT_SCRIPT.count("{") == SORT_SCRIPT.count("}")
    assert SORT_SCRIPT.count("(") == SORT_SCRIPT.count(")")
