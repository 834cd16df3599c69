"""Coverage of the bootstrap intervals: how often they hold the population's score.

A population of ``population`` items (10^6 by default) is drawn once per table shape:
true classes uniform over ``n_classes``; each item's predicted cluster is its class with
probability ``keep``, else one of ``n_clusters`` clusters drawn uniformly. Its scores are
the known truth. Then ``n_tables`` samples of ``n`` items each are drawn from it (items
drawn independently, i.e. the sample's table is Multinomial(n, population table / N)),
and every method of :data:`~clustermetrics.inference.bootstrap.METHODS` builds its interval from
the same ``n_boot`` replicates of each sample. Coverage is the share of samples whose
interval holds the population score; its binomial standard error is
sqrt(c (1 - c) / n_tables). Intervals carrying a flag are counted too, and also apart.
"""

from __future__ import annotations

import math
import warnings
import zlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from ..compute.progress import progress_bar
from ..evaluation.evaluate import check_intervals, no_interval_lines, replicate_scores, score_values
from ..inference.bootstrap import (
    METHODS,
    check_bootstrap_options,
    check_method,
    check_seed,
    interval_flags,
    interval_from_replicates,
    jackknife_values,
    replicate_values,
)
from ..render.json_text import dumps
from ..render.tables import Block, Cell, ResultTable, blocks_text
from ..render.text import csv_text, named_twice
from ..scores.registry import METRICS, resolve_metrics
from ..table import Contingency

__all__ = ["CoverageShape", "CoverageRow", "CoverageResult", "SHAPES", "DEFAULT_KEYS",
           "DEFAULT_SIZES", "coverage_study", "population_table"]


class CoverageShape(NamedTuple):
    """A population: ``n_classes`` uniform classes, each item kept in its own cluster
    with probability ``keep``, else put in one of ``n_clusters`` uniformly."""

    key: str
    n_classes: int
    n_clusters: int
    keep: float


SHAPES = {s.key: s for s in (
    CoverageShape("8x10", 8, 10, 0.6),
    CoverageShape("30x40", 30, 40, 0.6),
    CoverageShape("4x4-near-perfect", 4, 4, 0.99),
)}
DEFAULT_KEYS = ("ari", "fmi", "nmi", "v_measure", "ami", "bcubed_f", "recovery_rate",
                "clustering_accuracy")
DEFAULT_SIZES = (250, 500, 1000, 2000)


class CoverageRow(NamedTuple):
    """One (shape, sample size, score, method): coverage over ``n_tables`` samples."""

    shape: str
    n: int
    metric: str
    method: str
    truth: float
    coverage: float
    mean_width: float
    flagged: float  # share of samples whose interval was flagged
    coverage_unflagged: float  # coverage among the unflagged (NaN when none)
    items_per_cell: float  # mean n / nnz of the samples
    n_tables: int
    n_boot: int


def population_table(shape: CoverageShape, population: int, rng: np.random.Generator,
                     ) -> Contingency:
    """The population's table (classes uniform; kept with probability ``keep``)."""
    truth = rng.integers(0, shape.n_classes, population)
    pred = np.where(rng.random(population) < shape.keep, truth,
                    rng.integers(0, shape.n_clusters, population))
    return Contingency.from_labels(truth, pred)


def coverage_study(shapes: Sequence[CoverageShape | str] = tuple(SHAPES),
                   sizes: Sequence[int] = DEFAULT_SIZES,
                   metrics: str | Iterable[str] | None = DEFAULT_KEYS, *,
                   methods: Sequence[str] = METHODS, n_tables: int = 100,
                   n_boot: int = 200, level: float = 0.95, population: int = 10**6,
                   seed: int = 0, progress: bool | None = False,
                   on_row: Callable[[CoverageRow], None] | None = None) -> CoverageResult:
    """Coverage and mean width of each method's interval, per shape, size and score.

    Examples
    --------
    >>> r = coverage_study(["8x10"], [300], ["ari"], methods=["percentile"], n_tables=3,
    ...                    n_boot=20, population=10**4)
    >>> [(row.shape, row.n, row.metric, row.method, row.n_tables) for row in r.rows]
    [('8x10', 300, 'ari', 'percentile', 3)]
    """
    keys = resolve_metrics(metrics)
    # the study measures intervals: a score without one is refused when named, and left
    # out with a warning of every score (metrics=None)
    lacking = check_intervals(keys, metrics is None, "leave it out of the metrics: the "
                              "coverage study measures bootstrap intervals", "metrics")
    for line in no_interval_lines(lacking):
        warnings.warn(line, stacklevel=2)
    keys = [k for k in keys if k not in lacking]
    shapes = [SHAPES[s] if isinstance(s, str) else s for s in shapes]
    for method in methods:
        check_method(method, "methods")
    named_twice([s.key for s in shapes], "shapes")
    named_twice(list(methods), "methods")
    check_bootstrap_options(level, n_boot, ("level", "n_boot"))
    check_seed(seed)
    if not isinstance(seed, (int, np.integer)):
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    for name, value, low in (("n_tables", n_tables, 1), ("population", population, 2)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
            raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
    for n in sizes:
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 2:
            raise ValueError(f"sizes must be integers >= 2, got {n!r}")
    named_twice([int(n) for n in sizes], "sizes")
    bar = progress_bar(len(shapes) * len(sizes) * n_tables, "coverage", progress)
    rows: list[CoverageRow] = []
    try:
        for shape in shapes:  # each shape its own stream: a run of one shape repeats
            rng = np.random.default_rng([seed, zlib.crc32(shape.key.encode())])
            pop = population_table(shape, population, rng)
            truth = score_values(pop, keys)
            p = pop.counts / float(pop.n_samples)
            for n in sizes:
                new = _run_size(shape, pop, p, int(n), keys, truth, methods, n_tables,
                                n_boot, level, rng, bar)
                rows += new
                if on_row is not None:
                    for row in new:
                        on_row(row)
    finally:
        bar.close()
    return CoverageResult(rows, level, seed)


def _run_size(shape, pop, p, n, keys, truth, methods, n_tables, n_boot, level, rng, bar):
    bounds = [(METRICS[k].lower, METRICS[k].upper) for k in keys]
    hit = np.zeros((len(methods), len(keys), n_tables), dtype=bool)
    width = np.full((len(methods), len(keys), n_tables), np.nan)
    flagged = np.zeros((len(keys), n_tables), dtype=bool)
    per_cell = np.empty(n_tables)

    def score(t: Contingency) -> dict[str, float]:
        return score_values(t, keys)

    def score_stack(counts: np.ndarray) -> np.ndarray:
        return replicate_scores(sample, counts, keys)

    for s in range(n_tables):
        sample = pop.with_counts(rng.multinomial(n, p))
        per_cell[s] = sample.n_samples / sample.nnz
        point = np.array([score(sample)[k] for k in keys])
        values = replicate_values(sample, score, keys, n_boot, rng,
                                  score_stack=score_stack)
        jack = weights = None
        if "bca" in methods:
            jack, weights = jackknife_values(sample, score, keys, score_stack)
        for i, k in enumerate(keys):
            kept = values[i][~np.isnan(values[i])]
            flagged[i, s] = bool(interval_flags(sample, kept, float(point[i]), bounds[i]))
            for j, method in enumerate(methods):
                low, high = interval_from_replicates(
                    kept, level, method, float(point[i]), bounds[i],
                    None if jack is None else jack[i], weights)
                hit[j, i, s] = low <= truth[k] <= high
                width[j, i, s] = high - low
        bar.update()
    rows = []
    for i, k in enumerate(keys):
        for j, method in enumerate(methods):
            unflagged = hit[j, i][~flagged[i]]
            rows.append(CoverageRow(
                shape.key, n, k, method, float(truth[k]), float(hit[j, i].mean()),
                float(np.nanmean(width[j, i])) if not np.isnan(width[j, i]).all()
                else math.nan,
                float(flagged[i].mean()),
                float(unflagged.mean()) if unflagged.size else math.nan,
                float(per_cell.mean()), n_tables, n_boot))
    return rows


# --------------------------------------------------------------------- output
@dataclass(frozen=True)
class CoverageResult:
    """The rows of :func:`coverage_study` in every output form."""

    rows: Sequence[CoverageRow]
    level: float = 0.95
    seed: Any = None

    def blocks(self) -> list[Block]:
        """One table per shape: per score and method, coverage and mean width at each
        sample size; items per cell and flagged shares below."""
        blocks: list[Block] = []
        for shape in dict.fromkeys(r.shape for r in self.rows):
            rows = [r for r in self.rows if r.shape == shape]
            sizes = list(dict.fromkeys(r.n for r in rows))
            m = rows[0].n_tables
            se = math.sqrt(self.level * (1 - self.level) / m)
            table: dict[tuple[str, str], dict[int, CoverageRow]] = {}
            for r in rows:
                table.setdefault((r.metric, r.method), {})[r.n] = r
            body = [[metric, method, *(Cell(f"{v[n].coverage:.2f} ({v[n].mean_width:.3f})",
                                            v[n].coverage) if n in v else None
                                       for n in sizes)]
                    for (metric, method), v in table.items()]
            first = {r.n: r for r in rows}
            flags: dict[str, dict[int, float]] = {}
            for r in rows:
                flags.setdefault(r.metric, {})[r.n] = r.flagged
            shares = [f"{k} " + "/".join(f"{v[n]:.2f}" for n in sizes)
                      for k, v in flags.items() if any(v.values())]
            notes = ["items per cell (n / nnz): " + ", ".join(
                f"n={n}: {first[n].items_per_cell:.1f}" for n in sizes),
                "flagged share: " + ("; ".join(shares) if shares else "none")]
            blocks.append(ResultTable(
                ["score", "method", *(f"n={n}" for n in sizes)], body,
                f"shape {shape}: coverage of {self.level:.0%} intervals (mean width) over {m} "
                f"samples, {rows[0].n_boot} replicates each; binomial s.e. at the nominal "
                f"level {se:.3f}", notes, keep=2))
        return blocks

    def format(self) -> str:
        return blocks_text(self.blocks())

    def to_json(self) -> str:
        return dumps([r._asdict() for r in self.rows])

    def to_csv(self) -> str:
        fields = list(CoverageRow._fields)
        return csv_text([fields, *([getattr(r, f) for f in fields] for r in self.rows)])
