"""The paired comparison: its two tables are the margins of the three-way table, its
jackknife equals leaving each item out of the labels (an independent brute force), the
verdict and the interval never contradict each other, equally good clusterings are
declared different at the nominal rate (simulated), and clearly different ones are told
apart."""

from __future__ import annotations

import csv
import io
import json
import math
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import clustermetrics as cm
from clustermetrics.evaluation.jackknife import _ThreeWay, jackknife_t
from clustermetrics.evaluation.paired import paired_comparison
from clustermetrics.evaluation.paired_results import FLAG_CONSTANT


def _same_table(x: cm.Contingency, y: cm.Contingency) -> None:
    assert x.class_labels.tolist() == y.class_labels.tolist()
    assert x.cluster_labels.tolist() == y.cluster_labels.tolist()
    assert (x.to_dense() == y.to_dense()).all()


def _cell_order(t, a, b):
    """The distinct (truth, a, b) triples in the three-way table's cell order, found
    independently: by their (truth, a) cell and then (truth, b) cell in the two tables."""
    ta, tb = cm.Contingency.from_labels(t, a), cm.Contingency.from_labels(t, b)
    cells_a = sorted(zip(ta.rows.tolist(), ta.cols.tolist(), strict=True))
    cells_b = sorted(zip(tb.rows.tolist(), tb.cols.tolist(), strict=True))

    def rank(triple):
        ti, ai, bi = triple
        row = ta.class_labels.tolist().index(ti)
        return (cells_a.index((row, ta.cluster_labels.tolist().index(ai))),
                cells_b.index((row, tb.cluster_labels.tolist().index(bi))))
    return sorted(set(zip(t, a, b, strict=True)), key=rank)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_margins_are_the_two_tables_and_a_replicates_items(data):
    n = data.draw(st.integers(1, 40))
    ints, strs = st.sampled_from([0, 1, 2, 7, -3]), st.sampled_from(["a", "b", "c"])
    t = data.draw(st.lists(ints, min_size=n, max_size=n))
    a = data.draw(st.lists(strs, min_size=n, max_size=n))
    b = data.draw(st.lists(ints, min_size=n, max_size=n))
    three = _ThreeWay(np.array(t), np.array(a), np.array(b))
    _same_table(three.table_a, cm.Contingency.from_labels(t, a))
    _same_table(three.table_b, cm.Contingency.from_labels(t, b))
    triples = _cell_order(t, a, b)
    items = list(zip(t, a, b, strict=True))
    assert three.counts.tolist() == [items.count(c) for c in triples]
    # a replicate's margins are the tables of the items it drew
    seed = data.draw(st.integers(0, 99))
    counts = np.random.default_rng(seed).multinomial(n, three.counts / n)
    drawn = [c for c, k in zip(triples, counts.tolist(), strict=True) for _ in range(k)]
    tt, aa, bb = (list(x) for x in zip(*drawn, strict=True))
    _same_table(three.table_a.with_counts(three.margin_a(counts)),
                cm.Contingency.from_labels(tt, aa))
    _same_table(three.table_b.with_counts(three.margin_b(counts)),
                cm.Contingency.from_labels(tt, bb))


def test_identical_clusterings_tie_with_p_one():
    rng = np.random.default_rng(0)
    t, p = rng.integers(0, 3, 100), rng.integers(0, 4, 100)
    r = paired_comparison(t, p, p, ["ari", "nmi", "clustering_error"])
    for s in r.scores.values():
        assert s.difference == 0.0 and s.better == "tie" and s.pvalue == 1.0
        assert s.interval == (0.0, 0.0)


def _equally_good(rng, n, k=5, noise=0.3):
    t = rng.integers(0, k, n)
    a = np.where(rng.random(n) < noise, rng.integers(0, k, n), t)
    b = np.where(rng.random(n) < noise, rng.integers(0, k, n), t)
    return t, a, b


def test_clearly_better_clustering_is_found_better():
    rng = np.random.default_rng(7)
    found = 0
    for _ in range(10):
        t = rng.integers(0, 4, 300)
        good = np.where(rng.random(300) < 0.1, rng.integers(0, 4, 300), t)
        poor = np.where(rng.random(300) < 0.6, rng.integers(0, 4, 300), t)
        r = paired_comparison(t, good, poor, ["ari", "clustering_error"])
        assert r["clustering_error"].difference < 0  # lower is better: a's error is lower
        found += all(s.better == "a" and s.pvalue < 0.05 for s in r.scores.values())
    assert found == 10


def test_degenerate_leave_one_out_tables_are_skipped_not_fatal():
    """noise="exclude": leaving out the one clustered item of a class can leave a table
    the score is undefined on; those items are skipped and counted, the rest judged."""
    t = [0, 0, 0, 0, 0, 1, 1, 1, 1, 1]
    a = [0, 0, 0, -1, -1, 1, 1, -1, -1, -1]
    b = [0, 0, 1, 1, -1, 1, 1, 0, -1, -1]
    r = paired_comparison(t, a, b, "ari", noise_label=-1, noise="exclude")
    assert 0 <= r["ari"].n_skipped < 10
    assert math.isfinite(r["ari"].se)


@pytest.mark.parametrize("kwargs, message", [
    ({"labels_b": [0, 1]}, "labels_true and labels_b have different lengths"),
    ({"ci": 1.5}, "ci must be a confidence level"),
    ({"ci": True}, "ci must be a confidence level"),
    ({"metrics": "nope"}, "unknown metric 'nope'"),
    ({"noise_label": -1, "noise": "drop"}, "noise must be one of"),
    ({"names": ("x", "x")}, "names must be two different names"),
    ({"names": "ab"}, "names must be two different names"),
])
def test_bad_input_is_refused_naming_the_argument(kwargs, message):
    args = {"labels_true": [0, 0, 1], "labels_a": [0, 1, 1], "labels_b": [1, 1, 0]}
    args.update(kwargs)
    with pytest.raises(ValueError, match=message):
        paired_comparison(**args)


def test_outputs_are_strict_json_a_table_and_csv():
    rng = np.random.default_rng(3)
    t, a, b = _equally_good(rng, 80)
    r = paired_comparison(t, a, b, ["ari", "recovery_rate"], names=("kmeans", "gmm"))
    data = json.loads(r.to_json(), parse_constant=lambda c: pytest.fail(c))
    assert set(data["scores"]) == {"ari", "recovery_rate"}
    for key, s in r.scores.items():
        got = data["scores"][key]
        assert (got["se"], got["df"], got["pvalue"]) == (s.se, s.df, s.pvalue)
        assert got["interval"] == list(s.interval) and got["flags"] == []
        assert got["significant"] == s.significant()
    rows = list(csv.DictReader(io.StringIO(r.to_csv())))
    assert [row["score"] for row in rows] == ["ari", "recovery_rate"]
    assert float(rows[0]["pvalue"]) == r["ari"].pvalue and rows[0]["flags"] == ""
    text = str(r)
    assert "kmeans" in text and "gmm" in text and "recovery_rate" in text


def test_command_line_formats_and_one_line_errors(tmp_path, capsys):
    from clustermetrics.cli.main import main

    rng = np.random.default_rng(5)
    t, a, b = _equally_good(rng, 60)
    for name, values in (("t", t), ("a", a), ("b", b)):
        (tmp_path / f"{name}.txt").write_text("\n".join(map(str, values)) + "\n")
    (tmp_path / "all.csv").write_text("y,km,gm\n" + "".join(
        f"{x},{y},{z}\n" for x, y, z in zip(t, a, b, strict=True)))
    files = [str(tmp_path / f"{n}.txt") for n in "tab"]
    assert main(["paired", *files, "--metrics", "ari", "--format", "json"]) == 0
    by_files = json.loads(capsys.readouterr().out)
    assert main(["paired", str(tmp_path / "all.csv"), "--true-col", "y", "--a-col", "km",
                 "--b-col", "gm", "--metrics", "ari", "--format", "json"]) == 0
    by_table = json.loads(capsys.readouterr().out)
    assert by_table["names"] == ["km", "gm"]
    assert by_table["scores"] == by_files["scores"]
    assert main(["paired", *files, "--metrics", "ari", "--format", "csv"]) == 0
    assert capsys.readouterr().out.startswith(
        "score,A,B,difference,low,high,se,df,pvalue,significant,better,flags,skipped")
    for bad in (["--ci", "2"], ["--metrics", "nope"], ["--noise", "exclude"],
                ["--names", "x"]):
        assert main(["paired", *files, *bad]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("clustermetrics: error: ")
    assert main(["paired", files[0], files[1]]) == 2
    assert "three label files" in capsys.readouterr().err


def test_holm_adjustment_against_its_definition():
    from clustermetrics.experiments.compare import holm

    rng = np.random.default_rng(11)
    for _ in range(200):
        p = rng.random(rng.integers(1, 8)).tolist()
        order = sorted(range(len(p)), key=lambda i: p[i])
        m = len(p)
        want = [0.0] * m
        for rank, i in enumerate(order):  # max over earlier ranks of (m - rank) p, capped
            want[i] = min(1.0, max((m - r) * p[order[r]] for r in range(rank + 1)))
        assert holm(p) == pytest.approx(want, abs=1e-15)


def test_compare_marks_runs_not_significantly_worse_than_the_best():
    from clustermetrics.experiments.compare import mark_near_best

    class FakeRun:
        def __init__(self, algorithm, labels, truth):
            self.dataset, self.algorithm, self.k, self.labels = "d", algorithm, 3, labels
            self.scores = {"ari": cm.adjusted_rand_score(truth, labels)}
            self.near_best = None

    rng = np.random.default_rng(4)
    truth = rng.integers(0, 3, 300)
    good = np.where(rng.random(300) < 0.05, rng.integers(0, 3, 300), truth)
    twin = good.copy()
    poor = np.where(rng.random(300) < 0.7, rng.integers(0, 3, 300), truth)
    runs = [FakeRun("poor", poor, truth), FakeRun("good", good, truth),
            FakeRun("twin", twin, truth)]
    mark_near_best(runs, {"d": truth}, "ari")
    by = {r.algorithm: r.near_best for r in runs}
    assert by["poor"].pvalue < 0.05 and not by["poor"].tied
    assert (by["good"].is_best and by["twin"].tied) or (by["twin"].is_best and by["good"].tied)


def test_command_line_refuses_what_it_cannot_honour(tmp_path, capsys):
    from clustermetrics.cli.main import main

    (tmp_path / "t.txt").write_text("0\n0\n1\n1\n")
    (tmp_path / "a.txt").write_text("0\n0\n1\n1\n")
    (tmp_path / "short.txt").write_text("0\n1\n")
    (tmp_path / "all.csv").write_text("t,a,b\n0,0,1\n0,0,0\n1,1,1\n")
    files = [str(tmp_path / n) for n in ("t.txt", "a.txt")]
    cases = [([*files, str(tmp_path / "short.txt")], "has 4 labels but B"),
             ([str(tmp_path / "all.csv"), "--true-col", "t", "--a-col", "a", "--b-col", "b",
               "--header"], "--header applies to the three-file form"),
             ([*files, files[1], "--names", "x,x"], "two different names")]
    for argv, message in cases:
        assert main(["paired", *argv]) == 2
        assert message in capsys.readouterr().err


def test_several_runs_show_significance_and_permutations_in_the_table(tmp_path, capsys):
    from clustermetrics.cli.main import main

    (tmp_path / "m.csv").write_text("t,a,b\n0,0,1\n0,0,0\n1,1,1\n1,1,0\n2,2,2\n2,2,2\n")
    assert main(["score", str(tmp_path / "m.csv"), "--true-col", "t", "--pred-col", "a",
                 "--pred-col", "b", "--metrics", "ari", "--significance", "--permutations",
                 "20", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "a z" in out and "b p-value" in out and "b permutation p-value" in out


# ----------------------------------------------------------------- sample_weight
@settings(max_examples=40, deadline=None)
@given(st.data())
def test_weighted_tables_are_the_weighted_tables_of_the_items(data):
    n = data.draw(st.integers(1, 30))
    t = data.draw(st.lists(st.sampled_from([0, 1, 2]), min_size=n, max_size=n))
    a = data.draw(st.lists(st.sampled_from(["x", "y"]), min_size=n, max_size=n))
    b = data.draw(st.lists(st.sampled_from([5, 6, 7]), min_size=n, max_size=n))
    w = data.draw(st.lists(st.integers(0, 4), min_size=n, max_size=n))
    if not any(w):
        w[0] = 1
    three = _ThreeWay(np.array(t), np.array(a), np.array(b), np.array(w))
    repeat = [i for i, k in enumerate(w) for _ in range(k)]
    _same_table(three.table_a, cm.Contingency.from_labels([t[i] for i in repeat],
                                                          [a[i] for i in repeat]))
    _same_table(three.table_b, cm.Contingency.from_labels(t, b, sample_weight=w))
    assert three.n == sum(w) and three.n_items == sum(1 for k in w if k)
    # the jackknife's units: per (cell, weight), its items, each leaving out its weight
    units = three.jackknife_units()
    assert units.weight.sum() == three.n_items == units.n_groups + sum(
        units.weight - 1)
    per_cell = np.zeros(three.counts.shape[0], dtype=np.int64)
    np.add.at(per_cell, units.cell, units.weight.astype(np.int64) * units.amount)
    assert per_cell.tolist() == three.counts.tolist()


def test_unit_weights_give_the_unweighted_comparison():
    rng = np.random.default_rng(5)
    t, a, b = _equally_good(rng, 150)
    plain = paired_comparison(t, a, b, ["ari", "nmi"])
    ones = paired_comparison(t, a, b, ["ari", "nmi"],
                               sample_weight=np.ones(150, dtype=int))
    assert plain.scores == ones.scores


def test_weights_leave_out_items_not_copies():
    """A constant weight c leaves a scale-free score's comparison as it is (items carry
    their weights), where leaving out copies (c copies of each item) would narrow the
    interval by about sqrt(c)."""
    rng = np.random.default_rng(8)
    t, a, b = _equally_good(rng, 200)
    plain = paired_comparison(t, a, b, "nmi")["nmi"]
    weighted = paired_comparison(t, a, b, "nmi", sample_weight=np.full(200, 9))["nmi"]
    copies = paired_comparison(*(np.repeat(x, 9) for x in (t, a, b)), "nmi")["nmi"]
    assert weighted.difference == pytest.approx(plain.difference, abs=1e-12)
    assert weighted.interval == pytest.approx(plain.interval, abs=1e-12)
    assert weighted.pvalue == pytest.approx(plain.pvalue, rel=1e-9)

    def width(s):
        return s.interval[1] - s.interval[0]
    assert width(copies) < 0.5 * width(weighted)


def test_weighted_false_positive_rate_is_nominal_when_equally_good():
    """Equally good A and B, weights 1 to 6 per item: leaving out the items with their
    weights keeps "A differs from B" at about alpha (copies would reject far more)."""
    rng = np.random.default_rng(99)
    m, alpha, rejected = 100, 0.05, 0
    for _ in range(m):
        t, a, b = _equally_good(rng, 150)
        w = rng.integers(1, 7, 150)
        r = paired_comparison(t, a, b, "ari", sample_weight=w)
        rejected += r["ari"].pvalue < alpha
    assert rejected / m <= alpha + 3 * math.sqrt(alpha * (1 - alpha) / m), rejected


@pytest.mark.parametrize("weights, message", [
    ([1, 1], "labels_true and sample_weight have different lengths"),
    ([1, -1, 1], "sample_weight holds 1 negative weights"),
    ([1, float("inf"), 1], "sample_weight holds 1 infinite weights"),
    ([0, 0, 0], "sample_weight is 0 for every item"),
    ([1, float("nan"), 1], "sample_weight holds 1 NaN weights"),
    ("abc", "sample_weight must be a sequence"),
])
def test_bad_weights_are_refused_naming_sample_weight(weights, message):
    with pytest.raises(ValueError, match=message):
        paired_comparison([0, 0, 1], [0, 1, 1], [1, 1, 0], "ari", sample_weight=weights)


def test_command_line_weight_column(tmp_path, capsys):
    from clustermetrics.cli.main import main

    rng = np.random.default_rng(12)
    t, a, b = _equally_good(rng, 80)
    w = rng.integers(0, 4, 80)
    (tmp_path / "m.csv").write_text("t,a,b,w\n" + "".join(
        f"{x},{y},{z},{v}.0\n" for x, y, z, v in zip(t, a, b, w, strict=True)))
    argv = ["paired", str(tmp_path / "m.csv"), "--true-col", "t", "--a-col", "a", "--b-col",
            "b", "--metrics", "ari,nmi"]
    assert main([*argv, "--weight-col", "w", "--format", "json"]) == 0
    got = json.loads(capsys.readouterr().out)
    want = paired_comparison(t.astype(str), a.astype(str), b.astype(str), ["ari", "nmi"],
                               sample_weight=w, names=("a", "b"))
    assert got["scores"] == json.loads(want.to_json())["scores"]
    assert got["n_samples"] == int(w.sum())
    for extra, message in ((["--weight-col", "q"], "no column 'q' (--weight-col)"),
                           (["--weight-col", "a"],
                            "--weight-col names 'a', the column of --a-col")):
        assert main([*argv, *extra]) == 2
        err = capsys.readouterr().err
        assert len(err.splitlines()) == 1 and message in err, err
    (tmp_path / "bad.csv").write_text("t,a,b,w\n0,0,0,1\n1,1,0,-1\n")
    assert main(["paired", str(tmp_path / "bad.csv"), "--true-col", "t", "--a-col", "a",
                 "--b-col", "b", "--weight-col", "w"]) == 2
    assert "column 'w' (--weight-col) holds 1 negative weights" in capsys.readouterr().err


# ----------------------------------------------------------------- real weights
@settings(max_examples=30, deadline=None)
@given(st.data())
def test_real_weighted_tables_and_leave_one_out_tables_are_real_masses(data):
    n = data.draw(st.integers(1, 30))
    t = data.draw(st.lists(st.sampled_from([0, 1, 2]), min_size=n, max_size=n))
    a = data.draw(st.lists(st.sampled_from(["x", "y"]), min_size=n, max_size=n))
    b = data.draw(st.lists(st.sampled_from([5, 6, 7]), min_size=n, max_size=n))
    w = data.draw(st.lists(st.sampled_from([0.0, 0.25, 1.5, 0.1, 2.0, 3.7]), min_size=n,
                           max_size=n))
    w[0] = 0.1  # non-integral: a table of real masses
    three = _ThreeWay(np.array(t), np.array(a), np.array(b), np.array(w))
    for table, labels in ((three.table_a, a), (three.table_b, b)):
        want = cm.Contingency.from_labels(t, labels, sample_weight=w)
        assert table.class_labels.tolist() == want.class_labels.tolist()
        assert table.cluster_labels.tolist() == want.cluster_labels.tolist()
        np.testing.assert_allclose(table.to_dense(), want.to_dense(), rtol=1e-12)
    assert three.n == pytest.approx(math.fsum(w), rel=1e-12)
    assert three.n_items == sum(1 for k in w if k)
    # the jackknife's units: per (cell, weight), its items, each leaving out its weight
    units = three.jackknife_units()
    assert int(units.weight.sum()) == three.n_items
    per_cell = np.zeros(three.counts.shape[0])
    np.add.at(per_cell, units.cell, units.weight * units.amount)
    np.testing.assert_allclose(per_cell, three.counts, rtol=1e-12)


def test_dyadic_weights_compare_as_their_integer_multiples():
    """Weights k / 8 leave out the same (cell, weight) groups as the integers k: the
    scale-free scores' comparison is the integer one (to float rounding) -- the real
    path against the integer path, which the tests above check by repetition."""
    rng = np.random.default_rng(11)
    t, a, b = _equally_good(rng, 120)
    k = rng.integers(0, 9, 120)
    k[0] = 1
    keys = ["nmi", "v_measure", "purity", "bcubed_f", "clustering_accuracy"]
    whole = paired_comparison(t, a, b, keys, sample_weight=k)
    real = paired_comparison(t, a, b, keys, sample_weight=k / 8)
    assert real.n_samples == pytest.approx(whole.n_samples / 8)
    for key in keys:
        x, y = real[key], whole[key]
        assert x.difference == pytest.approx(y.difference, abs=1e-12), key
        assert x.interval == pytest.approx(y.interval, abs=1e-12), key
        assert x.n_skipped == y.n_skipped


def test_real_weight_values_are_evaluate_of_each_clustering():
    rng = np.random.default_rng(3)
    t, a, b = _equally_good(rng, 90)
    w = rng.random(90) * 4 + 1  # cells of at least one item: pair counting scores them
    keys = ["ari", "nmi", "purity", "bcubed_f", "recovery_rate"]
    got = paired_comparison(t, a, b, keys, sample_weight=w)
    for key in keys:
        assert got[key].a == pytest.approx(cm.evaluate(t, a, key, sample_weight=w)[key],
                                           rel=1e-12, abs=1e-12)
        assert got[key].b == pytest.approx(cm.evaluate(t, b, key, sample_weight=w)[key],
                                           rel=1e-12, abs=1e-12)
        assert got[key].n_skipped == 0


def test_scores_needing_whole_items_are_refused_up_front():
    rng = np.random.default_rng(4)
    t, a, b = _equally_good(rng, 60)
    w = np.full(60, 1.5)
    with pytest.raises(cm.ScoreUnavailable, match="the table holds real-valued masses"):
        paired_comparison(t, a, b, ["nmi", "ami"], sample_weight=w)
    with pytest.warns(UserWarning) as caught:  # the default set: one warning, ami named
        got = paired_comparison(t, a, b, sample_weight=w)
    assert len(caught) == 1 and str(caught[0].message).startswith("ami left out: ")
    assert "ami" not in got.scores and "nmi" in got.scores
    # cells lighter than one item: pair counting refuses the table itself
    light = np.full(60, 0.01)
    with pytest.raises(cm.ScoreUnavailable, match="weigh too little"):
        paired_comparison(t, a, b, ["ari"], sample_weight=light)
    # noise as singletons splits items: refused; excluded works
    a2 = np.where(np.arange(60) < 5, -1, a)
    with pytest.raises(ValueError, match='noise="singletons".*sample_weight'):
        paired_comparison(t, a2, b, "nmi", noise_label=-1, sample_weight=w)
    got = paired_comparison(t, a2, b, "nmi", noise_label=-1,
                              noise="exclude", sample_weight=w)
    assert math.isfinite(got["nmi"].difference)


def test_text_header_names_the_total_weight_of_real_weights():
    rng = np.random.default_rng(3)
    t, a = rng.integers(0, 3, 40), rng.integers(0, 3, 40)
    w = rng.random(40) + 0.5
    head = str(cm.paired_comparison(t, a, t, metrics=["ari"],
                                      sample_weight=w)).splitlines()[0]
    assert f"total weight {w.sum():.6g}" in head and "N =" not in head
    head = str(cm.paired_comparison(t, a, t, metrics=["ari"])).splitlines()[0]
    assert "N = 40 items" in head


def test_cli_one_column_as_a_and_b(tmp_path, capsys):
    """--a-col and --b-col naming one column is allowed, as in the library: difference 0."""
    from clustermetrics.cli.main import main
    (tmp_path / "t.csv").write_text("y,p\n" + "".join(
        f"{i % 3},{(i * 7) % 4}\n" for i in range(30)))
    assert main(["paired", str(tmp_path / "t.csv"), "--true-col", "y", "--a-col", "p",
                 "--b-col", "p", "--metrics", "ari,nmi",
                 "--format", "json"]) == 0
    captured = capsys.readouterr()
    data = json.loads(captured.out)
    assert "--names" not in captured.err and data["names"] == ["p (A)", "p (B)"]
    direct = cm.paired_comparison(*[[r.split(",")[k] for r in (tmp_path / "t.csv")
                                      .read_text().split()[1:]] for k in (0, 1, 1)],
                                    ["ari", "nmi"])
    for key in ("ari", "nmi"):
        assert data["scores"][key]["difference"] == 0.0 == direct[key].difference
        assert data["scores"][key]["pvalue"] == 1.0 == direct[key].pvalue


@pytest.mark.slow
@pytest.mark.parametrize("shape", ["noise", "near", "wide_rows"])
def test_leave_one_out_tables_scored_as_stacks_equal_each_table(shape, monkeypatch):
    """Unweighted, without a noise label, each side's leave-one-out tables are scored as
    stacks (matchings started warm from the table's prices, on the compiled sparse
    solver here): the same intervals and p-values as scoring each table alone, on tables
    above the solver's forced-cell and warm-start sizes (a systematic sample of 12
    items left out, to keep the tables few)."""
    from clustermetrics.compute import dispatch as _kernels
    from clustermetrics.evaluation import jackknife
    from clustermetrics.evaluation.evaluate import score_values
    from clustermetrics.matching import assignment as _assignment

    rng = np.random.default_rng(5)
    n = 30_000
    t = rng.integers(0, n // 30 if shape == "wide_rows" else n // 10, n)
    if shape == "noise":
        a, b = rng.integers(0, n // 10, n), rng.integers(0, n // 10, n)
    elif shape == "near":
        a = np.where(rng.random(n) < 0.1, rng.integers(0, n, n), t)
        b = np.where(rng.random(n) < 0.3, rng.integers(0, n, n), t)
    else:  # ~30 items a class (float recall weights), half the classes kept together
        a, b = (np.where((t % 2 == 0) & (rng.random(n) < 0.5), t, rng.integers(0, n, n))
                for _ in range(2))
    keys = ["ari", "nmi", "ami", "recovery_rate"]
    monkeypatch.setattr(_assignment, "DENSE_MAX_CELLS", 1000)
    monkeypatch.setattr(jackknife, "JACKKNIFE_MAX_CELLS", 12)
    old = _kernels.set_kernels("numba")
    try:
        fast = paired_comparison(t, a, b, keys)
        monkeypatch.setattr(jackknife, "table_scores", lambda table, counts, k: np.array(
            [[score_values(table.with_counts(c), k)[key] for c in counts] for key in k]))
        slow = paired_comparison(t, a, b, keys)
    finally:
        _kernels.set_kernels(old)
    assert fast.sampled and slow.sampled
    for k in keys:
        assert fast[k].se > 0, k
        assert fast[k].interval == pytest.approx(slow[k].interval, rel=1e-9, abs=1e-12), k
        assert fast[k].pvalue == pytest.approx(slow[k].pvalue, rel=1e-6, abs=1e-300), k


# ----------------------------------------------------------------- the jackknife t test
_BRUTE_KEYS = ["ari", "nmi", "vi", "bcubed_f", "recovery_rate", "clustering_accuracy"]


def _brute_force(t, a, b, w, key, level):
    """The paired jackknife t test by its definition, independently of the three-way
    table: delete each item from the labels in turn, score both clusterings from the
    labels left, and refer d / se to Student's t (scipy) at Satterthwaite's degrees of
    freedom. Returns (d, se, df, p, low, high), or None where it is undefined."""
    from scipy import stats

    f = cm.METRICS[key]

    def diff(keep):
        kw = {} if w is None else {"sample_weight": w[keep]}
        try:
            return (f.compute(cm.Contingency.from_labels(t[keep], a[keep], **kw))[0]
                    - f.compute(cm.Contingency.from_labels(t[keep], b[keep], **kw))[0])
        except ValueError:
            return math.nan
    items = np.arange(t.shape[0]) if w is None else np.flatnonzero(w > 0)
    d = diff(items)
    loo = np.array([diff(np.delete(items, i)) for i in range(items.shape[0])])
    loo = loo[~np.isnan(loo)]
    n = items.shape[0]
    u = loo - loo.mean()
    m2 = float(np.mean(u * u))
    if n < 2 or not loo.size or m2 < 1e-24:
        return None
    b2 = float(np.mean(u ** 4)) / m2 ** 2
    df = 2.0 / (2.0 / (n - 1) + (b2 - 3.0) / n)
    se = math.sqrt((n - 1) * m2)
    half = stats.t.ppf(0.5 + level / 2, df) * se
    return d, se, df, 2 * stats.t.sf(abs(d) / se, df), d - half, d + half


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_jackknife_t_test_equals_its_definition_by_brute_force(data):
    """Grouping the items by cells of the truth x A x B table, scoring the leave-one-out
    tables as stacks and (with weights) grouping equal weights change nothing: the
    standard error, the degrees of freedom, the p-value and the interval are those of
    deleting each item from the labels, to rounding."""
    n = data.draw(st.integers(4, 24))
    labels = st.lists(st.integers(0, data.draw(st.integers(1, 3))), min_size=n, max_size=n)
    t, a, b = (np.array(data.draw(labels)) for _ in range(3))
    w = data.draw(st.sampled_from([None, "int", "real"]))
    if w is not None:
        values = [0, 1, 2, 5] if w == "int" else [0.0, 0.5, 1.25, 3.0]
        w = np.array(data.draw(st.lists(st.sampled_from(values), min_size=n, max_size=n)))
        assume((w > 0).sum() >= 2)
    keys = ["nmi", "bcubed_f", "clustering_accuracy"] if w is not None and \
        w.dtype.kind == "f" else _BRUTE_KEYS  # real masses: scores of real masses only
    level = data.draw(st.sampled_from([0.9, 0.95, 0.99]))
    got = paired_comparison(t, a, b, keys, ci=level, sample_weight=w)
    for key in keys:
        want = _brute_force(t, a, b, w, key, level)
        s = got[key]
        if want is None:  # no spread: a tie, or no verdict
            assert s.pvalue == 1.0 or s.flags, key
            continue
        d, se, df, p, low, high = want
        assert s.difference == pytest.approx(d, rel=1e-9, abs=1e-12), key
        assert s.se == pytest.approx(se, rel=1e-7), key
        assert s.df == pytest.approx(df, rel=1e-6), key
        assert s.pvalue == pytest.approx(p, rel=1e-6, abs=1e-12), key
        assert s.interval == pytest.approx((low, high), rel=1e-7, abs=1e-12), key


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_verdict_and_interval_never_contradict_near_the_boundary(data):
    """For comparisons whose level puts 0 at (or a rounding step from) the end of the
    interval: the level 1 - p, and levels a few ulps to a millionth either side,
    "significant at 1 - level" (p < 1 - level) holds exactly when the interval at that
    level excludes 0, and the p-value does not depend on the level."""
    n = data.draw(st.integers(12, 60))
    k = data.draw(st.integers(2, 4))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    t = rng.integers(0, k, n)
    a = np.where(rng.random(n) < data.draw(st.floats(0.2, 1.0)), t, rng.integers(0, k, n))
    b = np.where(rng.random(n) < data.draw(st.floats(0.2, 1.0)), t, rng.integers(0, k, n))
    keys = ["ari", "nmi", "bcubed_f", "clustering_accuracy"]
    first = paired_comparison(t, a, b, keys)
    for key in keys:
        p = first[key].pvalue
        if first[key].flags or not 1e-12 < p < 1.0:
            continue
        for level in {1.0 - p, *(1.0 - p * (1.0 + e) for e in (-1e-6, -1e-12, 1e-12, 1e-6)),
                      float(np.nextafter(1.0 - p, 0.0)), float(np.nextafter(1.0 - p, 1.0))}:
            if not 0.0 < level < 1.0:
                continue
            s = paired_comparison(t, a, b, [key], ci=level)[key]
            excludes = s.interval[0] > 0 or s.interval[1] < 0
            assert s.significant() == excludes == (s.pvalue < 1.0 - level), (key, level)
            assert s.pvalue == pytest.approx(p, rel=1e-12)


@settings(max_examples=200, deadline=None)
@given(st.floats(1e-6, 10.0), st.integers(2, 10**6), st.floats(0.5, 0.999),
       st.integers(-3, 3), st.booleans())
def test_jackknife_t_puts_zero_where_the_p_value_says(se_scale, n, level, ulps, tails):
    """d placed at the interval's end, d = t_df((1 + level) / 2) se, give or take a few
    ulps: the rule's p-value and interval agree at 1 - level whatever the rounding."""
    from scipy import special

    values = np.array([0.0, 1.0, 2.0, 0.5]) * se_scale
    weights = np.array([1.0, 2.0, 1.0, 3.0]) if tails else np.ones(4)
    probe = jackknife_t(0.0, values, weights, n, level)
    d = float(special.stdtrit(probe.df, 0.5 + level / 2)) * probe.se
    for _ in range(abs(ulps)):
        d = float(np.nextafter(d, math.inf if ulps > 0 else 0.0))
    got = jackknife_t(d, values, weights, n, level)
    excludes = got.interval[0] > 0 or got.interval[1] < 0
    assert (got.pvalue < 1.0 - level) == excludes


def test_equal_leave_one_out_values_give_no_p_value():
    """The ratio of cluster counts moves only when a cluster's last item leaves: with no
    cluster of one item, every leave-one-out table keeps it, the jackknife sees no spread,
    and instead of a p-value of 0 the result carries a flag, in every output."""
    t = [0] * 10 + [1] * 10
    a = [0] * 6 + [1] * 4 + [2] * 5 + [3] * 5       # 4 clusters of at least 4 items
    b = [0] * 10 + [1] * 10                         # 2 clusters
    r = paired_comparison(t, a, b, ["clustering_ratio", "ari"], names=("x", "y"))
    s = r["clustering_ratio"]
    assert s.difference == 1.0 and s.flags == (FLAG_CONSTANT,)
    assert math.isnan(s.pvalue) and all(math.isnan(v) for v in s.interval)
    assert not s.significant() and not r["ari"].flags
    assert r.to_dict()["scores"]["clustering_ratio"]["flags"] == [FLAG_CONSTANT]
    row = next(csv.DictReader(io.StringIO(r.to_csv())))
    assert row["flags"] == FLAG_CONSTANT and row["significant"] == "False"
    text = str(r)
    lines = [x for x in text.splitlines() if x.startswith("clustering_ratio")]  # folds
    assert any("no verdict" in line for line in lines)
    assert f"! {FLAG_CONSTANT} (clustering_ratio)" in text


def test_command_line_shows_the_flag(tmp_path, capsys):
    from clustermetrics.cli.main import main

    rows = zip([0] * 10 + [1] * 10, [0] * 6 + [1] * 4 + [2] * 5 + [3] * 5,
               [0] * 10 + [1] * 10, strict=True)
    (tmp_path / "m.csv").write_text("t,a,b\n" + "".join(f"{x},{y},{z}\n" for x, y, z in rows))
    argv = ["paired", str(tmp_path / "m.csv"), "--true-col", "t", "--a-col", "a",
            "--b-col", "b", "--metrics", "clustering_ratio"]
    assert main([*argv, "--format", "json"]) == 0
    got = json.loads(capsys.readouterr().out)["scores"]["clustering_ratio"]
    assert got["flags"] == [FLAG_CONSTANT] and got["significant"] is False
    assert main(argv) == 0
    assert f"! {FLAG_CONSTANT}" in capsys.readouterr().out


def test_a_sample_of_the_items_stands_for_them_all(monkeypatch):
    """Above jackknife_size(cells) groups the jackknife leaves out a stratified sample of
    the items. On pure noise (6,000 items over 600 x 600 labels) the variance of ARI sits
    in the few cells of two items; sampled by cell sizes, 300 items give the standard
    error of all 6,000 within 10 % for every score."""
    from clustermetrics.evaluation import paired

    rng = np.random.default_rng(9)
    n, k = 6000, 600
    t, a, b = rng.integers(0, k, n), rng.integers(0, k, n), rng.integers(0, k, n)
    keys = ["ari", "nmi", "bcubed_f"]
    monkeypatch.setattr(paired, "jackknife_size", lambda cells: 10**6)
    exact = paired_comparison(t, a, b, keys)
    monkeypatch.setattr(paired, "jackknife_size", lambda cells: 300)
    sampled = paired_comparison(t, a, b, keys)
    assert sampled.sampled and not exact.sampled
    for key in keys:
        assert sampled[key].se == pytest.approx(exact[key].se, rel=0.1), key


def test_compare_paired_gives_a_flagged_comparison_no_verdict_in_every_output():
    """compare --paired by a score that moves in jumps: the run the jackknife cannot
    judge is neither near the best nor worse, its flag is in every output, and Holm's
    adjustment counts only the comparisons judged."""
    from clustermetrics.experiments.compare import (
        RECOVERY_KEYS,
        Run,
        mark_near_best,
        runs_csv,
        runs_json,
        runs_table,
    )

    t = np.array([0] * 10 + [1] * 10)
    labels = {"jumps": np.array([0] * 6 + [1] * 4 + [2] * 5 + [3] * 5),  # 4 clusters
              "exact": t.copy(),                                     # 2 clusters: best
              "single": np.array([0] * 10 + [1] * 9 + [2])}          # one of one item
    runs = []
    for name, pred in labels.items():
        table = cm.Contingency.from_labels(t, pred)
        scores = dict(cm.evaluate(table, metrics=["clustering_ratio", *RECOVERY_KEYS.values()]))
        runs.append(Run("d", name, 0, None, 0.0, scores,
                        {"exact": 0.0, "greedy": 0.0, "pseudo": 0.0}, "", table, pred))
    mark_near_best(runs, {"d": t}, "clustering_ratio")
    by = {r.algorithm: r.near_best for r in runs}
    assert by["exact"].is_best
    assert by["jumps"].flags == (FLAG_CONSTANT,) and math.isnan(by["jumps"].pvalue)
    assert not by["jumps"].tied
    judged = by["single"]
    assert not judged.flags and judged.pvalue == pytest.approx(judged.raw_pvalue)  # alone
    data = {r["algorithm"]: r["near_best"] for r in json.loads(runs_json(runs))}
    assert data["jumps"]["flags"] == [FLAG_CONSTANT]
    assert data["jumps"]["not_significantly_worse"] is None
    rows = {r["algorithm"]: r for r in csv.DictReader(io.StringIO(runs_csv(runs)))}
    assert rows["jumps"]["near_best_flags"] == FLAG_CONSTANT
    assert rows["jumps"]["not_significantly_worse"] == ""
    text = runs_table(runs, ["clustering_ratio"])
    assert "no verdict !" in text and FLAG_CONSTANT in text


def test_the_paired_bootstraps_options_are_accepted_with_a_warning_until_they_go(tmp_path):
    """n_boot and seed (the paired bootstrap's, before 0.2): a FutureWarning (API) or a
    note (CLI), the same result as without them."""
    rng = np.random.default_rng(0)
    t = rng.integers(0, 3, 60)
    a, b = (np.where(rng.random(60) < 0.7, t, rng.integers(0, 3, 60)) for _ in range(2))
    plain = paired_comparison(t, a, b, "ari")
    with pytest.warns(FutureWarning, match="n_boot and seed no longer apply"):
        old = paired_comparison(t, a, b, "ari", n_boot=200, seed=3)
    assert old["ari"].pvalue == plain["ari"].pvalue
    files = []
    for name, labels in (("t", t), ("a", a), ("b", b)):
        path = tmp_path / f"{name}.txt"
        path.write_text("\n".join(map(str, labels)) + "\n")
        files.append(str(path))
    out = subprocess.run([sys.executable, "-m", "clustermetrics", "paired", *files,
                          "--metrics", "ari", "--n-boot", "500", "--seed", "1"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "--n-boot and --seed no longer apply" in out.stderr


def test_the_jackknife_leaves_out_fewer_items_on_larger_tables():
    from clustermetrics.evaluation import jackknife

    sizes = [jackknife.jackknife_size(c) for c in (10, 10**3, 10**4, 10**5, 10**7)]
    assert sizes[0] == sizes[1] == jackknife.JACKKNIFE_MAX_CELLS
    assert sizes == sorted(sizes, reverse=True) and sizes[-1] == jackknife.JACKKNIFE_MIN_UNITS


@settings(max_examples=100, deadline=None)
@given(st.floats(-1e-13, 1e-13), st.floats(0.5, 0.999999))
def test_a_difference_within_rounding_is_no_difference(d, level):
    """A difference and a spread within rounding of 0 (two exact values rounded apart):
    p = 1 and an interval holding 0, never a point interval beside 0."""
    t = jackknife_t(d, np.full(6, d), np.ones(6), 6, level)
    assert t.pvalue == 1.0 and t.interval[0] <= 0.0 <= t.interval[1], t


def test_equal_scores_rounded_apart_are_not_a_verdict():
    # both clusterings' chi2 is exactly 14/9; the two roundings differ by an ulp
    s = paired_comparison([0, 0, 0, 0, 1, 0, 0], [0, 0, 0, 0, 1, 1, 1],
                            [1, 2, 2, 2, 0, 0, 0], ["chi2"], ci=0.5)["chi2"]
    assert not s.significant() and s.interval[0] <= 0.0 <= s.interval[1], s


weights_any = st.lists(st.one_of(st.integers(0, 2**62), st.floats(0.0, 1e300),
                                 st.sampled_from([0.5, 1e-200, 2.0**53, 1e150])),
                       min_size=6, max_size=6)


@settings(max_examples=150, deadline=None)
@given(weights_any)
def test_paired_weights_follow_the_rule_of_every_table(w):
    """paired_comparison refuses exactly the weights that make no table of A or B
    (the totals' limits included), with that table's own message."""
    y, a, b = [0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 1, 1], [0, 0, 0, 1, 1, 0]
    try:
        for pred in (a, b):
            cm.Contingency.from_labels(y, pred, sample_weight=w)
        table_error = None
    except ValueError as exc:
        table_error = str(exc)
    try:
        paired_comparison(y, a, b, ["ari"], sample_weight=w)
        paired_error = None
    except ValueError as exc:
        paired_error = str(exc)
    if table_error is not None:  # the same refusal, whatever the scores
        assert paired_error == table_error
    else:  # a table is made: only a score may refuse its masses (ARI on masses below 1)
        assert paired_error is None or "adds up to" not in paired_error, paired_error
