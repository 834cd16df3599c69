"""The chance-level study of scikit-learn's clustering-evaluation guide.

Two experiments, each for every registered score: (1) two independent uniform random
labelings of 100 samples with the same number of clusters k; (2) uniform random labelings
of 1,000 samples with k clusters against one fixed random truth of 10 classes; k runs
over 10 values from 2 to 100 and each point is the mean (and standard deviation) over
``n_repeats`` draws. Scores adjusted for chance (ARI, AMI, ...) stay near 0 everywhere;
the others drift with k. Labels come from one seeded numpy ``Generator``; each draw's
table is built once and every score comes from it through :func:`~clustermetrics.evaluate`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ..compute.progress import progress_bar
from ..evaluation.evaluate import evaluate
from ..inference.bootstrap import check_seed
from ..render.json_text import dumps
from ..render.tables import Block, Column, ResultTable, blocks_text
from ..render.text import csv_text
from ..scores.registry import METRICS, resolve_metrics
from ..table import Contingency

__all__ = ["ChanceSetup", "ChanceCurves", "ChanceResult", "SETUPS", "chance_study", "chance_text",
           "chance_json", "chance_csv"]


class ChanceSetup(NamedTuple):
    """One experiment: ``n_classes=None`` draws both labelings with k clusters."""

    key: str
    title: str
    n_samples: int
    n_classes: int | None
    k_max: int


SETUPS = (
    ChanceSetup("equal", "2 random uniform labelings with equal number of clusters",
                100, None, 100),
    ChanceSetup("fixed", "random uniform labeling against a reference of 10 classes",
                1000, 10, 100),
)


@dataclass
class ChanceCurves:
    """Mean and standard deviation of each score at each k, for one setup."""

    setup: ChanceSetup
    ks: np.ndarray
    mean: dict[str, np.ndarray]
    std: dict[str, np.ndarray]
    n_repeats: int
    seed: int | None = None

    def to_rows(self) -> list[dict]:
        return [{"experiment": self.setup.key, "n_samples": self.setup.n_samples,
                 "n_classes": self.setup.n_classes, "k": int(k), "metric": m,
                 "adjusted": METRICS[m].adjusted, "mean": float(self.mean[m][i]),
                 "std": float(self.std[m][i]), "repeats": self.n_repeats,
                 "seed": self.seed}
                for m in self.mean for i, k in enumerate(self.ks)]


def chance_study(metrics: str | Iterable[str] | None = None, *,
                 setups: Sequence[ChanceSetup] = SETUPS, n_repeats: int = 5,
                 n_points: int = 10, seed: int = 42,
                 progress: bool | None = False) -> list[ChanceCurves]:
    """Run the chance experiments for the given scores (default: every registered one).

    Examples
    --------
    >>> small = ChanceSetup("equal", "small", 60, None, 30)
    >>> (c,) = chance_study(["ari", "ri"], setups=[small], n_repeats=3, n_points=3)
    >>> c.ks.tolist(), bool(abs(c.mean["ari"]).max() < 0.1), bool(c.mean["ri"][-1] > 0.9)
    ([2, 16, 30], True, True)
    """
    keys = resolve_metrics(metrics)
    for name, value in (("n_repeats", n_repeats), ("n_points", n_points)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{name} must be a positive integer, got {value!r}")
    check_seed(seed)
    rng = np.random.default_rng(seed)
    plans = [(s, _ks(s, n_points)) for s in setups]
    bar = progress_bar(sum(len(ks) for _, ks in plans) * n_repeats, "chance", progress)
    try:
        curves = [_run_setup(s, ks, keys, n_repeats, rng, bar) for s, ks in plans]
    finally:
        bar.close()
    for c in curves:
        c.seed = seed
    return curves


def _ks(setup: ChanceSetup, n_points: int) -> np.ndarray:
    if setup.k_max < 2 or setup.n_samples < 2:
        raise ValueError(f"setup {setup.key!r} needs n_samples >= 2 and k_max >= 2")
    if n_points > setup.k_max - 1:  # more would repeat values of k
        raise ValueError(f"n_points must be at most {setup.k_max - 1} (k = 2 .. "
                         f"{setup.k_max}), got {n_points}")
    return np.unique(np.linspace(2, setup.k_max, n_points).astype(np.int64))


def _run_setup(setup: ChanceSetup, ks: np.ndarray, keys: list[str], n_repeats: int,
               rng: np.random.Generator, bar) -> ChanceCurves:
    values = {m: np.empty((ks.shape[0], n_repeats)) for m in keys}
    fixed = None if setup.n_classes is None else \
        rng.integers(0, setup.n_classes, size=setup.n_samples)
    for i, k in enumerate(ks):
        for j in range(n_repeats):
            truth = rng.integers(0, k, size=setup.n_samples) if fixed is None else fixed
            pred = rng.integers(0, k, size=setup.n_samples)
            report = evaluate(Contingency.from_labels(truth, pred), metrics=keys)
            for m in keys:
                values[m][i, j] = report[m]
            bar.update()
    return ChanceCurves(setup, ks, {m: v.mean(axis=1) for m, v in values.items()},
                        {m: v.std(axis=1) for m, v in values.items()}, n_repeats)


# --------------------------------------------------------------------- output
def chance_blocks(curves: Sequence[ChanceCurves]) -> list[Block]:
    """Per experiment: one row per score, the mean at each k; adjusted scores first."""
    blocks: list[Block] = []
    for c in curves:
        s = c.setup
        keys = sorted(c.mean, key=lambda m: (not METRICS[m].adjusted, list(c.mean).index(m)))
        header = ["score", "adj", *(Column(f"k={k}", ".3f") for k in c.ks),
                  Column("max sd", ".3f")]
        rows = [[m, "yes" if METRICS[m].adjusted else "", *c.mean[m].tolist(),
                 float(c.std[m].max())] for m in keys]
        seed = "" if c.seed is None else f", seed {c.seed}"
        blocks.append(ResultTable(header, rows, f"{s.title} (n_samples = {s.n_samples}; mean "
                                  f"of {c.n_repeats} draws per k{seed})", keep=2))
    return blocks


def chance_text(curves: Sequence[ChanceCurves]) -> str:
    """:func:`chance_blocks` as text."""
    return blocks_text(chance_blocks(curves))


def chance_json(curves: Sequence[ChanceCurves]) -> str:
    """Strict JSON, one object per (experiment, k, score)
    (:mod:`clustermetrics.render.json_text`)."""
    return dumps([row for c in curves for row in c.to_rows()])


def chance_csv(curves: Sequence[ChanceCurves]) -> str:
    rows = [row for c in curves for row in c.to_rows()]
    fields = list(rows[0])
    return csv_text([fields, *([r[f] for f in fields] for r in rows)])


@dataclass(frozen=True)
class ChanceResult:
    """The curves of :func:`chance_study` in every output form."""

    curves: Sequence[ChanceCurves]

    def blocks(self) -> list[Block]:
        return chance_blocks(self.curves)

    def format(self) -> str:
        return blocks_text(self.blocks())

    def to_json(self) -> str:
        return chance_json(self.curves)

    def to_csv(self) -> str:
        return chance_csv(self.curves)

