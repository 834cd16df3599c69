"""Element-centric similarity of two covers (Gates, Wood, Hetrick & Ahn 2019), the
overlapping, non-hierarchical case.

A cover induces a random walk on its items: from item u, pick one of u's k_u communities
uniformly, then one of that community's members uniformly, so
W[u, v] = (1/k_u) sum_{c ∋ u, v} 1/|c|. The affinity of u is the personalised PageRank
p_u = (1 - α) e_u + α p_u W (restart probability 1 - α at u). An item in no community has
no step to take and keeps p_u = e_u, as a singleton community gives. The similarity of u is
S_u = 1 - (1 / 2α) sum_v |p1_u(v) - p2_u(v)| (the 1/α removes the restart mass 1 - α that
both affinities put on u) and the score is the mean of S_u over the items.

Solving the walk through its communities: with x_u = (1/k_u) [c ∋ u] and the community
transition Q = D_size^{-1} B^T D_deg^{-1} B (row-stochastic),
(I - αW)^{-1} = I + α X (I - αQ)^{-1} Y, so p_u = (1 - α) e_u + α g_u with
g_u(v) = sum_{c ∋ v} z_u(c) / |c| and z_u = (1 - α) x_u (I - αQ)^{-1}, a distribution over
u's reachable communities. As both g's sum to 1,

    S_u = sum_v min(g1_u(v), g2_u(v)),

and an item in no community of one side has S_u = g_u(u) of the other. On a partition
z_u = e_{C(u)} and S_u = n_ij / max(a_i, b_j), the flat score of
:mod:`.element_centric`, whatever α.

Unlike pair counting, an affinity reaches beyond co-members (u in A, w in A and B, v in
B: p_u(v) > 0), so the work is per connected component of items and communities: a
K x K solve for the K communities of a component and S signatures x S signatures of
affinities (:mod:`.cover_signatures` groups equal items), in row chunks. Disjoint
communities cost O(1) each; one giant overlapping component costs O(K^3 + S^2 K).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..compute.progress import progress_bar
from ..table.cover import as_cover_pair
from .cover_signatures import CoverPair, Signatures, canonical, signatures
from .cover_spec import cover_parameters
from .spec import _SNAP_ULPS

if TYPE_CHECKING:
    from scipy.sparse import csr_array

__all__ = ["ALPHA", "cover_element_centric_similarity_score", "element_centric_of_pair"]

ALPHA = 0.9
"""The restart parameter of Gates et al. (2019), their and clusim's default."""

# affinity entries (signatures x signatures) held at once
_CHUNK_CELLS = 1 << 22
# signature pairs (S^2 over the components) beyond which the solve shows progress on a
# terminal: about a second of work on one core
_PROGRESS_WORK = 10**8


class _Side:
    """One side of one component: its communities' walk, solved once."""

    def __init__(self, members: csr_array, weights: np.ndarray, alpha: float):
        keep = np.unique(members.indices)
        self.members = members[:, keep].tocsr().astype(np.float64)
        self.degree = np.diff(self.members.indptr).astype(np.float64)
        size = self.members.T @ weights.astype(np.float64)
        per_item = np.divide(weights, self.degree, out=np.zeros(weights.size),
                             where=self.degree > 0)
        walk = (self.members.T @ self.members.multiply(per_item[:, None]).tocsr()).toarray()
        walk /= size[:, None]
        self.solve = (1.0 - alpha) * np.linalg.inv(np.eye(keep.size) - alpha * walk).T
        self.spread = self.members.multiply(1.0 / size[None, :]).tocsr()

    def affinity(self, rows: np.ndarray) -> np.ndarray:
        """g_u(v) for u of ``rows`` (columns) and every v of the component (rows)."""
        if self.members.shape[1] == 0:
            return np.zeros((self.members.shape[0], rows.size))
        start = self.members[rows].T.toarray()
        start /= np.where(self.degree[rows] > 0, self.degree[rows], 1.0)
        return np.asarray(self.spread @ (self.solve @ start))


def _steps(size: int) -> range:
    """The starts of the chunks of rows a component of ``size`` signatures is solved in."""
    return range(0, size, max(1, _CHUNK_CELLS // size))


def _component(sig: Signatures, rows: np.ndarray, alpha: float, bar: Any) -> np.ndarray:
    """S_u of the signatures ``rows``, one connected component (``bar`` counts chunks)."""
    w = sig.weights[rows]
    sides = [_Side(side[rows].tocsr(), w, alpha) for side in (sig.true, sig.pred)]
    out = np.empty(rows.size)
    wf = w.astype(np.float64)
    starts = _steps(rows.size)
    for start in starts:
        chunk = np.arange(start, min(start + starts.step, rows.size))
        g1, g2 = (s.affinity(chunk) for s in sides)
        out[chunk] = wf @ np.minimum(g1, g2)
        # an item in no community of one side keeps all its affinity on itself
        out[chunk] = np.where(sides[0].degree[chunk] == 0, g2[chunk, np.arange(chunk.size)],
                              out[chunk])
        out[chunk] = np.where(sides[1].degree[chunk] == 0, g1[chunk, np.arange(chunk.size)],
                              out[chunk])
        bar.update(1)
    return out


def _components(sig: Signatures) -> list[np.ndarray]:
    """Signature indices of each connected component of signatures and communities."""
    from scipy import sparse
    from scipy.sparse.csgraph import connected_components

    k = sig.weights.size
    if k == 0:
        return []
    links = sparse.hstack([sig.true, sig.pred], format="csr")
    graph = sparse.block_array([[None, links], [links.T, None]], format="csr")
    _, labels = connected_components(graph, directed=False)
    labels = labels[:k]
    order = np.argsort(labels, kind="stable")
    return np.split(order, np.flatnonzero(np.diff(labels[order])) + 1)


@cover_parameters
def cover_element_centric_similarity_score(true_cover: Any, pred_cover: Any = None, *,
                                           items: Any = "union", alpha: float = ALPHA) -> float:
    """Element-centric similarity of two covers (Gates et al. 2019; clusim ``element_sim``).

    The mean over items u of S_u = 1 - (1 / 2α) ||p1_u - p2_u||_1, where p_u is the
    personalised PageRank from u, restart probability 1 - α, of the walk that steps from an
    item to one of its communities and on to one of that community's members. In [0, 1],
    symmetric (bit for bit: the sides are taken in a canonical order), 1.0 for identical
    covers (a value within a few ulps of an end of [0, 1] is that end); on partitions the
    flat element-centric similarity
    for every ``alpha``. An item in no community of a side is its own singleton there.

    Parameters
    ----------
    {covers}
    {items}
    alpha : float, default=0.9
        The probability of continuing the walk, strictly between 0 and 1 (the paper's and
        clusim's default 0.9). Overlapping covers score differently for different ``alpha``.
        The community solve loses accuracy as ``alpha`` nears 1, about as
        1e-17 / (1 - alpha): measured errors of 1.2e-8 at 1 - 1e-9 and 7e-5 at
        1 - 1e-12; keep ``1 - alpha`` above 1e-6 for 1e-10 or better.

    Returns
    -------
    ecs : float

    Examples
    --------
    >>> t = [[0, 1], [1, 2, 3]]  # item 1 in both true communities
    >>> p = [[0, 1], [2, 3]]
    >>> round(cover_element_centric_similarity_score(t, p), 12)
    0.552631578947

    References
    ----------
    Gates, Wood, Hetrick & Ahn, "Element-centric clustering comparison unifies overlaps and
    hierarchy", Scientific Reports 9 (2019) 8574.
    """
    pair = as_cover_pair(true_cover, pred_cover, items=items)
    return element_centric_of_pair(pair, alpha=alpha)


def element_centric_of_pair(cover: CoverPair, *, alpha: float = ALPHA) -> float:
    """:func:`cover_element_centric_similarity_score` of a built pair of covers
    (anything with ``.true``, ``.pred`` and ``.n_items``)."""
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) \
            or not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be a number strictly between 0 and 1, got {alpha!r}")
    # canonical order of the sides: the score is symmetric, and so, bit for bit, is this
    sig = signatures(canonical(cover)[0])
    if sig.n_items == 0:
        raise ValueError("cover has no items (n_items=0)")
    total = float(sig.n_items - sig.weights.sum())  # in no community of either side: 1
    components = _components(sig)
    work = sum(rows.size ** 2 for rows in components)
    bar = progress_bar(sum(len(_steps(rows.size)) for rows in components),
                       "element-centric similarity", None if work > _PROGRESS_WORK else False)
    try:
        for rows in components:
            total += float(sig.weights[rows].astype(np.float64)
                           @ _component(sig, rows, alpha, bar))
    finally:
        bar.close()
    value = total / sig.n_items
    # the solve is accurate to a few ulps (at the default alpha): identical covers, whose
    # S_u are all 1 up to that rounding, score exactly 1, as the label scores' values
    # within _SNAP_ULPS of a range end are that end
    for end in (0.0, 1.0):
        if abs(value - end) <= _SNAP_ULPS * np.spacing(1.0):
            value = end
    return min(max(value, 0.0), 1.0)
