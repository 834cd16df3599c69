"""Spark local mode on a 10^7-row DataFrame gives the identical table to the in-memory path.

    python benchmarks/check_spark.py --rows 1e7

Both sides compute the same deterministic labels (t = id * 2654435761 mod K; p = t, except
30 % of rows redrawn as (id * 40503 + id // 97) mod K): Spark with column expressions,
numpy with the same int64 arithmetic. Prints both timings and whether the tables are
identical.
"""

import argparse
import time

import numpy as np

from clustermetrics import Contingency
from clustermetrics.io import from_spark


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=float, default=1e7)
    ap.add_argument("--k", type=int, default=100_000)
    args = ap.parse_args()
    rows, k = int(args.rows), args.k
    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F

    spark = (SparkSession.builder.master("local[2]").appName("check_spark")
             .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "8")
             .getOrCreate())
    frame = spark.range(rows).select(
        ((F.col("id") * 2654435761) % k).alias("t"),
        F.when(F.col("id") % 10 < 3, (F.col("id") * 40503 + F.floor(F.col("id") / 97)) % k)
         .otherwise((F.col("id") * 2654435761) % k).alias("p"))
    start = time.perf_counter()
    via_spark = from_spark(frame, "t", "p")
    spark_s = time.perf_counter() - start
    spark.stop()
    ids = np.arange(rows, dtype=np.int64)
    t = ids * 2654435761 % k
    p = np.where(ids % 10 < 3, (ids * 40503 + ids // 97) % k, t)
    start = time.perf_counter()
    in_memory = Contingency.from_labels(t, p)
    memory_s = time.perf_counter() - start
    print(f"{rows} rows: Spark local[2] {spark_s:.1f} s, in memory {memory_s:.2f} s, "
          f"nnz {in_memory.nnz}, identical tables: {via_spark == in_memory}")


if __name__ == "__main__":
    main()
