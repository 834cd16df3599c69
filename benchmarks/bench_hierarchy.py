"""score_hierarchy (every cut of a dendrogram in one pass) against scoring each cut from
scratch (scipy fcluster + evaluate per level), in one process on the same tree.

    .venv/bin/python benchmarks/bench_hierarchy.py                 # default sizes
    .venv/bin/python benchmarks/bench_hierarchy.py --baseline 500,1000 --large 1e5,1e6

Trees: ward linkage (scipy) of 2-D Gaussian blobs, one blob per class, for the sizes the
per-level baseline finishes; genieclust's Genie tree of the same kind of data for the
large sizes (our pass only): the merge loop alone, all levels of the 13 scores, all
levels of every updatable score (score_hierarchy's default), and the 761-cut log grid.
Every baseline level is checked against ours (to 1e-12).
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
from scipy.cluster.hierarchy import fcluster, linkage

import clustermetrics as cm
from clustermetrics.compute import dispatch as _kernels
from clustermetrics.hierarchy.cuts import _level_stats

METRICS = ["ari", "ri", "fmi", "pair_precision", "pair_recall", "pair_f1", "pair_jaccard",
           "mi", "nmi", "v_measure", "homogeneity", "completeness", "vi"]


def data(n: int, k: int = 10, seed: int = 0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    return rng.normal(size=(n, 2)) + 3.0 * rng.normal(size=(k, 2))[y], y


def timed(work):
    start = time.perf_counter()
    result = work()
    return result, time.perf_counter() - start


def per_level(Z: np.ndarray, y: np.ndarray, metrics: list[str]) -> dict[str, np.ndarray]:
    n = y.shape[0]
    out = {key: np.empty(n) for key in metrics}
    for k in range(1, n + 1):
        report = cm.evaluate(y, fcluster(Z, k, "maxclust"), metrics)
        for key in metrics:
            out[key][k - 1] = report[key]
    return out


def baseline_rows(sizes: list[int], metrics: list[str]) -> None:
    print("| N | levels | score_hierarchy s | fcluster + evaluate per level s | ratio | "
          "max abs diff |")
    print("|---|---|---|---|---|---|")
    for n in sizes:
        X, y = data(n)
        Z = linkage(X, "ward")
        ours, t_ours = timed(lambda: cm.score_hierarchy(y, Z, metrics))  # noqa: B023
        ref, t_ref = timed(lambda: per_level(Z, y, metrics))  # noqa: B023
        diff = max(float(np.max(np.abs(ours.values[key] - ref[key]))) for key in metrics)
        assert diff <= 1e-12, diff
        print(f"| {n:,} | {n:,} | {t_ours:.3f} | {t_ref:.2f} | {t_ref / t_ours:,.0f}× | "
              f"{diff:.1e} |", flush=True)


def large_rows(sizes: list[int], metrics: list[str]) -> None:
    import genieclust

    every = cm.updatable_metrics()
    print(f"\n| N | tree (Genie) s | merge loop s | all levels, {len(metrics)} scores s | "
          f"all levels, all {len(every)} updatable s | log grid: cuts | grid, "
          f"{len(metrics)} scores s |")
    print("|---|---|---|---|---|---|---|")
    for n in sizes:
        X, y = data(n)
        model, t_tree = timed(lambda: genieclust.Genie(n_clusters=10).fit(X))  # noqa: B023
        codes = y.astype(np.int64)
        _, t_loop = timed(lambda: _level_stats(  # noqa: B023
            codes, np.bincount(codes), model.children_.astype(np.int64)))  # noqa: B023
        _, t_some = timed(lambda: cm.score_hierarchy(y, model, metrics))  # noqa: B023
        _, t_all = timed(lambda: cm.score_hierarchy(y, model))  # noqa: B023
        grid = np.unique(np.geomspace(1, n, 1000).astype(int))
        _, t_grid = timed(lambda: cm.score_hierarchy(  # noqa: B023
            y, model, metrics, n_clusters=grid))  # noqa: B023
        print(f"| {n:,} | {t_tree:.1f} | {t_loop:.2f} | {t_some:.2f} | {t_all:.2f} | "
              f"{grid.shape[0]} | {t_grid:.2f} |", flush=True)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--baseline", default="250,500,1000,2000",
                   help="sizes compared with the per-level baseline")
    p.add_argument("--large", default="1e4,1e5,1e6", help="sizes of our pass alone")
    p.add_argument("--metrics", default=",".join(METRICS))
    args = p.parse_args()
    metrics = args.metrics.split(",")
    _kernels.set_kernels("numba")
    cm.score_hierarchy([0, 1, 1], linkage([[0.0], [1.0], [2.0]]), metrics)  # load / compile
    _level_stats(np.array([0, 1, 1]), np.array([1, 2]), np.array([[0, 1], [2, 3]]))
    print(f"load average {os.getloadavg()[0]:.1f}; metrics: {', '.join(metrics)}\n")
    baseline_rows([int(float(s)) for s in args.baseline.split(",") if s], metrics)
    large_rows([int(float(s)) for s in args.large.split(",") if s], metrics)


if __name__ == "__main__":
    main()
