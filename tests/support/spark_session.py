"""The local Spark session the Spark tests share (one place for its settings)."""

from __future__ import annotations

import shutil


def local_spark(app: str, *, cores: int = 1, partitions: int = 1):
    """A quiet local session: no UI or progress bars, few partitions (many tiny jobs), the
    JVM's quick JIT (halves its start and each job's time)."""
    assert shutil.which("java"), "Spark needs Java: run `make java` (or install a JRE 17)"
    from pyspark.sql import SparkSession

    session = (SparkSession.builder.master(f"local[{cores}]").appName(app)
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.shuffle.partitions", str(partitions))
               .config("spark.driver.extraJavaOptions", "-XX:TieredStopAtLevel=1")
               .getOrCreate())
    session.sparkContext.setLogLevel("OFF")
    return session
