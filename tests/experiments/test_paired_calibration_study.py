"""The calibration study of the paired test (``paired_calibration``, ``clustermetrics
paired-calibration``): it counts what ``paired_comparison`` says on its null samples,
and renders the rates and limits in every output."""

from __future__ import annotations

import csv
import io
import json
import math

import numpy as np
import pytest

import clustermetrics as cm
from clustermetrics.cli.main import main
from clustermetrics.experiments.paired_calibration import null_labels, paired_calibration


def test_rates_are_the_verdicts_of_paired_comparison_on_the_null_samples():
    """The study's counts, against a loop of its own over the same samples (each grid
    cell draws from the stream [seed, classes, keep * 1e6, n])."""
    keys = ["ari", "nmi", "clustering_ratio"]
    result = paired_calibration([4, 12], [0.5], [40], keys, n_trials=15, seed=3)
    assert [(r.n_classes, r.metric) for r in result.rows] == [
        (k, key) for k in (4, 12) for key in keys]
    for k in (4, 12):
        rng = np.random.default_rng([3, k, 500_000, 40])
        flagged, rejected = dict.fromkeys(keys, 0), dict.fromkeys(keys, 0)
        for _ in range(15):
            r = cm.paired_comparison(*null_labels(k, 0.5, 40, rng), keys)
            for key in keys:
                flagged[key] += math.isnan(r[key].pvalue)
                rejected[key] += r[key].pvalue < 0.05
        for row in (r for r in result.rows if r.n_classes == k):
            tested = 15 - flagged[row.metric]
            assert (row.flagged, row.rejected) == (flagged[row.metric], rejected[row.metric])
            assert row.rate == (rejected[row.metric] / tested if tested else row.rate)
            assert row.limit == pytest.approx(0.05 + 3 * math.sqrt(0.05 * 0.95 / tested))


def test_null_labels_keep_the_true_label_at_the_asked_rate():
    t, a, b = null_labels(7, 0.3, 200_000, np.random.default_rng(0))
    # kept with probability 0.3, else uniform over 7 labels: equal with 0.3 + 0.7 / 7
    for pred in (a, b):
        assert np.mean(pred == t) == pytest.approx(0.3 + 0.7 / 7, abs=0.005)
    assert np.mean(a == b) < 0.5  # drawn independently of each other


def test_every_output_and_the_rows_above_the_limit():
    result = paired_calibration([3], [0.9], [30, 60], ["ari", "nmi"], n_trials=6)
    text = result.format()
    assert "3 classes, keep 0.9" in text and "n=30" in text and "n=60" in text
    assert "above the limit:" in text
    data = json.loads(result.to_json())
    assert len(data["rows"]) == 4 and data["alpha"] == 0.05
    rows = list(csv.DictReader(io.StringIO(result.to_csv())))
    assert [r["metric"] for r in rows] == ["ari", "nmi", "ari", "nmi"]
    assert all(r.rate <= r.limit for r in result.rows if r not in result.above_limit)


@pytest.mark.parametrize("kwargs, message", [
    ({"classes": [1]}, "classes must be integers >= 2"),
    ({"sizes": [1]}, "sizes must be integers >= 2"),
    ({"keeps": [1.5]}, "keeps must be probabilities"),
    ({"n_trials": 0}, "n_trials must be integers >= 1"),
    ({"alpha": 1.0}, "alpha must be a confidence level"),
    ({"metrics": "nope"}, "unknown metric 'nope'"),
    ({"metrics": "mari"}, "mari .* has no bootstrap interval"),
])
def test_bad_options_are_refused_naming_them(kwargs, message):
    args = {"classes": [3], "keeps": [0.5], "sizes": [30], "metrics": ["ari"],
            "n_trials": 2, **kwargs}
    with pytest.raises(ValueError, match=message):
        paired_calibration(args.pop("classes"), args.pop("keeps"), args.pop("sizes"),
                           args.pop("metrics"), **args)


def test_command_line(capsys):
    argv = ["paired-calibration", "--classes", "3", "--keeps", "0.5", "--sizes", "30",
            "--trials", "3", "--metrics", "ari,nmi"]
    assert main([*argv, "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert [(r["n_classes"], r["keep"], r["n"], r["metric"], r["trials"]) for r in rows] \
        == [(3, 0.5, 30, "ari", 3), (3, 0.5, 30, "nmi", 3)]
    for bad, message in ((["--keeps", "1.5"], "--keeps: must be a probability"),
                         (["--alpha", "0"], "--alpha"), (["--sizes", "1"], "--sizes"),
                         (["--classes", "x"], "--classes"),
                         (["--metrics", "mari"], "has no bootstrap interval")):
        given = [a for i, a in enumerate(argv)  # the option's good value replaced
                 if bad[0] not in (a, argv[i - 1] if i else None)]
        assert main([*given, *bad]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and message in err, err
