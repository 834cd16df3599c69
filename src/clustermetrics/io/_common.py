"""What every engine-backed source shares: how messages spell the parameters, the links
an engine reads files through, the checked layout of text files, the NULL policy and the
table of grouped counts."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from ..table import Contingency
from .delimited import Layout, is_blank, resolve_sep, scan
from .weights import WeightCells

__all__ = ["PARAMETERS", "TextPart", "check_nulls", "labels", "source_name", "stage",
           "table_from_groups", "text_parts"]

# how errors spell the parameters; the command line passes its flags instead
PARAMETERS = {"true_col": "true_col", "pred_col": "pred_col", "sep": "sep",
              "drop_null": "drop_null", "weight_col": "weight_col",
              "memory_limit": "memory_limit"}


def source_name(source: Any) -> str:
    return str(source) if isinstance(source, (str, Path)) else type(source).__name__


class TextPart:
    """One text file of a source: its checked layout and where the two columns are."""

    __slots__ = ("layout", "t", "p", "w")

    def __init__(self, layout: Layout, t: int, p: int, w: int | None = None):
        self.layout, self.t, self.p, self.w = layout, t, p, w


def text_parts(files: list[str], sep: str | None, true_col: str, pred_col: str,
               drop_null: bool, names: Mapping[str, str] | None = None,
               weight_col: str | None = None) -> list[TextPart]:
    """Check every text file against the rules (see ``_delimited``) before an engine reads
    it, and find the two columns in each by name; errors name the file (the part)."""
    spell = {**PARAMETERS, **(names or {})}
    parts = []
    for path in files:
        layout = scan(path, resolve_sep(path, sep, spell["sep"]))
        part = TextPart(layout, layout.column(true_col, spell["true_col"]),
                        layout.column(pred_col, spell["pred_col"]),
                        None if weight_col is None else
                        layout.column(weight_col, spell["weight_col"]))
        layout.check_blank(drop_null)
        parts.append(part)
    return parts


def stage(files: list[str], folder: str,
          link_name: Callable[[str], str]) -> dict[str, str]:
    """{name an engine can read literally: original path}: engines read every path as a
    glob (``run[1].csv``), and Spark also skips names starting with ``_`` or ``.``, so each
    file is linked from ``folder`` under a plain name that keeps what its suffix says
    (``link_name``: its format's, see ``FileFormat.link_name``)."""
    staged = {}
    for i, path in enumerate(files):
        if not os.path.isfile(path):  # a pipe or a device: the check would consume it
            raise ValueError(f"{path} is not a regular file (a pipe or a device?); DuckDB "
                             "and Spark read a file after it is checked, so read it with "
                             "engine 'memory'")
        link = os.path.join(folder, f"part-{i:06d}{link_name(path)}")
        try:
            os.symlink(os.path.abspath(path), link)
        except OSError:  # no symbolic links here: the path itself, read as it is
            link = os.path.abspath(path)
        staged[link] = path
    return staged


def table_from_groups(t: np.ndarray, p: np.ndarray, n: np.ndarray, name: str, true_col: str,
                      pred_col: str, drop_null: bool, stats: dict | None, *,
                      text: bool = False, blank_rows: int = 0,
                      expected_rows: int | None = None,
                      weights: WeightCells | None = None) -> Contingency:
    """Table from GROUP BY (t, p) rows with counts n; t and p may be masked (NULL) arrays.

    Missing labels are NULLs and NaNs (and, for ``text`` files, empty or whitespace-only
    strings); ``blank_rows`` more rows were blank lines that the engine skipped. Missing
    labels are an error naming the column and how many rows hold one, unless ``drop_null``;
    then those rows are skipped and counted in ``stats["skipped"]``. Infinite labels are an
    error. ``expected_rows``: how many rows the file holds; an engine that read another
    number misread it, which is an error rather than a different table. ``weights``:
    the groups' weight sums (:mod:`.weights`), which then weigh the cells; rows dropped
    for a missing label are dropped with their weights.
    """
    n = np.asarray(n, dtype=np.int64)
    t, t_missing = labels(t, name, true_col, text)
    p, p_missing = labels(p, name, pred_col, text)
    rows = int(n.sum()) + blank_rows
    if expected_rows is not None and rows != expected_rows:
        raise ValueError(f"{name}: the engine read {rows} rows but the file holds "
                         f"{expected_rows}; read it with engine 'memory'")
    bad = t_missing | p_missing
    check_nulls(name, true_col, pred_col, int(n[t_missing].sum()) + blank_rows,
                int(n[p_missing].sum()) + blank_rows, int(n[bad].sum()) + blank_rows, rows,
                drop_null, stats)
    keep = ~bad
    n_all = n
    if bad.any():
        t, p, n = t[keep], p[keep], n[keep]
    if weights is not None:  # each cell the exact sum of its groups' weights
        return Contingency.from_weighted_labels(t, p, weights.weights(n_all, keep, name),
                                                weights.subject(name))
    # the engine's arrays are ours alone: they become the sort's work space
    return Contingency.from_group_counts(t, p, n, overwrite=True)


def labels(values: np.ndarray, name: str, col: str, text: bool):
    """(plain label array, missing mask) of an engine's column: integers widened (numpy
    arithmetic on int8 codes would wrap), NaN missing, infinity refused."""
    missing = np.ma.getmaskarray(values)
    data = np.ma.getdata(values)
    kind = data.dtype.kind
    if kind == "f":
        missing = missing | np.isnan(data)
        if np.isinf(data[~missing]).any():
            raise ValueError(f"{name}: column {col!r} holds an infinite label; labels must be "
                             "finite (scikit-learn refuses them too)")
    elif kind == "i":
        data = data.astype(np.int64, copy=False)
    elif kind == "u":
        data = data.astype(np.uint64, copy=False)
    elif text and kind in "OU":
        blank = np.fromiter((isinstance(v, str) and is_blank(v) for v in data.tolist()),
                            dtype=bool, count=data.shape[0])
        missing = missing | blank
    return data, missing


def check_nulls(name: str, true_col: str, pred_col: str, t_null: int, p_null: int,
                skipped: int, rows: int, drop_null: bool, stats: dict | None) -> None:
    """The NULL policy: rows with a NULL label fail (naming the column and count) unless
    ``drop_null``; ``stats`` records rows scanned and rows skipped."""
    if rows == 0:
        raise ValueError(f"{name} has no rows")
    if skipped and not drop_null:
        col, count = (true_col, t_null) if t_null else (pred_col, p_null)
        raise ValueError(f"{name}: column {col!r} has {count} NULL labels ("
                         "drop_null=True skips those rows)")
    if stats is not None:
        stats.update(rows=rows, skipped=skipped)
    if skipped == rows:
        raise ValueError(f"{name}: every row has a NULL label")
