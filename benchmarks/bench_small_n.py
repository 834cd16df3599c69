"""RMI, its normalisations and SMI at small N, against scikit-learn's adjusted_rand_score on
the same labels, in one process (best of several repeats).

    python benchmarks/bench_small_n.py                 # N = 8 and N = 1000, table bodies
    python benchmarks/bench_small_n.py --large         # also N = 1e5, 1e6 x 10, 100, 1000 labels
    python benchmarks/bench_small_n.py --bootstrap     # also per replicate, n_boot = 100
                                                       # (N = 8) and 1000 (N = 1000)
    python benchmarks/bench_small_n.py --shapes        # smi per built table, 3 x 3 to 50 x 50

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


def shapes(repeats: int) -> None:
    """smi per built table (best of ``repeats`` over 20 fresh tables) against scikit-learn's
    ARI on the same labels."""
    for n, k in ((8, 3), (30, 3), (100, 3), (1000, 10), (2000, 20), (10**4, 50)):
        t, p = labels(n, k)
        ari = best(lambda t=t, p=p: adjusted_rand_score(t, p), repeats, 20)
        cm.standardized_mutual_info_score(cm.Contingency.from_labels(t, p))
        times = []
        for r in range(repeats):
            tables = [cm.Contingency.from_labels(*labels(n, k, 1000 * r + s))
                      for s in range(20)]
            start = time.perf_counter()
            for table in tables:
                cm.standardized_mutual_info_score(table)
            times.append((time.perf_counter() - start) / 20)
        smi = min(times)
        method = cm.standardized_mutual_info(cm.Contingency.from_labels(t, p)).method
        print(f"N = {n}, {k} x {k} labels, built tables: smi {smi * 1e3:.3f} ms per table "
              f"({method}; {smi / ari:.2f}x sklearn ARI {ari * 1e3:.3f} ms)")


def bootstrap_1000(repeats: int) -> None:
    """Per replicate of ``cm.evaluate(..., ci=0.95, n_boot=1000)`` on 10 x 10 labels over
    1000 items: smi alone, ami alone, and every score, against scikit-learn's ARI."""
    t, p = labels(1000, 10)
    ari = best(lambda: adjusted_rand_score(t, p), repeats, 20)
    parts = []
    for name, keys in (("smi", ["smi"]), ("ami", ["ami"]), ("every score", None)):
        cm.evaluate(t, p, metrics=keys, ci=0.95, n_boot=50)  # loads what the scores need
        plain = best(lambda keys=keys: cm.evaluate(t, p, metrics=keys), repeats, 1)
        boot = best(lambda keys=keys: cm.evaluate(t, p, metrics=keys, ci=0.95, n_boot=1000),
                    repeats, 1)
        parts.append(f"{name} {boot:.2f} s ({boot / ari:.0f}x ARI; "
                     f"{(boot - plain) / 1000 * 1e3:.3f} ms a replicate)")
    print(f"N = 1000, 10 x 10, ci=0.95, n_boot=1000 (sklearn ARI {ari * 1e3:.3f} ms): "
          + "; ".join(parts))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--large", action="store_true")
    ap.add_argument("--bootstrap", action="store_true")
    ap.add_argument("--shapes", action="store_true")
    args = ap.parse_args()
    print(f"load {os.getloadavg()}")
    for key in KEYS:  # first calls (imports, caches) outside the timings
        cm.evaluate(README_TRUTH, README_PRED, metrics=[key])
    from_labels("N = 8 (README)", README_TRUTH, README_PRED, args.repeats, 20)
    from_labels("N = 1000, 10 x 10", *labels(1000, 10), args.repeats, 20)
    bodies(1000, 10, args.repeats, 20)
    if args.shapes:
        shapes(args.repeats)
    if args.bootstrap:
        per_replicate(3)
        bootstrap_1000(3)
    if args.large:
        for n in (10**5, 10**6):
            for k in (10, 100, 1000):
                from_labels(f"N = {n:.0e}, {k} x {k}", *labels(n, k), 3, 1)
    print(f"load {os.getloadavg()}")


if __name__ == "__main__":
    main()
