"""The optimal one-to-one matchings the set-matching scores share, cached on the table.

Several scores solve the same assignment problem: the exact recovery rate and the
normalised clustering accuracy maximise the matched recall n_ij / a_i; clustering
error, clustering accuracy and the normalised pivoted accuracy maximise the matched count
n_ij; the pair sets index the similarity n_ij / max(a_i, b_j). Each problem is solved once
per table (:meth:`Contingency.cached`) by the exact sparse solver of :mod:`._assignment`.

On a stack of tables (bootstrap replicates: :class:`~clustermetrics.table.stack.TableStack`)
each table's problem is its non-zero cells, its lines renumbered without the empty ones;
the scores read the matched totals, one per table. Inside a loop of replicates
(:func:`clustermetrics.compute.dispatch.repeated`) a large problem is started from the optimal
column prices of the stack's layout (the sample's own table), which a replicate's optimum
is usually close to (:mod:`clustermetrics.matching.warm_kernels`).
"""

from __future__ import annotations

import math

import numpy as np

from ..compute import dispatch as _kernels
from ..matching import compiled as matching_compiled
from ..matching.assignment import Leaders, dense_ok, fixes_little, leaders, max_weight_matching
from ..table import Contingency
from ..table.counting import new_codes
from ..table.stack import TableStack, is_stack
from ._cells import (
    cell_keys,
    class_size_cells,
    col_maxima,
    f1_cells,
    larger_size_cells,
    line_sizes,
    quotients,
    row_maxima,
    row_starts,
    shared,
    total,
)

__all__ = ["KINDS", "best_f_sum", "count_matching", "matched_count", "matched_recall",
           "matched_similarity", "recall_leaders", "recall_matching", "recall_weights",
           "similarity_weights", "stack_matched_cells"]

# the weights of the matching problems, by the denominator of n_ij: none (the counts),
# the class size a_i (recall) and max(a_i, b_j) (the pair sets index's similarity)
KINDS = ("count", "recall", "similarity")


def recall_weights(table: Contingency) -> np.ndarray:
    """Per cell n_ij / a_i: the share of its class (recovery rate's W, NCA's recall)."""
    return table.cached("matching:recall_weights",
                        lambda t: quotients(t, t.counts, class_size_cells(t)))


def similarity_weights(table: Contingency) -> np.ndarray:
    """Per cell n_ij / max(a_i, b_j): the pair sets index's similarity."""
    return shared(table, "cells:psi",
                  lambda t: quotients(t, t.counts, larger_size_cells(t)))


def _denominators(table: Contingency, kind: str) -> np.ndarray | None:
    """Per cell the denominator of the weights of ``kind`` (None: the counts)."""
    if kind == "count":
        return None
    return class_size_cells(table) if kind == "recall" else larger_size_cells(table)


def _weights(table: Contingency, kind: str) -> np.ndarray:
    if kind == "count":
        return table.counts.astype(np.float64)
    return recall_weights(table) if kind == "recall" else similarity_weights(table)


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
    matched mass, a float, on real-valued tables; one per table of a stack)."""
    if is_stack(table):
        return _stack_totals(table, "count")
    matched = table.counts[count_matching(table)]
    if table.real_valued:
        return math.fsum(matched.tolist())  # type: ignore[return-value]
    return int(matched.sum())


def matched_recall(table: Contingency) -> float:
    """Total recall n_ij / a_i of the best one-to-one mapping (the exact recovery rate's
    and NCA's S; one per table of a stack)."""
    if is_stack(table):
        return _stack_totals(table, "recall")
    return math.fsum(recall_weights(table)[recall_matching(table)].tolist())


def matched_similarity(table: Contingency) -> float:
    """Total similarity n_ij / max(a_i, b_j) of the best one-to-one mapping (the pair
    sets index's S; one per table of a stack)."""
    if is_stack(table):
        return _stack_totals(table, "similarity")

    def compute(t: Contingency) -> float:
        weights = similarity_weights(t)
        cells = max_weight_matching(t.rows, t.cols, weights, (t.n_classes, t.n_clusters),
                                    keys=cell_keys(t),
                                    fraction=(t.counts, larger_size_cells(t)), graded=True)
        return math.fsum(weights[cells].tolist())
    return table.cached("set_matching:psi", compute)


# ------------------------------------------------------------------ stacks of tables
def _stack_totals(stack: TableStack, kind: str) -> np.ndarray:
    """The best matching's total weight of ``kind`` for each table of the stack (tables
    with equal counts solved once)."""
    return stack.cached(f"matched:{kind}", lambda s: _stack_matchings(s, kind)[0])


def stack_matched_cells(stack: TableStack) -> np.ndarray | None:
    """How many cells the best matchings already solved on the stack hold, per table (the
    largest over the kinds solved), or None when none was solved."""
    solved = [s[1] for kind in KINDS if (s := stack.peek(f"matchings:{kind}")) is not None]
    return np.maximum.reduce(solved) if solved else None


def _stack_matchings(stack: TableStack, kind: str) -> tuple[np.ndarray, np.ndarray]:
    """(total weight, number of cells) of the best matching of ``kind``, per table."""
    def compute(s: TableStack) -> tuple[np.ndarray, np.ndarray]:
        weights, den = _weights(s, kind), _denominators(s, kind)
        seen: dict[bytes, tuple[float | int, int]] = {}
        # a count total is an exact integer: int64 holds a stack's N
        totals = np.empty(len(s), dtype=np.float64 if kind != "count" else np.int64)
        cells = np.empty(len(s), dtype=np.int64)
        for b in range(len(s)):
            key = s.counts[b].tobytes()
            if key not in seen:
                seen[key] = _solve_table(s, b, kind, weights[b],
                                         None if den is None else den[b])
            totals[b], cells[b] = seen[key]
        return totals, cells
    return stack.cached(f"matchings:{kind}", compute)


def _solve_table(stack: TableStack, b: int, kind: str, weights: np.ndarray,
                 den: np.ndarray | None) -> tuple[float | int, int]:
    """Table b's problem: its non-zero cells, lines renumbered without the empty ones,
    solved as the table's own would be (exact fractions; warm inside a replicate loop);
    its total weight and number of cells."""
    counts = stack.counts[b]
    keep = np.flatnonzero(counts)
    rows, cols, c, w = stack.rows[keep], stack.cols[keep], counts[keep], weights[keep]

    def matched(cells: np.ndarray) -> tuple[float | int, int]:
        weight = int(c[cells].sum()) if kind == "count" else math.fsum(w[cells].tolist())
        return weight, int(cells.shape[0])

    n_classes, n_clusters = int(stack.n_classes[b]), int(stack.n_clusters[b])
    if 1 in (n_classes, n_clusters):  # one row or column: the best cell alone
        return matched(np.array([int(np.argmax(w))]))
    present = stack.cluster_sizes[b] > 0
    prices = _warm_prices(stack.layout, kind, present, keep.shape[0])
    # started warm, a replicate of a table where fixing cells fixes little skips it
    rounds = None if prices is None or not stack.layout.cached(
        f"replicate:{kind}:fixes_little", lambda t: fixes_little(
            t.rows, t.cols, _weights(t, kind), t.n_classes, t.n_clusters)) else 0
    cells = max_weight_matching(new_codes(stack.class_sizes[b] > 0)[rows],
                                new_codes(present)[cols], w, (n_classes, n_clusters),
                                fraction=None if den is None else (c, den[keep]),
                                prices=prices, forced_rounds=rounds,
                                graded=kind == "similarity")
    return matched(cells)


# Cells of a replicate's problem from which its matching is solved warm (smaller ones are
# solved cold in milliseconds)
_WARM_MIN_CELLS = 4096


def _warm_prices(layout: Contingency, kind: str, columns: np.ndarray, cells: int,
                 ) -> np.ndarray | None:
    """Optimal column prices of the layout's own matching problem (weights of ``kind``)
    for a replicate's ``columns`` (a mask), from which the solver starts the replicate's
    matching (:mod:`clustermetrics.matching.warm_kernels`); None (solved cold) outside a loop of
    replicates (:func:`clustermetrics.compute.dispatch.repeated`), without the compiled kernels,
    or on small problems. The matching is optimal either way; among several optimal
    matchings a warm start may pick another (the same total weight)."""
    if _kernels.repeats() < 2 or cells < _WARM_MIN_CELLS:
        return None
    kernels = matching_compiled.warm_matching_kernels(layout.nnz)
    if kernels is None:
        return None
    return layout.cached(f"replicate:{kind}:prices", lambda t: _reference_prices(
        t, kind, kernels))[columns]


def _reference_prices(table: Contingency, kind: str, kernels) -> np.ndarray:
    """Optimal column prices of the table's matching problem (to within rounding: a start
    only)."""
    indptr = np.append(row_starts(table), table.nnz).astype(np.int64)
    return kernels.reference_prices(indptr, table.cols, _weights(table, kind),
                                    table.n_clusters)


def best_f_sum(table: Contingency, by_cluster: bool) -> float:
    """Sum over classes (or clusters) of size / N times the best F_ij = 2 n_ij / (a_i + b_j)
    on that line (best-match F and both set-matching F-measures share it)."""
    def compute(t: Contingency) -> float:
        f = f1_cells(t)
        if by_cluster:
            best, sizes = col_maxima(t, f), line_sizes(t)[1]
        else:
            best, sizes = row_maxima(t, f), line_sizes(t)[0]
        return total(t, sizes * best) / t.n_samples
    return table.cached(f"best_f:{by_cluster}", compute)
