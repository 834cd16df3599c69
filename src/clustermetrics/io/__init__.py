"""Sources: everything that produces a :class:`~clustermetrics.Contingency`.

* :func:`read_table` — a file or a glob (CSV/TSV, also gzip, and Parquet) or two label
  files, counted by the engine that fits (``engine="auto"``) or the one named.
* :func:`from_chunks` / :class:`ContingencyBuilder` — streams of label chunks, pandas or
  pyarrow record batches; memory bounded by the table.
* :func:`from_duckdb` — Parquet/CSV/TSV files and globs bigger than memory (extra
  ``duckdb``).
* :func:`from_spark` — Spark DataFrames; groupBy/count runs in Spark (extra ``spark``);
  :func:`from_spark_files` — files and globs counted by Spark.

The engine sources take ``weight_col``: a column of row weights, summed exactly inside
the engine by the rules of :mod:`.weights`.

Every file source reads delimited text by the one set of rules of the user guide ("How files
are read"), so they all give the same table as the in-memory reader.

Engines are imported only when their source is used.
"""

from .chunks import ContingencyBuilder, from_chunks
from .duckdb_engine import from_duckdb
from .engines import read_table
from .spark_engine import from_spark, from_spark_files

__all__ = ["ContingencyBuilder", "from_chunks", "from_duckdb", "from_spark", "from_spark_files",
           "read_table"]
