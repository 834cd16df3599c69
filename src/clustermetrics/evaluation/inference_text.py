"""How a report shows its inference: bootstrap intervals, analytic significance and
permutation tests, as table cells, the notes below a table, and JSON fields. Shared by
:class:`~clustermetrics.evaluation.report.Report`, its multi-reference form and the
command line's table of several runs."""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Mapping
from typing import Any

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
from ..render.json_text import json_label
from ..render.tables import Cell
from ..render.text import pvalue_text, visible
from ..scores.registry import METRICS
from ..scores.spec import Significance
from ..table import Contingency

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


def seed_text(seed: Any) -> str:
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
        f"seed {visible(seed_text(boot.seed))}"
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
        else seed_text(seed),
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


def interval_value(intervals: Mapping[str, Interval], key: str) -> Cell:
    """:func:`interval_cell` as a table cell that sorts by the interval's lower end."""
    iv = intervals.get(key)
    return Cell(interval_cell(intervals, key),
                None if iv is None or _undefined(iv) else iv.low)


def significance_values(sig: Significance | None) -> list[Any]:
    """The z and p-value cells of one score (None without an analytic null)."""
    if sig is None:
        return [None, None]
    return [sig.z, Cell(pvalue_text(sig.pvalue), sig.pvalue)]


def permutation_value(test: PermutationTest) -> Cell:
    """:func:`permutation_cell` as a table cell that sorts by the p-value."""
    return Cell(permutation_cell(test), test.pvalue)
