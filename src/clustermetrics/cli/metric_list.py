"""The ``metrics`` command: every registered score and its properties."""

from __future__ import annotations

import math

from ..render.json_text import dumps
from ..render.tables import Block, ResultTable, blocks_text
from ..render.text import csv_text
from ..scores.registry import METRICS
from .commands import SUMMARIES
from .output import add_output_options, render

__all__ = ["MetricListing", "add_metrics_command"]


def add_metrics_command(sub) -> None:
    p = sub.add_parser("metrics", help=SUMMARIES["metrics"],
                       description="List every registered metric with its properties.")
    add_output_options(p)
    p.set_defaults(handler=lambda args: render(MetricListing(), args.format))


class MetricListing:
    """The registry as rows: key, name, family, range, direction, symmetry, adjustment,
    reference."""

    def rows(self) -> list[dict]:
        return [{
            "key": e.key, "name": e.name, "family": e.family, "lower": e.lower,
            "upper": e.upper,
            "better": e.better if isinstance(e.better, str) else f"near {e.better:g}",
            "symmetric": e.symmetric, "adjusted_for_chance": e.adjusted,
            "reference": e.reference,
        } for e in METRICS.values()]

    def to_json(self) -> str:  # strict: an unbounded range's end is null
        return dumps(self.rows())

    def to_csv(self) -> str:
        rows = self.rows()
        return csv_text([list(rows[0]), *(list(r.values()) for r in rows)])

    def blocks(self) -> list[Block]:
        def bound(x: float) -> str:
            return "inf" if x == math.inf else "-inf" if x == -math.inf else f"{x:g}"

        cells = [[r["key"], r["name"], r["family"], f"[{bound(r['lower'])}, "
                  f"{bound(r['upper'])}]", r["better"],
                  "yes" if r["symmetric"] else "no",
                  "yes" if r["adjusted_for_chance"] else "no", r["reference"]]
                 for r in self.rows()]
        return [ResultTable(["key", "name", "family", "range", "better", "symmetric",
                             "adjusted", "reference"], cells)]

    def format(self) -> str:
        return blocks_text(self.blocks())
