"""Small HTML pieces shared by the notebook views (``_repr_html_`` of tables, reports and
diagnostics) and the experiments' HTML pages.

User text (labels, names) is shown as the text tables show it -- control characters, line
separators and bidi controls as Python escapes, backslashes doubled
(:func:`clustermetrics.render.text.visible`) -- then HTML-escaped, so a label can never inject
markup. Only numpy and the standard library: this module sits below the table layer.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from .tables import ResultTable, prose_lines
from .text import visible

__all__ = ["escape", "text", "capped_counts", "heatmap_table", "html_table", "goodness_style",
           "table_html", "data_value", "TABLE_CSS", "SORT_SCRIPT", "HEATMAP_MAX_LINES"]

HEATMAP_MAX_LINES = 40  # rows (columns) of a heatmap before the rest is one "+N others" line

_STYLE = ("border-collapse:collapse;font-size:12px;margin:4px 0;"
          "font-variant-numeric:tabular-nums")
_CELL = "border:1px solid #ddd;padding:2px 6px;text-align:right"
_HEAD = "border:1px solid #ddd;padding:2px 6px;background:#f0f0f0;text-align:left"


def escape(value: str) -> str:
    """Text as HTML character data or attribute value, read back as written: ``&<>"'``
    escaped, and a carriage return as ``&#13;`` (an HTML parser turns a literal one into
    a line feed).

    >>> escape('a<b> & "c"\\r')
    'a&lt;b&gt; &amp; &quot;c&quot;&#13;'
    """
    return html.escape(value).replace("\r", "&#13;")


def text(value: object) -> str:
    """User-facing text: escaped as in the text tables, then for HTML.

    >>> print(text("a\x1b[31m <b>\u202e"))
    a\\x1b[31m &lt;b&gt;\\u202e
    """
    return escape(visible(value))


def html_table(header: Sequence[str], rows: Sequence[Sequence[Any]], *,
               styles: Sequence[Sequence[str]] | None = None, caption: str = "") -> str:
    """A small inline-styled table; every cell is user text (:func:`text`). ``styles``,
    when given, adds a CSS declaration to each body cell (same shape as ``rows``).

    >>> html_table(["a"], [["<x>"]])  # doctest: +ELLIPSIS
    '<table ...><thead><tr><th ...>a</th></tr></thead><tbody><tr><td ...>&lt;x&gt;</td></tr></tbody></table>'
    """  # noqa: E501
    cap = f'<caption style="text-align:left">{text(caption)}</caption>' if caption else ""
    head = "".join(f'<th style="{_HEAD}">{text(h)}</th>' for h in header)
    body = []
    for i, row in enumerate(rows):
        cells = []
        for j, cell in enumerate(row):
            extra = styles[i][j] if styles is not None else ""
            align = ";text-align:left" if j == 0 else ""
            cells.append(f'<td style="{_CELL}{align}{";" + extra if extra else ""}">'
                         f"{text(cell)}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return (f'<table style="{_STYLE}">{cap}<thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(body)}</tbody></table>")


def data_value(number: float | int) -> str:
    """A number as a ``data-value`` attribute: text that JavaScript's ``Number()`` reads
    back (``Infinity``, ``-Infinity``, ``NaN``; integers exactly as written).

    >>> [data_value(v) for v in (0.1, 3, float("inf"), float("-inf"), float("nan"))]
    ['0.1', '3', 'Infinity', '-Infinity', 'NaN']
    """
    if isinstance(number, float) and not math.isfinite(number):
        return "NaN" if math.isnan(number) else "Infinity" if number > 0 else "-Infinity"
    return repr(number)


def _prose_html(text_: str) -> str:
    return "<br>".join(escape(line) for line in prose_lines(text_))


def table_html(table: ResultTable) -> str:
    """``table`` for an HTML page that carries :data:`TABLE_CSS` and :data:`SORT_SCRIPT`:
    the caption above, the table in a container that scrolls when it is wider than the
    page, and the notes below as wrapping paragraphs. Numeric cells are right-aligned
    (class ``num``; ``num left`` in a column aligned left) and carry their number (NaN
    for a missing or text cell among numbers) (``data-value``), by which a click on the
    column's header sorts the rows (class ``sortable``).

    >>> from .tables import Column
    >>> print(table_html(ResultTable(["k", Column("v", ".2f")], [["<a>", 0.5]])))
    <div class="result"><div class="table-wrap"><table class="sortable"><thead><tr><th scope="col">k</th><th scope="col" class="num">v</th></tr></thead><tbody><tr><td>&lt;a&gt;</td><td class="num" data-value="0.5">0.50</td></tr></tbody></table></div></div>
    """  # noqa: E501
    # numeric cells: digits of one width, right-aligned unless the column says left
    numeric = table.numeric()
    kind = [(' class="num"' if r else ' class="num left"') if n else
            ' class="right"' if r else "" for r, n in zip(table.right(), numeric, strict=True)]
    head = "".join(f'<th scope="col"{k}>{text(title)}</th>'
                   for title, k in zip(table.titles, kind, strict=True))
    body = []
    for shown, numbers in zip(table.texts(), table.numbers(), strict=True):
        cells = []
        for cell, number, k, n in zip(shown, numbers, kind, numeric, strict=True):
            # in a column of numbers every cell has a value: a missing one, or text
            # ("best", "undefined"), is NaN and sorts last
            value = number if number is not None else math.nan if n else None
            attrs = k + ("" if value is None else f' data-value="{data_value(value)}"')
            cells.append(f"<td{attrs}>{text(cell)}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    caption = (f'<p class="caption">{_prose_html(table.caption)}</p>'
               if table.caption else "")
    notes = "".join(f'<p class="note">{_prose_html(note)}</p>' for note in table.notes)
    return (f'<div class="result">{caption}<div class="table-wrap"><table class="sortable">'
            f"<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table></div>"
            f"{notes}</div>")


#: The style of :func:`table_html`'s tables: the container scrolls in both directions
#: (up to most of the window's height), so the header row stays in view while its rows
#: scroll; numbers right-aligned in digits of one width.
TABLE_CSS = """
.table-wrap{overflow-x:auto;overflow-y:auto;max-height:80vh;max-width:100%;margin:.4rem 0}
.table-wrap table{border-collapse:separate;border-spacing:0;font-size:.82rem;margin:0}
.table-wrap th,.table-wrap td{border:1px solid #ddd;border-width:0 1px 1px 0;
padding:.2rem .5rem;text-align:left;white-space:nowrap;vertical-align:top}
.table-wrap tr>:first-child{border-left-width:1px}
.table-wrap thead th{position:sticky;top:0;z-index:1;background:#f0f0f0;border-top-width:1px;
cursor:pointer;user-select:none}
.table-wrap .num{text-align:right;font-variant-numeric:tabular-nums}
.table-wrap .num.left{text-align:left}.table-wrap .right{text-align:right}
.table-wrap th[aria-sort=ascending]::after{content:" \\25B2";font-size:.7em}
.table-wrap th[aria-sort=descending]::after{content:" \\25BC";font-size:.7em}
.result .caption{font-weight:600;margin:.8rem 0 .2rem}
.result .note{font-size:.85rem;color:#444;margin:.15rem 0;overflow-wrap:anywhere}
"""

#: Sorts a ``sortable`` table by the column whose header is clicked (or activated with
#: Enter or Space): ascending first, then descending; numbers (``data-value``) by value,
#: text by the locale's order, blank and NaN cells last either way; the sorted header
#: carries ``aria-sort``.
SORT_SCRIPT = """
(function () {
  function key(row, i) {
    var cell = row.cells[i];
    if (!cell) { return {blank: true}; }
    var raw = cell.getAttribute("data-value");
    if (raw !== null) {
      var x = Number(raw);
      return isNaN(x) ? {blank: true} : {number: x};
    }
    var s = cell.textContent.trim();
    return s === "" ? {blank: true} : {text: s};
  }
  function compare(a, b) {
    if ("number" in a && "number" in b) { return a.number - b.number; }
    if ("number" in a) { return -1; }
    if ("number" in b) { return 1; }
    return a.text.localeCompare(b.text, undefined, {numeric: true});
  }
  function sort(table, th, i) {
    var ascending = th.getAttribute("aria-sort") !== "ascending";
    var heads = table.tHead.rows[0].cells;
    for (var h = 0; h < heads.length; h++) { heads[h].removeAttribute("aria-sort"); }
    th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
    var body = table.tBodies[0];
    var rows = Array.prototype.map.call(body.rows, function (row, at) {
      return {row: row, key: key(row, i), at: at};
    });
    rows.sort(function (a, b) {
      if (a.key.blank || b.key.blank) {
        return a.key.blank && b.key.blank ? a.at - b.at : a.key.blank ? 1 : -1;
      }
      var c = compare(a.key, b.key);
      return (ascending ? c : -c) || a.at - b.at;
    });
    rows.forEach(function (r) { body.appendChild(r.row); });
  }
  var tables = document.querySelectorAll("table.sortable");
  Array.prototype.forEach.call(tables, function (table) {
    if (!table.tHead || !table.tBodies.length) { return; }
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, i) {
      th.tabIndex = 0;
      th.addEventListener("click", function () { sort(table, th, i); });
      th.addEventListener("keydown", function (e) {
        if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sort(table, th, i); }
      });
    });
  });
})();
"""


def capped_counts(rows: np.ndarray, cols: np.ndarray, counts: np.ndarray,
                  row_order: np.ndarray, col_order: np.ndarray, row_labels: np.ndarray,
                  col_labels: np.ndarray, max_lines: int = HEATMAP_MAX_LINES,
                  ) -> tuple[np.ndarray, list[str], list[str]]:
    """Dense counts of a sparse table's cells in display order, with at most ``max_lines``
    rows and columns: the lines past the last shown are summed into one "+N others" line,
    so a table with thousands of clusters stays readable. Returns the counts and the row
    and column names (as the text tables show them).

    >>> d, r, c = capped_counts(np.array([0, 1, 2]), np.array([0, 1, 2]), np.array([5, 6, 7]),
    ...                         np.arange(3), np.arange(3), np.array(["a", "b", "c"]),
    ...                         np.array([0, 1, 2]), max_lines=2)
    >>> d.tolist(), r, c
    ([[5, 0], [0, 13]], ['a', '+2 others'], ['0', '+2 others'])
    """
    def positions(order: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, list[str]]:
        pos = np.empty(order.shape[0], dtype=np.int64)
        pos[order] = np.minimum(np.arange(order.shape[0]), max_lines - 1)
        names = [visible(x) for x in labels[order[:max_lines]].tolist()]
        if order.shape[0] > max_lines:
            names[-1] = f"+{order.shape[0] - max_lines + 1} others"
        return pos, names

    row_pos, row_names = positions(row_order, row_labels)
    col_pos, col_names = positions(col_order, col_labels)
    dense = np.zeros((len(row_names), len(col_names)),
                     dtype=np.float64 if counts.dtype.kind == "f" else np.int64)
    np.add.at(dense, (row_pos[rows], col_pos[cols]), counts)
    return dense, row_names, col_names


def _viridis(share: float) -> str:
    """A colour for a share in [0, 1] on a five-stop approximation of viridis."""
    stops = [(68, 1, 84), (59, 82, 139), (33, 145, 140), (94, 201, 98), (253, 231, 37)]
    x = min(max(share, 0.0), 1.0) * (len(stops) - 1)
    i = min(int(x), len(stops) - 2)
    f = x - i
    r, g, b = (round(a + (b_ - a) * f) for a, b_ in zip(stops[i], stops[i + 1], strict=True))
    return f"#{r:02x}{g:02x}{b:02x}"


def heatmap_table(dense: np.ndarray, row_names: Sequence[str], col_names: Sequence[str], *,
                  row_title: str = "true class", col_title: str = "predicted cluster") -> str:
    """The counts as an HTML table coloured by each row's share (viridis, as the report's
    heatmap); the count is written in every cell."""
    sums = dense.sum(axis=1, keepdims=True)
    share = dense / np.where(sums == 0, 1, sums)
    head = (f'<th style="{_HEAD}">{text(row_title)} \\ {text(col_title)}</th>'
            + "".join(f'<th style="{_HEAD}">{escape(c)}</th>' for c in col_names))
    body = []
    for i, name in enumerate(row_names):
        cells = []
        for j in range(dense.shape[1]):
            s = float(share[i, j])
            fg = "#fff" if s < 0.5 else "#000"
            cells.append(f'<td style="{_CELL};background:{_viridis(s)};color:{fg}" '
                         f'title="{s:.1%} of the row">{int(dense[i, j])}</td>')
        body.append(f'<tr><th style="{_HEAD}">{escape(name)}</th>{"".join(cells)}</tr>')
    return (f'<table style="{_STYLE}"><thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(body)}</tbody></table>")


def goodness_style(goodness: float) -> str:
    """Background for a score cell: red (worst) through yellow to green (best), grey when
    the score is not a number.

    >>> goodness_style(1.0), goodness_style(float("nan"))
    ('background:hsl(120,65%,85%)', 'background:#eee')
    """
    if not math.isfinite(goodness):
        return "background:#eee"
    hue = round(120 * min(max(goodness, 0.0), 1.0))
    return f"background:hsl({hue},65%,85%)"
