"""Exactness of every fast path: each one must give the same result as its slow reference."""

import math
import sys

import numpy as np
import pandas
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clustermetrics.scores._emi import expected_mutual_information
from clustermetrics.table import counting
from clustermetrics.table import factorize as fz
from clustermetrics.table.contingency import Contingency


def _labels(rng, n, k):
    t = rng.integers(0, k, n)
    p = np.where(rng.random(n) < 0.3, rng.integers(0, k, n), t)
    return t, p


@pytest.mark.parametrize("shift", [0, -5, 10**12])
def test_factorize_paths_agree(shift):
    rng = np.random.default_rng(1)
    v = rng.integers(0, 50, 2000) + shift
    codes, uniques = fz.factorize(v)
    ref_uniques, ref_codes = np.unique(v, return_inverse=True)
    assert np.array_equal(uniques, ref_uniques)
    assert np.array_equal(codes, ref_codes)


_LABEL_ARRAYS = st.one_of(
    st.lists(st.text(max_size=4), min_size=1, max_size=60).map(np.array),
    st.lists(st.floats(allow_nan=False, allow_infinity=False, width=64), min_size=1,
             max_size=60).map(np.array),
    st.lists(st.integers(-2**63, 2**63 - 1), min_size=1, max_size=60).map(
        lambda v: np.array(v, dtype=np.int64)),
    st.lists(st.one_of(st.integers(-10**30, 10**30), st.text(max_size=3)), min_size=1,
             max_size=40).map(lambda v: np.array(v, dtype=object)))


@settings(max_examples=150, deadline=None)
@given(_LABEL_ARRAYS)
def test_factorize_with_and_without_pandas_agree(values):
    """Labels factorise alike whether pandas hashes them (installed and imported, or
    enough labels to repay importing it) or numpy / a dict does (a few labels, pandas not
    imported): the same sorted labels and codes."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(fz, "_PANDAS_FROM", 0)
        mp.setitem(sys.modules, "pandas", pandas)
        with_pandas = fz.factorize(values)
        mp.setattr(fz, "_PANDAS_FROM", 10**18)
        mp.delitem(sys.modules, "pandas")
        without = fz.factorize(values)
    assert np.array_equal(with_pandas[0], without[0])
    assert with_pandas[1].tolist() == without[1].tolist()


_INT_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
               np.uint64]


@st.composite
def _int_labels(draw):
    """Integer labels of every width whose span falls on either side of the dense-range
    rule: a few values, or a few values and one far outlier."""
    dtype = np.dtype(draw(st.sampled_from(_INT_DTYPES)))
    info = np.iinfo(dtype)
    n = draw(st.integers(1, 40))
    span = draw(st.sampled_from([1, 3, 2 * n, 4095, 4097, int(info.max) - int(info.min)]))
    lo = draw(st.integers(int(info.min), int(info.max) - min(span, int(info.max) - int(info.min))))
    hi = lo + min(span, int(info.max) - lo)
    values = draw(st.lists(st.integers(lo, hi), min_size=n, max_size=n))
    return np.array(values, dtype=dtype)


def _hashed_only(mp):
    mp.setattr(fz, "_DENSE_FLOOR", 0)
    mp.setattr(fz, "_DENSE_PER_ITEM", 0)


@settings(max_examples=300, deadline=None)
@given(_int_labels(), _int_labels())
def test_dense_and_hashed_integer_paths_give_one_table(t, p):
    """Integers counted densely (offset + bincount) or hashed give the same codes, the
    labels of numpy's unique, and one table, whatever the dtype and the span."""
    n = min(t.shape[0], p.shape[0])
    t, p = t[:n], p[:n]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(fz, "_DENSE_FLOOR", 1 << 16)  # every span drawn but the dtype's full one
        dense = fz.factorize(t), Contingency.from_labels(t, p)
        _hashed_only(mp)
        hashed = fz.factorize(t), Contingency.from_labels(t, p)
    ref_uniques, ref_codes = np.unique(t, return_inverse=True)
    for codes, uniques in (dense[0], hashed[0]):
        assert uniques.dtype == t.dtype and uniques.tolist() == ref_uniques.tolist()
        assert np.array_equal(codes, ref_codes.reshape(-1))
    assert dense[1] == hashed[1]
    assert dense[1].class_labels.tolist() == ref_uniques.tolist()


@pytest.mark.parametrize("n", [1, 2, 1000])
@pytest.mark.parametrize("dtype", [np.int32, np.uint32, np.int64])
def test_dense_range_is_judged_against_the_number_of_labels(n, dtype):
    """A dense count walks every value of the range; a few labels spanning millions are
    hashed instead (a dense walk made ``[1, 4000000]`` cost ~0.1 s): the offset path never
    lists more candidate labels than the larger of 4096 and twice the labels."""
    values = np.resize(np.arange(10, dtype=dtype), n)
    values[-1] = 4_000_000
    codes, labels, complete = fz.factorize_for_counting(values)
    assert labels.shape[0] <= max(4096, 2 * n)
    assert labels[codes].tolist() == values.tolist()
    table = Contingency.from_counts(values, values, np.ones(n, dtype=np.int64))
    assert table.class_labels.tolist() == sorted(set(values.tolist()))


def test_dense_and_sort_counting_give_identical_tables(monkeypatch):
    rng = np.random.default_rng(2)
    t, p = _labels(rng, 5000, 40)
    dense = Contingency.from_labels(t, p)
    monkeypatch.setattr(counting, "DENSE_CELLS", 0)
    sparse = Contingency.from_labels(t, p)
    assert dense == sparse
    ref = np.zeros((40, 40), dtype=np.int64)
    np.add.at(ref, (np.unique(t, return_inverse=True)[1], np.unique(p, return_inverse=True)[1]), 1)
    assert np.array_equal(dense.to_dense(), ref)


def _emi_full(a, b, n):
    total = 0.0
    for ai in a:
        for bj in b:
            for k in range(max(1, ai + bj - n), min(ai, bj) + 1):
                logp = (math.lgamma(ai + 1) + math.lgamma(bj + 1) + math.lgamma(n - ai + 1)
                        + math.lgamma(n - bj + 1) - math.lgamma(n + 1) - math.lgamma(k + 1)
                        - math.lgamma(ai - k + 1) - math.lgamma(bj - k + 1)
                        - math.lgamma(n - ai - bj + k + 1))
                total += k / n * math.log(n * k / (ai * bj)) * math.exp(logp)
    return total


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_pruned_emi_equals_full_sum(seed):
    rng = np.random.default_rng(seed)
    t, p = _labels(rng, 300, 7)
    c = Contingency.from_labels(t, p)
    got = expected_mutual_information(np.asarray(c.class_sizes), np.asarray(c.cluster_sizes),
                                      c.n_samples)
    assert got == pytest.approx(_emi_full(c.class_sizes.tolist(), c.cluster_sizes.tolist(),
                                          c.n_samples), abs=1e-12)
