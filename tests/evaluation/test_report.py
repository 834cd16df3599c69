"""Report.to_markdown and Report.to_latex (and MultiReport's): the score table and the
diagnostics, ready to paste, with every value, interval, p-value and note of the text
report, whatever the labels hold."""

import math

from hypothesis import given, settings
from hypothesis import strategies as st
from table_readers import latex_tables, markdown_tables

import clustermetrics as cm
from clustermetrics.inference.permutation import PermutationTest
from clustermetrics.render.text import pvalue_text

HOSTILE = st.sampled_from(["a&b", "50%", "$x$", "#1", "x_y", "{z}", "~", "^", "\\", "|", "<i>",
                           "*e*", "[k]", "line\nbreak", "\x1b[31m", "\u202eevil", "日本"])


def _scores(table):
    """score key -> its row (cells) in a read-back table of a report."""
    return {row[0]: row for row in table[1:]}


def test_every_value_interval_and_p_value_is_in_both():
    rng = [0, 0, 1, 1, 2, 2, 2, 0, 1, 2] * 5
    pred = [0, 0, 1, 2, 2, 2, 1, 0, 1, 2] * 5
    report = cm.evaluate(rng, pred, "ari,nmi,recovery_rate", ci=0.9, n_boot=30, seed=2,
                         significance=True)
    for tables in (markdown_tables(report.to_markdown()), latex_tables(report.to_latex())):
        (scores,) = tables
        assert scores[0][:4] == ["metric", "score", "value",
                                 "90% bias-corrected normal bootstrap interval"]
        assert scores[0][4:] == ["z", "p-value"]
        rows = _scores(scores)
        assert list(rows) == list(report)
        for key, value in report.items():
            row = rows[key]
            assert row[1] == cm.METRICS[key].name and float(row[2]) == round(value, 6)
            iv = report.intervals[key]
            low, high = (float(x) for x in row[3].strip("[] *!").split(","))
            assert (low, high) == (round(iv.low, 6), round(iv.high, 6))
            sig = report.significance.get(key)
            assert row[5] == ("" if sig is None else pvalue_text(sig.pvalue))
    markdown, latex = report.to_markdown(), report.to_latex()
    assert "Table: N = 50, 3 classes, 3 clusters" in markdown
    assert r"\caption{N = 50, 3 classes, 3 clusters}" in latex
    assert "bootstrap: 30 replicates, seed 2, bias-corrected normal intervals" in markdown
    assert r"bootstrap: 30 replicates, seed 2, bias-corrected normal intervals\par" in latex


def test_a_permutation_p_value_sorts_by_its_value():
    """The permutation cell shows p ± its standard error; its number is p."""
    report = cm.evaluate([0, 0, 1, 1] * 5, [0, 1, 1, 1] * 5, "ari", n_perm=20, seed=1)
    (table,) = report.blocks()
    test = report.permutation["ari"]
    assert isinstance(test, PermutationTest)
    cell = table.rows[0][-1]
    assert cell.value == test.pvalue and cell.text.startswith(pvalue_text(test.pvalue))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(HOSTILE, HOSTILE), min_size=2, max_size=12))
def test_diagnostics_of_any_labels_are_well_formed(pairs):
    truth, pred = [a for a, _ in pairs], [b for _, b in pairs]
    report = cm.evaluate(truth, pred, "ari")
    md = markdown_tables(report.to_markdown(diagnostics="all"))
    tex = latex_tables(report.to_latex(diagnostics="all"))
    assert md == tex and len(md) == 3
    scores, splits, merges = md
    assert len(splits) == 1 + report.table.n_classes
    assert len(merges) == 1 + report.table.n_clusters
    assert float(_scores(scores)["ari"][2]) == round(report["ari"], 6) or \
        math.isnan(report["ari"])


def test_multi_report_gives_its_table_and_every_reference_s_diagnostics():
    truth = {"first <ref>": [0, 0, 1, 1, 2, 2], "second_ref": [0, 1, 1, 1, 2, 2]}
    multi = cm.evaluate(truth, [0, 0, 1, 1, 1, 2], "ari,nmi")
    md, tex = multi.to_markdown(diagnostics=2), multi.to_latex(diagnostics=2)
    assert markdown_tables(md) == latex_tables(tex)
    best = markdown_tables(md)[0]
    assert best[0][:4] == ["metric", "score", "best", "best reference"]
    assert {row[3] for row in best[1:]} <= set(truth)
    assert r"against first \<ref\>:" in md and r"against second\_ref:" in tex
    assert len(markdown_tables(md)) == 1 + 2 * len(truth)
