"""Pair-based scores of two covers (overlapping clusterings): the Omega index and the
extended B-cubed precision, recall and F.

Both read only the pairs of items that share a community (:mod:`.cover_signatures`): the
Omega index from the number of item pairs by (shared true, shared predicted) community
counts, B-cubed from each item's pairs. On partitions given as covers they are exactly the
adjusted Rand index and the (record-weighted) B-cubed scores.

Functions take a :class:`~.cover_signatures.CoverPair` (``.true``, ``.pred``, ``.n_items``).
:data:`COVER_ENTRIES` registers each score, with the element-centric
similarity of covers (:mod:`.cover_element_centric`).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from ..table.cover import as_cover_pair
from .cover_element_centric import cover_element_centric_similarity_score
from .cover_signatures import CoverPair, canonical, meetings, pair_counts, signatures
from .cover_spec import CoverMetricInfo, check_finite_options, cover_parameters
from .spec import UndefinedMetricError

__all__ = ["COVER_ENTRIES", "bcubed_f_of_pair", "bcubed_precision_of_pair",
           "bcubed_recall_of_pair", "extended_bcubed_f_score",
           "extended_bcubed_precision_score", "extended_bcubed_recall_score", "omega_of_pair",
           "omega_score"]


def _undefined(force_finite: bool, finite_value: float, why: str) -> float:
    if not force_finite:
        raise UndefinedMetricError(f"{why} (set force_finite=True to return finite_value)")
    return float(finite_value)


@cover_parameters
def omega_score(true_cover: Any, pred_cover: Any = None, *,
                items: Any = "union", force_finite: bool = True,
                finite_value: float = 1.0) -> float:
    """Omega index of two covers (Collins & Dent 1988): the adjusted Rand index of covers.

    A pair of items agrees when it shares the same number j of true and of predicted
    communities (j = 0 included). With M = N(N-1)/2 pairs, A_jj pairs at (j, j), N_j1 pairs
    sharing j true and N_j2 pairs sharing j predicted communities,

        Omega = (obs - exp) / (1 - exp),  obs = sum_j A_jj / M,  exp = sum_j N_j1 N_j2 / M^2,

    computed as one fraction of exact integers and rounded once. In [-1, 1], symmetric,
    1.0 for identical covers; the ARI exactly when both covers are partitions. Undefined
    (0/0) when exp = 1, that is when every pair shares the same number of communities on
    both sides (fewer than two items; identical trivial covers): then ``finite_value``
    (1.0, the ARI's convention), or with ``force_finite=False`` an
    :class:`~clustermetrics.UndefinedMetricError`.

    Items in no community count: their pairs agree at j = 0.

    Parameters
    ----------
    {covers}
    {items}

    Examples
    --------
    >>> t = [[0, 1], [1, 2, 3]]  # item 1 in both true communities
    >>> p = [[0, 1], [2, 3]]
    >>> omega_score(t, p)  # (6*4 - 16) / (36 - 16)
    0.4

    References
    ----------
    Collins & Dent, "Omega: a general formulation of the Rand index of cluster recovery
    suitable for non-disjoint solutions", Multivariate Behavioral Research 23 (1988) 231-242;
    Murray, Laurienti & Martin, Frontiers in Psychology 3 (2012); Gates et al., Sci. Rep. 9
    (2019) 8574.
    """
    pair = as_cover_pair(true_cover, pred_cover, items=items)
    return omega_of_pair(pair, force_finite=force_finite, finite_value=finite_value)


def omega_of_pair(cover: CoverPair, *, force_finite: bool = True,
                  finite_value: float = 1.0) -> float:
    """:func:`omega_score` of a built pair of covers (anything with ``.true``,
    ``.pred`` and ``.n_items``)."""
    check_finite_options(force_finite, finite_value)
    counts = pair_counts(cover)
    m = counts.n_pairs
    agree = 0
    by_true: dict[int, int] = {}
    by_pred: dict[int, int] = {}
    for t, p, n in zip(counts.shared_true.tolist(), counts.shared_pred.tolist(),
                       counts.pairs.tolist(), strict=True):
        agree += n if t == p else 0
        by_true[t] = by_true.get(t, 0) + n
        by_pred[p] = by_pred.get(p, 0) + n
    chance = sum(n * by_pred.get(j, 0) for j, n in by_true.items())
    denominator = m * m - chance
    if denominator == 0:
        return _undefined(force_finite, finite_value, "Omega is undefined (0/0): every pair "
                          "shares the same number of communities in both covers")
    return float(Fraction(m * agree - chance, denominator))


def _item_means(cover: CoverPair) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                           np.ndarray, np.ndarray]:
    """Per signature: its items' multiplicity precision and recall (each the mean over the
    items e' sharing a predicted, resp. true, community with the item, itself included),
    whether it has any predicted / true community, and its weight."""
    sig = signatures(cover)
    k = sig.weights.size
    prec_sum, prec_n = np.zeros(k), np.zeros(k)
    rec_sum, rec_n = np.zeros(k), np.zeros(k)
    w = sig.weights.astype(np.float64)
    for m in meetings(sig):
        t, p, w_col = m.shared_true, m.shared_pred, w[m.cols]
        both = np.minimum(t, p).astype(np.float64)
        in_pred, in_true = p > 0, t > 0
        prec_sum += np.bincount(m.rows[in_pred], (w_col * both)[in_pred] / p[in_pred], k)
        prec_n += np.bincount(m.rows[in_pred], w_col[in_pred], k)
        rec_sum += np.bincount(m.rows[in_true], (w_col * both)[in_true] / t[in_true], k)
        rec_n += np.bincount(m.rows[in_true], w_col[in_true], k)
    has_pred, has_true = prec_n > 0, rec_n > 0
    precision = np.divide(prec_sum, prec_n, out=np.zeros(k), where=has_pred)
    recall = np.divide(rec_sum, rec_n, out=np.zeros(k), where=has_true)
    return precision, recall, has_pred, has_true, w


def _bcubed(cover: CoverPair) -> tuple[float, float]:
    # in the canonical order of the sides: P(T, P) is then R(P, T) bit for bit, and F
    # (symmetric in P and R) is bitwise symmetric
    cover, swapped = canonical(cover)
    precision, recall, has_pred, has_true, w = _item_means(cover)
    out = []
    for values, has, side in ((precision, has_pred, "pred"), (recall, has_true, "true")):
        total = math.fsum(w[has].tolist())
        if not total:
            # no 0/0 convention: a CoverPair never holds a side with no community (it
            # refuses one), so only a hand-built stand-in gets here
            side = {"pred": "true", "true": "pred"}[side] if swapped else side
            raise ValueError(f"cover.{side} has no community: extended B-cubed averages "
                             "over the items in one")
        # fsum: one rounding for the sum of the per-item means, whatever their order
        out.append(min(math.fsum((w[has] * values[has]).tolist()) / total, 1.0))
    return (out[1], out[0]) if swapped else (out[0], out[1])


@cover_parameters
def extended_bcubed_precision_score(true_cover: Any, pred_cover: Any = None, *,
                                    items: Any = "union") -> float:
    """Extended B-cubed precision of two covers (Amigó, Gonzalo, Artiles & Verdejo 2009).

    For items e, e' sharing at least one predicted community, the multiplicity precision is
    min(|C(e) ∩ C(e')|, |L(e) ∩ L(e')|) / |C(e) ∩ C(e')|, with C the predicted and L the
    true communities of an item. Each item's precision is the mean over those e' (e itself
    included), and the score the mean over the items in at least one predicted community
    (the others have no e' to average over). In [0, 1], 1.0 for identical covers; the
    record-weighted B-cubed precision when both covers are partitions (to rounding: the
    per-item means are rounded before their sum). Never 0/0: a cover pair keeps at least
    one community on each side, so some item is in a predicted community.

    Parameters
    ----------
    {covers}
    {items}

    Examples
    --------
    >>> t = [[0, 1], [1, 2, 3]]  # item 1 in both true communities
    >>> p = [[0, 1], [2, 3]]
    >>> extended_bcubed_precision_score(t, p)
    1.0

    References
    ----------
    Amigó, Gonzalo, Artiles & Verdejo, "A comparison of extrinsic clustering evaluation
    metrics based on formal constraints", Information Retrieval 12 (2009) 461-486, Sec. 5.
    """
    pair = as_cover_pair(true_cover, pred_cover, items=items)
    return bcubed_precision_of_pair(pair)


def bcubed_precision_of_pair(cover: CoverPair) -> float:
    """:func:`extended_bcubed_precision_score` of a built pair of covers (anything with ``.true``,
    ``.pred`` and ``.n_items``)."""
    return _bcubed(cover)[0]


@cover_parameters
def extended_bcubed_recall_score(true_cover: Any, pred_cover: Any = None, *,
                                 items: Any = "union") -> float:
    """Extended B-cubed recall of two covers (Amigó et al. 2009).

    For items e, e' sharing at least one true community, the multiplicity recall is
    min(|C(e) ∩ C(e')|, |L(e) ∩ L(e')|) / |L(e) ∩ L(e')|; each item's recall is the mean
    over those e' (e included), the score the mean over the items in at least one true
    community. In [0, 1], 1.0 for identical covers; the record-weighted B-cubed recall on
    partitions (to rounding); ``extended_bcubed_recall_score`` of (true, pred) is the
    precision of (pred, true). Never 0/0 (some item is in a true community).

    Parameters
    ----------
    {covers}
    {items}

    Examples
    --------
    >>> t = [[0, 1], [1, 2, 3]]  # item 1 in both true communities
    >>> p = [[0, 1], [2, 3]]
    >>> round(extended_bcubed_recall_score(t, p), 12)
    0.677083333333

    References
    ----------
    Amigó, Gonzalo, Artiles & Verdejo, Information Retrieval 12 (2009) 461-486, Sec. 5.
    """
    pair = as_cover_pair(true_cover, pred_cover, items=items)
    return bcubed_recall_of_pair(pair)


def bcubed_recall_of_pair(cover: CoverPair) -> float:
    """:func:`extended_bcubed_recall_score` of a built pair of covers (anything with ``.true``,
    ``.pred`` and ``.n_items``)."""
    return _bcubed(cover)[1]


@cover_parameters
def extended_bcubed_f_score(true_cover: Any, pred_cover: Any = None, *,
                            items: Any = "union") -> float:
    """Extended B-cubed F: the harmonic mean 2PR / (P + R) of
    :func:`extended_bcubed_precision_score` and :func:`extended_bcubed_recall_score`
    (0.0 when both are 0). In [0, 1], symmetric, 1.0 for identical covers; the B-cubed F1
    on partitions (to rounding).

    Parameters
    ----------
    {covers}
    {items}

    Examples
    --------
    >>> t = [[0, 1], [1, 2, 3]]  # item 1 in both true communities
    >>> p = [[0, 1], [2, 3]]
    >>> round(extended_bcubed_f_score(t, p), 12)
    0.807453416149

    References
    ----------
    Amigó, Gonzalo, Artiles & Verdejo, Information Retrieval 12 (2009) 461-486, Sec. 5.
    """
    pair = as_cover_pair(true_cover, pred_cover, items=items)
    return bcubed_f_of_pair(pair)


def bcubed_f_of_pair(cover: CoverPair) -> float:
    """:func:`extended_bcubed_f_score` of a built pair of covers (anything with ``.true``,
    ``.pred`` and ``.n_items``)."""
    p, r = _bcubed(cover)
    return 2.0 * p * r / (p + r) if p + r > 0 else 0.0


_AMIGO = "Amigó, Gonzalo, Artiles & Verdejo, Inf. Retrieval 12 (2009)"

COVER_ENTRIES = [
    CoverMetricInfo(key="omega", name="Omega index", func=omega_score, lower=-1.0,
                    upper=1.0, better="higher", symmetric=True,
                    reference="Collins & Dent, Multivariate Behav. Res. 23 (1988)",
                    crisp="ari"),
    CoverMetricInfo(key="extended_bcubed_precision", name="Extended B-cubed precision",
                    func=extended_bcubed_precision_score, lower=0.0, upper=1.0,
                    better="higher", symmetric=False, reference=_AMIGO,
                    crisp="bcubed_precision"),
    CoverMetricInfo(key="extended_bcubed_recall", name="Extended B-cubed recall",
                    func=extended_bcubed_recall_score, lower=0.0, upper=1.0,
                    better="higher", symmetric=False, reference=_AMIGO,
                    crisp="bcubed_recall"),
    CoverMetricInfo(key="extended_bcubed_f", name="Extended B-cubed F1",
                    func=extended_bcubed_f_score, lower=0.0, upper=1.0, better="higher",
                    symmetric=True, reference=_AMIGO, crisp="bcubed_f"),
    CoverMetricInfo(key="cover_ecs", name="Element-centric similarity (covers)",
                    func=cover_element_centric_similarity_score, lower=0.0, upper=1.0,
                    better="higher", symmetric=True,
                    reference="Gates, Wood, Hetrick & Ahn, Sci. Rep. 9 (2019)", crisp="ecs"),
]
