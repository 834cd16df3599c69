"""Scoring a big Parquet file through DuckDB, against DuckDB's own GROUP BY on that file.

    python benchmarks/bench_duckdb.py benchmarks/data/big.parquet --memory-limit 4GB

Runs, each in a fresh process so peak RSS is the whole process's: (1) DuckDB alone,
``SELECT t, p, count(*) FROM file GROUP BY ALL`` fetched to numpy; (2) the CLI,
``clustermetrics score FILE --true-col t --pred-col p --engine duckdb --memory-limit ...``
with every registered score. Prints wall time, peak RSS and the ratio.
"""

import argparse
import os
import subprocess
import sys
import time

DUCKDB_ALONE = """
import duckdb, sys
con = duckdb.connect()
con.execute("SET memory_limit = '{limit}'")
rel = con.sql("SELECT t, p, count(*) AS n FROM read_parquet('{path}') GROUP BY ALL")
print(len(rel.fetchnumpy()["n"]), "cells", file=sys.stderr)
"""


def run(cmd: list[str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (GB) of a command, from GNU time."""
    start = time.perf_counter()
    res = subprocess.run(["/usr/bin/time", "-f", "%M", *cmd], capture_output=True, text=True)
    wall = time.perf_counter() - start
    if res.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{res.stderr}")
    peak_kb = int(res.stderr.strip().splitlines()[-1])
    return wall, peak_kb / 2**20


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("path")
    ap.add_argument("--memory-limit", default="4GB")
    ap.add_argument("--metrics", default=None, help="passed to clustermetrics score")
    args = ap.parse_args()
    size = os.path.getsize(args.path) / 2**30 if os.path.isfile(args.path) else float("nan")
    print(f"file {args.path} ({size:.2f} GB), memory limit {args.memory_limit}")
    alone = run([sys.executable, "-c",
                 DUCKDB_ALONE.format(limit=args.memory_limit, path=args.path)])
    cli = [os.path.join(os.path.dirname(sys.executable), "clustermetrics"), "score", args.path,
           "--true-col", "t", "--pred-col", "p", "--engine", "duckdb", "--memory-limit",
           args.memory_limit, "--format", "json", "-o", os.devnull]
    if args.metrics:
        cli += ["--metrics", args.metrics]
    ours = run(cli)
    print(f"{'run':<40} {'wall s':>8} {'peak RSS GB':>12}")
    print(f"{'DuckDB GROUP BY alone':<40} {alone[0]:8.1f} {alone[1]:12.2f}")
    print(f"{'clustermetrics score --engine duckdb':<40} {ours[0]:8.1f} {ours[1]:12.2f}")
    print(f"ratio {ours[0] / alone[0]:.2f} (target <= 1.3); peak RSS {ours[1]:.2f} GB "
          "(target <= 6)")


if __name__ == "__main__":
    main()
