"""Parquet weight columns of the types with a trap: decimals (decimal128 and decimal256, any
scale) are read as the exact decimals written, never through float64, and give the table
the same weights give as a list, as float16 weights are (each one exactly, as in memory);
decimals wider than 38 digits (DuckDB's and Spark's limit) are refused by every engine with
one message naming the column's option and its type."""

from decimal import Decimal

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clustermetrics import Contingency
from clustermetrics.io.duckdb_engine import from_duckdb
from clustermetrics.io.parquet import from_parquet

READERS = {"memory": from_parquet, "duckdb": from_duckdb}


@st.composite
def decimal_columns(draw):
    precision = draw(st.integers(1, 38))
    scale = draw(st.integers(0, precision))
    kind = draw(st.sampled_from([pa.decimal128, pa.decimal256]))
    n = draw(st.integers(1, 8))
    # digits up to the full precision: 2**53 and more are not exact in float64
    units = draw(st.lists(st.integers(0, 10**precision - 1), min_size=n, max_size=n))
    values = [Decimal(f"{u}E-{scale}") for u in units]  # exact: scaleb rounds to 28 digits
    return pa.array(values, kind(precision, scale)), values


@given(decimal_columns(), st.data(), st.sampled_from(sorted(READERS)))
@settings(max_examples=60, deadline=None)
def test_decimal_weights_are_the_decimals_written(tmp_path_factory, column, data, engine):
    arrow, values = column
    n = len(values)
    t = data.draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
    p = data.draw(st.lists(st.sampled_from(["a", "b"]), min_size=n, max_size=n))
    path = tmp_path_factory.mktemp("dec") / "w.parquet"
    pq.write_table(pa.table({"t": t, "p": p, "w": arrow}), path)
    try:
        want = Contingency.from_labels(t, p, values)
    except ValueError as exc:  # all zero, or beyond the exact range: refused alike
        with pytest.raises(ValueError) as info:
            READERS[engine](str(path), "t", "p", weight_col="w")
        for why in ("nothing to score", "more than 2**63 - 1"):
            assert (why in str(exc)) == (why in str(info.value)), (exc, info.value)
        return
    got = READERS[engine](str(path), "t", "p", weight_col="w")
    assert got == want and got.real_valued == want.real_valued


@pytest.mark.parametrize("arrow, type_name", [
    (pa.array([Decimal("0.5"), Decimal(1), Decimal(2)], pa.decimal256(39, 1)),
     "decimal256(39, 1)"),
    (pa.array([Decimal(1), Decimal(1), Decimal(2)], pa.decimal256(76, 0)),
     "decimal256(76, 0)"),
])
@pytest.mark.parametrize("engine", sorted(READERS))
def test_types_no_engine_reads_exactly_are_refused(tmp_path, arrow, type_name, engine):
    path = tmp_path / "w.parquet"
    pq.write_table(pa.table({"t": [0, 0, 1], "p": [0, 1, 1], "w": arrow}), path)
    with pytest.raises(ValueError, match=f"column 'w' \\(weight_col\\) has type "
                                         f"{type_name.replace('(', '.').replace(')', '.')}; "
                                         "weights are integers"):
        READERS[engine](str(path), "t", "p", weight_col="w")


@pytest.mark.parametrize("engine", sorted(READERS))
def test_float16_weights_read_as_the_same_list(tmp_path, engine):
    w = np.array([0.0999755859375, 1.0, 2.5, 65504.0], dtype=np.float16)
    path = tmp_path / "w.parquet"
    t, p = [0, 0, 1, 1], [0, 1, 1, 1]
    pq.write_table(pa.table({"t": t, "p": p, "w": pa.array(w)}), path)
    want = Contingency.from_labels(t, p, sample_weight=w)
    got = READERS[engine](str(path), "t", "p", weight_col="w")
    assert got == want and got.real_valued == want.real_valued


def test_spark_refuses_float16_weights_before_it_starts(tmp_path):
    """Spark has no 16-bit float: the column is refused by name before a JVM starts."""
    from clustermetrics.io.spark_engine import from_spark_files

    path = tmp_path / "w.parquet"
    pq.write_table(pa.table({"t": [0, 1], "p": [0, 1], "w": pa.array(
        np.array([0.5, 1.0], dtype=np.float16))}), path)
    with pytest.raises(ValueError, match=r"column 'w' \(weight_col\) holds 16-bit floats"):
        from_spark_files(str(path), "t", "p", weight_col="w")
