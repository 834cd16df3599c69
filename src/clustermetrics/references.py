"""Scoring one clustering against several references: the best value and the spread.

Ground truths are often uncertain: several annotators, several plausible partitions of a
benchmark (clustering-benchmarks keeps the maximum over its references). ``evaluate`` with
a list (or dict) of references scores the prediction against each, and the
:class:`MultiReport` holds every per-reference report plus, per score, the best value (in
the score's own direction), which reference gave it, and the spread over references.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, NamedTuple

import numpy as np

from ._json import json_data
from ._text import plural, text_table, visible
from .bootstrap import Interval
from .registry import METRICS
from .report import (
    ScoreMapping,
    _csv,
    _diagnostics_rows,
    bootstrap_notes,
    check_top_option,
    evaluate_table,
    interval_header,
    interval_text,
    intervals_dict,
    noise_dict,
)
from .table import Contingency, as_contingency

__all__ = ["MultiReport", "Spread", "evaluate_references", "is_several"]


class Spread(NamedTuple):
    """A score's values over the references."""

    min: float
    max: float
    mean: float
    std: float


def is_several(labels_true: Any) -> bool:
    """True for several references: a dict, a data frame (pandas, polars or a pyarrow
    table: one reference per column), a 2-D array (one per row), or a list/tuple whose
    items are all label sequences (lists, tuples, arrays, Series) or tables -- so a list
    of equal-length tuples reads as the rows of a 2-D array. A single labeling is a flat
    sequence of scalars."""
    if isinstance(labels_true, Mapping) or _frame_columns(labels_true) is not None:
        return True
    if isinstance(labels_true, np.ndarray):
        return labels_true.ndim == 2
    if isinstance(labels_true, (list, tuple)) and labels_true:
        return all(isinstance(x, Contingency) or _is_sequence(x) for x in labels_true)
    return False


def _is_sequence(x: Any) -> bool:
    return hasattr(x, "__len__") and not isinstance(x, (str, bytes))


def _frame_columns(frame: Any) -> list[tuple[str, Any]] | None:
    """(column name, column) of a pandas or polars DataFrame or a pyarrow Table, or None
    for anything else (recognised by module, so none of them is imported here)."""
    module = type(frame).__module__.split(".")[0]
    if module == "pandas" and getattr(frame, "ndim", 0) == 2:
        return [(str(c), frame.iloc[:, i]) for i, c in enumerate(frame.columns)]
    if module == "polars" and hasattr(frame, "get_columns"):
        return [(s.name, s) for s in frame.get_columns()]
    if module == "pyarrow" and hasattr(frame, "column_names") and hasattr(frame, "column"):
        return [(str(n), frame.column(i)) for i, n in enumerate(frame.column_names)]
    return None


def evaluate_references(references: Any, labels_pred: Any, keys: list[str],
                        **options: Any) -> MultiReport:
    """Score ``labels_pred`` against each reference (see :func:`clustermetrics.evaluate`)."""
    named = _named(references)
    reports = {name: evaluate_table(_table(ref, labels_pred, name), keys, **options)
               for name, ref in named.items()}
    return MultiReport(reports)


def _named(references: Any) -> dict[str, Any]:
    columns = _frame_columns(references)
    if columns is not None:
        items = columns
    elif isinstance(references, Mapping):
        items = [(str(k), v) for k, v in references.items()]
    else:
        items = [(f"reference {i + 1}", v) for i, v in enumerate(references)]
    if not items:
        raise ValueError("labels_true holds no references")
    names = [name for name, _ in items]
    twice = [name for name in dict.fromkeys(names) if names.count(name) > 1]
    if twice:
        raise ValueError(f"labels_true: reference names must be distinct, {twice[0]!r} "
                         "names two references")
    return dict(items)


def _table(reference: Any, labels_pred: Any, name: str) -> Contingency:
    try:
        return as_contingency(reference, labels_pred)
    except ValueError as exc:
        raise ValueError(f"{name}: {exc}") from None


def _better(key: str, a: float, b: float) -> bool:
    """Is ``a`` strictly better than ``b`` for score ``key``?"""
    info = METRICS[key]
    if info.optimum is not None:
        return abs(a - info.optimum) < abs(b - info.optimum)
    return a > b if info.higher_is_better else a < b


class MultiReport(ScoreMapping):
    """Read-only mapping metric key -> best value over the references.

    ``reports`` maps each reference name to its :class:`~clustermetrics.Report`;
    ``best_reference[key]`` names the reference that gave the best value (the first on
    ties); ``spread[key]`` is the (min, max, mean, std) over references. With bootstrap
    intervals, ``intervals[key]`` is the interval of the best reference and
    ``intervals_by_reference[name][key]`` every reference's own.
    """

    def __init__(self, reports: dict[str, Any]):
        self.reports = dict(reports)
        first = next(iter(self.reports.values()))
        self.best_reference: dict[str, str] = {}
        self._values: dict[str, float] = {}
        self.spread: dict[str, Spread] = {}
        for key in first:
            values = [r[key] for r in self.reports.values()]
            best = next(iter(self.reports))
            for name, report in self.reports.items():
                if _better(key, report[key], self.reports[best][key]):
                    best = name
            self.best_reference[key] = best
            self._values[key] = self.reports[best][key]
            arr = np.asarray(values, dtype=np.float64)
            self.spread[key] = Spread(float(arr.min()), float(arr.max()),
                                      math.fsum(values) / len(values), float(arr.std()))

    @property
    def intervals(self) -> dict[str, Interval]:
        """Per score, the interval of its best reference ({} without intervals)."""
        return {k: self.reports[ref].intervals[k] for k, ref in self.best_reference.items()
                if k in self.reports[ref].intervals}

    @property
    def intervals_by_reference(self) -> dict[str, dict[str, Interval]]:
        """Reference name -> score -> that reference's interval."""
        return {name: dict(r.intervals) for name, r in self.reports.items()}

    @property
    def bootstrap(self) -> Any:
        """How the intervals were drawn (the same for every reference), or None."""
        return self._first().bootstrap

    @property
    def noise(self) -> Any:
        """What noise handling did, against the first reference (the predicted labels,
        so the noise points, are the same for all), or None."""
        return self._first().noise

    def _first(self) -> Any:
        return next(iter(self.reports.values()))

    def to_dict(self, details: bool = False, diagnostics: bool = False,
                top: int | str | None = None) -> dict[str, Any]:
        """``references`` (their names), the ``best`` values, ``best_reference``,
        ``spread`` (min, max, mean, std per score), the interval of each score's best
        reference (``intervals``, ``ci``, ``n_boot``, ``seed``, ``skipped``,
        ``unreliable``, when asked for), the noise handling (``noise``) and ``reports``:
        every reference's :meth:`Report.to_dict` with the same ``details``,
        ``diagnostics`` and ``top`` (which needs ``diagnostics``)."""
        top = check_top_option(top, diagnostics)
        out = {
            "references": list(self.reports),
            "best": dict(self._values),
            "best_reference": dict(self.best_reference),
            "spread": {k: s._asdict() for k, s in self.spread.items()},
        }
        out.update(intervals_dict(self.intervals, self.bootstrap))
        if self.noise is not None:
            out["noise"] = noise_dict(self.noise)
        out["reports"] = {name: r.to_dict(details, diagnostics, top)
                          for name, r in self.reports.items()}
        return json_data(out)

    def to_csv(self) -> str:
        """One row per score: ``metric,best,best_reference,min,max,mean,std``, then the
        best reference's interval and the noise handling as in :meth:`Report.to_csv`."""
        rows = [[k, repr(v), self.best_reference[k], repr(self.spread[k].min),
                 repr(self.spread[k].max), repr(self.spread[k].mean),
                 repr(self.spread[k].std)] for k, v in self._values.items()]
        return _csv(["metric", "best", "best_reference", "min", "max", "mean", "std"], rows,
                    self.intervals, self.bootstrap, self.noise, list(self._values))

    def format(self, diagnostics: int | str | None = 0) -> str:
        """The table of best values and spreads (with intervals: the best reference's);
        ``diagnostics`` as in :meth:`Report.format`, for every reference."""
        top = _diagnostics_rows(diagnostics)
        intervals = self.intervals
        head = [f"{plural(len(self.reports), 'reference')}: "
                + "; ".join(f"{visible(name)} ({r.summary()})"
                            for name, r in self.reports.items())]
        rows = [[k, METRICS[k].name, f"{v: .6f}", self.best_reference[k],
                 f"{self.spread[k].min: .6f}", f"{self.spread[k].max: .6f}",
                 f"{self.spread[k].mean: .6f}"]
                + ([interval_text(intervals[k])] if intervals else [])
                for k, v in self._values.items()]
        header = ["metric", "score", "best", "best reference", "min", "max", "mean"]
        if intervals:
            header.append(interval_header(self.bootstrap, " (best reference)"))
        head.append(text_table(header, rows, indent=2))
        head += bootstrap_notes(intervals, self.bootstrap)
        if top != 0:
            for name, report in self.reports.items():
                head += ["", f"against {visible(name)}:", report.diagnostics.format(top)]
        return "\n".join(head)

    def __str__(self) -> str:
        return self.format()

    def __repr__(self) -> str:
        return f"MultiReport({self._values!r})"
