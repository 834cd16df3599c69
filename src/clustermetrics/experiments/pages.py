"""What the HTML reports of ``compare``, ``demo`` and ``chance`` contain.

Each function turns results into :class:`~.html.Section` lists; :func:`.html.write_report`
writes them. The "chosen run" shows its contingency table as a heatmap ordered by the
optimal matching, a 2-D projection of the data coloured by the truth and by every
algorithm, and its largest split and merge errors (:mod:`clustermetrics.evaluation.diagnostics`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..evaluation.diagnostics import diagnose
from ..evaluation.paired_results import PairedComparison
from ..render.tables import Cell, Column, ResultTable
from ..render.text import pvalue_text
from ..scores.registry import METRICS
from ..table import Contingency
from . import plots
from .chance import ChanceCurves, chance_blocks
from .compare import Run, runs_blocks
from .coverage import CoverageResult
from .datasets import Dataset
from .hierarchy_study import curve_sections, dataset_curve
from .html import Block, Image, Section
from .recovery_study import Study, examples_blocks, paper_blocks, paper_kc_blocks, shortfalls_blocks
from .timing import PAPER_ALGORITHM1_SECONDS, Timing, timing_blocks

__all__ = ["pick_run", "chosen_run_section", "compare_sections", "paired_table", "paired_sections",
           "demo_sections",
           "chance_sections", "coverage_sections"]


def pick_run(runs: Sequence[Run], algorithm: str | None = None) -> Run:
    """The run to show in detail: on the largest dataset, the given algorithm, or else the
    best exact recovery rate among algorithms that were given the number of clusters (the
    paper's rate divides by the clusters found, so it flatters those that find few)."""
    biggest = max(r.n_samples for r in runs)
    pool = [r for r in runs if r.n_samples == biggest]
    if algorithm is not None:
        chosen = [r for r in pool if r.algorithm == algorithm]
        if not chosen:
            raise ValueError(f"no run of algorithm {algorithm!r} to show; ran: "
                             f"{', '.join(dict.fromkeys(r.algorithm for r in pool))}")
        return chosen[0]
    given_k = [r for r in pool if r.k is not None] or pool
    return max(given_k, key=lambda r: r.rate("exact"))


def chosen_run_section(run: Run, dataset: Dataset, runs: Sequence[Run]) -> Section:
    """Heatmap, projection and diagnostics of ``run``; ``runs`` on the same dataset give
    the other panels of the projection (one per algorithm)."""
    others: dict[str, Run] = {}
    for r in runs:
        if r.dataset == dataset.name and r.algorithm not in others:
            same_k = [x for x in runs if x.dataset == r.dataset and x.algorithm == r.algorithm
                      and x.k == run.k]
            others[r.algorithm] = same_k[0] if same_k else r
    k = "" if run.k is None else f", k = {run.k}"
    blocks: list[Block] = [
        f"{run.algorithm} on {run.dataset}{k}: exact recovery rate "
        f"{100 * run.rate('exact'):.1f} %, greedy {100 * run.rate('greedy'):.1f} %, "
        f"pseudo {100 * run.rate('pseudo'):.1f} %, ARI {run.scores.get('ari', float('nan')):.3f}.",
        Image("contingency_heatmap", plots.heatmap_plot(
            run.table, f"{run.algorithm} on {run.dataset}: share of each class per cluster"),
            "Contingency table, rows and columns ordered by the optimal matching (matched "
            "pairs on the diagonal), colour = share of the true class"),
        Image("projection", plots.projection_plot(
            dataset.X, dataset.y, {k: r.labels for k, r in others.items()},
            tables={k: r.table for k, r in others.items()}),
              "2-D projection (first two principal components) coloured by the truth and "
              "by each algorithm; clusters take the colour of the class they are matched "
              "to, noise is grey"),
    ]
    blocks += _diagnostics_blocks(run.table)
    return Section(f"Chosen run: {run.algorithm} on {run.dataset}", blocks)


def _diagnostics_blocks(table: Contingency, top: int = 5) -> list[Block]:
    """The ``top`` largest split and merge errors (clustermetrics.evaluation.diagnostics)."""
    diag = diagnose(table)
    recall, purity = Column("recall", ".3f"), Column("purity", ".3f")
    splits = ResultTable(["class", "size", "best cluster", recall, "outside", "split over"],
                         [[c.label, c.size, c.best_cluster, c.recall, c.split, _parts(c.splits)]
                          for c in diag.classes[:top]],
                         f"Largest split errors: classes spread over clusters (clusters "
                         f"holding >= {diag.min_share:.0%} of the class)")
    merges = ResultTable(["cluster", "size", "majority class", purity, "others", "merges"],
                         [[c.label, c.size, c.majority_class, c.purity, c.merged,
                           _parts(c.merges)] for c in diag.clusters[:top]],
                         f"Largest merge errors: clusters mixing classes (classes making up "
                         f">= {diag.min_share:.0%} of the cluster)")
    return [splits, merges]


def _parts(entries: Sequence[tuple]) -> str:
    return ", ".join(f"{label}: {count} ({share:.0%})" for label, count, share in entries)


def _scores_table(runs: Sequence[Run]) -> ResultTable:
    keys = list(dict.fromkeys(k for r in runs for k in r.scores))
    header = ["score", *(Column(f"{r.dataset} {r.algorithm}" + ("" if r.k is None
                                                                 else f" k={r.k}"), ".4f")
                         for r in runs)]
    rows = [[f"{k} ({METRICS[k].name})", *(r.scores.get(k) for r in runs)] for k in keys]
    return ResultTable(header, rows, "Every registered score, one column per run")


def paired_table(runs: Sequence[Run]) -> ResultTable | None:
    """The paired comparisons of ``compare --paired``: every run against the best run of
    its dataset (None when the runs were not compared)."""
    marked = [r for r in runs if r.near_best is not None]
    if not marked:
        return None
    first = marked[0].near_best
    assert first is not None
    key, level = first.key, first.level
    rows = []
    for r in marked:
        nb = r.near_best
        assert nb is not None
        judged = not (nb.is_best or nb.flags)
        rows.append([r.dataset, r.algorithm, r.k, r.scores[key],
                     Cell("best") if nb.is_best else nb.difference,
                     Cell(f"[{nb.interval[0]:+.4f}, {nb.interval[1]:+.4f}]", nb.interval[0])
                     if judged else None,
                     Cell(pvalue_text(nb.raw_pvalue), nb.raw_pvalue) if judged else None,
                     Cell(pvalue_text(nb.pvalue), nb.pvalue) if judged else None,
                     "best" if nb.is_best else "; ".join(nb.flags) if nb.flags
                     else "yes" if nb.tied else "no",
                     None if nb.is_best else nb.n_skipped])
    return ResultTable(["dataset", "algorithm", "k", Column(f"{key} ({METRICS[key].name})", ".4f"),
                        Column("difference from the best", "+.4f"),
                        Column(f"{level:.0%} interval", align="left"),
                        "p-value", "Holm-adjusted p", f"near the best (Holm p >= {first.alpha:g})",
                        "items skipped"], rows,
                       f"Paired comparison with the best run of each dataset by {key}: a "
                       "paired jackknife t test over the points (difference = run - best), "
                       "p-values of \"no difference\" adjusted over each dataset's runs by "
                       "Holm's step-down method; where the test cannot judge, its flag "
                       "instead of a verdict", keep=2)


def compare_sections(runs: Sequence[Run], datasets: Mapping[str, Dataset], *,
                     chosen: str | None = None,
                     metrics: Sequence[str] | None = None) -> list[Section]:
    """Results (the table with the scores ``metrics`` asked for, and every score), the
    chosen run and the data."""
    run = pick_run(runs, chosen)
    curves = list({id(r.curve): r.curve for r in runs if r.curve is not None}.values())
    paired = paired_table(runs)
    return [Section("Results", [*runs_blocks(runs, metrics), _scores_table(runs)]),
            *([Section("Paired comparison with the best run", [paired])] if paired else []),
            chosen_run_section(run, datasets[run.dataset], runs),
            *(s for i, c in enumerate(curves) for s in curve_sections(c, f"hierarchy_{i}")),
            Section("Data", [f"{d.name}: {d.description}" for d in datasets.values()])]


def paired_sections(result: PairedComparison) -> list[Section]:
    """The page of ``clustermetrics paired``: each score of A and B, their difference with
    its interval and p-value (or the flag saying why the test cannot judge it), and which
    is better."""
    a, b = result.names  # user text: the page escapes it, once
    table, = result.blocks()
    return [Section(f"Paired comparison: {a} against {b}", [table])]


def demo_sections(study: Study, small: Sequence[Timing], large: Sequence[Timing], *,
                  chosen: str | None = None) -> list[Section]:
    rates: dict[str, dict[int, list[float]]] = {}
    pseudo: dict[str, dict[int, list[float]]] = {}
    for table in study.runs:
        for r in table:
            rates.setdefault(r.algorithm, {}).setdefault(r.n_classes, []).append(r.rate("exact"))
            pseudo.setdefault(r.algorithm, {}).setdefault(r.n_classes, []).append(
                r.rate("pseudo"))
    n_max = study.ns[-1]
    last = [r for r in study.runs[0] if r.n_classes == n_max]
    run = pick_run(last, chosen)
    return [
        Section("Recovery rates (Tables 1-2)", [
            *paper_blocks(study), *paper_kc_blocks(study),
            Image("recovery_vs_n", plots.recovery_plot(rates, pseudo),
                  "Exact and pseudo recovery rate against the number of true clusters n, "
                  "per algorithm (mean of the tables' runs, bars: min to max)")]),
        Section("Greedy below exact, pseudo misleadingly high", [
            *examples_blocks(), *shortfalls_blocks(study)]),
        Section("Timing: Algorithm 1 against exact and greedy", [
            *timing_blocks(small, large),
            Image("timing", plots.timing_plot(small, large, PAPER_ALGORITHM1_SECONDS),
                  "Seconds to compute the recovery rate against n, log scale; crosses: "
                  "the paper's Algorithm 1 times (Table 1)")]),
        Section(f"All scores for n = {n_max} (Table 1's runs)", [
            *runs_blocks(last), _scores_table(last)]),
        chosen_run_section(run, study.datasets[n_max], last),
        *curve_sections(dataset_curve(study.datasets[n_max])),
        Section("Data", [study.datasets[n_max].description + ". " + _DATA_NOTES[study.data]]),
    ]


_DATA_NOTES = {
    "overlapping": "A stand-in for the paper's simulated galaxy halos: clusters with random "
                   "anisotropic, bent shapes and unequal spreads, centres packed so that "
                   "they overlap heavily; each smaller n uses the first n of these clusters.",
    "halo": "Satellites disrupted in galpy's MWPotential2014 (a test-particle simulation; "
            "see clustermetrics.experiments.halo), the paper's kind of data; each smaller n "
            "uses the first n of these satellites."}


def chance_sections(curves: Sequence[ChanceCurves]) -> list[Section]:
    adjusted = ", ".join(k for k in curves[0].mean if METRICS[k].adjusted) if curves else ""
    return [
        Section("Chance level of every score", [
            "Mean score of random uniform labelings against k (the two experiments "
            "of scikit-learn's clustering-evaluation guide, 'Adjustment for chance in "
            "clustering performance evaluation'). Scores declared adjusted for chance: "
            f"{adjusted or 'none'}.",
            Image("chance", plots.chance_plot(curves),
                  "One line per score: adjusted scores thick and named, the others thin "
                  "and coloured by family; unbounded scores below, in panels of similar "
                  "magnitude")]),
        Section("Chance tables", [*chance_blocks(curves)]),
    ]


def coverage_sections(result: CoverageResult) -> list[Section]:
    return [
        Section("Coverage of the bootstrap intervals", [
            "Share of samples whose interval holds the population score, against the "
            "sample size, for each interval method (same replicates for all). Black line: "
            f"the nominal level {result.level:.0%}; grey band: +-2 binomial standard errors "
            "of a coverage estimated from the study's samples.",
            Image("coverage", plots.coverage_plot(result.rows, result.level),
                  "Coverage against n (log scale), one panel per table shape and score")]),
        Section("Coverage tables", [*result.blocks()]),
    ]
