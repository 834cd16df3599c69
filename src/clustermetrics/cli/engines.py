"""Which engine counts a file's pairs, and running it: the CLI's bridge to the sources."""

from __future__ import annotations

import importlib.util
import os
import sys
import time
from collections.abc import Callable, Mapping
from typing import Any

from ..io.duckdb_engine import from_duckdb
from ..io.files import expand_paths, is_glob, is_parquet, read_labels, read_weighted_labels
from ..io.parquet import from_parquet
from ..io.spark_engine import from_spark_files
from ..io.weights import text_weights
from ..table import Contingency
from ..table.exact_sums import Subject
from ..table.validation import as_label_array

__all__ = ["ENGINES", "AUTO_DUCKDB_BYTES", "FLAGS", "choose_engine", "table_from_files",
           "weighted_table"]

ENGINES = ("memory", "duckdb", "spark")
AUTO_DUCKDB_BYTES = 256 << 20  # text tables above this go to DuckDB when it is installed
# the command line's spelling of the parameters that messages name
FLAGS = {"true_col": "--true-col", "pred_col": "--pred-col", "sep": "--sep",
         "drop_null": "--drop-null", "weight_col": "--weight-col",
         "memory_limit": "--memory-limit"}


def choose_engine(engine: str, truth: str, pred: str | None) -> str:
    """The engine for ``score``: the one asked for, or for ``auto`` the one that fits."""
    if engine != "auto":
        if engine not in ENGINES:
            raise ValueError(f"unknown engine {engine!r}; choose from auto, "
                             f"{', '.join(ENGINES)}")
        if engine != "memory" and pred is not None:
            raise ValueError(f"--engine {engine} reads one table: give FILE with --true-col "
                             "and --pred-col instead of TRUTH PRED")
        return engine
    if pred is not None:
        return "memory"
    path = str(truth)
    big = os.path.isfile(path) and os.path.getsize(path) > AUTO_DUCKDB_BYTES
    if is_parquet(path) or is_glob(path) or big:
        if not _installed("duckdb"):
            # the in-memory readers read it the same way: text always, Parquet with pyarrow
            if not is_parquet(path) or _installed("pyarrow"):
                return "memory"
            raise ValueError(f"reading {path} needs DuckDB or pyarrow: pip install "
                             "'clustermetrics[duckdb]' (or 'clustermetrics[parquet]')")
        return "duckdb"
    return "memory"


def _installed(module: str) -> bool:
    if module in sys.modules:  # None there: its import is blocked
        return sys.modules[module] is not None
    return importlib.util.find_spec(module) is not None


def table_from_files(engine: str, truth: str, pred: str | None, *, true_col: str | None,
                     pred_col: str | None, sep: str | None = None, header: bool = False,
                     memory_limit: str | None = None, drop_null: bool = False,
                     log: Callable[..., None] = lambda *a, **k: None, spark: Any = None,
                     names: Mapping[str, str] = FLAGS,
                     weight_col: str | None = None) -> Contingency:
    """Count the pairs of the labels in the file(s) with ``engine``; report NULLs skipped.

    Every engine reads a file the same way (the user guide, "How files are read"). A missing
    extra is a ValueError naming it. ``spark``: a SparkSession to use instead of a fresh
    local one; ``names``: how messages spell the parameters (the command line's flags).
    ``weight_col``: a column of weights, each row counted that many times
    (:mod:`clustermetrics.io.weights`).
    """
    if engine != "memory" and not (true_col and pred_col):
        raise ValueError(f"--engine {engine} needs --true-col and --pred-col")
    if weight_col is not None and not (true_col and pred_col):
        raise ValueError(f"{names['weight_col']} reads a column of the table: give one file "
                         f"with {names['true_col']} and {names['pred_col']}")
    stats: dict = {}
    start = time.perf_counter()
    try:
        if engine == "memory":
            table = _memory(truth, pred, true_col, pred_col, sep, header, drop_null, stats,
                            names, weight_col)
        elif engine == "duckdb":
            log(f"counting (true, predicted) pairs in {truth} with DuckDB...", progress=True)
            table = from_duckdb(truth, true_col, pred_col, sep=sep, memory_limit=memory_limit,
                                drop_null=drop_null, stats=stats,
                                progress=sys.stderr.isatty(), names=names,
                                weight_col=weight_col)
        elif engine == "spark":
            log(f"counting (true, predicted) pairs in {truth} with Spark (local)...",
                progress=True)
            table = from_spark_files(truth, true_col, pred_col, sep=sep, drop_null=drop_null,
                                     stats=stats, spark=spark, names=names,
                                     weight_col=weight_col)
        else:
            raise ValueError(f"unknown engine {engine!r}; choose from {', '.join(ENGINES)}")
    except ImportError as exc:  # an extra that is not installed: its message names it
        raise ValueError(str(exc)) from None
    if engine != "memory":
        log(f"counted {table.n_samples} rows into {table.nnz} cells in "
            f"{time.perf_counter() - start:.1f} s", progress=True)
    if stats.get("skipped"):
        log(f"skipped {stats['skipped']} of {stats['rows']} rows with a missing label")
    return table


def _memory(truth, pred, true_col, pred_col, sep, header, drop_null, stats,
            names, weight_col=None) -> Contingency:
    if pred is None and is_parquet(expand_paths(truth)[0]):
        return from_parquet(truth, true_col, pred_col, drop_null=drop_null, stats=stats,
                            names=names, weight_col=weight_col)
    if weight_col is not None:
        t, p, w = read_weighted_labels(truth, true_col, pred_col, weight_col, sep=sep,
                                       drop_null=drop_null, stats=stats, names=names)
        return weighted_table(t, p, w, str(truth), weight_col, names["weight_col"])
    t, p = read_labels(truth, pred, true_col=true_col, pred_col=pred_col, sep=sep,
                       header=header, drop_null=drop_null, stats=stats, names=names)
    return Contingency.from_labels(t, p)


def weighted_table(t: Any, p: Any, w: Any, name: str, col: str, option: str) -> Contingency:
    """The table of labels read in memory with their weight column's text cells, by the
    rules every engine applies (:mod:`clustermetrics.io.weights`)."""
    return Contingency.from_weighted_labels(as_label_array(t, "labels_true"),
                                            as_label_array(p, "labels_pred"),
                                            text_weights(w, name, col, option),
                                            Subject.column(name, col, option))
