"""RMI, its normalisations and SMI at small N, against scikit-learn's adjusted_rand_score on
the same labels, in one process (best of several repeats).

    python benchmarks/bench_small_n.py                 # N = 8 and N = 1000, table bodies
    python benchmarks/bench_small_n.py --large         # also N = 1e5, 1e6 x 10, 100, 1000 labels
    python benchmarks/bench_small_n.py --bootstrap     # also per replicate of n_boot = 100 (N = 8)

Three parts: ``cm.evaluate(t, p, metrics=[key])`` from the labels (ratio to ARI); the
score's body on fresh tables of the same shape, the table built beforehand (what a
bootstrap replicate pays; rmi, rnmi and rnmi_arithmetic together, as they share their code
lengths through the table's cache); with ``--large``, the same ratios at large N; with
``--bootstrap``, the cost per replicate of ``cm.evaluate(..., ci=0.95, n_boot=100)`` on the
README's 8 items (its time less one evaluation, over 100).
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
from sklearn.metrics import adjusted_rand_score

import clustermetrics as cm

KEYS = ("rmi", "rnmi", "rnmi_arithmetic", "smi")
README_TRUTH = ["cat", "cat", "cat", "dog", "dog", "eel", "eel", "eel"]
README_PRED = [0, 0, 1, 1, 1, 2, 2, 2]


def best(func, repeats: int, inner: int) -> float:
    """Best over ``repeats`` of the mean time of ``inner`` calls (seconds)."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(inner):
            func()
        times.append((time.perf_counter() - start) / inner)
    return min(times)


def labels(n: int, k: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return rng.integers(0, k, n), rng.integers(0, k, n)


def from_labels(name: str, t, p, repeats: int, inner: int) -> None:
    ari = best(lambda: adjusted_rand_score(t, p), repeats, inner)
    parts = [f"{name}: sklearn ARI {ari * 1e6:.0f} us"]
    for key in KEYS:
        secs = best(lambda key=key: cm.evaluate(t, p, metrics=[key]), repeats, inner)
        parts.append(f"{key} {secs * 1e6:.0f} us ({secs / ari:.2f}x)")
    print("; ".join(parts))


def rmi_group(table) -> None:
    cm.reduced_mutual_info_score(table)
    cm.normalized_reduced_mutual_info_score(table)
    cm.normalized_reduced_mutual_info_score(table, normalization="arithmetic")


def bodies(n: int, k: int, repeats: int, count: int) -> None:
    """Mean time per fresh table of the score bodies, the tables built beforehand."""
    def run(func) -> float:
        times = []
        for r in range(repeats):
            tables = [cm.Contingency.from_labels(*labels(n, k, 1000 * r + s))
                      for s in range(count)]
            start = time.perf_counter()
            for table in tables:
                func(table)
            times.append((time.perf_counter() - start) / count)
        return min(times)

    rmi = run(rmi_group)
    smi = run(cm.standardized_mutual_info_score)
    print(f"N = {n}, {k} x {k} labels, built tables: rmi+rnmi+rnmi_arithmetic "
          f"{rmi * 1e6:.0f} us, smi {smi * 1e6:.0f} us per table")


def per_replicate(repeats: int) -> None:
    parts = []
    for key in KEYS:
        plain = best(lambda key=key: cm.evaluate(README_TRUTH, README_PRED, metrics=[key]),
                     repeats, 5)
        boot = best(lambda key=key: cm.evaluate(README_TRUTH, README_PRED, metrics=[key],
                                                ci=0.95, n_boot=100), repeats, 1)
        parts.append(f"{key} {(boot - plain) / 100 * 1e6:.0f} us")
    print("N = 8 (README), per bootstrap replicate (n_boot = 100): " + "; ".join(parts))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--large", action="store_true")
    ap.add_argument("--bootstrap", action="store_true")
    args = ap.parse_args()
    print(f"load {os.getloadavg()}")
    for key in KEYS:  # first calls (imports, caches) outside the timings
        cm.evaluate(README_TRUTH, README_PRED, metrics=[key])
    from_labels("N = 8 (README)", README_TRUTH, README_PRED, args.repeats, 20)
    from_labels("N = 1000, 10 x 10", *labels(1000, 10), args.repeats, 20)
    bodies(1000, 10, args.repeats, 20)
    if args.bootstrap:
        per_replicate(3)
    if args.large:
        for n in (10**5, 10**6):
            for k in (10, 100, 1000):
                from_labels(f"N = {n:.0e}, {k} x {k}", *labels(n, k), 3, 1)
    print(f"load {os.getloadavg()}")


if __name__ == "__main__":
    main()
