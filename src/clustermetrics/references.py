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

from ._text import text_table
from .contingency import Contingency, as_contingency
from .registry import METRICS
from .report import ScoreMapping, evaluate_table

__all__ = ["MultiReport", "Spread", "evaluate_references", "is_several"]


class Spread(NamedTuple):
    """A score's values over the references."""

    min: float
    max: float
    mean: float
    std: float


def is_several(labels_true: Any) -> bool:
    """True for a dict of references, a list/tuple of label sequences or tables, or a 2-D
    array (one reference per row). A single labeling is a flat sequence of scalars."""
    if isinstance(labels_true, Mapping):
        return True
    if isinstance(labels_true, np.ndarray):
        return labels_true.ndim == 2
    if isinstance(labels_true, (list, tuple)) and labels_true:
        return all(isinstance(x, Contingency) or _is_sequence(x) for x in labels_true)
    return False


def _is_sequence(x: Any) -> bool:
    return hasattr(x, "__len__") and not isinstance(x, (str, bytes, tuple))


def evaluate_references(references: Any, labels_pred: Any, keys: list[str],
                        **options: Any) -> MultiReport:
    """Score ``labels_pred`` against each reference (see :func:`clustermetrics.evaluate`)."""
    named = _named(references)
    reports = {name: evaluate_table(_table(ref, labels_pred, name), keys, **options)
               for name, ref in named.items()}
    return MultiReport(reports)


def _named(references: Any) -> dict[str, Any]:
    if isinstance(references, Mapping):
        items = [(str(k), v) for k, v in references.items()]
    else:
        items = [(f"reference {i + 1}", v) for i, v in enumerate(references)]
    if not items:
        raise ValueError("labels_true holds no references")
    names = [name for name, _ in items]
    if len(set(names)) != len(names):
        raise ValueError("reference names must be distinct")
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
    ties); ``spread[key]`` is the (min, max, mean, std) over references.
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

    def to_dict(self, details: bool = False, diagnostics: bool = False,
                top: int | None = None) -> dict[str, Any]:
        """Best values; with ``details`` (or ``diagnostics``) also the best reference, the
        spread and every per-reference report rendered the same way."""
        if not (details or diagnostics):
            return dict(self._values)
        return {
            "references": list(self.reports),
            "best": dict(self._values),
            "best_reference": dict(self.best_reference),
            "spread": {k: s._asdict() for k, s in self.spread.items()},
            "reports": {name: r.to_dict(True, diagnostics, top)
                        for name, r in self.reports.items()},
        }

    def to_csv(self) -> str:
        rows = ["metric,best,best_reference,min,max,mean,std"]
        for k, v in self._values.items():
            s = self.spread[k]
            ref = self.best_reference[k].replace('"', '""')
            rows.append(f'{k},{v!r},"{ref}",{s.min!r},{s.max!r},{s.mean!r},{s.std!r}')
        return "\n".join(rows) + "\n"

    def format(self, diagnostics: int | None = 0) -> str:
        head = [f"{len(self.reports)} references: "
                + "; ".join(f"{name} ({r.summary()})" for name, r in self.reports.items())]
        rows = [[k, METRICS[k].name, f"{v: .6f}", self.best_reference[k],
                 f"{self.spread[k].min: .6f}", f"{self.spread[k].max: .6f}",
                 f"{self.spread[k].mean: .6f}"] for k, v in self._values.items()]
        head.append(text_table(["metric", "score", "best", "best reference", "min", "max",
                                "mean"], rows, indent=2))
        if diagnostics != 0:
            for name, report in self.reports.items():
                head += ["", f"against {name}:", report.diagnostics.format(diagnostics)]
        return "\n".join(head)

    def __str__(self) -> str:
        return self.format()

    def __repr__(self) -> str:
        return f"MultiReport({self._values!r})"
