"""Calibration of the paired test: how often equally good clusterings are called different.

A null shape has ``n_classes`` uniform true classes and two predictions drawn by one
process: each keeps an item's true label with probability ``keep``, else draws one of the
``n_classes`` labels uniformly, independently of the other prediction. A and B are then
equally good by every score (their population values are equal), so every "different at
``alpha``" of :func:`~clustermetrics.paired_comparison` is a false positive. For each
shape and sample size n, ``n_trials`` samples of n items are compared; the
false-positive rate of a score is the share of its unflagged comparisons with
p < ``alpha`` (a flagged comparison gives no p-value, so no verdict), and it should
stay within binomial error of ``alpha``: below ``alpha + 3 sqrt(alpha (1 - alpha) / m)``
over m unflagged comparisons. Few classes and large n make dense tables (K = 3,
n = 2000: hundreds of items per cell), many classes and small n sparse ones (K = 50,
n = 100: about one item per non-zero cell).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from ..compute.progress import progress_bar
from ..evaluation.evaluate import check_intervals, no_interval_lines
from ..evaluation.paired import paired_comparison
from ..inference.bootstrap import check_level, check_seed
from ..render.json_text import dumps
from ..render.tables import Block, Cell, ResultTable, blocks_text
from ..render.text import csv_text, named_twice
from ..scores.registry import resolve_metrics

__all__ = ["CalibrationRow", "CalibrationResult", "DEFAULT_CLASSES", "DEFAULT_KEEPS",
           "DEFAULT_KEYS", "DEFAULT_SIZES", "null_labels", "paired_calibration"]

DEFAULT_KEYS = ("ari", "fmi", "ami", "nmi", "vi", "v_measure", "completeness", "bcubed_f",
                "clustering_accuracy", "recovery_rate")
DEFAULT_CLASSES = (3, 10, 20, 50)
DEFAULT_KEEPS = (0.2, 0.5, 0.9)
DEFAULT_SIZES = (30, 100, 400, 2000)


class CalibrationRow(NamedTuple):
    """One (classes, keep, n, score): false positives over ``trials`` null comparisons."""

    n_classes: int
    keep: float
    n: int
    metric: str
    trials: int
    flagged: int  # comparisons with a flag: no p-value
    rejected: int  # unflagged comparisons with p < alpha
    rate: float  # rejected / unflagged (NaN when every one is flagged)
    limit: float  # alpha + 3 binomial standard errors over the unflagged
    median_df: float  # of the unflagged comparisons' t references
    items_per_cell: float  # mean n / non-zero cells of the truth x A x B table


def null_labels(n_classes: int, keep: float, n: int, rng: np.random.Generator,
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A sample of n items of the null shape: truth, A and B (see the module docstring)."""
    truth = rng.integers(0, n_classes, n)
    a = np.where(rng.random(n) < keep, truth, rng.integers(0, n_classes, n))
    b = np.where(rng.random(n) < keep, truth, rng.integers(0, n_classes, n))
    return truth, a, b


def paired_calibration(classes: Sequence[int] = DEFAULT_CLASSES,
                       keeps: Sequence[float] = DEFAULT_KEEPS,
                       sizes: Sequence[int] = DEFAULT_SIZES,
                       metrics: str | Iterable[str] | None = DEFAULT_KEYS, *,
                       n_trials: int = 200, alpha: float = 0.05, seed: int = 0,
                       progress: bool | None = False,
                       on_row: Callable[[CalibrationRow], None] | None = None,
                       ) -> CalibrationResult:
    """False-positive rate of :func:`~clustermetrics.paired_comparison` at ``alpha``
    per score (``metrics``; None: every score with a resampling interval), on every
    (classes, keep, n) of the grid. Each grid cell draws its samples
    from its own stream of ``seed``, so a run of part of the grid repeats the full run's
    numbers there.

    Examples
    --------
    >>> r = paired_calibration([5], [0.5], [60], ["ari"], n_trials=4)
    >>> [(row.n_classes, row.n, row.metric, row.trials) for row in r.rows]
    [(5, 60, 'ari', 4)]
    """
    keys = resolve_metrics(metrics)
    # the study measures the paired test: a score without one is refused when named, and
    # left out with a warning of every score (metrics=None)
    lacking = check_intervals(keys, metrics is None, "leave it out of the metrics: the "
                              "study measures the paired test", "metrics")
    for line in no_interval_lines(lacking):
        warnings.warn(line, stacklevel=2)
    keys = [k for k in keys if k not in lacking]
    for values, name in ((classes, "classes"), (keeps, "keeps"), (sizes, "sizes")):
        named_twice(list(values), name)
    check_level(alpha, "alpha")
    check_seed(seed)
    if not isinstance(seed, (int, np.integer)):
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    _check_integers(n_trials, "n_trials", 1)
    for k in classes:
        _check_integers(k, "classes", 2)
    for n in sizes:
        _check_integers(n, "sizes", 2)
    for keep in keeps:
        if isinstance(keep, bool) or not isinstance(keep, (int, float)) \
                or not 0.0 <= keep <= 1.0:
            raise ValueError(f"keeps must be probabilities in [0, 1], got {keep!r}")
    bar = progress_bar(len(classes) * len(keeps) * len(sizes) * n_trials,
                       "paired calibration", progress)
    rows: list[CalibrationRow] = []
    try:
        for k in classes:
            for keep in keeps:
                for n in sizes:
                    rng = np.random.default_rng([seed, int(k), round(keep * 10**6), int(n)])
                    new = _grid_cell(int(k), float(keep), int(n), keys, n_trials, alpha,
                                     rng, bar.update)
                    rows += new
                    for row in new if on_row is not None else ():
                        on_row(row)
    finally:
        bar.close()
    return CalibrationResult(rows, alpha, seed)


def _check_integers(value: Any, name: str, low: int) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise ValueError(f"{name} must be integers >= {low}, got {value!r}")


def _grid_cell(k: int, keep: float, n: int, keys: list[str], n_trials: int, alpha: float,
               rng: np.random.Generator, step: Callable[[], Any]) -> list[CalibrationRow]:
    flagged = np.zeros((len(keys), n_trials), dtype=bool)
    rejected = np.zeros((len(keys), n_trials), dtype=bool)
    df = np.full((len(keys), n_trials), np.nan)
    per_cell = np.empty(n_trials)
    for trial in range(n_trials):
        t, a, b = null_labels(k, keep, n, rng)
        per_cell[trial] = n / np.unique(np.stack([t, a, b]), axis=1).shape[1]
        with warnings.catch_warnings():  # a score undefined on a table: NaN, counted
            warnings.simplefilter("ignore")
            result = paired_comparison(t, a, b, keys, ci=1.0 - alpha, progress=False)
        for i, key in enumerate(keys):
            s = result[key]
            flagged[i, trial] = bool(s.flags) or math.isnan(s.pvalue)
            rejected[i, trial] = s.significant()
            df[i, trial] = s.df
        step()
    rows = []
    for i, key in enumerate(keys):
        tested = int(n_trials - flagged[i].sum())
        dfs = df[i][~flagged[i] & np.isfinite(df[i])]
        rows.append(CalibrationRow(
            k, keep, n, key, n_trials, int(flagged[i].sum()), int(rejected[i].sum()),
            float(rejected[i].sum() / tested) if tested else math.nan,
            alpha + 3.0 * math.sqrt(alpha * (1.0 - alpha) / tested) if tested else math.nan,
            float(np.median(dfs)) if dfs.size else math.nan, float(per_cell.mean())))
    return rows


# --------------------------------------------------------------------- output
@dataclass(frozen=True)
class CalibrationResult:
    """The rows of :func:`paired_calibration` in every output form."""

    rows: Sequence[CalibrationRow]
    alpha: float = 0.05
    seed: Any = None

    @property
    def above_limit(self) -> list[CalibrationRow]:
        """The rows whose false-positive rate is above their binomial limit."""
        return [r for r in self.rows if r.rate > r.limit]

    def blocks(self) -> list[Block]:
        """One table per (classes, keep): per score, the false-positive rate at each n
        (``*`` above the binomial limit, flagged share in parentheses when any)."""
        m = self.rows[0].trials if self.rows else 0
        blocks: list[Block] = [
            f"false-positive rate of the paired test at alpha = {self.alpha:g} on equally "
            f"good clusterings, {m} samples per cell; * above alpha + 3 binomial standard "
            f"errors ({_limit(self.alpha, m):.3f} when none is flagged); (x%) the share "
            "flagged, without a p-value"]
        for shape in dict.fromkeys((r.n_classes, r.keep) for r in self.rows):
            rows = [r for r in self.rows if (r.n_classes, r.keep) == shape]
            sizes = list(dict.fromkeys(r.n for r in rows))
            table: dict[str, dict[int, CalibrationRow]] = {}
            for r in rows:
                table.setdefault(r.metric, {})[r.n] = r
            body = [[metric, *(Cell(_cell(v[n]), v[n].rate) if n in v else None
                               for n in sizes)] for metric, v in table.items()]
            first = {r.n: r for r in rows}
            blocks.append(ResultTable(
                ["score", *(f"n={n}" for n in sizes)], body,
                f"{shape[0]} classes, keep {shape[1]:g} (items per cell: "
                + ", ".join(f"n={n}: {first[n].items_per_cell:.1f}" for n in sizes) + ")"))
        over = self.above_limit
        blocks.append(f"above the limit: {len(over)} of {len(self.rows)}" + (
            ": " + "; ".join(f"{r.metric} {r.n_classes}x keep {r.keep:g} n={r.n} "
                             f"{r.rate:.3f} > {r.limit:.3f}" for r in over) if over else ""))
        return blocks

    def format(self) -> str:
        return blocks_text(self.blocks())

    def to_json(self) -> str:
        return dumps({"alpha": self.alpha, "seed": self.seed,
                      "rows": [r._asdict() for r in self.rows]})

    def to_csv(self) -> str:
        fields = list(CalibrationRow._fields)
        return csv_text([fields, *([getattr(r, f) for f in fields] for r in self.rows)])


def _limit(alpha: float, m: int) -> float:
    return alpha + 3.0 * math.sqrt(alpha * (1.0 - alpha) / m) if m else math.nan


def _cell(r: CalibrationRow) -> str:
    text = "-" if math.isnan(r.rate) else f"{r.rate:.3f}" + ("*" if r.rate > r.limit else "")
    return text + (f" ({r.flagged / r.trials:.1%})" if r.flagged else "")
