"""The simulator (shape, labels, seeds, overlap knob), the toy loader and user files."""

import numpy as np
import pytest

from clustermetrics import datasets
from clustermetrics.experiments.datasets import (
    DATASETS,
    load_dataset,
    overlapping_clusters,
    read_dataset,
)


def _nearest_mean_accuracy(X, y):
    """Share of points closest to their own class mean: 1 when clusters are apart."""
    means = np.stack([X[y == c].mean(axis=0) for c in np.unique(y)])
    d = ((X[:, None, :] - means[None]) ** 2).sum(axis=-1)
    return float((d.argmin(axis=1) == y).mean())


@pytest.mark.parametrize("n, per, dim", [(1, 5, 2), (4, 50, 3), (7, 13, 5)])
def test_shape_and_labels(n, per, dim):
    X, y = overlapping_clusters(n, per, dim=dim, seed=3)
    assert X.shape == (n * per, dim) and X.dtype == np.float64
    assert y.shape == (n * per,) and y.dtype == np.int64
    assert np.array_equal(np.bincount(y), np.full(n, per))
    assert np.isfinite(X).all()


def test_seed_reproducible_and_rows_shuffled():
    a = overlapping_clusters(5, 40, seed=11)
    b = overlapping_clusters(5, 40, seed=11)
    c = overlapping_clusters(5, 40, seed=12)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    assert not np.array_equal(a[0], c[0])
    assert not np.array_equal(a[1], np.sort(a[1]))  # not stored cluster by cluster


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_overlap_knob_controls_separation(seed):
    accs = [_nearest_mean_accuracy(*overlapping_clusters(6, 200, overlap=o, seed=seed))
            for o in (0.1, 0.3, 1.0, 3.0)]
    assert all(a > b for a, b in zip(accs, accs[1:], strict=False)), accs
    assert accs[0] > 0.95          # far apart: almost separable
    assert accs[2] < 0.9           # the default: heavily overlapping


def test_overlap_moves_centres_only():
    (X1, y1), (X2, y2) = (overlapping_clusters(4, 60, overlap=o, seed=5) for o in (0.5, 2.0))
    assert np.array_equal(y1, y2)
    for c in range(4):
        a, b = X1[y1 == c], X2[y2 == c]
        assert np.allclose(a - a.mean(axis=0), b - b.mean(axis=0))
        assert not np.allclose(a.mean(axis=0), b.mean(axis=0))


@pytest.mark.parametrize("seed", [0, 4])
def test_clusters_are_anisotropic_with_unequal_spread(seed):
    X, y = overlapping_clusters(8, 400, seed=seed)
    eig = [np.linalg.eigvalsh(np.cov(X[y == c].T)) for c in range(8)]
    ratios = [e.max() / e.min() for e in eig]
    spreads = [e.sum() for e in eig]
    assert np.median(ratios) > 2
    assert max(spreads) / min(spreads) > 2


@pytest.mark.parametrize("kwargs, name", [
    ({"n_clusters": 0}, "n_clusters"), ({"n_per_cluster": 2.5}, "n_per_cluster"),
    ({"dim": 1}, "dim"), ({"overlap": 0}, "overlap"), ({"overlap": float("nan")}, "overlap"),
    ({"n_clusters": True}, "n_clusters"),
])
def test_bad_arguments_name_the_argument(kwargs, name):
    args = {"n_clusters": 3, "n_per_cluster": 10} | kwargs
    with pytest.raises(ValueError, match=name):
        overlapping_clusters(**args)


@pytest.mark.parametrize("name, shape, classes", [
    ("iris", (150, 4), 3), ("wine", (178, 13), 3), ("digits", (1797, 64), 10)])
def test_sklearn_toy_sets(name, shape, classes):
    d = load_dataset(name)
    assert d.X.shape == shape and len(np.unique(d.y)) == classes and d.name == name


def test_blobs_and_overlapping_follow_the_size_options():
    for name in ("blobs", "overlapping"):
        d = load_dataset(name, n_clusters=4, n_per_cluster=25, seed=2)
        assert d.X.shape[0] == 100 and len(np.unique(d.y)) == 4
    assert set(DATASETS) == {"overlapping", "halo", "iris", "wine", "digits", "blobs"}


def test_unknown_dataset():
    with pytest.raises(ValueError, match="unknown dataset 'mnist'.*iris"):
        load_dataset("mnist")


# --------------------------------------------------------------------- user files
def test_read_csv_features_and_labels(tmp_path):
    f = tmp_path / "d.csv"
    f.write_text("a,b,label,c\n1,2,x,3\n4,5.5,y,-6e1\n")
    d = read_dataset(f, "label")
    assert d.X.tolist() == [[1.0, 2.0, 3.0], [4.0, 5.5, -60.0]]
    assert d.y.tolist() == ["x", "y"]
    assert read_dataset(f, "label", feature_cols=["c"]).X.tolist() == [[3.0], [-60.0]]


def test_read_tsv(tmp_path):
    f = tmp_path / "d.tsv"
    f.write_text("a\tlabel\n1\tx\n2\ty\n")
    assert read_dataset(f, "label").X.ravel().tolist() == [1.0, 2.0]


def test_read_parquet_keeps_label_types(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    f = tmp_path / "d.parquet"
    pq.write_table(pa.table({"f1": [0.5, 1.5, 2.5], "f2": [1, 2, 3], "y": [7, 8, 7]}), f)
    d = read_dataset(f, "y")
    assert d.X.tolist() == [[0.5, 1.0], [1.5, 2.0], [2.5, 3.0]]
    assert d.y.tolist() == [7, 8, 7]


def test_read_json_lines_keeps_label_types_and_names_what_is_missing(tmp_path):
    f = tmp_path / "d.jsonl"
    f.write_text('{"f1": 0.5, "y": 7, "f2": 1}\n{"f2": 2, "f1": 1.5, "y": true}\n')
    d = read_dataset(f, "y")
    assert d.X.tolist() == [[0.5, 1.0], [1.5, 2.0]]
    assert d.y.tolist() == [7, True] and type(d.y[1]) is bool
    f.write_text('{"f1": 0.5, "y": 7}\n{"y": 8}\n')
    with pytest.raises(ValueError, match="feature column 'f1' has a missing value .row 2."):
        read_dataset(f, "y")
    with pytest.raises(ValueError, match="sep applies to delimited text files; .* is JSON Lines"):
        read_dataset(f, "y", sep=";")


def test_missing_label_column_lists_columns(tmp_path):
    f = tmp_path / "d.csv"
    f.write_text("a,b,species\n1,2,x\n")
    with pytest.raises(ValueError, match=r"no column 'label'.*columns are: 'a', 'b', 'species'"):
        read_dataset(f, "label")


def test_non_numeric_feature_is_named(tmp_path):
    f = tmp_path / "d.csv"
    f.write_text("a,name,y\n1,bob,x\n2,eve,y\n")
    with pytest.raises(ValueError, match=r"feature column 'name' is not numeric.*'bob'"):
        read_dataset(f, "y")


@pytest.mark.parametrize("text, message", [
    ("a,y\n,x\n", "missing value"), ("a,y\nnan,x\n", "NaN"), ("a,y\n1,\n", "label column"),
    ("a,y\n1,x,3\n", "line 2 has 3 fields"), ("", "empty"), ("a,y\n", "no rows"),
    ("y\nx\n", "no feature columns"),
])
def test_bad_files(tmp_path, text, message):
    f = tmp_path / "d.csv"
    f.write_text(text)
    with pytest.raises(ValueError, match=message):
        read_dataset(f, "y")


def test_missing_file_and_missing_feature_column(tmp_path):
    with pytest.raises(ValueError, match="no such file"):
        read_dataset(tmp_path / "nope.csv", "y")
    f = tmp_path / "d.csv"
    f.write_text("a,y\n1,x\n")
    with pytest.raises(ValueError, match=r"no column 'b' \(feature_cols\)"):
        read_dataset(f, "y", feature_cols=["b"])


def test_read_table_of_datasets_is_read_dataset_under_its_old_name(tmp_path):
    f = tmp_path / "d.csv"
    f.write_text("a,label\n1,x\n2,y\n")
    with pytest.warns(FutureWarning, match="read_table.*read_dataset"):
        old = datasets.read_table(f, "label")
    new = read_dataset(f, "label")
    assert old.X.tolist() == new.X.tolist() and old.y.tolist() == new.y.tolist()
