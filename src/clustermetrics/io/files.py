"""Reading label files in memory: one label per line, or two columns of a CSV/TSV table.

Every file is read by the one reading of ``_delimited`` (the rules are in the user guide, "How
files are read"), so this reader gives the same table as DuckDB and Spark. Labels are the
exact strings in the file ("01" and "1" differ); an empty or whitespace-only cell is a
missing label. Every problem is a ``ValueError`` naming the file and, where there is one,
the line.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Mapping

import numpy as np

from ._common import PARAMETERS
from .delimited import csv_rows, is_blank, read_bytes, resolve_sep, scan, start_line
from .formats import FORMATS, format_of, format_of_files

__all__ = ["PARAMETERS", "expand_paths", "is_glob", "read_label_columns", "read_label_file",
           "read_labels", "read_weighted_labels"]


def read_labels(truth: str, pred: str | None = None, *, true_col: str | None = None,
                pred_col: str | None = None, sep: str | None = None, header: bool = False,
                drop_null: bool = False, stats: dict | None = None,
                names: Mapping[str, str] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The two label arrays the ``score`` command compares.

    Either two files with one label per row (``truth``, ``pred``), or one table ``truth``
    (a file, or a glob whose parts are combined by column name) with a header row and the
    columns ``true_col`` and ``pred_col``. A missing label is an error naming the file and
    line, unless ``drop_null``: then its row is skipped (in both files) and counted in
    ``stats``. ``names`` respells the parameters in messages (e.g. as command-line flags).
    """
    spell = {**PARAMETERS, **(names or {})}
    for name, path in (("truth", truth), ("pred", pred)):
        if path == "":
            raise ValueError(f"{name} is an empty path ('')")
    if pred is not None:
        if true_col or pred_col:
            raise ValueError(f"give either two label files, or one table with "
                             f"{spell['true_col']} and {spell['pred_col']}, not both")
        t = read_label_file(truth, sep=sep, header=header, allow_blank=drop_null, names=spell)
        p = read_label_file(pred, sep=sep, header=header, allow_blank=drop_null, names=spell)
        if t.shape[0] != p.shape[0]:
            raise ValueError(f"{truth} has {t.shape[0]} labels but {pred} has {p.shape[0]}")
    else:
        if not (true_col and pred_col):
            raise ValueError(f"a single file needs {spell['true_col']} and {spell['pred_col']} "
                             "(or give two files: TRUTH PRED)")
        # every part is checked (rules, columns) before any is read, as the engines do
        parts = [_TablePart(path, true_col, pred_col, sep, drop_null, spell)
                 for path in expand_paths(truth)]
        columns = [part.columns() for part in parts]
        t = np.concatenate([c[0] for c in columns])
        p = np.concatenate([c[1] for c in columns])
    keep = (t != "") & (p != "")
    if stats is not None:
        stats.update(rows=int(t.shape[0]), skipped=int((~keep).sum()))
    if not keep.all():
        if not keep.any():
            raise ValueError(f"{truth}: every row has a missing label")
        t, p = t[keep], p[keep]
    return t, p


def read_weighted_labels(truth: str, true_col: str, pred_col: str, weight_col: str, *,
                         sep: str | None = None, drop_null: bool = False,
                         stats: dict | None = None, names: Mapping[str, str] | None = None,
                         ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The two label columns and the weight column (its cells as text, "" when empty) of
    a table (a file or a glob), as :func:`read_labels` reads one; rows dropped for a
    missing label (``drop_null``) are dropped with their weight."""
    spell = {**PARAMETERS, **(names or {})}
    if truth == "":
        raise ValueError("truth is an empty path ('')")
    parts = [_TablePart(path, true_col, pred_col, sep, drop_null, spell, weight_col)
             for path in expand_paths(truth)]
    columns = [part.columns() for part in parts]
    t, p = (np.concatenate([c[i] for c in columns]) for i in (0, 1))
    w = np.concatenate([part.weights for part in parts])
    keep = (t != "") & (p != "")
    if stats is not None:
        stats.update(rows=int(t.shape[0]), skipped=int((~keep).sum()))
    if not keep.all():
        if not keep.any():
            raise ValueError(f"{truth}: every row has a missing label")
        t, p, w = t[keep], p[keep], w[keep]
    return t, p, w


def is_glob(path: str) -> bool:
    """True when ``path`` is a pattern: it holds a wildcard and names no existing file (a
    path that exists is always read as itself, ``run[1].csv`` included)."""
    return any(ch in str(path) for ch in "*?[") and not os.path.exists(path)


def expand_paths(path: str, name: str = "path") -> list[str]:
    """The files ``path`` stands for: itself when it exists, else the sorted matches of the
    pattern (Python's ``glob``, ``**`` crossing folders); none is an error. ``name``: the
    parameter that gave the path, named when it is not a path at all."""
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"{name} must be a file path or a glob, got {type(path).__name__}")
    path = os.fspath(path)
    if not isinstance(path, str):
        path = os.fsdecode(path)
    if not path:
        raise ValueError(f"{name} is an empty path ('')")
    if os.path.isdir(path):
        examples = " or ".join(f"{path}/*{kind.link_suffix}" for kind in FORMATS)
        raise ValueError(f"{path} is a directory; use a glob such as {examples}")
    if os.path.exists(path):
        return [path]
    if not is_glob(path):
        raise ValueError(f"{path}: no such file")
    files = sorted(f for f in glob.glob(path, recursive=True) if os.path.isfile(f))
    if not files:
        raise ValueError(f"{path}: no such file (no file matches the pattern)")
    format_of_files(files, path)  # one format per source: each engine reads it as one
    return files


def read_label_file(path: str, *, sep: str | None = None, header: bool = False,
                    allow_blank: bool = False,
                    names: Mapping[str, str] | None = None) -> np.ndarray:
    """Labels of a file with one label per row (optionally under one header line).

    Missing labels are an error naming the line, or kept as "" with ``allow_blank``.
    """
    spell = {**PARAMETERS, **(names or {})}
    kind = format_of(path)
    if not kind.delimited:
        raise ValueError(f"{path} is {kind.name}: label files hold one label per line of "
                         f"text; read a {kind.name} table with {spell['true_col']} and "
                         f"{spell['pred_col']}")
    sep = resolve_sep(path, sep, spell["sep"])
    data = read_bytes(path)
    layout = scan(path, sep, header=header, one_label=True, data=data)
    reader = csv_rows(data, sep, layout.longest)
    if header:
        next(reader)
    labels = []
    for fields in reader:
        if len(labels) == layout.rows:
            break  # blank lines after the last row
        label = fields[0] if fields else ""
        if is_blank(label):
            if not allow_blank:
                raise ValueError(f"{path} line {start_line(reader, fields)} is empty: every "
                                 f"row needs a label ({spell['drop_null']} skips such rows)")
            label = ""
        labels.append(label)
    return _strings(labels)


def read_label_columns(path: str, true_col: str, pred_col: str, *, sep: str | None = None,
                       allow_blank: bool = False, names: Mapping[str, str] | None = None,
                       ) -> tuple[np.ndarray, np.ndarray]:
    """Two columns of a CSV/TSV table with a header row (missing labels kept as "" with
    ``allow_blank``, else an error naming the line)."""
    spell = {**PARAMETERS, **(names or {})}
    return _TablePart(path, true_col, pred_col, sep, allow_blank, spell).columns()


class _TablePart:
    """A table file checked against the rules, its two columns found by name."""

    def __init__(self, path, true_col, pred_col, sep, allow_blank, spell, weight_col=None):
        self.path, self.true_col, self.pred_col = path, true_col, pred_col
        self.allow_blank, self.spell = allow_blank, spell
        self.sep = resolve_sep(path, sep, spell["sep"])
        self.data = read_bytes(path)
        self.layout = scan(path, self.sep, data=self.data)
        self.ti = self.layout.column(true_col, spell["true_col"])
        self.pi = self.layout.column(pred_col, spell["pred_col"])
        self.wi = None if weight_col is None else \
            self.layout.column(weight_col, spell["weight_col"])
        self.weights = _strings([])
        self.layout.check_blank(allow_blank)

    def columns(self) -> tuple[np.ndarray, np.ndarray]:
        reader = csv_rows(self.data, self.sep, self.layout.longest)
        next(reader)
        t, p, w = [], [], []
        for fields in reader:
            if len(t) == self.layout.rows:
                break
            if not fields:  # a blank line: every label missing
                t.append("")
                p.append("")
                w.append("")
                continue
            if self.wi is not None:
                w.append(fields[self.wi])
            for col, i, out in ((self.true_col, self.ti, t), (self.pred_col, self.pi, p)):
                label = fields[i]
                if is_blank(label):
                    if not self.allow_blank:
                        raise ValueError(f"{self.path} line {start_line(reader, fields)}: "
                                         f"column {col!r} is empty (missing label; "
                                         f"{self.spell['drop_null']} skips such rows)")
                    label = ""
                out.append(label)
        self.weights = _strings(w)
        return _strings(t), _strings(p)


def _strings(labels: list[str]) -> np.ndarray:
    """Labels as an object array: a fixed-width 'U' array would pad every label to the
    longest (one label of 10^5 characters among 10^6 would take 400 GB)."""
    out = np.empty(len(labels), dtype=object)
    out[:] = labels
    return out
