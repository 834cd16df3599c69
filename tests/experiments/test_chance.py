"""The chance study on small sizes: adjusted scores average near 0, the others drift."""

import csv
import io
import json

import numpy as np
import pytest

from clustermetrics.experiments.chance import (
    SETUPS,
    ChanceSetup,
    chance_csv,
    chance_json,
    chance_study,
    chance_text,
)
from clustermetrics.scores.registry import METRICS

EQUAL = ChanceSetup("equal", "two labelings", 80, None, 40)
FIXED = ChanceSetup("fixed", "against a 5-class truth", 300, 5, 40)
# Adjusted by subtracting the expected value under the permutation model: mean 0 by
# construction (NCA, NPA and PSI are normalised against other baselines).
EXPECTATION_ADJUSTED = ["ari", "ami", "afmi", "mari", "ami_geometric", "ami_min", "ami_max"]
# Reduced MI subtracts the code length of the table: about 0 for independent labellings.
REDUCED = ["rmi", "rnmi", "rnmi_arithmetic"]


@pytest.fixture(scope="module")
def curves():
    return chance_study(setups=[EQUAL, FIXED], n_repeats=8, n_points=4, seed=7)


def test_default_setups_are_the_notebooks():
    equal, fixed = SETUPS
    assert (equal.n_samples, equal.n_classes, equal.k_max) == (100, None, 100)
    assert (fixed.n_samples, fixed.n_classes, fixed.k_max) == (1000, 10, 100)


def test_every_score_every_k(curves):
    for c in curves:
        assert c.ks.tolist() == np.unique(np.linspace(2, 40, 4).astype(int)).tolist()
        assert set(c.mean) == set(METRICS) == set(c.std)
        assert all(v.shape == c.ks.shape for v in c.mean.values())
        assert all((s >= 0).all() for s in c.std.values())


@pytest.mark.parametrize("key", EXPECTATION_ADJUSTED)
def test_adjusted_scores_average_near_zero(curves, key):
    assert METRICS[key].adjusted
    for c in curves:
        assert np.abs(c.mean[key]).max() < 0.05, (c.setup.key, key, c.mean[key])


@pytest.mark.parametrize("key", REDUCED)
def test_reduced_scores_stay_near_zero(curves, key):
    assert METRICS[key].adjusted
    for c in curves:
        assert np.abs(c.mean[key]).max() < 0.02, (c.setup.key, key, c.mean[key])


def test_smi_is_zero_mean_unit_deviation_under_chance(curves):
    """SMI is in standard deviations of MI under the permutation model: over random
    labellings its mean is 0 and its spread 1, whatever k."""
    for c in curves:
        draws = c.n_repeats * c.ks.shape[0]
        assert abs(float(c.mean["smi"].mean())) < 4.0 / np.sqrt(draws), c.mean["smi"]
        assert 0.6 < float(np.sqrt((c.std["smi"] ** 2).mean())) < 1.5, c.std["smi"]


def test_unadjusted_scores_drift_with_k(curves):
    equal = curves[0]
    for key in ("ri", "nmi", "v_measure", "mi"):
        assert equal.mean[key][-1] - equal.mean[key][0] > 0.3, key
    # the pseudo recovery rate of random labels is near its maximum (the paper's point)
    assert curves[1].mean["pseudo_recovery_rate"][-1] > 0.9


def test_seeded(curves):
    again = chance_study(["ari", "nmi"], setups=[EQUAL, FIXED], n_repeats=8, n_points=4,
                         seed=7)
    for a, b in zip(curves, again, strict=True):
        assert np.array_equal(a.mean["ari"], b.mean["ari"])
    other = chance_study(["nmi"], setups=[EQUAL], n_repeats=8, n_points=4, seed=8)
    assert not np.array_equal(other[0].mean["nmi"], curves[0].mean["nmi"])


def test_outputs(curves):
    text = chance_text(curves)
    assert "two labelings (n_samples = 80; mean of 8 draws per k, seed 7)" in text
    first_rows = [line.split()[0] for line in text.splitlines()[2:4]]
    assert all(METRICS[k].adjusted for k in first_rows)  # adjusted scores listed first
    rows = json.loads(chance_json(curves))
    assert len(rows) == 2 * 4 * len(METRICS)
    ari = [r for r in rows if r["metric"] == "ari" and r["experiment"] == "fixed"]
    assert [r["mean"] for r in ari] == pytest.approx(curves[1].mean["ari"].tolist())
    table = list(csv.DictReader(io.StringIO(chance_csv(curves))))
    assert len(table) == len(rows) and table[0]["experiment"] == "equal"


def test_bad_sizes():
    with pytest.raises(ValueError, match="n_repeats"):
        chance_study(["ari"], n_repeats=0)
    with pytest.raises(ValueError, match="k_max"):
        chance_study(["ari"], setups=[ChanceSetup("x", "x", 10, None, 1)])
    with pytest.raises(ValueError, match="unknown"):
        chance_study(["no_such_score"])
