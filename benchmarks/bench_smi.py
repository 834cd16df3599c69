"""SMI (exact and Monte Carlo) and RMI on one shape of bench_shapes.py, against
scikit-learn's adjusted_rand_score on the same labels, in one process.

    python benchmarks/bench_smi.py                        # uniform noise, N = 1e6
    python benchmarks/bench_smi.py --shape noise30 --mc-samples 50

Prints each time and its ratio to scikit-learn's ARI, the SMI of each method with the
Monte Carlo standard error, and which method ``auto`` chose.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_shapes import shape_labels  # noqa: E402

import clustermetrics as cm  # noqa: E402
from clustermetrics.scores import _smi, _smi_cost


def timed(func):
    start = time.perf_counter()
    value = func()
    return value, time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shape", default="uniform")
    ap.add_argument("--n", type=float, default=1e6)
    ap.add_argument("--mc-samples", type=int, default=100)
    ap.add_argument("--skip-exact", action="store_true")
    args = ap.parse_args()
    from sklearn.metrics import adjusted_rand_score

    t, p = shape_labels(args.shape, int(args.n))
    print(f"load {os.getloadavg()}; shape {args.shape}, N = {int(args.n):g}")
    _, ari = timed(lambda: adjusted_rand_score(t, p))
    table, build = timed(lambda: cm.Contingency.from_labels(t, p))
    print(f"scikit-learn ARI {ari:.3f} s; table build {build:.3f} s; "
          f"{table.n_classes} x {table.n_clusters}, nnz {table.nnz}")
    a, b = table.class_sizes, table.cluster_sizes
    print(f"exact work estimate {_smi_cost.exact_work(a, b):.3g}, one random table "
          f"{_smi.sample_cost(a, b):.3g} units")

    def row(name, func):
        fresh = cm.Contingency.from_labels(t, p)
        value, secs = timed(lambda: func(fresh))
        print(f"  {name:<34} {secs:8.3f} s  {secs / ari:7.2f}x ARI   {value}")

    row("smi auto", lambda x: cm.standardized_mutual_info(x))
    if not args.skip_exact:
        row("smi exact", lambda x: cm.standardized_mutual_info(x, method="exact"))
    row(f"smi monte_carlo ({args.mc_samples} tables)",
        lambda x: cm.standardized_mutual_info(x, method="monte_carlo",
                                              n_samples=args.mc_samples))
    row("rmi (nats per item)", cm.reduced_mutual_info_score)
    row("rnmi (truth)", cm.normalized_reduced_mutual_info_score)
    row("ami", cm.adjusted_mutual_info_score)
    row("nmi", cm.normalized_mutual_info_score)
    print(f"load {os.getloadavg()}")


if __name__ == "__main__":
    main()
