"""Exact SMI variance on small tables with large counts: the windowed sums against the
previous dense tabulation (tests/support/smi_dense_reference.py, where it fits in memory), and
what ``method="auto"`` picks, in one process.

    python benchmarks/bench_smi_small.py
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests",
                                "support"))

from smi_dense_reference import dense_exact_variance  # noqa: E402

import clustermetrics as cm  # noqa: E402
from clustermetrics.scores import _smi, _smi_cost  # noqa: E402

TABLES = [  # (table, whether the dense tabulation fits: ~8 (max size)^2 bytes)
    ([[4000, 3], [5, 600]], True),
    ([[1500, 200, 20], [100, 1200, 9], [5, 30, 500]], True),
    ([[999980, 10], [10, 0]], False),
    ([[999000, 300, 20], [200, 500, 3], [1, 2, 3]], False),
    ([[10**6, 5], [3, 10**6]], False),
    ([[20000, 3000, 30], [5000, 10000, 70], [10, 20, 10000]], False),
]


def timed(func):
    start = time.perf_counter()
    value = func()
    return value, time.perf_counter() - start


def main() -> None:
    print(f"load {os.getloadavg()}")
    for matrix, dense in TABLES:
        m = np.array(matrix)
        a, b, n = m.sum(axis=1), m.sum(axis=0), int(m.sum())
        (_, var), secs = timed(lambda a=a, b=b, n=n: _smi.exact_variance(a, b, n))
        line = (f"{matrix}: N = {n}, ~{_smi_cost.exact_work(a, b):.2g} terms, windowed "
                f"{secs:.3f} s (Var[S] = {var:.12g})")
        if dense:
            (_, old), old_secs = timed(lambda a=a, b=b, n=n: dense_exact_variance(a, b, n))
            line += f"; dense {old_secs:.3f} s ({old_secs / secs:.1f}x), rel. diff " \
                    f"{abs(old - var) / var:.1e}"
        table = cm.Contingency.from_matrix(m)
        result, auto_secs = timed(lambda table=table: cm.standardized_mutual_info(table))
        line += f"; auto: {result.method} {auto_secs:.3f} s, SMI {result.value:.6g}"
        if result.method == "monte_carlo":
            line += f" +- {result.standard_error:.2g}"
        print(line)
    print(f"load {os.getloadavg()}")


if __name__ == "__main__":
    main()
