"""Tables from files bigger than memory: the pair count runs as a GROUP BY inside DuckDB.

DuckDB scans Parquet, CSV/TSV (also gzip) and globs of them out of core, spilling to disk
within ``memory_limit``; only the non-zero cells of the table come back to Python.
"""

from __future__ import annotations

import glob
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from .._io import is_parquet
from .._text import quoted_list
from ..contingency import Contingency
from ._common import check_nulls, table_from_groups
from ._common import source_name as _name

__all__ = ["from_duckdb"]

# DuckDB column types that are not labels (nested values, raw bytes, floating noise is fine)
_NOT_LABELS = ("BLOB", "LIST", "STRUCT", "MAP", "UNION", "ARRAY", "[]", "JSON")
# label columns of these types are fetched as numbers and numbered in numpy
_INTEGER_TYPES = ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "UTINYINT", "USMALLINT",
                  "UINTEGER", "UBIGINT")


def _duckdb():
    try:
        import duckdb
    except ImportError:
        raise ImportError("reading files with DuckDB needs the duckdb extra: "
                          "pip install 'clustermetrics[duckdb]'") from None
    return duckdb


def from_duckdb(source: Any, true_col: str, pred_col: str, *, memory_limit: str | None = None,
                drop_null: bool = False, temp_directory: str | None = None,
                stats: dict | None = None, progress: bool = False) -> Contingency:
    """The table of two columns of a Parquet/CSV/TSV file, a glob of files, or a relation.

    Parameters
    ----------
    source : path or glob (``data/*.parquet``; ``.csv``, ``.tsv``, ``.txt`` and their
        ``.gz`` forms are read as CSV with a header row, tab-separated for ``.tsv``, every
        value as its exact text), or a ``duckdb.DuckDBPyRelation``.
    true_col, pred_col : column names.
    memory_limit : DuckDB memory limit such as ``"4GB"``; beyond it the GROUP BY spills to
        ``temp_directory`` (default: a fresh temporary directory).
    drop_null : rows with a NULL in either column are an error (naming the column and the
        count) unless this is True; then they are skipped.
    stats : optional dict, filled with ``rows`` (rows scanned) and ``skipped`` (NULL rows
        dropped).
    progress : show DuckDB's progress bar while it scans (on stderr).

    Integer labels come back as numbers and the grouped cells are sorted in numpy (packed
    int64 keys); for text labels of files DuckDB numbers the distinct labels in sorted order
    first, so no Python string is hashed.

    Label types survive exactly: BIGINT stays int64 (2**53 + 1 is kept), VARCHAR stays str.
    """
    duckdb = _duckdb()
    with tempfile.TemporaryDirectory(prefix="clustermetrics-") as spill:
        con = duckdb.connect()
        try:
            con.execute(f"SET enable_progress_bar = {'true' if progress else 'false'}")
            return _scan(duckdb, con, source, true_col, pred_col, memory_limit, drop_null,
                         temp_directory or spill, stats)
        finally:
            con.close()


def _scan(duckdb, con, source, true_col, pred_col, memory_limit, drop_null, spill, stats):
    try:
        if memory_limit is not None:
            con.execute(f"SET memory_limit = '{_safe(memory_limit, 'memory_limit')}'")
        con.execute(f"SET temp_directory = '{_safe(spill)}'")
        relation = _relation(con, source)
        _check_columns(relation, source, true_col, pred_col)
        grouped = relation.query(
            "src", f'SELECT {_ident(true_col)} AS t, {_ident(pred_col)} AS p, count(*) AS n '
                   "FROM src GROUP BY ALL")
        if isinstance(source, (str, Path)) and not _integer_columns(relation, true_col,
                                                                    pred_col):
            # text labels: our own connection numbers them in DuckDB (hashing millions of
            # Python strings would cost more than the GROUP BY)
            grouped.create("g")
            return _canonical_table(con, _name(source), true_col, pred_col, drop_null, stats)
        # integer labels (and relations): fetch the grouped cells as they come, numpy
        # numbers the labels and sorts the cells as packed int64 keys (DuckDB's ORDER BY
        # on the cells cost ~5 s of 2e8 rows' 22 s)
        t, p, n = _fetch(grouped)
    except duckdb.Error as exc:
        raise ValueError(f"{_name(source)}: {str(exc).splitlines()[0]}") from None
    return table_from_groups(t, p, n, _name(source), true_col, pred_col, drop_null, stats)


def _canonical_table(con, name, true_col, pred_col, drop_null, stats) -> Contingency:
    """Table from the grouped cells in table g: codes and ordering done by DuckDB."""
    t_null, p_null, skipped, rows = con.execute(
        "SELECT coalesce(sum(n) FILTER (WHERE t IS NULL), 0), "
        "coalesce(sum(n) FILTER (WHERE p IS NULL), 0), "
        "coalesce(sum(n) FILTER (WHERE t IS NULL OR p IS NULL), 0), coalesce(sum(n), 0) "
        "FROM g").fetchone()
    check_nulls(name, true_col, pred_col, int(t_null), int(p_null), int(skipped), int(rows),
                drop_null, stats)
    for side in ("t", "p"):
        con.execute(f"CREATE TEMP TABLE {side}l AS SELECT {side} AS v, "
                    f"row_number() OVER (ORDER BY {side}) - 1 AS i FROM (SELECT DISTINCT "
                    f"{side} FROM g WHERE t IS NOT NULL AND p IS NOT NULL)")
    t_labels = con.execute("SELECT v FROM tl ORDER BY i").fetchnumpy()["v"]
    p_labels = con.execute("SELECT v FROM pl ORDER BY i").fetchnumpy()["v"]
    cells = con.execute("SELECT tl.i AS r, pl.i AS c, g.n FROM g JOIN tl ON g.t = tl.v "
                        "JOIN pl ON g.p = pl.v").fetchnumpy()
    rows_, cols, counts = (np.asarray(cells[k], dtype=np.int64) for k in ("r", "c", "n"))
    t_labels, p_labels = np.ma.getdata(t_labels), np.ma.getdata(p_labels)
    if _strictly_increasing(t_labels) and _strictly_increasing(p_labels):
        # the codes are every label's rank: sort the cells by them, then name the labels
        coded = Contingency._from_group_counts(rows_, cols, counts)
        return Contingency(coded.rows, coded.cols, coded.counts, t_labels[coded.class_labels],
                           p_labels[coded.cluster_labels], coded.class_sizes,
                           coded.cluster_sizes)
    # DuckDB ordered the labels differently from Python (a collation): sort them here
    return Contingency.from_counts(t_labels[rows_], p_labels[cols], counts)


def _integer_columns(relation, true_col: str, pred_col: str) -> bool:
    types = dict(zip(relation.columns, map(str, relation.types), strict=True))
    return all(types[c].upper() in _INTEGER_TYPES for c in (true_col, pred_col))


def _strictly_increasing(values: np.ndarray) -> bool:
    if values.dtype.kind in "iufbUSmM":
        return bool(np.all(values[1:] > values[:-1]))
    items = values.tolist()
    try:
        return all(a < b for a, b in zip(items, items[1:], strict=False))
    except TypeError:
        return False


def _relation(con, source):
    if not isinstance(source, (str, Path)):
        if hasattr(source, "query") and hasattr(source, "columns"):
            return source
        raise ValueError(f"source must be a file path, a glob or a DuckDB relation, got "
                         f"{type(source).__name__}")
    path = str(source)
    if not glob.glob(path):
        raise ValueError(f"{path}: no such file")
    if Path(path).is_dir():
        raise ValueError(f"{path} is a directory; use a glob such as {path}/*.parquet")
    lower = path.lower().removesuffix(".gz")
    if is_parquet(lower):
        return con.read_parquet(path)
    sep = "\t" if lower.endswith((".tsv", ".tab")) else ","
    # every column as text: labels stay the exact strings of the file ("01" is not "1"),
    # as on the in-memory path
    return con.read_csv(path, header=True, sep=sep, all_varchar=True)


def _check_columns(relation, source, true_col, pred_col):
    columns = dict(zip(relation.columns, map(str, relation.types), strict=True))
    for option, col in (("true_col", true_col), ("pred_col", pred_col)):
        if col not in columns:
            raise ValueError(f"{_name(source)} has no column {col!r} ({option}); columns are: "
                             f"{quoted_list(columns)}")
        if any(bad in columns[col].upper() for bad in _NOT_LABELS):
            raise ValueError(f"{_name(source)}: column {col!r} has type {columns[col]}, which "
                             "cannot hold labels")


def _fetch(grouped):
    data = grouped.fetchnumpy()
    return data["t"], data["p"], data["n"]


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _safe(value: str, what: str = "temp_directory") -> str:
    if "'" in value:
        raise ValueError(f"{what} must not contain a quote: {value!r}")
    return value
