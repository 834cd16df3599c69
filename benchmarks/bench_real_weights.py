"""Every score that accepts real masses, on a table of real weights and on the table of
the same labels without weights, against scikit-learn's ARI of those labels, one process.

A table of real-valued ``sample_weight`` is scored from the exact integers of its float64
masses where floats would lose digits (Python integers: O(nnz) Python-level steps where
an integer table takes vectorised ones); this prints each score's time on both tables
and their ratios to scikit-learn's ``adjusted_rand_score``, so the cost of real masses is
read per score. Weights are log-uniform over ``--spread`` orders of magnitude.

With ``--peer DIR`` (a directory holding another checkout's package copied as
``clustermetrics_main``) each score runs on both packages, interleaved, best of
``--repeats``, on the real and on the integer table, with the ratio ours / peer; a score
that fails on the peer says so. ``evaluate`` of every score on the real table is timed the
same way.

    python benchmarks/bench_real_weights.py                       # N = 1e6, 3 shapes
    python benchmarks/bench_real_weights.py --shapes noise30 --spread 300 --n 1e5
    cp -r ../main/src/clustermetrics /tmp/peer/clustermetrics_main
    python benchmarks/bench_real_weights.py --peer /tmp/peer --repeats 7
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

import clustermetrics as cm

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_peers import timeit  # noqa: E402  (the same median-of-repeats timer)
from bench_shapes import shape_labels  # noqa: E402


def fresh(package: Any, table: cm.Contingency) -> Any:
    """A copy of ``table`` without cached results, as ``package``'s Contingency."""
    return package.Contingency(table.rows, table.cols, table.counts, table.class_labels,
                               table.cluster_labels, table.class_sizes, table.cluster_sizes)


def best(calls: dict[str, Callable[[], object]], repeats: int) -> dict[str, float | str]:
    """The least time of each call over ``repeats`` interleaved rounds (or its error)."""
    times: dict[str, float | str] = {name: float("inf") for name in calls}
    for _ in range(repeats):
        for name, call in calls.items():
            if isinstance(times[name], str):
                continue
            gc.collect()  # the garbage of the last call (a real table's ints) is not this one's
            start = time.perf_counter()
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    call()
            except Exception as exc:  # noqa: BLE001 (reported: the score fails there)
                times[name] = type(exc).__name__
                continue
            times[name] = min(times[name], time.perf_counter() - start)  # type: ignore
    return times


def _cell(value: float | str, ari: float) -> str:
    return f"{value:>26}" if isinstance(value, str) else \
        f"{value:9.3f} s {value / ari:6.2f}x ARI"


def run_shape(name: str, n: int, spread: float, repeats: int, keys: list[str],
              peer: Any) -> None:
    from sklearn.metrics import adjusted_rand_score

    t, p = shape_labels(name, n)
    w = 10.0 ** np.random.default_rng(1).uniform(-spread, 0.0, n)
    ari, _ = timeit(lambda: adjusted_rand_score(t, p), repeats)
    counted = cm.Contingency.from_labels(t, p)
    build, real = timeit(lambda: cm.Contingency.from_labels(t, p, sample_weight=w), repeats)
    print(f"\n== {name}: N = {n:.0e}, weights 1e-{spread:g} ... 1, nnz = {real.nnz}; "
          f"scikit-learn ARI {ari:.3f} s; real table build {build:.3f} s "
          f"({build / ari:.2f}x)", flush=True)
    packages = {"ours": cm} if peer is None else {"ours": cm, "peer": peer}
    header = "".join(f"{f'{side} {who}':>27}" for side in ("real", "counts")
                     for who in packages)
    print(f"   {'score':<32}{header}" + ("   real ours/peer  counts ours/peer"
                                           if peer is not None else ""))
    for key in keys:
        calls = {f"{side} {who}": (lambda e=pkg.METRICS[key], tab=table, pkg=pkg:
                                   e.compute(fresh(pkg, tab))[0])
                 for side, table in (("real", real), ("counts", counted))
                 for who, pkg in packages.items()}
        times = best(calls, repeats)
        line = "".join(_cell(times[name], ari) for name in calls)
        if peer is not None:
            line += "".join(f"{times[f'{side} ours'] / times[f'{side} peer']:>16.2f}"
                            if not isinstance(times[f"{side} peer"], str) and
                            not isinstance(times[f"{side} ours"], str) else f"{'':>16}"
                            for side in ("real", "counts"))
        print(f"   {key:<32}{line}", flush=True)
    times = best({who: (lambda pkg=pkg: pkg.evaluate(t, p, sample_weight=w))
                  for who, pkg in packages.items()}, min(repeats, 3))
    print("   evaluate(every score, real weights): " +
          ", ".join(f"{who} {_cell(v, ari).strip()}" for who, v in times.items()), flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=float, default=1e6, help="items per shape (default 1e6)")
    ap.add_argument("--shapes", default="noise30,cells,nearperfect",
                    help="comma-separated shapes of benchmarks/bench_shapes.py")
    ap.add_argument("--spread", type=float, default=15.0,
                    help="orders of magnitude the weights span (default 15)")
    ap.add_argument("--metrics", default="all",
                    help="comma-separated score keys, or 'all' that accept real masses")
    ap.add_argument("--repeats", type=int, default=3, help="best of this many runs")
    ap.add_argument("--peer", help="directory with a checkout's clustermetrics_main")
    args = ap.parse_args()
    keys = [k for k, e in cm.METRICS.items() if e.real_weights is not None] \
        if args.metrics == "all" else args.metrics.split(",")
    peer = None
    if args.peer:
        sys.path.insert(0, args.peer)
        import clustermetrics_main as peer
    print(f"load {os.getloadavg()}")
    for shape in args.shapes.split(","):
        run_shape(shape, int(args.n), args.spread, args.repeats, keys, peer)
    print(f"load {os.getloadavg()}")


if __name__ == "__main__":
    main()
