"""evaluate_frame: each row equals ``evaluate`` of its two columns (restricted to its
group with ``by=``), for pandas and polars, with intervals and noise; bad columns are
ValueErrors naming the option."""

import math

import numpy as np
import pandas as pd
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clustermetrics import evaluate, evaluate_frame

KEYS = ["ari", "ami", "vi", "recovery_rate", "bcubed_f", "clustering_ratio"]


def _same(a, b):
    return (math.isnan(a) and math.isnan(b)) or a == b


def _data(seed, n, n_runs, labels):
    rng = np.random.default_rng(seed)
    data = {"y": rng.choice(labels, n), "g": rng.choice(["p", "q", "r"], n),
            "h": rng.integers(0, 2, n)}
    for i in range(n_runs):
        data[f"run{i}"] = rng.integers(-1, 4, n)
    return data


@given(st.integers(0, 2**32 - 1), st.integers(1, 40), st.integers(1, 3),
       st.sampled_from([["a", "b", "c"], [10, 20, 30, 40], ["x"]]),
       st.sampled_from(["pandas", "polars"]), st.booleans())
@settings(max_examples=30, deadline=None)
def test_rows_equal_per_column_evaluate(seed, n, n_runs, labels, library, grouped):
    data = _data(seed, n, n_runs, labels)
    frame = pd.DataFrame(data) if library == "pandas" else pl.DataFrame(data)
    runs = [f"run{i}" for i in range(n_runs)]
    by = ["g", "h"] if grouped else None
    out = evaluate_frame(frame, "y", runs, KEYS, by=by, noise_label=-1)
    assert type(out).__module__.split(".")[0] == library
    rows = out.to_dict("records") if library == "pandas" else out.to_dicts()
    pairs = zip(data["g"].tolist(), data["h"].tolist(), strict=True)
    expected_groups = sorted(set(pairs)) if grouped else [None]
    assert len(rows) == len(runs) * len(expected_groups)
    i = 0
    for run in runs:
        for group in expected_groups:
            row = rows[i]
            i += 1
            mask = np.ones(n, bool) if group is None else \
                (data["g"] == group[0]) & (data["h"] == group[1])
            if group is not None:
                assert (row["g"], row["h"]) == group
            want = evaluate(data["y"][mask], data[run][mask], KEYS, noise_label=-1)
            assert row["pred"] == run
            assert row["n_samples"] == want.table.n_samples == mask.sum()
            assert row["n_clusters"] == want.table.n_clusters
            assert row["n_noise"] == want.noise.n_noise
            for key in KEYS:
                assert _same(row[key], want[key]), (run, group, key)


@pytest.mark.parametrize("library", ["pandas", "polars"])
def test_intervals_match_evaluate_with_the_same_seed(library):
    data = _data(7, 60, 2, ["a", "b", "c"])
    frame = pd.DataFrame(data) if library == "pandas" else pl.DataFrame(data)
    out = evaluate_frame(frame, "y", ["run0", "run1"], ["ari", "nmi"], ci=0.9, n_boot=30,
                         seed=5)
    rows = out.to_dict("records") if library == "pandas" else out.to_dicts()
    for row, run in zip(rows, ["run0", "run1"], strict=True):
        want = evaluate(data["y"], data[run], ["ari", "nmi"], ci=0.9, n_boot=30, seed=5)
        for key in ["ari", "nmi"]:
            assert row[f"{key}_ci_low"] == want.intervals[key].low
            assert row[f"{key}_ci_high"] == want.intervals[key].high


def test_default_preds_are_the_other_columns():
    df = pd.DataFrame({"y": [0, 0, 1, 1], "a": [0, 0, 1, 1], "b": [1, 0, 1, 0], "g": [0] * 4})
    assert evaluate_frame(df, "y", metrics="ari", by="g")["pred"].tolist() == ["a", "b"]


@pytest.mark.parametrize("kwargs, words", [
    (dict(truth="nope", preds=["a"]), ["no column 'nope'", "truth"]),
    (dict(truth="y", preds=["a", "zz"]), ["no column 'zz'", "preds"]),
    (dict(truth="y", preds=["a", "y"]), ["preds names 'y', the column of truth"]),
    (dict(truth="y", preds=["a"], by="b2"), ["no column 'b2'", "by"]),
    (dict(truth="y", preds=["a", "a"]), ["preds", "twice"]),
    (dict(truth="y", preds=[]), ["preds", "empty"]),
    (dict(truth="y", preds="a", seed=1), ["seed", "ci"]),
])
def test_bad_columns_name_the_option(kwargs, words):
    df = pd.DataFrame({"y": [0, 0, 1], "a": [0, 1, 1]})
    with pytest.raises(ValueError) as info:
        evaluate_frame(df, **kwargs)
    for word in words:
        assert word in str(info.value)


def test_not_a_frame():
    with pytest.raises(TypeError, match="pandas or polars DataFrame"):
        evaluate_frame({"y": [0]}, "y", ["y"])


def test_missing_label_names_the_column():
    df = pd.DataFrame({"y": [0, 0, 1], "a": [0.0, None, 1.0]})
    with pytest.raises(ValueError, match="'?a'?"):
        evaluate_frame(df, "y", ["a"], "ari")


@given(st.integers(0, 2**32 - 1), st.integers(1, 30), st.integers(1, 3),
       st.sampled_from(["pandas", "polars"]), st.booleans(),
       st.sampled_from(["int64", "uint8", "float64"]))
@settings(max_examples=30, deadline=None)
def test_weighted_rows_equal_evaluate_of_repeated_rows(seed, n, n_runs, library, grouped,
                                                      dtype):
    data = _data(seed, n, n_runs, ["a", "b", "c"])
    rng = np.random.default_rng(seed)
    data["w"] = rng.integers(1, 4, n).astype(dtype)
    frame = pd.DataFrame(data) if library == "pandas" else pl.DataFrame(data)
    runs = [f"run{i}" for i in range(n_runs)]
    by = ["g"] if grouped else None
    out = evaluate_frame(frame, "y", runs, ["ari", "vi", "recovery_rate"], by=by,
                         weight="w")
    out = out if library == "pandas" else out.to_pandas()
    y, w = np.asarray(data["y"]), np.asarray(data["w"]).astype(int)
    for _, row in out.iterrows():
        keep = np.ones(n, bool) if by is None else np.asarray(data["g"]) == row["g"]
        # the reference: each row repeated w times, unweighted
        reps = np.repeat(np.flatnonzero(keep), w[keep])
        want = evaluate(y[reps], np.asarray(data[row["pred"]])[reps],
                        ["ari", "vi", "recovery_rate"])
        assert row["n_samples"] == w[keep].sum()
        for key in want:
            assert _same(row[key], want[key]), (key, row[key], want[key])


@pytest.mark.parametrize("weights, words", [
    ([1, -1, 1, 1], "weight column 'w' holds 1 negative weights \\(the first: row 1 = -1\\)"),
    ([1, float("inf"), 1, 1], "weight column 'w' holds 1 infinite weights"),
    ([0.5, 1e150, 1e150, 1], "weight column 'w' adds up to 2e\\+150"),
    ([1, float("nan"), 1, 1], "weight column 'w' holds 1 NaN weights"),
    ([0, 0, 0, 0], "weight column 'w' is 0 for every row"),
])
def test_bad_weights_name_the_column(weights, words):
    frame = pd.DataFrame({"y": [0, 0, 1, 1], "a": [0, 1, 1, 1], "w": weights})
    with pytest.raises(ValueError, match=words):
        evaluate_frame(frame, "y", ["a"], ["ari"], weight="w")


@pytest.mark.parametrize("weight, words", [
    ("zz", "no column 'zz' \\(weight\\)"), ("a", "weight names 'a', the column of preds"),
    ("y", "weight names 'y', the column of truth"), (["w"], "weight must be the name of one"),
])
def test_bad_weight_option_is_named(weight, words):
    frame = pd.DataFrame({"y": [0, 0, 1, 1], "a": [0, 1, 1, 1], "w": [1, 1, 1, 1]})
    with pytest.raises(ValueError, match=words):
        evaluate_frame(frame, "y", ["a"], ["ari"], weight=weight)


def test_default_preds_leave_out_the_weight_column():
    frame = pd.DataFrame({"y": [0, 0, 1, 1], "a": [0, 1, 1, 1], "w": [1, 2, 1, 1]})
    assert evaluate_frame(frame, "y", metrics=["ari"], weight="w")["pred"].tolist() == ["a"]


@given(st.integers(0, 2**32 - 1), st.integers(1, 30), st.sampled_from(["pandas", "polars"]),
       st.booleans())
@settings(max_examples=20, deadline=None)
def test_real_weights_equal_evaluate_with_sample_weight(seed, n, library, grouped):
    data = _data(seed, n, 2, ["a", "b", "c"])
    rng = np.random.default_rng(seed)
    data["w"] = rng.integers(1, 40, n) / 8 + 0.001  # non-integral: real masses
    frame = pd.DataFrame(data) if library == "pandas" else pl.DataFrame(data)
    by = ["g"] if grouped else None
    keys = ["nmi", "vi", "purity", "recovery_rate"]
    out = evaluate_frame(frame, "y", ["run0", "run1"], keys, by=by, weight="w")
    out = out if library == "pandas" else out.to_pandas()
    y, w = np.asarray(data["y"]), np.asarray(data["w"])
    for _, row in out.iterrows():
        keep = np.ones(n, bool) if by is None else np.asarray(data["g"]) == row["g"]
        want = evaluate(y[keep], np.asarray(data[row["pred"]])[keep], keys,
                        sample_weight=w[keep])
        assert row["n_samples"] == pytest.approx(want.table.n_samples, rel=1e-12)
        for key in keys:
            assert _same(row[key], want[key]), (key, row[key], want[key])


def test_real_weights_follow_evaluates_rules_for_scores_needing_whole_items():
    frame = pd.DataFrame({"y": [0, 0, 1, 1, 2], "a": [0, 1, 1, 1, 2],
                          "w": [1.5, 2.25, 3.0, 1.0, 2.5]})
    with pytest.raises(ValueError, match="the table holds real-valued masses"):
        evaluate_frame(frame, "y", ["a"], ["nmi", "ami"], weight="w")
    with pytest.warns(UserWarning) as caught:
        out = evaluate_frame(frame, "y", ["a"], weight="w")
    assert len(caught) == 1 and "ami" in str(caught[0].message)
    assert "ami" not in out.columns and "nmi" in out.columns
    assert out["nmi"][0] == evaluate(frame["y"], frame["a"], "nmi",
                                     sample_weight=frame["w"])["nmi"]


@given(st.sampled_from(["pandas", "polars"]), st.booleans(), st.booleans(),
       st.lists(st.sampled_from(["ari", "nmi", "vi", "recovery_rate", "bcubed_f"]),
                min_size=1, max_size=3, unique=True), st.data())
@settings(max_examples=40, deadline=None)
def test_by_named_as_an_output_column_is_refused(library, ci, noise, keys, data):
    # The oracle is the output itself: a call with a harmless group name lists the
    # columns the output makes; a group column renamed to any of them must be refused.
    values = {"y": [0, 0, 1, 1, 2, 2], "a": [0, 0, 1, 1, 1, -1], "g": [0, 1, 0, 1, 0, 1]}
    options = dict(ci=0.9 if ci else None, n_boot=5 if ci else None, seed=1 if ci else None,
                   noise_label=-1 if noise else None)
    make = pd.DataFrame if library == "pandas" else pl.DataFrame
    made = [str(c) for c in evaluate_frame(make(values), "y", ["a"], keys, by="g",
                                           **options).columns]
    name = data.draw(st.sampled_from([c for c in made if c != "g"]))
    renamed = {name if k == "g" else k: v for k, v in values.items()}
    with pytest.raises(ValueError, match=f"by names the column '{name}'"):
        evaluate_frame(make(renamed), "y", ["a"], keys, by=name, **options)
