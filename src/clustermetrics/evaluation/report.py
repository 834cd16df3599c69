"""The reports ``evaluate`` returns: scores with the table summary, intervals, noise
handling and diagnostics, rendered as a text table, CSV or strict JSON.

:class:`Report` holds one table's scores; :class:`MultiReport` the reports against several
references, with each score's best value (in the score's own direction), the reference
that gave it, and the spread over the references.
"""

from __future__ import annotations

import functools
import math
import numbers
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, NamedTuple

import numpy as np

from ..inference.bootstrap import (
    FLAG_BIAS,
    FLAG_SMALL,
    MAX_SKIPPED_SHARE,
    MIN_ITEMS_PER_CELL,
    Bootstrap,
    Interval,
)
from ..inference.noise import NoiseInfo
from ..inference.permutation import PermutationTest
from ..render.html import goodness_style, html_table
from ..render.html import text as html_text
from ..render.json_text import dumps, json_data, json_label
from ..render.text import Shown, csv_text, plural, pvalue_text, text_table, visible
from ..scores.registry import METRICS
from ..scores.spec import Significance
from ..table import Contingency
from .diagnostics import Diagnostics, check_top, diagnose, diagnostics_data

__all__ = ["MultiReport", "Report", "ScoreMapping", "Spread"]


class ScoreMapping(Mapping[str, float]):
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
        numbers written as :mod:`clustermetrics.render.json_text` says). Intervals and the noise
        handling are always in it when the report has them."""
        return dumps(self.to_dict(details, diagnostics, top), indent=indent)


class Report(ScoreMapping):
    """Read-only mapping metric key -> float, with the table summary and per-score details.

    ``table`` is the table the scores were computed from (after noise handling);
    ``details`` holds rich results such as the recovery-rate matching; ``timings`` the
    seconds each score took (after the shared table was built); ``intervals`` the bootstrap
    intervals when ``evaluate(..., ci=...)`` asked for them, and ``bootstrap`` how they
    were drawn (level, replicates, seed); ``noise`` what noise handling did (or None);
    ``diagnostics`` the per-class and per-cluster breakdown; ``significance`` (when
    ``evaluate(..., significance=True)`` asked for it, else None) the
    :class:`~clustermetrics.scores.spec.Significance` (z, p-value, null mean and sd)
    of each score with an analytic null distribution; ``permutation`` (with
    ``evaluate(..., n_perm=...)``) each score's
    :class:`~clustermetrics.inference.permutation.PermutationTest`.
    """

    def __init__(self, table: Contingency, values: dict[str, float],
                 details: dict[str, Any], timings: dict[str, float], *,
                 intervals: dict[str, Interval] | None = None,
                 noise: NoiseInfo | None = None, bootstrap: Bootstrap | None = None,
                 significance: dict[str, Significance] | None = None,
                 permutation: dict[str, PermutationTest] | None = None):
        self._values = dict(values)
        self.table = table
        self.details = dict(details)
        self.timings = dict(timings)
        self.intervals = dict(intervals or {})
        self.noise = noise
        self.significance = None if significance is None else dict(significance)
        self.permutation = None if permutation is None else dict(permutation)
        if bootstrap is None and self.intervals:
            first = next(iter(self.intervals.values()))
            bootstrap = Bootstrap(first.level, first.n_boot, None, first.method)
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
        ``unreliable``, and ``no_interval``: key -> why, for a score given without one),
        the noise handling (``noise``) and the analytic significance
        (``significance``: key -> ``z``, ``pvalue``, ``null_mean``, ``null_sd``, with
        ``significance_method``) and the permutation tests (``permutation``: key ->
        ``pvalue``, ``pvalue_se``, ``null_mean``, ``null_sd``, ``n_skipped``, with
        ``n_perm`` and ``permutation_sampler``). ``details=True`` adds each
        score's details (the recovery matchings); ``diagnostics=True`` the ``top`` worst
        classes and clusters (all when None; ``top`` needs ``diagnostics``). Labels and
        numbers are JSON data (:mod:`clustermetrics.render.json_text`), so
        ``json.loads(report.to_json(...)) == report.to_dict(...)``; ``dict(report)`` is
        the plain mapping score -> value."""
        top = check_top_option(top, diagnostics)
        out: dict[str, Any] = {
            "n_samples": self.table.n_samples,
            "n_classes": self.table.n_classes,
            "n_clusters": self.table.n_clusters,
            "scores": dict(self._values),
        }
        out.update(intervals_dict(self.intervals, self.bootstrap, self._values))
        out.update(significance_dict(self.significance))
        out.update(permutation_dict(self.permutation))
        if self.noise is not None:
            out["noise"] = noise_dict(self.noise)
        if details:
            out["details"] = {k: _detail_data(v) for k, v in self.details.items()}
        if diagnostics:
            out["diagnostics"] = diagnostics_data(self.diagnostics, top)
        return json_data(out)

    def to_csv(self) -> str:
        """One row per score: ``metric,value``, then with intervals ``ci_low,ci_high,
        ci_level,n_boot,seed,skipped,ci_method,flags``, with significance ``z,pvalue,
        null_mean,null_sd`` (empty for scores without an analytic null), with permutation
        tests ``perm_pvalue,perm_pvalue_se,perm_null_mean,perm_null_sd,n_perm,
        perm_skipped`` and with a noise label ``noise_label,noise,n_noise`` (csv-module
        quoting; labels as their ``str()``; a missing or undefined number is an empty
        cell)."""
        header = ["metric", "value"]
        rows: list[list[Any]] = [[k, v] for k, v in self._values.items()]
        if self.significance is not None:
            header += ["z", "pvalue", "null_mean", "null_sd"]
            for row, key in zip(rows, self._values, strict=True):
                sig = self.significance.get(key)
                row += [None] * 4 if sig is None else \
                    [sig.z, sig.pvalue, sig.null_mean, sig.null_sd]
        if self.permutation is not None:
            header += ["perm_pvalue", "perm_pvalue_se", "perm_null_mean", "perm_null_sd",
                       "n_perm", "perm_skipped"]
            for row, key in zip(rows, self._values, strict=True):
                test = self.permutation[key]
                row += [test.pvalue, test.pvalue_se, test.null_mean, test.null_sd,
                        test.n_perm, test.n_skipped]
        return _csv(header, rows, self.intervals, self.bootstrap, self.noise,
                    list(self._values))

    def summary(self) -> Shown:
        """The one-line description of the table (and of noise handling), as the terminal
        shows it (the noise label escaped as in messages)."""
        t = self.table
        line = (f"N = {t.n_samples}, {plural(t.n_classes, 'class', 'classes')}, "
                f"{plural(t.n_clusters, 'cluster')}")
        if self.noise is not None:
            nz = self.noise
            what = "as singleton clusters" if nz.mode == "singletons" else "excluded"
            line += (f"; noise label {visible(repr(nz.label), backslash=False)}: "
                     f"{nz.n_noise} of {plural(nz.n_samples, 'point')} {what}")
        return Shown(line)

    def format(self, diagnostics: int | str | None = 0) -> str:
        """The score table; with ``diagnostics`` a positive number of rows (or None or
        "all": every row) the worst classes and clusters below it; 0 for none."""
        top = _diagnostics_rows(diagnostics)
        rows = []
        sig = self.significance
        for k, v in self._values.items():
            row = [k, METRICS[k].name, f"{v: .6f}"]
            if self.intervals:
                row.append(interval_cell(self.intervals, k))
            if sig is not None:
                row += significance_cells(sig.get(k))
            if self.permutation is not None:
                row.append(permutation_cell(self.permutation[k]))
            rows.append(row)
        # always a header, the columns the CSV and JSON name too (key, name, value)
        header = ["metric", "score", "value"]
        if self.intervals:
            header.append(interval_header(self.bootstrap))
        if sig is not None:
            header += ["z", "p-value"]
        if self.permutation is not None:
            header.append("permutation p-value")
        table = text_table(header, rows, indent=2)
        parts = [self.summary(), table,
                 *bootstrap_notes(self.intervals, self.bootstrap, self.table, self._values),
                 *significance_notes(sig), *permutation_notes(self.permutation)]
        if top != 0:
            parts += ["", self.diagnostics.format(top)]
        return "\n".join(parts)

    def __str__(self) -> str:
        return self.format()

    def __repr__(self) -> str:
        return f"Report({self._values!r})"

    def _repr_html_(self) -> str:
        """Notebook view: every score with its direction, coloured from worst (red) to
        best (green) in its own direction, and every per-score field of :meth:`to_dict`
        (intervals, replicates skipped, and any other) as a column of its own."""
        return report_html(self.summary(), self.to_dict(), "scores")


# --------------------------------------------------------------------- shared renderings
def goodness(key: str, value: float) -> float:
    """Where ``value`` lies between the worst and the best of score ``key``, in [0, 1]
    (NaN for NaN): its position in the score's range in its own direction; for unbounded
    ranges and scores best at a value, 1 / (1 + distance to the best)."""
    entry = METRICS[key]
    if not math.isfinite(value):
        return math.nan
    lo, hi = entry.lower, entry.upper
    if entry.optimum is not None:
        return 1.0 / (1.0 + abs(value - entry.optimum))
    if math.isfinite(lo) and math.isfinite(hi) and hi > lo:
        share = (value - lo) / (hi - lo)
        return share if entry.higher_is_better else 1.0 - share
    best = hi if entry.higher_is_better else lo
    return 1.0 / (1.0 + abs(value - best)) if math.isfinite(best) else 0.5


def _direction(key: str) -> str:
    better = METRICS[key].better
    if better == "higher":
        return "\u2191 higher"
    if better == "lower":
        return "\u2193 lower"
    return f"\u2192 {better:g}"


def _cell(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return "" if value is None else str(value)
    if isinstance(value, float):
        return f"{value:.6f}"
    if isinstance(value, list) and len(value) == 2 and all(
            v is None or isinstance(v, (int, float)) for v in value):
        return "undefined" if None in value else f"[{value[0]:.6f}, {value[1]:.6f}]"
    return str(value)


_IN_SUMMARY = frozenset({"n_samples", "n_classes", "n_clusters", "references"})


def report_html(summary: str, data: dict[str, Any], values_key: str, after: str = "") -> str:
    """A report's :meth:`to_dict` data as HTML, generically: ``data[values_key]`` are the
    scores; every other field keyed by score (a mapping over score keys) becomes a column
    (a mapping of mappings one column per inner key), a list of score keys a yes/no
    column, and the remaining fields a line below the table."""
    values = {k: math.nan if v is None else v for k, v in data[values_key].items()}
    keys = set(values)
    header = ["metric", "score", "better", "value"]
    columns: list[tuple[str, Any]] = []  # (title, per-key getter)
    notes = []
    for field, item in data.items():
        if field == values_key:
            continue
        if isinstance(item, dict) and item and set(item) <= keys:
            inner = next(iter(item.values()))
            if isinstance(inner, dict):
                for sub in inner:
                    columns.append((f"{field} {sub}",
                                    lambda k, f=field, s=sub: data[f].get(k, {}).get(s)))
            else:
                columns.append((field, lambda k, f=field: data[f].get(k)))
        elif isinstance(item, list) and item and all(isinstance(v, str) for v in item) \
                and set(item) <= keys:
            columns.append((field, lambda k, f=field: "yes" if k in data[f] else ""))
        elif field not in _IN_SUMMARY and item is not None and item != [] and item != {}:
            if isinstance(item, dict):
                item = ", ".join(f"{k} {v}" for k, v in item.items())
            notes.append(f"{field}: {item}")
    header += [title for title, _ in columns]
    rows, styles = [], []
    for key, value in values.items():
        rows.append([key, METRICS[key].name, _direction(key), f"{value:.6f}",
                     *(_cell(get(key)) for _, get in columns)])
        styles.append(["", "", "", goodness_style(goodness(key, value)),
                       *("" for _ in columns)])
    table = html_table(header, rows, styles=styles)
    foot = (f'<p style="margin:2px 0;color:#555">{html_text("; ".join(notes))}</p>'
            if notes else "")
    return f"<div><p>{html_text(summary)}</p>{table}{foot}{after}</div>"
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


METHOD_NAMES = {"percentile": "percentile", "basic": "basic", "normal": "bias-corrected normal",
                "bca": "BCa"}


def interval_header(boot: Bootstrap | None, suffix: str = "", short: bool = False) -> str:
    """The interval column's title, naming the level and the method (the replicates and
    the seed are in the notes); ``short``: the level alone, where a column per run would
    repeat the method that the notes name."""
    if short:
        return "interval" if boot is None else f"{boot.level:.0%} interval"
    level = "" if boot is None else f"{boot.level:.0%} {METHOD_NAMES[boot.method]} "
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
    ``!`` when flagged (its coverage is not the nominal level), ``undefined`` when none
    was left."""
    if _undefined(iv):
        return "undefined"
    mark = (" *" if _starred(iv) else "") + (" !" if iv.flags else "")
    return f"[{iv.low: .6f}, {iv.high: .6f}]{mark}"


def interval_cell(intervals: Mapping[str, Interval], key: str) -> str:
    """The interval column's cell of ``key``: :func:`interval_text`, or ``none`` for a
    score given without an interval (a note says why)."""
    return interval_text(intervals[key]) if key in intervals else "none"


def no_interval(intervals: Mapping[str, Interval], keys: Iterable[str]) -> dict[str, str]:
    """Key -> why, for the scores of ``keys`` shown without an interval next to scores
    with one (the scores that declare no bootstrap interval:
    :attr:`~clustermetrics.scores.registry.MetricInfo.no_bootstrap`)."""
    if not intervals:
        return {}
    return {k: METRICS[k].no_bootstrap or "no bootstrap interval" for k in keys
            if k not in intervals}


def by_reason(reasons: Mapping[str, str]) -> dict[str, list[str]]:
    """Key -> why, turned into why -> its keys (in order): one note per reason."""
    out: dict[str, list[str]] = {}
    for key, why in reasons.items():
        out.setdefault(why, []).append(key)
    return out


def bootstrap_notes(intervals: Mapping[str, Interval], boot: Bootstrap | None,
                    table: Contingency | None = None, keys: Iterable[str] = ()) -> list[str]:
    """Lines below a score table of ``keys``: how the intervals were drawn, which scores
    have none and why, which skipped replicates (:mod:`clustermetrics.inference.bootstrap`'s rule)
    and which intervals are flagged."""
    if not intervals:
        return []
    first = next(iter(intervals.values()))
    seed = "unseeded" if boot is None or boot.seed is None else \
        f"seed {visible(_seed_text(boot.seed))}"
    lines = [f"bootstrap: {first.n_boot} replicates, {seed}, "
             f"{METHOD_NAMES[first.method]} intervals"]
    lines += [f"no bootstrap interval for {', '.join(group)}: {why}"
              for why, group in by_reason(no_interval(intervals, keys)).items()]
    skipped = {k: iv for k, iv in intervals.items() if iv.n_skipped}
    if skipped:
        counts = ", ".join(f"{k} {iv.n_skipped}" for k, iv in skipped.items())
        lines.append(f"bootstrap: replicates skipped (nothing left to score, or the score "
                     f"undefined on them): {counts}")
    if any(_starred(iv) for iv in intervals.values()):  # only when a row carries the *
        lines.append(f"* more than {MAX_SKIPPED_SHARE:.0%} of the replicates skipped: the "
                     "interval describes only the replicates that could be scored")
    flagged: dict[str, list[str]] = {}
    for k, iv in intervals.items():
        for flag in iv.flags:
            flagged.setdefault(flag, []).append(k)
    for flag, keys in flagged.items():
        if flag == FLAG_BIAS:
            lines.append(f"! {flag}: the replicates' mean is more than their standard "
                         "deviation from the estimate; the interval rests on a bias "
                         "correction larger than itself (percentile and BCa make none), "
                         f"and its coverage falls below the nominal level: {', '.join(keys)}")
            continue
        why = (f"fewer than {MIN_ITEMS_PER_CELL:g} items per non-zero cell" +
               ("" if table is None else f" (N / nnz = {table.n_samples / table.nnz:.3g})")
               if flag == FLAG_SMALL else "replicates or the score at the end of its range")
        lines.append(f"! {flag}, {why}: coverage below the nominal level in the coverage "
                     f"study: {', '.join(keys)}")
    return lines


def intervals_dict(intervals: Mapping[str, Interval], boot: Bootstrap | None,
                   keys: Iterable[str] = ()) -> dict[str, Any]:
    """The JSON fields of intervals: ``intervals`` (key -> [low, high], null when
    undefined; absent for a score without one), ``ci``, ``ci_method``, ``n_boot``,
    ``seed``, ``skipped`` (key -> replicates skipped), ``unreliable`` (keys that skipped
    more than the allowed share), ``flags`` (key -> the conditions under which the
    coverage study found the level not reached, for flagged keys only) and, when some of
    ``keys`` have no interval, ``no_interval`` (key -> why)."""
    if not intervals:
        return {}
    first = next(iter(intervals.values()))
    seed = None if boot is None else boot.seed
    return {
        "intervals": {k: [v.low, v.high] for k, v in intervals.items()},
        "ci": first.level,
        "ci_method": first.method,
        "n_boot": first.n_boot,
        "seed": seed if seed is None or isinstance(seed, numbers.Integral)
        else _seed_text(seed),
        "skipped": {k: v.n_skipped for k, v in intervals.items()},
        "unreliable": [k for k, v in intervals.items() if not v.reliable],
        "flags": {k: list(v.flags) for k, v in intervals.items() if v.flags},
    } | ({"no_interval": lacking} if (lacking := no_interval(intervals, keys)) else {})


def significance_cells(sig: Significance | None) -> list[str]:
    """The z and p-value columns of one score ("" without an analytic null)."""
    if sig is None:
        return ["", ""]
    return [f"{sig.z:.3f}", pvalue_text(sig.pvalue)]


def significance_notes(significance: Mapping[str, Significance] | None) -> list[str]:
    """The line below a score table that says what the z and p-value columns are."""
    if significance is None:
        return []
    if not significance:
        return ["significance: none of these scores has an analytic null distribution "
                "(a permutation test covers any score)"]
    return ["significance: z = (value - null mean) / null sd against random labellings "
            "with the same class and cluster sizes; one-sided p-value of a value at least "
            "as good (" + next(iter(significance.values())).method + ")"]


def permutation_cell(test: PermutationTest) -> str:
    """``p ± se`` of a permutation test (``undefined`` when no draw could be scored)."""
    if math.isnan(test.pvalue):
        return "undefined"
    return f"{pvalue_text(test.pvalue)} ± {test.pvalue_se:.2g}"


def permutation_notes(tests: Mapping[str, PermutationTest] | None) -> list[str]:
    """The line below a score table that says how the permutation test was drawn."""
    if not tests:
        return []
    first = next(iter(tests.values()))
    lines = [f"permutation test: {first.n_perm} random tables with the same class and "
             f"cluster sizes ({first.sampler} sampler); p = (1 + draws at least as good) / "
             f"(1 + draws) ± its Monte Carlo standard error"]
    skipped = {k: t.n_skipped for k, t in tests.items() if t.n_skipped}
    if skipped:
        lines.append("permutation test: draws on which a score is undefined, skipped: "
                     + ", ".join(f"{k} {n}" for k, n in skipped.items()))
    return lines


def permutation_dict(tests: Mapping[str, PermutationTest] | None) -> dict[str, Any]:
    """The JSON fields of the permutation tests; nothing when they were not asked for."""
    if tests is None:
        return {}
    first = next(iter(tests.values()), None)
    return {"permutation": {k: {"pvalue": t.pvalue, "pvalue_se": t.pvalue_se,
                                "null_mean": t.null_mean, "null_sd": t.null_sd,
                                "n_skipped": t.n_skipped} for k, t in tests.items()},
            "n_perm": None if first is None else first.n_perm,
            "permutation_sampler": None if first is None else first.sampler}


def significance_dict(significance: Mapping[str, Significance] | None) -> dict[str, Any]:
    """The JSON fields of significance: ``significance`` (key -> z, pvalue, null_mean,
    null_sd) and ``significance_method``; nothing when it was not asked for."""
    if significance is None:
        return {}
    method = next(iter(significance.values())).method if significance else None
    return {"significance": {k: {"z": v.z, "pvalue": v.pvalue, "null_mean": v.null_mean,
                                 "null_sd": v.null_sd} for k, v in significance.items()},
            "significance_method": method}


def noise_dict(noise: NoiseInfo) -> dict[str, Any]:
    return {"label": json_label(noise.label), "mode": noise.mode, "n_noise": noise.n_noise,
            "n_samples": noise.n_samples}


def _csv(header: list[str], rows: list[list[Any]], intervals: Mapping[str, Interval],
         boot: Bootstrap | None, noise: NoiseInfo | None, keys: list[str]) -> str:
    header = list(header)
    rows = [list(r) for r in rows]
    if intervals:
        header += ["ci_low", "ci_high", "ci_level", "n_boot", "seed", "skipped", "ci_method",
                   "flags"]
        seed = "" if boot is None or boot.seed is None else _seed_text(boot.seed)
        for row, key in zip(rows, keys, strict=True):
            iv = intervals.get(key)
            if iv is None:  # a score without an interval: empty cells
                row += [None] * 8
                continue
            row += [iv.low, iv.high, iv.level, iv.n_boot, seed,
                    iv.n_skipped, iv.method, "; ".join(iv.flags)]
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


class Spread(NamedTuple):
    """A score's values over the references."""

    min: float
    max: float
    mean: float
    std: float


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
                if METRICS[key].is_better(report[key], self.reports[best][key]):
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
        out.update(intervals_dict(self.intervals, self.bootstrap, self._values))
        if self.noise is not None:
            out["noise"] = noise_dict(self.noise)
        out["reports"] = {name: r.to_dict(details, diagnostics, top)
                          for name, r in self.reports.items()}
        return json_data(out)

    def to_csv(self) -> str:
        """One row per score: ``metric,best,best_reference,min,max,mean,std``, then the
        best reference's interval and the noise handling as in :meth:`Report.to_csv`."""
        rows = [[k, v, self.best_reference[k], *self.spread[k]]
                for k, v in self._values.items()]
        return _csv(["metric", "best", "best_reference", "min", "max", "mean", "std"], rows,
                    self.intervals, self.bootstrap, self.noise, list(self._values))

    def format(self, diagnostics: int | str | None = 0) -> str:
        """The table of best values and spreads (with intervals: the best reference's);
        ``diagnostics`` as in :meth:`Report.format`, for every reference."""
        top = _diagnostics_rows(diagnostics)
        intervals = self.intervals
        head: list[str] = [self._heading()]
        first = self._first()
        sig, perm = first.significance, first.permutation

        def best(k: str) -> Any:
            return self.reports[self.best_reference[k]]
        rows = [[k, METRICS[k].name, f"{v: .6f}", self.best_reference[k],
                 f"{self.spread[k].min: .6f}", f"{self.spread[k].max: .6f}",
                 f"{self.spread[k].mean: .6f}"]
                + ([interval_cell(intervals, k)] if intervals else [])
                + (significance_cells(best(k).significance.get(k)) if sig is not None else [])
                + ([permutation_cell(best(k).permutation[k])] if perm is not None else [])
                for k, v in self._values.items()]
        header = ["metric", "score", "best", "best reference", "min", "max", "mean"]
        if intervals:
            header.append(interval_header(self.bootstrap, " (best reference)"))
        if sig is not None:
            header += ["z (best)", "p-value (best)"]
        if perm is not None:
            header.append("permutation p-value (best)")
        head.append(text_table(header, rows, indent=2))
        head += bootstrap_notes(intervals, self.bootstrap, keys=self._values)
        head += significance_notes(sig) + permutation_notes(perm)
        if top != 0:
            for name, report in self.reports.items():
                head += ["", f"against {visible(name)}:", report.diagnostics.format(top)]
        return "\n".join(head)

    def __str__(self) -> str:
        return self.format()

    def __repr__(self) -> str:
        return f"MultiReport({self._values!r})"

    def _repr_html_(self) -> str:
        """Notebook view: the best value of every score (coloured in its direction), the
        reference that gave it, the spread and every other per-score field, then each
        reference's own report (folded)."""
        data = self.to_dict()
        data.pop("reports")
        folded = "".join(f"<details><summary>against {html_text(name)}</summary>"
                         f"{r._repr_html_()}</details>" for name, r in self.reports.items())
        return report_html(self._heading(), data, "best", after=folded)

    def _heading(self) -> Shown:
        """The line naming the references, each with its table's summary."""
        return Shown(f"{plural(len(self.reports), 'reference')}: "
                     + "; ".join(f"{visible(name)} ({r.summary()})"
                                 for name, r in self.reports.items()))
