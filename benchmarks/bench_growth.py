"""Time of every matching-based score against the number of table cells (uniform noise).

The uniform-noise shape of bench_shapes.py (truth and prediction independently uniform
over N/10 labels, so nnz ~ N) at growing N; each score on a fresh copy of the table. A
score that took longer than --budget seconds is not run at the larger sizes. Prints the
times, the log-log slope of time against nnz for each score (1 = linear), and writes the
plot (needs matplotlib, the ``plot`` extra).

    python benchmarks/bench_growth.py                       # 1e5 ... 1e7 cells
    python benchmarks/bench_growth.py --sizes 1e5,3e5,1e6 --plot growth.png
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
from bench_shapes import fresh, shape_labels

import clustermetrics as cm

SCORES = ["clustering_error", "recovery_rate", "nca", "recovery_rate_greedy",
          "pseudo_recovery_rate", "psi"]


def slope(nnz: list[int], seconds: list[float]) -> float | None:
    """Least-squares slope of log(seconds) against log(nnz) (None below two points)."""
    if len(nnz) < 2:
        return None
    return float(np.polyfit(np.log(nnz), np.log(seconds), 1)[0])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1e5,3e5,1e6,3e6,1e7", help="N values (nnz ~ N)")
    ap.add_argument("--scores", default=",".join(SCORES), help="comma-separated keys")
    ap.add_argument("--budget", type=float, default=60.0,
                    help="stop growing a score once one run took longer (s)")
    ap.add_argument("--plot", default="benchmarks/results/growth.png", help="PNG to write")
    args = ap.parse_args()
    from sklearn.metrics import adjusted_rand_score

    scores = args.scores.split(",")
    series: dict[str, tuple[list[int], list[float]]] = {k: ([], []) for k in
                                                         ["sklearn ARI", *scores]}
    over: set[str] = set()
    print(f"load {os.getloadavg()}")
    warm = cm.Contingency.from_labels(*shape_labels("uniform", 60_000))
    for key in scores:  # imports and the compiled kernels' loading out of the way
        cm.METRICS[key].compute(fresh(warm))
    for n in (int(float(s)) for s in args.sizes.split(",")):
        t, p = shape_labels("uniform", n)
        table = cm.Contingency.from_labels(t, p)
        start = time.perf_counter()
        adjusted_rand_score(t, p)
        ari = time.perf_counter() - start
        series["sklearn ARI"][0].append(table.nnz)
        series["sklearn ARI"][1].append(ari)
        print(f"N = {n:.0e}, nnz = {table.nnz}: scikit-learn ARI {ari:.3f} s", flush=True)
        for key in scores:
            if key in over:
                continue
            start = time.perf_counter()
            cm.METRICS[key].compute(fresh(table))
            seconds = time.perf_counter() - start
            series[key][0].append(table.nnz)
            series[key][1].append(seconds)
            print(f"   {key:<24} {seconds:9.3f} s  {seconds / ari:7.2f}x ARI", flush=True)
            if seconds > args.budget:
                over.add(key)
    print(f"load {os.getloadavg()}")
    print("slope of log(time) against log(nnz), 1 = linear:")
    for key, (nnz, seconds) in series.items():
        s = slope(nnz, seconds)
        cut = f" (stopped after {nnz[-1]} cells: over {args.budget:.0f} s)" if key in over \
            else ""
        print(f"   {key:<24} {'-' if s is None else f'{s:.2f}'}{cut}")
    _plot(series, args.plot)


def _plot(series, path: str) -> None:
    try:
        import matplotlib
    except ImportError:
        print("matplotlib not installed (pip install 'clustermetrics[plot]'): no plot")
        return
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for key, (nnz, seconds) in series.items():
        s = slope(nnz, seconds)
        label = key if s is None else f"{key} (slope {s:.2f})"
        ax.loglog(nnz, seconds, marker="o", linestyle="--" if key == "sklearn ARI" else "-",
                  label=label)
    ax.set_xlabel("non-zero cells of the table (uniform noise, N/10 labels a side)")
    ax.set_ylabel("seconds")
    ax.set_title("Matching-based scores: time against table size")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    fig.savefig(path, dpi=110)
    print(f"plot written to {path}")


if __name__ == "__main__":
    main()
