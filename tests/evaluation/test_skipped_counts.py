"""How many items, replicates or draws were skipped is in every output that reports a
result drawn from them: a paired comparison (``paired_comparison``, the ``paired``
command) as text, JSON, CSV and HTML, the runs of ``compare --paired`` likewise, and a
report's permutation tests.

An item is skipped by the paired jackknife for a score when the score is undefined for A
or B on the tables without it (here: noise excluded, and the item is the last point of
one side that is not noise). The count reported in each format is the count in the
result."""

from __future__ import annotations

import csv
import io
import json
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_escaped_once import html_nodes

import clustermetrics as cm
from clustermetrics.evaluation.paired_results import PairedComparison, PairedScore
from clustermetrics.experiments.compare import (
    RECOVERY_KEYS,
    Run,
    mark_near_best,
    runs_csv,
    runs_json,
    runs_table,
)
from clustermetrics.experiments.html import Section, render_page
from clustermetrics.experiments.pages import paired_sections, paired_table


def _noisy(rng, n, noise_share):
    t = rng.integers(0, 2, n)
    a = np.where(rng.random(n) < noise_share, -1, t)
    b = np.where(rng.random(n) < noise_share, -1, rng.integers(0, 2, n))
    return t, a, b


def _text_column(text, header, key):
    """The value of column ``header`` in the row of ``key`` of a text table (columns
    two spaces apart at least, as text_table writes them; a wide table folds, so the
    header is the first naming the column)."""
    lines = text.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("score")
                and header in line)
    at = re.split(r" {2,}", lines[head].strip()).index(header)
    row = next(line for line in lines[head + 1:] if line.split()[:1] == [key])
    cells = re.split(r" {2,}", row.strip())
    return cells[at] if at < len(cells) else ""


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([0.0, 0.5, 0.8]))
def test_every_format_of_a_paired_comparison_reports_the_skipped_items(seed, share):
    rng = np.random.default_rng(seed)
    t, a, b = _noisy(rng, 12, share)
    if (a == -1).all() or (b == -1).all():
        a[0] = b[0] = 0
    result = cm.paired_comparison(t, a, b, ["ari", "nmi"], noise_label=-1,
                                    noise="exclude")
    data = json.loads(result.to_json())
    rows = {r["score"]: r for r in csv.DictReader(io.StringIO(result.to_csv()))}
    text = str(result)
    page = html_nodes(render_page("paired", paired_sections(result)))
    for key, s in result.scores.items():
        assert data["scores"][key]["skipped"] == s.n_skipped
        assert int(rows[key]["skipped"]) == s.n_skipped
        assert int(re.sub(r"\D", "", _text_column(text, "items skipped", key))) == \
            s.n_skipped
        at = page.index(key)
        assert page[at + 8] == str(s.n_skipped)  # the row's ninth cell
    if share == 0.0:
        assert all(s.n_skipped == 0 for s in result.scores.values())


def test_the_text_shows_a_p_value_below_the_doubles_and_an_undefined_one():
    """A p-value that underflows to 0 is shown as below the floor of the p-value rule,
    not as 0; one with no leave-one-out table left (NaN) as undefined, beside its skipped
    count."""
    tiny = PairedScore("ari", 0.9, 0.1, 0.8, (0.7, 0.9), 0.0, "a", 0.05, 40.0)
    none = PairedScore("nmi", 0.5, 0.5, 0.0, (float("nan"),) * 2, float("nan"), "tie",
                       n_skipped=12)
    text = str(PairedComparison({"ari": tiny, "nmi": none}, 0.95, 12, 12))
    ari = next(line for line in text.splitlines() if line.startswith("ari "))
    assert "< 0.001" in ari and "undefined" in _text_column(text, "p-value", "nmi")
    assert _text_column(text, "items skipped", "nmi") == "12"


def _run(name, labels, table):
    scores = dict(cm.evaluate(table, metrics=["ari", *RECOVERY_KEYS.values()]))
    return Run("d", name, 0, None, 0.0, scores, {"exact": 0.0, "greedy": 0.0, "pseudo": 0.0},
               "", table, labels)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_compare_paired_reports_the_skipped_items(seed):
    rng = np.random.default_rng(seed)
    t, a, b = _noisy(rng, 14, 0.7)
    a[0] = b[0] = 0
    runs = [_run(name, labels, cm.evaluate(t, labels, ["ari"], noise_label=-1,
                                           noise="exclude").table)
            for name, labels in (("x", a), ("y", b))]
    mark_near_best(runs, {"d": t}, "ari", noise="exclude")
    other = next(r for r in runs if not r.near_best.is_best)
    skipped = other.near_best.n_skipped
    assert skipped == cm.paired_comparison(
        t, other.labels, next(r for r in runs if r is not other).labels, "ari",
        noise_label=-1, noise="exclude")["ari"].n_skipped
    data = {r["algorithm"]: r for r in json.loads(runs_json(runs))}
    assert data[other.algorithm]["near_best"]["skipped"] == skipped
    rows = {r["algorithm"]: r for r in csv.DictReader(io.StringIO(runs_csv(runs)))}
    assert int(rows[other.algorithm]["near_best_skipped"]) == skipped
    text = runs_table(runs, ["ari"])
    assert (f"{skipped} of the items skipped" in text) == (skipped > 0)
    cells = html_nodes(render_page("p", [Section("p", [paired_table(runs)])]))
    assert "items skipped" in cells and str(skipped) in cells


def test_a_reports_permutation_tests_count_their_skipped_draws_in_every_format():
    table = cm.Contingency.from_labels([0, 0, 1, 1], [0, 1, 0, 1])
    tests = {"ari": cm.PermutationTest("ari", 0.0, 0.5, 0.1, 0.0, 0.2, 20, 4, "shuffle"),
             "nmi": cm.PermutationTest("nmi", 0.0, 0.5, 0.1, 0.0, 0.2, 20, 0, "shuffle")}
    report = cm.Report(table, {"ari": 0.0, "nmi": 0.0}, {}, {}, permutation=tests)
    rows = {r["metric"]: r for r in csv.DictReader(io.StringIO(report.to_csv()))}
    data = json.loads(report.to_json())
    for key, test in tests.items():
        assert int(rows[key]["perm_skipped"]) == test.n_skipped
        assert data["permutation"][key]["n_skipped"] == test.n_skipped
    assert "skipped: ari 4" in report.format()
    nodes = html_nodes(report._repr_html_())
    assert "permutation n_skipped" in nodes and "4" in nodes
