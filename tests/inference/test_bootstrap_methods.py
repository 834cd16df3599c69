"""Exact replicate draws (both samplers), replicate scores from counts equal to the
scores of the replicate's table, and the interval methods against their textbook
definitions computed independently (item-level jackknife, statistics.NormalDist)."""

import itertools
import math
import statistics

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy import stats

import clustermetrics as cm
from clustermetrics.evaluation.evaluate import replicate_scores, score_values
from clustermetrics.inference.bootstrap import (
    ITEM_DRAW_MAX_COUNT,
    interval_from_replicates,
    jackknife_cells,
    multinomial_sampler,
    replicate_table,
)

MANY_VALUES = [1] * 1008 + list(range(2, 67))  # few items per cell, 66 distinct counts
BIG = ITEM_DRAW_MAX_COUNT + 1


@pytest.mark.parametrize("counts", [
    [1, 2, 1, 1, 3], [40, 7, 2, 1, 1], [5, 1, 1, 1, 1, 1], [BIG, BIG + 3, 2 * BIG],
    [1, BIG, 1, 2, BIG, 1], MANY_VALUES])
def test_sampler_moments_and_outcome_frequencies(counts):
    """The sampler on tables of small counts only (redrawn item by item within groups of
    equal counts), large counts only (numpy's multinomial) and both: each cell's mean n p
    and variance n p (1 - p), covariances -n p_i p_j, and on small tables a chi-square
    test of the joint outcomes against the pmf."""
    counts = np.array(counts, dtype=np.int64)
    n = int(counts.sum())
    p = counts / n
    draw = multinomial_sampler(counts)
    rng = np.random.default_rng(5)
    m = 20_000 if len(counts) < 100 else 400
    if len(counts) >= 100:  # many cells: the moments of the first and last few
        keep = [0, 1, len(counts) - 2, len(counts) - 1]
        draws = np.array([draw(rng, n) for _ in range(m)])[:, keep]
        counts, p = counts[keep], p[keep]
        assert abs(draws.mean(axis=0) - n * p).max() < 5 * np.sqrt(n * p / m).max()
        var = draws.var(axis=0, ddof=1)
        theory = n * p * (1 - p)
        assert (np.abs(var - theory) < 5 * theory * np.sqrt(2 / m) + 1e-9).all()
        return
    draws = np.array([draw(rng, n) for _ in range(m)])
    assert (draws.sum(axis=1) == n).all() and (draws >= 0).all()
    cov = np.cov(draws.T)
    theory = n * (np.diag(p) - np.outer(p, p))
    for i, j in itertools.product(range(len(p)), repeat=2):
        # a sample covariance has s.e. about sqrt((s_ii s_jj + s_ij^2) / m)
        se = math.sqrt((theory[i, i] * theory[j, j] + theory[i, j] ** 2) / m)
        assert abs(cov[i, j] - theory[i, j]) < 5 * se + 1e-12
    assert np.abs(draws.mean(axis=0) - n * p).max() < 5 * np.sqrt(n * p * (1 - p) / m).max()
    if n <= 8:  # every outcome: chi-square against the exact pmf, rare ones pooled
        support = np.array([c for c in itertools.product(*(range(n + 1) for _ in p))
                            if sum(c) == n])
        expected = stats.multinomial.pmf(support, n, p) * m
        index = {tuple(c): i for i, c in enumerate(support.tolist())}
        seen = np.zeros(len(support))
        for row in draws.tolist():
            seen[index[tuple(row)]] += 1
        common = expected >= 5
        observed = np.append(seen[common], seen[~common].sum())
        wanted = np.append(expected[common], expected[~common].sum())
        assert stats.chisquare(observed, wanted).pvalue > 1e-3


tables = st.lists(st.tuples(st.integers(0, 4), st.integers(0, 5)), min_size=1, max_size=40)


@settings(max_examples=80, deadline=None)
@given(tables, st.integers(0, 2**32 - 1))
@example([(0, 0), (0, 0), (0, 1), (1, 1)], 2)  # a replicate whose ARI is below -0.5
@example([(0, 0), (0, 0), (0, 0), (0, 1), (0, 2), (1, 1)], 162)  # S the same for every
# pairing in a replicate: SMI's 0/0, not a quotient of rounding errors
def test_replicate_scores_equal_the_scores_of_the_replicate_table(pairs, seed):
    t = [a for a, _ in pairs]
    p = [b for _, b in pairs]
    table = cm.Contingency.from_labels(t, p)
    rng = np.random.default_rng(seed)
    keys = [k for k, e in cm.METRICS.items() if e.no_bootstrap is None]
    for _ in range(5):
        counts = rng.multinomial(table.n_samples, table.counts / table.n_samples)
        if not counts.any():
            continue
        fast = dict(zip(keys, replicate_scores(table, counts, keys)[:, 0], strict=True))
        slow = score_values(replicate_table(table, counts), keys)
        for k in keys:  # a replicate's scores are kept in the score's range
            want = min(max(slow[k], cm.METRICS[k].lower), cm.METRICS[k].upper)
            assert fast[k] == pytest.approx(want, rel=1e-12, abs=1e-13, nan_ok=True), k


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 2**59), min_size=9, max_size=9))
def test_replicate_matched_counts_are_exact_past_2_53(counts):
    """Counts up to 2**59 a cell (totals near 2**63): the replicate's matched count is an
    exact integer, as the table's, so clustering error and NPA agree with the replicate's
    table where float64 weights would round 2**60 + 1 to 2**60 (an error of 2 / N read
    as 4 / N); every cell of a 3 x 3 table, some drawn 0."""
    counts = np.array(counts, dtype=np.int64)
    if not counts.any():
        return
    base = cm.Contingency.from_labels([0, 0, 0, 1, 1, 1, 2, 2, 2], [0, 1, 2] * 3)
    keys = ["clustering_error", "clustering_accuracy", "npa", "nca", "recovery_rate"]
    fast = dict(zip(keys, replicate_scores(base, counts, keys)[:, 0], strict=True))
    slow = score_values(replicate_table(base, counts), keys)
    for k in ("clustering_error", "clustering_accuracy", "npa"):
        assert fast[k] == slow[k], k
    for k in ("nca", "recovery_rate"):
        assert fast[k] == pytest.approx(slow[k], rel=1e-12, abs=1e-13, nan_ok=True), k


def test_replicate_matched_count_of_a_near_tie_past_2_53():
    base = cm.Contingency.from_labels([0, 0, 1, 1], [0, 1, 0, 1])
    counts = np.array([2**60 + 1, 1, 1, 2**60 + 1], dtype=np.int64)
    fast = float(replicate_scores(base, counts, ["clustering_error"])[0, 0])
    assert fast == 2 / (2**61 + 4)


def _acceleration(theta):
    """Efron & Tibshirani (14.15) from every item's leave-one-out value."""
    d = np.mean(theta) - np.asarray(theta)
    return (d ** 3).sum() / (6 * ((d ** 2).sum()) ** 1.5)


def test_grouped_jackknife_is_the_item_jackknife():
    """One leave-one-out per cell weighted by its count gives the acceleration of the
    N item-level leave-one-outs; the systematic sample of a large table comes close."""
    rng = np.random.default_rng(3)
    t = rng.integers(0, 4, 300)
    p = np.where(rng.random(300) < 0.6, t, rng.integers(0, 5, 300))
    table = cm.Contingency.from_labels(t, p)
    items = [cm.normalized_mutual_info_score(np.delete(t, i), np.delete(p, i))
             for i in range(300)]
    cells, weights = jackknife_cells(table.counts)
    assert table.nnz <= 100 and weights.tolist() == table.counts.tolist()
    grouped = []
    for c in cells:
        counts = table.counts.copy()
        counts[c] -= 1
        grouped.append(cm.normalized_mutual_info_score(table.with_counts(counts)))
    expanded = np.repeat(grouped, table.counts)
    assert sorted(expanded) == pytest.approx(sorted(items), abs=1e-12)
    a = _acceleration(items)
    z = interval_from_replicates(np.linspace(0, 1, 101), 0.9, "bca", 0.5, jackknife=np.array(
        grouped), weights=weights)
    # the same interval from the formula with the item-level acceleration
    nd = statistics.NormalDist()
    z0 = nd.inv_cdf(50.5 / 101)
    q = [nd.cdf(z0 + (z0 + zz) / (1 - a * (z0 + zz))) for zz in (nd.inv_cdf(0.05),
                                                               nd.inv_cdf(0.95))]
    assert z == pytest.approx(tuple(np.quantile(np.linspace(0, 1, 101), q)), abs=1e-9)
    # a 400-cell table: 100 systematic items against all cells
    big = rng.integers(1, 30, 400)
    sampled, times = jackknife_cells(big)
    assert times.sum() == 100 and len(sampled) <= 100
    share = np.zeros(400)
    share[sampled] = times / 100
    assert np.abs(np.cumsum(share) - np.cumsum(big / big.sum())).max() <= 0.011


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(-1, 1), min_size=2, max_size=60), st.floats(-1, 1),
       st.sampled_from([0.5, 0.8, 0.95]))
def test_basic_and_normal_are_their_definitions(values, point, level):
    v = np.array(values)
    nd = statistics.NormalDist()
    lo_q, hi_q = np.quantile(v, [(1 - level) / 2, (1 + level) / 2])
    assert interval_from_replicates(v, level, "basic", point) == pytest.approx(
        (2 * point - hi_q, 2 * point - lo_q))
    assert interval_from_replicates(v, level, "basic", point, (-0.5, 0.5)) == pytest.approx(
        (min(max(2 * point - hi_q, -0.5), 0.5), min(max(2 * point - lo_q, -0.5), 0.5)))
    half = nd.inv_cdf((1 + level) / 2) * statistics.stdev(values)
    centre = 2 * point - statistics.fmean(values)
    assert interval_from_replicates(v, level, "normal", point) == pytest.approx(
        (centre - half, centre + half), abs=1e-12)
    # BCa without bias (point at the median) nor acceleration is the percentile interval
    med = float(np.median(v))
    if np.count_nonzero(v < med) == np.count_nonzero(v > med):
        assert interval_from_replicates(v, level, "bca", med) == pytest.approx(
            interval_from_replicates(v, level, "percentile"), abs=1e-12)


def test_methods_and_flags_through_evaluate():
    rng = np.random.default_rng(0)
    # 4 x 5 labels at n = 2000: NMI's replicate bias well within its spread (8 x 10 at
    # n = 1000 is at one standard deviation, where the bias flag begins)
    t = rng.integers(0, 4, 2000)
    p = np.where(rng.random(2000) < 0.6, t, rng.integers(0, 5, 2000))
    reports = {m: cm.evaluate(t, p, "ari,nmi", ci=0.95, n_boot=100, seed=1, ci_method=m)
               for m in ("percentile", "basic", "normal", "bca")}
    pct = reports["percentile"].intervals["nmi"]
    basic = reports["basic"].intervals["nmi"]
    point = reports["basic"]["nmi"]
    assert (basic.low, basic.high) == pytest.approx((2 * point - pct.high, 2 * point - pct.low))
    for m, r in reports.items():
        assert r.intervals["nmi"].method == m and r.to_dict()["ci_method"] == m
        assert not r.intervals["nmi"].flags
    small = cm.evaluate(rng.integers(0, 30, 100), rng.integers(0, 40, 100), "nmi", ci=0.9,
                        n_boot=20, seed=0)
    assert small.intervals["nmi"].flags[0] == "sample small for the table"
    assert "! sample small for the table" in str(small)
    assert small.to_dict()["flags"]["nmi"][0] == "sample small for the table"
    perfect = cm.evaluate(t, t, "ari", ci=0.9, n_boot=20, seed=0)
    assert perfect.intervals["ari"].flags == ("at a bound of the range",)
    with pytest.raises(ValueError, match="ci_method must be one of"):
        cm.evaluate(t, p, "ari", ci=0.9, ci_method="student")
    with pytest.raises(ValueError, match="ci_method applies to bootstrap intervals"):
        cm.evaluate(t, p, "ari", ci_method="basic")
