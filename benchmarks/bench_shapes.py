"""Every registered score on a zoo of table shapes, against scikit-learn's ARI, one process.

A score that is fast on the benchmark's own model (truth plus 30 % noise, K = 1000) can
fall off a cliff on other shapes; this runs every score of ``clustermetrics.METRICS`` on
each shape below (each on a fresh copy of the built table, so shared matchings are paid
by the score that needs them) and prints its time and its ratio to scikit-learn's
``adjusted_rand_score`` on the same labels. ``evaluate`` of all scores (table build
included) is timed too. With ``--ortools``, OR-Tools' ``LinearSumAssignment`` solves the
assignments of the uniform-noise shapes side by side: clustering accuracy's counts, the
recovery rate's recall weights n_ij / a_i and PSI's n_ij / max(a_i, b_j) (same graph; the
fractions rounded to integers for OR-Tools; matched totals compared).

    python benchmarks/bench_shapes.py                      # all shapes, N = 1e6
    python benchmarks/bench_shapes.py --shapes uniform --ortools
    python benchmarks/bench_shapes.py --n 1e5 --json out.json

Shapes (N items):
  uniform       truth and prediction independently uniform over N/10 labels (noise)
  uniform100    the same over N/100 labels: ~100 items per class, counts mostly 1, a few
                2-3 (the hardest noise for the exact matchings)
  entity        Zipf(2) entity sizes (mostly singletons), 10 % of items moved to a
                random entity (entity resolution)
  noise30       N/100 classes, 30 % of labels redrawn uniformly
  cells         30 classes vs 2,000 clusters (each cluster inside one class), 10 %
                redrawn (single-cell-like); ``cells_t`` is its transpose
  nearperfect   N/10 classes, 1 % of labels redrawn
  one_vs_singletons   one class, every item its own cluster; ``singletons_vs_one``
                the transpose
  chain         N/10 classes, class i split evenly between clusters i and i + 1
  blocks        N/10 classes in blocks of 10, each item's cluster uniform among the 10
                clusters of its class's block (block-diagonal noise)
  chain_perm    N/2 classes of 2 items, class i's in clusters i and i + 1, class and
                cluster ids shuffled (one long path of cells in random memory order)
  cycle_perm    the same closed into one cycle (class K - 1 also in cluster 0)
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time

import numpy as np

import clustermetrics as cm
from clustermetrics.compute import dispatch as _kernels
from clustermetrics.scores import _matchings
from clustermetrics.scores._cells import larger_size_cells

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # imported by the tests too
from bench_peers import timeit  # noqa: E402  (the same median-of-repeats timer)

SHAPES = ["uniform", "uniform100", "entity", "noise30", "cells", "cells_t", "nearperfect",
          "one_vs_singletons", "singletons_vs_one", "chain", "blocks", "chain_perm",
          "cycle_perm"]


def shape_labels(name: str, n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    if name in ("uniform", "uniform100"):
        k = max(1, n // (10 if name == "uniform" else 100))
        return rng.integers(0, k, n), rng.integers(0, k, n)
    if name == "entity":
        sizes = []
        total = 0
        while total < n:
            s = rng.zipf(2.0, n)
            sizes.append(s)
            total += int(s.sum())
        sizes = np.concatenate(sizes)
        sizes = sizes[:np.searchsorted(np.cumsum(sizes), n) + 1]
        t = np.repeat(np.arange(sizes.shape[0]), sizes)[:n]
        p = t.copy()
        moved = rng.random(n) < 0.1
        p[moved] = rng.integers(0, sizes.shape[0], int(moved.sum()))
        return t, p
    if name in ("noise30", "nearperfect"):
        k, share = (max(1, n // 100), 0.3) if name == "noise30" else (max(1, n // 10), 0.01)
        t = rng.integers(0, k, n)
        p = np.where(rng.random(n) < share, rng.integers(0, k, n), t)
        return t, p
    if name in ("cells", "cells_t"):
        n_types, n_clusters = 30, 2000
        t = rng.choice(n_types, n, p=rng.dirichlet(np.ones(n_types)))
        home = np.arange(n_clusters) % n_types  # each cluster inside one cell type
        per_type = [np.flatnonzero(home == c) for c in range(n_types)]
        offsets = rng.integers(0, 1 << 30, n)
        p = np.zeros(n, dtype=np.int64)
        for c in range(n_types):
            at = np.flatnonzero(t == c)
            p[at] = per_type[c][offsets[at] % per_type[c].shape[0]]
        p = np.where(rng.random(n) < 0.1, rng.integers(0, n_clusters, n), p)
        return (t, p) if name == "cells" else (p, t)
    if name in ("one_vs_singletons", "singletons_vs_one"):
        one, each = np.zeros(n, dtype=np.int64), np.arange(n)
        return (one, each) if name == "one_vs_singletons" else (each, one)
    if name in ("chain", "blocks"):
        k = max(1, n // 10)
        t = rng.integers(0, k, n)
        if name == "chain":
            return t, t + (rng.random(n) < 0.5)
        return t, (t // 10) * 10 + rng.integers(0, 10, n)
    if name in ("chain_perm", "cycle_perm"):
        k = max(1, n // 2)
        c = np.arange(n) // 2
        clusters = k if name == "cycle_perm" else k + 1
        p = (c + np.arange(n) % 2) % clusters
        return rng.permutation(k)[c], rng.permutation(clusters)[p]
    raise ValueError(f"unknown shape {name!r}; choose from {', '.join(SHAPES)}")


def fresh(table: cm.Contingency) -> cm.Contingency:
    """A copy without cached results: each score pays for the matchings it needs."""
    return cm.Contingency(table.rows, table.cols, table.counts, table.class_labels,
                          table.cluster_labels, table.class_sizes, table.cluster_sizes)


def ortools_matching(table: cm.Contingency, weights: np.ndarray,
                     integral: bool) -> tuple[float, float, int]:
    """OR-Tools' LinearSumAssignment on the max-weight assignment of ``table``'s cells
    with ``weights`` (any shape): left = classes + one dummy per cluster, right =
    clusters + one dummy per class, so a perfect assignment always exists. Integer
    weights go in as they are, others as round(w * 2**b / max w), b = 40, 36, ... the
    first that OR-Tools' overflow guard accepts (it needs integers and scales them by the
    node count); its retries count in its time. Returns (seconds including
    building the graph from numpy, the total of ``weights`` over its matching, b)."""
    from ortools.graph.python import linear_sum_assignment

    start = time.perf_counter()
    rows, cols = table.rows, table.cols
    nr, nc = table.n_classes, table.n_clusters
    left = np.concatenate([rows, np.arange(nr), nr + np.arange(nc), nr + cols])
    right = np.concatenate([cols, nc + np.arange(nr), np.arange(nc), nc + rows])
    cost = np.zeros(left.shape[0], dtype=np.int64)
    for bits in ([0] if integral else range(40, 0, -4)):
        scale = 1.0 if integral else 2.0**bits / float(weights.max())
        cost[:rows.shape[0]] = -np.rint(weights * scale).astype(np.int64)
        solver = linear_sum_assignment.SimpleLinearSumAssignment()
        solver.add_arcs_with_cost(left, right, cost)
        status = solver.solve()
        if status != solver.POSSIBLE_OVERFLOW:  # its guard: costs times the node count
            break
    if status != solver.OPTIMAL:
        raise RuntimeError(f"OR-Tools found no optimal assignment (status {status})")
    seconds = time.perf_counter() - start
    mate = np.array([solver.right_mate(i) for i in range(nr)])
    real = mate < nc
    keys = rows * nc + cols  # cells sorted by (row, col)
    at = np.searchsorted(keys, np.flatnonzero(real) * nc + mate[real])
    return seconds, math.fsum(weights[at].tolist()), bits


def ortools_compare(table: cm.Contingency) -> dict:
    """Our exact matching scores (fresh table) against OR-Tools on the same assignments."""
    out = {}
    for name, score, weights, integral, ours_total in (
            ("clustering accuracy", cm.clustering_accuracy_score,
             lambda t: t.counts.astype(np.float64), True,
             lambda t: float(_matchings.matched_count(t))),
            ("recovery rate", cm.recovery_rate_score, _matchings.recall_weights, False,
             lambda t: math.fsum(_matchings.recall_weights(t)[
                 _matchings.recall_matching(t)].tolist())),
            ("PSI", cm.pair_sets_index_score, _psi_weights, False,
             lambda t: _matchings.matched_sum(t, _psi_weights(t), "set_matching:psi",
                                              larger_size_cells(t)))):
        copy = fresh(table)
        ours, _ = timeit(lambda copy=copy, score=score: score(copy), 1)
        theirs, total, bits = ortools_matching(table, weights(table), integral)
        mine = ours_total(copy)
        same = "same optimum" if abs(total - mine) <= 1e-12 * max(1.0, abs(mine)) else \
            f"DIFFERENT: {total!r} vs {mine!r}"
        out[name] = {"ours": ours, "ortools": theirs, "total": mine, "ortools_total": total}
        rounded = "" if integral else f", OR-Tools on weights rounded at 2**{bits}"
        print(f"   {name} {ours:.3f} s vs OR-Tools LinearSumAssignment {theirs:.3f} s: "
              f"{theirs / ours:.1f}x faster, {same} ({mine!r}{rounded})", flush=True)
    return out


def _psi_weights(table: cm.Contingency) -> np.ndarray:
    return table.counts / larger_size_cells(table)


def run_shape(name: str, n: int, repeats: int, metrics: list[str], do_evaluate: bool,
              ortools: bool) -> dict:
    from sklearn.metrics import adjusted_rand_score

    t, p = shape_labels(name, n)
    ari, ari_value = timeit(lambda: adjusted_rand_score(t, p), repeats)
    build, table = timeit(lambda: cm.Contingency.from_labels(t, p), repeats)
    print(f"\n== {name}: N = {n:.0e}, {table.n_classes} classes x {table.n_clusters} "
          f"clusters, nnz = {table.nnz}; scikit-learn ARI {ari:.3f} s; table build "
          f"{build:.3f} s ({build / ari:.2f}x)", flush=True)
    out = {"shape": name, "n": n, "nnz": table.nnz, "n_classes": table.n_classes,
           "n_clusters": table.n_clusters, "sklearn_ari": ari, "build": build, "scores": {}}
    cm.adjusted_rand_score(table)  # imports out of the way
    for key in metrics:
        seconds, value = timeit(lambda key=key: cm.METRICS[key].compute(fresh(table))[0],
                                repeats)
        out["scores"][key] = seconds
        if key == "ari" and abs(value - ari_value) > 1e-10:
            print(f"   ARI DIFFERS from scikit-learn: {value!r} vs {ari_value!r}")
        flag = "  <-- above 10x" if seconds > 10 * ari else ""
        if seconds > 0.1 * ari or flag:
            print(f"   {key:<28} {seconds:9.3f} s {seconds / ari:8.2f}x{flag}", flush=True)
    worst = max(out["scores"], key=out["scores"].get)
    print(f"   worst score: {worst} {out['scores'][worst] / ari:.2f}x ARI "
          f"(scores under 0.1x not listed)")
    if do_evaluate:
        seconds, _ = timeit(lambda: cm.evaluate(t, p, metrics=metrics), 1)
        out["evaluate"] = seconds
        flag = "  <-- above 30x" if seconds > 30 * ari else ""
        print(f"   evaluate({len(metrics)} scores, with build) {seconds:9.3f} s "
              f"{seconds / ari:8.2f}x{flag}", flush=True)
    if ortools:
        out["ortools"] = ortools_compare(table)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=float, default=1e6, help="items per shape (default 1e6)")
    ap.add_argument("--shapes", default=",".join(SHAPES), help="comma-separated shapes")
    ap.add_argument("--metrics", default="all", help="comma-separated score keys or 'all'")
    ap.add_argument("--repeats", type=int, default=3, help="median of this many runs")
    ap.add_argument("--no-evaluate", action="store_true", help="skip evaluate(all)")
    ap.add_argument("--ortools", action="store_true",
                    help="OR-Tools on the uniform shapes' assignments ('bench' extra)")
    ap.add_argument("--json", help="write the timings here")
    args = ap.parse_args()
    metrics = list(cm.METRICS) if args.metrics == "all" else args.metrics.split(",")
    print(f"load {os.getloadavg()}; kernels {_kernels.kernels_mode()}; "
          f"python {sys.version.split()[0]}, numpy {np.__version__}")
    results = [run_shape(s, int(args.n), args.repeats, metrics, not args.no_evaluate,
                         args.ortools and s.startswith("uniform"))
               for s in args.shapes.split(",")]
    print(f"load {os.getloadavg()}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(results, fh, indent=1)


if __name__ == "__main__":
    main()
