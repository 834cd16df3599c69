"""evaluate() and Report: one table, every score, the read-only mapping and its renderings."""

import json

import numpy as np
import pytest

import clustermetrics as cm
from clustermetrics import METRICS, Contingency, evaluate
from clustermetrics.scores.registry import resolve_metrics

T = np.array([0, 0, 0, 1, 1, 1, 2, 2])
P = np.array(["a", "a", "b", "b", "b", "c", "c", "c"])


def test_all_metrics_by_default_and_values_match_functions():
    report = evaluate(T, P)
    assert list(report) == list(METRICS)
    assert report["ari"] == cm.adjusted_rand_score(T, P)
    assert report["ami"] == cm.adjusted_mutual_info_score(T, P)
    assert report["pair_recall"] == cm.pair_recall_score(T, P)
    assert len(report) == len(METRICS)


def test_table_built_once(monkeypatch):
    calls = []
    original = Contingency.from_labels.__func__

    def counting(cls, *args):
        calls.append(1)
        return original(cls, *args)

    monkeypatch.setattr(Contingency, "from_labels", classmethod(counting))
    evaluate(T, P)
    assert len(calls) == 1


def test_report_is_read_only_mapping():
    report = evaluate(T, P, metrics=["ari"])
    with pytest.raises(TypeError):
        report["ari"] = 0.5  # type: ignore[index]
    assert report.table.n_samples == 8
    assert set(report.timings) == {"ari"}


def test_metric_selection_by_key_name_and_function_name():
    assert resolve_metrics("ari, nmi") == ["ari", "nmi"]
    assert resolve_metrics(["adjusted_rand_score", "Rand index"]) == ["ari", "ri"]
    with pytest.raises(ValueError, match="metrics names 'ari' twice"):
        resolve_metrics(["adjusted_rand_score", "Rand index", "ari"])
    with pytest.raises(ValueError, match="unknown metric 'bogus'; known: ari"):
        evaluate(T, P, metrics=["bogus"])
    with pytest.raises(ValueError, match="metrics is empty"):
        evaluate(T, P, metrics=[])


def test_renderings():
    report = evaluate(T, P, metrics=["ari", "nmi"])
    # every format carries the table size (and intervals, noise when asked for)
    assert json.loads(report.to_json()) == report.to_dict()
    assert report.to_dict()["scores"] == dict(report)
    full = json.loads(report.to_json(details=True))
    assert full["n_samples"] == 8 and full["n_classes"] == 3 and full["n_clusters"] == 3
    assert full["scores"]["nmi"] == report["nmi"]
    csv_lines = report.to_csv().splitlines()
    assert csv_lines[0] == "metric,value"
    assert float(csv_lines[1].split(",")[1]) == report["ari"]
    text = str(report)
    assert "N = 8, 3 classes, 3 clusters" in text
    assert "Adjusted Rand index" in text and f"{report['ari']:.6f}" in text


def test_evaluate_accepts_a_table():
    table = Contingency.from_labels(T, P)
    assert evaluate(table).to_dict() == evaluate(T, P).to_dict()


def test_bad_input_is_reported_before_any_score():
    with pytest.raises(ValueError, match="different lengths"):
        evaluate([1, 2], [1])


def test_recovery_matching_is_in_the_report():
    # Li & Klette Example 3 (the paper's M is predicted x true: transpose it)
    m = np.array([[1612, 0, 24, 2009, 0], [0, 0, 21, 0, 4540], [0, 0, 4153, 2, 5460],
                  [0, 10000, 5796, 7989, 0], [8388, 0, 6, 0, 0]])
    table = Contingency.from_matrix(m.T, class_labels=[f"C{i}" for i in range(1, 6)],
                                    cluster_labels=[f"G{k}" for k in range(1, 6)])
    report = evaluate(table, metrics=["recovery_rate", "recovery_rate_greedy",
                                      "pseudo_recovery_rate"])
    assert report["recovery_rate"] == pytest.approx(0.5818, abs=1e-12)
    assert report["recovery_rate_greedy"] == pytest.approx(0.51756, abs=1e-12)
    exact = report.recovery["recovery_rate"]
    assert [(g, c) for g, c, _ in exact.matching] == [
        ("G1", "C4"), ("G2", "C5"), ("G3", "C3"), ("G4", "C2"), ("G5", "C1")]
    assert report.recovery["recovery_rate_greedy"].method == "greedy"
    full = json.loads(report.to_json(details=True))
    assert full["details"]["recovery_rate"]["matching"][0][:2] == ["G1", "C4"]


def test_key_beats_function_name_alias():
    # both recovery entries use the function recovery_rate_score; the key names the exact one
    assert resolve_metrics(["recovery_rate"]) == ["recovery_rate"]
    assert resolve_metrics(["clustering_error", "Purity"]) == ["clustering_error", "purity"]


def test_a_score_unavailable_on_the_table_is_left_out_of_every_score_with_a_warning():
    # N = 7e9: SMI's exact variance and its Monte Carlo sampler are both out of reach
    t = cm.Contingency.from_counts(["a", "a", "b", "b"], ["x", "y", "x", "y"],
                                   [10**9, 2 * 10**9, 3 * 10**9, 10**9])
    with pytest.warns(UserWarning, match="mari: no bootstrap interval"), \
            pytest.warns(UserWarning, match="smi left out: SMI on this table"):
        report = cm.evaluate(t, ci=0.9, n_boot=5, seed=0)
    assert "smi" not in report.to_dict()["scores"] and "ari" in report.to_dict()["scores"]
    with pytest.raises(cm.ScoreUnavailable, match="too costly"):
        cm.evaluate(t, metrics="ari,smi")
