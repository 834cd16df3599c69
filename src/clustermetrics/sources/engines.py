"""Which engine counts a file's pairs, and running it: the CLI's bridge to the sources."""

from __future__ import annotations

import glob
import importlib.util
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

from .._io import is_parquet
from ..contingency import Contingency

__all__ = ["ENGINES", "AUTO_DUCKDB_BYTES", "choose_engine", "table_from_files"]

ENGINES = ("memory", "duckdb", "spark")
AUTO_DUCKDB_BYTES = 256 << 20  # text tables above this go to DuckDB when it is installed
def _is_glob(path: str) -> bool:
    return any(ch in path for ch in "*?[")


def choose_engine(engine: str, truth: str, pred: str | None) -> str:
    """The engine for ``score``: the one asked for, or for ``auto`` the one that fits."""
    if engine != "auto":
        if engine != "memory" and pred is not None:
            raise ValueError(f"--engine {engine} reads one table: give FILE with --true-col "
                             "and --pred-col instead of TRUTH PRED")
        return engine
    if pred is not None:
        return "memory"
    path = str(truth)
    big = os.path.isfile(path) and os.path.getsize(path) > AUTO_DUCKDB_BYTES
    if is_parquet(path) or _is_glob(path) or big:
        if importlib.util.find_spec("duckdb") is None:
            if big and not is_parquet(path) and not _is_glob(path):
                return "memory"
            raise ValueError(f"reading {path} needs DuckDB: pip install "
                             "'clustermetrics[duckdb]' (or --engine spark)")
        return "duckdb"
    return "memory"


def table_from_files(engine: str, truth: str, pred: str | None, *, true_col: str | None,
                     pred_col: str | None, sep: str | None = None, header: bool = False,
                     memory_limit: str | None = None, drop_null: bool = False,
                     log: Callable[..., None] = lambda *a, **k: None) -> Contingency:
    """Count the pairs of the labels in the file(s) with ``engine``; report NULLs skipped."""
    if engine != "memory" and not (true_col and pred_col):
        raise ValueError(f"--engine {engine} needs --true-col and --pred-col")
    stats: dict = {}
    start = time.perf_counter()
    if engine == "memory":
        table = _memory(truth, pred, true_col, pred_col, sep, header, drop_null, stats)
    elif engine == "duckdb":
        from .duckdb_source import from_duckdb

        log(f"counting (true, predicted) pairs in {truth} with DuckDB...", progress=True)
        table = from_duckdb(truth, true_col, pred_col, memory_limit=memory_limit,
                            drop_null=drop_null, stats=stats, progress=sys.stderr.isatty())
    elif engine == "spark":
        log(f"counting (true, predicted) pairs in {truth} with Spark (local)...", progress=True)
        table = _spark(truth, true_col, pred_col, sep, drop_null, stats)
    else:
        raise ValueError(f"unknown engine {engine!r}; choose from {', '.join(ENGINES)}")
    if engine != "memory":
        log(f"counted {table.n_samples} rows into {table.nnz} cells in "
            f"{time.perf_counter() - start:.1f} s", progress=True)
    if stats.get("skipped"):
        log(f"skipped {stats['skipped']} of {stats['rows']} rows with a missing label")
    return table


def _memory(truth, pred, true_col, pred_col, sep, header, drop_null, stats) -> Contingency:
    from .._io import read_labels

    if pred is None and (is_parquet(str(truth)) or _is_glob(str(truth))):
        raise ValueError(f"--engine memory reads text tables; use --engine duckdb for {truth}")
    t, p = read_labels(truth, pred, true_col=true_col, pred_col=pred_col, sep=sep,
                       header=header, drop_null=drop_null, stats=stats)
    return Contingency.from_labels(t, p)


def _spark(path, true_col, pred_col, sep, drop_null, stats) -> Contingency:
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        raise ImportError("--engine spark needs the spark extra: pip install "
                          "'clustermetrics[spark]'") from None
    from .spark import from_spark

    files = glob.glob(str(path))
    if not files:
        raise ValueError(f"{path}: no such file")
    spark = (SparkSession.builder.master("local[2]").appName("clustermetrics")
             .config("spark.ui.enabled", "false")
             .config("spark.sql.shuffle.partitions", "8").getOrCreate())
    try:
        if is_parquet(str(path)):
            frame = spark.read.parquet(*files)
        else:
            delimiter = sep or ("\t" if Path(str(path)).suffix.lower() in (".tsv", ".tab")
                                else ",")
            # every column as text, like the other engines read CSV
            frame = spark.read.option("header", True).option("sep", delimiter).csv(files)
        return from_spark(frame, true_col, pred_col, drop_null=drop_null, stats=stats)
    finally:
        spark.stop()
