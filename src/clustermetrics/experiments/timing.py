"""How long the recovery rate takes: the paper's Algorithm 1 against exact and greedy.

Li & Klette's Algorithm 1 enumerates every one-to-one map of clusters to classes (n! of
them for n x n): 285.1 s at n = 10 in their Table 1. ``recovery(method="bruteforce")``
is that enumeration; ``"exact"`` solves the same maximisation as an assignment problem
in polynomial time, and ``"greedy"`` is their Algorithm 2. Each method is timed on its
own fresh copy of the table, because tables cache their matchings.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Iterable, Sequence
from typing import NamedTuple

import numpy as np

from ..render.tables import Block, Column, ResultTable, blocks_text
from ..scores.recovery import recovery
from ..table import Contingency
from .plain_text import percent_column, seconds

__all__ = ["Timing", "PAPER_ALGORITHM1_SECONDS", "dense_table", "sparse_table",
           "time_methods", "bruteforce_timing", "scaling_timing", "timing_text"]

# Table 1 of the paper, algorithm K, column t2 (Algorithm 1's time), by n.
PAPER_ALGORITHM1_SECONDS = {5: 4.3e-3, 6: 4.6e-2, 7: 0.3, 8: 2.3, 9: 23.2, 10: 285.1}


class Timing(NamedTuple):
    """Seconds one method took on an n-class table (best of its repeats) and its rate."""

    n: int
    method: str
    seconds: float
    rate: float


def dense_table(n: int, *, n_per_class: int = 10_000, seed: int = 0) -> Contingency:
    """An n x n table like the paper's: every class split over all n clusters (Dirichlet
    shares), so every cell is non-zero and the matching is far from obvious.

    >>> t = dense_table(4)
    >>> t.n_classes, t.n_clusters, t.n_samples
    (4, 4, 40000)
    """
    if n_per_class < n:
        raise ValueError(f"n_per_class must be at least n ({n}), got {n_per_class}")
    rng = np.random.default_rng(seed)
    shares = rng.dirichlet(np.full(n, 0.5), size=n)
    # One item in every cell first, so no cell is empty and each class has n_per_class.
    counts = np.stack([rng.multinomial(n_per_class - n, s) + 1 for s in shares])
    return Contingency.from_matrix(counts)


def sparse_table(n: int, *, n_per_class: int = 100, cells_per_class: int = 4,
                 seed: int = 0) -> Contingency:
    """An n x n sparse table: each class spread over a few clusters (its own, plus random
    others), the shape of a good clustering of many classes.

    >>> t = sparse_table(1000)
    >>> t.n_classes, t.nnz <= 4000
    (1000, True)
    """
    rng = np.random.default_rng(seed)
    cells = min(cells_per_class, n)
    rows = np.repeat(np.arange(n), cells)
    others = rng.integers(0, n, size=(n, cells))
    others[:, 0] = np.arange(n)  # every class keeps most of its items in its own cluster
    weights = rng.dirichlet(np.full(cells, 0.7), size=n)
    weights[:, 0] += 1.0
    counts = np.stack([rng.multinomial(n_per_class, w / w.sum()) for w in weights])
    return Contingency.from_counts(rows, others.ravel(), counts.ravel())


def time_methods(table: Contingency, methods: Sequence[str], *,
                 budget: float = 0.05, max_repeats: int = 5) -> list[Timing]:
    """Time ``recovery(table, method=m)`` for each method on fresh copies of the table,
    repeating while the total stays under ``budget`` seconds; the best time counts."""
    out = []
    for method in methods:
        best, spent, rate = float("inf"), 0.0, float("nan")
        for _ in range(max_repeats):
            fresh = copy.copy(table)  # a new object: no cached matching
            start = time.perf_counter()
            rate = recovery(fresh, method=method, max_permutations=None).rate
            took = time.perf_counter() - start
            best, spent = min(best, took), spent + took
            if spent > budget:
                break
        out.append(Timing(table.n_classes, method, best, rate))
    return out


def bruteforce_timing(ns: Iterable[int] = range(2, 11), *, seed: int = 0) -> list[Timing]:
    """Algorithm 1 (bruteforce), exact and greedy on dense n x n tables, n = 2 .. 10."""
    _warm_up()
    rows: list[Timing] = []
    for n in ns:
        rows += time_methods(dense_table(n, seed=seed + n), ["bruteforce", "exact", "greedy"])
    return rows


def scaling_timing(ns: Iterable[int] = (10, 30, 100, 300, 1000, 3000, 10_000), *,
                   seed: int = 0) -> list[Timing]:
    """Exact and greedy on sparse n x n tables up to n = 10,000 classes."""
    _warm_up()
    rows: list[Timing] = []
    for n in ns:
        rows += time_methods(sparse_table(n, seed=seed + n), ["exact", "greedy"])
    return rows


def _warm_up() -> None:
    # The first call imports the solvers (scipy.optimize, ...): keep that out of the times.
    for method in ("bruteforce", "exact", "greedy"):
        recovery(dense_table(3), method=method)


def timing_blocks(small: Sequence[Timing], large: Sequence[Timing]) -> list[Block]:
    """The two timing tables, with the paper's Algorithm 1 seconds alongside."""
    blocks: list[Block] = []
    if small:
        blocks.append(_pivot(small, "Time of the recovery rate on dense n x n tables "
                                    "(10,000 items per class), seconds", paper=True))
    if large:
        blocks.append(_pivot(large, "Exact and greedy on sparse n x n tables (100 items "
                                    "per class, 4 clusters each), seconds", paper=False))
    return blocks


def timing_text(small: Sequence[Timing], large: Sequence[Timing]) -> str:
    """:func:`timing_blocks` as text."""
    return blocks_text(timing_blocks(small, large))


def _pivot(rows: Sequence[Timing], caption: str, *, paper: bool) -> ResultTable:
    methods = list(dict.fromkeys(r.method for r in rows))
    ns = list(dict.fromkeys(r.n for r in rows))
    by = {(r.n, r.method): r for r in rows}
    header = [Column("n"), *(Column(m, seconds) for m in methods),
              *([Column("paper Alg. 1", seconds)] if paper else []),
              Column("exact %", percent_column), Column("greedy %", percent_column)]
    body = []
    for n in ns:
        line = [n, *(by[n, m].seconds if (n, m) in by else None for m in methods)]
        if paper:
            line.append(PAPER_ALGORITHM1_SECONDS.get(n))
        line += [by[n, m].rate if (n, m) in by else None for m in ("exact", "greedy")]
        body.append(line)
    return ResultTable(header, body, caption)
