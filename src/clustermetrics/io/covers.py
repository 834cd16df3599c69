"""Covers read from files: long-format (item, community) columns of CSV, TSV or Parquet,
through the engines that read label tables (memory, DuckDB, Spark)."""

from __future__ import annotations

import os
from typing import Any

from ..table.cover import Cover
from .engines import choose_engine, table_with_engine

__all__ = ["read_cover"]


def read_cover(path: str | os.PathLike, *, item_col: str, community_col: str,
               engine: str = "auto", sep: str | None = None, drop_null: bool = False,
               memory_limit: str | None = None, spark: Any = None,
               stats: dict | None = None) -> Cover:
    """The cover of a table with one row per membership: an item id and a community id.

    The engine counts the distinct (item, community) pairs as it counts a label table's
    cells (:func:`~clustermetrics.read_table`, whose reading rules and engines it uses),
    so only the memberships come back; a pair read twice is one membership.

    Parameters
    ----------
    path : str or path-like
        A table with a header row: a file or a glob of CSV, TSV (also ``.gz``) or Parquet.
    item_col, community_col : str
        The columns of item ids and community ids.
    engine : {'auto', 'memory', 'duckdb', 'spark'}, default='auto'
        Who reads the pairs, as for :func:`~clustermetrics.read_table`.
    sep : str, optional
        Field separator of delimited text (default by suffix: a tab for ``.tsv``).
    drop_null : bool, default=False
        Skip rows with a missing id instead of raising.
    memory_limit : str, optional
        DuckDB's memory limit (``engine="duckdb"`` only).
    spark : pyspark.sql.SparkSession, optional
        The session of ``engine="spark"``.
    stats : dict, optional
        Filled with ``rows`` (rows read) and ``skipped`` (rows dropped by ``drop_null``).

    Returns
    -------
    Cover
        Items and communities as the file names them.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> import clustermetrics as cm
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "memberships.csv"
    >>> _ = path.write_text("node,community\\na,1\\nb,1\\nb,2\\nc,2\\n")
    >>> cm.read_cover(path, item_col="node", community_col="community").to_communities()
    {'1': ['a', 'b'], '2': ['b', 'c']}
    """
    # the engines read a (true_col, pred_col) table: their messages must name this
    # function's parameters instead, or a missing column sends the reader to read_table
    spell = {"true_col": "item_col", "pred_col": "community_col"}
    chosen = choose_engine(engine, path, None, memory_limit=memory_limit, names=spell)
    table = table_with_engine(chosen, path, true_col=item_col, pred_col=community_col,
                              sep=sep, drop_null=drop_null, memory_limit=memory_limit,
                              spark=spark, stats=stats, names=spell)
    return Cover.from_table(table)
