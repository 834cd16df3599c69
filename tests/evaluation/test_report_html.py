"""The HTML reports: files exist, the page is complete, references and embeds every PNG,
and every embedded image decodes. Plots: the heatmap order puts the matching on the
diagonal."""

import base64
import io
import math
import re
from html.parser import HTMLParser

import numpy as np
import pytest
from matplotlib.image import imread

from clustermetrics import Contingency, recovery
from clustermetrics.cli import main
from clustermetrics.experiments.html import Image, Section, render_page, write_report
from clustermetrics.experiments.plots import matching_order
from clustermetrics.render.tables import ResultTable

DEMO_SECTIONS = ["Recovery rates (Tables 1-2)", "Greedy below exact, pseudo misleadingly high",
                 "Timing: Algorithm 1 against exact and greedy", "All scores for n = 3",
                 "Chosen run:", "Scores of every cut of the tree", "Data"]
DEMO_IMAGES = {"recovery_vs_n", "timing", "contingency_heatmap", "projection",
               "hierarchy_curves"}


class _Tables(HTMLParser):
    """Every table of a page: its class, whether it has a head, its header cells, and
    per body cell whether it is numeric (class ``num``), its data-value and its text;
    and whether the table sits in a scrolling container."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tables, self.pre, self.wrapped, self.open = [], 0, [], []
        self.cell = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.pre += tag == "pre"
        if tag == "div":
            self.open.append(attrs.get("class"))
        if tag == "table":
            self.tables.append({"class": attrs.get("class"), "thead": False, "head": [],
                                "cells": [], "wrapped": "table-wrap" in self.open[-1:]})
        elif tag == "thead":
            self.tables[-1]["thead"] = True
        elif tag in ("th", "td"):
            self.cell = {"tag": tag, "class": attrs.get("class"),
                         "value": attrs.get("data-value"), "text": ""}

    def handle_endtag(self, tag):
        if tag == "div" and self.open:
            self.open.pop()
        if tag in ("th", "td") and self.cell is not None:
            table = self.tables[-1]
            (table["head"] if tag == "th" else table["cells"]).append(self.cell)
            self.cell = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell["text"] += data


def _check_tables(page):
    """Tables are tables: no preformatted text; every table has a head; every result
    table is sortable, in a scrolling container, its numeric cells carrying a value that
    reads back to the number shown; the sort script is in the page, once."""
    parser = _Tables()
    parser.feed(page)
    assert parser.pre == 0 and "<pre" not in page
    assert parser.tables and all(t["thead"] for t in parser.tables)
    sortable = [t for t in parser.tables if t["class"] == "sortable"]
    assert sortable and all(t["wrapped"] for t in sortable)
    numeric = [c for t in sortable for c in t["cells"] if c["value"] is not None]
    assert numeric and all(c["class"] in ("num", "num left") for c in numeric)
    for cell in numeric:
        value = float(cell["value"].replace("Infinity", "inf"))
        text = cell["text"].strip()
        if re.fullmatch(r"[-+]?\d+(\.\d+)?", text) and math.isfinite(value):
            # shown at its column's precision, or as a percentage of a rate
            digits = len(text.split(".")[1]) if "." in text else 0
            assert abs(float(text) - value) <= 0.51 * 10 ** -digits or \
                abs(float(text) - 100 * value) <= 0.51 * 10 ** -digits, cell
    assert page.count('querySelectorAll("table.sortable")') == 1
    return parser.tables


def _check_page(directory, sections, images):
    page = (directory / "index.html").read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    _check_tables(page)
    headings = re.findall(r"<h2 id=\"[^\"]*\">([^<]*)</h2>", page)
    for title in sections:
        assert any(h.startswith(title) for h in headings), (title, headings)
    files = {p.stem for p in directory.glob("*.png")}
    assert files == images
    embedded = re.findall(r'<img src="data:image/png;base64,([^"]+)"[^>]*data-file="([^"]+)"',
                          page)
    assert {name for _, name in embedded} == {f"{n}.png" for n in images}
    for name in images:
        assert f'href="{name}.png"' in page
    for data, name in embedded:
        raw = base64.b64decode(data)
        assert raw == (directory / name).read_bytes()
        pixels = imread(io.BytesIO(raw), format="png")
        assert pixels.ndim == 3 and min(pixels.shape[:2]) > 100, name
        assert pixels.std() > 0.01, f"{name} is blank"
    return page


def test_demo_report(tmp_path, capsys):
    out = tmp_path / "demo"
    code = main(["demo", "--n-min", "2", "--n-max", "3", "--n-per-cluster", "30",
                 "--algorithms", "kmeans,hdbscan", "--bruteforce-max", "4", "--timing-max",
                 "30", "--quiet", "--report", str(out)])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert f"report written to {out / 'index.html'}" in captured.err
    page = _check_page(out, DEMO_SECTIONS, DEMO_IMAGES)
    assert "Table 1. Iteration 1" in page and "stand-in" in page
    _check_diagnostics(page)


def test_compare_report_with_dropped_noise(tmp_path, capsys):
    out = tmp_path / "cmp"
    code = main(["compare", "--dataset", "iris", "--algorithms", "kmeans,hdbscan,ward",
                 "--drop-noise", "--metrics", "ari,nmi", "--show", "ward", "--report",
                 str(out)])
    assert code == 0, capsys.readouterr().err
    page = _check_page(out, ["Results", "Chosen run: ward on iris", "Data"],
                       {"contingency_heatmap", "projection"})
    assert "Every registered score, one column per run" in page
    _check_diagnostics(page)


def _check_diagnostics(page):
    """The chosen run's split and merge tables, worst first as diagnose() orders them."""
    for caption in ("Largest split errors", "Largest merge errors"):
        outside = [int(row[4]) for row in _html_rows(page, caption)]
        assert outside and outside == sorted(outside, reverse=True), caption


def test_chance_report(tmp_path, capsys):
    out = tmp_path / "chance"
    code = main(["chance", "--metrics", "ari,ami,ri,mi", "--repeats", "2", "--points", "3",
                 "--report", str(out)])
    assert code == 0, capsys.readouterr().err
    _check_page(out, ["Chance level of every score", "Chance tables"], {"chance"})


def test_render_page_escapes_and_lists_every_section():
    sections = [Section("Results <1>", ["a & b", ResultTable(["k", "v"], [["<b>", 1]], "cap")]),
                Section("Second", [])]
    page = render_page("Title", sections, "intro")
    assert "a &amp; b" in page and "&lt;b&gt;" in page
    assert page.count("<section>") == 2 and '<a href="#second">Second</a>' in page
    assert '<p class="caption">cap</p>' in page


def test_write_report_rejects_duplicate_image_names(tmp_path):
    img = Image("x", b"\x89PNG")
    with pytest.raises(ValueError, match="unique"):
        write_report(tmp_path, "t", [Section("a", [img]), Section("b", [img])])


@pytest.mark.parametrize("seed", range(5))
def test_matching_order_puts_the_optimal_matching_on_the_diagonal(seed):
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 6, size=300)
    pred = np.where(rng.random(300) < 0.6, (truth * 7) % 9, rng.integers(0, 9, size=300))
    table = Contingency.from_labels(truth, pred)
    r, c = matching_order(table)
    assert sorted(r.tolist()) == list(range(table.n_classes))
    assert sorted(c.tolist()) == list(range(table.n_clusters))
    dense = table.to_dense()[np.ix_(r, c)]
    matched = recovery(table).matching
    shares = dense / dense.sum(axis=1, keepdims=True)
    diagonal = sorted(round(shares[i, i], 12) for i in range(len(matched)))
    assert diagonal == sorted(round(w, 12) for _, _, w in matched)


def _html_rows(page, caption):
    """The body rows (cell texts, as the page writes them) of the table whose caption
    starts with ``caption``."""
    table = page.split(f'<p class="caption">{caption}', 1)[1].split("</table>", 1)[0]
    body = table.split("<tbody>", 1)[1]
    return [re.findall(r"<td[^>]*>([^<]*)</td>", row) for row in body.split("</tr>")
            if "<td" in row]


def test_compare_report_shows_the_paired_comparison_with_the_best(tmp_path, capsys):
    import json

    from clustermetrics.experiments.compare import holm

    out = tmp_path / "cmp"
    code = main(["compare", "--dataset", "iris", "--algorithms", "kmeans,ward,gmm,birch",
                 "--metrics", "ari", "--paired", "ari", "--quiet",
                 "--format", "json", "--report", str(out)])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    runs = json.loads(captured.out)
    page = _check_page(out, ["Results", "Paired comparison with the best run"],
                       {"contingency_heatmap", "projection"})
    rows = _html_rows(page, "Paired comparison with the best run of each dataset by ari")
    assert len(rows) == len(runs)
    best_score = max(r["scores"]["ari"] for r in runs)
    by_algorithm = {r["algorithm"]: r for r in runs}
    adjusted = dict(zip([r["algorithm"] for r in runs if r["scores"]["ari"] != best_score],
                        holm([r["near_best"]["pvalue"] for r in runs
                              if r["scores"]["ari"] != best_score]), strict=True))
    for dataset, algorithm, k, score, diff, interval, p, p_holm, near, skipped in rows:
        run = by_algorithm[algorithm]
        assert dataset == "iris" and k == "3"
        assert float(score) == pytest.approx(run["scores"]["ari"], abs=5e-5)
        if run["scores"]["ari"] == best_score:
            assert (diff, interval, p, p_holm, near, skipped) == \
                ("best", "-", "-", "-", "best", "-")
            continue
        assert int(skipped) == run["near_best"]["skipped"]
        # the difference is the run's score minus the best's, from the scores themselves
        assert float(diff) == pytest.approx(run["scores"]["ari"] - best_score, abs=5e-5)
        low, high = (float(x) for x in interval.strip("[]").split(","))
        assert low <= high
        assert _shows_p(p, run["near_best"]["pvalue"])
        assert _shows_p(p_holm, adjusted[algorithm])
        assert near == ("yes" if adjusted[algorithm] >= 0.05 else "no")


def _shows_p(cell: str, p: float) -> bool:
    """The cell shows ``p`` by the p-value rule: three significant digits, or "< 0.001"
    (escaped in HTML) for any p below it."""
    if cell == "&lt; 0.001":
        return p < 0.001
    return p >= 0.001 and float(cell) == pytest.approx(p, rel=5e-3)


def test_compare_report_has_no_paired_section_without_paired(tmp_path, capsys):
    out = tmp_path / "cmp"
    assert main(["compare", "--dataset", "iris", "--algorithms", "kmeans,ward", "--quiet",
                 "--report", str(out)]) == 0, capsys.readouterr().err
    page = (out / "index.html").read_text(encoding="utf-8")
    assert "Paired comparison" not in page


def test_paired_report_shows_every_score(tmp_path, capsys):
    import json

    rng = np.random.default_rng(3)
    truth = rng.integers(0, 3, 120)
    a = np.where(rng.random(120) < 0.9, truth, rng.integers(0, 3, 120))
    b = np.where(rng.random(120) < 0.4, truth, rng.integers(0, 3, 120))
    table = tmp_path / "runs.csv"
    table.write_text("t,x,y\n" + "".join(f"{i},{j},{k}\n" for i, j, k in zip(truth, a, b,
                                                                                 strict=True)))
    out = tmp_path / "rep"
    code = main(["paired", str(table), "--true-col", "t", "--a-col", "x", "--b-col", "y",
                 "--metrics", "ari,nmi", "--format", "json",
                 "--report", str(out)])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    result = json.loads(captured.out)
    page = _check_page(out, ["Paired comparison: x against y"], set())
    rows = _html_rows(page, "paired jackknife over N = 120 items")
    assert [r[0].split(" ")[0] for r in rows] == ["ari", "nmi"]
    for row in rows:
        key = row[0].split(" ")[0]
        s = result["scores"][key]
        assert float(row[1]) == pytest.approx(s["a"], abs=5e-5)
        assert float(row[2]) == pytest.approx(s["b"], abs=5e-5)
        assert float(row[3]) == pytest.approx(s["a"] - s["b"], abs=5e-5)
        low, high = (float(x) for x in row[4].strip("[]").split(","))
        assert (low, high) == pytest.approx(tuple(s["interval"]), abs=5e-5)
        assert _shows_p(row[5], s["pvalue"])
        assert row[6] == {"a": "x", "b": "y", "tie": "tie"}[s["better"]]
        assert row[7] == ("yes" if s["pvalue"] < 0.05 else "no")
