"""compare, the algorithm registry, the recovery-rate study and the timing study."""

import re
import subprocess
import sys

import numpy as np
import pytest

import clustermetrics as cm
from clustermetrics.experiments.algorithms import ALGORITHMS, resolve_algorithms, run_algorithm
from clustermetrics.experiments.compare import RECOVERY_KEYS, compare, runs_csv, runs_json
from clustermetrics.experiments.datasets import Dataset, load_dataset, overlapping_clusters
from clustermetrics.experiments.recovery_study import (
    paper_examples,
    paper_tables,
    recovery_study,
    shortfalls,
)
from clustermetrics.experiments.timing import (
    bruteforce_timing,
    dense_table,
    scaling_timing,
    sparse_table,
    timing_text,
)
from clustermetrics.scores.registry import METRICS


@pytest.fixture(scope="module")
def tiny():
    return load_dataset("overlapping", n_clusters=3, n_per_cluster=40, seed=1)


@pytest.fixture(scope="module")
def tiny_runs(tiny):
    return compare([tiny], seed=0)


def test_required_algorithms_are_registered():
    assert {"kmeans", "gmm", "ward", "average", "birch", "meanshift", "hdbscan"} <= set(
        ALGORITHMS)


def test_every_algorithm_runs_and_every_score_is_in_range(tiny, tiny_runs):
    assert [r.algorithm for r in tiny_runs] == list(ALGORITHMS)
    for r in tiny_runs:
        assert r.n_samples == tiny.X.shape[0] and r.n_classes == 3
        assert set(r.scores) == set(METRICS)
        for key, value in r.scores.items():
            entry = METRICS[key]
            assert entry.lower - 1e-9 <= value <= entry.upper + 1e-9, (r.algorithm, key)
        assert set(r.recovery_seconds) == set(RECOVERY_KEYS)
        assert all(t >= 0 for t in r.recovery_seconds.values()) and r.fit_seconds >= 0
        assert r.rate("greedy") <= r.rate("exact") + 1e-12
        assert r.k == (3 if ALGORITHMS[r.algorithm].uses_k else None)


def test_scores_are_those_of_evaluate_on_the_labels(tiny, tiny_runs):
    for r in tiny_runs:
        expected = cm.evaluate(tiny.y, r.labels)
        assert r.scores == pytest.approx(dict(expected), abs=1e-12)


def test_seeded_and_reproducible(tiny, tiny_runs):
    again = compare([tiny], seed=0)
    for a, b in zip(tiny_runs, again, strict=True):
        assert np.array_equal(a.labels, b.labels), a.algorithm


def test_algorithms_given_k_find_k_clusters(tiny):
    runs = compare([tiny], ["kmeans", "gmm", "ward", "average", "birch", "meanshift_kmeans"],
                   k=[2, 4], metrics=["ari"])
    assert [(r.algorithm, r.k) for r in runs] == [
        (a, k) for a in ["kmeans", "gmm", "ward", "average", "birch", "meanshift_kmeans"]
        for k in (2, 4)]
    assert all(r.n_clusters == r.k for r in runs)


def test_k_sweep_runs_k_free_algorithms_once(tiny):
    runs = compare([tiny], ["kmeans", "meanshift"], k=[2, 3, 4], metrics="ari")
    assert [(r.algorithm, r.k) for r in runs] == [
        ("kmeans", 2), ("kmeans", 3), ("kmeans", 4), ("meanshift", None)]


def test_agglomerative_subsample_is_reported_and_labels_every_point():
    X, y = overlapping_clusters(3, 40, seed=2)
    for name in ("ward", "average"):
        fitted = run_algorithm(name, X, 3, seed=0, max_pairwise=50)
        assert fitted.labels.shape == (120,) and set(fitted.labels.tolist()) == {0, 1, 2}
        assert "subsample of 50 of 120 points" in fitted.note
        assert run_algorithm(name, X, 3, max_pairwise=500).note == ""


def _noisy_dataset():
    rng = np.random.default_rng(0)
    blobs = [rng.normal(c, 0.3, size=(60, 2)) for c in ((0, 0), (6, 0), (0, 6))]
    scatter = rng.uniform(-4, 10, size=(40, 2))
    X = np.vstack(blobs + [scatter])
    y = np.repeat([0, 1, 2, 3], [60, 60, 60, 40])
    return Dataset("noisy", X, y, "three blobs and scattered points")


def test_hdbscan_noise_is_a_cluster_unless_dropped():
    d = _noisy_dataset()
    kept = compare([d], ["hdbscan"], metrics="ari")[0]
    noise = int((kept.labels == -1).sum())
    assert noise > 0 and -1 in kept.table.cluster_labels.tolist()
    assert kept.n_samples == 220 and f"{noise} noise points" in kept.note
    dropped = compare([d], ["hdbscan"], metrics="ari", noise="exclude")[0]
    assert dropped.n_samples == 220 - noise
    assert -1 not in dropped.table.cluster_labels.tolist()
    assert dropped.note == f"{noise} noise points dropped"
    assert (dropped.labels == kept.labels).all()  # labels of every point, noise included
    keep = kept.labels != -1
    assert dropped.scores["ari"] == cm.adjusted_rand_score(d.y[keep], kept.labels[keep])
    single = compare([d], ["hdbscan"], metrics="ari", noise="singletons")[0]
    assert single.n_samples == 220 and single.table.n_clusters == kept.table.n_clusters - 1 + noise
    assert single.note == f"{noise} noise points scored as singleton clusters"
    with pytest.raises(ValueError, match="noise must be one of cluster, singletons, exclude"):
        compare([d], ["hdbscan"], noise="drop")


def test_bad_algorithm_and_bad_k(tiny):
    with pytest.raises(ValueError, match="unknown algorithm 'kmean'"):
        compare([tiny], "kmeans,kmean")
    with pytest.raises(ValueError, match="k must be"):
        compare([tiny], "kmeans", k=[0])
    with pytest.raises(ValueError, match="k must be"):
        compare([tiny], "kmeans", k=1000)
    assert resolve_algorithms(None) == list(ALGORITHMS)


def test_json_and_csv_outputs(tiny_runs):
    import csv
    import io
    import json

    data = json.loads(runs_json(tiny_runs))
    assert [d["algorithm"] for d in data] == [r.algorithm for r in tiny_runs]
    assert data[0]["scores"]["ari"] == tiny_runs[0].scores["ari"]
    rows = list(csv.DictReader(io.StringIO(runs_csv(tiny_runs))))
    assert len(rows) == len(tiny_runs)
    assert float(rows[1]["recovery_rate"]) == tiny_runs[1].scores["recovery_rate"]
    assert float(rows[1]["exact_seconds"]) == tiny_runs[1].recovery_seconds["exact"]


# --------------------------------------------------------------------- the study
@pytest.fixture(scope="module")
def study():
    return recovery_study([2, 3, 4], n_per_cluster=25, algorithms="kmeans,birch",
                          seeds=[0, 1])


def test_study_uses_the_first_n_clusters_of_one_draw(study):
    big = study.datasets[4]
    for n in (2, 3):
        keep = big.y < n
        assert np.array_equal(study.datasets[n].X, big.X[keep])
    assert [(r.n_classes, r.algorithm) for r in study.runs[1]] == [
        (n, a) for n in (2, 3, 4) for a in ("kmeans", "birch")]


def test_paper_tables_layout_matches_the_runs(study):
    text = paper_tables(study)
    assert "Table 1. Iteration 1 (algorithm seed 0" in text
    assert "Table 2. Iteration 2 (algorithm seed 1" in text
    cells = re.findall(r"^\s*(\d+)\s+(\w+)\s+(\d+)((?:\s+\S+){5})$", text, re.M)
    runs = study.runs[0] + study.runs[1]
    assert len(cells) == len(runs)
    for (n, name, m, cell), run in zip(cells, runs, strict=True):
        exact, _, greedy, _, pseudo = (float(x) for x in cell.split())
        assert (int(n), name, int(m)) == (run.n_classes, run.algorithm, run.n_clusters)
        assert exact == pytest.approx(100 * run.rate("exact"), abs=0.051)
        assert greedy == pytest.approx(100 * run.rate("greedy"), abs=0.051)
        assert pseudo == pytest.approx(100 * run.rate("pseudo"), abs=0.051)


def test_unseeded_algorithms_repeat_across_tables(study):
    for a, b in zip(study.runs[0], study.runs[1], strict=True):
        if a.algorithm == "birch":
            assert a.scores == b.scores


def test_paper_examples_reproduce_the_printed_rates():
    text = paper_examples()
    assert re.search(r"exact \(Alg\. 1, Example 3\)\s+58\.18\s+58\.18", text)
    assert re.search(r"greedy \(Alg\. 2, Example 4\)\s+51\.76\s+51\.76", text)
    assert re.search(r"pseudo \(Definition 3\)\s+100\.00", text)


def test_shortfalls_split_the_runs_correctly(study):
    below, high = shortfalls(study, pseudo_gap=0.1)
    every = study.runs[0] + study.runs[1]
    assert {id(r) for r in below} == {id(r) for r in every
                                      if r.rate("greedy") < r.rate("exact") - 1e-12}
    assert {id(r) for r in high} == {id(r) for r in every
                                     if r.rate("pseudo") - r.rate("exact") >= 0.1}


# --------------------------------------------------------------------- timing
def test_bruteforce_agrees_with_exact_and_greedy_never_exceeds_it():
    rows = bruteforce_timing(range(2, 7))
    by = {(r.n, r.method): r for r in rows}
    for n in range(2, 7):
        assert by[n, "bruteforce"].rate == pytest.approx(by[n, "exact"].rate, abs=1e-12)
        assert by[n, "greedy"].rate <= by[n, "exact"].rate + 1e-12
    assert all(r.seconds > 0 for r in rows)


def test_synthetic_tables_and_scaling():
    assert dense_table(5).nnz == 25
    t = sparse_table(500, seed=3)
    assert t.n_classes == 500 and t.nnz <= 2000 and t.n_samples == 500 * 100
    rows = scaling_timing([10, 200])
    assert [(r.n, r.method) for r in rows] == [(10, "exact"), (10, "greedy"), (200, "exact"),
                                              (200, "greedy")]
    text = timing_text([], rows)
    assert "sparse n x n tables" in text and re.search(r"^\s*200\s", text, re.M)


def test_timing_text_shows_the_papers_algorithm_1_times():
    text = timing_text(bruteforce_timing(range(4, 7)), [])
    assert "paper Alg. 1" in text and "4.3e-3" in text and "0.046" in text


def test_core_import_needs_none_of_the_experiments():
    """The library does not load the experiments; the command line registers them, but
    their heavy dependencies (scikit-learn, matplotlib, tqdm) wait for a run."""
    probe = "print([m for m in {} if m in sys.modules])"
    layers = ("'clustermetrics.experiments', 'clustermetrics.cli'")
    heavy = "('sklearn', 'matplotlib', 'tqdm', 'pandas')"
    for module, names in (("clustermetrics", f"({layers}, 'sklearn', 'matplotlib')"),
                          ("clustermetrics.cli", heavy)):
        code = f"import sys, {module}; " + probe.format(names)
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             check=True).stdout
        assert out.strip() == "[]", module


def test_heatmap_caps_wide_tables_into_an_others_line():
    from clustermetrics.experiments.plots import _capped, matching_order

    rng = np.random.default_rng(0)
    t = rng.integers(0, 5, 600)
    p = np.where(rng.random(600) < 0.2, -1, t)
    table = cm.evaluate(t, p, "ari", noise_label=-1).table  # ~120 singleton columns
    r, c = matching_order(table)
    dense, rows, cols = _capped(table, r, c, 10)
    full = table.to_dense()[np.ix_(r, c)]
    assert dense.shape == (5, 10) and len(cols) == 10 and len(rows) == 5
    assert (dense[:, :9] == full[:, :9]).all()
    assert (dense[:, 9] == full[:, 9:].sum(axis=1)).all()
    assert cols[-1] == f"+{table.n_clusters - 9} others"


def test_projection_uses_the_runs_tables_and_draws_the_same_colours():
    from clustermetrics.experiments.plots import projection_plot

    d = load_dataset("overlapping", n_clusters=3, n_per_cluster=40)
    runs = compare([d], ["kmeans", "birch"], metrics="ari")
    labelings = {r.algorithm: r.labels for r in runs}
    tables = {r.algorithm: r.table for r in runs}
    for table in tables.values():  # the exact matching is solved once, when scoring
        assert table.peek("matching:recall") is not None
    assert projection_plot(d.X, d.y, labelings, tables=tables) == \
        projection_plot(d.X, d.y, labelings)
