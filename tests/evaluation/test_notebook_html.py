"""Notebook views (``_repr_html_``): every score with its direction and every per-score
field of the report, colours that follow each score's own direction, escaped labels, and a
contingency heatmap capped and summing to the table."""

import html
import math
import re

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import clustermetrics as cm
from clustermetrics import METRICS, Contingency, evaluate
from clustermetrics.evaluation.report import Report, goodness

HOSTILE = ["<script>alert(1)</script>", 'a"b', "x&y", "line\nbreak", "\u202eevil"]


def _cells(page):
    """Text of every body cell, unescaped."""
    return [html.unescape(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", page)]


def test_report_html_shows_every_score_and_interval():
    t = [0, 0, 1, 1, 2, 2, 2, 1]
    p = [0, 0, 1, -1, 1, 2, 2, 1]
    r = evaluate(t, p, ["ari", "vi", "clustering_ratio"], noise_label=-1, ci=0.9, n_boot=40,
                 seed=3)
    page = r._repr_html_()
    cells = _cells(page)
    for key, value in r.items():
        assert key in cells and METRICS[key].name in cells
        assert f"{value:.6f}" in cells
        iv = r.intervals[key]
        assert f"[{iv.low:.6f}, {iv.high:.6f}]" in cells
    assert "intervals" in page and "noise" in page
    assert "\u2191 higher" in cells and "\u2193 lower" in cells and "\u2192 1" in cells


def test_report_html_renders_fields_added_later():
    """A per-score field the report's data gains (a significance test, say) becomes a
    column without the view knowing its name."""
    base = evaluate([0, 0, 1, 1], [0, 1, 1, 1], ["ari", "nmi"])

    class WithP(Report):
        def to_dict(self, *args, **kwargs):
            return dict(super().to_dict(*args, **kwargs),
                        p_value={"ari": 0.0123, "nmi": 0.5},
                        null={"ari": {"mean": 0.25, "std": 0.5}, "nmi": {"mean": 0.0,
                                                                       "std": 1.0}})

    page = WithP(base.table, dict(base), {}, {})._repr_html_()
    heads = [html.unescape(h) for h in re.findall(r"<th[^>]*>(.*?)</th>", page)]
    assert {"p_value", "null mean", "null std"} <= set(heads)
    assert "0.012300" in _cells(page)


def test_multireport_html_escapes_reference_names():
    refs = {name: [0, 0, 1, 1, 2] for name in HOSTILE}
    page = evaluate(refs, [0, 0, 1, 2, 2], ["ari"])._repr_html_()
    assert "<script>" not in page
    assert "&lt;script&gt;" in page and "\\u202eevil" in page and "line\\nbreak" in page


def test_table_and_diagnostics_escape_labels():
    truth = [HOSTILE[i % len(HOSTILE)] for i in range(30)]
    pred = [HOSTILE[(i * 7) % len(HOSTILE)] + "!" for i in range(30)]
    for obj in (Contingency.from_labels(truth, pred), cm.diagnose(truth, pred)):
        page = obj._repr_html_()
        assert "<script>" not in page and "\n" not in page and "\u202e" not in page
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page


@given(st.integers(1, 120), st.integers(1, 120), st.integers(0, 2**31))
@settings(max_examples=25, deadline=None)
def test_table_heatmap_capped_and_complete(n_classes, n_clusters, seed):
    rng = np.random.default_rng(seed)
    n = 300
    t = Contingency.from_labels(rng.integers(0, n_classes, n), rng.integers(0, n_clusters, n))
    page = t._repr_html_()
    body = page.split("<tbody>", 1)[1]
    rows = [(html.unescape(h), cells) for h, cells in
            re.findall(r"<tr><th[^>]*>(.*?)</th>(.*?)</tr>", body)]
    counts = [[int(c) for c in re.findall(r"<td[^>]*>(\d+)</td>", body)] for _, body in rows]
    assert len(rows) == min(t.n_classes, 40)
    assert {len(r) for r in counts} == {min(t.n_clusters, 40)}
    assert sum(map(sum, counts)) == t.n_samples
    if t.n_classes > 40:
        assert rows[-1][0] == f"+{t.n_classes - 39} others"
    if t.n_classes <= 40 and t.n_clusters <= 40:  # every cell shown where it belongs
        dense = t.to_dense()
        shown = np.array(counts)
        assert sorted(shown.sum(axis=0).tolist()) == sorted(dense.sum(axis=0).tolist())
        assert shown.sum(axis=1).tolist() == dense.sum(axis=1).tolist()


def test_goodness_follows_each_scores_direction():
    """Registry-wide: the perfect value is the best colour, and a better value (in the
    score's own direction, MetricInfo.is_better) never gets a worse colour."""
    rng = np.random.default_rng(0)
    for key, entry in METRICS.items():
        if entry.perfect is not None:
            assert goodness(key, entry.perfect) == 1.0, key
        lo = entry.lower if math.isfinite(entry.lower) else -10.0
        hi = entry.upper if math.isfinite(entry.upper) else 10.0
        values = rng.uniform(lo, hi, 50)
        for a, b in zip(values[:25], values[25:], strict=True):
            if entry.is_better(a, b):
                assert goodness(key, a) >= goodness(key, b), (key, a, b)
        assert all(0.0 <= goodness(key, v) <= 1.0 for v in values), key
        assert math.isnan(goodness(key, math.nan))
