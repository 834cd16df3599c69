"""DuckDB at scale: generated Parquet files of growing size, ours against DuckDB's own GROUP BY.

    python benchmarks/bench_duckdb_scale.py                    # 1e7 and 1e8 rows
    python benchmarks/bench_duckdb_scale.py --full             # and 1e9 rows
    python benchmarks/bench_duckdb_scale.py --sizes 1e7 --repeats 3 --threads 2 \\
        --memory-limit 4GB --dir /tmp/scale --keep

For each size n it writes (inside DuckDB, unless the file is already there) a Parquet
file of n rows and two BIGINT columns: t uniform over 10^5 labels, p = t with 30 % of the
rows redrawn uniformly over 10^5 labels (the model of make_parquet.py), in DuckDB's
default row groups. Then it runs, alternately and each in a fresh process (so the peak
RSS, from ``os.wait4``, is that run's alone):

(a) DuckDB alone: ``SELECT t, p, count(*) FROM read_parquet(...) GROUP BY t, p`` fetched
    to numpy (the floor: what any tool reading this file has to do);
(b) ours: ``clustermetrics.read_table(path, true_col="t", pred_col="p",
    engine="duckdb", memory_limit=...)`` then ``adjusted_rand_score(table)``.

Both get the same threads and memory limit (ours: ``duckdb.connect`` is handed the
``threads`` setting; the memory limit goes through ``memory_limit=``) and a spill
directory under ``--dir``. Times are of the work inside the process (imports done
before the clock starts); the process's whole wall time is printed too. The files are
deleted at the end unless ``--keep``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

K = 100_000

ALONE = """
import json, sys, time
import duckdb
path, threads, limit, tmp = sys.argv[1:5]
start = time.perf_counter()
con = duckdb.connect(config={"threads": threads})
con.execute(f"SET memory_limit = '{limit}'")
con.execute(f"SET temp_directory = '{tmp}'")
con.execute("SET enable_progress_bar = false")
data = con.sql(f"SELECT t, p, count(*) AS n FROM read_parquet('{path}') "
               "GROUP BY t, p").fetchnumpy()
seconds = time.perf_counter() - start
print(json.dumps({"seconds": seconds, "cells": int(data["n"].shape[0]),
                  "rows": int(data["n"].sum())}))
"""

OURS = """
import json, sys, tempfile, time
import duckdb
path, threads, limit, tmp = sys.argv[1:5]
tempfile.tempdir = tmp  # our spill directory: a fresh one under --dir
connect = duckdb.connect
duckdb.connect = lambda *a, **k: connect(*a, config={"threads": threads}, **k)
import clustermetrics as cm
start = time.perf_counter()
table = cm.read_table(path, true_col="t", pred_col="p", engine="duckdb", memory_limit=limit)
read = time.perf_counter() - start
ari = cm.adjusted_rand_score(table)
seconds = time.perf_counter() - start
print(json.dumps({"seconds": seconds, "read": read, "cells": int(table.nnz),
                  "rows": int(table.n_samples), "ari": float(ari)}))
"""


def generate(path: str, rows: int, threads: int) -> tuple[float, float]:
    """Write the file of ``rows`` rows; (seconds, GB on disk)."""
    import duckdb

    redraw = f"(hash(i, 2) % {K})::BIGINT"
    select = (f"SELECT t, CASE WHEN hash(i, 1) % 10 < 3 THEN {redraw} ELSE t END AS p "
              f"FROM (SELECT range AS i, (hash(range) % {K})::BIGINT AS t FROM range({rows}))")
    start = time.perf_counter()
    con = duckdb.connect(config={"threads": str(threads)})
    con.execute("SET enable_progress_bar = false")
    con.execute(f"COPY ({select}) TO '{path}.part' (FORMAT parquet)")
    con.close()
    os.replace(path + ".part", path)
    return time.perf_counter() - start, os.path.getsize(path) / 1e9


def child(code: str, path: str, threads: int, limit: str, spill: str) -> dict:
    """One fresh process: its JSON result, with its wall seconds and peak RSS (GB)."""
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", code, path, str(threads), limit, spill],
                            stdout=subprocess.PIPE, text=True)
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        sys.exit(f"run failed (exit {proc.returncode}) on {path}")
    result = json.loads(out.strip().splitlines()[-1])
    result["wall"] = wall
    result["peak_gb"] = usage.ru_maxrss * 1024 / 1e9  # ru_maxrss is in KiB on Linux
    return result


def load() -> str:
    return "/".join(f"{x:.1f}" for x in os.getloadavg())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", nargs="+", type=float, default=[1e7, 1e8])
    ap.add_argument("--full", action="store_true", help="add 1e9 rows")
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--memory-limit", default="4GB")
    ap.add_argument("--repeats", type=int, default=1, help="alternating runs of each")
    ap.add_argument("--dir", default=os.path.join(tempfile.gettempdir(), "scale"))
    ap.add_argument("--keep", action="store_true", help="keep the generated files")
    args = ap.parse_args()
    sizes = [int(n) for n in args.sizes] + ([10**9] if args.full else [])
    os.makedirs(args.dir, exist_ok=True)
    print(f"threads {args.threads}, memory limit {args.memory_limit}, {os.cpu_count()} cores, "
          f"load {load()}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}", flush=True)
    lines = []
    try:
        for rows in sizes:
            path = os.path.join(args.dir, f"scale-{rows:.0e}.parquet".replace("+", ""))
            if not os.path.exists(path):
                gen, size = generate(path, rows, args.threads)
                print(f"wrote {path}: {size:.2f} GB in {gen:.1f} s (load {load()})", flush=True)
            for r in range(args.repeats):
                spill = tempfile.mkdtemp(dir=args.dir, prefix="spill-")
                try:
                    a = child(ALONE, path, args.threads, args.memory_limit, spill)
                    b = child(OURS, path, args.threads, args.memory_limit, spill)
                finally:
                    shutil.rmtree(spill, ignore_errors=True)
                if (a["cells"], a["rows"]) != (b["cells"], b["rows"]):
                    sys.exit(f"{path}: DuckDB found {a['cells']} cells of {a['rows']} rows, "
                             f"we found {b['cells']} of {b['rows']}")
                line = (f"{rows:>11.0e} {a['cells']:>11d} {a['seconds']:>8.2f} "
                        f"{b['seconds']:>8.2f} {b['seconds'] / a['seconds']:>6.2f} "
                        f"{a['peak_gb']:>7.2f} {b['peak_gb']:>7.2f} "
                        f"{b['seconds'] / rows * 1e9:>7.1f} {b['read']:>7.1f} "
                        f"{a['wall']:>6.1f} {b['wall']:>6.1f}  {load()}")
                lines.append(line)
                print(f"run {r + 1}: {line}", flush=True)
    finally:
        if not args.keep:
            for rows in sizes:
                name = os.path.join(args.dir, f"scale-{rows:.0e}.parquet".replace("+", ""))
                for leftover in (name, name + ".part"):
                    if os.path.exists(leftover):
                        os.remove(leftover)
    print()
    print(f"{'rows':>11} {'cells':>11} {'(a) s':>8} {'(b) s':>8} {'b/a':>6} "
          f"{'a GB':>7} {'b GB':>7} {'b ns/row':>7} {'b read':>7} "
          f"{'a wall':>6} {'b wall':>6}  load 1/5/15 min")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
