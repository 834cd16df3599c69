"""Chunked building with weights follows the one weight rule: ContingencyBuilder and
from_chunks give, for every chunking, every weight dtype (a different one per chunk
included) and every merge interval, exactly the table Contingency.from_labels gives for
the concatenated labels and weights, or refuse what it refuses."""

from decimal import Decimal
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clustermetrics import Contingency
from clustermetrics.io import ContingencyBuilder, from_chunks

INTEGER_DTYPES = ["int64", "int32", "uint8", "uint64", "int8"]
FLOAT_DTYPES = ["float64", "float32", "float16"]


@st.composite
def weights(draw, n):
    """n weights of one kind, as the chunk gives them, and their Python values."""
    kind = draw(st.sampled_from(INTEGER_DTYPES + FLOAT_DTYPES
                                + ["python-int", "python-float", "decimal", "fraction",
                                   "none"]))
    if kind == "none":  # an unweighted chunk: every item counts once
        return None, [1] * n
    if kind in INTEGER_DTYPES:
        top = min(np.iinfo(kind).max, 5)
        values = np.array(draw(st.lists(st.integers(0, top), min_size=n, max_size=n)),
                          dtype=kind)
        return values, [int(v) for v in values]
    if kind in FLOAT_DTYPES:
        raw = draw(st.lists(st.sampled_from([0.0, 0.1, 0.5, 1.0, 2.0, 1 / 3, 3.75, 1e-5]),
                            min_size=n, max_size=n))
        values = np.array(raw, dtype=kind)
        return values, [float(v) for v in values]  # each exactly the value it holds
    if kind == "python-int":
        values = draw(st.lists(st.integers(0, 2**61), min_size=n, max_size=n))
    elif kind == "python-float":
        values = draw(st.lists(st.floats(0, 1e6, allow_nan=False), min_size=n, max_size=n))
    elif kind == "decimal":
        values = [Decimal(t) for t in draw(st.lists(
            st.sampled_from(["0", "0.1", "0.10", "1", "2.5", "0.3", "7"]), min_size=n,
            max_size=n))]
    else:
        values = draw(st.lists(st.fractions(0, 5, max_denominator=7), min_size=n,
                               max_size=n))
    return list(values), list(values)


LABELS = st.sampled_from([st.integers(0, 3), st.sampled_from(["a", "b", "c"]),
                          st.sampled_from([0, 1, "a", "b"])])


@given(st.data(), LABELS, st.integers(1, 4), st.sampled_from(["builder", "chunks",
                                                                "frames"]))
@settings(max_examples=200, deadline=None)
def test_chunked_equals_from_labels(data, labels, merge_every, how):
    sizes = data.draw(st.lists(st.integers(0, 5), min_size=1, max_size=6))
    chunks, all_t, all_p, all_w = [], [], [], []
    for n in sizes:
        t = data.draw(st.lists(labels, min_size=n, max_size=n))
        p = data.draw(st.lists(labels, min_size=n, max_size=n))
        given_w, values = data.draw(weights(n))
        if how == "frames" and given_w is None:
            given_w = np.ones(n, dtype=np.int64)
        as_array = data.draw(st.booleans()) and len({type(v) for v in t + p}) <= 1
        chunks.append((np.array(t) if as_array and n else t, p, given_w))
        all_t += t
        all_p += p
        all_w += values
    try:
        want = Contingency.from_labels(all_t, all_p, np.array(all_w, dtype=object))
    except ValueError:
        want = None
    try:
        if how == "builder":
            builder = ContingencyBuilder(merge_every=merge_every)
            for t, p, w in chunks:
                builder.update(t, p, w)
            got = builder.result()
            assert want is None or builder.n_samples == want.n_samples
        elif how == "chunks":
            got = from_chunks([(t, p) if w is None else (t, p, w) for t, p, w in chunks],
                              merge_every=merge_every)
        else:
            frames = [pd.DataFrame({"t": pd.Series(t, dtype=object),
                                    "p": pd.Series(p, dtype=object), "w": w})
                      for t, p, w in chunks]
            got = from_chunks(frames, true_col="t", pred_col="p", weight_col="w",
                              merge_every=merge_every)
    except ValueError:
        assert want is None, "refused what from_labels accepts"
        return
    assert want is not None, f"accepted what from_labels refuses: {got!r}"
    assert got == want
    assert got.real_valued == want.real_valued
    assert got.counts.dtype == want.counts.dtype
    assert got.class_labels.tolist() == want.class_labels.tolist()


def test_real_cells_summed_across_chunks_are_rounded_once():
    # 0.1 + 0.2 (float64) rounded per chunk and then added is not the exact sum rounded
    # once: merged rounded tables would differ from from_labels in the last bit
    chunks = [([0, 0], [0, 0], [0.1, 0.2]), ([0], [0], [0.3]), ([0], [0], [Decimal("0.1")])]
    want = Contingency.from_labels([0] * 4, [0] * 4, [0.1, 0.2, 0.3, Decimal("0.1")])
    assert from_chunks(chunks) == want
    assert float(want.counts[0]) == float(Fraction(0.1) + Fraction(0.2) + Fraction(0.3)
                                          + Fraction(1, 10))


def test_halves_that_add_up_to_counts():
    # two chunks of real masses whose sums are whole: counts, as from_labels gives
    table = from_chunks([([0, 1], [0, 0], [0.5, 0.25]), ([0, 1], [0, 0], [0.5, 0.75])])
    assert not table.real_valued and table.to_dense().tolist() == [[1], [1]]


@pytest.mark.parametrize("chunk, words", [
    (([0], [0], [-1]), "sample_weight holds 1 negative weights"),
    (([0, 1], [0, 1], [1]), "sample_weight"),
    ((Contingency.from_labels([0], [0]), None, [1]), "a Contingency holds its own counts"),
])
def test_bad_weights_name_the_argument(chunk, words):
    with pytest.raises(ValueError, match=words):
        ContingencyBuilder().update(*chunk)


def test_weight_col_needs_table_chunks():
    with pytest.raises(ValueError, match="weight_col names a column"):
        from_chunks([([0], [0])], weight_col="w")
