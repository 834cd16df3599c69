"""What the paired comparison of two clusterings returns
(:func:`clustermetrics.evaluation.paired.paired_comparison`): one :class:`PairedScore`
per score, gathered in a :class:`PairedComparison`, rendered as a text table, JSON or CSV.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from ..render.json_text import dumps
from ..render.tables import Block, Cell, Column, ResultTable, blocks_text
from ..render.text import csv_text, pvalue_text, visible

__all__ = ["FLAG_CONSTANT", "FLAG_UNDEFINED", "METHOD", "PairedComparison", "PairedScore"]

FLAG_CONSTANT = "no leave-one-out variation"
FLAG_UNDEFINED = "undefined on every leave-one-out table"
METHOD = "paired jackknife, Student t with Satterthwaite's degrees of freedom"


@dataclass(frozen=True)
class PairedScore:
    """One score of A and B on the same truth, and what the paired jackknife says of
    ``difference = a - b``: its standard error ``se``, the degrees of freedom ``df`` of
    its t reference, its ``interval`` at ``level`` and the two-sided ``pvalue`` of "no
    difference", which is below 1 - ``level`` exactly when the interval excludes 0.
    ``better`` names the better clustering ("a", "b", or "tie" when the values are
    equal), by the score's own direction. ``flags`` name why no interval and no p-value
    could be given (both NaN then). ``n_skipped``: items whose leave-one-out table the
    score is undefined on (left out of the jackknife)."""

    key: str
    a: float
    b: float
    difference: float
    interval: tuple[float, float]
    pvalue: float
    better: str
    se: float = math.nan
    df: float = math.nan
    level: float = 0.95
    flags: tuple[str, ...] = ()
    n_skipped: int = 0

    def significant(self, alpha: float | None = None) -> bool:
        """p < ``alpha`` (default 1 - ``level``: exactly when the interval excludes 0);
        False when flagged (no p-value)."""
        return bool(self.pvalue < (1.0 - self.level if alpha is None else alpha))


@dataclass(frozen=True)
class PairedComparison:
    """Result of :func:`.paired.paired_comparison`: one :class:`PairedScore` per key.
    ``n_items``: the items the jackknife leaves out (``n_samples`` is their total weight
    with ``sample_weight``); ``sampled``: a systematic sample of them stood for all
    (more than :data:`.jackknife.JACKKNIFE_MAX_CELLS` cells)."""

    scores: dict[str, PairedScore]
    level: float
    n_samples: int | float  # the total weight, a float with real weights
    n_items: int
    names: tuple[str, str] = ("a", "b")
    notes: list[str] = field(default_factory=list)
    sampled: bool = False

    def __getitem__(self, key: str) -> PairedScore:
        return self.scores[key]

    def to_dict(self) -> dict[str, Any]:
        return {"n_samples": self.n_samples, "n_items": self.n_items, "level": self.level,
                "method": METHOD, "sampled": self.sampled, "names": list(self.names),
                "notes": list(self.notes),
                "scores": {k: {"a": s.a, "b": s.b, "difference": s.difference,
                               "interval": list(s.interval), "se": s.se, "df": s.df,
                               "pvalue": s.pvalue, "significant": s.significant(),
                               "better": s.better, "flags": list(s.flags),
                               "skipped": s.n_skipped}
                           for k, s in self.scores.items()}}

    def to_json(self) -> str:
        return dumps(self.to_dict())

    def to_csv(self) -> str:
        header = ["score", self.names[0], self.names[1], "difference", "low", "high", "se",
                  "df", "pvalue", "significant", "better", "flags", "skipped"]
        rows = [[key, s.a, s.b, s.difference, *s.interval, s.se, s.df, s.pvalue,
                 s.significant(),
                 {"a": self.names[0], "b": self.names[1]}.get(s.better, s.better),
                 "; ".join(s.flags), s.n_skipped] for key, s in self.scores.items()]
        return csv_text([header, *rows])

    def blocks(self) -> list[Block]:
        """The table of every score of A and B, their difference with its interval and
        p-value, and which is better; the notes and flags below."""
        a, b = self.names
        size = (f"items of total weight {self.n_samples:.6g} ({self.n_items} items)"
                if isinstance(self.n_samples, float) else f"N = {self.n_samples} items")
        alpha = f"{1 - self.level:.3g}"
        rows = [[key, s.a, s.b, s.difference,
                 None if s.flags else Cell("undefined") if math.isnan(s.interval[0]) else
                 Cell(f"[{s.interval[0]:+.4f}, {s.interval[1]:+.4f}]", s.interval[0]),
                 None if s.flags else Cell(pvalue_text(s.pvalue), s.pvalue),
                 {"a": a, "b": b, "tie": "tie"}[s.better],
                 "! no verdict" if s.flags else "yes" if s.significant() else "no",
                 s.n_skipped]
                for key, s in self.scores.items()]
        head = (f"paired jackknife over {size}: t intervals of the difference "
                "(Satterthwaite's degrees of freedom)"
                + (", a stratified sample of the items left out" if self.sampled else ""))
        notes = [*(visible(note, backslash=False) for note in self.notes),
                 *_flag_notes(self.scores)]
        return [ResultTable(["score", Column(a, ".4f"), Column(b, ".4f"),
                             Column("difference", "+.4f"),
                             Column(f"{self.level * 100:g}% interval", align="left"),
                             "p-value", "better", f"significant at {alpha}", "items skipped"],
                            rows, head, notes)]

    def format(self) -> str:
        return blocks_text(self.blocks())

    def __str__(self) -> str:
        return self.format()


def _flag_notes(scores: dict[str, PairedScore]) -> list[str]:
    """One line per flag, naming the scores it marks."""
    by_flag: dict[str, list[str]] = {}
    for key, s in scores.items():
        for flag in s.flags:
            by_flag.setdefault(flag, []).append(key)
    return [f"! {flag} ({', '.join(keys)}): {_FLAG_WHY[flag]}"
            for flag, keys in by_flag.items()]


_FLAG_WHY = {
    FLAG_CONSTANT: "the clusterings differ, but leaving out any one item leaves the "
                   "difference as it is, so the jackknife sees no spread: no interval and "
                   "no p-value",
    FLAG_UNDEFINED: "no leave-one-out table could be scored (a single item, or the score "
                    "is undefined on each): no interval and no p-value",
}
