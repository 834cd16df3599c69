"""The compiled maximum-weight matching (the phases, ``CLUSTERMETRICS_KERNELS=numba``)
against scipy's LAPJVsp (``min_weight_full_bipartite_matching``, a dummy column per row for
"unmatched"), side by side in one process: best of ``--repeats`` calls each and their
ratio, on uniform noise (N = 10^6 over 10^4 labels: many ties, the phases finish in a few
scans) and a chain (class i split between clusters i and i + 1: long augmenting paths).
Run it once per source tree to compare trees by the ratio:

    CLUSTERMETRICS_KERNELS=numba PYTHONPATH=src python benchmarks/bench_matching_phases.py
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import min_weight_full_bipartite_matching

import clustermetrics as cm
from clustermetrics.matching import compiled


def problem(t: np.ndarray, p: np.ndarray) -> tuple[np.ndarray, ...]:
    """(indptr, cols, weights, rows) of the table's cells, row-major; weights the counts."""
    c = cm.Contingency.from_labels(t, p)
    order = np.lexsort((c.cols, c.rows))
    rows, cols = c.rows[order].astype(np.int64), c.cols[order].astype(np.int64)
    indptr = np.zeros(c.n_classes + 1, np.int64)
    np.cumsum(np.bincount(rows, minlength=c.n_classes), out=indptr[1:])
    return indptr, cols, c.counts[order].astype(np.float64), rows


def best(f: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    n = 10**6
    shapes = {"noise, 10^4 labels": (rng.integers(0, 10**4, n), rng.integers(0, 10**4, n)),
              "chain, 2.5e4 classes": (np.arange(n) // 40,
                                       np.arange(n) // 40 + (rng.random(n) < 0.5))}
    kernel = compiled.matching_kernel(np.inf)
    if kernel is None:
        raise SystemExit("the compiled matching needs numba and CLUSTERMETRICS_KERNELS=numba")
    for name, (t, p) in shapes.items():
        indptr, cols, w, rows = problem(t, p)
        nr, nc = indptr.shape[0] - 1, int(cols.max()) + 1
        match = kernel(indptr, cols, w, nc)  # compiled or loaded here, not timed
        # scipy needs a full matching: each row's dummy column at a negligible cost
        dummy = np.arange(nr)
        peer_problem = csr_matrix((np.concatenate([-w, np.full(nr, 1e-300)]),
                                   (np.concatenate([rows, dummy]),
                                    np.concatenate([cols, nc + dummy]))), shape=(nr, nc + nr))
        ours = best(lambda i=indptr, c=cols, w=w, nc=nc: kernel(i, c, w, nc), args.repeats)
        peer = best(lambda m=peer_problem: min_weight_full_bipartite_matching(m), args.repeats)
        weight = w[match[rows] == cols].sum()
        print(f"{name}: {cols.shape[0]} cells, compiled {ours * 1e3:.1f} ms, "
              f"scipy {peer * 1e3:.1f} ms, ratio {ours / peer:.3f}, weight {weight:.0f}")


if __name__ == "__main__":
    main()
