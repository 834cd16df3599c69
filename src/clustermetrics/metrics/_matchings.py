"""The optimal one-to-one matchings the set-matching scores share, cached on the table.

Several scores solve the same assignment problem: the exact recovery rate and the
normalised clustering accuracy maximise the matched recall n_ij / a_i; clustering
error, clustering accuracy and the normalised pivoted accuracy maximise the matched count
n_ij. Each problem is solved once per table (:meth:`Contingency.cached`) by the exact
sparse solver of :mod:`._assignment`.
"""

from __future__ import annotations

import math

import numpy as np

from ..table import Contingency
from ._assignment import Leaders, dense_ok, leaders, max_weight_matching
from ._cells import cell_keys, class_size_cells, f1_cells, row_starts

__all__ = ["best_f_sum", "count_matching", "matched_count", "matched_sum", "recall_leaders",
           "recall_matching", "recall_weights"]


def recall_weights(table: Contingency) -> np.ndarray:
    """Per cell n_ij / a_i: the share of its class (recovery rate's W, NCA's recall)."""
    return table.cached("matching:recall_weights",
                        lambda t: t.counts / class_size_cells(t))


def recall_leaders(table: Contingency) -> Leaders | None:
    """The first forced-cell round on the recall weights when a dense copy is cheap
    (the exact and the greedy recovery rate both start from it)."""
    if not dense_ok(table.n_classes, table.n_clusters, table.nnz):
        return None
    return table.cached("matching:recall_leaders", lambda t: leaders(
        t.rows, t.cols, recall_weights(t), t.n_classes, t.n_clusters, cell_keys(t)))


def recall_matching(table: Contingency) -> np.ndarray:
    """Cells of a maximum-weight matching on the recall weights."""
    return table.cached("matching:recall", lambda t: max_weight_matching(
        t.rows, t.cols, recall_weights(t), (t.n_classes, t.n_clusters),
        first_round=recall_leaders(t), fraction=(t.counts, class_size_cells(t))))


def count_matching(table: Contingency) -> np.ndarray:
    """Cells of a maximum-weight matching on the counts n_ij."""
    return table.cached(
        "matching:max_count",
        lambda t: max_weight_matching(t.rows, t.cols, t.counts, (t.n_classes, t.n_clusters),
                                      keys=cell_keys(t)),
    )


def matched_count(table: Contingency) -> int:
    """Items on the best one-to-one mapping of classes to clusters (an exact integer; the
    matched mass, a float, on real-valued tables)."""
    matched = table.counts[count_matching(table)]
    if table.real_valued:
        return math.fsum(matched.tolist())  # type: ignore[return-value]
    return int(matched.sum())


def matched_sum(table: Contingency, weights: np.ndarray, key: str,
                denominators: np.ndarray) -> float:
    """Largest total weight of a one-to-one class-cluster mapping, cached under ``key``;
    ``weights == counts / denominators`` (the solver compares them as exact fractions)."""
    def compute(t: Contingency) -> float:
        cells = max_weight_matching(t.rows, t.cols, weights, (t.n_classes, t.n_clusters),
                                    keys=cell_keys(t), fraction=(t.counts, denominators))
        return math.fsum(weights[cells].tolist())
    return table.cached(key, compute)


def best_f_sum(table: Contingency, by_cluster: bool) -> float:
    """Sum over classes (or clusters) of size / N times the best F_ij = 2 n_ij / (a_i + b_j)
    on that line (best-match F and both set-matching F-measures share it)."""
    def compute(t: Contingency) -> float:
        f = f1_cells(t)
        if by_cluster:
            best = np.zeros(t.n_clusters)
            np.maximum.at(best, t.cols, f)
            sizes = t.cluster_sizes
        else:
            best, sizes = np.maximum.reduceat(f, row_starts(t)), t.class_sizes
        return math.fsum((sizes * best).tolist()) / t.n_samples
    return table.cached(f"best_f:{by_cluster}", compute)
