"""The bootstrap's table sampler against its definition, resampling the N items themselves:
every replicate keeps N and the original cells, and the replicate ARI has the mean and the
variance of item resampling, on tables of every kind of count (small counts redrawn item by
item within their group, large ones by numpy's multinomial, and both)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from label_shapes import SHAPES

from clustermetrics import Contingency
from clustermetrics.compute import dispatch as _kernels
from clustermetrics.evaluation.evaluate import replicate_scores, score_values
from clustermetrics.inference.bootstrap import (
    ITEM_DRAW_MAX_COUNT,
    multinomial_sampler,
    replicate_table,
)
from clustermetrics.matching import assignment as _assignment
from clustermetrics.matching import warm_kernels as _warm_kernels


def _item_draw(counts: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The definition: N items drawn with replacement, counted by cell."""
    n = int(counts.sum())
    cell_of = np.repeat(np.arange(counts.shape[0]), counts)
    return np.bincount(cell_of[rng.integers(0, n, n)], minlength=counts.shape[0])


def _ari(rows: np.ndarray, cols: np.ndarray, counts: np.ndarray) -> float:
    """ARI from pair counts (Hubert & Arabie), written out independently of the library."""
    def pairs(x):
        x = x.astype(np.float64)
        return float((x * (x - 1) / 2).sum())
    n = float(counts.sum())
    index = pairs(counts)
    a, b = pairs(np.bincount(rows, counts)), pairs(np.bincount(cols, counts))
    expected = a * b / (n * (n - 1) / 2)
    top = (a + b) / 2
    return (index - expected) / (top - expected) if top != expected else np.nan


def _zoo(name: str, rng: np.random.Generator, n: int = 3000):
    """Small versions of the benchmark zoo's shapes (benchmarks/bench_shapes.py)."""
    k = n // 10
    if name == "entity":  # Zipf entity sizes, 10 % of items moved
        t = np.repeat(np.arange(n), np.minimum(rng.zipf(2.0, n), 50))[:n]
        return t, np.where(rng.random(n) < 0.1, rng.integers(0, t.max() + 1, n), t)
    if name == "nearperfect":
        t = rng.integers(0, k, n)
        return t, np.where(rng.random(n) < 0.01, rng.integers(0, k, n), t)
    if name == "noise30":
        t = rng.integers(0, n // 100, n)
        return t, np.where(rng.random(n) < 0.3, rng.integers(0, n // 100, n), t)
    if name == "chain":
        t = rng.integers(0, k, n)
        return t, t + (rng.random(n) < 0.5)
    if name == "blocks":
        t = rng.integers(0, k, n)
        return t, (t // 10) * 10 + rng.integers(0, 10, n)
    if name == "cells":  # few classes, many clusters inside them: large and small cells
        t = rng.integers(0, 5, n)
        return t, np.where(rng.random(n) < 0.1, rng.integers(0, 60, n),
                           t * 12 + rng.integers(0, 12, n))
    if name == "wide_rows":  # ~30 items a class (recall weights' common denominator
        # beyond 2**50: solved as floats), a dominant cluster in half the classes (cells the
        # solver fixes first), uniform noise in the rest
        t = rng.integers(0, n // 30, n)
        return t, np.where((t % 2 == 0) & (rng.random(n) < 0.5), t, rng.integers(0, n, n))
    t = rng.integers(0, k, n)  # uniform noise
    return t, rng.integers(0, k, n)


ZOO = ["uniform", "entity", "nearperfect", "noise30", "chain", "blocks", "cells", "wide_rows"]


@pytest.mark.parametrize("name", ZOO)
def test_replicate_ari_has_the_mean_and_variance_of_item_resampling(name):
    """2,000 replicates each way (fixed seeds): the means differ by less than 4 standard
    errors of their difference, and so do the variances (the standard error of a sample
    variance from the sample's fourth central moment)."""
    rng = np.random.default_rng(7)
    table = Contingency.from_labels(*_zoo(name, rng))
    counts, rows, cols = table.counts, table.rows, table.cols
    small = counts <= ITEM_DRAW_MAX_COUNT
    assert small.any()
    draw = multinomial_sampler(counts)
    m = 2000
    ours = np.array([_ari(rows, cols, draw(rng, table.n_samples)) for _ in range(m)])
    items = np.array([_ari(rows, cols, _item_draw(counts, rng)) for _ in range(m)])
    assert not np.isnan(ours).any() and not np.isnan(items).any()
    se_mean = np.sqrt(ours.var(ddof=1) / m + items.var(ddof=1) / m)
    assert abs(ours.mean() - items.mean()) < 4 * se_mean, (ours.mean(), items.mean())

    def var_se(x):
        d = x - x.mean()
        return np.sqrt(max((d ** 4).mean() - x.var() ** 2, 0.0) / m)
    se_var = np.hypot(var_se(ours), var_se(items))
    assert abs(ours.var(ddof=1) - items.var(ddof=1)) < 4 * se_var


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(sorted(SHAPES) + ZOO), st.integers(1, 400), st.integers(1, 60),
       st.integers(0, 2**32 - 1))
def test_every_replicate_has_n_items_inside_the_original_cells(shape, n, k, seed):
    rng = np.random.default_rng(seed)
    t, p = SHAPES[shape](rng, n, k) if shape in SHAPES else _zoo(shape, rng, max(n, 100))
    table = Contingency.from_labels(t, p)
    cells = set(zip(table.class_labels[table.rows].tolist(),
                    table.cluster_labels[table.cols].tolist(), strict=True))
    draw = multinomial_sampler(table.counts)
    for _ in range(10):
        counts = draw(rng, table.n_samples)
        assert counts.dtype == np.int64 and counts.shape == table.counts.shape
        assert (counts >= 0).all() and int(counts.sum()) == table.n_samples
        rep = table.with_counts(counts)
        assert rep.n_samples == table.n_samples
        assert set(zip(rep.class_labels[rep.rows].tolist(),
                       rep.cluster_labels[rep.cols].tolist(), strict=True)) <= cells


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(st.integers(1, ITEM_DRAW_MAX_COUNT),
                          st.integers(ITEM_DRAW_MAX_COUNT + 1, 10**6)), min_size=1,
                max_size=60), st.integers(0, 2**32 - 1))
def test_counts_of_any_size_keep_the_total_and_the_seed(counts, seed):
    """Small counts, large counts and mixtures: totals kept, zero where nothing was, and
    the same seed gives the same draws."""
    counts = np.array(counts, dtype=np.int64)
    n = int(counts.sum())
    first = [multinomial_sampler(counts)(np.random.default_rng(seed), n) for _ in range(2)]
    assert (first[0] == first[1]).all()
    draw = multinomial_sampler(counts)
    rng = np.random.default_rng(seed)
    for _ in range(5):
        out = draw(rng, n)
        assert (out >= 0).all() and int(out.sum()) == n


@pytest.mark.parametrize("looped", [False, True])
@pytest.mark.parametrize("name", ZOO)
def test_replicate_scores_from_counts_equal_the_replicate_tables_on_the_zoo(name, looped,
                                                                           monkeypatch):
    """Tables above the solver's forced-cell threshold (4,096 cells): the scores of a
    replicate from its counts equal those of its table (the recovery rate exactly: the
    same matching problem is solved). ``looped``: inside a loop of replicates with the
    compiled kernels, where large matchings start warm from the table's prices, whatever
    their weights (exact integers, or floats where the common denominator is too large)
    and whether or not cells were fixed first."""
    rng = np.random.default_rng(3)
    table = Contingency.from_labels(*_zoo(name, rng, 30_000))
    draw = multinomial_sampler(table.counts)
    keys = ["ari", "mi", "nmi", "v_measure", "ami", "recovery_rate", "nca",
            "clustering_accuracy", "clustering_error", "npa", "psi", "recovery_rate_greedy",
            "pseudo_recovery_rate"]
    warm = []
    if looped:  # the sparse solver on every problem left (not scipy's dense one)
        monkeypatch.setattr(_assignment, "DENSE_MAX_CELLS", 1000)
        solve = _warm_kernels.warm_matching
        monkeypatch.setattr(_warm_kernels, "warm_matching",
                            lambda *args: warm.append(args[2]) or solve(*args))
    old = _kernels.set_kernels("numba" if looped else "auto")
    try:
        for _ in range(2):
            counts = draw(rng, table.n_samples)
            with _kernels.repeated(200 if looped else 1):
                fast = dict(zip(keys, replicate_scores(table, counts, keys)[:, 0],
                                strict=True))
            slow = score_values(replicate_table(table, counts), keys)
            assert fast["recovery_rate"] == pytest.approx(slow["recovery_rate"], rel=1e-15)
            for k in keys:
                assert fast[k] == pytest.approx(slow[k], rel=1e-12, abs=1e-13), k
    finally:
        _kernels.set_kernels(old)
    if looped and name in ("uniform", "wide_rows"):  # the warm solver ran, on both kinds
        assert warm
        integral = [bool(np.all(w == np.floor(w))) for w in warm]
        assert (not all(integral)) if name == "wide_rows" else all(integral)
