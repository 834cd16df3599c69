"""Which engine counts a file's (true, predicted) pairs, and :func:`read_table`, the one
entry point from a path to a :class:`~clustermetrics.Contingency`.

The engines are the readers below: in memory (``files`` for text, ``parquet`` for typed
columns), DuckDB (``duckdb_engine``) and Spark (``spark_engine``); each reads every
format of ``formats`` by the same rules (the format's reader calls the engine back), so
the engine changes the cost, never the table.
Errors name the parameters as ``names`` spells them (the command line passes its flags).
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Mapping, MutableMapping
from typing import Any

import numpy as np

from ..table import Contingency
from ..table.exact_sums import Subject
from ..table.validation import as_label_array
from ._common import PARAMETERS
from .duckdb_engine import from_duckdb
from .files import expand_paths, is_glob, read_labels, read_weighted_labels
from .formats import Columns, format_of
from .parquet import typed_table
from .spark_cluster import check_master
from .spark_engine import from_spark_files
from .weights import text_weights

__all__ = ["AUTO_DUCKDB_BYTES", "ENGINES", "choose_engine", "read_table", "table_with_engine",
           "weighted_table"]

ENGINES = ("memory", "duckdb", "spark")
AUTO_DUCKDB_BYTES = 256 << 20  # text tables above this go to DuckDB when it is installed
# the parameters only this module's messages name, as the library spells them
_PARAMETERS = {**PARAMETERS, "engine": "engine", "path": "path",
               "two_files": "path and pred_path", "master": "master", "spark": "spark"}


def _spelling(names: Mapping[str, str] | None) -> dict[str, str]:
    return {**_PARAMETERS, **(names or {})}


def _setting(spell: Mapping[str, str], parameter: str, value: str) -> str:
    """A parameter set to a value as its caller writes it: ``--engine duckdb`` on the
    command line, ``engine='duckdb'`` in Python."""
    name = spell[parameter]
    return f"{name} {value}" if name.startswith("-") else f"{name}={value!r}"


def choose_engine(engine: str, path: Any, pred_path: Any = None, *,
                  memory_limit: str | None = None, master: str | None = None,
                  names: Mapping[str, str] | None = None) -> str:
    """The engine that reads ``path``: the one asked for, or for ``auto`` the one that
    fits. ``auto`` gives two label files to memory, and a table to DuckDB when it is
    installed and the table is of a format read out of core (Parquet), a glob, or a file
    over :data:`AUTO_DUCKDB_BYTES`; else memory, when the in-memory reader of its format
    is installed. ``memory_limit`` is DuckDB's and ``master`` Spark's: ``auto`` then
    means that engine, and another engine is an error."""
    spell = _spelling(names)
    _check_paths(spell, path, pred_path)
    if memory_limit is not None and master is not None:
        raise ValueError(f"{spell['memory_limit']} is DuckDB's and {spell['master']} "
                         "Spark's: give one of them")
    if master is not None:
        check_master(master, spell["master"])
    # a memory limit is DuckDB's, a master Spark's: asking for one asks for its engine
    if engine == "auto" and memory_limit is not None and pred_path is None:
        engine = "duckdb"
    if engine == "auto" and master is not None:
        engine = "spark"
    chosen = _chosen(engine, path, pred_path, spell)
    _check_engine_options(spell, chosen, memory_limit=memory_limit, master=master)
    return chosen


def _check_engine_options(spell: Mapping[str, str], engine: str, **given: Any) -> None:
    """An option of one engine given with another is an error, not ignored."""
    for option, owner in (("memory_limit", "duckdb"), ("master", "spark")):
        if given.get(option) is not None and engine != owner:
            raise ValueError(f"{spell[option]} applies to {_setting(spell, 'engine', owner)}, "
                             f"not {engine}")


def _chosen(engine: str, path: Any, pred_path: Any, spell: Mapping[str, str]) -> str:
    if engine != "auto":
        if engine not in ENGINES:
            raise ValueError(f"unknown {spell['engine']} {engine!r}; choose from auto, "
                             f"{', '.join(ENGINES)}")
        if engine != "memory" and pred_path is not None:
            raise ValueError(f"{_setting(spell, 'engine', engine)} reads one table: give "
                             f"{spell['path']} with {spell['true_col']} and {spell['pred_col']} "
                             f"instead of {spell['two_files']}")
        return engine
    if pred_path is not None:
        return "memory"
    path = os.fspath(path)
    kind = format_of(path)
    big = os.path.isfile(path) and os.path.getsize(path) > AUTO_DUCKDB_BYTES
    if not (kind.out_of_core or is_glob(path) or big):
        return "memory"
    if _installed("duckdb"):
        return "duckdb"
    # the in-memory readers read every format as DuckDB does, given what they import
    if kind.in_memory is None or _installed(kind.in_memory[0]):
        return "memory"
    module, extra = kind.in_memory
    raise ValueError(f"reading {path} needs DuckDB or {module}: pip install "
                     f"'clustermetrics[duckdb]' (or 'clustermetrics[{extra}]')")


def _installed(module: str) -> bool:
    if module in sys.modules:  # None there: its import is blocked
        return sys.modules[module] is not None
    return importlib.util.find_spec(module) is not None


def table_with_engine(engine: str, path: Any, pred_path: Any = None, *,
                      true_col: str | None = None, pred_col: str | None = None,
                      weight_col: str | None = None, sep: str | None = None,
                      header: bool = False, drop_null: bool = False,
                      memory_limit: str | None = None, spark: Any = None,
                      master: str | None = None, progress: bool = False,
                      stats: dict | None = None,
                      names: Mapping[str, str] | None = None) -> Contingency:
    """The table of the labels in the file(s), counted by ``engine`` (one of
    :data:`ENGINES`); the parameters are :func:`read_table`'s, ``names`` how messages
    spell them."""
    spell = _spelling(names)
    if engine not in ENGINES:
        raise ValueError(f"unknown {spell['engine']} {engine!r}; choose from "
                         f"{', '.join(ENGINES)}")
    _check_options(spell, path=path, pred_path=pred_path, true_col=true_col,
                   pred_col=pred_col, weight_col=weight_col, header=header,
                   drop_null=drop_null, progress=progress, stats=stats)
    _check_engine_options(spell, engine, master=master)
    if engine != "memory" and not (true_col and pred_col):
        raise ValueError(f"{_setting(spell, 'engine', engine)} needs {spell['true_col']} and "
                         f"{spell['pred_col']}")
    if weight_col is not None and (pred_path is not None or not (true_col and pred_col)):
        raise ValueError(f"{spell['weight_col']} reads a column of the table: give one file "
                         f"with {spell['true_col']} and {spell['pred_col']}")
    if engine == "duckdb":
        return from_duckdb(path, true_col, pred_col, sep=sep, memory_limit=memory_limit,
                           drop_null=drop_null, stats=stats, progress=progress, names=spell,
                           weight_col=weight_col)
    if engine == "spark":
        return from_spark_files(path, true_col, pred_col, sep=sep, drop_null=drop_null,
                                stats=stats, spark=spark, names=spell, weight_col=weight_col,
                                master=master)
    return _in_memory(path, pred_path, true_col, pred_col, weight_col, sep, header,
                      drop_null, stats, spell)


def _check_paths(spell: Mapping[str, str], path: Any, pred_path: Any) -> None:
    """A ValueError naming ``path`` or ``pred_path`` where it is no file path or glob."""
    for name, value in (("path", path), ("pred_path", pred_path)):
        if value is None and name == "pred_path":
            continue
        if not isinstance(value, (str, os.PathLike)) or not isinstance(os.fspath(value), str):
            raise ValueError(f"{spell.get(name, name)} must be a file path or a glob, got "
                             f"{type(value).__name__}")
        if not os.fspath(value):
            raise ValueError(f"{spell.get(name, name)} is an empty path ('')")


def _check_options(spell: Mapping[str, str], **given: Any) -> None:
    """Every engine's options checked once, before any file is opened: a ValueError
    naming the parameter (each engine's reader also checks what it reads)."""
    _check_paths(spell, given["path"], given["pred_path"])
    for name in ("true_col", "pred_col", "weight_col"):  # before "needs true_col" is said
        value = given[name]
        if value is not None and not isinstance(value, str):
            raise ValueError(f"{spell[name]} must be a column name, got {value!r}")
    for name in ("header", "drop_null", "progress"):
        if not isinstance(given[name], (bool, np.bool_)):
            raise ValueError(f"{spell.get(name, name)} must be True or False, got "
                             f"{given[name]!r}")
    if given["stats"] is not None and not isinstance(given["stats"], MutableMapping):
        raise ValueError(f"stats must be a dict to fill with the counts, got "
                         f"{type(given['stats']).__name__}")


def _in_memory(path, pred_path, true_col, pred_col, weight_col, sep, header, drop_null,
               stats, spell) -> Contingency:
    memory = _Memory(path, pred_path, true_col, pred_col, weight_col, sep, header, drop_null,
                     stats, spell)
    if pred_path is not None:  # two label files: lines of text
        return memory.text()
    memory.files = expand_paths(path, spell["path"])
    kind = format_of(memory.files[0])
    kind.check_sep(sep, path, spell["sep"])
    return kind.reader.table(memory)


class _Memory:
    """One source read in this process (the arguments of :func:`table_with_engine`)."""

    def __init__(self, path, pred_path, true_col, pred_col, weight_col, sep, header,
                 drop_null, stats, spell):
        self.path, self.pred_path, self.sep, self.header = path, pred_path, sep, header
        self.true_col, self.pred_col, self.weight_col = true_col, pred_col, weight_col
        self.drop_null, self.stats, self.spell = drop_null, stats, spell
        self.files: list[str] = []

    def text(self) -> Contingency:
        if self.weight_col is not None:
            t, p, w = read_weighted_labels(self.path, self.true_col, self.pred_col,
                                           self.weight_col, sep=self.sep,
                                           drop_null=self.drop_null, stats=self.stats,
                                           names=self.spell)
            return weighted_table(t, p, w, str(self.path), self.weight_col,
                                  self.spell["weight_col"])
        t, p = read_labels(self.path, self.pred_path, true_col=self.true_col,
                           pred_col=self.pred_col, sep=self.sep, header=self.header,
                           drop_null=self.drop_null, stats=self.stats, names=self.spell)
        return Contingency.from_labels(t, p)

    def columns(self, reader: Columns) -> Contingency:
        name = str(self.path)
        checked = reader.check(self.files, self.true_col, self.pred_col, self.weight_col,
                               name, self.spell)
        return typed_table(self.files, checked, reader.batches, self.true_col, self.pred_col,
                           name, drop_null=self.drop_null, stats=self.stats, names=self.spell,
                           weight_col=self.weight_col)


def weighted_table(t: Any, p: Any, w: Any, name: str, col: str, option: str) -> Contingency:
    """The table of labels read in memory with their weight column's text cells, by the
    rules every engine applies (:mod:`clustermetrics.io.weights`)."""
    return Contingency.from_weighted_labels(as_label_array(t, "labels_true"),
                                            as_label_array(p, "labels_pred"),
                                            text_weights(w, name, col, option),
                                            Subject.column(name, col, option))


def read_table(path: str | os.PathLike, pred_path: str | os.PathLike | None = None, *,
               true_col: str | None = None, pred_col: str | None = None,
               weight_col: str | None = None, engine: str = "auto", sep: str | None = None,
               header: bool = False, drop_null: bool = False,
               memory_limit: str | None = None, spark: Any = None,
               master: str | None = None, progress: bool = False,
               stats: dict | None = None) -> Contingency:
    """The contingency table of the labels in a file: two columns of a table, or two files
    of one label per line.

    Every engine reads a file by the same rules (the user guide's "How files are read"),
    so the engine changes the cost, never the table. The file's name says its format
    (the guide's table of formats); a file no format recognises is delimited text
    (decompressed first when its name ends in ``.gz``).

    Parameters
    ----------
    path : str or path-like
        A table with a header row, read with ``true_col`` and ``pred_col``: a file, or a
        glob (``parts/*.parquet``) whose parts combine by column name (a path that exists
        is read as itself, even ``run[1].csv``). With ``pred_path``: a text file of true
        labels, one per line.
    pred_path : str or path-like, optional
        A text file of predicted labels, one per line, for the items of ``path``.
    true_col, pred_col : str, optional
        The columns of true and predicted labels of the table ``path`` (both, or neither
        with ``pred_path``).
    weight_col : str, optional
        A column of row weights: each cell weighs the exact sum of its rows' weights
        (integer sums are counts; others make a table of real masses).
    engine : {'auto', 'memory', 'duckdb', 'spark'}, default='auto'
        Who counts the pairs: ``memory`` (in this process), ``duckdb`` (out of core,
        extra ``duckdb``), ``spark`` (Spark, local or a cluster, extra ``spark``).
        ``auto`` chooses DuckDB, when installed, for Parquet, globs and text over 256 MB,
        else memory; Spark when ``master`` is given.
    sep : str, optional
        Field separator of delimited text: one character, ``\\t`` or ``tab`` for a tab
        (default: a tab for ``.tsv``/``.tab`` files, else a comma). An error for Parquet.
    header : bool, default=False
        The label files of the two-file form start with a header line.
    drop_null : bool, default=False
        Skip rows with a missing label (NULL, NaN, an empty or blank text field) instead
        of raising; ``stats`` says how many.
    memory_limit : str, optional
        DuckDB's memory limit, such as ``"4GB"`` (``engine="duckdb"`` only).
    spark : pyspark.sql.SparkSession, optional
        The session of ``engine="spark"`` (default: the active one, else one started on
        ``master`` and stopped after the read). A session given here wins over
        ``master``, which is then checked but not used.
    master : str, optional
        The Spark master URL of the session started for ``engine="spark"`` (default
        local mode, ``local[2]``): ``local[N]``, ``spark://HOST:PORT`` (a standalone
        cluster), ``yarn`` or ``k8s://HOST:PORT``. It asks for Spark (another engine is
        an error). A cluster must accept a connection within
        :data:`~clustermetrics.io.spark_cluster.CONNECT_TIMEOUT_S` seconds, and every executor
        must see the file(s) at the same absolute path (a shared filesystem); an active
        session on another master is an error.
    progress : bool, default=False
        Show DuckDB's progress bar on stderr while it scans.
    stats : dict, optional
        Filled with ``rows`` (rows read) and ``skipped`` (rows dropped by ``drop_null``).

    Returns
    -------
    Contingency
        The table of true classes (rows) by predicted clusters (columns).

    Raises
    ------
    ValueError
        Naming the parameter: an unknown ``engine``, a missing file or column, a file that
        breaks the reading rules (naming the line), a missing label without
        ``drop_null``, an option that does not apply (``sep`` with Parquet,
        ``memory_limit`` with another engine than DuckDB, ``master`` with another than
        Spark), a malformed or unreachable ``master``.
    ImportError
        When the engine (or pyarrow, for Parquet) is not installed, naming the extra.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> import clustermetrics as cm
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "runs.csv"
    >>> _ = path.write_text("species,kmeans\\ncat,0\\ncat,0\\ndog,1\\ndog,0\\n")
    >>> table = cm.read_table(path, true_col="species", pred_col="kmeans")
    >>> table.to_dense().tolist()
    [[2, 0], [1, 1]]
    >>> cm.adjusted_rand_score(table)
    0.0
    """
    chosen = choose_engine(engine, path, pred_path, memory_limit=memory_limit, master=master)
    if header and pred_path is None:
        raise ValueError("header applies to the two-file form (path and pred_path); a "
                         "table read with true_col and pred_col always starts with its "
                         "header line")
    return table_with_engine(chosen, path, pred_path, true_col=true_col, pred_col=pred_col,
                             weight_col=weight_col, sep=sep, header=header,
                             drop_null=drop_null, memory_limit=memory_limit, spark=spark,
                             master=master, progress=progress, stats=stats)
