"""The reports ``evaluate`` returns: scores with the table summary, intervals, noise
handling and diagnostics, rendered as a text table, Markdown, LaTeX, CSV or strict JSON.

:class:`Report` holds one table's scores; :class:`MultiReport` the reports against several
references, with each score's best value (in the score's own direction), the reference
that gave it, and the spread over the references.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator, Mapping
from typing import Any, NamedTuple

import numpy as np

from ..inference.bootstrap import Bootstrap, Interval
from ..inference.noise import NoiseInfo
from ..inference.permutation import PermutationTest
from ..render.html import goodness_style, html_table
from ..render.html import text as html_text
from ..render.json_text import dumps, json_data, json_label
from ..render.latex import blocks_latex
from ..render.markdown import blocks_markdown
from ..render.tables import Block, Column, ResultTable, blocks_text
from ..render.text import Shown, csv_text, plural, visible
from ..scores.registry import METRICS
from ..scores.spec import Significance
from ..table import Contingency
from .diagnostics import Diagnostics, check_top, diagnose, diagnostics_data
from .inference_text import (
    bootstrap_notes,
    interval_header,
    interval_value,
    intervals_dict,
    noise_dict,
    permutation_dict,
    permutation_notes,
    permutation_value,
    seed_text,
    significance_dict,
    significance_notes,
    significance_values,
)

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

    def blocks(self, diagnostics: int | str | None = 0) -> list[Block]:
        raise NotImplementedError

    def format(self, diagnostics: int | str | None = 0) -> str:
        """The score table as text; with ``diagnostics`` a positive number of rows (or
        None or "all": every row) the worst classes and clusters below it; 0 for none."""
        return blocks_text(self.blocks(diagnostics))

    def to_markdown(self, diagnostics: int | str | None = 0) -> str:
        """:meth:`format`'s tables as GitHub-flavoured Markdown pipe tables, their notes
        as paragraphs (:mod:`clustermetrics.render.markdown`)."""
        return blocks_markdown(self.blocks(diagnostics))

    def to_latex(self, diagnostics: int | str | None = 0) -> str:
        """:meth:`format`'s tables as LaTeX ``table`` floats of booktabs tabulars
        (``\\usepackage{booktabs}``), their notes below (:mod:`clustermetrics.render.latex`)."""
        return blocks_latex(self.blocks(diagnostics))

    def __str__(self) -> str:
        return self.format()


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

    def blocks(self, diagnostics: int | str | None = 0) -> list[Block]:
        """The score table (a :class:`~clustermetrics.render.tables.ResultTable` under
        the table's summary, its notes below), then with ``diagnostics`` (as in
        :meth:`format`) the split and merge tables."""
        top = _diagnostics_rows(diagnostics)
        sig, perm = self.significance, self.permutation
        # always a header, the columns the CSV and JSON name too (key, name, value)
        columns = [Column("metric"), Column("score"), Column("value", " .6f")]
        groups = [2]
        if self.intervals:
            columns.append(Column(interval_header(self.bootstrap), align="left"))
            groups.append(1)
        if sig is not None:
            columns += [Column("z", ".3f", missing=""), Column("p-value", missing="")]
            groups.append(2)
        if perm is not None:
            columns.append(Column("permutation p-value"))
            groups.append(1)
        rows = []
        for k, v in self._values.items():
            row: list[Any] = [k, METRICS[k].name, v]
            if self.intervals:
                row.append(interval_value(self.intervals, k))
            if sig is not None:
                row += significance_values(sig.get(k))
            if perm is not None:
                row.append(permutation_value(perm[k]))
            rows.append(row)
        notes = [*bootstrap_notes(self.intervals, self.bootstrap, self.table, self._values),
                 *significance_notes(sig), *permutation_notes(perm)]
        table = ResultTable(columns, rows, self.summary(), notes, keep=1, groups=groups,
                            indent=2)
        return [table, *(self.diagnostics.blocks(top) if top != 0 else [])]

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


def _csv(header: list[str], rows: list[list[Any]], intervals: Mapping[str, Interval],
         boot: Bootstrap | None, noise: NoiseInfo | None, keys: list[str]) -> str:
    header = list(header)
    rows = [list(r) for r in rows]
    if intervals:
        header += ["ci_low", "ci_high", "ci_level", "n_boot", "seed", "skipped", "ci_method",
                   "flags"]
        seed = "" if boot is None or boot.seed is None else seed_text(boot.seed)
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

    def blocks(self, diagnostics: int | str | None = 0) -> list[Block]:
        """The table of best values and spreads (with intervals: the best reference's)
        under the references' summary; ``diagnostics`` as in :meth:`Report.format`, for
        every reference."""
        top = _diagnostics_rows(diagnostics)
        intervals = self.intervals
        first = self._first()
        sig, perm = first.significance, first.permutation

        def best(k: str) -> Any:
            return self.reports[self.best_reference[k]]
        rows = [[k, METRICS[k].name, v, self.best_reference[k], *self.spread[k][:3]]
                + ([interval_value(intervals, k)] if intervals else [])
                + (significance_values(best(k).significance.get(k)) if sig is not None else [])
                + ([permutation_value(best(k).permutation[k])] if perm is not None else [])
                for k, v in self._values.items()]
        columns = [Column("metric"), Column("score"), Column("best", " .6f"),
                   Column("best reference"), *(Column(c, " .6f") for c in ("min", "max", "mean"))]
        groups = [3, 3]
        if intervals:
            columns.append(Column(interval_header(self.bootstrap, " (best reference)"),
                                  align="left"))
            groups.append(1)
        if sig is not None:
            columns += [Column("z (best)", ".3f", missing=""),
                        Column("p-value (best)", missing="")]
            groups.append(2)
        if perm is not None:
            columns.append(Column("permutation p-value (best)"))
            groups.append(1)
        notes = [*bootstrap_notes(intervals, self.bootstrap, keys=self._values),
                 *significance_notes(sig), *permutation_notes(perm)]
        out: list[Block] = [ResultTable(columns, rows, self._heading(), notes, keep=1,
                                        groups=groups, indent=2)]
        if top != 0:
            for name, report in self.reports.items():
                out += [Shown(f"against {visible(name)}:"), *report.diagnostics.blocks(top)]
        return out

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
