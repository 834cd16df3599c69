"""What exact weighted sums cost: weighted tables against the unweighted table of the same
labels and against a plain float sum, in memory and through DuckDB, in one process.

In memory: ``Contingency.from_labels`` without weights, with int64 weights, whole float64
weights and real float64 weights (``rng.random``), and ``np.bincount`` of the cell keys
weighted by the floats (the floor of any float sum per cell, not exact). DuckDB: a Parquet
file of the same rows; DuckDB's own ``GROUP BY t, p`` with ``count(*)`` and ``sum(w)``
fetched to numpy (a float sum in DuckDB's order, not exact) against ``from_duckdb`` without
and with each weight column. Weighted tables must hold the same cells as the unweighted
one, and real masses agree with the float sums to 1e-12.

    python benchmarks/bench_weights.py --n 1e7 --k 1000
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from clustermetrics import Contingency
from clustermetrics.io import from_duckdb


def _best(call, repeat: int):
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = call()
        times.append(time.perf_counter() - start)
    return min(times), result


def _labels(n: int, k: int):
    rng = np.random.default_rng(0)
    t = rng.integers(0, k, n)
    p = np.where(rng.random(n) < 0.3, rng.integers(0, k, n), t)
    return t, p, rng


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=float, default=1e7)
    parser.add_argument("--k", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    n = int(args.n)
    t, p, rng = _labels(n, args.k)
    weights = {"int64": rng.integers(0, 5, n), "whole float64": rng.integers(0, 5, n) * 1.0,
               "real float64": rng.random(n)}
    print(f"N = {n:.0e}, K = {args.k}, load {os.getloadavg()[0]:.1f}")
    base, table = _best(lambda: Contingency.from_labels(t, p), args.repeat)
    print(f"memory  unweighted from_labels            {base:7.3f} s  1.00x")
    key = t * args.k + p
    floor, sums = _best(lambda: np.bincount(key, weights=weights["real float64"]),
                        args.repeat)
    print(f"memory  np.bincount float sum (not exact) {floor:7.3f} s  {floor / base:5.2f}x")
    for name, w in weights.items():
        took, weighted = _best(lambda w=w: Contingency.from_labels(t, p, sample_weight=w),
                               args.repeat)
        assert weighted.nnz <= table.nnz
        if name == "real float64":
            want = sums[weighted.rows * args.k + weighted.cols] if \
                weighted.n_classes == args.k and weighted.n_clusters == args.k else None
            if want is not None:
                assert np.allclose(weighted.counts, want, rtol=1e-12, atol=0)
        print(f"memory  {name + ' weights':33s} {took:7.3f} s  {took / base:5.2f}x")

    with tempfile.TemporaryDirectory() as work:
        path = os.path.join(work, "w.parquet")
        pq.write_table(pa.table({"t": t, "p": p, "wi": weights["int64"],
                                 "wf": weights["real float64"]}), path)
        con = duckdb.connect()
        alone, _ = _best(lambda: con.execute(
            f"SELECT t, p, count(*) AS n, sum(wf) AS w FROM read_parquet('{path}') "
            "GROUP BY t, p").fetchnumpy(), args.repeat)
        print(f"duckdb  GROUP BY count, sum(w) (not exact) {alone:6.3f} s  1.00x")
        for label, col in (("unweighted", None), ("int64 weights", "wi"),
                           ("real float64 weights", "wf")):
            took, _ = _best(lambda col=col: from_duckdb(path, "t", "p", weight_col=col),
                            args.repeat)
            print(f"duckdb  from_duckdb {label:22s} {took:7.3f} s  {took / alone:5.2f}x")


if __name__ == "__main__":
    main()
