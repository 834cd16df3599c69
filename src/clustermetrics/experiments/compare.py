"""Run clustering algorithms on datasets with a known truth and score every run.

Each run fits one algorithm on one dataset and calls :func:`clustermetrics.evaluate`
once: the contingency table is built once per run and every registered score comes from
it. The recovery rates' own times (exact matching, greedy Algorithm 2, pseudo) are the
``Report.timings`` of those three scores.
"""

from __future__ import annotations

import math
import time
import warnings
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..compute.progress import progress_bar
from ..evaluation.evaluate import evaluate
from ..evaluation.paired import paired_comparison
from ..inference.bootstrap import check_seed
from ..inference.noise import NOISE_MODES
from ..render.json_text import dumps
from ..render.tables import Block, Cell, Column, ResultTable, blocks_text
from ..render.text import csv_text, pvalue_text, visible
from ..scores.registry import METRICS, resolve_metrics
from ..table import Contingency
from .algorithms import ALGORITHMS, MAX_PAIRWISE, MAX_SEED, SEED_RANGE, Fitted, resolve_algorithms
from .datasets import Dataset
from .hierarchy_study import CurveResult, dataset_curve
from .plain_text import percent_column, seconds

__all__ = ["Run", "Comparison", "compare", "runs_table", "runs_json", "runs_csv", "RECOVERY_KEYS",
           "captured_warnings", "merge_counts", "table_metrics", "mark_near_best", "holm",
           "NearBest"]

NOISE_CHOICES = ("cluster", *NOISE_MODES)  # "cluster": the noise label scored as is
RECOVERY_KEYS = {"exact": "recovery_rate", "greedy": "recovery_rate_greedy",
                 "pseudo": "pseudo_recovery_rate"}
_SUMMARY = ("ari", "ami", "nmi", "v_measure")


@dataclass(frozen=True)
class NearBest:
    """How a run compares with the best run on its dataset by ``key``: the paired
    jackknife t test's p-value of "no difference" (Holm-adjusted over the dataset's runs)
    and whether the run is not significantly worse than the best at ``alpha``.

    ``difference`` is the run's score minus the best run's, ``interval`` the t interval
    of that difference at ``level`` and ``raw_pvalue`` its p-value before the adjustment
    (NaN for the best run itself); ``n_skipped`` the items whose leave-one-out tables the
    score is undefined on for either run (left out of the jackknife). ``flags``: why the
    test could not judge this comparison
    (:attr:`clustermetrics.evaluation.paired_results.PairedScore.flags`);
    the p-values are then NaN, the run is neither near the best nor worse, and the others'
    adjustment counts only the comparisons judged."""

    key: str
    best: str
    pvalue: float
    alpha: float
    is_best: bool = False
    difference: float = 0.0
    interval: tuple[float, float] = (math.nan, math.nan)
    raw_pvalue: float = math.nan
    level: float = 0.95
    n_skipped: int = 0
    flags: tuple[str, ...] = ()

    @property
    def tied(self) -> bool:
        """Not significantly worse than the best (False when the test could not judge)."""
        return not self.flags and not self.pvalue < self.alpha


@dataclass
class Run:
    """One algorithm on one dataset: its scores and timings.

    ``k`` is the number of clusters asked for (None for algorithms that choose it),
    ``n_clusters`` the number found; ``recovery_seconds`` holds the time of the exact,
    greedy and pseudo recovery rates; ``labels`` the predicted labels of every point
    (HDBSCAN's noise is -1; ``table`` shows how it was scored); ``warnings`` the warnings
    the algorithm (scikit-learn) and the scoring raised, one line each, with their count
    (:func:`captured_warnings`): they are shown in every output instead of the terminal.
    """

    dataset: str
    algorithm: str
    seed: int
    k: int | None
    fit_seconds: float
    scores: dict[str, float]
    recovery_seconds: dict[str, float]
    note: str
    table: Contingency = field(repr=False)
    labels: np.ndarray = field(repr=False)
    warnings: list[str] = field(default_factory=list)
    curve: CurveResult | None = field(default=None, repr=False)
    near_best: NearBest | None = None

    @property
    def n_samples(self) -> int:
        return self.table.n_samples

    @property
    def n_classes(self) -> int:
        return self.table.n_classes

    @property
    def n_clusters(self) -> int:
        return self.table.n_clusters

    def rate(self, method: str) -> float:
        """The ``exact``, ``greedy`` or ``pseudo`` recovery rate."""
        return self.scores[RECOVERY_KEYS[method]]

    def to_dict(self) -> dict[str, Any]:
        return {"dataset": self.dataset, "algorithm": self.algorithm, "seed": self.seed,
                "k": self.k, "n_samples": self.n_samples, "n_classes": self.n_classes,
                "n_clusters": self.n_clusters, "fit_seconds": self.fit_seconds,
                "recovery_seconds": dict(self.recovery_seconds), "note": self.note,
                "warnings": list(self.warnings), "scores": dict(self.scores),
                **({"curve": _curve_dict(self.curve)} if self.curve is not None else {}),
                **({"near_best": {"key": self.near_best.key, "best": self.near_best.best,
                                  "difference": self.near_best.difference,
                                  "interval": list(self.near_best.interval),
                                  "level": self.near_best.level,
                                  "pvalue": self.near_best.raw_pvalue,
                                  "pvalue_holm": self.near_best.pvalue,
                                  "alpha": self.near_best.alpha,
                                  "flags": list(self.near_best.flags),
                                  "not_significantly_worse": None if self.near_best.flags
                                  else self.near_best.tied,
                                  "skipped": self.near_best.n_skipped}}
                   if self.near_best is not None else {})}


def _curve_dict(curve: CurveResult) -> dict[str, Any]:
    return {"source": curve.source,
            "best": {key: {"n_clusters": k, "value": v, "at_true_k": t}
                     for key, k, v, t in curve.rows()},
            "notes": list(curve.scores.notes)}


def compare(datasets: Sequence[Dataset], algorithms: str | Iterable[str] | None = None, *,
            k: int | Sequence[int] | None = None, seed: int = 0, noise: str = "cluster",
            metrics: str | Iterable[str] | None = None, max_pairwise: int = MAX_PAIRWISE,
            progress: bool | None = False, cache: dict | None = None,
            desc: str = "compare", curves: bool = False) -> list[Run]:
    """Every algorithm on every dataset, scored by every (or the given) registered score.

    ``k`` is the number of clusters given to the algorithms that take one: None means
    each dataset's true number of classes, a sequence sweeps them (the others then run
    once per dataset). ``noise`` says how HDBSCAN's noise label -1 is scored: "cluster"
    (one cluster of its own), "singletons" (each noise point its own cluster) or "exclude"
    (only the clustered points; see :mod:`clustermetrics.inference.noise`). ``cache`` (a dict,
    reused
    across calls) keeps the labels of algorithms whose result does not depend on the seed.
    ``progress`` shows a bar labelled ``desc`` (None: when stderr is a terminal).
    ``curves``: the agglomerative algorithms (ward, average) also score every cut of
    their tree (:func:`~clustermetrics.score_hierarchy`; on the subsample of
    ``max_pairwise`` points when the data are larger), kept in ``Run.curve``.

    Examples
    --------
    >>> from clustermetrics.experiments.datasets import load_dataset
    >>> runs = compare([load_dataset("overlapping", n_clusters=3, n_per_cluster=30)],
    ...                ["kmeans"], metrics=["ari"])
    >>> (runs[0].algorithm, runs[0].k, runs[0].n_samples, 0 <= runs[0].rate("exact") <= 1)
    ('kmeans', 3, 90, True)
    """
    names = resolve_algorithms(algorithms)
    if noise not in NOISE_CHOICES:
        raise ValueError(f"noise must be one of {', '.join(NOISE_CHOICES)}, got {noise!r}")
    check_seed(seed, "seed", MAX_SEED, SEED_RANGE)
    if isinstance(max_pairwise, bool) or not isinstance(max_pairwise, (int, np.integer)) \
            or max_pairwise < 1:
        raise ValueError(f"max_pairwise must be a positive integer, got {max_pairwise!r}")
    keys = list(dict.fromkeys(resolve_metrics(metrics) + list(RECOVERY_KEYS.values())))
    plan = [(d, name, kk) for d in datasets for name in names for kk in _ks(d, name, k)]
    for d, name, kk in plan:
        if name in ("ward", "average") and d.X.shape[0] > max_pairwise \
                and (kk or len(np.unique(d.y))) > max_pairwise:
            raise ValueError(f"max_pairwise {max_pairwise} is smaller than k = "
                             f"{kk or len(np.unique(d.y))} for {name} on {d.name}: the "
                             "subsample it fits must hold at least k points")
    bar = progress_bar(len(plan), desc, progress)
    runs = []
    try:
        for dataset, name, kk in plan:
            bar.set_postfix_str(f"{dataset.name} {name}")
            runs.append(_run(dataset, name, kk, seed, keys, noise, max_pairwise, cache))
            bar.update()
    finally:
        bar.close()
    if curves:
        _add_curves(runs, datasets, keys, seed, max_pairwise)
    return runs


AGGLOMERATIVE_METHODS = ("ward", "average")


def _add_curves(runs: list[Run], datasets: Sequence[Dataset], keys: list[str], seed: int,
                max_pairwise: int) -> None:
    """Every cut of each agglomerative tree, once per dataset and algorithm."""
    by_name = {d.name: d for d in datasets}
    shown = list(dict.fromkeys([*_SUMMARY, *keys]))
    done: dict[tuple[str, str], CurveResult] = {}
    for run in runs:
        if run.algorithm not in AGGLOMERATIVE_METHODS:
            continue
        key = (run.dataset, run.algorithm)
        if key not in done:
            done[key] = dataset_curve(by_name[run.dataset], run.algorithm,
                                      max_points=max_pairwise, seed=seed,
                                      metrics=[k for k in shown if k in keys])
        run.curve = done[key]


def _ks(dataset: Dataset, name: str, k: int | Sequence[int] | None) -> list[int | None]:
    if not ALGORITHMS[name].uses_k:
        return [None]
    n = dataset.X.shape[0]
    ks = [len(np.unique(dataset.y))] if k is None else [k] if np.isscalar(k) else list(k)
    for value in ks:
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) \
                or not 1 <= value <= n:
            raise ValueError(f"k must be an integer between 1 and the number of points "
                             f"({n}) of {dataset.name}, got {value!r}")
    return [int(v) for v in ks]


def _run(dataset: Dataset, name: str, k: int | None, seed: int, keys: list[str],
         noise: str, max_pairwise: int, cache: dict | None) -> Run:
    k_fit = k if k is not None else len(np.unique(dataset.y))
    fitted, fit_seconds, fit_warnings = _fit(dataset, name, k_fit, seed, max_pairwise, cache)
    labels, note = fitted.labels, fitted.note
    # the noise rule of evaluate (clustermetrics.inference.noise), all-noise labelings included:
    # singletons score N one-item clusters, exclude has nothing left (an error)
    rewrite = noise != "cluster" and bool((labels == -1).any())
    if rewrite and noise == "exclude" and (labels == -1).all():
        raise ValueError(f"{name} on {dataset.name}"
                         + (f" (k = {k})" if k is not None else "")
                         + ": every point is noise, so excluding the noise points (noise "
                         "'exclude') leaves nothing to score; score them as singletons or "
                         "as one cluster instead")
    report, score_warnings = captured_warnings(lambda: evaluate(
        dataset.y, labels, metrics=keys, noise_label=-1 if rewrite else None,
        noise=noise if rewrite else None))
    if rewrite:
        what = "dropped" if noise == "exclude" else "scored as singleton clusters"
        every = "every point is noise: " if report.noise.n_noise == labels.shape[0] else ""
        n_noise = report.noise.n_noise
        note = f"{every}{n_noise:,} noise point{'' if n_noise == 1 else 's'} {what}"
    timings = {m: report.timings[key] for m, key in RECOVERY_KEYS.items()}
    return Run(dataset.name, name, seed, k, fit_seconds, dict(report), timings, note,
               report.table, labels, merge_counts(fit_warnings + score_warnings))


def captured_warnings(work: Callable[[], Any]) -> tuple[Any, list[str]]:
    """``work()``'s result and the warnings it raised, kept off the terminal: one line
    each, ``Category: first line of the message`` (no source line)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = work()
    lines = [f"{w.category.__name__}: {str(w.message).strip().splitlines()[0]}"
             if str(w.message).strip() else w.category.__name__ for w in caught]
    return result, lines


def merge_counts(lines: list[str]) -> list[str]:
    """Equal lines once, with ``(xN)`` when they repeat; first-seen order.

    >>> merge_counts(["a", "b", "a"])
    ['a (x2)', 'b']
    """
    counts = Counter(lines)
    return [line if counts[line] == 1 else f"{line} (x{counts[line]})"
            for line in dict.fromkeys(lines)]


def _fit(dataset: Dataset, name: str, k: int, seed: int, max_pairwise: int,
         cache: dict | None) -> tuple[Fitted, float, list[str]]:
    spec = ALGORITHMS[name]
    key = (dataset.name, dataset.X.shape, name, k if spec.uses_k else None, max_pairwise)
    if cache is not None and not spec.seeded and key in cache:
        return cache[key]
    start = time.perf_counter()
    try:
        fitted, caught = captured_warnings(lambda: spec.fit(dataset.X, k, seed, max_pairwise))
    except (ValueError, ArithmeticError, LookupError, TypeError, RuntimeError) as exc:
        # scikit-learn's own failure on these data (one sample, overflowing features...):
        # one message naming the run, not a traceback from inside scikit-learn
        raise ValueError(f"{name} failed on {dataset.name}"
                         + (f" (k = {k})" if spec.uses_k else "")
                         + f": {type(exc).__name__}: {exc}") from exc
    result = (fitted, time.perf_counter() - start, caught)
    if cache is not None and not spec.seeded:
        cache[key] = result
    return result


def mark_near_best(runs: Sequence[Run], truths: dict[str, np.ndarray], key: str, *,
                   alpha: float = 0.05, noise: str = "cluster", level: float = 0.95) -> None:
    """Set each run's :class:`NearBest`: per dataset, the best run by ``key`` is compared
    with every other run by the paired jackknife t test over the items
    (:func:`~clustermetrics.paired_comparison`), and the p-values of the comparisons
    it judges are adjusted for their number by Holm's step-down method (Holm, Scand. J.
    Statist. 6, 1979).
    A run is "near the best" when its adjusted p-value is not below ``alpha``; ``level``
    is that of the intervals of the differences."""
    entry = METRICS[resolve_metrics(key)[0]]
    noise_options = {} if noise == "cluster" else {"noise_label": -1, "noise": noise}
    for name in dict.fromkeys(r.dataset for r in runs):
        group = [r for r in runs if r.dataset == name]
        best = group[0]
        for r in group[1:]:
            if entry.is_better(r.scores[entry.key], best.scores[entry.key]):
                best = r
        others = [r for r in group if r is not best]
        # A = the run, B = the best: the difference is the run's score minus the best's
        paired = [paired_comparison(truths[name], r.labels, best.labels, entry.key,
                                      ci=level, **noise_options)[entry.key] for r in others]
        label = best.algorithm + ("" if best.k is None else f" (k = {best.k})")
        best.near_best = NearBest(entry.key, label, 1.0, alpha, is_best=True, level=level)
        judged = [i for i, s in enumerate(paired) if not s.flags]
        adjusted = dict(zip(judged, holm([paired[i].pvalue for i in judged]), strict=True))
        for i, (r, s) in enumerate(zip(others, paired, strict=True)):
            r.near_best = NearBest(entry.key, label, adjusted.get(i, math.nan), alpha,
                                   difference=s.difference, interval=s.interval,
                                   raw_pvalue=s.pvalue, level=level, n_skipped=s.n_skipped,
                                   flags=s.flags)


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the input order.

    >>> holm([0.01, 0.04, 0.03])
    [0.03, 0.06, 0.06]
    """
    order = np.argsort(pvalues, kind="stable")
    m, out, running = len(pvalues), [0.0] * len(pvalues), 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        out[i] = running
    return out


# --------------------------------------------------------------------- output
def table_metrics(runs: Sequence[Run], metrics: Sequence[str] | None = None) -> list[str]:
    """The score columns of :func:`runs_table`: the scores asked for (``metrics``, less
    the recovery rates, which have their own columns), or by default ARI, AMI, NMI and
    V-measure."""
    if metrics is None:
        return list(_SUMMARY)
    return [k for k in dict.fromkeys(metrics) if k not in RECOVERY_KEYS.values()]


def _where(run: Run) -> str:
    """The run, as a note below the runs table names it."""
    return f"  {visible(run.dataset)} / {run.algorithm}" + ("" if run.k is None
                                                           else f" (k = {run.k})")


#: The columns of a run's recovery rates and their times (the paper's rates in %).
RATE_COLUMNS = (Column("exact %", percent_column), Column("t s", seconds),
                Column("greedy %", percent_column), Column("t s", seconds),
                Column("pseudo %", percent_column))


def runs_blocks(runs: Sequence[Run], metrics: Sequence[str] | None = None) -> list[Block]:
    """One row per algorithm and dataset (score columns: :func:`table_metrics`); the
    legend, the notes (subsamples, noise) and the warnings of each run below the table;
    then the best cuts of the agglomerative trees, if any."""
    columns = table_metrics(runs, metrics)
    header = [Column("dataset"), Column("algorithm"), Column("k"), Column("m"), Column("N"),
              Column("fit s", ".2f"), *(Column(k, ".3f") for k in columns), *RATE_COLUMNS]
    marked = [r.near_best for r in runs if r.near_best is not None]
    if marked:
        header.append(Column(f"vs best {marked[0].key} (Holm p)"))
    rows, notes = [], []
    for r in runs:
        t = r.recovery_seconds
        rows.append([r.dataset, r.algorithm, r.k, r.n_clusters, r.n_samples, r.fit_seconds,
                     *(r.scores.get(key) for key in columns),
                     r.rate("exact"), t["exact"], r.rate("greedy"), t["greedy"],
                     r.rate("pseudo")])
        if marked:
            nb = r.near_best
            rows[-1].append(None if nb is None else Cell("best") if nb.is_best else
                            Cell("no verdict !") if nb.flags else
                            Cell(f"{'≈ ' if nb.tied else 'worse '}{pvalue_text(nb.pvalue)}",
                                 nb.pvalue))
            if nb is not None and nb.n_skipped:
                notes.append(f"{_where(r)}: paired jackknife: {nb.n_skipped} of the "
                             f"items skipped ({nb.key} undefined without them)")
        if r.note:
            notes.append(f"{_where(r)}: {visible(r.note, backslash=False)}")
        if r.warnings:
            notes.append(f"{_where(r)}: warnings: "
                         f"{visible('; '.join(r.warnings), backslash=False)}")
    legend = ("k: clusters asked for (- : the algorithm chooses); m: clusters found; "
              "exact / greedy / pseudo: recovery rates (Li & Klette) and their times")
    if marked:
        legend += (f"; vs best: paired jackknife t test against the best run of the "
                   f"dataset, p-values Holm-adjusted; ≈ = not significantly worse at "
                   f"{marked[0].alpha:g}")
        flags = sorted({f for nb in marked for f in nb.flags})
        if flags:
            legend += f"; no verdict ! = the test cannot judge ({'; '.join(flags)})"
    table = ResultTable(header, rows, notes=[legend, *(["notes:", *notes] if notes else [])],
                        keep=2)
    return [table, *curves_blocks(runs, columns)]


def runs_table(runs: Sequence[Run], metrics: Sequence[str] | None = None) -> str:
    """:func:`runs_blocks` as text."""
    return blocks_text(runs_blocks(runs, metrics))


def curves_blocks(runs: Sequence[Run], columns: Sequence[str]) -> list[Block]:
    """Best cut of each agglomerative tree beside its value at the true k."""
    curves = list({id(r.curve): r for r in runs if r.curve is not None}.values())
    if not curves:
        return []
    keys = [*columns, *RECOVERY_KEYS.values()]
    rows = []
    for r in curves:
        best = r.curve.scores.best
        for key in keys:
            if key in best:
                rows.append([r.dataset, r.algorithm, key, best[key].n_clusters,
                             best[key].value, r.curve.at(key, r.curve.true_k)])
    notes = [f"{visible(r.dataset)} / {r.algorithm}: {visible(n, backslash=False)}"
             for r in curves for n in [r.curve.source, *r.curve.scores.notes]
             if n != f"{r.dataset}, {r.algorithm} linkage"]
    return [ResultTable(["dataset", "algorithm", "score", "best k", Column("value", ".3f"),
                         Column("at true k", ".3f")], rows,
                        "Every cut of the agglomerative trees: best cut per score and the "
                        "value at the true number of classes", notes, keep=3)]


def runs_json(runs: Sequence[Run]) -> str:
    """Strict JSON, one object per run (:mod:`clustermetrics.render.json_text`)."""
    return dumps([r.to_dict() for r in runs])


def runs_csv(runs: Sequence[Run]) -> str:
    """One row per run: identification, timings, then every score as its own column."""
    keys = list(dict.fromkeys(k for r in runs for k in r.scores))
    fields = ["dataset", "algorithm", "seed", "k", "n_samples", "n_classes", "n_clusters",
              "fit_seconds", "exact_seconds", "greedy_seconds", "pseudo_seconds", "note",
              "warnings", *keys]
    marked = any(r.near_best is not None for r in runs)
    if marked:
        fields += ["near_best_key", "near_best_pvalue_holm", "not_significantly_worse",
                   "near_best_skipped", "near_best_flags"]
    rows = []
    for r in runs:
        d = r.to_dict()
        row = {f: d.get(f) for f in fields[:8]}
        row.update({f"{m}_seconds": s for m, s in r.recovery_seconds.items()}, note=r.note,
                   warnings="; ".join(r.warnings))
        if r.near_best is not None:
            row.update(near_best_key=r.near_best.key,
                       near_best_pvalue_holm=r.near_best.pvalue,
                       not_significantly_worse="" if r.near_best.flags
                       else str(r.near_best.tied),
                       near_best_skipped=r.near_best.n_skipped,
                       near_best_flags="; ".join(r.near_best.flags))
        row.update(r.scores)
        rows.append([row.get(f) for f in fields])
    return csv_text([fields, *rows])


@dataclass(frozen=True)
class Comparison:
    """The runs of :func:`compare` and the scores a text table shows (None: the default
    four), in every output form."""

    runs: Sequence[Run]
    shown: Sequence[str] | None = None

    def blocks(self) -> list[Block]:
        return runs_blocks(self.runs, self.shown)

    def format(self) -> str:
        return blocks_text(self.blocks())

    def to_json(self) -> str:
        return runs_json(self.runs)

    def to_csv(self) -> str:
        return runs_csv(self.runs)

