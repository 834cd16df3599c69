"""The ``hierarchy`` command: best cuts printed, the curve page written, bad input one line."""

import json

import numpy as np
import pytest
from scipy.cluster.hierarchy import fcluster, linkage
from sklearn.datasets import load_iris

import clustermetrics as cm
from cli_helpers import run


@pytest.fixture
def data(tmp_path):
    rng = np.random.default_rng(0)
    y = np.repeat(["a", "b", "c"], 20)
    X = rng.normal(size=(60, 2)) + np.repeat([[0, 0], [6, 0], [0, 6]], 20, axis=0)
    path = tmp_path / "d.csv"
    rows = [f"{float(a)!r},{float(b)!r},{c}\n" for (a, b), c in zip(X, y, strict=True)]
    path.write_text("x,y,label\n" + "".join(rows))
    Z = linkage(X, "average")
    np.save(tmp_path / "Z.npy", Z)
    (tmp_path / "truth.txt").write_text("\n".join(y) + "\n")
    return path, X, y, Z


def test_data_file_best_cuts(capsys, data, tmp_path):
    path, X, y, Z = data
    code, out, err = run(capsys, "hierarchy", path, "--true-col", "label", "--method",
                         "average", "--metrics", "ari,ami", "--format", "json",
                         "--report", tmp_path / "rep")
    assert code == 0, err
    got = json.loads(out)
    want = max(range(1, 61), key=lambda k: (cm.adjusted_rand_score(
        y, fcluster(Z, k, "maxclust")), -k))
    assert got["best"]["ari"]["n_clusters"] == want
    assert got["best"]["ari"]["value"] == pytest.approx(
        cm.adjusted_rand_score(y, fcluster(Z, want, "maxclust")), abs=1e-12)
    assert got["computed_only_at"]["ami"] == sorted({3, want})
    assert (tmp_path / "rep" / "hierarchy_curves.png").stat().st_size > 1000


def test_linkage_and_truth_files(capsys, data, tmp_path):
    code, out, err = run(capsys, "hierarchy", "--linkage", tmp_path / "Z.npy", "--truth",
                         tmp_path / "truth.txt", "--metrics", "ari,nmi")
    assert code == 0, err
    assert "best n_clusters" in out and "nmi" in out


@pytest.mark.parametrize("argv, message", [
    ([], "give DATA"),
    (["--linkage", "Z.npy"], "--linkage needs --truth"),
    (["d.csv"], "--true-col"),
    (["--linkage", "truth.txt", "--truth", "truth.txt"], "not a numpy .npy file"),
    (["--linkage", "Z.npy", "--truth", "truth.txt", "--method", "ward"], "applies to DATA"),
    (["d.csv", "--true-col", "label", "--k", "0"], "--k must"),
    (["d.csv", "--true-col", "label", "--k", "999"], "--k must"),
    (["--linkage", "Z.npy", "--truth", "short.txt"], "--truth has 2"),
    (["d.csv", "--true-col", "label", "--metrics", "nope"], "unknown metric"),
])
def test_bad_input_is_one_line(capsys, data, tmp_path, monkeypatch, argv, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "short.txt").write_text("a\nb\n")
    code, out, err = run(capsys, "hierarchy", *argv)
    assert code == 2 and message in err and err.count("\n") == 1, err


def test_compare_curves_beside_the_run_at_true_k(capsys, tmp_path):
    code, out, err = run(capsys, "compare", "--dataset", "iris", "--algorithms",
                         "kmeans,average", "--curves", "--metrics", "ari", "--format", "json",
                         "--report", tmp_path / "rep")
    assert code == 0, err
    runs = {r["algorithm"]: r for r in json.loads(out)}
    assert "curve" not in runs["kmeans"]
    curve = runs["average"]["curve"]["best"]["ari"]
    iris = load_iris()
    Z = linkage(iris.data, "average")
    values = [cm.adjusted_rand_score(iris.target, fcluster(Z, k, "maxclust"))
              for k in range(1, 151)]
    assert curve["value"] == pytest.approx(max(values), abs=1e-12)
    assert curve["at_true_k"] == pytest.approx(runs["average"]["scores"]["ari"], abs=1e-12)
    assert (tmp_path / "rep" / "hierarchy_0.png").exists()
    code, _, err = run(capsys, "compare", "--dataset", "iris", "--algorithms", "kmeans",
                       "--curves")
    assert code == 2 and "--curves applies to ward and average" in err
