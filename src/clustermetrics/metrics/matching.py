"""Set-matching scores: purity, best-match F-score, clustering error/accuracy, ratio.

Also home of the exact maximum-weight bipartite matching shared with the recovery rates.
Rows of the table are true classes, columns predicted clusters; every score is computed
from the non-zero cells in O(nnz), except the optimal one-to-one mapping, which is an
assignment problem: dense Hungarian-type solver on small tables, sparse shortest augmenting
path on large ones, never a dense classes x clusters matrix beyond a few million cells.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..contingency import Contingency, as_contingency

__all__ = [
    "max_weight_matching",
    "purity_score",
    "inverse_purity_score",
    "best_match_f_score",
    "clustering_error",
    "clustering_accuracy",
    "clustering_ratio",
]

# Up to this many cells a dense assignment solver is fastest; beyond it, sparse matching.
DENSE_MAX_CELLS = 4_000_000


def max_weight_matching(rows: np.ndarray, cols: np.ndarray, weights: np.ndarray,
                        shape: tuple[int, int], *,
                        dense_max_cells: int | None = None) -> np.ndarray:
    """Cells of a maximum-weight matching of a bipartite graph given by its positive cells.

    The graph has ``shape[0]`` row nodes and ``shape[1]`` column nodes; cell ``e`` joins
    ``rows[e]`` and ``cols[e]`` with weight ``weights[e] > 0`` (cells unique). A matching
    uses each node at most once; the one returned maximises the total weight over *all*
    matchings, whatever the shape (nodes may stay unmatched). Absent cells weigh 0 and are
    never part of the result.

    Tables with at most ``dense_max_cells`` cells (default: the module's
    ``DENSE_MAX_CELLS``, 4e6) go to
    :func:`scipy.optimize.linear_sum_assignment`; larger ones to
    :func:`scipy.sparse.csgraph.min_weight_full_bipartite_matching` after the standard
    reduction (one dummy partner per node of the smaller side at cost ``K``, real cells at
    cost ``K - w`` with ``K = 2 max w``, so a full matching exists, all costs are positive,
    and minimising cost maximises weight). Memory is O(nnz) on the sparse path. Integer
    weights below 2**52 are handled exactly; float weights up to rounding of ``K - w``.
    The result is deterministic: among several optimal matchings the solver's choice only
    depends on the cell order, i.e. on the sorted label order of the table.

    Returns
    -------
    cells : ndarray of int64
        Indices into ``rows``/``cols``/``weights`` of the matched cells, ascending.
    """
    rows = np.asarray(rows, dtype=np.int64)
    cols = np.asarray(cols, dtype=np.int64)
    weights = np.asarray(weights, dtype=np.float64)
    n_rows, n_cols = int(shape[0]), int(shape[1])
    if rows.shape[0] == 0:
        return np.zeros(0, dtype=np.int64)
    if dense_max_cells is None:
        dense_max_cells = DENSE_MAX_CELLS
    if n_rows * n_cols <= dense_max_cells:
        return _solve(rows, cols, weights, n_rows, n_cols)
    # Large table: fix the cells that are provably in an optimal matching, solve the rest.
    forced, rest = _forced_cells(rows, cols, weights, n_rows, n_cols)
    if rest.shape[0] == 0:
        return np.sort(forced)
    r_ids, r = np.unique(rows[rest], return_inverse=True)
    c_ids, c = np.unique(cols[rest], return_inverse=True)
    small = r_ids.shape[0] * c_ids.shape[0] <= dense_max_cells
    solved = _solve(r, c, weights[rest], r_ids.shape[0], c_ids.shape[0], dense=small)
    return np.sort(np.concatenate([forced, rest[solved]]))


def _solve(rows, cols, weights, n_rows, n_cols, dense=True):
    """Indices of the cells of a maximum-weight matching (cells sorted by row, col)."""
    if dense:
        r, c = _dense_matching(rows, cols, weights, n_rows, n_cols)
    elif n_rows <= n_cols:
        r, c = _sparse_matching(rows, cols, weights, n_rows, n_cols)
    else:
        # The solver's work grows with the side it saturates; give it the smaller one.
        c, r = _sparse_matching(cols, rows, weights, n_cols, n_rows)
    return _cell_index(rows, cols, n_cols, r, c)


def _forced_cells(rows, cols, weights, n_rows, n_cols):
    """Cells that some maximum-weight matching contains, and the cells left to solve.

    If cell (i, j) is the largest of its row and of its column and
    w_ij >= (largest other weight in row i) + (largest other in column j), then any optimal
    matching M can be changed into one containing (i, j) without losing weight: drop the
    edges (i, k) and (l, j) of M, add (i, j) (and (l, k) if it exists). Fixing such cells and
    removing their rows and columns, repeatedly, leaves an equivalent smaller problem; for a
    clustering close to its truth that is nearly everything. A relative margin of 1e-12
    keeps float rounding from fixing a cell the exact weights would not.
    """
    active = np.ones(weights.shape[0], dtype=bool)
    forced = []
    while True:
        idx = np.flatnonzero(active)
        if idx.shape[0] == 0:
            break
        w = weights[idx]
        best_r, second_r = _top_two(rows[idx], w)
        best_c, second_c = _top_two(cols[idx], w)
        ok = best_r & best_c & (w >= (second_r + second_c) * (1.0 + 1e-12))
        if not ok.any():
            break
        chosen = idx[ok]
        forced.append(chosen)
        row_taken = np.zeros(n_rows, dtype=bool)
        col_taken = np.zeros(n_cols, dtype=bool)
        row_taken[rows[chosen]] = True
        col_taken[cols[chosen]] = True
        active &= ~(row_taken[rows] | col_taken[cols])
    done = np.concatenate(forced) if forced else np.zeros(0, dtype=np.int64)
    return done, np.flatnonzero(active)


def _top_two(group, w):
    """Per cell: is it its group's largest (first on ties), and its group's second value."""
    order = np.lexsort((-w, group))
    g = group[order]
    first = np.flatnonzero(np.concatenate(([True], g[1:] != g[:-1])))
    nxt = np.minimum(first + 1, g.shape[0] - 1)
    has_second = (first + 1 < g.shape[0]) & (g[nxt] == g[first])
    best = np.zeros(w.shape[0], dtype=bool)
    best[order[first]] = True
    second = np.zeros(w.shape[0])
    second[order[first]] = np.where(has_second, w[order[nxt]], 0.0)
    return best, second


def _dense_matching(rows, cols, weights, n_rows, n_cols):
    from scipy.optimize import linear_sum_assignment

    dense = np.zeros((n_rows, n_cols), dtype=np.float64)
    dense[rows, cols] = weights
    return linear_sum_assignment(dense, maximize=True)


def _sparse_matching(rows, cols, weights, n_rows, n_cols):
    """Max-weight matching for n_rows <= n_cols via a full min-cost matching."""
    from scipy import sparse
    from scipy.sparse.csgraph import min_weight_full_bipartite_matching

    big = 2.0 * float(weights.max())
    dummy = np.arange(n_rows, dtype=np.int64)
    graph = sparse.csr_matrix(
        (np.concatenate([big - weights, np.full(n_rows, big)]),
         (np.concatenate([rows, dummy]), np.concatenate([cols, n_cols + dummy]))),
        shape=(n_rows, n_cols + n_rows),
    )
    r, c = min_weight_full_bipartite_matching(graph)
    real = c < n_cols
    return r[real], c[real]


def _cell_index(rows, cols, n_cols, r, c):
    """Positions of the cells (r, c) among the table's cells; pairs on absent cells dropped."""
    # Cells are sorted by (row, col), so row * n_cols + col is sorted too. It fits in int64
    # for a table: every row and column holds a cell, so n_rows * n_cols <= nnz**2 < 2**63.
    keys = rows * n_cols + cols
    wanted = np.asarray(r, dtype=np.int64) * n_cols + np.asarray(c, dtype=np.int64)
    pos = np.minimum(np.searchsorted(keys, wanted), keys.shape[0] - 1)
    return np.sort(pos[keys[pos] == wanted])


def _count_matching(table: Contingency) -> np.ndarray:
    return table.cached(
        "matching:max_count",
        lambda t: max_weight_matching(t.rows, t.cols, t.counts, (t.n_classes, t.n_clusters)),
    )


def _matched_count(table: Contingency) -> int:
    return int(table.counts[_count_matching(table)].sum())


# --------------------------------------------------------------------- scores
def purity_score(labels_true: Any, labels_pred: Any = None) -> float:
    """Purity: share of items in the majority true class of their predicted cluster.

    purity = sum_j max_i n_ij / N, in (0, 1], 1 when every cluster lies inside one class
    (all-singleton clusterings score 1 too: purity rewards over-clustering). Not symmetric:
    ``purity_score(t, p) == inverse_purity_score(p, t)``. Computed in O(nnz).

    Parameters
    ----------
    labels_true : array-like of shape (n_samples,) or Contingency
        True class labels, or a contingency table (then ``labels_pred`` must be None).
    labels_pred : array-like of shape (n_samples,), optional
        Predicted cluster labels.

    Returns
    -------
    purity : float

    Examples
    --------
    >>> purity_score([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 1, 1])
    0.8333333333333334

    References
    ----------
    Zhao & Karypis, "Criterion functions for document clustering" (2001).
    """
    table = as_contingency(labels_true, labels_pred)
    best = np.zeros(table.n_clusters, dtype=np.int64)
    np.maximum.at(best, table.cols, table.counts)
    return int(best.sum()) / table.n_samples


def inverse_purity_score(labels_true: Any, labels_pred: Any = None) -> float:
    """Inverse purity: share of items in the majority predicted cluster of their true class.

    inverse purity = sum_i max_j n_ij / N, in (0, 1], 1 when every class lies inside one
    cluster (a single cluster scores 1 too: it rewards under-clustering). Computed in O(nnz).

    Parameters
    ----------
    labels_true : array-like of shape (n_samples,) or Contingency
        True class labels, or a contingency table (then ``labels_pred`` must be None).
    labels_pred : array-like of shape (n_samples,), optional
        Predicted cluster labels.

    Returns
    -------
    inverse_purity : float

    Examples
    --------
    >>> inverse_purity_score([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 1, 1])
    0.8333333333333334

    References
    ----------
    Amigó, Gonzalo, Artiles & Verdejo, "A comparison of extrinsic clustering evaluation
    metrics based on formal constraints", Information Retrieval 12 (2009).
    """
    table = as_contingency(labels_true, labels_pred)
    starts = _row_starts(table)
    return int(np.maximum.reduceat(table.counts, starts).sum()) / table.n_samples


def best_match_f_score(labels_true: Any, labels_pred: Any = None) -> float:
    """Best-match F-score: each class scored by its best-matching cluster, size-weighted.

    With precision_ij = n_ij / |C_j| (C_j a predicted cluster), recall_ij = n_ij / |Y_i|
    (Y_i a true class) and F_ij their harmonic mean 2 n_ij / (|Y_i| + |C_j|),

        F = sum_i |Y_i| max_j F_ij / N,

    in (0, 1], 1 exactly for identical partitions. Several classes may pick the same best
    cluster (no one-to-one constraint). Not symmetric. Computed in O(nnz).

    Parameters
    ----------
    labels_true : array-like of shape (n_samples,) or Contingency
        True class labels, or a contingency table (then ``labels_pred`` must be None).
    labels_pred : array-like of shape (n_samples,), optional
        Predicted cluster labels.

    Returns
    -------
    f_score : float

    Examples
    --------
    >>> best_match_f_score([0, 0, 1, 1], [0, 0, 0, 1])
    0.7333333333333334

    References
    ----------
    Larsen & Aone, "Fast and effective text mining using linear-time document clustering",
    KDD (1999); textbook section "Full Reference Evaluation" (seed 004).
    """
    table = as_contingency(labels_true, labels_pred)
    a = table.class_sizes[table.rows]
    f = 2.0 * table.counts / (a + table.cluster_sizes[table.cols])
    best = np.maximum.reduceat(f, _row_starts(table))
    return math.fsum((table.class_sizes * best).tolist()) / table.n_samples


def clustering_error(labels_true: Any, labels_pred: Any = None) -> float:
    """Clustering error: share of items misplaced under the best one-to-one class mapping.

    error = 1 - max_sigma sum_i n_{i, sigma(i)} / N over one-to-one maps sigma between
    classes and clusters (any numbers of each; unmapped items count as errors). In [0, 1),
    0 for identical partitions, lower is better, symmetric. The optimal mapping is an
    assignment problem solved exactly (dense solver on small tables, sparse matching on
    large ones, see :func:`max_weight_matching`) and cached on the table, shared with
    :func:`clustering_accuracy`.

    Parameters
    ----------
    labels_true : array-like of shape (n_samples,) or Contingency
        True class labels, or a contingency table (then ``labels_pred`` must be None).
    labels_pred : array-like of shape (n_samples,), optional
        Predicted cluster labels.

    Returns
    -------
    error : float

    Examples
    --------
    >>> clustering_error([0, 0, 1, 1, 2, 2], [1, 1, 0, 0, 0, 0])
    0.3333333333333333

    References
    ----------
    Elhamifar & Vidal, "Sparse subspace clustering", TPAMI 35 (2013); textbook section
    "Full Reference Evaluation" (seed 004).
    """
    table = as_contingency(labels_true, labels_pred)
    return (table.n_samples - _matched_count(table)) / table.n_samples


def clustering_accuracy(labels_true: Any, labels_pred: Any = None) -> float:
    """Clustering accuracy: share of items correctly placed under the best one-to-one mapping.

    accuracy = max_sigma sum_i n_{i, sigma(i)} / N = 1 - :func:`clustering_error`, in
    (0, 1], 1 for identical partitions, symmetric. Shares the cached optimal mapping.

    Parameters
    ----------
    labels_true : array-like of shape (n_samples,) or Contingency
        True class labels, or a contingency table (then ``labels_pred`` must be None).
    labels_pred : array-like of shape (n_samples,), optional
        Predicted cluster labels.

    Returns
    -------
    accuracy : float

    Examples
    --------
    >>> clustering_accuracy([0, 0, 1, 1, 2, 2], [1, 1, 0, 0, 0, 0])
    0.6666666666666666

    References
    ----------
    Elhamifar & Vidal, "Sparse subspace clustering", TPAMI 35 (2013).
    """
    table = as_contingency(labels_true, labels_pred)
    return _matched_count(table) / table.n_samples


def clustering_ratio(labels_true: Any, labels_pred: Any = None) -> float:
    """Clustering ratio: number of predicted clusters over number of true classes.

    eta = n_clusters / n_classes, in (0, inf); 1 when the numbers agree (necessary, not
    sufficient, for a perfect clustering), above 1 for over-clustering, below for
    under-clustering. Neither higher nor lower is better; not symmetric.

    Parameters
    ----------
    labels_true : array-like of shape (n_samples,) or Contingency
        True class labels, or a contingency table (then ``labels_pred`` must be None).
    labels_pred : array-like of shape (n_samples,), optional
        Predicted cluster labels.

    Returns
    -------
    ratio : float

    Examples
    --------
    >>> clustering_ratio([0, 0, 1, 1], [0, 1, 2, 3])
    2.0

    References
    ----------
    Textbook section "Full Reference Evaluation" (seed 004).
    """
    table = as_contingency(labels_true, labels_pred)
    return table.n_clusters / table.n_classes


def _row_starts(table: Contingency) -> np.ndarray:
    """Index of the first cell of each row (every row has one; cells sorted by row)."""
    return np.flatnonzero(np.concatenate(([True], table.rows[1:] != table.rows[:-1])))
