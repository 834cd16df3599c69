"""Li & Klette's Section 5 on simulated data: recovery rates for n = 5 .. 10 clusters.

The paper clusters the first n of 33 simulated galaxy halos (10,000 3-D points each) and
prints, per n and per algorithm (its K and C), the exact recovery rate (Algorithm 1),
the greedy one (Algorithm 2), the time of each and the pseudo recovery rate, in two
tables, "Iteration 1" and "Iteration 2": one and two iterations of its own iterative
method. Here:

- the data are the first n clusters of one draw of ``max(ns)`` clusters, so larger n
  adds clusters to the same sky, as in the paper: ``data="overlapping"`` (the default)
  draws :func:`.datasets.overlapping_clusters` (a cheap stand-in), ``data="halo"`` the
  satellites of :func:`.datasets.stellar_halo` (the paper's kind of data, scaled as in
  the paper; the ``halo`` extra);
- the algorithms are the registered scikit-learn ones (``meanshift_kmeans`` is closest to
  the paper's K, mean shift combined with k-means); every algorithm is a row;
- Table 1 and Table 2 are two runs with different algorithm seeds (0 and 1 by default) on
  the same data: the analogue of running the paper's randomised method again. Birch and
  HDBSCAN take no seed, so their rows are the same in both tables;
- each row reads ``(exact %, its seconds, greedy %, its seconds, pseudo %)``. The paper
  prints greedy first (its k1, t1) and Algorithm 1 second (k2, t2); its text swaps the
  two names, its numbers (k1 <= k2, t2 up to 285 s) show which is which. Our exact time
  is the polynomial matching's; :mod:`.timing` times Algorithm 1 itself.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..inference.bootstrap import check_seed
from ..render.json_text import dumps
from ..render.tables import Block, Column, ResultTable, blocks_text
from ..render.text import csv_text, visible
from ..scores.recovery import pseudo_recovery_rate_score, recovery
from ..table import Contingency
from .algorithms import MAX_PAIRWISE, MAX_SEED, SEED_RANGE, resolve_algorithms
from .compare import RATE_COLUMNS, Run, compare, runs_csv
from .datasets import SIMULATED, Dataset, halo_description, overlapping_clusters, stellar_halo
from .plain_text import percent, percent_column, seconds
from .timing import Timing, timing_blocks

__all__ = ["Study", "DemoResult", "recovery_study", "paper_tables", "paper_examples", "EXAMPLE_3",
           "shortfalls", "shortfalls_text", "demo_json", "demo_csv", "PAPER_ROWS",
           "paper_kc_tables"]

# Example 3 of the paper: M[k, i] = |G_k ∩ C_i|, clusters in rows (our table transposed).
EXAMPLE_3 = np.array([[1612, 0, 24, 2009, 0],
                      [0, 0, 21, 0, 4540],
                      [0, 0, 4153, 2, 5460],
                      [0, 10000, 5796, 7989, 0],
                      [8388, 0, 6, 0, 0]])


@dataclass
class Study:
    """The runs of :func:`recovery_study`: ``runs[t]`` are Table t+1's runs, ``datasets``
    the data per n (the largest n last)."""

    ns: list[int]
    seeds: list[int]
    datasets: dict[int, Dataset]
    runs: list[list[Run]]
    n_per_cluster: int
    overlap: float
    data_seed: int = 0
    max_pairwise: int = MAX_PAIRWISE
    data: str = "overlapping"

    def settings(self) -> dict:
        """What the data and the algorithms were run with (for every output)."""
        return {"data": self.data, "ns": list(self.ns), "seeds": list(self.seeds),
                "n_per_cluster": self.n_per_cluster, "overlap": self.overlap,
                "data_seed": self.data_seed, "max_pairwise": self.max_pairwise}

    def algorithms(self) -> list[str]:
        return list(dict.fromkeys(r.algorithm for t in self.runs for r in t))


def recovery_study(ns: Iterable[int] = range(5, 11), *, n_per_cluster: int = 2000,
                   algorithms: str | Iterable[str] | None = None,
                   seeds: Sequence[int] = (0, 1), data_seed: int = 0, overlap: float = 1.0,
                   max_pairwise: int = MAX_PAIRWISE, progress: bool | None = False,
                   data: str = "overlapping") -> Study:
    """Run every algorithm on the first n simulated clusters, n in ``ns``, once per seed.

    ``data`` is ``"overlapping"`` or ``"halo"`` (see the module docstring); ``overlap``
    applies to the first only.

    Examples
    --------
    >>> s = recovery_study([2, 3], n_per_cluster=20, algorithms="kmeans", seeds=[0])
    >>> [(r.n_classes, r.algorithm, r.n_samples) for r in s.runs[0]]
    [(2, 'kmeans', 40), (3, 'kmeans', 60)]
    """
    ns = sorted({int(n) for n in ns})
    if not ns or ns[0] < 2:
        raise ValueError(f"the numbers of clusters must be at least 2, got {ns}")
    names = resolve_algorithms(algorithms)
    check_seed(data_seed, "data_seed")  # numpy's generator: any non-negative integer
    for seed in seeds:
        check_seed(seed, "seeds", MAX_SEED, SEED_RANGE)  # the algorithms': scikit-learn's
    if data not in SIMULATED:
        raise ValueError(f"data must be one of {', '.join(SIMULATED)}, got {data!r}")
    if data == "halo":
        X, y = stellar_halo(ns[-1], n_per_cluster, data_seed, normalize=True,
                            progress=progress)
    else:
        X, y = overlapping_clusters(ns[-1], n_per_cluster, overlap=overlap, seed=data_seed)
    datasets = {n: _first(X, y, n, n_per_cluster, overlap, data_seed, data) for n in ns}
    cache: dict = {}
    runs = [compare(list(datasets.values()), names, seed=seed, max_pairwise=max_pairwise,
                    progress=progress, cache=cache, desc=f"table {i + 1}")
            for i, seed in enumerate(seeds)]
    return Study(ns, list(seeds), datasets, runs, n_per_cluster, overlap, data_seed,
                 max_pairwise, data)


def _first(X: np.ndarray, y: np.ndarray, n: int, n_per_cluster: int, overlap: float,
           seed: int, data: str = "overlapping") -> Dataset:
    keep = y < n
    if data == "halo":
        return Dataset(f"halo-{n}", X[keep], y[keep],
                       halo_description(n, n_per_cluster, seed, first=True))
    return Dataset(f"overlapping-{n}", X[keep], y[keep],
                   f"the first {n} clusters of a simulated set of overlapping clusters "
                   f"({n_per_cluster} points each, overlap {overlap:g}, seed {seed})")


def paper_blocks(study: Study) -> list[Block]:
    """Tables 1-2 in the paper's order, one table per seed, one row per n and algorithm,
    the paper's five numbers (exact %, its seconds, greedy %, its seconds, pseudo %) a
    column each; the legend below them."""
    blocks: list[Block] = []
    for i, (seed, runs) in enumerate(zip(study.seeds, study.runs, strict=True)):
        t = [r.recovery_seconds for r in runs]
        rows = [[r.n_classes, r.algorithm, r.n_clusters, r.rate("exact"), s["exact"],
                 r.rate("greedy"), s["greedy"], r.rate("pseudo")]
                for r, s in zip(runs, t, strict=True)]
        notes = run_notes(runs)
        blocks.append(ResultTable(
            ["n", "algorithm", "m", *RATE_COLUMNS], rows,
            f"Table {i + 1}. Iteration {i + 1} (algorithm seed {seed}; "
            f"{study.n_per_cluster:,} points per cluster, {_data_note(study)}, "
            f"data seed {study.data_seed})", ["notes:", *notes] if notes else [], keep=2))
    blocks.append("m: clusters found. exact = optimal one-to-one matching (the paper's "
                  "Algorithm 1, solved in polynomial time); greedy = Algorithm 2; "
                  "pseudo = Definition 3; t s: its seconds.")
    return blocks


def paper_tables(study: Study) -> str:
    """:func:`paper_blocks` as text."""
    return blocks_text(paper_blocks(study))


# Li & Klette's Tables 1 and 2 as printed, on their own data (the simulated galaxy halos),
# by n: (k1, t1, k2, t2, p) of algorithm K then (c1, t1, c2, t2, p) of algorithm C, where
# k1 / c1 is Algorithm 2's (greedy) rate, k2 / c2 Algorithm 1's (exact), p the pseudo rate
# (rates in %, times in seconds).
PAPER_ROWS = (
    {5: ("(59.4, 6.2e-4, 59.4, 4.3e-3, 100)", "(39.6, 8.8e-4, 39.6, 4.3e-3, 80)"),
     6: ("(51.6, 7.2e-4, 56.0, 4.6e-2, 100)", "(40.2, 7.0e-4, 40.2, 2.7e-2, 66.7)"),
     7: ("(58.7, 8.4e-4, 58.7, 0.3, 100)", "(28.9, 9.1e-4, 28.9, 0.3, 57.1)"),
     8: ("(44.5, 0.01, 44.5, 2.3, 87.5)", "(15.7, 9.9e-4, 15.7, 2.4, 50)"),
     9: ("(47.6, 1e-3, 47.6, 23.2, 88.9)", "(12.5, 0.3, 12.5, 23.3, 44.4)"),
     10: ("(44.4, 0.4, 44.9, 285.1, 90)", "(24.7, 1.2e-3, 24.7, 256.5, 40)")},
    {5: ("(51.8, 6.0e-4, 58.2, 4.3e-3, 100)", "(36.8, 5.9e-4, 36.8, 5.0e-3, 60)"),
     6: ("(66.2, 6.7e-4, 66.2, 2.9e-2, 100)", "(46.6, 6.9e-4, 46.6, 3.4e-2, 83.3)"),
     7: ("(57.4, 7.6e-4, 57.4, 0.3, 71.4)", "(39.2, 7.6e-4, 39.2, 0.3, 85.7)"),
     8: ("(49.9, 8.6e-4, 49.9, 2.3, 87.5)", "(42.8, 1.1e-3, 42.8, 2.4, 75)"),
     9: ("(46.7, 3.3e-3, 46.7, 23.6, 77.8)", "(26.3, 0.01, 26.3, 23.1, 66.7)"),
     10: ("(53.4, 9.1e-3, 53.4, 303.1, 90)", "(51.0, 1.7e-3, 51.0, 272.8, 80)")},
)
_K, _C = "meanshift_kmeans", "meanshift_hierarchical"


def paper_kc_blocks(study: Study) -> list[Block]:
    """Algorithms K and C side by side in the paper's layout, ``(k1 %, t1 sec, k2 %, t2
    sec, p %) (c1 %, t1 sec, c2 %, t2 sec, p %)``, k1 the greedy rate (Algorithm 2) and
    k2 the exact one, each of our rows followed by the paper's printed row for that n
    (its values on its own data); the legend below. Empty when K or C was not run."""
    if not {_K, _C} <= set(study.algorithms()):
        return []
    blocks: list[Block] = []
    for i, (seed, runs) in enumerate(zip(study.seeds, study.runs, strict=True)):
        by = {(r.algorithm, r.n_classes): r for r in runs}
        paper = PAPER_ROWS[i] if i < len(PAPER_ROWS) else {}
        rows: list[list[Any]] = []
        for n in study.ns:
            rows.append([n, "ours", _kc_cell(by[_K, n]), _kc_cell(by[_C, n])])
            if n in paper:
                rows.append([n, "paper", *paper[n]])
        blocks.append(ResultTable(
            ["n", "", "K: (k1 %, t1 sec, k2 %, t2 sec, p %)",
             "C: (c1 %, t1 sec, c2 %, t2 sec, p %)"], rows,
            f"Table {i + 1} (K and C). Iteration {i + 1} (algorithm seed {seed})", keep=2))
    blocks.append(
        "K = mean shift then k-means (meanshift_kmeans); C = mean shift then "
        "single-linkage clustering as MATLAB clusterdata (meanshift_hierarchical). "
        "k1, c1: greedy rate (Algorithm 2); k2, c2: exact rate (Algorithm 1, solved "
        "here in polynomial time); p: pseudo rate. 'paper' rows: Li & Klette's "
        "printed values on their own data (simulated galaxy halos, 10,000 points "
        "each), for comparison only; ours are on the stand-in data above.")
    return blocks


def paper_kc_tables(study: Study) -> str:
    """:func:`paper_kc_blocks` as text ("" when K or C was not run)."""
    return blocks_text(paper_kc_blocks(study))


def _kc_cell(run: Run) -> str:
    t = run.recovery_seconds
    return (f"({percent(run.rate('greedy'))}, {seconds(t['greedy'])}, "
            f"{percent(run.rate('exact'))}, {seconds(t['exact'])}, "
            f"{percent(run.rate('pseudo'))})")


def _data_note(study: Study) -> str:
    return ("simulated stellar halo" if study.data == "halo"
            else f"overlap {study.overlap:g}")


def run_notes(runs: Sequence[Run]) -> list[str]:
    """One line per run with a note (subsample, noise) or warnings, as the compare table
    prints them."""
    out = []
    for r in runs:
        where = f"  n = {r.n_classes}, {r.algorithm}"
        if r.note:
            out.append(f"{where}: {visible(r.note, backslash=False)}")
        if r.warnings:
            out.append(f"{where}: warnings: {visible('; '.join(r.warnings), backslash=False)}")
    return out


def demo_json(study: Study, timing: Sequence[Any]) -> str:
    """Strict JSON: the settings, the runs of each table and the timings."""
    return dumps({"settings": study.settings(),
                  "tables": [[r.to_dict() for r in t] for t in study.runs],
                  "timing": [t._asdict() for t in timing]})


def demo_csv(study: Study, timing: Sequence[Any]) -> str:
    """One CSV table of every run (``kind`` = run, with its ``table``) and every timing
    (``kind`` = timing: ``n``, ``method``, ``seconds``, ``rate``); the settings repeat on
    each row. Cells that do not apply to a kind are empty."""
    settings = {k: v for k, v in study.settings().items() if k not in ("ns", "seeds")}
    runs = runs_csv([r for t in study.runs for r in t])
    run_rows = list(csv.DictReader(io.StringIO(runs)))
    table_of = [i + 1 for i, t in enumerate(study.runs) for _ in t]
    fields = ["kind", "table", *settings, "n", "method", "seconds", "rate",
              *(run_rows[0].keys() if run_rows else [])]
    rows = [{"kind": "run", "table": table, **settings, **row}
            for table, row in zip(table_of, run_rows, strict=True)]
    rows += [{"kind": "timing", **settings, "n": t.n, "method": t.method,
              "seconds": t.seconds, "rate": t.rate} for t in timing]
    return csv_text([fields, *([row.get(f, "") for f in fields] for row in rows)])


def _paper_cell(run: Run) -> str:
    t = run.recovery_seconds
    return (f"({percent(run.rate('exact'))}, {seconds(t['exact'])}, "
            f"{percent(run.rate('greedy'))}, {seconds(t['greedy'])}, "
            f"{percent(run.rate('pseudo'))})")


def examples_blocks() -> list[Block]:
    """Examples 3-5 recomputed: exact 58.18 %, greedy 51.76 %, pseudo 100 % (paper's M)."""
    t = Contingency.from_matrix(EXAMPLE_3.T,  # our orientation: classes in rows
                                class_labels=[f"C{i + 1}" for i in range(5)],
                                cluster_labels=[f"G{k + 1}" for k in range(5)])
    exact, greedy = recovery(t), recovery(t, method="greedy")
    pseudo = pseudo_recovery_rate_score(t)
    rows = [["exact (Alg. 1, Example 3)", 100 * exact.rate, 58.18],
            ["greedy (Alg. 2, Example 4)", 100 * greedy.rate, 51.76],
            ["pseudo (Definition 3)", 100 * pseudo, None]]
    return [ResultTable(
        ["rate", Column("ours %", ".2f"), Column("paper %", ".2f")], rows,
        "The paper's Example 3 table (5 galaxies x 5 clusters of its algorithm K):",
        ["Greedy takes G4-C2 (10000) and G5-C1 (8388) first, then G3-C5 (5460): the optimum "
         "needs G2-C5 and G3-C3 instead. Every cluster touches a distinct galaxy, so the "
         "pseudo rate is 100 % although barely half of the points are recovered."])]


def paper_examples() -> str:
    """:func:`examples_blocks` as text."""
    return blocks_text(examples_blocks())


def shortfalls(study: Study, *, pseudo_gap: float = 0.25) -> tuple[list[Run], list[Run]]:
    """Runs where greedy is below exact, and runs whose pseudo rate exceeds the exact
    rate by at least ``pseudo_gap`` (each sorted by the size of the gap, largest first)."""
    runs = [r for t in study.runs for r in t]
    below = sorted((r for r in runs if r.rate("greedy") < r.rate("exact") - 1e-12),
                   key=lambda r: r.rate("greedy") - r.rate("exact"))
    high = sorted((r for r in runs if r.rate("pseudo") - r.rate("exact") >= pseudo_gap),
                  key=lambda r: r.rate("exact") - r.rate("pseudo"))
    return below, high


def shortfalls_blocks(study: Study, *, pseudo_gap: float = 0.25,
                     limit: int = 8) -> list[Block]:
    """Where greedy falls below exact and pseudo is misleadingly high, as two tables
    (or a line saying there is none)."""
    below, high = shortfalls(study, pseudo_gap=pseudo_gap)
    total = sum(len(t) for t in study.runs)
    head = ["n", "algorithm", "seed", *(Column(f"{m} %", percent_column)
                                         for m in ("exact", "greedy", "pseudo"))]

    def table(runs: list[Run], caption: str) -> Block:
        if not runs:
            return caption + "."
        return ResultTable(head, [[r.n_classes, r.algorithm, r.seed, r.rate("exact"),
                                   r.rate("greedy"), r.rate("pseudo")] for r in runs[:limit]],
                           caption + " (largest gaps first):", keep=2)

    return [table(below, f"Greedy below exact in {len(below)} of {total} runs"),
            table(high, f"Pseudo at least {percent(pseudo_gap)} points above exact in "
                        f"{len(high)} of {total} runs")]


def shortfalls_text(study: Study, *, pseudo_gap: float = 0.25, limit: int = 8) -> str:
    """:func:`shortfalls_blocks` as text."""
    return blocks_text(shortfalls_blocks(study, pseudo_gap=pseudo_gap, limit=limit))


@dataclass(frozen=True)
class DemoResult:
    """The study and the timings of ``clustermetrics demo`` in every output form."""

    study: Study
    small: Sequence[Timing]
    large: Sequence[Timing]

    def blocks(self) -> list[Block]:
        return [*paper_blocks(self.study), *paper_kc_blocks(self.study), *examples_blocks(),
                *shortfalls_blocks(self.study), *timing_blocks(self.small, self.large)]

    def format(self) -> str:
        return blocks_text(self.blocks())

    def to_json(self) -> str:
        return demo_json(self.study, [*self.small, *self.large])

    def to_csv(self) -> str:
        return demo_csv(self.study, [*self.small, *self.large])

