"""benchmarks/bench_defaults.py measures every registered score: a score registered later is
measured without editing the script (no timing here)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import numpy as np
import pytest

import clustermetrics as cm
from clustermetrics.scores.registry import MetricInfo

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture(scope="module")
def bench():
    path = BENCHMARKS / "bench_defaults.py"
    spec = importlib.util.spec_from_file_location("bench_defaults", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_defaults"] = module  # its dataclass looks its module up there
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules["bench_defaults"]
    return module


def _fake_entry(calls: list) -> MetricInfo:
    def fake_score(labels_true, labels_pred, *, scale=1.0):
        calls.append((list(labels_true), list(labels_pred), scale))
        return 0.5 * scale

    return MetricInfo(key="fake_score", name="Fake score", func=fake_score,
                      family="pair counting", lower=0.0, upper=1.0, better="higher",
                      symmetric=True, adjusted=False, reference="none",
                      options={"scale": 2.0})


@pytest.mark.parametrize("quick", [False, True])
def test_every_registered_score_is_measured(bench, quick):
    keys = bench.target_keys(quick)
    assert keys["2 small"] == list(cm.METRICS)
    assert keys["4 zoo"] == list(cm.METRICS)
    if quick:  # a subset, none of it lost to a renamed key
        assert set(bench.QUICK_COMPILE_KEYS) <= set(cm.METRICS)
        assert keys["3 compile"] == bench.QUICK_COMPILE_KEYS
    else:
        assert keys["3 compile"] == list(cm.METRICS)
    cases = bench.first_call_cases(quick)
    assert [c.split(":", 1)[1] for c in cases if c.startswith("score:")] == \
        keys["3 compile"]


def test_a_newly_registered_score_is_measured(bench, monkeypatch):
    calls: list = []
    monkeypatch.setitem(cm.METRICS, "fake_score", _fake_entry(calls))
    keys = bench.target_keys(quick=False)
    for target in ("2 small", "3 compile", "4 zoo"):
        assert "fake_score" in keys[target], target
    assert "score:fake_score" in bench.first_call_cases(quick=False)
    # what is timed is the registered function on the labels, with the entry's options
    assert bench.score_call("fake_score", [0, 0, 1], [1, 1, 0])() == 1.0
    assert calls == [([0, 0, 1], [1, 1, 0], 2.0)]


def test_a_score_that_raises_is_a_failure(bench, monkeypatch):
    def broken(labels_true, labels_pred):
        raise ValueError("labels_true: not today")

    entry = MetricInfo(key="broken_score", name="Broken", func=broken,
                       family="pair counting", lower=0.0, upper=1.0, better="higher",
                       symmetric=True, adjusted=False, reference="none")
    monkeypatch.setitem(cm.METRICS, "broken_score", entry)
    got = bench._score_seconds("broken_score", [0, 1], [0, 1], 1, 1.0, warm_up=False)
    assert got == "raised ValueError: labels_true: not today"
    assert bench._ratio(got, 1.0) == float("inf")
    row = bench.Row("2", "broken_score", bench._ratio(got, 1.0), 10.0, "x")
    assert not row.ok
    assert json.loads(json.dumps(bench._json_row(row), allow_nan=False)) == \
        {"target": "2", "case": "broken_score", "value": None, "limit": 10.0, "unit": "x",
         "detail": "", "ok": False}


def test_sorted_tree_is_a_valid_linkage_of_every_point(bench):
    from scipy.cluster.hierarchy import is_valid_linkage

    rng = np.random.default_rng(0)
    for n in (2, 3, 7, 64, 1001):
        y = rng.integers(0, 5, n)
        Z = bench.sorted_tree(y)
        assert Z.shape == (n - 1, 4) and is_valid_linkage(Z)
        assert np.all(np.diff(Z[:, 2]) >= 0)
        children = Z[:, :2].astype(int)
        leaves = children[children < n]
        assert sorted(leaves.tolist()) == list(range(n))  # each point a leaf once
        size = np.ones(2 * n - 1)
        for i, (a, b) in enumerate(children):  # each size the sum of its children's
            size[n + i] = size[a] + size[b]
            assert Z[i, 3] == size[n + i]
        # the first merges join items of one class (the tree splits classes low down)
        first = children[: n // 2]
        pure = y[first[:, 0]] == y[first[:, 1]]
        assert pure.sum() >= n // 2 - 5


def test_install_is_recorded(bench):
    info = bench.install_info()
    assert info["install"] in ("plain", "editable", "source tree")
    assert info["numpy"] == np.__version__
    # the test environment is not the plain install, and the script says so
    assert bench.install_warnings(info)
    plain = dict(info, install="plain", extras_present=[], numba="0.60",
                 kernels_env=None)
    assert bench.install_warnings(plain) == []
    assert any("numba is missing" in w
               for w in bench.install_warnings(dict(plain, numba=None)))


def test_rows_compare_with_their_limit(bench):
    assert bench.Row("5", "import", 2.5, 2.5, "x").ok
    assert not bench.Row("5", "import", 2.51, 2.5, "x").ok
    assert "FAIL" in bench.Row("3", "ami", 3.5, 3.0, "s").line()
