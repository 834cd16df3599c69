"""The command line's bridge to :mod:`clustermetrics.io.engines`: its messages name the
flags, and it reports on stderr what the engine did."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Mapping
from typing import Any

from ..io import engines
from ..io.engines import AUTO_DUCKDB_BYTES, ENGINES, table_with_engine
from ..table import Contingency

__all__ = ["ENGINES", "AUTO_DUCKDB_BYTES", "FLAGS", "choose_engine", "table_from_files"]

# the command line's spelling of the parameters that messages name
FLAGS = {"true_col": "--true-col", "pred_col": "--pred-col", "sep": "--sep",
         "drop_null": "--drop-null", "weight_col": "--weight-col",
         "memory_limit": "--memory-limit", "engine": "--engine", "path": "FILE",
         "master": "--spark-master",
         "two_files": "TRUTH PRED"}


def choose_engine(engine: str, truth: str, pred: str | None, *,
                  memory_limit: str | None = None, master: str | None = None) -> str:
    """The engine for ``score``: the one asked for, or for ``auto`` the one that fits
    (``--spark-master`` asks for Spark, ``--memory-limit`` for DuckDB)."""
    return engines.choose_engine(engine, truth, pred, memory_limit=memory_limit,
                                 master=master, names=FLAGS)


def table_from_files(engine: str, truth: str, pred: str | None, *, true_col: str | None,
                     pred_col: str | None, sep: str | None = None, header: bool = False,
                     memory_limit: str | None = None, drop_null: bool = False,
                     log: Callable[..., None] = lambda *a, **k: None, spark: Any = None,
                     names: Mapping[str, str] = FLAGS,
                     weight_col: str | None = None,
                     master: str | None = None) -> Contingency:
    """Count the pairs of the labels in the file(s) with ``engine``; report NULLs skipped.

    A missing extra is a ValueError naming it. ``spark``: a SparkSession to use instead of
    a fresh one on ``master`` (default local mode); ``names``: how messages spell the
    parameters (the command line's
    flags). The rest is :func:`clustermetrics.io.read_table`'s.
    """
    stats: dict = {}
    start = time.perf_counter()
    if engine in ("duckdb", "spark") and true_col and pred_col:
        how = "DuckDB" if engine == "duckdb" else f"Spark ({master or 'local'})"
        log(f"counting (true, predicted) pairs in {truth} with {how}...", progress=True)
    try:
        table = table_with_engine(engine, truth, pred, true_col=true_col, pred_col=pred_col,
                                  weight_col=weight_col, sep=sep, header=header,
                                  drop_null=drop_null, memory_limit=memory_limit,
                                  spark=spark, master=master,
                                  progress=sys.stderr.isatty(), stats=stats,
                                  names={**FLAGS, **names})
    except ImportError as exc:  # an extra that is not installed: its message names it
        raise ValueError(str(exc)) from None
    if engine != "memory":
        log(f"counted {table.n_samples} rows into {table.nnz} cells in "
            f"{time.perf_counter() - start:.1f} s", progress=True)
    if stats.get("skipped"):
        log(f"skipped {stats['skipped']} of {stats['rows']} rows with a missing label")
    return table
