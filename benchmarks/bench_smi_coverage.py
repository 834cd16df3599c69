"""Coverage of the Monte Carlo SMI's stated standard error: the control-variate estimate of
Var[S] over many seeds against the exact variance, on small tables where it is affordable.

    python benchmarks/bench_smi_coverage.py                 # 100 seeds, 20 and 60 tables

Prints, per table and number of tables, the mean and sd of (estimate - exact) / SE (0 and
1 for an honest error), the share beyond 2 and 3, and the median SE relative to Var[S].
"""

from __future__ import annotations

import argparse
import os

import numpy as np

import clustermetrics as cm
from clustermetrics.scores import _smi, _smi_monte_carlo


def margins(seed, n, kt, kp, giant=0.0):
    rng = np.random.default_rng(seed)
    t = rng.integers(0, kt, n)
    t[: int(giant * n)] = 0  # one giant class, as in entity resolution
    p = np.where(rng.random(n) < 0.6, t % kp, rng.integers(0, kp, n))
    p[: int(giant * n * 0.9)] = 0
    return t, p


CASES = [(3, 2000, 200, 180, 0.0), (4, 3000, 40, 30, 0.0), (6, 3000, 500, 450, 0.3),
         (7, 5000, 8, 300, 0.0)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=100)
    ap.add_argument("--tables", default="20,60")
    args = ap.parse_args()
    print(f"load {os.getloadavg()}")
    for case in CASES:
        table = cm.Contingency.from_labels(*margins(*case))
        a, b, n = table.class_sizes, table.cluster_sizes, table.n_samples
        e_s, var_s = _smi.exact_variance(a, b, n)
        ca, cb = _smi_monte_carlo._canonical(a, b)
        ctl = _smi_monte_carlo._Controls(ca, cb, n)
        for m in (int(x) for x in args.tables.split(",")):
            z, rel = [], []
            for seed in range(args.seeds):
                stats = _smi_monte_carlo.sample_stats(ca, cb, m, seed, ctl)
                est, se = _smi_monte_carlo.variance_from_stats(stats, e_s, ctl.mean, ctl.cov)
                z.append((est - var_s) / se)
                rel.append(se / var_s)
            z = np.array(z)
            print(f"N = {n}, {table.n_classes} x {table.n_clusters}, {m} tables: mean z "
                  f"{z.mean():.2f}, sd z {z.std():.2f}, |z| > 2 {np.mean(np.abs(z) > 2):.2f},"
                  f" |z| > 3 {np.mean(np.abs(z) > 3):.2f}, median SE / Var "
                  f"{np.median(rel):.3f}", flush=True)


if __name__ == "__main__":
    main()
