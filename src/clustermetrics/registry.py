"""The registry: every score described once.

``evaluate``, the CLI, the README's metric table and the common property tests all read
``METRICS``; adding a score is one function plus one entry here.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .metrics import information as info
from .metrics import marxer_purwins as mp
from .metrics import matching, pairs, recovery

__all__ = ["MetricInfo", "METRICS", "resolve_metrics"]

PAIR, INFO, MATCH = "pair counting", "information", "set matching"
INF = math.inf


@dataclass(frozen=True)
class MetricInfo:
    """One registered score.

    ``func`` takes a :class:`~clustermetrics.Contingency` (plus ``options``) and returns a
    float. ``detail``, when set, returns a richer result (e.g. the recovery matching) whose
    ``rate`` is the score; ``evaluate`` keeps it in ``Report.details``. ``perfect`` is the
    value on identical labellings, or None when it depends on the data (e.g. MI = H).
    ``label_invariant`` is False for scores whose tie-breaking follows label order (the
    paper's greedy recovery rate), so renaming labels may change them. ``optimum`` is set
    for scores that are best at a value rather than high or low (clustering ratio: 1);
    ``higher_is_better`` is then False and rankings should use the distance to ``optimum``.
    """

    key: str
    name: str
    func: Callable[..., Any]
    family: str
    lower: float
    upper: float
    higher_is_better: bool
    symmetric: bool
    adjusted: bool
    reference: str
    perfect: float | None = 1.0
    options: Mapping[str, Any] = field(default_factory=dict)
    detail: Callable[..., Any] | None = None
    label_invariant: bool = True
    optimum: float | None = None

    def compute(self, table: Any) -> tuple[float, Any]:
        """(value, detail-or-None) of this score for ``table``."""
        if self.detail is not None:
            result = self.detail(table, **self.options)
            return float(result.rate), result
        return float(self.func(table, **self.options)), None

    @property
    def range(self) -> tuple[float, float]:
        return (self.lower, self.upper)


_HUBERT = "Hubert & Arabie, J. Classification 2 (1985)"
_VINH = "Vinh, Epps & Bailey, JMLR 11 (2010)"
_ROSENBERG = "Rosenberg & Hirschberg, EMNLP-CoNLL (2007)"
_DESGRAUPES = "Desgraupes, Clustering indices (2013); permetrics PrS/ReS"
_LI_KLETTE = "Li & Klette, Recovery rate of clustering algorithms, PSIVT (2009)"
_MARXER = "Marxer & Purwins, An F-measure for unsupervised clustering (2008)"
_TEXTBOOK = "Full-reference evaluation (seed 004); Zhao & Karypis (2001)"

_ENTRIES = [
    # ------------------------------------------------------------------ pair counting
    MetricInfo("ari", "Adjusted Rand index", pairs.adjusted_rand_score, PAIR, -0.5, 1.0,
               True, True, True, _HUBERT),
    MetricInfo("ri", "Rand index", pairs.rand_score, PAIR, 0.0, 1.0, True, True, False,
               "Rand, JASA 66 (1971)"),
    MetricInfo("fmi", "Fowlkes-Mallows index", pairs.fowlkes_mallows_score, PAIR, 0.0, 1.0,
               True, True, False, "Fowlkes & Mallows, JASA 78 (1983)"),
    MetricInfo("pair_precision", "Pair precision (PrS)", pairs.pair_precision_score, PAIR,
               0.0, 1.0, True, False, False, _DESGRAUPES),
    MetricInfo("pair_recall", "Pair recall (ReS)", pairs.pair_recall_score, PAIR, 0.0, 1.0,
               True, False, False, _DESGRAUPES),
    MetricInfo("pair_f1", "Pair F1", pairs.pair_f_score, PAIR, 0.0, 1.0, True, True, False,
               "Manning et al., Introduction to IR (2008) 16.3"),
    MetricInfo("pair_jaccard", "Pair Jaccard index", pairs.pair_jaccard_score, PAIR, 0.0,
               1.0, True, True, False, "Ben-Hur, Elisseeff & Guyon, PSB (2002)"),
    # ------------------------------------------------------------------ information
    MetricInfo("ami", "Adjusted mutual information", info.adjusted_mutual_info_score, INFO,
               -INF, 1.0, True, True, True, _VINH),
    MetricInfo("nmi", "Normalized mutual information", info.normalized_mutual_info_score,
               INFO, 0.0, 1.0, True, True, False, "Strehl & Ghosh, JMLR 3 (2002)"),
    MetricInfo("mi", "Mutual information (nats)", info.mutual_info_score, INFO, 0.0, INF,
               True, True, False, "Cover & Thomas (2006)", perfect=None),
    MetricInfo("homogeneity", "Homogeneity", info.homogeneity_score, INFO, 0.0, 1.0, True,
               False, False, _ROSENBERG),
    MetricInfo("completeness", "Completeness", info.completeness_score, INFO, 0.0, 1.0, True,
               False, False, _ROSENBERG),
    MetricInfo("v_measure", "V-measure", info.v_measure_score, INFO, 0.0, 1.0, True, True,
               False, _ROSENBERG),
    # ------------------------------------------------------------------ set matching
    MetricInfo("recovery_rate", "Recovery rate (exact)", recovery.recovery_rate, MATCH, 0.0,
               1.0, True, False, False, _LI_KLETTE, detail=recovery.recovery),
    MetricInfo("recovery_rate_greedy", "Recovery rate (greedy, Alg. 2)", recovery.recovery_rate,
               MATCH, 0.0, 1.0, True, False, False, _LI_KLETTE, options={"method": "greedy"},
               detail=recovery.recovery, label_invariant=False),
    MetricInfo("pseudo_recovery_rate", "Pseudo recovery rate", recovery.pseudo_recovery_rate,
               MATCH, 0.0, 1.0, True, False, False, _LI_KLETTE),
    MetricInfo("mp_precision", "Marxer-Purwins precision", mp.marxer_purwins_precision, MATCH,
               0.0, 1.0, True, False, False, _MARXER),
    MetricInfo("mp_recall", "Marxer-Purwins recall", mp.marxer_purwins_recall, MATCH, 0.0,
               1.0, True, False, False, _MARXER),
    MetricInfo("mp_f", "Marxer-Purwins F-measure", mp.marxer_purwins_f, MATCH, 0.0, 1.0,
               True, False, False, _MARXER),
    MetricInfo("best_match_f", "Best-match F-score", matching.best_match_f_score, MATCH, 0.0,
               1.0, True, False, False, _TEXTBOOK),
    MetricInfo("purity", "Purity", matching.purity_score, MATCH, 0.0, 1.0, True, False,
               False, "Zhao & Karypis, Criterion functions for document clustering (2001)"),
    MetricInfo("inverse_purity", "Inverse purity", matching.inverse_purity_score, MATCH, 0.0,
               1.0, True, False, False, "Amigó et al., Information Retrieval 12 (2009)"),
    MetricInfo("clustering_error", "Clustering error", matching.clustering_error, MATCH, 0.0,
               1.0, False, True, False, _TEXTBOOK, perfect=0.0),
    MetricInfo("clustering_accuracy", "Clustering accuracy", matching.clustering_accuracy,
               MATCH, 0.0, 1.0, True, True, False, _TEXTBOOK),
    MetricInfo("clustering_ratio", "Clustering ratio (clusters/classes)",
               matching.clustering_ratio, MATCH, 0.0, INF, False, False, False, _TEXTBOOK,
               optimum=1.0),
]

METRICS: dict[str, MetricInfo] = {}


def register(entry: MetricInfo) -> MetricInfo:
    """Add a score to the registry (keys are unique)."""
    if entry.key in METRICS:
        raise ValueError(f"metric key {entry.key!r} is already registered")
    METRICS[entry.key] = entry
    return entry


for _entry in _ENTRIES:
    register(_entry)

# Peer-breadth scores (issue 6); imported here because registry_extra needs MetricInfo.
from .registry_extra import EXTRA_ENTRIES  # noqa: E402

for _entry in EXTRA_ENTRIES:
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
    return "∞" if x == INF else "-∞" if x == -INF else f"{x:g}"


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
            f"{_fmt_bound(e.upper)}] | {'higher' if e.higher_is_better else 'lower'} | "
            f"{yes[e.symmetric]} | {yes[e.adjusted]} | {e.reference} |"
        )
    return "\n".join(lines)
