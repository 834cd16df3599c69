"""A column asked for by name is read only where the name is there exactly once, and a
column has one role: every reader says so in the same words, naming the option.

pandas allows repeated column names (``frame[name]`` is then a frame of all of them), CSV
and Parquet files too; before, ``evaluate_frame`` reported "must be 1-D, got shape (3, 2)"
and ``read_table`` (now ``read_dataset``) silently took the last of them. The truth read
as a feature (``hierarchy --features y`` with ``--true-col y``) leaked the answer into the
data clustered."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from cli_helpers import run
from hypothesis import given, settings
from hypothesis import strategies as st

from clustermetrics import evaluate_frame
from clustermetrics.experiments.datasets import read_dataset
from clustermetrics.io.chunks import from_chunks

ROLES = ("truth", "preds", "by", "weight")


def _frame(columns):
    rng = np.random.default_rng(0)
    return pd.DataFrame(rng.integers(1, 3, (6, len(columns))), columns=columns)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(ROLES), st.integers(2, 3), st.booleans())
def test_evaluate_frame_refuses_a_repeated_name_it_reads(role, copies, named):
    """Whichever column is repeated, the message names it, how many times, and the
    option that reads it; a repeated name nobody reads is no problem."""
    names = {"truth": "y", "preds": "a", "by": "g", "weight": "w"}
    columns = ["y", "a", "g", "w"] + [names[role]] * (copies - 1)
    kwargs = dict(truth="y", preds=["a"] if named or role != "preds" else None,
                  metrics=["ari"], by="g", weight="w")
    with pytest.raises(ValueError) as info:
        evaluate_frame(_frame(columns), **kwargs)
    assert str(info.value) == (f"frame has {copies} columns named {names[role]!r} ({role}); "
                               "the column to read must be named once")
    unread = _frame(["y", "a", "g", "w", "other", "other"])
    assert len(evaluate_frame(unread, **dict(kwargs, preds=["a"]))) == 2


def test_evaluate_frame_reads_columns_by_position():
    """Column names that are not strings are read by their text, as listed."""
    df = pd.DataFrame([[0, 0, 1], [1, 1, 0], [1, 0, 1]], columns=[0, 1, 2])
    got = evaluate_frame(df, "0", None, ["ari"])
    assert got["pred"].tolist() == ["1", "2"]
    with pytest.raises(ValueError, match="frame has 2 columns named '0' \\(preds\\)"):
        evaluate_frame(pd.DataFrame([[0, 0, 1]] * 3, columns=[0, "0", 2]), "2", None, ["ari"])


@pytest.mark.parametrize("kind", ["csv", "parquet"])
@pytest.mark.parametrize("header, kwargs, message", [
    (["x", "y", "y"], {}, "has 2 columns named 'y' (label_col)"),
    (["x", "x", "y"], {"feature_cols": ["x"]}, "has 2 columns named 'x' (feature_cols)"),
    (["x", "x", "y"], {}, None),  # every feature: repeated names are columns like others
    (["x", "z", "y"], {"feature_cols": ["x", "y"]},
     "feature_cols names 'y', the column of label_col: a column has one role"),
    (["x", "z", "y"], {"feature_cols": ["x", "z", "x"]}, "feature_cols names 'x' twice"),
])
def test_read_dataset_reads_a_named_column_once_and_in_one_role(tmp_path, kind, header, kwargs,
                                                              message):
    rows = [[1.0, 2.0, "a"], [2.0, 3.0, "b"], [4.0, 1.0, "a"]]
    if kind == "csv":
        path = tmp_path / "d.csv"
        path.write_text(",".join(header) + "\n" + "".join(
            ",".join(map(str, r)) + "\n" for r in rows))
    else:
        import pyarrow as pa
        import pyarrow.parquet as pq

        path = tmp_path / "d.parquet"
        arrays = [pa.array([r[i] for r in rows]) for i in range(3)]
        pq.write_table(pa.Table.from_arrays(arrays, names=header), path)
    if message is None:
        data = read_dataset(path, "y", **kwargs)
        assert data.X.shape == (3, 2) and data.y.tolist() == ["a", "b", "a"]
        return
    with pytest.raises(ValueError) as info:
        read_dataset(path, "y", **kwargs)
    assert message in str(info.value)


def test_chunks_refuse_a_repeated_column_they_read():
    chunk = pd.DataFrame([[0, 1, 1], [1, 0, 0]], columns=["t", "p", "p"])
    with pytest.raises(ValueError, match="has 2 columns named 'p' \\(pred_col\\)"):
        from_chunks([chunk], true_col="t", pred_col="p")


@pytest.mark.parametrize("command, argv, message", [
    ("hierarchy", ["d.csv", "--true-col", "y", "--features", "x,y"],
     "--features names 'y', the column of --true-col: a column has one role"),
    ("compare", ["--data", "d.csv", "--label-col", "y", "--features", "y"],
     "--features names 'y', the column of --label-col: a column has one role"),
    ("hierarchy", ["dd.csv", "--true-col", "y"],
     "dd.csv has 2 columns named 'y' (--true-col); the column to read must be named once"),
    ("compare", ["--data", "dd.csv", "--label-col", "y"],
     "dd.csv has 2 columns named 'y' (--label-col); the column to read must be named once"),
    ("hierarchy", ["d.csv", "--true-col", "y", "--features", "q"],
     "d.csv has no column 'q' (--features); columns are: 'x', 'y', 'z'"),
])
def test_commands_read_the_truth_once_and_never_as_a_feature(capsys, tmp_path, monkeypatch,
                                                            command, argv, message):
    monkeypatch.chdir(tmp_path)
    body = "".join(f"{i},{'ab'[i % 2]},{i % 3}\n" for i in range(9))
    (tmp_path / "d.csv").write_text("x,y,z\n" + body)
    (tmp_path / "dd.csv").write_text("x,y,y\n" + body)
    code, out, err = run(capsys, command, *argv, "--metrics", "ari")
    assert code == 2 and out == "" and err == f"clustermetrics: error: {message}\n"
