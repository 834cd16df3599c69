"""Warm-started matchings of bootstrap replicates equal cold solves and scipy's, exactly.

A replicate's recall-weight matching (n'_ij / a'_i over the table's cells it keeps) solved
by the auction from the table's optimal prices (``_warm_kernels``), compared as exact
fractions with the cold solver (``max_weight_matching``) and scipy's dense
``linear_sum_assignment`` on the exact integer weights, over tie-heavy noise tables, with
the table's prices, arbitrary prices and none, by each of the warm solver's paths (integer
benefits exact at epsilon 1, or rounded for large integers and finished by the exact
phases; float weights by the scaled auction from zero prices). Every loop of the warm auction is
bounded: a price war (forward or reverse bids at epsilon 1) hands the problem back.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linear_sum_assignment

import clustermetrics as cm
from clustermetrics.compute import dispatch as _kernels
from clustermetrics.evaluation.evaluate import replicate_scores
from clustermetrics.inference.bootstrap import multinomial_sampler
from clustermetrics.matching import auction as _auction_kernels
from clustermetrics.matching import phases as _phase_kernels
from clustermetrics.matching import warm_kernels as warm_kernels
from clustermetrics.matching.assignment import integer_weights, max_weight_matching
from clustermetrics.scores import _matchings


def _noise_table(rng: np.random.Generator, n: int, k_true: int, k_pred: int) -> cm.Contingency:
    """Uniform noise: counts mostly 1, recall weights tied along each row."""
    return cm.Contingency.from_labels(rng.integers(0, k_true, n), rng.integers(0, k_pred, n))


def _total(cells, c, sizes) -> Fraction:
    return sum((Fraction(int(c[e]), int(sizes[e])) for e in np.asarray(cells).tolist()),
               Fraction(0))


def _reference(table: cm.Contingency, scans: int | None = None) -> np.ndarray:
    """The table's prices: by the phases, or (``scans=0``) by their fallback, the auction."""
    old = warm_kernels._REFERENCE_SCANS
    if scans is not None:
        warm_kernels._REFERENCE_SCANS = scans
    try:
        return _prices(table)
    finally:
        warm_kernels._REFERENCE_SCANS = old


def _prices(table: cm.Contingency) -> np.ndarray:
    starts = np.searchsorted(table.rows, np.arange(table.n_classes))
    sizes = np.add.reduceat(table.counts, starts)
    prices = warm_kernels.reference_prices(np.append(starts, table.nnz), table.cols,
                                           table.counts / sizes[table.rows], table.n_clusters)
    return prices


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(20, 400), st.integers(2, 40),
       st.integers(2, 40), st.sampled_from(["table", "table_auction", "random", "zero"]),
       st.booleans())
def test_warm_matching_of_a_replicate_is_optimal(seed, n, k_true, k_pred, start, rounded):
    rng = np.random.default_rng(seed)
    table = _noise_table(rng, n, k_true, k_pred)
    counts = multinomial_sampler(table.counts)(rng, table.n_samples)
    keep = np.flatnonzero(counts)
    rows, cols, c = table.rows[keep], table.cols[keep], counts[keep]
    a = np.bincount(rows, weights=c, minlength=table.n_classes).astype(np.int64)
    sizes = a[rows]
    scaled = integer_weights(c, sizes)
    assert scaled is not None  # row sizes of at most 400 items here: L stays small
    common = int(scaled[0]) * int(sizes[0]) // int(c[0])
    prices = {"table": lambda: _reference(table),
              "table_auction": lambda: _reference(table, 0),
              "random": lambda: rng.uniform(0, 1.5, table.n_clusters),
              "zero": lambda: np.zeros(table.n_clusters)}[start]()
    indptr = np.zeros(table.n_classes + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=table.n_classes), out=indptr[1:])
    limit, scans = _auction_kernels._AUCTION_MAX, warm_kernels._BID_SCANS
    # from zero or random prices the bid limit may stop the auction (the caller then solves
    # cold); lifted here, so the warm auction itself is checked for optimality on every start
    warm_kernels._BID_SCANS = 10**6
    try:
        if rounded:  # benefits rounded, the exact phases finish
            _auction_kernels._AUCTION_MAX = float(scaled.max()) * 3
        match = warm_kernels.warm_matching(indptr, cols, scaled, table.n_clusters,
                                           prices * common)
    finally:
        _auction_kernels._AUCTION_MAX, warm_kernels._BID_SCANS = limit, scans
    assert match is not None
    matched = np.flatnonzero(match >= 0)
    pairs = set(zip(rows.tolist(), cols.tolist(), strict=True))
    assert all((i, j) in pairs for i, j in zip(matched.tolist(), match[matched].tolist(),
                                                strict=True))
    assert len(set(match[matched].tolist())) == matched.shape[0]
    lookup = {p: e for e, p in enumerate(zip(rows.tolist(), cols.tolist(), strict=True))}
    warm_cells = [lookup[(i, j)] for i, j in zip(matched.tolist(), match[matched].tolist(),
                                                 strict=True)]
    cold_cells = max_weight_matching(rows, cols, c / sizes,
                                     (table.n_classes, table.n_clusters), fraction=(c, sizes))
    dense = np.zeros((table.n_classes, table.n_clusters))
    dense[rows, cols] = scaled  # exact integers: scipy's optimum is exact
    r, k = linear_sum_assignment(dense, maximize=True)
    scipy_cells = [lookup[p] for p in zip(r.tolist(), k.tolist(), strict=True) if p in lookup]
    best = _total(scipy_cells, c, sizes)
    assert _total(warm_cells, c, sizes) == best
    assert _total(cold_cells, c, sizes) == best


@pytest.mark.parametrize("shape", [(3000, 3000), (6000, 2000), (2500, 8000), (300, 20000)])
def test_bootstrap_replicates_solved_warm_equal_cold(shape, monkeypatch):
    """Tables above the warm path's size: inside a replicate loop the recovery rate's
    matching starts from the table's prices; it weighs exactly what the cold solver's
    does, and the recovery rate is the cold one's (to the rounding of its float sum)."""
    rng = np.random.default_rng(sum(shape))
    table = _noise_table(rng, 30_000, *shape)
    draw = multinomial_sampler(table.counts)
    calls = []
    warm_solve = warm_kernels.warm_matching
    monkeypatch.setattr(warm_kernels, "warm_matching",
                        lambda *args: calls.append(1) or warm_solve(*args))
    old = _kernels.set_kernels("numba")
    try:
        for _ in range(3):
            counts = draw(rng, table.n_samples)
            keep = np.flatnonzero(counts)
            rows, cols, c = table.rows[keep], table.cols[keep], counts[keep]
            a = np.bincount(rows, weights=c, minlength=table.n_classes).astype(np.int64)
            b = np.bincount(cols, weights=c, minlength=table.n_clusters).astype(np.int64)
            sizes = a[rows]
            assert _matchings._warm_prices(table, "recall", b > 0, keep.shape[0]) is None
            with _kernels.repeated(10):  # inside a loop of replicates
                prices = _matchings._warm_prices(table, "recall", b > 0, keep.shape[0])
                repeated = replicate_scores(table, counts, ["recovery_rate"])[0, 0]
            assert prices is not None
            problem = (np.cumsum(a > 0)[rows] - 1, np.cumsum(b > 0)[cols] - 1, c / sizes,
                       (int(np.count_nonzero(a)), int(np.count_nonzero(b))))
            before = len(calls)
            warm = max_weight_matching(*problem, fraction=(c, sizes), prices=prices)
            used = len(calls) > before
            cold = max_weight_matching(*problem, fraction=(c, sizes))
            assert len(calls) == before + used
            assert _total(warm, c, sizes) == _total(cold, c, sizes)
            once = replicate_scores(table, counts, ["recovery_rate"])[0, 0]
            assert repeated == pytest.approx(once, rel=1e-15)
    finally:
        _kernels.set_kernels(old)
    assert calls or shape[0] == 300  # the warm solver ran (~100 items a row: L > 2**50)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(20, 400), st.integers(2, 40),
       st.integers(2, 40), st.sampled_from(["table", "random", "huge"]),
       st.sampled_from([0, None]), st.booleans())
def test_weights_solved_warm_or_by_the_scaled_auction(seed, n, k_true, k_pred, start, scans,
                                                      counts):
    """Weights no integer scaling makes exact (real masses, recall weights whose common
    denominator passes 2**50) are rounded to 2**-60 of the largest, where a warm auction at
    epsilon 1 may wage a price war on the first tie (uniform noise, 10^4 x 10^4 labels:
    minutes a replicate before its bids were bounded). Past its bids (``scans`` 0: at
    once) they go to the scaled auction, as do small integers (``counts``: clustering
    accuracy's weights), exact there; either way optimal up to rounding, never None."""
    rng = np.random.default_rng(seed)
    table = _noise_table(rng, n, k_true, k_pred)
    weights = table.counts.astype(np.float64) if counts else \
        table.counts * rng.uniform(0.5, 1.5, table.nnz)  # no common denominator
    indptr = np.append(np.searchsorted(table.rows, np.arange(table.n_classes)), table.nnz)
    prices = {"table": lambda: warm_kernels.reference_prices(indptr, table.cols, weights,
                                                             table.n_clusters),
              "random": lambda: rng.uniform(0, 3.0, table.n_clusters),
              "huge": lambda: np.full(table.n_clusters, 1e6)}[start]()
    default = warm_kernels._BID_SCANS
    warm_kernels._BID_SCANS = default if scans is None else scans
    try:
        match = warm_kernels.warm_matching(indptr, table.cols, weights, table.n_clusters,
                                           prices)
    finally:
        warm_kernels._BID_SCANS = default
    assert match is not None
    matched = np.flatnonzero(match >= 0)
    dense = np.zeros((table.n_classes, table.n_clusters))
    dense[table.rows, table.cols] = weights
    assert np.all(dense[matched, match[matched]] > 0)
    assert len(set(match[matched].tolist())) == matched.shape[0]
    r, k = linear_sum_assignment(dense, maximize=True)
    if counts:  # exact integers: the optimum itself
        assert dense[matched, match[matched]].sum() == dense[r, k].sum()
    else:
        assert dense[matched, match[matched]].sum() == pytest.approx(dense[r, k].sum(),
                                                                     rel=1e-13)


_TIED = 1 << 41  # a benefit whose price war at epsilon 1 would take 2**41 bids


def test_warm_forward_bids_stop_at_their_limit():
    """Three rows tied on two columns from zero prices: each bid raises a price by 1."""
    indptr = np.array([0, 2, 4, 6], dtype=np.int64)
    cols = np.array([0, 1, 0, 1, 0, 1], dtype=np.int64)
    ben = np.full(6, _TIED, dtype=np.int64)
    cptr, crow, ccell = _phase_kernels._column_lists(indptr, cols, 3, 2)
    _, _, work = warm_kernels._auction_from(indptr, cols, ben, 3, 2, cptr, crow, ccell,
                                            np.zeros(2, dtype=np.int64), 1000)
    assert work == -1


@pytest.mark.parametrize("benefit", [_TIED, 40])
def test_warm_reverse_bids_stop_at_their_limit(benefit):
    """Two rows on three tied columns, every price at the benefit (profits 0), the third
    column free: each reverse bid lowers a price by 1 and frees another column. A small
    benefit ends within the limit with every free column at price 0; a large one stops."""
    cptr = np.array([0, 2, 4, 6], dtype=np.int64)
    crow = np.array([0, 1, 0, 1, 0, 1], dtype=np.int64)
    cben = np.full(6, benefit, dtype=np.int64)
    price = np.full(3, benefit, dtype=np.int64)
    assigned = np.array([0, 1], dtype=np.int64)
    owner = np.array([0, 1, -1], dtype=np.int64)
    gain = np.zeros(2, dtype=np.int64)
    bids = _auction_kernels._reverse_loop(cben, 3, price, assigned, gain, owner, cptr, crow,
                                      np.empty(3, dtype=np.int64), 1, 1000)
    if benefit == _TIED:
        assert bids == -1
    else:
        assert 0 < bids <= 1000
        assert all(price[j] == 0 for j in range(3) if owner[j] < 0)
