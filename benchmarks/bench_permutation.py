"""The two samplers of random tables with fixed margins (clustermetrics.inference.permutation), side
by side on a zoo of table shapes, with the one ``sampler="auto"`` picks.

Prints per shape: N, classes R, clusters C, seconds per random table for "patefield"
(row-wise multivariate hypergeometric, O(R C)) and "shuffle" (one permutation of N
cluster codes, O(N)), their ratio, and the auto choice (should be the faster one, or
within the noise of it). Also: seconds per draw of a whole ARI permutation test.

    .venv/bin/python benchmarks/bench_permutation.py [--draws 20]
    .venv/bin/python benchmarks/bench_permutation.py --zoo [--n 1e6] [--metric ari]

``--zoo``: the shapes of bench_shapes.py instead, at N items: seconds per random table
(the sampler ``auto`` picks), its ratio to building the table from the labels, and seconds
per draw of a whole permutation test of ``--metric`` (table drawn and scored).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

import clustermetrics as cm
from clustermetrics.inference.permutation import choose_sampler, null_tables

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_shapes import SHAPES as ZOO  # noqa: E402
from bench_shapes import shape_labels  # noqa: E402

SHAPES = [  # (N, R, C): balanced, few-vs-many, entity-resolution-like, near-perfect
    (10_000, 10, 10),
    (1_000_000, 10, 10),
    (1_000_000, 100, 100),
    (1_000_000, 1000, 1000),
    (1_000_000, 30, 3000),
    (100_000, 5000, 5000),
    (10_000_000, 100, 100),
]


def table_of(n: int, r: int, c: int, rng: np.random.Generator) -> cm.Contingency:
    truth = rng.integers(0, r, n)
    pred = np.where(rng.random(n) < 0.7, truth % c, rng.integers(0, c, n))
    return cm.Contingency.from_labels(truth, pred)


def per_draw(table: cm.Contingency, sampler: str, draws: int,
             clock=time.perf_counter) -> float:
    start = clock()
    for _ in null_tables(table, draws, seed=0, sampler=sampler):
        pass
    return (clock() - start) / draws


def zoo(n: int, draws: int, metric: str, shapes: list[str]) -> None:
    print(f"load average {os.getloadavg()[0]:.1f}; N = {n:.0e}; CPU seconds of this process")
    print(f"{'shape':>18} {'R':>7} {'C':>7} {'nnz':>7} {'auto':>9} {'per table':>9} "
          f"{'build':>7} {'ratio':>6} {metric + ' test':>14}")
    cm.Contingency.from_labels([0, 1], [0, 1])  # first-call costs out of the way
    for name in shapes:
        t, p = shape_labels(name, n)
        start = time.process_time()
        table = cm.Contingency.from_labels(t, p)
        build = time.process_time() - start
        per = per_draw(table, "auto", draws, time.process_time)
        cm.permutation_test(table, metric=metric, n_perm=1, seed=0)  # kernels, caches
        start = time.process_time()
        cm.permutation_test(table, metric=metric, n_perm=draws, seed=0)
        test = (time.process_time() - start) / draws
        print(f"{name:>18} {table.n_classes:>7} {table.n_clusters:>7} {table.nnz:>7} "
              f"{choose_sampler(table):>9} {per:>9.4f} {build:>7.4f} {per / build:>6.1f} "
              f"{test:>14.4f}", flush=True)
    print(f"load average {os.getloadavg()[0]:.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--draws", type=int, default=20)
    parser.add_argument("--zoo", action="store_true", help="the bench_shapes.py shapes")
    parser.add_argument("--n", type=float, default=1e6, help="items per zoo shape")
    parser.add_argument("--metric", default="ari", help="the zoo's permutation-test score")
    parser.add_argument("--shapes", default=",".join(ZOO), help="comma-separated zoo shapes")
    args = parser.parse_args()
    if args.zoo:
        zoo(int(args.n), args.draws, args.metric, args.shapes.split(","))
        return
    print(f"load average {os.getloadavg()[0]:.1f}; seconds per random table")
    print(f"{'N':>10} {'R':>5} {'C':>5} {'patefield':>10} {'shuffle':>10} "
          f"{'pate/shuf':>9} {'auto':>9} {'ARI test':>9}")
    rng = np.random.default_rng(0)
    for n, r, c in SHAPES:
        table = table_of(n, r, c, rng)
        draws = max(2, args.draws if n <= 1_000_000 else args.draws // 5)
        pate = per_draw(table, "patefield", draws)
        shuf = per_draw(table, "shuffle", draws)
        start = time.perf_counter()
        cm.permutation_test(table, metric="ari", n_perm=draws, seed=0)
        test = (time.perf_counter() - start) / draws
        print(f"{n:>10} {table.n_classes:>5} {table.n_clusters:>5} {pate:>10.5f} "
              f"{shuf:>10.5f} {pate / shuf:>9.2f} {choose_sampler(table):>9} {test:>9.5f}")


if __name__ == "__main__":
    main()
