"""Bootstrap intervals: table-level multinomial replicates behave like item resampling."""

import numpy as np
import pytest

import clustermetrics as cm
from clustermetrics import Contingency, evaluate
from clustermetrics.bootstrap import bootstrap_intervals


def _labels(n=400, seed=5):
    rng = np.random.default_rng(seed)
    t = rng.integers(0, 4, n)
    p = np.where(rng.random(n) < 0.35, rng.integers(0, 5, n), t)
    return t, p


def test_multinomial_replicates_match_item_resampling_in_distribution():
    t, p = _labels()
    table = Contingency.from_labels(t, p)
    seen = []
    bootstrap_intervals(table, lambda rep: seen.append(cm.adjusted_rand_score(rep)) or {},
                        [], n_boot=1500, seed=1)
    rng = np.random.default_rng(2)
    items = [cm.adjusted_rand_score(t[idx], p[idx])
             for idx in (rng.integers(0, t.shape[0], t.shape[0]) for _ in range(1500))]
    table_side, item_side = np.array(seen), np.array(items)
    assert abs(table_side.mean() - item_side.mean()) < 0.1 * item_side.std()
    assert table_side.std() == pytest.approx(item_side.std(), rel=0.1)


def test_replicates_are_resamples_of_the_table():
    t, p = _labels(120)
    table = Contingency.from_labels(t, p)
    cells = set(zip(table.class_labels[table.rows].tolist(),
                    table.cluster_labels[table.cols].tolist(), strict=True))
    reps = []
    bootstrap_intervals(table, lambda rep: reps.append(rep) or {}, [], n_boot=20, seed=0)
    for rep in reps:
        assert rep.n_samples == table.n_samples
        assert set(zip(rep.class_labels[rep.rows].tolist(),
                       rep.cluster_labels[rep.cols].tolist(), strict=True)) <= cells
    assert len({tuple(r.counts.tolist()) for r in reps}) > 1


def test_intervals_are_percentiles_of_the_replicate_scores():
    t, p = _labels(200)
    table = Contingency.from_labels(t, p)
    values = []

    def score(rep):
        values.append(cm.normalized_mutual_info_score(rep))
        return {"nmi": values[-1]}

    iv = bootstrap_intervals(table, score, ["nmi"], level=0.8, n_boot=50, seed=4)["nmi"]
    ordered = sorted(values)
    # linear interpolation between order statistics at 10 % and 90 % of 49 steps
    lo = ordered[4] + 0.9 * (ordered[5] - ordered[4])
    hi = ordered[44] + 0.1 * (ordered[45] - ordered[44])
    assert (iv.low, iv.high, iv.level) == (pytest.approx(lo, abs=1e-15),
                                           pytest.approx(hi, abs=1e-15), 0.8)


def test_evaluate_ci_seeded_progress_and_degenerate_case():
    t, p = _labels(300)
    calls = []
    r1 = evaluate(t, p, "ari,clustering_error", ci=0.9, n_boot=40, seed=11,
                  progress=lambda done, total: calls.append((done, total)))
    r2 = evaluate(t, p, "ari,clustering_error", ci=0.9, n_boot=40, seed=11)
    r3 = evaluate(t, p, "ari,clustering_error", ci=0.9, n_boot=40, seed=12)
    assert r1.intervals == r2.intervals != r3.intervals
    assert calls == [(b, 40) for b in range(1, 41)]
    for key, iv in r1.intervals.items():
        assert iv.low <= r1[key] <= iv.high
        assert iv.low < iv.high
    perfect = evaluate(t, t, "ari", ci=0.95, n_boot=20, seed=0)
    assert perfect.intervals["ari"][:2] == (1.0, 1.0)
    assert "95% bootstrap interval" in str(perfect)
    assert perfect.to_csv().splitlines()[0] == "metric,value,ci_low,ci_high"


def test_noise_is_applied_inside_each_replicate():
    rng = np.random.default_rng(9)
    t = rng.integers(0, 3, 300)
    p = np.where(rng.random(300) < 0.25, -1, t)
    args = dict(metrics="pair_precision", ci=0.9, n_boot=30, seed=3, noise_label=-1)
    single = evaluate(t, p, **args)
    excl = evaluate(t, p, noise="exclude", **args)
    # pair precision never sees singletons, so every replicate agrees between the modes
    assert single.intervals == excl.intervals


@pytest.mark.parametrize("ci,n_boot,match", [
    (1.0, 10, "ci must be a confidence level"), (0, 10, "ci must be a confidence level"),
    ("0.9", 10, "ci must be"), (0.9, 1, "n_boot must be an integer >= 2"),
    (0.9, 2.5, "n_boot must be"),
])
def test_bad_options(ci, n_boot, match):
    with pytest.raises(ValueError, match=match):
        evaluate([0, 1], [0, 1], "ari", ci=ci, n_boot=n_boot)
