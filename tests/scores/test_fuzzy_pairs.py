"""The pair-sum kernels of soft memberships against plain enumeration of the pairs."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clustermetrics.scores import fuzzy_pairs
from clustermetrics.scores.fuzzy_pairs import (
    distinct_rows,
    grouped_sum_abs_differences,
    pair_sums,
    sum_abs_cross_differences,
    sum_abs_differences,
    top_two,
    weighted_pair_values,
)

values = st.lists(st.sampled_from([0.0, 0.25, 0.5, 0.125, 1.0, 0.75]), min_size=1,
                  max_size=25)


@settings(max_examples=100, deadline=None)
@given(x=values)
def test_sum_abs_differences_is_the_pairwise_sum(x):
    want = sum(abs(a - b) for a, b in itertools.combinations(x, 2))
    assert sum_abs_differences(np.array(x)) == pytest.approx(want, abs=1e-12)


@settings(max_examples=100, deadline=None)
@given(x=values, data=st.data())
def test_grouped_sum_is_the_sum_within_each_group(x, data):
    codes = np.array(data.draw(st.lists(st.integers(0, 3), min_size=len(x),
                                        max_size=len(x))))
    want = sum(abs(x[i] - x[j]) for i, j in itertools.combinations(range(len(x)), 2)
               if codes[i] == codes[j])
    assert grouped_sum_abs_differences(codes, np.array(x)) == pytest.approx(want, abs=1e-12)


@settings(max_examples=100, deadline=None)
@given(a=values, b=values, data=st.data())
def test_cross_sum_is_every_weighted_pair(a, b, data):
    wa = np.array(data.draw(st.lists(st.integers(1, 5), min_size=len(a), max_size=len(a))),
                  dtype=float)
    wb = np.array(data.draw(st.lists(st.integers(1, 5), min_size=len(b), max_size=len(b))),
                  dtype=float)
    want = sum(x * y * abs(p - q) for p, x in zip(a, wa, strict=True)
               for q, y in zip(b, wb, strict=True))
    got = sum_abs_cross_differences(np.array(a), wa, np.array(b), wb)
    assert got == pytest.approx(want, abs=1e-9)


def test_top_two_takes_the_first_of_ties_and_zero_for_one_column():
    m1, first, m2 = top_two(np.array([[0.5, 0.5, 0.0], [0.1, 0.2, 0.7]]))
    assert m1.tolist() == [0.5, 0.7] and first.tolist() == [0, 2] and m2.tolist() == [0.5, 0.2]
    assert top_two(np.array([[1.0], [1.0]]))[2].tolist() == [0.0, 0.0]


@pytest.mark.parametrize("block", [1, 7, 1 << 22])
def test_pair_sums_over_distinct_rows_in_blocks_is_the_sum_over_items(block, monkeypatch):
    """Every block size (one row at a time, a few, all at once) gives the item-pair sum
    of a symmetric function whose value on a row with itself is not 0."""
    monkeypatch.setattr(fuzzy_pairs, "_BLOCK_ELEMENTS", block)
    rng = np.random.default_rng(3)
    pool = rng.dirichlet(np.ones(3), size=5)
    u = pool[rng.integers(0, 5, 40)]
    v = np.eye(2)[rng.integers(0, 2, 40)]
    du, dv, w = distinct_rows(u, v)
    assert w.sum() == 40 and len(du) <= 10

    def f(x, y):
        return np.minimum(x, y).max(axis=-1) + (x * y).sum(axis=-1)

    def terms(sl):
        return [f(du[sl, None, :], du[None, :, :]) * f(dv[sl, None, :], dv[None, :, :])]
    want = sum(f(u[i], u[j]) * f(v[i], v[j]) for i, j in itertools.combinations(range(40), 2))
    assert pair_sums(terms, w, 3, "test")[0] == pytest.approx(want, rel=1e-13)


def test_weighted_pair_values_count_each_item_pair_once():
    rows = np.array([[1.0, 0.0], [0.5, 0.5]])
    values_, counts = weighted_pair_values(rows, np.array([3, 1]),
                                           lambda x, y: np.abs(x - y).sum(axis=1))
    # pairs within row 0: C(3, 2) = 3 at distance 0; across: 3 x 1 at distance 1;
    # within row 1: none
    assert sorted(zip(values_.tolist(), counts.tolist(), strict=True)) == [(0.0, 3.0),
                                                                          (1.0, 3.0)]
