"""Bootstrap intervals: table-level multinomial replicates behave like item resampling."""

import csv
import io
import json
import re
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

import clustermetrics as cm
from clustermetrics import Contingency, evaluate
from clustermetrics.inference.bootstrap import (
    FLAG_BIAS,
    bootstrap_intervals,
    interval_flags,
    multinomial_sampler,
)


def _labels(n=400, seed=5):
    rng = np.random.default_rng(seed)
    t = rng.integers(0, 4, n)
    p = np.where(rng.random(n) < 0.35, rng.integers(0, 5, n), t)
    return t, p


def _distinct_item_ari(t: np.ndarray, p: np.ndarray, idx: np.ndarray) -> float:
    """ARI of the items ``idx`` drawn with replacement, over pairs of distinct items: each
    pair count less the pairs of a drawn item with its own copies, sum_x C(k_x, 2)."""
    def pairs(codes):
        c = np.unique(codes, return_counts=True)[1].astype(np.float64)
        return float((c * (c - 1) / 2).sum())
    copies = pairs(idx)
    tp = pairs(t[idx] * (p.max() + 1) + p[idx]) - copies
    same_t, same_p = pairs(t[idx]) - copies, pairs(p[idx]) - copies
    total = idx.shape[0] * (idx.shape[0] - 1) / 2 - copies
    fn, fp = same_t - tp, same_p - tp
    tn = total - tp - fn - fp
    return 2 * (tp * tn - fn * fp) / ((tp + fn) * (fn + tn) + (tp + fp) * (fp + tn))


def test_multinomial_replicates_match_item_resampling_in_distribution():
    """Replicate ARI (from counts, copies' pairs left out in expectation) against item
    resampling with the copies' pairs actually left out."""
    t, p = _labels()
    table = Contingency.from_labels(t, p)
    seen = []
    bootstrap_intervals(table, lambda rep: seen.append(cm.adjusted_rand_score(rep)) or {},
                        [], n_boot=1500, seed=1, method="percentile")
    rng = np.random.default_rng(2)
    items = [_distinct_item_ari(t, p, idx)
             for idx in (rng.integers(0, t.shape[0], t.shape[0]) for _ in range(1500))]
    table_side, item_side = np.array(seen), np.array(items)
    assert abs(table_side.mean() - item_side.mean()) < 0.1 * item_side.std()
    assert table_side.std() == pytest.approx(item_side.std(), rel=0.1)


@pytest.mark.parametrize("method", ["normal", "percentile"])
def test_pair_score_intervals_cover_the_population_value_at_large_n(method):
    """A population of 100 classes, each split evenly over clusters c and c + 1 (mod 100),
    sampled 30 times with 50 items a cell: the 95 % intervals of ARI (scored from counts)
    and FMI (from each replicate's table) hold the population values in most samples.
    Counting the pairs of an item with its own copies, they held it in none."""
    k, per_cell = 100, 50
    rows = np.repeat(np.arange(k), 2)
    cols = (rows + np.tile([0, 1], k)) % k
    population = Contingency.from_matrix(
        np.bincount(rows * k + cols, minlength=k * k).reshape(k, k) * 10**6)
    truth = {"ari": cm.adjusted_rand_score(population),
             "fmi": cm.fowlkes_mallows_score(population)}
    rng = np.random.default_rng(11)
    held = {key: 0 for key in truth}
    samples = 30
    for s in range(samples):
        counts = rng.multinomial(2 * k * per_cell, np.full(2 * k, 1 / (2 * k)))
        sample = Contingency.from_matrix(
            np.bincount(rows * k + cols, weights=counts, minlength=k * k)
            .astype(np.int64).reshape(k, k))
        report = evaluate(sample, metrics=list(truth), ci=0.95, n_boot=100, seed=s,
                          ci_method=method)
        for key, value in truth.items():
            iv = report.intervals[key]
            held[key] += iv.low <= value <= iv.high
    for key in truth:
        assert held[key] >= 0.8 * samples, (key, held[key])


def test_replicates_are_resamples_of_the_table():
    t, p = _labels(120)
    table = Contingency.from_labels(t, p)
    cells = set(zip(table.class_labels[table.rows].tolist(),
                    table.cluster_labels[table.cols].tolist(), strict=True))
    reps = []
    bootstrap_intervals(table, lambda rep: reps.append(rep) or {}, [], n_boot=20, seed=0,
                        method="percentile")
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

    iv = bootstrap_intervals(table, score, ["nmi"], level=0.8, n_boot=50, seed=4,
                             method="percentile")["nmi"]
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
    done = [d for d, _ in calls]  # called per block of replicates, up to every one
    assert {total for _, total in calls} == {40} and done[-1] == 40
    assert done == sorted(set(done)) and done[0] > 0
    for key, iv in r1.intervals.items():
        assert iv.low <= r1[key] <= iv.high
        assert iv.low < iv.high
    perfect = evaluate(t, t, "ari", ci=0.95, n_boot=20, seed=0)
    assert perfect.intervals["ari"][:2] == (1.0, 1.0)
    assert "95% bias-corrected normal bootstrap interval" in str(perfect)
    assert perfect.to_csv().splitlines()[0] == \
        "metric,value,ci_low,ci_high,ci_level,n_boot,seed,skipped,ci_method,flags"


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
    ("0.9", 10, "ci must be"), (0.9, 1, "n_boot must be an integer from 2 to 1,000,000"),
    (0.9, 2.5, "n_boot must be"),
])
def test_bad_options(ci, n_boot, match):
    with pytest.raises(ValueError, match=match):
        evaluate([0, 1], [0, 1], "ari", ci=ci, n_boot=n_boot)


# ------------------------------------------------------------ degenerate replicates
def _reference_interval(table, keys, noise_label, noise, level, n_boot, seed):
    """The documented rule, item by item: redraw the cells, expand them to items, apply
    the noise rule to the items, skip a replicate left with no item, take percentiles."""
    rng = np.random.default_rng(seed)
    classes = table.class_labels[table.rows].tolist()
    clusters = table.cluster_labels[table.cols].tolist()
    values = {k: [] for k in keys}
    draw = multinomial_sampler(table.counts)  # the same draws as the library's
    for _ in range(n_boot):
        counts = draw(rng, table.n_samples).tolist()
        t = [c for c, n in zip(classes, counts, strict=True) for _ in range(n)]
        p = [c for c, n in zip(clusters, counts, strict=True) for _ in range(n)]
        if noise_label is not None:
            is_noise = [x == noise_label for x in p]
            if noise == "exclude":
                t = [x for x, z in zip(t, is_noise, strict=True) if not z]
                p = [x for x, z in zip(p, is_noise, strict=True) if not z]
            else:
                p = [f"noise {i}" if z else f"cluster {x}"
                     for i, (x, z) in enumerate(zip(p, is_noise, strict=True))]
        if not t:
            continue
        # pair counts of distinct items: less each cell's expected pairs of an item with
        # its own copies, C(n*, 2) / n (noise items: dropped, or singletons)
        copies = sum(Fraction(c * (c - 1), 2 * n) for c, n, x in
                     zip(counts, table.counts.tolist(), clusters, strict=True)
                     if noise_label is None or x != noise_label)
        for k in keys:  # a replicate's score is kept in the score's range
            value = _ari_less(t, p, copies) if k == "ari" else getattr(cm, FUNCTIONS[k])(t, p)
            values[k].append(min(max(value, cm.METRICS[k].lower), cm.METRICS[k].upper))
    tail = (1 - level) / 2 * 100
    return {k: (tuple(np.percentile(v, [tail, 100 - tail]).tolist()) if v else None,
                n_boot - len(v)) for k, v in values.items()}


def _ari_less(t: list, p: list, copies: Fraction) -> float:
    """ARI of the items with ``copies`` pairs taken out of those together in both."""
    def pairs(xs):
        return sum(Fraction(c * (c - 1), 2) for c in Counter(xs).values())
    tp = pairs(list(zip(t, p, strict=True))) - copies
    same_t, same_p = pairs(t) - copies, pairs(p) - copies
    total = Fraction(len(t) * (len(t) - 1), 2) - copies
    fn, fp = same_t - tp, same_p - tp
    tn = total - tp - fn - fp
    den = (tp + fn) * (fn + tn) + (tp + fp) * (fp + tn)
    return 1.0 if den == 0 else float(2 * (tp * tn - fn * fp) / den)


FUNCTIONS = {"ari": "adjusted_rand_score", "nmi": "normalized_mutual_info_score",
             "bcubed_f": "bcubed_f_score"}

# noise-heavy tiny tables: replicates made only of noise are frequent
cells = st.lists(st.tuples(st.integers(0, 2), st.sampled_from([-1, -1, -1, 0, 1, 2])),
                 min_size=1, max_size=8)


@settings(max_examples=60, deadline=None)
@given(st.lists(cells, min_size=1, max_size=3), st.sampled_from([None, "singletons",
                                                                 "exclude"]),
       st.booleans(), st.sampled_from([0.5, 0.9, 0.99]), st.integers(2, 25),
       st.integers(0, 2**32 - 1))
def test_degenerate_replicates_are_scored_or_skipped_by_the_rule(
        refs, noise, text_labels, level, n_boot, seed):
    """Tiny tables, every resampling option: the run never aborts on a replicate, and its
    intervals and skip counts are those of the rule applied to the resampled items."""
    n = min(len(r) for r in refs)
    pred = [b for _, b in refs[0][:n]]
    if text_labels:  # string clusters with an integer noise label
        pred = [b if b == -1 else f"c{b}" for b in pred]
    truths = [[a for a, _ in r[:n]] for r in refs]
    noise_label = None if noise is None else -1
    options = {} if noise is None else {"noise_label": -1, "noise": noise}
    keys = ["ari", "nmi", "bcubed_f"]
    labels_true = truths[0] if len(truths) == 1 else truths
    try:
        point = evaluate(labels_true, pred, keys, **options)
    except ValueError as exc:  # e.g. all predictions noise: the point estimate refuses
        with pytest.raises(ValueError, match=re.escape(str(exc))):
            evaluate(labels_true, pred, keys, ci=level, n_boot=n_boot, seed=seed,
                     ci_method="percentile", **options)
        return
    report = evaluate(labels_true, pred, keys, ci=level, n_boot=n_boot, seed=seed,
                     ci_method="percentile", **options)
    reports = report.reports.values() if len(truths) > 1 else [report]
    assert dict(report) == dict(point)
    for truth, single in zip(truths, reports, strict=True):
        expected = _reference_interval(Contingency.from_labels(truth, pred), keys,
                                       noise_label, noise, level, n_boot, seed)
        for k in keys:
            iv = single.intervals[k]
            bounds, skipped = expected[k]
            assert (iv.n_boot, iv.n_skipped) == (n_boot, skipped)
            if bounds is None:
                assert np.isnan(iv.low) and np.isnan(iv.high) and not iv.reliable
                assert "undefined" in single.format()
            else:
                assert (iv.low, iv.high) == pytest.approx(bounds, abs=1e-12)
            assert iv.reliable == (skipped <= 0.1 * n_boot and skipped < n_boot)
        data = json.loads(single.to_json(details=True), parse_constant=_no_constant)
        assert data["skipped"] == {k: single.intervals[k].n_skipped for k in keys}
        rows = list(csv.DictReader(io.StringIO(single.to_csv())))
        assert [int(r["skipped"]) for r in rows] == [single.intervals[k].n_skipped
                                                     for k in keys]
        event(f"replicates skipped: {any(single.intervals[k].n_skipped for k in keys)}")
        if any(single.intervals[k].n_skipped for k in keys):
            assert "replicates skipped" in single.format()


def _no_constant(name):
    raise AssertionError(f"JSON holds {name}")


def test_the_examples_that_aborted_now_complete():
    """Replicates drawn only from the noise cells: scored under "singletons" (all
    singleton clusters), skipped under "exclude", one skip per such replicate."""
    t = [0, 0, 0, 0, 0, 1, 1, 1, 1, 1]
    p = [0, 0, 0, -1, -1, 1, 1, -1, -1, -1]
    table = Contingency.from_labels(t, p)
    noise_cells = table.cluster_labels[table.cols] == -1
    draw = multinomial_sampler(table.counts)
    seen = 0
    for seed in range(6):
        rng = np.random.default_rng(seed)  # the replicates evaluate draws with this seed
        all_noise = sum(int(draw(rng, 10)[~noise_cells].sum() == 0) for _ in range(1000))
        seen += all_noise
        single = evaluate(t, p, "ari", noise_label=-1, ci=0.95, n_boot=1000, seed=seed,
                          ci_method="percentile")
        assert single.intervals["ari"].n_skipped == 0
        excl = evaluate(t, p, "ari", noise_label=-1, noise="exclude", ci=0.95, n_boot=1000,
                        seed=seed, ci_method="percentile")
        assert excl.intervals["ari"].n_skipped == all_noise
        assert ("replicates skipped (nothing left to score" in str(excl)) == (all_noise > 0)
    assert seen > 0  # 2^-10 per replicate: about 6 in 6,000


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(1, 5), min_size=1, max_size=5), st.integers(10**12, 2**62),
       st.integers(0, 2**32 - 1))
def test_replicates_draw_small_cells_beside_a_huge_one(small, n, seed):
    """Multinomial(N, n_ij / N) at any N: beside a cell of nearly N items the small cells
    are still drawn with their own mean (numpy's sequential binomials lost them when the
    huge cell came first: 1 - p rounded to 0)."""
    counts = np.array([n - sum(small), *small], dtype=np.int64)
    draw = multinomial_sampler(counts)
    rng = np.random.default_rng(seed)
    draws = np.array([draw(rng, n) for _ in range(400)])
    assert (draws.sum(axis=1) == n).all()
    for j, c in enumerate(small, start=1):  # Poisson(c) in the limit: mean c, sd sqrt(c)
        assert abs(draws[:, j].mean() - c) <= 5 * np.sqrt(c / 400)


@pytest.fixture(scope="module")
def far_biased():
    """NMI of 60 x 60 labels with 30 % noise at N = 20,000: the replicates' plug-in bias
    (~K^2 / N) is many times their spread (~1 / sqrt(N))."""
    rng = np.random.default_rng(7)
    t = rng.integers(0, 60, 20_000)
    p = np.where(rng.random(20_000) < 0.3, rng.integers(0, 60, 20_000), t)
    return t, p


@pytest.mark.parametrize("method", ["percentile", "bca", "normal", "basic"])
def test_bias_beyond_the_spread_is_flagged(far_biased, method):
    """With the replicates' bias many times their spread, percentile and BCa intervals
    lie beside their own estimate (BCa's z0 saturates) and the bias-corrected ones rest on
    a first-order correction larger than themselves: every method's interval carries
    FLAG_BIAS; a score whose replicates are centred on it (ARI) never does."""
    r = evaluate(*far_biased, metrics=["nmi", "ari"], ci=0.95, n_boot=200, seed=3,
                 ci_method=method)
    nmi, ari = r.intervals["nmi"], r.intervals["ari"]
    assert FLAG_BIAS in nmi.flags
    assert FLAG_BIAS not in ari.flags
    assert "! bias beyond the replicates' spread" in str(r)
    assert "nmi" in r.to_dict()["flags"]
    if method in ("percentile", "bca"):  # the interval lies beside the estimate
        assert not nmi.low <= r["nmi"] <= nmi.high


def test_matching_scores_on_noise_are_flagged():
    """A matching score of independent labellings is a maximum over near-tied matchings:
    its estimate is biased up by more than the bootstrap sees (the population recovery
    rate and accuracy are 1/K, NCA 0), and the default interval misses them. Flagged."""
    rng = np.random.default_rng(11)
    t, p = rng.integers(0, 30, 10_000), rng.integers(0, 30, 10_000)
    keys = ["recovery_rate", "clustering_accuracy", "nca"]
    r = evaluate(t, p, metrics=keys, ci=0.95, n_boot=200, seed=1)
    population = {"recovery_rate": 1 / 30, "clustering_accuracy": 1 / 30, "nca": 0.0}
    for k in keys:
        iv = r.intervals[k]
        assert not iv.low <= population[k] <= iv.high  # what the flag warns of
        assert FLAG_BIAS in iv.flags


@settings(max_examples=100, deadline=None)
@given(st.floats(-1.0, 1.0), st.integers(-8, 8), st.integers(2, 300))
def test_constant_replicates_a_few_ulps_off_are_not_biased(value, ulps, size):
    """Replicates all equal (a table every replicate redraws alike; a bound) whose score
    from counts differs from the estimate by a few ulps have no spread to compare a bias
    with: not flagged. Off by a real amount they are."""
    table = Contingency.from_labels([0, 0, 1, 1] * 10, [0, 0, 1, 1] * 10)
    point = float(np.nextafter(value, np.inf if ulps > 0 else -np.inf)) if ulps else value
    for _ in range(abs(ulps) - 1):
        point = float(np.nextafter(point, np.inf if ulps > 0 else -np.inf))
    replicates = np.full(size, value)
    flags = interval_flags(table, replicates, point, (-2.0, 2.0), bias=True)
    assert FLAG_BIAS not in flags
    assert FLAG_BIAS in interval_flags(table, replicates, value + 1e-6, (-2.0, 2.0),
                                       bias=True)
    assert FLAG_BIAS not in interval_flags(table, replicates, value + 1e-6, (-2.0, 2.0))
