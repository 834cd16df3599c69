"""Cost of a bootstrap replicate (evaluate(..., ci=...)) against building the table.

    python benchmarks/bench_bootstrap.py --n 1e6 --k 100 --metrics ami --n-boot 200
    python benchmarks/bench_bootstrap.py --shape uniform --metrics ari,nmi,ami,recovery_rate
    python benchmarks/bench_bootstrap.py --shape chain --metrics ari,nmi,ami,recovery_rate \
        --breakdown

A replicate is a multinomial redraw of the table's cells plus the scores of that table, so
its cost follows nnz and the scores, not N. Replicates are scored on several threads
(``CLUSTERMETRICS_THREADS=1``: one); the wall-clock ratio shows that, the CPU ratio not.
Prints the table build, one evaluate of the scores, and the seconds per replicate.
``--breakdown`` also times the parts of a replicate (in CPU seconds, after the bootstrap
loaded whatever kernels it needed): the multinomial draw, and each score of the replicate
from its counts alone.
"""

import argparse
import time

import numpy as np
from bench_shapes import SHAPES, shape_labels

import clustermetrics as cm
from clustermetrics.compute import dispatch as _kernels
from clustermetrics.compute.threads import replicate_threads
from clustermetrics.evaluation.evaluate import replicate_scores
from clustermetrics.inference.bootstrap import multinomial_sampler


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=float, default=1e6, help="items (default 1e6)")
    ap.add_argument("--k", type=int, default=100, help="classes = clusters (default 100)")
    ap.add_argument("--metrics", default="ami", help="score keys (default ami; 'all')")
    ap.add_argument("--n-boot", type=int, default=200, help="replicates (default 200)")
    ap.add_argument("--method", default="normal", help="interval method (default normal)")
    ap.add_argument("--breakdown", action="store_true",
                    help="time the draw and each score of a replicate (CPU, 10 replicates)")
    ap.add_argument("--shape", choices=SHAPES,
                    help="labels of this bench_shapes.py shape instead of K classes + 30 %% "
                         "noise; 'one evaluation' then includes building the table")
    args = ap.parse_args()
    n = int(args.n)
    metrics = None if args.metrics == "all" else args.metrics
    if args.shape:
        t, p = shape_labels(args.shape, n)
    else:
        rng = np.random.default_rng(0)
        t = rng.integers(0, args.k, n)
        p = t.copy()
        redrawn = rng.random(n) < 0.3
        p[redrawn] = rng.integers(0, args.k, int(redrawn.sum()))
    start = time.perf_counter()
    table = cm.Contingency.from_labels(t, p)
    build = time.perf_counter() - start
    cm.evaluate(table, metrics=metrics)  # imports and per-table caches out of the way
    fresh = cm.Contingency.from_labels(t, p)  # nothing cached on it yet
    start = time.perf_counter()
    report = cm.evaluate(fresh, metrics=metrics)
    scores = time.perf_counter() - start
    runs, cpu_runs = [], []
    for _ in range(3):  # labels in, scores out: one evaluation (median of 3)
        start, cpu = time.perf_counter(), time.process_time()
        cm.evaluate(t, p, metrics=metrics)
        runs.append(time.perf_counter() - start)
        cpu_runs.append(time.process_time() - cpu)
    once, cpu_once = sorted(runs)[1], sorted(cpu_runs)[1]
    start, cpu = time.perf_counter(), time.process_time()
    cm.evaluate(table, metrics=metrics, ci=0.95, n_boot=args.n_boot, seed=0,
                ci_method=args.method)
    per = (time.perf_counter() - start) / args.n_boot
    cpu_per = (time.process_time() - cpu) / args.n_boot
    what = f"shape {args.shape}" if args.shape else f"K = {args.k}"
    print(f"N = {n:.0e}, {what}, nnz = {table.nnz}, {len(report)} score(s), "
          f"{args.method} intervals, replicates on {replicate_threads(table.nnz)} thread(s) "
          f"(CLUSTERMETRICS_THREADS)")
    print(f"table build {build:.4f} s; scores once {scores:.4f} s; evaluate from labels "
          f"{once:.4f} s; per bootstrap replicate {per:.4f} s ({args.n_boot} replicates)")
    print(f"{args.n_boot} replicates = {args.n_boot * per / once:.1f}x one evaluation; "
          f"200 replicates = {200 * per / once:.1f}x (wall clock), "
          f"{200 * cpu_per / cpu_once:.1f}x (CPU time of this process, steadier on a "
          f"shared machine)")

    if args.breakdown:
        breakdown(table, list(report.to_dict()["scores"]), cpu_once)


def breakdown(table: cm.Contingency, keys: list[str], cpu_once: float, reps: int = 10) -> None:
    """CPU seconds per replicate of the draw and of each score from the counts (one key at
    a time, so each includes the replicate's margins), as multiples of one evaluation."""
    draw = multinomial_sampler(table.counts)
    rng = np.random.default_rng(1)
    start = time.process_time()
    draws = [draw(rng, table.n_samples) for _ in range(reps)]
    parts = {"draw": (time.process_time() - start) / reps}
    for key in keys:
        start = time.process_time()
        with _kernels.repeated(reps):  # as in the bootstrap loop (warm-started matchings)
            for counts in draws:
                replicate_scores(table, counts, [key])
        parts[key] = (time.process_time() - start) / reps
    print("per replicate (CPU): " + ", ".join(
        f"{k} {v * 1e3:.1f} ms ({200 * v / cpu_once:.0f}x over 200)" for k, v in parts.items()))


if __name__ == "__main__":
    main()
