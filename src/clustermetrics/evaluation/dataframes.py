"""``evaluate_frame``: many runs stored as columns of one data frame, scored in one call.

A study of clustering algorithms, seeds or parameters often keeps one column per run next
to the truth. The truth column is checked and factorised once and reused for every
prediction column (and for every group with ``by=``); each run then costs one pass over
its own labels. The result is a tidy frame of the input's library (pandas or polars): one
row per run (and group), one column per score.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from ..render.text import find_column, named_twice, one_role
from ..scores.registry import resolve_metrics
from ..table import Contingency
from ..table.exact_sums import Subject
from ..table.factorize import factorize
from ..table.validation import as_label_array
from ..table.weight_values import Weights, read_weights
from .evaluate import _UNSET_N_BOOT, check_options, evaluate_table

__all__ = ["evaluate_frame"]


def evaluate_frame(frame: Any, truth: str, preds: str | Sequence[str] | None = None,
                   metrics: str | Iterable[str] | None = None, *,
                   by: str | Sequence[str] | None = None, noise_label: Any = None,
                   noise: str | None = None, ci: float | None = None,
                   n_boot: int | None = None, seed: Any = None,
                   weight: str | None = None) -> Any:
    """Score every prediction column of a data frame against its truth column.

    Parameters
    ----------
    frame : pandas.DataFrame or polars.DataFrame
        One row per item: the true labels and one column per run.
    truth : str
        The column of true labels; checked and factorised once for all runs.
    preds : str or list of str, optional
        The prediction columns (runs); all columns other than ``truth``, ``by`` and
        ``weight`` when None.
    metrics : as in :func:`clustermetrics.evaluate` (None: every registered score).
    by : str or list of str, optional
        Group columns: each run is scored within each group (one row per run and group).
        They are copied into the output under their names, so none may be named as a
        column the output makes (``pred``, a count, a score or its interval).
    noise_label, noise, ci, n_boot, seed : as in :func:`clustermetrics.evaluate`; every
        run gets the same bootstrap seed, so a row equals ``evaluate`` of its two columns.
    weight : str, optional
        A column of non-negative weights: each row counts that many times, as
        ``sample_weight`` of :func:`clustermetrics.evaluate` (rows of weight 0 are left
        out, and ``n_samples`` is the sum of the weights). Real weights give tables of
        real masses, with evaluate's rules: with ``metrics`` None the scores that need
        whole items are left out (one warning), named they are refused.

    Returns
    -------
    A data frame of the input's library: the ``by`` columns, ``pred`` (the run's column
    name), ``n_samples``, ``n_classes``, ``n_clusters`` (after noise handling), then one
    column per score, and with ``ci`` the columns ``<score>_ci_low`` and
    ``<score>_ci_high``; with a noise label, ``n_noise``.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"y": [0, 0, 1, 1], "a": [0, 0, 1, 1], "b": [0, 1, 0, 1]})
    >>> evaluate_frame(df, "y", ["a", "b"], ["ari", "recovery_rate"])
      pred  n_samples  n_classes  n_clusters  ari  recovery_rate
    0    a          4          2           2  1.0            1.0
    1    b          4          2           2 -0.5            0.5
    """
    kind = _library(frame)
    columns = [str(c) for c in frame.columns]  # a name is found once among them, or refused
    keys = resolve_metrics(metrics)
    check_options(noise_label=noise_label, noise=noise, ci=ci, n_boot=n_boot, seed=seed)
    by_cols = _names(by, "by", frame, columns, allow_empty=True)
    truth_col = _names(truth, "truth", frame, columns)[0] if isinstance(truth, str) else None
    if truth_col is None:
        raise ValueError(f"truth must be the name of one column, got {truth!r}")
    if preds is None:
        pred_cols = [c for c in columns if c != truth_col and c not in by_cols
                     and c != weight]
        if not pred_cols:
            raise ValueError("frame has no column besides truth and by to score (preds)")
        for name in dict.fromkeys(pred_cols):  # a repeated name: which run is it?
            find_column("frame", columns, name, "preds")
    else:
        pred_cols = _names(preds, "preds", frame, columns)
    one_role({"truth": [truth_col], "by": by_cols, "preds": pred_cols})
    _by_not_an_output(by_cols, keys, ci=ci, noise_label=noise_label)
    weights = None
    if weight is not None:
        weight_col = _names(weight, "weight", frame, columns)[0] if isinstance(weight, str) \
            else None
        if weight_col is None:
            raise ValueError(f"weight must be the name of one column, got {weight!r}")
        one_role({"truth": [truth_col], "by": by_cols, "preds": pred_cols,
                  "weight": [weight_col]})
        weights = _weights(_column(frame, columns, weight_col, "weight"), weight_col)

    truth_values = _column(frame, columns, truth_col, "truth")
    factorized = Contingency.factorized(truth_values, "truth")
    truth_labels = as_label_array(truth_values, "truth") if weights is not None else None
    groups = _groups([_column(frame, columns, c, "by") for c in by_cols], by_cols)
    if weights is not None:
        for values, rows in groups:
            if not weights.positive[slice(None) if rows is None else rows].any():
                where = "" if rows is None else \
                    f" in the group {dict(zip(by_cols, values, strict=True))}"
                raise ValueError(f"weight column {weight!r} is 0 for every row{where}: "
                                 "nothing to score")
    options = dict(noise_label=noise_label, noise=noise, ci=ci,
                   n_boot=_UNSET_N_BOOT if n_boot is None else n_boot, seed=seed)
    records: list[dict[str, Any]] = []
    for pred in pred_cols:
        labels = as_label_array(_column(frame, columns, pred, "preds"), pred)
        for values, rows in groups:
            if weights is not None:  # weighted: the rows of positive weight, counted
                assert truth_labels is not None
                take = slice(None) if rows is None else rows
                table = Contingency.from_weighted_labels(
                    truth_labels[take], labels[take], weights.take(take),
                    _subject(weight_col))
            else:
                table = Contingency.from_factorized(
                    factorized, labels if rows is None else labels[rows], rows=rows,
                    name=pred)
            report = evaluate_table(table, keys, every_score=metrics is None, **options)
            record = dict(zip(by_cols, values, strict=True))
            record.update(pred=pred, n_samples=report.table.n_samples,
                          n_classes=report.table.n_classes,
                          n_clusters=report.table.n_clusters)
            record.update(report)
            for key, iv in report.intervals.items():
                record[f"{key}_ci_low"], record[f"{key}_ci_high"] = iv.low, iv.high
            if report.noise is not None:
                record["n_noise"] = report.noise.n_noise
            records.append(record)
    return _frame(kind, records)


def _by_not_an_output(by_cols: list[str], keys: list[str], *, ci: float | None,
                      noise_label: Any) -> None:
    """A ``by`` column is copied into the output under its own name, so it must not share
    it with a column the output makes: the group value would overwrite a score or a
    count, or be overwritten by it."""
    made = ["pred", "n_samples", "n_classes", "n_clusters", *keys]
    if ci is not None:
        made += [f"{key}_ci_{end}" for key in keys for end in ("low", "high")]
    if noise_label is not None:
        made.append("n_noise")
    for name in by_cols:
        if name in made:
            raise ValueError(f"by names the column {name!r}, which is also a column of the "
                             "output (the run, a count or a score): rename it")


def _subject(name: str) -> Subject:
    return Subject(f"weight column {name!r} holds", f"weight column {name!r} adds up to",
                   f"weight column {name!r} is 0 for every row: nothing to score")


def _weights(column: Any, name: str) -> Weights:
    """The weight column's checked weights; problems name the column and the row."""
    return read_weights(column, f"weight column {name!r}", item="row")


def _library(frame: Any) -> str:
    module = type(frame).__module__.split(".")[0]
    if module == "pandas" and getattr(frame, "ndim", 0) == 2:
        return "pandas"
    if module == "polars" and hasattr(frame, "get_columns"):
        return "polars"
    raise TypeError(f"frame must be a pandas or polars DataFrame, got {type(frame).__name__}")


def _names(value: Any, option: str, frame: Any, columns: list[str], *,
           allow_empty: bool = False) -> list[str]:
    if value is None and allow_empty:
        return []
    names = [value] if isinstance(value, str) else value
    if not isinstance(names, (list, tuple)) or not all(isinstance(n, str) for n in names):
        raise ValueError(f"{option} must be a column name or a list of them, got {value!r}")
    if not names and not allow_empty:
        raise ValueError(f"{option} is empty: name at least one column")
    for name in names:
        find_column("frame", columns, name, option)
    named_twice(names, option)
    return list(names)


def _column(frame: Any, columns: list[str], name: str, option: str) -> Any:
    """The column named ``name``, found by position: a name must be there once (pandas
    allows repeated names, where ``frame[name]`` would be a frame of all of them)."""
    i = find_column("frame", columns, name, option)
    return frame.iloc[:, i] if hasattr(frame, "iloc") else frame.to_series(i)


def _groups(values: list[Any], by_cols: list[str]) -> list[tuple[tuple[Any, ...], Any]]:
    """(group values, row indices) of the ``by`` columns' ``values``, in sorted group
    order; one group of all rows (indices None) without ``by``."""
    if not by_cols:
        return [((), None)]
    codes, labels = [], []
    for col, column in zip(by_cols, values, strict=True):
        c, u = factorize(as_label_array(column, col))
        codes.append(c)
        labels.append(u.tolist())
    uniq, inverse = np.unique(np.stack(codes, axis=1), axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    order = np.argsort(inverse, kind="stable")
    starts = np.searchsorted(inverse[order], np.arange(uniq.shape[0]))
    ends = np.append(starts[1:], order.shape[0])
    return [(tuple(u[i] for u, i in zip(labels, row, strict=True)), order[a:b])
            for row, a, b in zip(uniq.tolist(), starts.tolist(), ends.tolist(), strict=True)]


def _frame(kind: str, records: list[dict[str, Any]]) -> Any:
    columns = list(dict.fromkeys(k for r in records for k in r))
    data = {c: [r.get(c) for r in records] for c in columns}
    if kind == "pandas":
        import pandas as pd

        return pd.DataFrame(data, columns=columns)
    import polars as pl

    return pl.DataFrame(data, strict=False)
