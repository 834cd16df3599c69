"""The registry: every score, collected from the family modules that declare it.

Each family module (:mod:`.pair_counting`, :mod:`.information`, ...) lists
its :class:`MetricInfo` entries next to its functions; this module only collects them in
:data:`METRICS` and resolves the names users give. ``evaluate``, the command line, the
documentation's metric table and the common property tests all read :data:`METRICS`.
"""

from __future__ import annotations

import inspect
import math
import warnings
from collections.abc import Iterable, Mapping

from ..render.text import named_twice
from . import (
    bcubed,
    community_matching,
    cover_pairs,
    element_centric,
    information,
    marxer_purwins,
    overlapping_information,
    pair_chance,
    pair_counting,
    recovery,
    reduced_information,
    set_matching,
    standardized_information,
)
from .cover_spec import CoverMetricInfo
from .spec import MetricInfo

__all__ = ["COVER_METRICS", "METRICS", "CoverMetricInfo", "MetricInfo", "cover_metrics",
           "cover_markdown_table", "markdown_table", "register", "resolve_metrics"]

METRICS: dict[str, MetricInfo] = {}
# the scores of two covers (overlapping clusterings): a registry of their own, since
# they read a CoverPair, not a contingency table
COVER_METRICS: dict[str, CoverMetricInfo] = {}


def register(entry: MetricInfo) -> MetricInfo:
    """Add a score to the registry (keys are unique)."""
    if entry.key in METRICS:
        raise ValueError(f"metric key {entry.key!r} is already registered")
    METRICS[entry.key] = entry
    return entry


# the modules of every family, in the order of the metric table
_FAMILIES = (pair_counting, pair_chance, information, standardized_information,
             reduced_information, recovery, set_matching, marxer_purwins, bcubed,
             element_centric)

for _module in _FAMILIES:
    for _entry in _module.ENTRIES:
        register(_entry)


# the modules of every cover score, in the order of the cover score table
_COVER_FAMILIES = (overlapping_information, community_matching, cover_pairs)

for _module in _COVER_FAMILIES:
    for _cover_entry in _module.COVER_ENTRIES:
        if _cover_entry.key in COVER_METRICS or _cover_entry.key in METRICS:
            raise ValueError(f"metric key {_cover_entry.key!r} is already registered")
        COVER_METRICS[_cover_entry.key] = _cover_entry


def cover_metrics() -> list[CoverMetricInfo]:
    """Every registered cover score, in the order of the cover score table."""
    return list(COVER_METRICS.values())


def _aliases() -> dict[str, str]:
    """Lookup of keys, display names and function names. A function names the entry that
    calls it with its default options (``normalized_mutual_info_score`` -> ``nmi``), or
    its only entry; keys always win."""
    out: dict[str, str] = {}
    by_func: dict[str, list[str]] = {}
    for key, entry in METRICS.items():
        out.setdefault(entry.name.lower(), key)
        name = getattr(entry.func, "__name__", key)
        by_func.setdefault(name, []).append(key)
        if _default_options(entry):
            out.setdefault(name, key)
    for func_name, keys in by_func.items():
        if len(keys) == 1:
            out.setdefault(func_name, keys[0])
    out.update({key: key for key in METRICS})
    return out


def _default_options(entry: MetricInfo) -> bool:
    """Does the entry call its function with the function's own defaults?"""
    try:
        params = inspect.signature(entry.func).parameters
    except (TypeError, ValueError):
        return not entry.options
    return all(k in params and params[k].default == v for k, v in entry.options.items())


def _deprecated_names() -> dict[str, str]:
    """Old function names (deprecated aliases) -> the key of the entry they call."""
    out = {}
    for module in _FAMILIES:
        for name, value in vars(module).items():
            target = getattr(value, "replacement", None)
            if target is None:
                continue
            fixed = dict(getattr(value, "fixed", {}))
            for key, entry in METRICS.items():
                if entry.func is target and dict(entry.options) == fixed:
                    out[name] = key
                    break
    return out


def resolve_metrics(metrics: str | Iterable[str] | None) -> list[str]:
    """Registry keys for ``metrics``: None = all; keys, function names or comma lists."""
    if metrics is None:
        return list(METRICS)
    if isinstance(metrics, str):
        metrics = [m for m in metrics.split(",")]
    elif isinstance(metrics, Mapping):
        raise TypeError(
            "metrics takes names, not a mapping of per-metric options: call the score's "
            "function for other options (e.g. pair_f_score(t, p, beta=2)); got a "
            f"{type(metrics).__name__}")
    elif not isinstance(metrics, Iterable) or isinstance(metrics, bytes):
        raise TypeError(f"metrics must be a metric name, a comma-separated string of them "
                        f"or an iterable of them, got {type(metrics).__name__}")
    aliases = _aliases()
    keys, names = [], []
    for raw in metrics:
        name = str(raw).strip()
        key = aliases.get(name) or aliases.get(name.lower())
        if key is None and name in _deprecated_names():
            key = _deprecated_names()[name]
            warnings.warn(f"the metric name {name!r} is deprecated; use {key!r}",
                          FutureWarning, stacklevel=2)
        if key is None:
            raise ValueError(f"unknown metric {name!r}; known: {', '.join(METRICS)}")
        keys.append(key)
        names.append(name)
    named_twice(keys, "metrics", names)  # a repeat is a mistake, not a wish to dedupe
    if not keys:
        raise ValueError("metrics is empty: name at least one metric")
    return keys


def _fmt_bound(x: float) -> str:
    return "∞" if x == math.inf else "-∞" if x == -math.inf else f"{x:g}"


def _better(entry: MetricInfo | CoverMetricInfo) -> str:
    return entry.better if isinstance(entry.better, str) else f"near {entry.better:g}"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")  # a bar would end the table cell


def markdown_table() -> str:
    """The documentation's metric table, generated from the registry (a test keeps them equal)."""
    lines = [
        "| key | score | family | range | better | symmetric | chance-adjusted | reference |",
        "|---|---|---|---|---|---|---|---|",
    ]
    yes = {True: "yes", False: "no"}
    for e in METRICS.values():
        lines.append(
            f"| `{e.key}` | {_cell(e.name)} | {e.family} | [{_fmt_bound(e.lower)}, "
            f"{_fmt_bound(e.upper)}] | {_better(e)} | "
            f"{yes[e.symmetric]} | {yes[e.adjusted]} | {e.reference} |"
        )
    return "\n".join(lines)


def cover_markdown_table() -> str:
    """The documentation's table of cover scores, generated from :data:`COVER_METRICS`."""
    lines = ["| key | score | function and options | range | better | symmetric | reference |",
             "|---|---|---|---|---|---|---|"]
    yes = {True: "yes", False: "no"}
    for e in COVER_METRICS.values():
        options = ", ".join(f"{k}={v!r}" for k, v in e.options.items())
        call = f"`{e.func.__name__}({options})`"
        lines.append(f"| `{e.key}` | {_cell(e.name)} | {call} | [{_fmt_bound(e.lower)}, "
                     f"{_fmt_bound(e.upper)}] | {_better(e)} | {yes[e.symmetric]} | "
                     f"{e.reference} |")
    return "\n".join(lines)
