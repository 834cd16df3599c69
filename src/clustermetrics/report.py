"""``evaluate`` and the ``Report`` it returns: every requested score from one table."""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from .contingency import Contingency, as_contingency
from .registry import METRICS, resolve_metrics

__all__ = ["Report", "evaluate"]


def evaluate(labels_true: Any, labels_pred: Any = None,
             metrics: str | Iterable[str] | None = None) -> Report:
    """Compute many scores at once; the contingency table is built exactly once.

    Parameters
    ----------
    labels_true, labels_pred : label sequences of equal length, or a ``Contingency`` as
        ``labels_true`` (and ``labels_pred=None``).
    metrics : registry keys (see ``clustermetrics.METRICS``), function names, or a comma
        separated string; None computes every registered score.

    Examples
    --------
    >>> r = evaluate([0, 0, 1, 1], [0, 0, 1, 2], metrics=["ari", "nmi"])
    >>> round(r["ari"], 4), round(r["nmi"], 4)
    (0.5714, 0.8)
    """
    keys = resolve_metrics(metrics)
    table = as_contingency(labels_true, labels_pred)
    values, details, timings = {}, {}, {}
    for key in keys:
        start = time.perf_counter()
        values[key], detail = METRICS[key].compute(table)
        timings[key] = time.perf_counter() - start
        if detail is not None:
            details[key] = detail
    return Report(table, values, details, timings)


class Report(Mapping):
    """Read-only mapping metric key -> float, with the table summary and per-score details.

    ``details`` holds rich results such as the recovery-rate matching; ``timings`` the
    seconds each score took (after the shared table was built).
    """

    def __init__(self, table: Contingency, values: dict[str, float],
                 details: dict[str, Any], timings: dict[str, float]):
        self._values = dict(values)
        self.table = table
        self.details = dict(details)
        self.timings = dict(timings)

    def __getitem__(self, key: str) -> float:
        return self._values[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    @property
    def recovery(self) -> dict[str, Any]:
        """Recovery-rate results (rate, method, matching) by metric key."""
        return {k: v for k, v in self.details.items() if hasattr(v, "matching")}

    def to_dict(self, details: bool = False) -> dict[str, Any]:
        """Scores as a plain dict; with ``details=True`` also the table and matchings."""
        if not details:
            return dict(self._values)
        return {
            "n_samples": self.table.n_samples,
            "n_classes": self.table.n_classes,
            "n_clusters": self.table.n_clusters,
            "scores": dict(self._values),
            "details": {k: _jsonable(v) for k, v in self.details.items()},
        }

    def to_json(self, details: bool = False, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(details=details), indent=indent)

    def to_csv(self) -> str:
        lines = ["metric,value"] + [f"{k},{v!r}" for k, v in self._values.items()]
        return "\n".join(lines) + "\n"

    def __str__(self) -> str:
        t = self.table
        head = f"N = {t.n_samples}, {t.n_classes} classes, {t.n_clusters} clusters"
        width = max(len(METRICS[k].name) for k in self._values) if self._values else 0
        kw = max(len(k) for k in self._values) if self._values else 0
        rows = [f"  {k:<{kw}}  {METRICS[k].name:<{width}}  {v: .6f}"
                for k, v in self._values.items()]
        return "\n".join([head, *rows])

    def __repr__(self) -> str:
        return f"Report({self._values!r})"


def _jsonable(value: Any) -> Any:
    if hasattr(value, "_asdict"):
        value = value._asdict()
    elif hasattr(value, "__dataclass_fields__"):
        value = {f: getattr(value, f) for f in value.__dataclass_fields__}
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if hasattr(value, "item"):  # numpy scalar
        return value.item()
    return value
