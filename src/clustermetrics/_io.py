"""Reading label files for the CLI: one label per line, or two columns of a CSV/TSV table.

Labels are kept as the exact strings in the file ("01" and "1" are different labels).
Every problem is a ``ValueError`` naming the file and, where there is one, the line.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import numpy as np

from ._text import quoted_list

__all__ = ["is_parquet", "read_label_file", "read_label_columns", "read_labels", "read_table_rows"]


def read_labels(truth: str, pred: str | None = None, *, true_col: str | None = None,
                pred_col: str | None = None, sep: str | None = None, header: bool = False,
                drop_null: bool = False,
                stats: dict | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The two label arrays the ``score`` command compares.

    Either two files with one label per row (``truth``, ``pred``), or one table ``truth``
    with a header row and the columns ``true_col`` and ``pred_col``. A blank label is an
    error naming the file and line, unless ``drop_null``: then its row is skipped (in both
    files) and counted in ``stats``.
    """
    if pred is not None:
        if true_col or pred_col:
            raise ValueError("give either two label files, or one table with --true-col and "
                             "--pred-col, not both")
        t = read_label_file(truth, sep=sep, header=header, allow_blank=drop_null)
        p = read_label_file(pred, sep=sep, header=header, allow_blank=drop_null)
        if t.shape[0] != p.shape[0]:
            raise ValueError(f"{truth} has {t.shape[0]} labels but {pred} has {p.shape[0]}")
    else:
        if not (true_col and pred_col):
            raise ValueError("a single file needs --true-col and --pred-col (or give two "
                             "files: TRUTH PRED)")
        t, p = read_label_columns(truth, true_col, pred_col, sep=sep, allow_blank=drop_null)
    keep = (t != "") & (p != "")
    if stats is not None:
        stats.update(rows=int(t.shape[0]), skipped=int((~keep).sum()))
    if not keep.all():
        if not keep.any():
            raise ValueError(f"{truth}: every row has a missing label")
        t, p = t[keep], p[keep]
    return t, p


def is_parquet(path: str) -> bool:
    return str(path).lower().endswith((".parquet", ".pq"))


def _delimiter(path: str, sep: str | None) -> str:
    if sep is not None:
        return "\t" if sep in ("\\t", "tab") else sep
    return "\t" if Path(path).suffix.lower() in (".tsv", ".tab") else ","


def _rows(path: str, sep: str | None):
    """(line number, fields) of each non-blank row; trailing blank lines are allowed."""
    file = Path(path)
    if not file.exists():
        raise ValueError(f"{path}: no such file")
    if file.is_dir():
        raise ValueError(f"{path} is a directory, not a file")
    try:
        text = file.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise ValueError(f"{path} is not UTF-8 text (is it a binary file?)") from None
    if "\x00" in text:
        raise ValueError(f"{path} contains NUL bytes (is it a binary file?)")
    # newline="" lets csv see the real line ends: quoted fields may span lines, and only
    # \n / \r end a row (str.splitlines would also split labels at \x0c, \x85, \u2028...).
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=_delimiter(path, sep))
    rows = []
    try:
        # the physical line where each row starts, so messages point at the right line
        for fields in reader:
            start = reader.line_num - sum(f.count("\n") for f in fields)
            rows.append((start, fields))
    except csv.Error as exc:
        raise ValueError(f"{path} line {reader.line_num}: cannot parse as CSV: {exc}") from None
    while rows and len(rows[-1][1]) <= 1 and not "".join(rows[-1][1]).strip():
        rows.pop()  # trailing blank lines are allowed
    if not rows:
        raise ValueError(f"{path} is empty")
    yield from rows


def read_label_file(path: str, *, sep: str | None = None, header: bool = False,
                    allow_blank: bool = False) -> np.ndarray:
    """Labels of a file with one label per row (optionally under one header line).

    Blank labels are an error naming the line, or kept as "" with ``allow_blank``.
    """
    labels = []
    for number, fields in _rows(path, sep):
        if header and number == 1:
            continue
        if not fields and allow_blank:
            labels.append("")
            continue
        if len(fields) != 1:
            if not fields:
                raise ValueError(f"{path} line {number} is empty: every row needs a label "
                                 "(--drop-null skips such rows)")
            raise ValueError(f"{path} line {number} has {len(fields)} fields; expected one "
                             "label per row (for a table use --true-col/--pred-col)")
        if not fields[0].strip() and not allow_blank:
            raise ValueError(f"{path} line {number} is empty: every row needs a label "
                             "(--drop-null skips such rows)")
        labels.append(fields[0] if fields[0].strip() else "")
    if not labels:
        raise ValueError(f"{path} has a header but no labels")
    return np.array(labels, dtype=str)


def read_label_columns(path: str, true_col: str, pred_col: str, *, sep: str | None = None,
                       allow_blank: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Two columns of a CSV/TSV table with a header row (blank cells kept as "" with
    ``allow_blank``, else an error naming the line)."""
    head, rows = read_table_rows(path, sep)
    where = {name: i for i, name in reversed(list(enumerate(head)))}
    for option, col in (("--true-col", true_col), ("--pred-col", pred_col)):
        if col not in where:
            raise ValueError(f"{path} has no column {col!r} ({option}); columns are: "
                             f"{quoted_list(head)}")
    ti, pi = where[true_col], where[pred_col]
    t, p = [], []
    for number, fields in rows:
        for col, i in ((true_col, ti), (pred_col, pi)):
            if not fields[i].strip() and not allow_blank:
                raise ValueError(f"{path} line {number}: column {col!r} is empty (missing "
                                 "label; --drop-null skips such rows)")
        t.append(fields[ti] if fields[ti].strip() else "")
        p.append(fields[pi] if fields[pi].strip() else "")
    return np.array(t, dtype=str), np.array(p, dtype=str)


def read_table_rows(path: str, sep: str | None = None) -> tuple[list[str], list]:
    """(header, [(line number, fields), ...]) of a CSV/TSV table with a header row; a row
    whose number of fields differs from the header's, or no row at all, is an error."""
    rows = _rows(path, sep)
    _, head = next(rows)
    body = []
    for number, fields in rows:
        if len(fields) != len(head):
            raise ValueError(f"{path} line {number} has {len(fields)} fields but the header "
                             f"has {len(head)}")
        body.append((number, fields))
    if not body:
        raise ValueError(f"{path} has a header but no rows")
    return head, body
