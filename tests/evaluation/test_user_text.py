"""User text comes out as written in every output: arbitrary Unicode labels, reference,
column and file names (control characters, `$`, quotes, `<>&`, newlines, bidi marks)
parse back to the same strings from strict JSON, csv.reader and html.parser, and every
text-table row stays one line (control characters shown as escapes)."""

import csv
import datetime
import decimal
import io
import json
import math
import re
import sys
import warnings
from html.parser import HTMLParser

import numpy as np
import pytest
from cli_helpers import run as cli_run
from hypothesis import given, settings
from hypothesis import strategies as st

import clustermetrics as cm
from clustermetrics.experiments import plots
from clustermetrics.experiments.compare import compare
from clustermetrics.experiments.datasets import Dataset
from clustermetrics.experiments.html import write_report
from clustermetrics.experiments.pages import compare_sections
from clustermetrics.io.formats import format_of
from clustermetrics.render.tables import blocks_text

# Any character but surrogates; NUL is left out: the table stores text labels in numpy
# unicode arrays, which drop a trailing NUL (reported to the table's owner).
HOSTILE = "$^\\\"'<>&\n\r\t\x0b\x0c\x1b\x1c\x85\u2028\u2029\u200f\u202e\u2066 ,;=日本é\u0301"
chars = st.one_of(st.sampled_from(HOSTILE),
                  st.characters(exclude_categories=("Cs",), exclude_characters="\x00\ufeff"))
text = st.text(chars, max_size=8)
label_kinds = [
    text,
    st.integers(-2**70, 2**70),
    st.floats(allow_nan=False, allow_infinity=False)  # both refused as labels
    .filter(lambda x: x != 0.0 or math.copysign(1, x) > 0),
    st.decimals(allow_nan=False, allow_infinity=False, places=3),
    st.dates(),
    st.binary(max_size=4),
]


def _labelings(kind):
    return st.lists(st.tuples(kind, kind), min_size=1, max_size=12)


labelings = st.sampled_from(label_kinds).flatmap(_labelings)


def _as_json(x):
    """The documented rule for labels in JSON, written independently of the code."""
    if isinstance(x, (str, bool, int)):
        return x
    if isinstance(x, float):
        return x if math.isfinite(x) else str(x)
    return str(x)


def _strict(text_):
    def reject(name):
        raise AssertionError(f"not strict JSON: {name}")
    return json.loads(text_, parse_constant=reject)


def _one_line_rows(text_, n_rows):
    """Every row of the text is one line: the line count is the row count."""
    assert len(text_.splitlines()) == n_rows, text_
    assert len(text_.split("\n")) == n_rows


@settings(max_examples=80, deadline=None)
@given(labelings, st.lists(text, min_size=2, max_size=3, unique=True))
def test_report_outputs_keep_labels_and_reference_names(pairs, names):
    t = [a for a, _ in pairs]
    p = [b for _, b in pairs]
    noise = p[0]
    report = cm.evaluate(t, p, "ari,recovery_rate", noise_label=noise, noise="exclude") \
        if len(set(p)) > 1 else cm.evaluate(t, p, "ari,recovery_rate")
    table = report.table
    classes, clusters = table.class_labels.tolist(), table.cluster_labels.tolist()

    data = _strict(report.to_json(details=True, diagnostics=True))
    diag = data["diagnostics"]
    assert sorted(map(repr, (c["label"] for c in diag["classes"]))) == \
        sorted(map(repr, map(_as_json, classes)))
    assert sorted(map(repr, (c["label"] for c in diag["clusters"]))) == \
        sorted(map(repr, map(_as_json, clusters)))
    matching = data["details"]["recovery_rate"]["matching"]
    assert {repr(m[0]) for m in matching} <= {repr(_as_json(c)) for c in clusters}
    if report.noise is not None:
        assert data["noise"]["label"] == _as_json(noise)
        rows = list(csv.DictReader(io.StringIO(report.to_csv())))
        assert {r["noise_label"] for r in rows} == {str(noise)}

    summary = header = 1  # unfolded: at the line width, a wide label folds the table
    _one_line_rows(blocks_text(report.blocks("all"), width=sys.maxsize),
                   summary + header + 2 + 2 * 3 + len(classes) + len(clusters))

    multi = cm.evaluate({n: t for n in names}, p, "ari,recovery_rate")
    data = _strict(multi.to_json(details=True))
    assert data["references"] == names and set(data["reports"]) == set(names)
    rows = list(csv.reader(io.StringIO(multi.to_csv())))
    assert [r[2] for r in rows[1:]] == [multi.best_reference[k] for k in multi]
    assert all(r[2] in names for r in rows[1:])
    _one_line_rows(blocks_text(multi.blocks(), width=sys.maxsize), 2 + len(multi))


class _Cells(HTMLParser):
    """Text of every <td>, <th> and <h2> of a page, as the browser's parser sees it."""

    def __init__(self):
        super().__init__()
        self.cells, self._open = [], None

    def handle_starttag(self, tag, attrs):
        if tag in ("td", "th", "h2"):
            self._open = []

    def handle_data(self, data):
        if self._open is not None:
            self._open.append(data)

    def handle_endtag(self, tag):
        if tag in ("td", "th", "h2") and self._open is not None:
            self.cells.append("".join(self._open))
            self._open = None


names_ = st.text(chars, min_size=1, max_size=8)


@settings(max_examples=25, deadline=None)
@given(st.lists(names_, min_size=2, max_size=3, unique=True), names_)
def test_html_report_keeps_labels_and_dataset_name(tmp_path_factory, classes, name):
    from threadpoolctl import threadpool_limits

    rng = np.random.default_rng(0)
    y = np.empty(12 * len(classes), dtype=object)
    y[:] = [c for c in classes for _ in range(12)]
    X = rng.normal(size=(y.shape[0], 2)) + np.repeat(np.arange(len(classes)), 12)[:, None] * 5
    data = Dataset(name, X, y, f"{name}: user data")
    with threadpool_limits(1):  # k-means on 36 points: threads cost more than they give
        runs = compare([data], ["kmeans"], metrics=["ari"])
    out = tmp_path_factory.mktemp("report")
    real, plots._png = plots._png, lambda fig: b"\x89PNG stub"  # the page, not the plots
    try:
        page = write_report(out, "t", compare_sections(runs, {name: data}))
    finally:
        plots._png = real
    parser = _Cells()
    with page.open(encoding="utf-8", newline="") as fh:  # no newline translation
        parser.feed(fh.read())
    # user text reads back as the text tables and the heatmap show it (control and bidi
    # characters escaped, backslashes doubled), in every table, heading and paragraph
    from clustermetrics.render.text import visible

    assert f"Chosen run: kmeans on {visible(name)}" in parser.cells
    assert f"{visible(name)} kmeans k={len(classes)}" in parser.cells  # scores' header
    assert {visible(c) for c in classes} <= set(parser.cells)  # split table's classes
    assert not any(ch in cell for cell in parser.cells for ch in "\x1b\u202e\u2028\n")


@settings(max_examples=8, deadline=None)
@given(st.lists(names_, min_size=2, max_size=3, unique=True), names_)
def test_plot_text_is_literal(classes, title):
    """Real rendering (mathtext would raise on '$a^$'); tick labels and titles are the
    labels with control characters escaped, as in the text tables."""
    from clustermetrics.render.text import visible

    t = [c for c in classes for _ in range(3)]
    p = list(range(len(t)))
    table = cm.Contingency.from_labels(t, p)
    seen = {}

    def capture(fig):
        ax = fig.axes[0]
        seen["title"] = ax.get_title()
        seen["ticks"] = [x.get_text() for x in ax.get_yticklabels()]
        return real(fig)

    real = plots._png
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # glyphs missing from the font
        plots._png = capture
        try:
            png = plots.heatmap_plot(table, title)
        finally:
            plots._png = real
    assert png.startswith(b"\x89PNG")
    assert seen["title"] == visible(title)
    assert sorted(seen["ticks"]) == sorted(visible(c) for c in classes)


# ------------------------------------------------------------------ the command line
# A bare carriage return inside a quoted CSV field is read back as a line feed by the
# delimited-file reader (universal newlines; reported to the reader's owner): left out.
cli_names = st.text(st.one_of(st.sampled_from(HOSTILE.replace("\r", "")), st.characters(
    exclude_categories=("Cs",), exclude_characters="\x00\ufeff\r")), min_size=1, max_size=8)
@settings(max_examples=25, deadline=None)
@given(st.lists(cli_names.filter(lambda s: s.strip() == s and s.strip()), min_size=3,
                max_size=3, unique=True),
       st.lists(cli_names.filter(lambda s: s.strip()), min_size=2, max_size=4, unique=True))
def test_score_keeps_column_names_and_labels(tmp_path_factory, columns, labels):
    """Arbitrary column names (the references' names) and labels through the CSV reader
    and every output format of `score`."""
    import contextlib

    from clustermetrics.cli import main

    table = tmp_path_factory.mktemp("cols") / "t.csv"
    rows = [[labels[i % len(labels)], labels[(i * 2) % len(labels)], labels[(i + 1) %
                                                                             len(labels)]]
            for i in range(10)]
    with table.open("w", newline="", encoding="utf-8") as fh:
        csv.writer(fh).writerows([columns, *rows])
    argv = ["score", str(table), f"--true-col={columns[0]}", f"--true-col={columns[1]}",
            f"--pred-col={columns[2]}", "--metrics", "ari,nmi"]  # '=': a name may start "-"
    outputs = {}
    for fmt in ("table", "json", "csv"):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main([*argv, "--format", fmt, *(["--details", "all"] if fmt != "csv"
                                                   else [])])
        assert code == 0, err.getvalue()
        outputs[fmt] = out.getvalue()
    data = _strict(outputs["json"])
    assert data["references"] == columns[:2]
    for ref in data["reports"].values():
        assert {c["label"] for c in ref["diagnostics"]["classes"]} <= set(labels)
    got = list(csv.DictReader(io.StringIO(outputs["csv"])))
    assert {r["best_reference"] for r in got} <= set(columns[:2])
    multi = cm.evaluate({c: [r[i] for r in rows] for i, c in enumerate(columns[:2])},
                        [r[2] for r in rows], "ari,nmi")
    # per reference: blank, "against", blank, and two tables of heading, header, rows
    n_diag = sum(8 + len(r.diagnostics.classes) + len(r.diagnostics.clusters)
                 for r in multi.reports.values())
    assert outputs["table"].rstrip("\n") == multi.format("all")
    _one_line_rows(blocks_text(multi.blocks("all"), width=sys.maxsize), 2 + len(multi) + n_diag)


@settings(max_examples=15, deadline=None)
@given(names_.filter(lambda s: "/" not in s and s not in (".", "..")
                     and len(s.encode()) < 200
                     # a name another format recognises is read as it (these hold text)
                     and format_of(s).delimited and format_of(s + ".2").delimited))
def test_score_keeps_reference_file_names(tmp_path_factory, name):
    import contextlib

    from clustermetrics.cli import main

    folder = tmp_path_factory.mktemp("names")
    truth, pred, other = folder / name, folder / "p.txt", folder / (name + ".2")
    truth.write_text("a\na\nb\nb\n")
    other.write_text("a\nb\nb\nb\n")
    pred.write_text("0\n0\n1\n2\n")
    outputs = {}
    for fmt in ("table", "json", "csv"):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["score", str(truth), str(pred), "--reference", str(other),
                         "--metrics", "ari", "--format", fmt])
        assert code == 0, err.getvalue()
        outputs[fmt] = out.getvalue()
    assert _strict(outputs["json"])["references"] == [str(truth), str(other)]
    (row,) = list(csv.DictReader(io.StringIO(outputs["csv"])))
    assert row["best_reference"] in (str(truth), str(other))
    multi = cm.evaluate({str(truth): list("aabb"), str(other): list("abbb")}, [0, 0, 1, 2],
                        "ari")
    assert outputs["table"].rstrip("\n") == multi.format()
    _one_line_rows(blocks_text(multi.blocks(), width=sys.maxsize), 3)


@pytest.mark.parametrize("label", ["cost $a^$", "$x$", "a\\$b", "<b>&amp;", "\u202eevil",
                                   'say "hi", ok'])
def test_compare_report_with_hostile_labels_and_column(tmp_path, capsys, label):
    """The reported failure: `$...$` in a label broke `compare --report` (mathtext)."""
    data = tmp_path / "my $data$ <file>.csv"
    rng = np.random.default_rng(1)
    column = f"truth {label}"
    with data.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(["x", "y", column])
        for i in range(45):
            c = i % 3
            writer.writerow([f"{rng.normal(c * 6):.3f}", f"{rng.normal():.3f}",
                             label if c == 0 else f"other{c}"])
    out = tmp_path / "report"
    code, stdout, err = cli_run(capsys, "compare", "--data", data, "--label-col", column,
                                "--algorithms", "kmeans", "--metrics", "ari", "--report", out)
    assert code == 0, err
    assert err == f"clustermetrics: report written to {out / 'index.html'}\n"
    from clustermetrics.render.text import visible

    parser = _Cells()
    parser.feed((out / "index.html").read_text(encoding="utf-8"))
    assert visible(label) in parser.cells  # as the text tables and the heatmap show it
    assert f"Chosen run: kmeans on {data.name}" in parser.cells
    assert (out / "contingency_heatmap.png").read_bytes().startswith(b"\x89PNG")


@pytest.mark.parametrize("value, expected", [
    (decimal.Decimal("1.50"), "1.50"),
    (datetime.date(2024, 2, 29), "2024-02-29"), (b"\x00a", "b'\\x00a'"),
    (2**80, 2**80), (0.1, 0.1), (np.int64(-3), -3), (np.float32(0.5), 0.5),
])
def test_json_label_rule_on_the_reported_types(value, expected):
    """`--format json` failed on dates, Decimals and bytes and wrote a bare Infinity."""
    report = cm.evaluate([value, value, "z"], [1, 2, 2], "ari,recovery_rate")
    data = _strict(report.to_json(details=True, diagnostics=True))
    labels = [c["label"] for c in data["diagnostics"]["classes"]]
    assert expected in labels and "z" in labels
    assert not re.search(r"\b(NaN|Infinity)\b", report.to_json(details=True,
                                                                diagnostics=True))
