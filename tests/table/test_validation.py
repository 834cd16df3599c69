"""Input handling: every accepted container and label type, every documented error."""

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clustermetrics import Contingency, adjusted_rand_score, evaluate, rand_score

TRUTH = [0, 0, 1, 1, 2, 2, 2]
PRED = [5, 5, 5, 7, 7, 9, 9]


@pytest.mark.parametrize("wrap", [
    list, tuple, np.asarray, pd.Series, pl.Series, pa.array,
    lambda x: pa.chunked_array([x[:3], x[3:]]),
    lambda x: pd.Series(x).astype("category"),
    lambda x: pd.Series(x, dtype="Int64"),
], ids=["list", "tuple", "numpy", "pandas", "polars", "pyarrow", "arrow-chunked",
        "pandas-category", "pandas-Int64"])
def test_containers_give_the_same_table(wrap):
    expected = Contingency.from_labels(np.array(TRUTH), np.array(PRED)).to_dense()
    got = Contingency.from_labels(wrap(TRUTH), wrap(PRED))
    assert np.array_equal(got.to_dense(), expected)
    assert got.n_samples == len(TRUTH)


def test_large_ints_stay_distinct():
    big = 2**53
    t = Contingency.from_labels([big, big + 1, big, big + 1], [0, 0, 1, 1])
    assert t.n_classes == 2
    assert t.class_labels.tolist() == [big, big + 1]
    # also through a float-looking list and beyond int64
    t = Contingency.from_labels([big + 1, 0.5, big], [1, 1, 1])
    assert t.n_classes == 3
    huge = 2**70
    t = Contingency.from_labels([huge, huge + 1, huge], [1, 2, 1])
    assert t.n_classes == 2 and t.class_labels.tolist() == [huge, huge + 1]


def test_uint64_near_top_and_spread_ints():
    top = np.array([2**64 - 1, 2**64 - 2, 2**64 - 1], dtype=np.uint64)
    t = Contingency.from_labels(top, [0, 1, 0])
    assert t.class_labels.tolist() == [2**64 - 2, 2**64 - 1]
    spread = np.array([-10**12, 10**12, -10**12, 0])
    t = Contingency.from_labels(spread, [1, 1, 2, 2])
    assert t.class_labels.tolist() == [-10**12, 0, 10**12]
    assert t.to_dense().tolist() == [[1, 1], [0, 1], [1, 0]]


def test_mixed_types_are_not_coerced():
    t = Contingency.from_labels([1, "1", 1, "1"], ["a", "a", "b", "b"])
    assert t.n_classes == 2  # numpy alone would make both "1"
    assert rand_score([1, "1"], [0, 0]) == 0.0


@pytest.mark.parametrize("labels", [
    [True, False, True, False],
    ["x", "y", "x", "y"],
    [0.5, 1.5, 0.5, 1.5],
    np.array(["2020-01-01", "2021-01-01", "2020-01-01", "2021-01-01"], dtype="datetime64[D]"),
    [b"x", b"y", b"x", b"y"],
    np.array([None, (1, 2), (3, 4), (1, 2), (3, 4)], dtype=object)[1:],  # tuple labels
])
def test_label_types(labels):
    assert adjusted_rand_score(labels, [0, 1, 0, 1]) == 1.0


def _error(match, *args):
    with pytest.raises(ValueError, match=match):
        Contingency.from_labels(*args)
    with pytest.raises(ValueError, match=match):
        evaluate(*args)


def test_different_lengths():
    _error(r"labels_true and labels_pred have different lengths: 3 and 2", [1, 2, 3], [1, 2])


def test_empty():
    _error("labels_true is empty", [], [])
    _error("labels_pred is empty", [1], np.array([]))


@pytest.mark.parametrize("bad, count", [
    ([0.0, float("nan"), 1.0], 1),
    ([1, None, 2], 1),
    (np.array([1.0, np.nan, np.nan]), 2),
    (pd.Series([1, None, 3], dtype="Int64"), 1),
    (pd.Series(["a", None, "c"]), 1),
])
def test_missing_labels(bad, count):
    _error(f"labels_true contains {count} missing", bad, [0, 1, 2])
    _error(f"labels_pred contains {count} missing", [0, 1, 2], bad)


@pytest.mark.parametrize("bad", [pl.Series([1, None, 3]), pa.array([1, None, 3])])
def test_missing_labels_arrow_and_polars(bad):
    _error("labels_pred contains 1 missing", [0, 1, 2], bad)


def test_two_dimensional():
    with pytest.raises(ValueError, match=r"labels_true must be 1-D, got an array of shape "
                                         r"\(2, 2\)"):
        Contingency.from_labels([[1, 2], [3, 4]], [1, 2])
    with pytest.raises(ValueError, match=r"labels_true must be 1-D"):
        rand_score([[1, 2], [3, 4]], [1, 2])
    # evaluate() reads a list of labelings as several references
    # (tests/evaluation/test_references.py)
    _error("labels_pred must be 1-D", [1, 2], np.zeros((2, 1)))


def test_scalars_and_strings():
    _error("labels_true must be a 1-D sequence", 5, [1])
    _error("single string", "abc", [1, 2, 3])
    _error("labels_true is required", None, [1])


def test_list_of_tuples_reads_as_two_dimensional():
    with pytest.raises(ValueError, match="labels_true must be 1-D"):
        Contingency.from_labels([(1, 2), (3, 4)], [0, 1])
    # evaluate() reads the rows as references, as it reads the rows of a 2-D array
    multi = evaluate([(1, 2), (3, 4)], [0, 1], "ari")
    assert list(multi.reports) == ["reference 1", "reference 2"]


def test_unhashable_labels():
    with pytest.raises(ValueError, match="unhashable"):
        Contingency.from_labels([[1], [2, 3]], [1, 2])
    # evaluate() reads the list of lists as references and names the one that does not fit
    with pytest.raises(ValueError, match="reference 1: labels_true and labels_pred have "
                                         "different lengths: 1 and 2"):
        evaluate([[1], [2, 3]], [1, 2])


def test_contingency_and_labels_conflict():
    table = Contingency.from_labels([0, 1], [0, 1])
    with pytest.raises(ValueError, match="labels_pred must be None"):
        adjusted_rand_score(table, [0, 1])
    with pytest.raises(ValueError, match="labels_pred is required"):
        adjusted_rand_score([0, 1])


_NUMBER_TYPES = [int, float, np.int32, np.uint64, np.float32, np.float64,
                 lambda v: __import__("fractions").Fraction(v),
                 lambda v: __import__("decimal").Decimal(v)]


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 10**6), st.integers(1, 4), st.integers(0, 7)),
                min_size=1, max_size=6))
def test_counts_of_any_number_type_integral_counted_fractional_masses(cells):
    # a count is an integer count when its value is a non-negative integer, whatever its
    # type (Fraction(6, 2), 3.0, Decimal('3')), and a real mass (float64) when it is not
    from fractions import Fraction

    values, wanted = [], []
    for count, denominator, kind in cells:
        make = _NUMBER_TYPES[kind]
        if make in (np.int32, np.float32):
            count %= 2**20  # values those types hold exactly
        if make in (int, np.int32, np.uint64) or denominator == 1:
            values.append(make(count))
            wanted.append(Fraction(count))
        else:
            exact = Fraction(2 * count + 1, 2 * denominator)  # never an integer
            value = make(exact) if kind == 6 else \
                make(str(float(exact))) if kind == 7 else make(float(exact))
            values.append(value)
            wanted.append(value if kind == 6 else Fraction(str(value)) if kind == 7
                          else Fraction(float(value)))
    rows = list(range(len(values)))
    if all(w.denominator == 1 for w in wanted):
        if sum(wanted) == 0:
            with pytest.raises(ValueError, match="empty"):
                Contingency.from_counts(rows, rows, values)
            return
        table = Contingency.from_counts(rows, rows, values)
        assert table.n_samples == sum(wanted)
        assert table.counts.tolist() == [int(w) for w in wanted if w]
    else:  # real masses (summed real weights): each value rounded once to float64
        table = Contingency.from_counts(rows, rows, values)
        assert table.real_valued
        assert table.counts.tolist() == [float(w) for w in wanted if w]
