"""What every engine-backed source shares: NULL policy and the table of grouped counts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ..contingency import Contingency

__all__ = ["check_nulls", "source_name", "table_from_groups"]


def source_name(source: Any) -> str:
    return str(source) if isinstance(source, (str, Path)) else type(source).__name__


def table_from_groups(t: np.ndarray, p: np.ndarray, n: np.ndarray, name: str, true_col: str,
                      pred_col: str, drop_null: bool, stats: dict | None) -> Contingency:
    """Table from GROUP BY (t, p) rows with counts n; t and p may be masked (NULL) arrays.

    NULL labels are an error naming the column and how many rows hold one, unless
    ``drop_null`` is set; then those rows are skipped and counted in ``stats["skipped"]``.
    """
    n = np.asarray(n, dtype=np.int64)
    rows = int(n.sum())
    if not (np.ma.is_masked(t) or np.ma.is_masked(p)):  # no NULLs: no copies of the cells
        check_nulls(name, true_col, pred_col, 0, 0, 0, rows, drop_null, stats)
        # the engine's arrays are ours alone: they become the sort's work space
        return Contingency._from_group_counts(np.ma.getdata(t), np.ma.getdata(p), n,
                                              overwrite=True)
    t_null, p_null = np.ma.getmaskarray(t), np.ma.getmaskarray(p)
    bad = t_null | p_null
    check_nulls(name, true_col, pred_col, int(n[t_null].sum()), int(n[p_null].sum()),
                int(n[bad].sum()), rows, drop_null, stats)
    keep = ~bad
    # engines hand back masked arrays; the kept cells are plain values
    return Contingency._from_group_counts(np.ma.getdata(t)[keep], np.ma.getdata(p)[keep],
                                          n[keep], overwrite=True)


def check_nulls(name: str, true_col: str, pred_col: str, t_null: int, p_null: int,
                skipped: int, rows: int, drop_null: bool, stats: dict | None) -> None:
    """The NULL policy: rows with a NULL label fail (naming the column and count) unless
    ``drop_null``; ``stats`` records rows scanned and rows skipped."""
    if rows == 0:
        raise ValueError(f"{name} has no rows")
    if skipped and not drop_null:
        col, count = (true_col, t_null) if t_null else (pred_col, p_null)
        raise ValueError(f"{name}: column {col!r} has {count} NULL labels (use "
                         "drop_null=True / --drop-null to skip those rows)")
    if stats is not None:
        stats.update(rows=rows, skipped=skipped)
    if skipped == rows:
        raise ValueError(f"{name}: every row has a NULL label")
