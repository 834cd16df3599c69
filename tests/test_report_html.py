"""The HTML reports: files exist, the page is complete, references and embeds every PNG,
and every embedded image decodes. Plots: the heatmap order puts the matching on the
diagonal."""

import base64
import io
import re

import numpy as np
import pytest
from matplotlib.image import imread

from clustermetrics import Contingency, recovery
from clustermetrics.cli import main
from clustermetrics.experiments.html import Image, Pre, Section, Table, render_page, write_report
from clustermetrics.experiments.plots import matching_order

DEMO_SECTIONS = ["Recovery rates (Tables 1-2)", "Greedy below exact, pseudo misleadingly high",
                 "Timing: Algorithm 1 against exact and greedy", "All scores for n = 3",
                 "Chosen run:", "Scores of every cut of the tree", "Data"]
DEMO_IMAGES = {"recovery_vs_n", "timing", "contingency_heatmap", "projection",
               "hierarchy_curves"}


def _check_page(directory, sections, images):
    page = (directory / "index.html").read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
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
        table = page.split(caption, 1)[1].split("</table>", 1)[0]
        outside = [int(row[4]) for row in re.findall(
            r"<tr><td>([^<]*)</td><td>([^<]*)</td><td>([^<]*)</td><td>([^<]*)</td>"
            r"<td>([^<]*)</td>", table)]
        assert outside and outside == sorted(outside, reverse=True), caption


def test_chance_report(tmp_path, capsys):
    out = tmp_path / "chance"
    code = main(["chance", "--metrics", "ari,ami,ri,mi", "--repeats", "2", "--points", "3",
                 "--report", str(out)])
    assert code == 0, capsys.readouterr().err
    _check_page(out, ["Chance level of every score", "Chance tables"], {"chance"})


def test_render_page_escapes_and_lists_every_section():
    sections = [Section("Results <1>", ["a & b", Pre("x < y"),
                                         Table(["k", "v"], [["<b>", 1]], "cap")]),
                Section("Second", [])]
    page = render_page("Title", sections, "intro")
    assert "a &amp; b" in page and "x &lt; y" in page and "&lt;b&gt;" in page
    assert page.count("<section>") == 2 and '<a href="#second">Second</a>' in page
    assert "<caption>cap</caption>" in page


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
