"""Tables from files bigger than memory: the pair count runs as a GROUP BY inside DuckDB.

DuckDB scans Parquet, CSV/TSV (also gzip) and globs of them out of core, spilling to disk
within ``memory_limit``; only the non-zero cells of the table come back to Python.
"""

from __future__ import annotations

import glob
import tempfile
from pathlib import Path
from typing import Any

from ..contingency import Contingency
from ._common import source_name as _name
from ._common import table_from_groups

__all__ = ["from_duckdb"]

_PARQUET = (".parquet", ".pq")
# DuckDB column types that are not labels (nested values, raw bytes, floating noise is fine)
_NOT_LABELS = ("BLOB", "LIST", "STRUCT", "MAP", "UNION", "ARRAY", "[]", "JSON")


def _duckdb():
    try:
        import duckdb
    except ImportError:
        raise ImportError("reading files with DuckDB needs the duckdb extra: "
                          "pip install 'clustermetrics[duckdb]'") from None
    return duckdb


def from_duckdb(source: Any, true_col: str, pred_col: str, *, memory_limit: str | None = None,
                drop_null: bool = False, temp_directory: str | None = None,
                stats: dict | None = None) -> Contingency:
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

    Label types survive exactly: BIGINT stays int64 (2**53 + 1 is kept), VARCHAR stays str.
    """
    duckdb = _duckdb()
    with tempfile.TemporaryDirectory(prefix="clustermetrics-") as spill:
        con = duckdb.connect()
        try:
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
        t, p, n = _fetch(grouped)
    except duckdb.Error as exc:
        raise ValueError(f"{_name(source)}: {str(exc).splitlines()[0]}") from None
    return table_from_groups(t, p, n, _name(source), true_col, pred_col, drop_null, stats)


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
    if lower.endswith(_PARQUET):
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
                             f"{', '.join(columns)}")
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
