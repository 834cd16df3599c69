"""``score FILE --true-col y --pred-col a --pred-col b``: one run per prediction column,
each equal to ``evaluate`` of its two columns, in every output format."""

import csv
import io
import json

import numpy as np
import pandas as pd
import pytest
from cli_helpers import run

from clustermetrics import evaluate

KEYS = ["ari", "vi", "recovery_rate"]


@pytest.fixture(scope="module")
def frame():
    rng = np.random.default_rng(11)
    return pd.DataFrame({"y": rng.choice(["a", "b", "c"], 80),
                         "kmeans": rng.integers(0, 3, 80),
                         "gmm": rng.integers(-1, 4, 80)})


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_runs_equal_evaluate(tmp_path, capsys, frame, suffix):
    path = tmp_path / f"runs{suffix}"
    frame.to_csv(path, index=False) if suffix == ".csv" else frame.to_parquet(path)
    code, out, err = run(capsys, "score", path, "--true-col", "y", "--pred-col", "kmeans",
                         "--pred-col", "gmm", "--metrics", ",".join(KEYS), "--noise-label",
                         "-1", "--format", "json")
    assert code == 0, err
    runs = json.loads(out)["runs"]
    assert list(runs) == ["kmeans", "gmm"]
    for col in runs:
        pred = frame[col].astype(str) if suffix == ".csv" else frame[col]
        want = evaluate(frame["y"], pred, KEYS, noise_label="-1" if suffix == ".csv" else -1)
        for key in KEYS:
            assert runs[col]["scores"][key] == pytest.approx(want[key], rel=0, abs=0)
    assert "'kmeans'" in err  # its labels have no -1: the note names the run

    code, out, _ = run(capsys, "score", path, "--true-col", "y", "--pred-col", "kmeans",
                       "--pred-col", "gmm", "--metrics", ",".join(KEYS), "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [(r["pred"], r["metric"]) for r in rows] == [
        (c, k) for c in ("kmeans", "gmm") for k in KEYS]

    code, out, _ = run(capsys, "score", path, "--true-col", "y", "--pred-col", "kmeans",
                       "--pred-col", "gmm", "--metrics", "ari", "--ci", "0.9", "--n-boot",
                       "20", "--seed", "3")
    assert code == 0 and "2 runs: kmeans" in out
    # the method once, in the notes: a column per run names the level
    assert "gmm 90% interval" in out and "bias-corrected normal intervals" in out


@pytest.mark.parametrize("extra, message", [
    (["--pred-col", "kmeans"], "--pred-col names 'kmeans' twice"),
    (["--true-col", "gmm"], "not both"),
])
def test_refused(tmp_path, capsys, frame, extra, message):
    path = tmp_path / "runs.csv"
    frame.to_csv(path, index=False)
    code, out, err = run(capsys, "score", path, "--true-col", "y", "--pred-col", "kmeans",
                         "--pred-col", "gmm", *extra)
    assert code == 2 and message in err and err.count("\n") == 1 and out == ""
