"""AMI on one fixed sparse table scaled to N = 1e6 ... 1e11 items: the cost of the expected
mutual information as N grows with the table's shape fixed, against the pmf walk alone.

The table: 500 classes x 500 clusters, ~985 non-zero cells with random weights (so ~500
distinct sizes on each side, ~125,000 distinct pairs of sizes), counts scaled to N. Every
pair's hypergeometric window spans ~sqrt(a b / N) cells, so summing the pmf costs ~sqrt(N);
the moment expansion takes the pairs with a mean from 512 on at a cost independent of N.

    python benchmarks/bench_ami_growth.py                    # 1e6 ... 1e11
    python benchmarks/bench_ami_growth.py --walk-up-to 1e9   # the walk alone up to 1e9
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

import clustermetrics as cm
from clustermetrics.scores import _emi


def table(n: float) -> cm.Contingency:
    rng = np.random.default_rng(0)
    r = c = 500
    rows = np.concatenate([np.arange(r), rng.integers(0, r, 487)])
    cols = np.concatenate([rng.permutation(c), rng.integers(0, c, 487)])
    key = np.unique(rows * c + cols)
    rows, cols = key // c, key % c
    w = rng.random(rows.shape[0]) + 0.1
    counts = np.maximum(1, np.floor(w * (n / w.sum()))).astype(np.int64)
    return cm.Contingency.from_cells(rows, cols, counts, np.arange(r), np.arange(c))


def timed(func):
    start = time.perf_counter()
    value = func()
    return value, time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1e6,1e7,1e8,1e9,1e10,1e11")
    ap.add_argument("--walk-up-to", type=float, default=1e9,
                    help="also time the pmf walk alone (no expansion) up to this N")
    args = ap.parse_args()
    print(f"load {os.getloadavg()}")
    cm.adjusted_mutual_info_score(table(1e7))  # imports and compiled kernels loaded
    default = _emi._EXPANSION_MEAN
    print("| N | nnz | distinct sizes | AMI | seconds | walk only: seconds | AMI rel. diff. "
          "| EMI rel. diff. |")
    print("|---|---|---|---|---|---|---|---|")
    for n in (float(s) for s in args.sizes.split(",")):
        t = table(n)
        value, secs = timed(lambda t=t: cm.adjusted_mutual_info_score(t))
        walk = ""
        if n <= args.walk_up_to:
            _emi._EXPANSION_MEAN = float("inf")
            try:
                fresh = table(n)  # a new table: the first result is cached on t
                w_value, w_secs = timed(lambda f=fresh: cm.adjusted_mutual_info_score(f))
            finally:
                _emi._EXPANSION_MEAN = default
            emi = _emi.expected_mutual_information(t.class_sizes, t.cluster_sizes, t.n_samples)
            _emi._EXPANSION_MEAN = float("inf")
            try:
                w_emi = _emi.expected_mutual_information(t.class_sizes, t.cluster_sizes,
                                                         t.n_samples)
            finally:
                _emi._EXPANSION_MEAN = default
            walk = f"{w_secs:.2f} | {abs(value - w_value) / abs(w_value):.1e} | " \
                f"{abs(emi - w_emi) / w_emi:.1e}"
        else:
            walk = "— | — | —"
        distinct = f"{np.unique(t.class_sizes).size} x {np.unique(t.cluster_sizes).size}"
        print(f"| {t.n_samples:.2e} | {t.nnz} | {distinct} | {value:.15f} | {secs:.2f} | {walk} |",
              flush=True)
    print(f"load {os.getloadavg()}")


if __name__ == "__main__":
    main()
