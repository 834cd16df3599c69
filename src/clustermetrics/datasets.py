"""Data with a known ground truth, for trying scores and clustering algorithms.

- :func:`stellar_halo`: stars of satellite galaxies disrupted in a Milky-Way potential,
  in (E, L_z, L_perp) — the kind of data of Li & Klette's Section 5 (the ``halo`` extra);
- :func:`overlapping_clusters`: a fast stand-in with the same difficulty (many heavily
  overlapping, non-spherical clusters of unequal spread);
- :func:`load_dataset` by name (also scikit-learn's toy sets) and :func:`read_dataset` for
  a CSV or Parquet file of features plus a label column (``read_table`` before 0.2: a
  deprecated alias until 0.3; :func:`clustermetrics.read_table` reads a contingency table).

This module is not imported by ``import clustermetrics``; it needs only numpy until a
function needs more.

Examples
--------
>>> from clustermetrics.datasets import overlapping_clusters
>>> X, y = overlapping_clusters(3, 10)
>>> X.shape
(30, 3)
"""

from .experiments.datasets import (
    DATASETS,
    Dataset,
    load_dataset,
    overlapping_clusters,
    read_dataset,
    read_table,
    stellar_halo,
)
from .experiments.halo import cache_dir

__all__ = ["stellar_halo", "overlapping_clusters", "load_dataset", "read_dataset", "read_table",
           "Dataset",
           "DATASETS", "cache_dir"]
