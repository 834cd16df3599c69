"""``evaluate`` and the ``Report`` it returns: every requested score from one table."""

from __future__ import annotations

import functools
import math
import numbers
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from ._json import dumps, json_data, json_label
from ._progress import slow_step_note
from ._text import csv_text, plural, text_table, visible
from .bootstrap import (
    MAX_SKIPPED_SHARE,
    Bootstrap,
    Interval,
    bootstrap_intervals,
    check_bootstrap_options,
)
from .diagnostics import Diagnostics, check_top, diagnose, diagnostics_data
from .noise import NoiseInfo, check_noise_mode, noise_in_replicate, with_noise
from .registry import METRICS, resolve_metrics
from .table import Contingency, as_contingency

__all__ = ["Report", "ScoreMapping", "evaluate", "evaluate_table", "check_options"]


_UNSET_N_BOOT = 1000  # replicates when ``ci`` is given and ``n_boot`` is not


def evaluate(labels_true: Any, labels_pred: Any = None,
             metrics: str | Iterable[str] | None = None, *, noise_label: Any = None,
             noise: str | None = None, ci: float | None = None, n_boot: int | None = None,
             seed: Any = None, progress: Callable[[int, int], None] | None = None) -> Any:
    """Compute many scores at once; the contingency table is built exactly once.

    Parameters
    ----------
    labels_true, labels_pred : label sequences of equal length, or a ``Contingency`` as
        ``labels_true`` (and ``labels_pred=None``). Several references (then a
        :class:`~clustermetrics.references.MultiReport` is returned): a dict name ->
        labels or table; a list or tuple of labelings (lists, arrays, Series, tuples) or of
        tables; a 2-D array (one reference per row, as a list of equal-length tuples); or
        a pandas / polars DataFrame (one reference per column, named by the column).
    metrics : registry keys (see ``clustermetrics.METRICS``), function names, or a comma
        separated string; None computes every registered score.
    noise_label : the predicted label that marks noise points (e.g. -1 for HDBSCAN), or
        None. See :mod:`clustermetrics.noise` for what each score family then sees.
    noise : {"singletons", "exclude"} or None
        Noise points become clusters of one item each (None, the default, means
        "singletons" when ``noise_label`` is given), or are left out of both labelings.
        Given explicitly, it needs ``noise_label``. When every point is noise,
        "singletons" scores N one-item clusters and "exclude" is an error.
    ci : float in (0, 1) or None
        Also compute percentile bootstrap intervals at this level (``Report.intervals``);
        each replicate is a multinomial redraw of the table's cells, O(nnz) (see
        :mod:`clustermetrics.bootstrap`, which also gives the rule for replicates on which
        a score is undefined).
    n_boot : int, default 1000 when ``ci`` is given
        Number of bootstrap replicates (2 to 1,000,000); only with ``ci``.
    seed : seed for the bootstrap's random generator (a non-negative integer of any size,
        as numpy's ``SeedSequence`` takes, or a numpy Generator / SeedSequence); only with
        ``ci``.
    progress : callable(done, total), called after each bootstrap replicate.

    Options that would have no effect are refused rather than ignored: ``n_boot`` or
    ``seed`` without ``ci``, and ``noise`` without ``noise_label``.

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
    check_options(noise_label=noise_label, noise=noise, ci=ci, n_boot=n_boot, seed=seed)
    if progress is not None and not callable(progress):
        raise ValueError(f"progress must be a callable(done, total), got {progress!r}")
    options = dict(noise_label=noise_label, noise=noise, ci=ci,
                   n_boot=_UNSET_N_BOOT if n_boot is None else n_boot, seed=seed,
                   progress=progress)
    from .references import evaluate_references, is_several

    if is_several(labels_true):
        return evaluate_references(labels_true, labels_pred, keys, **options)
    return evaluate_table(as_contingency(labels_true, labels_pred), keys, **options)


def check_options(*, noise_label: Any = None, noise: Any = None, ci: Any = None,
                  n_boot: Any = None, seed: Any = None,
                  names: Mapping[str, str] | None = None) -> None:
    """Refuse unusable values and options that would have no effect, naming them as
    ``names`` spells them (the command line passes its flags). Cheap: before any work."""
    name = {"noise_label": "noise_label", "noise": "noise", "ci": "ci", "n_boot": "n_boot",
            "seed": "seed", **(names or {})}
    if noise is not None:
        check_noise_mode(noise, name["noise"])
    if noise is not None and noise_label is None:
        raise ValueError(f"{name['noise']} {noise!r} needs {name['noise_label']} (the "
                         "predicted label that marks noise points)")
    if ci is None:
        for option, value in (("n_boot", n_boot), ("seed", seed)):
            if value is not None:
                raise ValueError(f"{name[option]} applies to bootstrap intervals: give "
                                 f"{name['ci']} too (e.g. 0.95)")
        return
    check_bootstrap_options(ci, _UNSET_N_BOOT if n_boot is None else n_boot,
                            (name["ci"], name["n_boot"]), seed, name["seed"])


def evaluate_table(table: Contingency, keys: list[str], *, noise_label: Any = None,
                   noise: str | None = None, ci: float | None = None, n_boot: int = 1000,
                   seed: Any = None, progress: Callable[[int, int], None] | None = None,
                   ) -> Report:
    """:func:`evaluate` of one table and resolved metric keys (options checked)."""
    noise = noise or "singletons"
    if noise_label is None:
        scored, noise_info = table, None
    else:
        scored, noise_info = with_noise(table, noise_label, noise)
    values, details, timings = _compute(scored, keys)
    intervals, boot = {}, None
    if ci is not None:
        def replicate(rep: Contingency) -> dict[str, float] | None:
            if noise_label is not None:
                rep = noise_in_replicate(rep, noise_label, noise)
                if rep is None:  # nothing left to score: skipped (bootstrap's rule)
                    return None
            return _replicate_values(rep, keys)

        intervals = bootstrap_intervals(table, replicate, keys, level=ci, n_boot=n_boot,
                                        seed=seed, progress=progress)
        boot = Bootstrap(float(ci), int(n_boot), seed)
    return Report(scored, values, details, timings, intervals=intervals, noise=noise_info,
                  bootstrap=boot)


def _replicate_values(table: Contingency, keys: list[str]) -> dict[str, float]:
    """Scores of a replicate; NaN where a score is undefined on it (then skipped)."""
    out = {}
    for key in keys:
        try:
            out[key] = METRICS[key].compute(table)[0]
        except ValueError:
            out[key] = math.nan
    return out


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
                top: int | str | None = None) -> dict[str, Any]:
        raise NotImplementedError

    def to_json(self, details: bool = False, indent: int | None = 2, *,
                diagnostics: bool = False, top: int | str | None = None) -> str:
        """:meth:`to_dict` as strict JSON text (no NaN / Infinity; labels and non-finite
        numbers written as :mod:`clustermetrics._json` says). Intervals and the noise
        handling are always in it when the report has them."""
        return dumps(self.to_dict(details, diagnostics, top), indent=indent)


class Report(ScoreMapping):
    """Read-only mapping metric key -> float, with the table summary and per-score details.

    ``table`` is the table the scores were computed from (after noise handling);
    ``details`` holds rich results such as the recovery-rate matching; ``timings`` the
    seconds each score took (after the shared table was built); ``intervals`` the bootstrap
    intervals when ``evaluate(..., ci=...)`` asked for them, and ``bootstrap`` how they
    were drawn (level, replicates, seed); ``noise`` what noise handling did (or None);
    ``diagnostics`` the per-class and per-cluster breakdown.
    """

    def __init__(self, table: Contingency, values: dict[str, float],
                 details: dict[str, Any], timings: dict[str, float], *,
                 intervals: dict[str, Interval] | None = None,
                 noise: NoiseInfo | None = None, bootstrap: Bootstrap | None = None):
        self._values = dict(values)
        self.table = table
        self.details = dict(details)
        self.timings = dict(timings)
        self.intervals = dict(intervals or {})
        self.noise = noise
        if bootstrap is None and self.intervals:
            first = next(iter(self.intervals.values()))
            bootstrap = Bootstrap(first.level, first.n_boot, None)
        self.bootstrap = bootstrap

    @property
    def recovery(self) -> dict[str, Any]:
        """Recovery-rate results (rate, method, matching) by metric key."""
        return {k: v for k, v in self.details.items() if hasattr(v, "matching")}

    @functools.cached_property
    def diagnostics(self) -> Diagnostics:
        """Per-class splits and per-cluster merges, worst first (:func:`diagnose`)."""
        return diagnose(self.table)

    def to_dict(self, details: bool = False, diagnostics: bool = False,
                top: int | str | None = None) -> dict[str, Any]:
        """The report as plain JSON data: the table size (``n_samples``, ``n_classes``,
        ``n_clusters``), ``scores``, and, whenever they were asked for, the bootstrap
        intervals (``intervals``, ``ci``, ``n_boot``, ``seed``, ``skipped``,
        ``unreliable``) and the noise handling (``noise``). ``details=True`` adds each
        score's details (the recovery matchings); ``diagnostics=True`` the ``top`` worst
        classes and clusters (all when None; ``top`` needs ``diagnostics``). Labels and
        numbers are JSON data (:mod:`clustermetrics._json`), so
        ``json.loads(report.to_json(...)) == report.to_dict(...)``; ``dict(report)`` is
        the plain mapping score -> value."""
        top = check_top_option(top, diagnostics)
        out: dict[str, Any] = {
            "n_samples": self.table.n_samples,
            "n_classes": self.table.n_classes,
            "n_clusters": self.table.n_clusters,
            "scores": dict(self._values),
        }
        out.update(intervals_dict(self.intervals, self.bootstrap))
        if self.noise is not None:
            out["noise"] = noise_dict(self.noise)
        if details:
            out["details"] = {k: _detail_data(v) for k, v in self.details.items()}
        if diagnostics:
            out["diagnostics"] = diagnostics_data(self.diagnostics, top)
        return json_data(out)

    def to_csv(self) -> str:
        """One row per score: ``metric,value``, then with intervals ``ci_low,ci_high,
        ci_level,n_boot,seed,skipped`` and with a noise label ``noise_label,noise,n_noise``
        (csv-module quoting; labels as their ``str()``)."""
        header = ["metric", "value"]
        rows = [[k, repr(v)] for k, v in self._values.items()]
        return _csv(header, rows, self.intervals, self.bootstrap, self.noise,
                    list(self._values))

    def summary(self) -> str:
        """The one-line description of the table (and of noise handling)."""
        t = self.table
        line = (f"N = {t.n_samples}, {plural(t.n_classes, 'class', 'classes')}, "
                f"{plural(t.n_clusters, 'cluster')}")
        if self.noise is not None:
            nz = self.noise
            what = "as singleton clusters" if nz.mode == "singletons" else "excluded"
            line += (f"; noise label {visible(repr(nz.label), backslash=False)}: "
                     f"{nz.n_noise} of {plural(nz.n_samples, 'point')} {what}")
        return line

    def format(self, diagnostics: int | str | None = 0) -> str:
        """The score table; with ``diagnostics`` a positive number of rows (or None or
        "all": every row) the worst classes and clusters below it; 0 for none."""
        top = _diagnostics_rows(diagnostics)
        rows = []
        for k, v in self._values.items():
            row = [k, METRICS[k].name, f"{v: .6f}"]
            if self.intervals:
                row.append(interval_text(self.intervals[k]))
            rows.append(row)
        if self.intervals:
            table = text_table(["metric", "score", "value", interval_header(self.bootstrap)],
                               rows, indent=2)
        else:  # no header: one aligned line per score
            table = text_table(["", "", ""], rows, indent=2).split("\n", 1)[-1]
        parts = [self.summary(), table, *bootstrap_notes(self.intervals, self.bootstrap)]
        if top != 0:
            parts += ["", self.diagnostics.format(top)]
        return "\n".join(parts)

    def __str__(self) -> str:
        return self.format()

    def __repr__(self) -> str:
        return f"Report({self._values!r})"


# --------------------------------------------------------------------- shared renderings
def check_top_option(top: Any, diagnostics: bool) -> int | None:
    """``top`` of ``to_dict``/``to_json``: the rows :func:`check_top` accepts, and only
    with ``diagnostics`` (it would change nothing without them)."""
    if top is not None and not diagnostics:
        raise ValueError(f"top applies to the diagnostics: give diagnostics=True too, or "
                         f"leave top out (got top={top!r})")
    return check_top(top, "top")


def _diagnostics_rows(value: Any) -> int | None:
    """0 (no diagnostics), or the rows :func:`check_top` accepts."""
    if isinstance(value, int) and not isinstance(value, bool) and value == 0:
        return 0
    return check_top(value, "diagnostics")


def interval_header(boot: Bootstrap | None, suffix: str = "") -> str:
    """The interval column's title (the replicates and the seed are in the notes)."""
    level = "" if boot is None else f"{boot.level:.0%} "
    return f"{level}bootstrap interval{suffix}"


def _seed_text(seed: Any) -> str:
    return str(seed) if isinstance(seed, numbers.Integral) else type(seed).__name__


def _undefined(iv: Interval) -> bool:
    return iv.n_skipped >= iv.n_boot > 0


def _starred(iv: Interval) -> bool:
    """The interval is shown with ``*``: defined, but from too few replicates."""
    return not iv.reliable and not _undefined(iv)


def interval_text(iv: Interval) -> str:
    """``[low, high]``, ``*`` when more than the allowed share of replicates was skipped,
    ``undefined`` when none was left."""
    if _undefined(iv):
        return "undefined"
    mark = " *" if _starred(iv) else ""
    return f"[{iv.low: .6f}, {iv.high: .6f}]{mark}"


def bootstrap_notes(intervals: Mapping[str, Interval], boot: Bootstrap | None) -> list[str]:
    """Lines below a score table: how the intervals were drawn, and which scores skipped
    replicates (:mod:`clustermetrics.bootstrap`'s rule)."""
    if not intervals:
        return []
    first = next(iter(intervals.values()))
    seed = "unseeded" if boot is None or boot.seed is None else \
        f"seed {visible(_seed_text(boot.seed))}"
    lines = [f"bootstrap: {first.n_boot} replicates, {seed}"]
    skipped = {k: iv for k, iv in intervals.items() if iv.n_skipped}
    if skipped:
        counts = ", ".join(f"{k} {iv.n_skipped}" for k, iv in skipped.items())
        lines.append(f"bootstrap: replicates skipped (nothing left to score, or the score "
                     f"undefined on them): {counts}")
    if any(_starred(iv) for iv in intervals.values()):  # only when a row carries the *
        lines.append(f"* more than {MAX_SKIPPED_SHARE:.0%} of the replicates skipped: the "
                     "interval describes only the replicates that could be scored")
    return lines


def intervals_dict(intervals: Mapping[str, Interval], boot: Bootstrap | None,
                   ) -> dict[str, Any]:
    """The JSON fields of intervals: ``intervals`` (key -> [low, high], null when
    undefined), ``ci``, ``n_boot``, ``seed``, ``skipped`` (key -> replicates skipped) and
    ``unreliable`` (keys that skipped more than the allowed share)."""
    if not intervals:
        return {}
    first = next(iter(intervals.values()))
    seed = None if boot is None else boot.seed
    return {
        "intervals": {k: [v.low, v.high] for k, v in intervals.items()},
        "ci": first.level,
        "n_boot": first.n_boot,
        "seed": seed if seed is None or isinstance(seed, numbers.Integral)
        else _seed_text(seed),
        "skipped": {k: v.n_skipped for k, v in intervals.items()},
        "unreliable": [k for k, v in intervals.items() if not v.reliable],
    }


def noise_dict(noise: NoiseInfo) -> dict[str, Any]:
    return {"label": json_label(noise.label), "mode": noise.mode, "n_noise": noise.n_noise,
            "n_samples": noise.n_samples}


def _csv(header: list[str], rows: list[list[Any]], intervals: Mapping[str, Interval],
         boot: Bootstrap | None, noise: NoiseInfo | None, keys: list[str]) -> str:
    header = list(header)
    rows = [list(r) for r in rows]
    if intervals:
        header += ["ci_low", "ci_high", "ci_level", "n_boot", "seed", "skipped"]
        seed = "" if boot is None or boot.seed is None else _seed_text(boot.seed)
        for row, key in zip(rows, keys, strict=True):
            iv = intervals[key]
            row += [repr(iv.low), repr(iv.high), repr(iv.level), iv.n_boot, seed,
                    iv.n_skipped]
    if noise is not None:
        header += ["noise_label", "noise", "n_noise"]
        for row in rows:
            row += [str(noise.label), noise.mode, noise.n_noise]
    return csv_text([header, *rows])


def _detail_data(value: Any) -> Any:
    """A score's detail as JSON data; the labels of a matching as :func:`json_label`."""
    data = value._asdict() if hasattr(value, "_asdict") else value
    if isinstance(data, dict) and "matching" in data:
        data = dict(data, matching=[[json_label(a), json_label(b), *rest]
                                    for a, b, *rest in data["matching"]])
    return data
