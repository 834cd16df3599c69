"""diagnose(): per-class splits and per-cluster merges against a direct dense computation."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clustermetrics import Contingency, evaluate
from clustermetrics.evaluation.diagnostics import diagnose


def _reference(dense, row_labels, col_labels, min_share):
    """Class-side rows by looping over a dense matrix, sorted worst first."""
    out = []
    for i, row in enumerate(dense.tolist()):
        size = sum(row)
        best = max(range(len(row)), key=lambda j: (row[j], -j))  # first maximum
        parts = sorted(((col_labels[j], row[j], row[j] / size) for j in range(len(row))
                        if row[j] > 0 and row[j] >= min_share * size),
                       key=lambda e: (-e[1], col_labels.index(e[0])))
        out.append((row_labels[i], size, col_labels[best], row[best], row[best] / size,
                    size - row[best], tuple(parts)))
    order = sorted(range(len(out)), key=lambda i: (-out[i][5], i))
    return [out[i] for i in order]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 6)), min_size=1, max_size=80),
       st.sampled_from([0.05, 0.2, 0.5, 1.0]))
def test_matches_dense_loops_on_both_sides(pairs, min_share):
    t = [f"c{a}" for a, _ in pairs]
    p = [b * 10 for _, b in pairs]
    table = Contingency.from_labels(t, p)
    d = diagnose(t, p, min_share=min_share)
    rows, cols = table.class_labels.tolist(), table.cluster_labels.tolist()
    dense = table.to_dense()
    assert [tuple(c) for c in d.classes] == _reference(dense, rows, cols, min_share)
    assert [tuple(c) for c in d.clusters] == _reference(dense.T, cols, rows, min_share)


def test_worked_example_and_sums():
    t = ["a"] * 6 + ["b"] * 3 + ["c"] * 1
    p = [0, 0, 0, 1, 1, 2, 2, 2, 2, 2]
    d = diagnose(t, p, min_share=0.3)
    assert [c.label for c in d.classes] == ["a", "b", "c"]  # a loses 3, b 0, c 0
    a = d.classes[0]
    assert (a.best_cluster, a.best_count, a.split) == (0, 3, 3)
    assert a.splits == ((0, 3, 0.5), (1, 2, 2 / 6))  # cluster 2 holds 1/6 < 0.3
    two = d.clusters[0]
    assert (two.label, two.majority_class, two.purity, two.merged) == (2, "b", 0.6, 2)
    assert sum(c.split for c in d.classes) == 10 - sum(c.best_count for c in d.classes)


def test_report_diagnostics_and_rendering():
    report = evaluate([0, 0, 1, 1, 1], ["x", "y", "y", "y", "z"], metrics="ari")
    d = report.diagnostics
    assert d == diagnose(report.table)
    text = d.format(top=1)
    assert "split errors" in text and "merge errors" in text
    assert "(largest first; 1 of 2)" in text and "(largest first; 1 of 3)" in text
    assert report.to_dict(diagnostics=True, top=1)["diagnostics"]["classes"][0]["label"] == 0


@pytest.mark.parametrize("bad", [0, -0.1, 1.5, "x", True, None])
def test_bad_min_share(bad):
    with pytest.raises(ValueError, match="min_share must be a number in"):
        diagnose([0, 1], [0, 1], min_share=bad)


def _expected_rows(value, total):
    """The one rule: None / "all" list every row, a positive integer (or its digits, with
    surrounding whitespace as typed on a command line) that many; anything else is refused."""
    if isinstance(value, str):
        value = value.strip()
    if value is None or value == "all":
        return total
    if isinstance(value, str) and value.isascii() and value.isdigit():
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool) and value >= 1:
        return min(value, total)
    return "refused"


row_counts = st.one_of(st.none(), st.just("all"), st.integers(-3, 8), st.booleans(),
                       st.floats(-2, 5), st.text(max_size=3),
                       st.integers(-3, 8).map(str))


@settings(max_examples=80, deadline=None)
@given(row_counts)
def test_every_row_count_goes_through_one_check(value):
    """Diagnostics.format / to_dict, Report and MultiReport renderings, and the CLI's
    --details accept and refuse the same values."""
    t = ["a", "a", "b", "b", "c", "c"]
    p = [0, 1, 1, 2, 2, 0]
    report = evaluate(t, p, "ari")
    multi = evaluate({"x": t, "y": p}, p, "ari")
    expected = _expected_rows(value, 3)
    renders = [lambda: report.diagnostics.format(value),
               lambda: report.diagnostics.to_dict(value)["classes"],
               lambda: report.to_dict(diagnostics=True, top=value)["diagnostics"]["classes"],
               lambda: multi.to_dict(diagnostics=True, top=value)]
    if type(value) is int and value == 0:  # Report.format's "no diagnostics"
        assert "split errors" not in report.format(value) + multi.format(value)
    else:
        renders += [lambda: report.format(value), lambda: multi.format(value)]
    for render in renders:
        if expected == "refused":
            with pytest.raises(ValueError, match=r"(top|diagnostics) takes a positive number "
                                                 r"of rows or 'all', got"):
                render()
        else:
            render()
    if expected != "refused":
        assert len(report.diagnostics.to_dict(value)["classes"]) == expected
        assert f"(largest first; {expected} of 3)" in report.diagnostics.format(value)


@pytest.mark.parametrize("text", ["all", "2", "0", "-1", "x", "1.5", "", " 3"])
def test_cli_details_uses_the_same_check(capsys, tmp_path, text):
    from cli_helpers import run as cli_run

    truth, pred = tmp_path / "t.txt", tmp_path / "p.txt"
    truth.write_text("a\na\nb\nb\nc\nc\n")
    pred.write_text("0\n1\n1\n2\n2\n0\n")
    code, out, err = cli_run(capsys, "score", truth, pred, "--metrics", "ari", "--details",
                             text)
    expected = _expected_rows(text.strip() if text.strip().isdigit() else text, 3)
    if expected == "refused":
        assert code == 2 and err == ("clustermetrics: error: --details takes a positive "
                                     f"number of rows or 'all', got {text!r}\n")
    else:
        assert code == 0 and f"(largest first; {expected} of 3)" in out
