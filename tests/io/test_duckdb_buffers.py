"""DuckDB's fetched label arrays go on to the table's sort as themselves (its work space),
not as masked views that would make the sort allocate fresh arrays."""

import numpy as np
import pytest

pytest.importorskip("duckdb")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

import clustermetrics as cm  # noqa: E402
from clustermetrics.io import duckdb_engine  # noqa: E402
from clustermetrics.table import counting  # noqa: E402


def test_as_fetched():
    fetched = np.arange(5, dtype=np.int64)
    assert duckdb_engine._as_fetched(np.ma.masked_array(fetched), fetched) is fetched
    assert duckdb_engine._as_fetched(fetched, fetched) is fetched
    converted = fetched.astype("datetime64[D]")
    assert duckdb_engine._as_fetched(converted, fetched) is converted
    masked = np.ma.masked_array(fetched, mask=[0, 1, 0, 0, 0])
    assert duckdb_engine._as_fetched(masked, fetched) is masked
    shorter = np.ma.masked_array(fetched[:3])
    assert duckdb_engine._as_fetched(shorter, fetched) is shorter
    nulls = np.ma.masked_array(fetched, mask=[0, 1, 0, 0, 0])
    assert duckdb_engine._as_fetched(nulls, nulls) is nulls  # DuckDB's masked arrays


def test_parquet_ints_sorted_in_duckdbs_arrays(tmp_path, monkeypatch):
    rng = np.random.default_rng(0)
    # labels 0 .. 49, every one present: the codes are the labels themselves (no copy)
    t = rng.integers(0, 50, 2000)
    p = np.where(rng.random(2000) < 0.3, rng.integers(0, 50, 2000), t)
    path = tmp_path / "x.parquet"
    pq.write_table(pa.table({"t": t, "p": p}), path)
    seen = []
    own = counting._own_buffers
    monkeypatch.setattr(counting, "_own_buffers", lambda *a: seen.append(own(*a)) or seen[-1])
    table = cm.read_table(path, true_col="t", pred_col="p", engine="duckdb")
    assert seen == [True]
    assert table == cm.Contingency.from_labels(t, p)
