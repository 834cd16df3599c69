"""Chunked and DuckDB sources give exactly the in-memory table, labels and errors included."""

import gzip

import duckdb
import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import clustermetrics as cm
from clustermetrics import Contingency
from clustermetrics.io import ContingencyBuilder, from_chunks, from_duckdb

BIG = 2**53


def _data(n=500, seed=0):
    rng = np.random.default_rng(seed)
    t = rng.integers(0, 7, n) + BIG  # 2**53 + k: float64 would merge neighbours
    names = np.array(["alpha", "beta", "gamma", "δέλτα", "01", "1"])
    p = names[rng.integers(0, len(names), n)]
    return t, p


# ------------------------------------------------------------------------------ chunks
@settings(max_examples=50, deadline=None)
@given(st.lists(st.integers(0, 40), min_size=1, max_size=8), st.integers(1, 4))
def test_chunks_equal_whole(sizes, merge_every):
    t, p = _data(sum(sizes) + 1, seed=len(sizes))
    bounds = np.cumsum([0, *sizes, 1])
    chunks = [(t[a:b], p[a:b]) for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
    whole = Contingency.from_labels(t, p)
    assert from_chunks(chunks, merge_every=merge_every) == whole
    assert from_chunks(iter(chunks)) == whole
    builder = ContingencyBuilder(merge_every=merge_every)
    for a, b in chunks:
        builder.update(a, b)
    assert builder.result() == whole and builder.n_samples == len(t)


@pytest.mark.parametrize("make", [
    lambda t, p: pd.DataFrame({"t": t, "p": p}),
    lambda t, p: pa.record_batch({"t": pa.array(t.tolist()), "p": pa.array(p)}),
    lambda t, p: pa.table({"t": pa.array(t.tolist()), "p": pa.array(p)}),
    lambda t, p: pl.DataFrame({"t": t, "p": p}),
    lambda t, p: {"t": t, "p": p},
], ids=["pandas", "arrow-batch", "arrow-table", "polars", "dict"])
def test_dataframe_chunks(make):
    t, p = _data(300)
    chunks = [make(t[i:i + 70], p[i:i + 70]) for i in range(0, 300, 70)]
    assert from_chunks(chunks, true_col="t", pred_col="p") == Contingency.from_labels(t, p)


BAD_CHUNKS = [5, None, "ab", ([1, 2], [1]), ([1], [1], [1], [1]), ([None], [1]),
              ([1], [float("nan")]), ([[1, 2]], [1]), ({1}, [1]), ([1], [1], [-1]),
              ([1, 2], [1, 2], [1]), ([1], [1], [float("nan")])]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.lists(st.integers(0, 3), min_size=1, max_size=4)), max_size=4),
       st.sampled_from(BAD_CHUNKS), st.data())
def test_every_bad_chunk_is_named_by_its_index(good, bad, data):
    # whatever is wrong with a chunk, the message names the parameter and the chunk's index
    chunks = [(labels, labels[::-1]) for (labels,) in good]
    where = data.draw(st.integers(0, len(chunks)))
    chunks.insert(where, bad)
    with pytest.raises(ValueError) as info:
        from_chunks(chunks)
    assert str(info.value).startswith(f"chunks[{where}]: "), info.value


def test_chunk_errors():
    with pytest.raises(ValueError, match="chunks\\[1\\]: a chunk must be a"):
        from_chunks([([1], [1]), 5])
    with pytest.raises(ValueError, match="chunks\\[0\\]: the chunk has no column 'x' "
                                         "\\(true_col\\); columns are: 't', 'p'"):
        from_chunks([pd.DataFrame({"t": [1], "p": [1]})], true_col="x", pred_col="p")
    with pytest.raises(ValueError, match="give both true_col and pred_col"):
        from_chunks([], true_col="t")
    with pytest.raises(ValueError, match="chunks is empty"):
        from_chunks([])
    with pytest.raises(ValueError, match="no chunks were added"):
        ContingencyBuilder().result()
    with pytest.raises(ValueError, match="different lengths"):
        from_chunks([([1, 2], [1])])


def test_empty_chunks_are_skipped():
    chunks = [([], []), ([1, 2], ["a", "b"]), (np.array([]), np.array([]))]
    assert from_chunks(chunks) == Contingency.from_labels([1, 2], ["a", "b"])


# ------------------------------------------------------------------------------ duckdb
def _parquet(path, t, p):
    pq.write_table(pa.table({"truth": pa.array(t.tolist(), pa.int64()),
                             "pred": pa.array(p.tolist(), pa.string())}), path)


def test_parquet_equals_memory_and_keeps_types(tmp_path):
    t, p = _data()
    _parquet(tmp_path / "x.parquet", t, p)
    table = from_duckdb(tmp_path / "x.parquet", "truth", "pred", memory_limit="512MB")
    assert table == Contingency.from_labels(t, p)
    assert table.class_labels.dtype == np.int64 and BIG + 1 in table.class_labels.tolist()
    assert cm.evaluate(table).to_dict() == cm.evaluate(t, p).to_dict()


def test_split_into_100_files_equals_whole(tmp_path):
    t, p = _data(3000, seed=4)
    for i, (tt, pp) in enumerate(zip(np.array_split(t, 100), np.array_split(p, 100),
                                     strict=True)):
        _parquet(tmp_path / f"part-{i:03d}.parquet", tt, pp)
    assert from_duckdb(str(tmp_path / "*.parquet"), "truth", "pred") == \
        Contingency.from_labels(t, p)


@pytest.mark.parametrize("name, sep, opener", [
    ("x.csv", ",", open), ("x.tsv", "\t", open), ("x.csv.gz", ",", gzip.open)])
def test_csv_tsv_gzip_keep_exact_strings(tmp_path, name, sep, opener):
    t, p = _data(200)
    with opener(tmp_path / name, "wt") as fh:
        fh.write(f"id{sep}truth{sep}pred\n")
        for i, (a, b) in enumerate(zip(t, p, strict=True)):
            fh.write(f"{i}{sep}{a}{sep}{b}\n")
    table = from_duckdb(tmp_path / name, "truth", "pred")
    # CSV values are text, as on the CLI's in-memory path: "01" and "1" stay apart
    assert table == Contingency.from_labels(t.astype(str), p)


def test_relation_source():
    con = duckdb.connect()
    rel = con.sql("SELECT range % 3 AS a, range % 2 AS b FROM range(12)")
    table = from_duckdb(rel, "a", "b")
    assert table == Contingency.from_labels(np.arange(12) % 3, np.arange(12) % 2)


def test_nulls_error_or_dropped(tmp_path):
    path = tmp_path / "n.parquet"
    pq.write_table(pa.table({"t": pa.array([1, None, 2, 2, None]),
                             "p": pa.array(["a", "b", None, "b", "a"])}), path)
    with pytest.raises(ValueError, match="column 't' has 2 NULL labels"):
        from_duckdb(path, "t", "p")
    stats = {}
    table = from_duckdb(path, "t", "p", drop_null=True, stats=stats)
    assert stats == {"rows": 5, "skipped": 3}
    assert table == Contingency.from_labels([1, 2], ["a", "b"])


def test_duckdb_errors(tmp_path):
    with pytest.raises(ValueError, match="no such file"):
        from_duckdb(tmp_path / "missing.parquet", "t", "p")
    _parquet(tmp_path / "x.parquet", *_data(10))
    with pytest.raises(ValueError, match="has no column 'nope' \\(pred_col\\); columns are: "
                                         "'truth', 'pred'"):
        from_duckdb(tmp_path / "x.parquet", "truth", "nope")
    pq.write_table(pa.table({"t": pa.array([[1], [2]]), "p": pa.array([1, 2])}),
                   tmp_path / "l.parquet")
    with pytest.raises(ValueError, match="column 't' has type .*cannot hold labels"):
        from_duckdb(tmp_path / "l.parquet", "t", "p")
    (tmp_path / "e.csv").write_text("t,p\n")
    with pytest.raises(ValueError, match="has a header but no rows"):
        from_duckdb(tmp_path / "e.csv", "t", "p")
    with pytest.raises(ValueError, match="is a directory"):
        from_duckdb(tmp_path, "t", "p")
    with pytest.raises(ValueError, match="memory_limit must not contain a quote"):
        from_duckdb(tmp_path / "x.parquet", "truth", "pred", memory_limit="1GB'; --")
    with pytest.raises(ValueError, match="source must be a file path"):
        from_duckdb(42, "t", "p")


def test_integer_columns_sorted_in_numpy_equal_memory(tmp_path):
    # both label columns integers: the grouped cells come back unsorted and numpy numbers
    # the labels and sorts the cells (packed keys); wide and narrow types, NULLs dropped
    rng = np.random.default_rng(8)
    t = rng.integers(-50, 50, 4000) * 1_000_003
    t[::97] = BIG + 1
    p = np.where(rng.random(4000) < 0.3, rng.integers(0, 70, 4000), np.abs(t) % 70)
    pq.write_table(pa.table({"t": pa.array(t.tolist(), pa.int64()),
                             "p": pa.array(p.tolist(), pa.uint16())}), tmp_path / "i.parquet")
    table = from_duckdb(tmp_path / "i.parquet", "t", "p")
    assert table == Contingency.from_labels(t, p)
    assert cm.evaluate(table).to_dict() == cm.evaluate(t, p).to_dict()
    nulls = tmp_path / "n.parquet"
    pq.write_table(pa.table({"t": pa.array([1, None, 2, 2, 7]),
                             "p": pa.array([5, 5, None, 6, 5], pa.int32())}), nulls)
    stats = {}
    assert from_duckdb(nulls, "t", "p", drop_null=True, stats=stats) == \
        Contingency.from_labels([1, 2, 7], [5, 6, 5])
    assert stats == {"rows": 5, "skipped": 2}
