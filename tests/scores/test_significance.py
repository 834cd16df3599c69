"""Permutation tests and analytic significance: the random tables have exactly the
permutation model's distribution (chi-square against the exact probabilities of every
table), p-values agree with full enumeration, every registered score can be tested, and
evaluate / the command line show z, p and the permutation p-value."""

from __future__ import annotations

import json
import math
from collections import Counter
from math import factorial

import numpy as np
import pytest
from scipy import stats
from test_pair_moments import arrangements, s_of

import clustermetrics as cm
from clustermetrics.cli import main
from clustermetrics.evaluation.inference_text import permutation_cell
from clustermetrics.inference.permutation import choose_sampler, null_tables, permutation_tests
from clustermetrics.scores.registry import METRICS


def table_probability(dense, a, b) -> float:
    """P(table) under the permutation model: prod a_i! prod b_j! / (N! prod n_ij!)."""
    num = math.prod(factorial(x) for x in a) * math.prod(factorial(x) for x in b)
    den = factorial(sum(a)) * math.prod(factorial(x) for row in dense for x in row)
    return num / den


@pytest.mark.parametrize("sampler", ["patefield", "shuffle"])
def test_random_tables_follow_the_permutation_model(sampler):
    truth = [0, 0, 0, 1, 1, 2, 2]
    pred = [0, 0, 1, 1, 2, 2, 2]
    table = cm.Contingency.from_labels(truth, pred)
    exact = Counter()
    for p in arrangements(pred):
        exact[tuple(map(tuple, cm.Contingency.from_labels(truth, p).to_dense()))] += 1
    total = sum(exact.values())
    a, b = table.class_sizes.tolist(), table.cluster_sizes.tolist()
    for dense, count in exact.items():  # the enumeration is the formula's distribution
        assert count / total == pytest.approx(table_probability(dense, a, b))
    seen = Counter()
    for t in null_tables(table, 6000, seed=11, sampler=sampler):
        assert t.class_sizes.tolist() == a and t.cluster_sizes.tolist() == b
        seen[tuple(map(tuple, t.to_dense()))] += 1
    assert set(seen) <= set(exact)
    keys = sorted(exact)
    observed = np.array([seen[k] for k in keys], dtype=float)
    expected = np.array([exact[k] / total * 6000 for k in keys])
    assert stats.chisquare(observed, expected).pvalue > 1e-4


def test_pvalue_agrees_with_enumeration():
    truth = [0, 0, 0, 1, 1, 1, 2, 2]
    pred = [0, 0, 1, 1, 1, 2, 2, 0]
    s_obs = s_of(truth, pred)
    values = [s_of(truth, p) for p in arrangements(pred)]
    exact = sum(v >= s_obs for v in values) / len(values)  # ARI is increasing in S
    test = cm.permutation_test(truth, pred, "ari", n_perm=4000, seed=5)
    assert abs(test.pvalue - exact) < 5 * math.sqrt(exact * (1 - exact) / 4000) + 1 / 4001
    assert test.pvalue_se == pytest.approx(math.sqrt(exact * (1 - exact) / 4000), rel=0.2)


@pytest.mark.parametrize("sampler", ["patefield", "shuffle"])
def test_null_moments_agree_with_the_analytic_null(sampler):
    rng = np.random.default_rng(3)
    truth = rng.integers(0, 4, 400)
    pred = np.where(rng.random(400) < 0.2, truth, rng.integers(0, 3, 400))
    table = cm.Contingency.from_labels(truth, pred)
    test = permutation_tests(table, ["ari", "ri"], n_perm=1500, seed=1, sampler=sampler)
    for key in ("ari", "ri"):
        sig = METRICS[key].significance(table)
        assert abs(test[key].null_mean - sig.null_mean) < 5 * sig.null_sd / math.sqrt(1500)
        assert test[key].null_sd == pytest.approx(sig.null_sd, rel=0.1)
        assert test[key].pvalue <= 1 / 1501 + 1e-15  # far beyond chance: no draw as good


def test_every_registered_score_can_be_tested():
    truth = [0, 0, 0, 1, 1, 1, 2, 2, 2, 3]
    pred = [0, 0, 1, 1, 1, 2, 2, 2, 0, 3]
    table = cm.Contingency.from_labels(truth, pred)
    tests = permutation_tests(table, list(METRICS), n_perm=15, seed=2)
    for key, t in tests.items():
        assert t.observed == METRICS[key].compute(table)[0]
        assert t.n_perm == 15 and t.n_skipped <= 15
        if t.n_skipped < 15:
            assert 1 / 16 <= t.pvalue <= 1.0 and t.null_sd >= 0


def test_auto_sampler_choice_and_reproducibility():
    big = cm.Contingency.from_matrix(np.array([[50_000, 10], [20, 40_000]]))
    wide = cm.Contingency.from_labels(np.arange(200) % 50, np.arange(200) % 40)
    assert choose_sampler(big) == "patefield" and choose_sampler(wide) == "shuffle"
    one = cm.permutation_test(big, metric="ami", n_perm=20, seed=9)
    two = cm.permutation_test(big, metric="ami", n_perm=20, seed=9)
    assert one == two and one.sampler == "patefield"


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="n_perm"):
        cm.permutation_test([0, 1], [0, 1], n_perm=0)
    with pytest.raises(ValueError, match="unknown metric"):
        cm.permutation_test([0, 1], [0, 1], "nope")
    with pytest.raises(ValueError, match="one score"):
        cm.permutation_test([0, 1], [0, 1], "ari,nmi")
    with pytest.raises(ValueError, match="sampler"):
        cm.permutation_test([0, 1], [0, 1], sampler="fast")
    huge = cm.Contingency.from_matrix(np.array([[10**9, 1], [1, 1]]))
    with pytest.raises(ValueError, match="significance=True"):
        cm.permutation_test(huge, n_perm=2)
    with pytest.raises(ValueError, match="significance"):
        cm.evaluate([0, 1], [0, 1], significance="yes")
    with pytest.raises(ValueError, match="seed"):
        cm.evaluate([0, 1], [0, 1], seed=3)


def test_evaluate_significance_and_permutations():
    truth = [0, 0, 0, 1, 1, 1, 2, 2, 2]
    pred = [0, 0, 1, 1, 1, 2, 2, 2, 0]
    report = cm.evaluate(truth, pred, ["ari", "nmi", "sri"], significance=True, n_perm=50,
                         seed=4)
    assert set(report.significance) == {"ari", "sri"}
    assert report.significance["ari"].z == cm.standardized_rand_score(truth, pred)
    assert set(report.permutation) == {"ari", "nmi", "sri"}
    data = json.loads(report.to_json())
    assert data["significance"]["sri"]["null_sd"] == 1.0
    assert data["permutation"]["nmi"]["pvalue"] == report.permutation["nmi"].pvalue
    assert data["n_perm"] == 50
    text = report.format()
    assert "p-value" in text and "permutation test: 50 random tables" in text
    assert cm.evaluate(truth, pred, "ari").significance is None


def test_cli_significance_and_permutations(tmp_path, capsys):
    truth, pred = tmp_path / "t.txt", tmp_path / "p.txt"
    truth.write_text("a\na\na\nb\nb\nb\nc\nc\nc\n")
    pred.write_text("1\n1\n2\n2\n2\n3\n3\n3\n1\n")
    assert main(["score", str(truth), str(pred), "--metrics", "ari,nmi", "--significance",
                 "--permutations", "40", "--seed", "1", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data["significance"]) == {"ari"} and set(data["permutation"]) == {"ari", "nmi"}
    assert main(["score", str(truth), str(pred), "--permutations", "0"]) == 2
    assert "--permutations must be an integer" in capsys.readouterr().err
    assert main(["score", str(truth), str(pred), "--seed", "1"]) == 2
    assert "--permutations" in capsys.readouterr().err


def test_several_references_show_the_best_references_significance():
    truth_a = [0, 0, 0, 1, 1, 1, 2, 2, 2]
    truth_b = [0, 0, 0, 1, 1, 1, 2, 2, 0]
    pred = [0, 0, 0, 1, 1, 1, 2, 2, 1]
    multi = cm.evaluate({"a": truth_a, "b": truth_b}, pred, "ari", significance=True,
                        n_perm=30, seed=0)
    best = multi.reports[multi.best_reference["ari"]]
    text = multi.format()
    assert f"{best.significance['ari'].z:.3f}" in text and "permutation p-value (best)" in text
    data = json.loads(multi.to_json())
    assert data["reports"]["a"]["significance"]["ari"]["z"] == \
        multi.reports["a"].significance["ari"].z


def test_patefield_refuses_huge_dense_tables():
    wide = cm.Contingency.from_labels(np.arange(20_001), np.arange(20_001))
    with pytest.raises(ValueError, match="sampler='shuffle'"):
        next(iter(null_tables(wide, 1, sampler="patefield")))
    assert cm.permutation_test(wide, metric="ari", n_perm=2, seed=0).sampler == "shuffle"


@pytest.mark.parametrize("n_perm", [9, 99, 999])
def test_pvalue_error_is_honest_at_the_floor_and_the_ceiling(n_perm):
    """No draw as good (p at its floor) or every draw as good (p = 1): the Monte Carlo error
    is that of Laplace's estimate q = (1 + k) / (2 + n), not the plug-in 0."""
    far = permutation_tests(cm.Contingency.from_counts([0, 1, 2], [0, 1, 2], [30, 30, 30]),
                            ["ari"], n_perm=n_perm, seed=0)["ari"]
    only = permutation_tests(cm.Contingency.from_labels([0, 0, 0, 0], [0, 0, 1, 1]), ["ri"],
                             n_perm=n_perm, seed=0)["ri"]  # one possible table: every draw ties
    assert far.pvalue == pytest.approx(1 / (1 + n_perm)) and only.pvalue == 1.0
    for test, k in ((far, 0), (only, n_perm)):
        q = (1 + k) / (2 + n_perm)
        assert test.pvalue_se == pytest.approx(math.sqrt(q * (1 - q) / n_perm), rel=1e-12)
        assert 0.5 / n_perm < test.pvalue_se < 1.5 / n_perm
        assert float(permutation_cell(test).split("± ")[1]) > 0
