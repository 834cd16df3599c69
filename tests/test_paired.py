"""The paired comparison: its two tables are the margins of the three-way table, a
replicate's margins are the tables of its items, equally good clusterings are declared
different at the nominal rate (simulated), and clearly different ones are told apart."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import clustermetrics as cm
from clustermetrics.paired import _ThreeWay, compare_clusterings


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
    r = compare_clusterings(t, p, p, ["ari", "nmi", "clustering_error"], n_boot=50, seed=0)
    for s in r.scores.values():
        assert s.difference == 0.0 and s.better == "tie" and s.pvalue == 1.0
        assert s.interval == (0.0, 0.0)


def _equally_good(rng, n, k=5, noise=0.3):
    t = rng.integers(0, k, n)
    a = np.where(rng.random(n) < noise, rng.integers(0, k, n), t)
    b = np.where(rng.random(n) < noise, rng.integers(0, k, n), t)
    return t, a, b


def test_false_positive_rate_is_nominal_when_equally_good():
    """A and B both keep 70 % of the truth: "A differs from B" at alpha = 0.05 must not be
    said more often than 5 % plus three binomial standard errors of the simulation."""
    rng = np.random.default_rng(2026)
    m, alpha = 100, 0.05
    rejected = {"ari": 0, "nmi": 0}
    for _ in range(m):
        t, a, b = _equally_good(rng, 200)
        r = compare_clusterings(t, a, b, list(rejected), n_boot=100,
                                seed=int(rng.integers(1 << 31)))
        for key in rejected:
            rejected[key] += r[key].pvalue < alpha
    bound = alpha + 3 * math.sqrt(alpha * (1 - alpha) / m)
    assert all(count / m <= bound for count in rejected.values()), rejected


def test_clearly_better_clustering_is_found_better():
    rng = np.random.default_rng(7)
    found = 0
    for _ in range(10):
        t = rng.integers(0, 4, 300)
        good = np.where(rng.random(300) < 0.1, rng.integers(0, 4, 300), t)
        poor = np.where(rng.random(300) < 0.6, rng.integers(0, 4, 300), t)
        r = compare_clusterings(t, good, poor, ["ari", "clustering_error"], n_boot=100,
                                seed=int(rng.integers(1 << 31)))
        assert r["clustering_error"].difference < 0  # lower is better: a's error is lower
        found += all(s.better == "a" and s.pvalue < 0.05 for s in r.scores.values())
    assert found == 10


def test_degenerate_replicates_are_skipped_not_fatal():
    t = [0, 0, 0, 0, 0, 1, 1, 1, 1, 1]
    a = [0, 0, 0, -1, -1, 1, 1, -1, -1, -1]
    b = [0, 0, 1, 1, -1, 1, 1, 0, -1, -1]
    for seed in range(5):
        r = compare_clusterings(t, a, b, "ari", n_boot=200, seed=seed, noise_label=-1,
                                noise="exclude")
        assert 0 <= r["ari"].n_skipped < 200


@pytest.mark.parametrize("kwargs, message", [
    ({"labels_b": [0, 1]}, "labels_true and labels_b have different lengths"),
    ({"ci": 1.5}, "ci must be"),
    ({"n_boot": 1}, "n_boot must be"),
    ({"metrics": "nope"}, "unknown metric 'nope'"),
    ({"seed": -1}, "seed must be"),
    ({"noise_label": -1, "noise": "drop"}, "noise must be one of"),
    ({"names": ("x", "x")}, "names must be two different names"),
    ({"names": "ab"}, "names must be two different names"),
])
def test_bad_input_is_refused_naming_the_argument(kwargs, message):
    args = {"labels_true": [0, 0, 1], "labels_a": [0, 1, 1], "labels_b": [1, 1, 0]}
    args.update(kwargs)
    with pytest.raises(ValueError, match=message):
        compare_clusterings(**args)


def test_outputs_are_strict_json_and_a_table():
    rng = np.random.default_rng(3)
    t, a, b = _equally_good(rng, 80)
    r = compare_clusterings(t, a, b, ["ari", "recovery_rate"], n_boot=30, seed=1,
                            names=("kmeans", "gmm"))
    data = json.loads(r.to_json(), parse_constant=lambda c: pytest.fail(c))
    assert set(data["scores"]) == {"ari", "recovery_rate"}
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
    assert main(["paired", *files, "--n-boot", "20", "--seed", "1", "--metrics", "ari",
                 "--format", "json"]) == 0
    by_files = json.loads(capsys.readouterr().out)
    assert main(["paired", str(tmp_path / "all.csv"), "--true-col", "y", "--a-col", "km",
                 "--b-col", "gm", "--n-boot", "20", "--seed", "1", "--metrics", "ari",
                 "--format", "json"]) == 0
    by_table = json.loads(capsys.readouterr().out)
    assert by_table["names"] == ["km", "gm"]
    assert by_table["scores"] == by_files["scores"]
    assert main(["paired", *files, "--n-boot", "20", "--metrics", "ari", "--format",
                 "csv"]) == 0
    assert capsys.readouterr().out.startswith("score,A,B,difference,low,high,pvalue")
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
    mark_near_best(runs, {"d": truth}, "ari", n_boot=200, seed=0)
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
    # a replicate: n_items items drawn, each adding its own weight to its cell
    counts = three.sampler()(np.random.default_rng(data.draw(st.integers(0, 99))))
    assert counts.sum() % 1 == 0 and counts.min() >= 0
    weights = sorted({k for k in w if k})
    assert all(any(c == sum(m * v for m, v in zip(split, weights, strict=True))
                   for split in _splits(c, weights)) for c in counts.tolist())


def _splits(total, weights):
    """Every way of writing total as sum(m_v * v) over the weights v (m_v >= 0)."""
    if not weights:
        return [[]] if total == 0 else []
    out = []
    for m in range(total // weights[0] + 1):
        out += [[m, *rest] for rest in _splits(total - m * weights[0], weights[1:])]
    return out


def test_unit_weights_give_the_unweighted_comparison():
    rng = np.random.default_rng(5)
    t, a, b = _equally_good(rng, 150)
    plain = compare_clusterings(t, a, b, ["ari", "nmi"], n_boot=60, seed=3)
    ones = compare_clusterings(t, a, b, ["ari", "nmi"], n_boot=60, seed=3,
                               sample_weight=np.ones(150, dtype=int))
    assert plain.scores == ones.scores


def test_weights_resample_items_not_copies():
    """A constant weight c leaves a scale-free score's comparison as it is (items carry
    their weights), where resampling c copies of each item would narrow the interval by
    about sqrt(c)."""
    rng = np.random.default_rng(8)
    t, a, b = _equally_good(rng, 200)
    plain = compare_clusterings(t, a, b, "nmi", n_boot=200, seed=4)["nmi"]
    weighted = compare_clusterings(t, a, b, "nmi", n_boot=200, seed=4,
                                   sample_weight=np.full(200, 9))["nmi"]
    copies = compare_clusterings(*(np.repeat(x, 9) for x in (t, a, b)), "nmi", n_boot=200,
                                 seed=4)["nmi"]
    assert weighted.difference == pytest.approx(plain.difference, abs=1e-12)
    assert weighted.interval == pytest.approx(plain.interval, abs=1e-12)
    assert weighted.pvalue == plain.pvalue

    def width(s):
        return s.interval[1] - s.interval[0]
    assert width(copies) < 0.5 * width(weighted)


def test_weighted_false_positive_rate_is_nominal_when_equally_good():
    """Equally good A and B, weights 1 to 6 per item: resampling the items with their
    weights keeps "A differs from B" at about alpha (copies would reject far more)."""
    rng = np.random.default_rng(99)
    m, alpha, rejected = 100, 0.05, 0
    for _ in range(m):
        t, a, b = _equally_good(rng, 150)
        w = rng.integers(1, 7, 150)
        r = compare_clusterings(t, a, b, "ari", n_boot=100, sample_weight=w,
                                seed=int(rng.integers(1 << 31)))
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
        compare_clusterings([0, 0, 1], [0, 1, 1], [1, 1, 0], "ari", n_boot=10,
                            sample_weight=weights)


def test_command_line_weight_column(tmp_path, capsys):
    from clustermetrics.cli.main import main

    rng = np.random.default_rng(12)
    t, a, b = _equally_good(rng, 80)
    w = rng.integers(0, 4, 80)
    (tmp_path / "m.csv").write_text("t,a,b,w\n" + "".join(
        f"{x},{y},{z},{v}.0\n" for x, y, z, v in zip(t, a, b, w, strict=True)))
    argv = ["paired", str(tmp_path / "m.csv"), "--true-col", "t", "--a-col", "a", "--b-col",
            "b", "--metrics", "ari,nmi", "--n-boot", "40", "--seed", "6"]
    assert main([*argv, "--weight-col", "w", "--format", "json"]) == 0
    got = json.loads(capsys.readouterr().out)
    want = compare_clusterings(t.astype(str), a.astype(str), b.astype(str), ["ari", "nmi"],
                               n_boot=40, seed=6, sample_weight=w, names=("a", "b"))
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
def test_real_weighted_tables_and_replicates_are_real_masses(data):
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
    # a replicate: n_items items drawn, each adding its own weight to its cell: per cell,
    # a whole number of draws of each weight its items hold
    rng = np.random.default_rng(data.draw(st.integers(0, 99)))
    counts = three.sampler()(rng)
    assert counts.dtype.kind == "f" and counts.min() >= 0
    sizes, weights, starts = three.groups
    assert int(sizes.sum()) == three.n_items
    rep = three.table_a.with_counts(three.margin_a(counts))
    assert rep.n_samples == pytest.approx(float(counts.sum()), rel=1e-12)


def test_dyadic_weights_compare_as_their_integer_multiples():
    """Weights k / 8 resample the same (cell, weight) groups as the integers k: with one
    seed, the scale-free scores' comparison is the integer one (to float rounding) --
    the real path against the integer path, which the tests above check by repetition."""
    rng = np.random.default_rng(11)
    t, a, b = _equally_good(rng, 120)
    k = rng.integers(0, 9, 120)
    k[0] = 1
    keys = ["nmi", "v_measure", "purity", "bcubed_f", "clustering_accuracy"]
    whole = compare_clusterings(t, a, b, keys, n_boot=80, seed=2, sample_weight=k)
    real = compare_clusterings(t, a, b, keys, n_boot=80, seed=2, sample_weight=k / 8)
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
    got = compare_clusterings(t, a, b, keys, n_boot=20, seed=1, sample_weight=w)
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
        compare_clusterings(t, a, b, ["nmi", "ami"], n_boot=10, sample_weight=w)
    with pytest.warns(UserWarning) as caught:  # the default set: one warning, ami named
        got = compare_clusterings(t, a, b, n_boot=10, seed=0, sample_weight=w)
    assert len(caught) == 1 and str(caught[0].message).startswith("ami left out: ")
    assert "ami" not in got.scores and "nmi" in got.scores
    # cells lighter than one item: pair counting refuses the table itself
    light = np.full(60, 0.01)
    with pytest.raises(cm.ScoreUnavailable, match="weigh too little"):
        compare_clusterings(t, a, b, ["ari"], n_boot=10, sample_weight=light)
    # noise as singletons splits items: refused; excluded works
    a2 = np.where(np.arange(60) < 5, -1, a)
    with pytest.raises(ValueError, match='noise="singletons".*sample_weight'):
        compare_clusterings(t, a2, b, "nmi", n_boot=10, noise_label=-1, sample_weight=w)
    got = compare_clusterings(t, a2, b, "nmi", n_boot=10, seed=0, noise_label=-1,
                              noise="exclude", sample_weight=w)
    assert math.isfinite(got["nmi"].difference)


def test_text_header_names_the_total_weight_of_real_weights():
    rng = np.random.default_rng(3)
    t, a = rng.integers(0, 3, 40), rng.integers(0, 3, 40)
    w = rng.random(40) + 0.5
    head = str(cm.compare_clusterings(t, a, t, metrics=["ari"], n_boot=10, seed=0,
                                      sample_weight=w)).splitlines()[0]
    assert f"total weight {w.sum():.6g}" in head and "N =" not in head
    head = str(cm.compare_clusterings(t, a, t, metrics=["ari"], n_boot=10, seed=0)).splitlines()[0]
    assert "N = 40 items" in head


def test_cli_one_column_as_a_and_b(tmp_path, capsys):
    """--a-col and --b-col naming one column is allowed, as in the library: difference 0."""
    from clustermetrics.cli.main import main
    (tmp_path / "t.csv").write_text("y,p\n" + "".join(
        f"{i % 3},{(i * 7) % 4}\n" for i in range(30)))
    assert main(["paired", str(tmp_path / "t.csv"), "--true-col", "y", "--a-col", "p",
                 "--b-col", "p", "--n-boot", "20", "--seed", "1", "--metrics", "ari,nmi",
                 "--format", "json"]) == 0
    captured = capsys.readouterr()
    data = json.loads(captured.out)
    assert "--names" not in captured.err and data["names"] == ["p (A)", "p (B)"]
    direct = cm.compare_clusterings(*[[r.split(",")[k] for r in (tmp_path / "t.csv")
                                      .read_text().split()[1:]] for k in (0, 1, 1)],
                                    ["ari", "nmi"], n_boot=20, seed=1)
    for key in ("ari", "nmi"):
        assert data["scores"][key]["difference"] == 0.0 == direct[key].difference
        assert data["scores"][key]["pvalue"] == 1.0 == direct[key].pvalue


@pytest.mark.parametrize("shape", ["noise", "near", "wide_rows"])
def test_replicates_scored_from_counts_equal_the_replicate_tables(shape, monkeypatch):
    """Unweighted, without a noise label, each side's replicate is scored from its cell
    counts (bootstrap's fast path, matchings started warm from the table's prices, on the
    compiled sparse solver here): the same intervals and p-values as scoring each
    replicate's table, on tables above the solver's forced-cell and warm-start sizes."""
    from clustermetrics import _kernels, paired
    from clustermetrics.bootstrap import replicate_table
    from clustermetrics.evaluate import score_values
    from clustermetrics.metrics import _assignment

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
    old = _kernels.set_kernels("numba")
    try:
        fast = compare_clusterings(t, a, b, keys, n_boot=6, seed=2)
        monkeypatch.setattr(paired, "replicate_scores", lambda table, counts, k: np.array(
            [[score_values(replicate_table(table, c), k)[key] for c in counts]
             for key in k]))
        slow = compare_clusterings(t, a, b, keys, n_boot=6, seed=2)
    finally:
        _kernels.set_kernels(old)
    for k in keys:
        assert fast[k].interval == pytest.approx(slow[k].interval, rel=1e-12, abs=1e-13), k
        assert fast[k].pvalue == slow[k].pvalue, k
