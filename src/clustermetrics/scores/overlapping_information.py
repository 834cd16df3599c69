"""Overlapping normalized mutual information: the LFK measure and McDaid's NMI_max and
NMI_sum, from the sparse overlaps of two covers and their community sizes.

Each community is a binary variable over the N counted items (in it or not). A community
X of one cover is encoded by its best "explanation" Y in the other: the smallest
H(X|Y) = H(X, Y) - H(Y) among the communities Y that overlap X and pass Lancichinetti,
Fortunato & Kertész's constraint h(P11) + h(P00) > h(P10) + h(P01) (else H(X)). Only
overlapping pairs are candidates, as in McDaid's ``onmi`` program, so the work is
O(overlapping pairs + communities): disjoint pairs never enter the computation.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..table.cover import CoverPair, as_cover_pair
from .cover_spec import CoverMetricInfo, cover_parameters

__all__ = ["COVER_ENTRIES", "ONMI_CANDIDATES", "ONMI_VARIANTS", "overlapping_nmi_score"]

ONMI_VARIANTS = ("max", "lfk", "sum")
# which communities may explain one of the other cover: those overlapping it (McDaid's
# onmi), or every one (LFK's Appendix B read literally, as cdlib does)
ONMI_CANDIDATES = ("overlapping", "all")

_LFK = ("Lancichinetti, Fortunato & Kertész (2009), Detecting the overlapping and "
        "hierarchical community structure in complex networks, New J. Phys. 11 033015, "
        "Appendix B")
_MGH = ("McDaid, Greene & Hurley (2011), Normalized mutual information to evaluate "
        "overlapping community finding algorithms, arXiv:1110.2515")


@cover_parameters
def overlapping_nmi_score(true_cover: Any, pred_cover: Any = None, *, variant: str = "max",
                          candidates: str = "overlapping", items: Any = "union") -> float:
    """Overlapping normalized mutual information of two covers.

    Parameters
    ----------
    {covers}
    variant : {'max', 'lfk', 'sum'}, default='max'
        ``max``: McDaid, Greene & Hurley's NMI_max, I / max(H(X), H(Y)) with
        I = (H(X) - H(X|Y) + H(Y) - H(Y|X)) / 2 summed over the communities (the headline
        ``NMI<Max>`` of McDaid's ``onmi`` program); ``sum``: I / ((H(X) + H(Y)) / 2);
        ``lfk``: Lancichinetti, Fortunato & Kertész's 1 - (mean_k H(X_k|Y)/H(X_k) +
        mean_l H(Y_l|X)/H(Y_l)) / 2, with ``onmi``'s convention for a community of
        every item (H = 0): its ratio counts 1, so two identical covers holding such a
        community score below 1.
    candidates : {'overlapping', 'all'}, default='overlapping'
        The communities Y that may explain X: those sharing an item with X (``onmi``),
        or every one, as LFK's Appendix B reads literally (and cdlib computes): a
        disjoint Y passes the constraint when X is large and Y small. Disjoint pairs
        are handled by their sizes, never one by one.
    items : {'union', 'true'} or collection, default='union'
        The items counted (N): every item of either cover (as ``onmi``), the true
        cover's, or the ids given. Items of no community count in N.

    Returns
    -------
    float
        In [0, 1]; 1 for identical covers (``lfk``: unless a community holds every item).
        When every community of both covers holds every item, ``max`` and ``sum`` are
        0/0 and give 1.0 (the covers agree).

    Examples
    --------
    >>> truth = [[1, 2, 3], [4, 5, 6]]
    >>> round(overlapping_nmi_score(truth, [[1, 2, 3], [4, 5, 6]]), 12)
    1.0
    >>> round(overlapping_nmi_score(truth, [[1, 2], [3, 4, 5, 6]]), 4)
    0.4591
    >>> round(overlapping_nmi_score(truth, [[1, 2], [3, 4, 5, 6]], variant="lfk"), 4)
    0.4796

    References
    ----------
    McDaid, Greene & Hurley (2011), arXiv:1110.2515 (NMI_max, NMI_sum).
    Lancichinetti, Fortunato & Kertész (2009), New J. Phys. 11 033015, Appendix B (LFK).
    """
    if variant not in ONMI_VARIANTS:
        raise ValueError(f"unknown variant {variant!r}; choose from "
                         f"{', '.join(map(repr, ONMI_VARIANTS))}")
    if candidates not in ONMI_CANDIDATES:
        raise ValueError(f"unknown candidates {candidates!r}; choose from "
                         f"{', '.join(map(repr, ONMI_CANDIDATES))}")
    pair = as_cover_pair(true_cover, pred_cover, items=items)
    return _onmi(pair, variant, candidates == "all")


def _onmi(pair: CoverPair, variant: str, disjoint: bool) -> float:
    n = pair.n_items
    h_true = _binary_entropy(pair.true_sizes, n)
    h_pred = _binary_entropy(pair.pred_sizes, n)
    best_true, best_pred = _best_conditional(pair, h_true, h_pred)
    if disjoint:
        ov = pair.overlaps.tocoo()
        rows, cols = ov.row.astype(np.int64), ov.col.astype(np.int64)
        np.minimum(best_true, _best_disjoint(pair.true_sizes, pair.pred_sizes, rows, cols,
                                             n), out=best_true)
        np.minimum(best_pred, _best_disjoint(pair.pred_sizes, pair.true_sizes, cols, rows,
                                             n), out=best_pred)
    if variant == "lfk":
        return 1.0 - 0.5 * (_mean_ratio(best_true, h_true) + _mean_ratio(best_pred, h_pred))
    sum_true, sum_pred = math.fsum(h_true.tolist()), math.fsum(h_pred.tolist())
    mutual = 0.5 * math.fsum([sum_true, sum_pred, -math.fsum(best_true.tolist()),
                              -math.fsum(best_pred.tolist())])
    norm = max(sum_true, sum_pred) if variant == "max" else 0.5 * (sum_true + sum_pred)
    if norm == 0.0:  # every community of both covers holds every item: they agree
        return 1.0
    return mutual / norm


def _entropy_terms(counts: np.ndarray, n: int) -> np.ndarray:
    """-k log2(k / N) of each count k (0 for k = 0): N times a cell's entropy term, in
    the form ``onmi`` computes it."""
    k = np.asarray(counts, dtype=np.float64)
    out = np.zeros_like(k)
    nz = k > 0
    out[nz] = -k[nz] * np.log2(k[nz] / n)
    return out


def _plogp(counts: np.ndarray, n: int) -> np.ndarray:
    """-p log2 p of p = k / N for each count k (0 for k = 0)."""
    p = np.asarray(counts, dtype=np.float64) / n
    out = np.zeros_like(p)
    nz = p > 0
    out[nz] = -p[nz] * np.log2(p[nz])
    return out


def _binary_entropy(sizes: np.ndarray, n: int) -> np.ndarray:
    """N H(X) of each community of ``sizes`` as a binary variable over N items."""
    return _entropy_terms(sizes, n) + _entropy_terms(n - np.asarray(sizes), n)


def _best_conditional(pair: CoverPair, h_true: np.ndarray,
                      h_pred: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """N H(X_k | other cover) of every community of each cover: the smallest conditional
    entropy over its overlapping communities that pass the LFK constraint, else H(X_k)."""
    n = pair.n_items
    ov = pair.overlaps.tocoo()
    i, j = ov.row.astype(np.int64), ov.col.astype(np.int64)
    both = ov.data.astype(np.int64)
    x, y = pair.true_sizes[i], pair.pred_sizes[j]
    only_true, only_pred = x - both, y - both
    neither = n - x - y + both
    # LFK's constraint as onmi evaluates it, on probabilities; a tie rejects the
    # candidate (equal cells, {n00, n11} = {n10, n01}, give equal float sums)
    h00, h11, h10, h01 = (_plogp(c, n) for c in (neither, both, only_true, only_pred))
    accepted = h00 + h11 > h01 + h10
    i, j = i[accepted], j[accepted]
    t00, t11, t10, t01 = (_entropy_terms(c[accepted], n)
                          for c in (neither, both, only_true, only_pred))
    best_true, best_pred = h_true.copy(), h_pred.copy()
    # H(X|Y) = H(X,Y) - H(Y), summed in onmi's order; never above H(X), the starting
    # value (onmi keeps it there against rounding)
    np.minimum.at(best_true, i, ((t00 + t10) + t01) + t11 - h_pred[j])
    np.minimum.at(best_pred, j, ((t00 + t01) + t10) + t11 - h_true[i])
    return best_true, best_pred


def _best_disjoint(sizes: np.ndarray, other_sizes: np.ndarray, mine: np.ndarray,
                   theirs: np.ndarray, n: int) -> np.ndarray:
    """N H(X_k|Y) of each community X_k (sizes ``sizes``) over the communities Y of the
    other cover disjoint from it that pass LFK's constraint (inf where none does).

    A disjoint pair's 2 x 2 table is fixed by the two sizes, so the conditional entropy
    is computed once per pair of distinct sizes; X_k takes the best size s at which some
    community of size s is disjoint from it: fewer of them overlap X_k (the overlapping
    pairs ``mine``, ``theirs``) than there are."""
    x_sizes, x_of = np.unique(sizes, return_inverse=True)
    y_sizes, y_of, y_count = np.unique(other_sizes, return_inverse=True, return_counts=True)
    x, y = x_sizes[:, None], y_sizes[None, :]
    neither = n - x - y
    cells = (neither.clip(0), np.broadcast_to(x, neither.shape),
             np.broadcast_to(y, neither.shape))
    h00, h10, h01 = (_plogp(c, n) for c in cells)
    accepted = (neither >= 0) & (h00 > h01 + h10)  # h(P11) = 0
    t00, t10, t01 = (_entropy_terms(c, n) for c in cells)
    value = np.where(accepted, (t00 + t10) + t01 - _binary_entropy(y_sizes, n)[None, :],
                     np.inf)
    order = np.argsort(value, axis=1, kind="stable")
    keys, hits = np.unique(mine * y_sizes.shape[0] + y_of[theirs], return_counts=True)
    blocked = set(keys[hits == y_count[keys % y_sizes.shape[0]]].tolist())
    best = np.full(sizes.shape[0], np.inf)
    for k in np.flatnonzero(np.isfinite(value[x_of]).any(axis=1)).tolist():
        row = x_of[k]
        for s in order[row].tolist():
            if not np.isfinite(value[row, s]):
                break
            if k * y_sizes.shape[0] + s not in blocked:
                best[k] = value[row, s]
                break
    return best


def _mean_ratio(best: np.ndarray, entropy: np.ndarray) -> float:
    """Mean of H(X_k|Y) / H(X_k); a community of every item (0/0) counts 1, as in
    ``onmi`` (and LFK's program, whose result it reproduces)."""
    ratios = np.ones_like(best)
    nz = entropy > 0
    ratios[nz] = best[nz] / entropy[nz]
    return math.fsum(ratios.tolist()) / ratios.shape[0]


COVER_ENTRIES = [
    CoverMetricInfo(key="onmi_max", name="Overlapping NMI (NMI_max)",
                    func=overlapping_nmi_score, lower=0.0, upper=1.0, better="higher",
                    symmetric=True, reference=_MGH, options={"variant": "max"}),
    CoverMetricInfo(key="onmi_lfk", name="Overlapping NMI (LFK)", func=overlapping_nmi_score,
                    lower=0.0, upper=1.0, better="higher", symmetric=True, reference=_LFK,
                    perfect_always=False, options={"variant": "lfk"}),
    CoverMetricInfo(key="onmi_sum", name="Overlapping NMI (NMI_sum)",
                    func=overlapping_nmi_score, lower=0.0, upper=1.0, better="higher",
                    symmetric=True, reference=_MGH, options={"variant": "sum"}),
]
