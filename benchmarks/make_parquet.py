"""Generate the large-data benchmark file (not committed; benchmarks/data/ is git-ignored).

    python benchmarks/make_parquet.py --rows 2e8 --k 1e5 --out benchmarks/data/big.parquet
    python benchmarks/make_parquet.py --rows 1e7 --k 1e4 --parts 100 --out benchmarks/data/parts

Two int64 columns: t uniform in [0, K), p = t with 30 % of rows redrawn uniformly (the
same model as bench_peers.py), generated inside DuckDB so no Python memory is needed.
"""

import argparse
import os
import time

import duckdb


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=float, default=2e8)
    ap.add_argument("--k", type=float, default=1e5)
    ap.add_argument("--parts", type=int, default=1, help="split into this many files")
    ap.add_argument("--out", default="benchmarks/data/big.parquet")
    args = ap.parse_args()
    rows, k = int(args.rows), int(args.k)
    part = f", i % {args.parts} AS part" if args.parts > 1 else ""
    redraw = f"(hash(i, 2) % {k})::BIGINT"
    select = (f"SELECT t, CASE WHEN hash(i, 1) % 10 < 3 THEN {redraw} ELSE t END AS p{part} "
              f"FROM (SELECT range AS i, (hash(range) % {k})::BIGINT AS t FROM range({rows}))")
    start = time.perf_counter()
    con = duckdb.connect()
    if args.parts == 1:
        os.makedirs(os.path.dirname(args.out) or ".", exist_ok=True)
        con.execute(f"COPY ({select}) TO '{args.out}' (FORMAT parquet)")
    else:
        os.makedirs(args.out, exist_ok=True)
        con.execute(f"COPY ({select}) TO '{args.out}' "
                    "(FORMAT parquet, PARTITION_BY (part), OVERWRITE_OR_IGNORE)")
    print(f"wrote {rows} rows to {args.out} in {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
