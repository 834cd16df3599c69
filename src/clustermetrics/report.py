"""``evaluate`` and the ``Report`` it returns: every requested score from one table."""

from __future__ import annotations

import functools
import json
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from ._progress import slow_step_note
from ._text import text_table
from .bootstrap import Interval, bootstrap_intervals, check_bootstrap_options
from .contingency import Contingency, as_contingency
from .diagnostics import Diagnostics, diagnose
from .noise import NoiseInfo, with_noise
from .registry import METRICS, resolve_metrics

__all__ = ["Report", "ScoreMapping", "evaluate", "evaluate_table"]


def evaluate(labels_true: Any, labels_pred: Any = None,
             metrics: str | Iterable[str] | None = None, *, noise_label: Any = None,
             noise: str = "singletons", ci: float | None = None, n_boot: int = 1000,
             seed: Any = None, progress: Callable[[int, int], None] | None = None) -> Any:
    """Compute many scores at once; the contingency table is built exactly once.

    Parameters
    ----------
    labels_true, labels_pred : label sequences of equal length, or a ``Contingency`` as
        ``labels_true`` (and ``labels_pred=None``). Several references: a list (or dict
        name -> labels) of true labelings, or of tables; then a
        :class:`~clustermetrics.references.MultiReport` is returned.
    metrics : registry keys (see ``clustermetrics.METRICS``), function names, or a comma
        separated string; None computes every registered score.
    noise_label : the predicted label that marks noise points (e.g. -1 for HDBSCAN), or
        None. See :mod:`clustermetrics.noise` for what each score family then sees.
    noise : {"singletons", "exclude"}, default="singletons"
        Noise points become clusters of one item each, or are left out of both labelings.
    ci : float in (0, 1) or None
        Also compute percentile bootstrap intervals at this level (``Report.intervals``);
        each replicate is a multinomial redraw of the table's cells, O(nnz) (see
        :mod:`clustermetrics.bootstrap`).
    n_boot : int, default=1000
        Number of bootstrap replicates.
    seed : seed for the bootstrap's random generator (reproducible intervals).
    progress : callable(done, total), called after each bootstrap replicate.

    Examples
    --------
    >>> r = evaluate([0, 0, 1, 1], [0, 0, 1, 2], metrics=["ari", "nmi"])
    >>> round(r["ari"], 4), round(r["nmi"], 4)
    (0.5714, 0.8)
    >>> r = evaluate([0, 0, 0, 1, 1, 1], [1, 1, -1, 2, 2, 2], "ari", noise_label=-1)
    >>> r.noise.n_noise, round(r["ari"], 4)
    (1, 0.7059)
    """
    keys = resolve_metrics(metrics)
    if ci is not None:
        check_bootstrap_options(ci, n_boot)
    options = dict(noise_label=noise_label, noise=noise, ci=ci, n_boot=n_boot, seed=seed,
                   progress=progress)
    from .references import evaluate_references, is_several

    if is_several(labels_true):
        return evaluate_references(labels_true, labels_pred, keys, **options)
    return evaluate_table(as_contingency(labels_true, labels_pred), keys, **options)


def evaluate_table(table: Contingency, keys: list[str], *, noise_label: Any = None,
                   noise: str = "singletons", ci: float | None = None, n_boot: int = 1000,
                   seed: Any = None, progress: Callable[[int, int], None] | None = None,
                   ) -> Report:
    """:func:`evaluate` of one table and resolved metric keys."""
    def prepare(t: Contingency) -> tuple[Contingency, NoiseInfo | None]:
        return with_noise(t, noise_label, noise) if noise_label is not None else (t, None)

    scored, noise_info = prepare(table)
    values, details, timings = _compute(scored, keys)
    intervals = {}
    if ci is not None:
        intervals = bootstrap_intervals(
            table, lambda rep: _compute(prepare(rep)[0], keys)[0], keys, level=ci,
            n_boot=n_boot, seed=seed, progress=progress)
    return Report(scored, values, details, timings, intervals=intervals, noise=noise_info)


def _compute(table: Contingency, keys: list[str]):
    values, details, timings = {}, {}, {}
    for key in keys:
        start = time.perf_counter()
        with slow_step_note(f"{key} ({METRICS[key].name})"):
            values[key], detail = METRICS[key].compute(table)
        timings[key] = time.perf_counter() - start
        if detail is not None:
            details[key] = detail
    return values, details, timings


class ScoreMapping(Mapping):
    """Read-only mapping metric key -> float; subclasses fill ``_values``."""

    _values: dict[str, float]

    def __getitem__(self, key: str) -> float:
        return self._values[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def to_dict(self, details: bool = False, diagnostics: bool = False,
                top: int | None = None) -> dict[str, Any]:
        raise NotImplementedError

    def to_json(self, details: bool = False, indent: int | None = 2, *,
                diagnostics: bool = False, top: int | None = None) -> str:
        """:meth:`to_dict` as JSON text."""
        return json.dumps(self.to_dict(details, diagnostics, top), indent=indent)


class Report(ScoreMapping):
    """Read-only mapping metric key -> float, with the table summary and per-score details.

    ``table`` is the table the scores were computed from (after noise handling);
    ``details`` holds rich results such as the recovery-rate matching; ``timings`` the
    seconds each score took (after the shared table was built); ``intervals`` the bootstrap
    intervals when ``evaluate(..., ci=...)`` asked for them; ``noise`` what noise handling
    did (or None); ``diagnostics`` the per-class and per-cluster breakdown.
    """

    def __init__(self, table: Contingency, values: dict[str, float],
                 details: dict[str, Any], timings: dict[str, float], *,
                 intervals: dict[str, Interval] | None = None,
                 noise: NoiseInfo | None = None):
        self._values = dict(values)
        self.table = table
        self.details = dict(details)
        self.timings = dict(timings)
        self.intervals = dict(intervals or {})
        self.noise = noise

    @property
    def recovery(self) -> dict[str, Any]:
        """Recovery-rate results (rate, method, matching) by metric key."""
        return {k: v for k, v in self.details.items() if hasattr(v, "matching")}

    @functools.cached_property
    def diagnostics(self) -> Diagnostics:
        """Per-class splits and per-cluster merges, worst first (:func:`diagnose`)."""
        return diagnose(self.table)

    def to_dict(self, details: bool = False, diagnostics: bool = False,
                top: int | None = None) -> dict[str, Any]:
        """Scores as a plain dict; with ``details=True`` also the table summary, intervals,
        noise handling and matchings; with ``diagnostics=True`` the ``top`` worst classes
        and clusters (all when None)."""
        if not (details or diagnostics):
            return dict(self._values)
        out: dict[str, Any] = {
            "n_samples": self.table.n_samples,
            "n_classes": self.table.n_classes,
            "n_clusters": self.table.n_clusters,
            "scores": dict(self._values),
        }
        if self.intervals:
            out["intervals"] = {k: [v.low, v.high] for k, v in self.intervals.items()}
            out["ci"] = next(iter(self.intervals.values())).level
        if self.noise is not None:
            out["noise"] = _jsonable(self.noise)
        if details:
            out["details"] = {k: _jsonable(v) for k, v in self.details.items()}
        if diagnostics:
            out["diagnostics"] = _jsonable(self.diagnostics.to_dict(top))
        return out

    def to_csv(self) -> str:
        if not self.intervals:
            return "\n".join(["metric,value"]
                             + [f"{k},{v!r}" for k, v in self._values.items()]) + "\n"
        rows = [f"{k},{v!r},{self.intervals[k].low!r},{self.intervals[k].high!r}"
                for k, v in self._values.items()]
        return "\n".join(["metric,value,ci_low,ci_high", *rows]) + "\n"

    def summary(self) -> str:
        """The one-line description of the table (and of noise handling)."""
        t = self.table
        line = f"N = {t.n_samples}, {t.n_classes} classes, {t.n_clusters} clusters"
        if self.noise is not None:
            nz = self.noise
            what = "as singleton clusters" if nz.mode == "singletons" else "excluded"
            line += f"; noise label {nz.label!r}: {nz.n_noise} of {nz.n_samples} points {what}"
        return line

    def format(self, diagnostics: int | None = 0) -> str:
        """The score table; with ``diagnostics`` > 0 (or None: all) the worst classes and
        clusters below it."""
        rows = []
        for k, v in self._values.items():
            row = [k, METRICS[k].name, f"{v: .6f}"]
            if self.intervals:
                iv = self.intervals[k]
                row.append(f"[{iv.low: .6f}, {iv.high: .6f}]")
            rows.append(row)
        if self.intervals:
            level = next(iter(self.intervals.values())).level
            table = text_table(["metric", "score", "value", f"{level:.0%} bootstrap interval"],
                               rows, indent=2)
        else:  # no header: one aligned line per score
            table = text_table(["", "", ""], rows, indent=2).split("\n", 1)[-1]
        parts = [self.summary(), table]
        if diagnostics != 0:
            parts += ["", self.diagnostics.format(diagnostics)]
        return "\n".join(parts)

    def __str__(self) -> str:
        return self.format()

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
