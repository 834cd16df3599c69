"""Element-centric clustering similarity (Gates, Wood, Hetrick & Ahn 2019) for flat partitions.

Each labelling induces, for every item u, an affinity distribution p_u over items: the
personalised PageRank of a random walk on the item-cluster bipartite graph restarted at u.
The similarity of u is S_u = 1 - (1/2) sum_v |p1_u(v) - p2_u(v)| and the score is the mean
of S_u over items.

For a partition the walk from u reaches every member of its cluster C(u) with equal
probability after one cluster visit, and the affinity p_u is uniform on C(u) whatever the
restart parameter alpha (clusim's ``element_sim`` gives the same value for every alpha;
tests/scores/test_element_centric.py checks this). For u in cell (i, j), with a = |true class|,
b = |cluster|, n = |intersection|, the L1 distance of two uniform distributions is

    sum_v |p1 - p2| = n |1/a - 1/b| + (a - n)/a + (b - n)/b = 2 - 2 n / max(a, b),

so S_u = n_ij / max(a_i, b_j) and

    ECS = (1/N) sum_ij n_ij^2 / max(a_i, b_j),

O(nnz) from the table, where clusim builds the affinity matrices (O(N^2) memory).
"""

from __future__ import annotations

from ..table import Contingency
from ._cells import accurate_sum, counts_float, larger_size_cells, quotients, total
from ._elementwise import minimum
from .spec import MATCH, MetricInfo, deprecated_alias, score

__all__ = ["ENTRIES", "element_centric_similarity_score", "element_centric_similarity"]

_REAL_MASSES = ("the mean over items, each with its weight, of the summed weight shared by "
                "its class and cluster over the larger of their summed weights")


@score(real=_REAL_MASSES)
def element_centric_similarity_score(table: Contingency) -> float:
    """Element-centric similarity of two flat partitions (clusim ``element_sim``).

    ECS = (1/N) sum_ij n_ij^2 / max(a_i, b_j): the mean over items of
    |class ∩ cluster| / max(|class|, |cluster|). Range (0, 1], 1.0 exactly for identical
    partitions, symmetric; independent of clusim's ``alpha`` for partitions. Unlike pair
    counting it weighs every item equally rather than every pair (no quadratic emphasis on
    large clusters). Overlapping and hierarchical clusterings, which the paper also covers,
    are out of scope.

    Parameters
    ----------
    labels_true : array-like of shape (n_samples,) or Contingency
        True class labels, or a contingency table (then ``labels_pred`` must be None).
    labels_pred : array-like of shape (n_samples,), optional
        Predicted cluster labels.

    Returns
    -------
    ecs : float

    Examples
    --------
    >>> element_centric_similarity_score([0, 0, 1, 1], [0, 0, 0, 1])
    0.5416666666666666

    References
    ----------
    Gates, Wood, Hetrick & Ahn, "Element-centric clustering comparison unifies overlaps and
    hierarchy", Scientific Reports 9 (2019) 8574.
    """
    if table.real_valued:
        # sum_ij n_ij (n_ij / max(a_i, b_j)) / N: a share before any product of masses
        # (two of 1e-170 multiply to 0); 1.0 exactly for identical partitions
        n = table.counts
        return min(accurate_sum(n * (n / larger_size_cells(table))) / accurate_sum(n), 1.0)
    n = counts_float(table)
    terms = quotients(table, n * n, larger_size_cells(table))
    return minimum(total(table, terms) / table.n_samples, 1.0)


element_centric_similarity = deprecated_alias("element_centric_similarity",
                                              element_centric_similarity_score)

ENTRIES = [
    MetricInfo(key="ecs", name="Element-centric similarity",
               func=element_centric_similarity_score, family=MATCH, lower=0.0, upper=1.0,
               better="higher", symmetric=True, adjusted=False,
               reference="Gates, Wood, Hetrick & Ahn, Sci. Rep. 9 (2019)"),
]
