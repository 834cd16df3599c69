"""What reading a JSON Lines file costs: DuckDB alone vs clustermetrics' engines on the same
file, in one process.

"DuckDB alone" is DuckDB's own read_json (types detected) with the GROUP BY of the two
columns fetched to numpy: the floor for any DuckDB-based reader. Ours adds the check of
every line by Python's json module (which gives each column its one JSON type before any
engine reads, the same for every engine), also timed alone. Every reader's table must
hold the same N and non-zero cells.

    python benchmarks/bench_json_lines.py --rows 2e6
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time

import duckdb
import numpy as np

from clustermetrics.cli.engines import table_from_files
from clustermetrics.io.jsonl import jsonl_columns


def _write(path: str, rows: int) -> None:
    rng = np.random.default_rng(0)
    with open(path, "w") as fh:
        step = 1_000_000
        for start in range(0, rows, step):
            n = min(step, rows - start)
            t, p = rng.integers(0, 1000, n), rng.integers(0, 500, n)
            fh.write("".join(json.dumps({"truth": int(a), "pred": f"k{b}"}) + "\n"
                             for a, b in zip(t, p, strict=True)))


def _best(call, repeat: int):
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = call()
        times.append(time.perf_counter() - start)
    return min(times), result


def _duckdb_alone(path: str):
    con = duckdb.connect()
    try:
        data = con.execute(f"SELECT truth, pred, count(*) AS n FROM read_json('{path}', "
                           "format = 'newline_delimited') GROUP BY ALL").fetchnumpy()
        return int(data["n"].sum()), len(data["n"])
    finally:
        con.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=float, default=2e6)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "labels.jsonl")
        _write(path, int(args.rows))
        size = os.path.getsize(path) / 2**20
        print(f"{int(args.rows)} rows, {size:.0f} MiB, load {os.getloadavg()[0]:.1f}")
        base, (n, cells) = _best(lambda: _duckdb_alone(path), args.repeat)
        print(f"DuckDB alone                  {base:7.2f} s  N={n} cells={cells}")
        took, _ = _best(lambda: jsonl_columns([path], "truth", "pred", None, path),
                        args.repeat)
        print(f"check of every line alone     {took:7.2f} s  {size / took:.0f} MiB/s")
        for engine in ("duckdb", "memory"):
            took, table = _best(lambda e=engine: table_from_files(
                e, path, None, true_col="truth", pred_col="pred"), args.repeat)
            assert (table.n_samples, table.nnz) == (n, cells), (engine, table)
            print(f"clustermetrics --engine {engine:6s}{took:7.2f} s  {took / base:.2f}x "
                  "DuckDB alone")


if __name__ == "__main__":
    main()
