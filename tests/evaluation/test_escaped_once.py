"""Every user text is escaped exactly once, in every rendering: terminal text, HTML
notebook views and HTML pages.

A label shows as :func:`clustermetrics.render.text.visible` writes it (or, in a message, as a
Python literal): reading the escapes back gives the label. Escaped twice, ``a`` + newline
shows as ``a\\\\n`` and reads back as ``a\\n``, not the label: so for a label holding a
character that is escaped (a backslash, a control character), the rendering must read
back to it. The checks run over every view that shows user text, on generated labels.
"""

from __future__ import annotations

import re
import warnings
from html.parser import HTMLParser

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import clustermetrics as cm
from clustermetrics.experiments import plots
from clustermetrics.experiments.hierarchy_study import curve_sections, score_curve
from clustermetrics.experiments.html import render_page
from clustermetrics.experiments.pages import paired_sections

_ESCAPES = {"\\": "\\", "n": "\n", "r": "\r", "t": "\t", "'": "'", '"': '"'}


def read_back(shown: str) -> str:
    """The inverse of the escapes of text tables and Python literals, written here
    independently of the code: ``\\\\``, ``\\n``, ``\\r``, ``\\t``, ``\\'``, ``\\xHH``,
    ``\\uHHHH``, ``\\UHHHHHHHH``; any other character is itself."""
    def one(match: re.Match) -> str:
        body = match.group(1)
        if body[0] in "xuU":
            return chr(int(body[1:], 16))
        return _ESCAPES[body]
    return re.sub(r"\\(x[0-9a-f]{2}|u[0-9a-f]{4}|U[0-9a-f]{8}|[\\nrt'\"])", one, shown)


class _Text(HTMLParser):
    """The text of an HTML document as a browser shows it (character references
    resolved), one string per text node."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.nodes: list[str] = []

    def handle_data(self, data):
        self.nodes.append(data)


def html_nodes(page: str) -> list[str]:
    parser = _Text()
    parser.feed(page)
    parser.close()
    return parser.nodes


def shows(rendering: list[str] | str, label: str) -> bool:
    """Some text node (or line) of the rendering reads back to a text holding ``label``,
    and none to its escaped form (what a second escape leaves after one read-back)."""
    parts = rendering.split("\n") if isinstance(rendering, str) else rendering
    read = [read_back(part) for part in parts]
    once = visible_form(label)
    return any(label in r for r in read) and not any(once in r for r in read)


def visible_form(label: str) -> str:
    """``label`` as a text table shows it, written here independently of the code."""
    named = {"\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
    return "".join(named.get(ch) or (f"\\x{ord(ch):02x}" if ord(ch) < 0x20 else
                                     f"\\u{ord(ch):04x}" if ch in "\u202e\u2028" else ch)
                   for ch in label)


# Labels that always hold a character the renderings escape (so a second escape shows),
# and characters HTML must escape.
_ESCAPED = "\\\n\t\x1b\u202e\u2028"
_OTHER = "ab <>&'\"é日,;"
labels = st.tuples(st.text(st.sampled_from(_OTHER + _ESCAPED), max_size=5),
                   st.sampled_from(_ESCAPED),
                   st.text(st.sampled_from(_OTHER + _ESCAPED), max_size=5)).map("".join)


def _truth_and_pred(label):
    t = [label, label, label, "x", "x", "x", "y", "y"]
    p = [label, label, 1, 1, 1, 2, 2, 2]
    return t, p


@settings(max_examples=40, deadline=None)
@given(labels)
def test_report_views_show_the_noise_label_and_labels_once(label):
    t, p = _truth_and_pred(label)
    report = cm.evaluate(t, p, ["ari", "nmi"], noise_label=label)
    html = html_nodes(report._repr_html_())
    assert shows(html, label), html  # the summary line names the noise label
    assert shows(report.format(), label)
    assert shows(report.format("all"), label)
    table_html = html_nodes(report.table._repr_html_())
    assert shows(table_html, label)
    diag = report.diagnostics
    assert shows(html_nodes(diag.html()), label) and shows(diag.format(), label)


@settings(max_examples=40, deadline=None)
@given(labels)
def test_several_references_show_their_names_once(label):
    t, p = _truth_and_pred("c")
    multi = cm.evaluate({label: t, "other": p}, p, ["ari", "nmi"])
    assert shows(html_nodes(multi._repr_html_()), label)
    assert shows(multi.format(), label) and shows(multi.format("all"), label)
    with_ci = cm.evaluate({label: t, "other": p}, p, ["ari"], ci=0.9, n_boot=5, seed=0)
    assert shows(html_nodes(with_ci._repr_html_()), label)


@settings(max_examples=25, deadline=None)
@given(labels)
def test_paired_comparison_shows_its_names_once(label):
    t, p = _truth_and_pred("c")
    result = cm.paired_comparison(t, p, t, ["ari"], names=(label, "other"))
    assert shows(str(result), label)
    assert shows(html_nodes(render_page("paired", paired_sections(result))), label)


@settings(max_examples=15, deadline=None)
@given(labels)
def test_hierarchy_curves_show_their_source_once(label):
    from scipy.cluster.hierarchy import linkage

    X = np.array([[0.0], [0.1], [3.0], [3.2], [9.0], [9.5]])
    result = score_curve(np.array(["a", "a", "b", "b", "c", "c"], dtype=object),
                         linkage(X, "ward"), label, ["ari"])
    assert shows(result.format(), label)
    real, plots._png = plots._png, lambda fig: b"\x89PNG stub"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # glyphs missing from the font
            page = render_page("curves", curve_sections(result))
    finally:
        plots._png = real
    assert shows(html_nodes(page), label)


@pytest.mark.parametrize("label", ["bob\n", "a\\nb", "tab\there", "\x1b[31m<b>&"])
def test_the_reported_case_and_its_neighbours(label):
    """The review's sample: the summary paragraph of a report with noise label 'bob\\n'
    showed 'bob\\\\n'."""
    t, p = _truth_and_pred(label)
    report = cm.evaluate(t, p, ["ari"], noise_label=label)
    paragraph = html_nodes(report._repr_html_())[0]
    assert paragraph == report.summary()


@settings(max_examples=10, deadline=None)
@given(labels.filter(lambda s: s.strip() == s and "\r" not in s))
def test_compare_page_shows_the_label_column_once(tmp_path_factory, label):
    """The dataset's description names its label column: user text in a paragraph."""
    import csv

    from clustermetrics.experiments.compare import RECOVERY_KEYS, Run
    from clustermetrics.experiments.datasets import read_dataset
    from clustermetrics.experiments.pages import compare_sections

    path = tmp_path_factory.mktemp("data") / "d.csv"
    with path.open("w", newline="", encoding="utf-8") as fh:
        csv.writer(fh).writerows([["x", "z", label],
                                  *([i, i % 3, "ab"[i % 2]] for i in range(8))])
    data = read_dataset(path, label)
    table = cm.Contingency.from_labels(data.y, data.y)
    scores = dict(cm.evaluate(table, metrics=["ari", *RECOVERY_KEYS.values()]))
    run = Run(data.name, "kmeans", 0, 2, 0.0, scores,
              {"exact": 0.0, "greedy": 0.0, "pseudo": 0.0}, "", table, data.y)
    real, plots._png = plots._png, lambda fig: b"\x89PNG stub"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # glyphs missing from the font
            page = render_page("compare", compare_sections([run], {data.name: data}))
    finally:
        plots._png = real
    assert shows(html_nodes(page), label)


def test_warnings_noted_in_a_page_are_shown_as_messages(tmp_path, capsys):
    """A warning is a message: its user strings are Python literals already (matplotlib
    writes a missing glyph as '\\N{...}'), shown as the terminal shows a message."""
    from clustermetrics.cli.options import write_page

    message = "Glyph 26085 (\\N{CJK UNIFIED IDEOGRAPH-65E5}) missing; label 'a\\nb'"

    def sections():
        warnings.warn(message, stacklevel=2)
        return []
    write_page(str(tmp_path), "t", sections)
    nodes = html_nodes((tmp_path / "index.html").read_text(encoding="utf-8"))
    assert f"UserWarning: {message}" in nodes
