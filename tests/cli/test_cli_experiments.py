"""compare / demo / chance on the command line: outputs agree with the library, and every
error is one line on stderr with exit status 2."""

import csv
import io
import json
import sys

import numpy as np
import pytest
from cli_helpers import run as _run

import clustermetrics as cm
from clustermetrics.cli import CliError, main
from clustermetrics.cli.compare import parse_k
from clustermetrics.experiments.algorithms import run_algorithm
from clustermetrics.experiments.datasets import load_dataset


def _error(capsys, *argv):
    code, out, err = _run(capsys, *argv)
    assert code == 2 and out == ""
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("clustermetrics: error: "), err
    return lines[0]


@pytest.fixture
def features_csv(tmp_path):
    rng = np.random.default_rng(0)
    f = tmp_path / "points.csv"
    rows = ["x,y,name,species"] + [
        f"{rng.normal(c * 5):.4f},{rng.normal():.4f},p{i},s{c}"
        for i, c in enumerate([0, 1, 2] * 10)]
    f.write_text("\n".join(rows) + "\n")
    return f


def test_compare_json_scores_are_the_librarys(capsys):
    code, out, err = _run(capsys, "compare", "--dataset", "iris", "--algorithms",
                          "kmeans,gmm", "--seed", "3", "--format", "json")
    assert code == 0 and err == ""
    data = json.loads(out)
    iris = load_dataset("iris")
    for row in data:
        labels = run_algorithm(row["algorithm"], iris.X, 3, seed=3).labels
        assert row["scores"] == pytest.approx(dict(cm.evaluate(iris.y, labels)), abs=1e-12)
        assert row["n_samples"] == 150 and row["k"] == 3


def test_compare_table_on_user_csv_with_feature_subset_and_k_sweep(features_csv, capsys):
    code, out, _ = _run(capsys, "compare", "--data", features_csv, "--label-col", "species",
                        "--features", "x,y", "--algorithms", "kmeans,meanshift", "--k", "2-3",
                        "--metrics", "ari")
    assert code == 0
    rows = [line.split() for line in out.splitlines()[1:4]]
    assert [(r[0], r[1], r[2]) for r in rows] == [
        ("points.csv", "kmeans", "2"), ("points.csv", "kmeans", "3"),
        ("points.csv", "meanshift", "-")]


def test_compare_csv_and_output_file(tmp_path, capsys):
    target = tmp_path / "runs.csv"
    code, out, _ = _run(capsys, "compare", "--n-clusters", "3", "--n-per-cluster", "30",
                        "--algorithms", "birch", "--standardize", "--format", "csv",
                        "-o", target)
    assert code == 0 and out == ""
    (row,) = list(csv.DictReader(io.StringIO(target.read_text())))
    assert row["dataset"] == "overlapping-3" and row["n_samples"] == "90"
    assert 0 <= float(row["recovery_rate"]) <= 1


def test_demo_tiny(capsys):
    code, out, err = _run(capsys, "demo", "--n-min", "2", "--n-max", "3", "--n-per-cluster",
                          "20", "--algorithms", "kmeans", "--bruteforce-max", "5",
                          "--timing-max", "40", "--quiet")
    assert code == 0 and err == ""
    for text in ("Table 1. Iteration 1", "Table 2. Iteration 2", "Example 3", "58.18",
                 "Greedy below exact in", "paper Alg. 1", "sparse n x n tables"):
        assert text in out, text
    assert out.index("Table 1.") < out.index("Table 2.") < out.index("Example 3")


def test_demo_json(capsys):
    code, out, _ = _run(capsys, "demo", "--n-min", "2", "--n-max", "2", "--n-per-cluster",
                        "15", "--algorithms", "kmeans", "--seeds", "4", "--bruteforce-max",
                        "3", "--timing-max", "10", "--format", "json")
    assert code == 0
    data = json.loads(out)
    assert len(data["tables"]) == 1 and data["tables"][0][0]["seed"] == 4
    assert {(t["n"], t["method"]) for t in data["timing"]} >= {(3, "bruteforce"),
                                                                (10, "exact")}


def test_chance_csv(capsys):
    code, out, _ = _run(capsys, "chance", "--metrics", "ari,nmi", "--repeats", "2",
                        "--points", "3", "--experiment", "fixed", "--format", "csv")
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert len(rows) == 2 * 3 and {r["experiment"] for r in rows} == {"fixed"}
    assert all(abs(float(r["mean"])) < 0.05 for r in rows if r["metric"] == "ari")


def test_compare_noise_modes_match_the_library(capsys):
    base = ["compare", "--dataset", "wine", "--algorithms", "hdbscan", "--metrics", "ari",
            "--format", "json"]
    outs = {}
    for extra in ([], ["--noise", "singletons"], ["--noise", "exclude"], ["--drop-noise"]):
        code, out, err = _run(capsys, *base, *extra)
        assert code == 0, err
        outs[" ".join(extra)] = json.loads(out)[0]["scores"]["ari"]
    d = load_dataset("wine")
    labels = run_algorithm("hdbscan", d.X, 3, 0).labels
    assert (labels == -1).any()
    assert outs[""] == cm.adjusted_rand_score(d.y, labels)
    assert outs["--noise singletons"] == cm.evaluate(d.y, labels, "ari", noise_label=-1)["ari"]
    keep = labels != -1
    assert outs["--noise exclude"] == outs["--drop-noise"] == cm.adjusted_rand_score(
        d.y[keep], labels[keep])


def test_parse_k():
    assert parse_k("4,2-3") == [2, 3, 4]
    for repeated in ("3,3", "4,2,2-3", "2-5,4", "1-9,3-4", "7,2-8"):  # a k would run twice
        with pytest.raises(CliError, match=r"names \d+ twice"):
            parse_k(repeated)


# --------------------------------------------------------------------- errors
def test_unknown_algorithm(capsys):
    line = _error(capsys, "compare", "--algorithms", "kmeans,dbscan")
    assert "unknown algorithm 'dbscan'" in line and "hdbscan" in line


def test_missing_label_column(features_csv, capsys):
    line = _error(capsys, "compare", "--data", features_csv, "--label-col", "class")
    assert "no column 'class'" in line and "columns are: 'x', 'y', 'name', 'species'" in line


def test_non_numeric_features(features_csv, capsys):
    line = _error(capsys, "compare", "--data", features_csv, "--label-col", "species")
    assert "feature column 'name' is not numeric" in line


@pytest.mark.parametrize("content,message", [
    (b"x,y\x00\n1,2\n", "contains NUL bytes (is it a binary file?)"),
    (b"x,y\n\xff\xfe,2\n", "is not UTF-8 text (is it a binary file?)"),
    (b"x,y\n1,2,3\n", "line 2 has 3 fields but the header has 2"),
    (b"x,y\n", "has a header but no rows"),
])
def test_unreadable_feature_files(tmp_path, capsys, content, message):
    bad = tmp_path / "bad.csv"
    bad.write_bytes(content)
    assert message in _error(capsys, "compare", "--data", bad, "--label-col", "y")
    assert "is a directory, not a file" in _error(capsys, "compare", "--data", tmp_path,
                                                  "--label-col", "y")


def test_unknown_dataset(capsys):
    line = _error(capsys, "compare", "--dataset", "iris,mnist")
    assert "--dataset: unknown dataset 'mnist'" in line


@pytest.mark.parametrize("k, message", [
    ("x", "--k must be a number"), ("0", "--k needs positive"), ("3-a", "--k must be"),
    ("500", "--k 500 asks for up to 500 clusters but the data have 150 points"),
    ("2-100000000", "--k 2-100000000 asks for up to 100,000,000 clusters but the data have "
                    "150 points"),
    ("5-3", "LO <= HI"),
])
def test_bad_k(capsys, k, message):
    line = _error(capsys, "compare", "--dataset", "iris", "--algorithms", "kmeans", "--k", k)
    assert message in line


@pytest.mark.parametrize("argv, message", [
    (["compare", "--data", "x.csv"], "--data needs --label-col"),
    (["compare", "--data", "x.csv", "--dataset", "iris"], "either --data or --dataset"),
    (["compare", "--label-col", "y"], "--label-col applies to --data"),
    (["compare", "--data", "missing.csv", "--label-col", "y"], "no such file"),
    (["compare", "--metrics", "nope"], "nope"),
    (["compare", "--n-per-cluster", "0"], "--n-per-cluster: must be an integer from 1 to"),
    (["compare", "--overlap", "-1"], "must be a positive number"),
    (["compare", "--algorithms", "kmeans", "--show", "ward", "--report", "x"],
     "--show 'ward'"),
    (["compare", "--algorithms", "kmeans", "--show", "kmeans"], "give --report"),
    (["demo", "--n-min", "1"], "--n-min"),
    (["demo", "--n-min", "6", "--n-max", "5"], "--n-max"),
    (["demo", "--seeds", "a"], "--seeds"),
    (["demo", "--bruteforce-max", "12"], "exponential"),
    (["chance", "--repeats", "0"], "--repeats"),
    (["chance", "--experiment", "other"], "--experiment"),
])
def test_other_errors(capsys, argv, message):
    assert message in _error(capsys, *argv)


def test_missing_extra_names_it(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "sklearn.cluster", None)  # import fails
    line = _error(capsys, "compare", "--dataset", "overlapping", "--n-per-cluster", "10",
                  "--algorithms", "kmeans")
    assert "pip install 'clustermetrics[experiments]'" in line


class _Terminal(io.StringIO):
    def isatty(self):
        return True


@pytest.mark.parametrize("quiet", [False, True])
def test_progress_bar_only_on_a_terminal_and_never_with_quiet(monkeypatch, quiet):
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    argv = ["compare", "--dataset", "iris", "--algorithms", "kmeans,ward", "--metrics", "ari",
            "-o", "/dev/null"] + (["--quiet"] if quiet else [])
    assert main(argv) == 0
    shown = "compare:" in terminal.getvalue() and "/2 [" in terminal.getvalue()
    assert shown is not quiet, terminal.getvalue()
