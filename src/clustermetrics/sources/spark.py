"""Tables from Spark DataFrames: groupBy/count runs in Spark, only the cells come back.

The non-zero cells (usually far fewer than the rows) are fetched through Arrow.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._text import quoted_list
from ..contingency import Contingency
from ._common import table_from_groups

__all__ = ["from_spark"]

_NOT_LABELS = ("array", "map", "struct", "binary")


def from_spark(dataframe: Any, true_col: str, pred_col: str, *, drop_null: bool = False,
               stats: dict | None = None) -> Contingency:
    """The table of two columns of a ``pyspark.sql.DataFrame``.

    ``groupBy(true_col, pred_col).count()`` runs in Spark; the result comes back through
    Arrow. NULL labels are an error naming the column and the count unless ``drop_null``;
    ``stats`` (a dict) receives ``rows`` and ``skipped``. Needs the ``spark`` extra.
    """
    if not (hasattr(dataframe, "groupBy") and hasattr(dataframe, "schema")):
        raise ValueError(f"dataframe must be a pyspark.sql.DataFrame, got "
                         f"{type(dataframe).__name__}")
    fields = {f.name: f.dataType.typeName() for f in dataframe.schema.fields}
    for option, col in (("true_col", true_col), ("pred_col", pred_col)):
        if col not in fields:
            raise ValueError(f"DataFrame has no column {col!r} ({option}); columns are: "
                             f"{quoted_list(fields)}")
        if fields[col] in _NOT_LABELS:
            raise ValueError(f"DataFrame column {col!r} has type {fields[col]}, which cannot "
                             "hold labels")
    grouped = dataframe.groupBy(true_col, pred_col).count()
    arrow = _to_arrow(grouped)
    t = _masked(arrow.column(0))
    p = _masked(arrow.column(1))
    n = arrow.column(2).to_numpy()
    return table_from_groups(t, p, n, "DataFrame", true_col, pred_col, drop_null, stats)


def _to_arrow(grouped: Any):
    if hasattr(grouped, "toArrow"):  # pyspark >= 4.0
        return grouped.toArrow()
    import pyarrow as pa

    session = grouped.sparkSession
    session.conf.set("spark.sql.execution.arrow.pyspark.enabled", "true")
    return pa.Table.from_pandas(grouped.toPandas(), preserve_index=False)


def _masked(column) -> np.ma.MaskedArray:
    """Arrow column -> masked numpy array (mask = NULL), values kept exactly."""
    column = column.combine_chunks() if hasattr(column, "combine_chunks") else column
    mask = column.is_null().to_numpy(zero_copy_only=False)
    present = column.drop_null()
    if mask.any() and len(present):
        # an int column with nulls would convert to float (2**53 + 1 lost): fill them first
        column = column.fill_null(present[0])
    return np.ma.masked_array(column.to_numpy(zero_copy_only=False), mask=mask)
