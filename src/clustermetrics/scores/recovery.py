"""Li & Klette's recovery rate and pseudo recovery rate.

Old clusters are the true classes C_1..C_n (rows of the table), new clusters the predicted
clusters G_1..G_m (columns). The paper's matrix M[k, i] = |G_k ∩ C_i| is the transpose of
the table; its weights are W[k, i] = M[k, i] / |C_i|, the share of class i found in
cluster k. The recovery rate is the best total weight of a one-to-one matching of clusters
to classes, divided by m (Definition 2). The paper's exact Algorithm 1 enumerates every
matching; here it is an assignment problem solved in polynomial time, and the enumeration
is kept as ``method="bruteforce"`` to reproduce the paper and to test the exact solver.
"""

from __future__ import annotations

import itertools
import math
from typing import Any, NamedTuple

import numpy as np

from ..matching import compiled as matching_compiled
from ..matching.assignment import cell_index
from ..matching.greedy import greedy_cells, greedy_scan_totals
from ..table import Contingency, label_values
from ..table.stack import TableStack, is_stack
from ._elementwise import maximum
from ._matchings import (
    matched_recall,
    recall_leaders,
    recall_matching,
    recall_weights,
    stack_matched_cells,
)
from .spec import MATCH, Choice, Integer, MetricInfo, ScoreFunction, deprecated_alias, score

__all__ = ["ENTRIES", "Recovery", "recovery", "recovery_rate_score",
           "pseudo_recovery_rate_score",
           # deprecated names
           "recovery_rate", "pseudo_recovery_rate"]

_MAX_PERMUTATIONS = 10**7
_CHUNK = 1 << 15

_REAL_MASSES = "the real masses as overlaps: class, cluster and cell sizes are summed weights"


class Recovery(NamedTuple):
    """Result of :func:`recovery`.

    ``matching`` lists ``(cluster_label, class_label, weight)`` for each matched pair with
    positive weight ``W = |G_k ∩ C_i| / |C_i|``, in sorted cluster-label order; ``m`` is the
    number of predicted clusters, ``n`` the number of true classes.
    """

    rate: float
    method: str
    matching: tuple[tuple[Any, Any, float], ...]
    m: int
    n: int
    denominator: str


_OPTIONS: dict[str, Choice | Integer] = {
    "method": Choice(("exact", "greedy", "bruteforce"), """\
``"exact"``: maximum-weight bipartite matching, polynomial (dense assignment
    solver on small tables, sparse matching on large ones); among equally good matchings
    the solver's deterministic choice depends only on the sorted label order.
    ``"greedy"``: the paper's Algorithm 2, which repeatedly takes the largest remaining W
    and deletes its cluster and class; ties go to the first entry in row-major order of
    the paper's M (clusters, then classes, in sorted label order), with equal weights
    compared as exact fractions; O(nnz log nnz), never above the exact rate.
    ``"bruteforce"``: the paper's Algorithm 1, enumerating all injective maps of clusters
    into classes (of classes into clusters when m > n); the first best map in
    lexicographic order wins."""),
    "denominator": Choice(("predicted", "true", "max"), "Divide the matched weight by m "
                          "(the number of predicted clusters, as the paper), n (classes), "
                          "or max(m, n)."),
    "max_permutations": Integer("``\"bruteforce\"`` refuses tables needing more maps than "
                                "this; None removes the limit.", low=1, none_ok=True),
}


@score(options=_OPTIONS, returns="Recovery\n    ``rate``, ``method``, ``matching`` (cluster "
       "label, class label, weight), ``m``, ``n`` and ``denominator``.", real=_REAL_MASSES)
def recovery(table: Contingency, *, method: str = "exact", denominator: str = "predicted",
             max_permutations: int | None = _MAX_PERMUTATIONS) -> Recovery:
    """Recovery rate of a clustering and the matching of clusters to classes behind it.

    With W[k, i] = |G_k ∩ C_i| / |C_i| for predicted cluster G_k and true class C_i,

        rate = max over one-to-one matchings {k -> i_k} of sum_k W[k, i_k] / m

    (Li & Klette, Definition 2). Each matched class contributes at most 1, so the rate is
    in [0, 1], 1 for identical partitions. The paper's m (number of clusters) rewards
    under-clustering (a single cluster scores 1); ``denominator="true"`` divides by the
    number of classes n and ``"max"`` by max(m, n). When m > n (outside the paper's
    assumption m <= n) at most n clusters are matched and the others add 0. Not symmetric.

    Examples
    --------
    Example 1 of the paper, M = [[5, 3], [0, 2]]:

    >>> true = ["C1"] * 5 + ["C2"] * 5
    >>> pred = ["G1"] * 8 + ["G2"] * 2
    >>> r = recovery(true, pred)
    >>> round(r.rate, 12), r.matching
    (0.7, (('G1', 'C1', 1.0), ('G2', 'C2', 0.4)))

    References
    ----------
    Z. Li and R. Klette, "Recovery rate of clustering algorithms", PSIVT 2009, LNCS 5414.
    """
    if method == "exact":
        cells = recall_matching(table)
    elif method == "greedy":
        cells = _greedy_cells(table)
    else:
        cells = _bruteforce_cells(table, max_permutations)
    return _result(table, cells, method, denominator)


@score(options=_OPTIONS, real=_REAL_MASSES)
def recovery_rate_score(table: Contingency, *, method: str = "exact",
                        denominator: str = "predicted",
                        max_permutations: int | None = _MAX_PERMUTATIONS) -> float:
    """Recovery rate of a clustering (Li & Klette, Definition 2): ``recovery(...).rate``.

    rate = max_{one-to-one k -> i_k} sum_k |G_k ∩ C_{i_k}| / |C_{i_k}| / m, in [0, 1], 1 for
    identical partitions. See :func:`recovery` for the matching itself.

    Examples
    --------
    >>> round(recovery_rate_score([0, 0, 1, 1, 1], [0, 0, 0, 1, 1]), 12)
    0.833333333333
    >>> (recovery_rate_score([0, 0, 1, 1], [5, 5, 5, 5]),
    ...  recovery_rate_score([0, 0, 1, 1], [5, 5, 5, 5], denominator="true"))
    (1.0, 0.5)

    References
    ----------
    Z. Li and R. Klette, "Recovery rate of clustering algorithms", PSIVT 2009, LNCS 5414.
    """
    if method == "bruteforce":
        return recovery.spec.body(table, method=method, denominator=denominator,
                                  max_permutations=max_permutations).rate
    matched = matched_recall(table) if method == "exact" else _greedy_recall(table)
    return matched / _denominator(table, denominator)


@score(real=_REAL_MASSES)
def pseudo_recovery_rate_score(table: Contingency) -> float:
    """Pseudo recovery rate (Li & Klette, Definition 3).

    The largest number of predicted clusters that can be matched one-to-one to distinct
    true classes they share at least one item with (a maximum-cardinality bipartite
    matching on the non-zero cells, Hopcroft-Karp), divided by the number of classes n.
    In (0, 1], 1 for identical partitions, but also whenever every class merely touches
    its own cluster: the paper's Example 5 shows why it exaggerates. Not symmetric.

    Examples
    --------
    Example 5 of the paper, M = [[5, 3], [0, 2]]:

    >>> pseudo_recovery_rate_score(["C1"] * 5 + ["C2"] * 5, ["G1"] * 8 + ["G2"] * 2)
    1.0

    References
    ----------
    Z. Li and R. Klette, "Recovery rate of clustering algorithms", PSIVT 2009, LNCS 5414.
    """
    matched = _stack_pseudo_count(table) if is_stack(table) else _pseudo_count(table)
    return matched / table.n_classes


recovery_rate = deprecated_alias("recovery_rate", recovery_rate_score)
pseudo_recovery_rate = deprecated_alias("pseudo_recovery_rate", pseudo_recovery_rate_score)


# --------------------------------------------------------------------- internals
def _weights(table: Contingency) -> np.ndarray:
    return recall_weights(table)


def _denominator(table: Contingency, denominator: str) -> int:
    """m (clusters), n (classes) or max(m, n): what the matched weight is divided by."""
    m, n = table.n_clusters, table.n_classes
    return {"predicted": m, "true": n, "max": maximum(m, n)}[denominator]


def _result(table: Contingency, cells: np.ndarray, method: str, denominator: str) -> Recovery:
    m, n = table.n_clusters, table.n_classes
    cells = cells[np.argsort(table.cols[cells], kind="stable")]
    w = _weights(table)[cells].tolist()
    clusters = label_values(table.cluster_labels[table.cols[cells]])
    classes = label_values(table.class_labels[table.rows[cells]])
    return Recovery(
        rate=math.fsum(w) / _denominator(table, denominator),
        method=method,
        matching=tuple(zip(clusters, classes, w, strict=True)),
        m=m,
        n=n,
        denominator=denominator,
    )


def _greedy_cells(table: Contingency) -> np.ndarray:
    return table.cached("matching:recovery_greedy", lambda t: greedy_cells(
        t, _weights(t), recall_leaders(t)))


def _greedy_recall(table: Contingency) -> float:
    """Total recall of Algorithm 2's matching (one per table of a stack: each table's
    greedy run, on its own lines in their sorted order)."""
    if is_stack(table):
        def compute(s: TableStack) -> np.ndarray:
            scanned = greedy_scan_totals(s, _weights(s))
            return scanned if scanned is not None else \
                np.array(s.each(_greedy_recall), dtype=np.float64)
        return table.cached("matching:recovery_greedy_total", compute)
    return math.fsum(_weights(table)[_greedy_cells(table)].tolist())


def _bruteforce_cells(table: Contingency, max_permutations: int | None) -> np.ndarray:
    """Algorithm 1: try every injective map of the smaller side into the larger one."""
    m, n = table.n_clusters, table.n_classes
    small, large = min(m, n), max(m, n)
    count = math.perm(large, small)
    if max_permutations is not None and count > max_permutations:
        raise ValueError(f"method='bruteforce' needs {count} permutations, more than "
                         f"max_permutations={max_permutations}; raise max_permutations, pass "
                         f"None, or use method='exact'")
    weights = np.zeros((m, n), dtype=np.float64)  # the paper's orientation, clusters x classes
    weights[table.cols, table.rows] = _weights(table)
    if m > n:
        weights = weights.T
    line = np.arange(small)
    best, best_map = -1.0, None
    perms = itertools.permutations(range(large), small)
    while True:
        flat = np.fromiter(itertools.chain.from_iterable(itertools.islice(perms, _CHUNK)),
                           dtype=np.int64)
        if flat.shape[0] == 0:
            break
        maps = flat.reshape(-1, small)
        totals = weights[line, maps].sum(axis=1)
        top = int(np.argmax(totals))
        if totals[top] > best:
            best, best_map = float(totals[top]), maps[top]
    clusters, classes = (line, best_map) if m <= n else (best_map, line)
    return cell_index(table.rows, table.cols, table.n_clusters, classes, clusters)


def _stack_pseudo_count(stack: TableStack) -> np.ndarray:
    """:func:`_max_cardinality` of each table of a stack; a best matching already solved
    on a table that saturates its smaller side settles it (as on one table)."""
    def compute(s: TableStack) -> np.ndarray:
        smaller = np.minimum(s.n_classes, s.n_clusters)
        solved = stack_matched_cells(s)
        settled = np.zeros(len(s), dtype=bool) if solved is None else solved == smaller
        out = smaller.copy()
        for b in np.flatnonzero(~settled).tolist():
            out[b] = _max_cardinality(s.table(b))
        return out
    return stack.cached("matching:pseudo_count", compute)


def _pseudo_count(table: Contingency) -> int:
    return table.cached("matching:pseudo_count", _max_cardinality)


def _max_cardinality(table: Contingency) -> int:
    smaller = min(table.n_classes, table.n_clusters)
    # A matching already computed on this table that saturates the smaller side is a
    # maximum-cardinality matching (no matching is larger than that side).
    for key in ("matching:recall", "matching:max_count"):
        cells = table.peek(key)
        if cells is not None and cells.shape[0] == smaller:
            return smaller
    # here, not at the top: scipy.sparse.csgraph adds ~0.14 s to importing clustermetrics
    from scipy import sparse
    from scipy.sparse.csgraph import maximum_bipartite_matching

    pattern = sparse.csr_matrix(
        (np.ones(table.nnz, dtype=np.int8), (table.rows, table.cols)),
        shape=(table.n_classes, table.n_clusters),
    )
    kernel = matching_compiled.cardinality_kernel(table.nnz)
    if kernel is not None:
        match = kernel(pattern.indptr, pattern.indices, table.n_clusters)
    else:
        match = maximum_bipartite_matching(pattern, perm_type="column")
    return int((match >= 0).sum())


_LI_KLETTE = "Li & Klette, Recovery rate of clustering algorithms, PSIVT (2009)"


def _entry(key: str, name: str, func: ScoreFunction[Any], **more: Any) -> MetricInfo:
    return MetricInfo(key=key, name=name, func=func, family=MATCH, lower=0.0, upper=1.0,
                      better="higher", symmetric=False, adjusted=False,
                      reference=_LI_KLETTE, **more)


ENTRIES = [
    _entry("recovery_rate", "Recovery rate (exact)", recovery_rate_score, detail=recovery),
    _entry("recovery_rate_greedy", "Recovery rate (greedy, Alg. 2)", recovery_rate_score,
           options={"method": "greedy"}, detail=recovery, label_invariant=False),
    _entry("pseudo_recovery_rate", "Pseudo recovery rate", pseudo_recovery_rate_score),
]
