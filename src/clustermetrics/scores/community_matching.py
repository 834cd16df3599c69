"""F1 and NF1 of matched communities (Rossetti, Pappalardo & Rinzivillo 2016), from the
sparse overlaps of two covers.

Each predicted community D is matched to the true communities it shares most items
with (every one tied at that overlap, as the authors' ``nf1`` program matches them);
each match scores F1 = 2 |C ∩ D| / (|C| + |D|), the harmonic mean of precision
|C ∩ D| / |D| and recall |C ∩ D| / |C|. A predicted community that shares no item with
any true community scores 0.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

from ..table.cover import CoverPair, as_cover_pair
from .cover_spec import CoverMetricInfo, cover_parameters

__all__ = ["COVER_ENTRIES", "CommunityMatches", "community_f1_score", "community_matches",
           "nf1_score"]

_ROSSETTI = ("Rossetti, Pappalardo & Rinzivillo (2016), A novel approach to evaluate "
             "community detection algorithms on ground truth, Complex Networks VII, "
             "Studies in Computational Intelligence 644, 133-144")


class CommunityMatches(NamedTuple):
    """The matches of the predicted communities: ``f1`` one value per match (a
    predicted community tied between several true ones has one per tie; one that
    overlaps none, a single 0), ``matched`` how many distinct true communities are
    matched, and the numbers of true and predicted communities."""

    f1: np.ndarray
    matched: int
    n_true: int
    n_pred: int

    @property
    def coverage(self) -> float:
        """Share of the true communities matched by some predicted community."""
        return self.matched / self.n_true

    @property
    def redundancy(self) -> float:
        """Predicted communities per matched true community (inf when none is)."""
        return self.n_pred / self.matched if self.matched else math.inf


def community_matches(pair: CoverPair) -> CommunityMatches:
    """Every predicted community's best matches by overlap, from the overlaps alone."""
    columns = pair.overlaps.tocsc()
    columns.sort_indices()
    counts = np.diff(columns.indptr)
    col = np.repeat(np.arange(pair.n_pred, dtype=np.int64), counts)
    data = columns.data.astype(np.int64)
    best = np.zeros(pair.n_pred, dtype=np.int64)
    np.maximum.at(best, col, data)
    tied = data == best[col]
    rows, col, data = columns.indices[tied].astype(np.int64), col[tied], data[tied]
    f1 = 2.0 * data / (pair.true_sizes[rows] + pair.pred_sizes[col])
    unmatched = int(np.count_nonzero(counts == 0))
    f1 = np.concatenate([f1, np.zeros(unmatched)])
    return CommunityMatches(f1, int(np.unique(rows).shape[0]), pair.n_true, pair.n_pred)


@cover_parameters
def community_f1_score(true_cover: Any, pred_cover: Any = None, *,
                       items: Any = "union") -> float:
    """Mean F1 of each predicted community with its best-matching true community.

    Parameters
    ----------
    {covers}
    {items}

    Returns
    -------
    float
        In [0, 1]: the mean, over the matches (one per predicted community, or one per
        true community tied at its largest overlap), of 2 |C ∩ D| / (|C| + |D|).

    Examples
    --------
    >>> community_f1_score([[1, 2, 3], [4, 5, 6]], [[1, 2, 3], [4, 5, 6]])
    1.0
    >>> community_f1_score([[1, 2, 3], [4, 5, 6]], [[1, 2], [3, 4, 5, 6]])
    0.8285714285714285

    References
    ----------
    Rossetti, Pappalardo & Rinzivillo (2016), A novel approach to evaluate community
    detection algorithms on ground truth, Complex Networks VII, 133-144.
    """
    matches = community_matches(as_cover_pair(true_cover, pred_cover, items=items))
    return math.fsum(matches.f1.tolist()) / matches.f1.shape[0]


@cover_parameters
def nf1_score(true_cover: Any, pred_cover: Any = None, *, items: Any = "union") -> float:
    """Normalized F1: the community F1 times coverage, divided by redundancy.

    Parameters
    ----------
    {covers}
    {items}

    Returns
    -------
    float
        F1 x coverage / redundancy, with coverage = matched / n_true and redundancy =
        n_pred / matched (matched: the distinct true communities matched); 0 when no
        true community is matched. At most 1 unless a predicted community ties between
        several true communities (each tie is a match, so redundancy may fall below 1).

    Examples
    --------
    >>> nf1_score([[1, 2, 3], [4, 5, 6]], [[1, 2, 3], [4, 5, 6]])
    1.0
    >>> nf1_score([[1, 2, 3], [4, 5, 6]], [[1, 2, 3], [4, 5, 6], [4, 5]])
    0.6222222222222221

    References
    ----------
    Rossetti, Pappalardo & Rinzivillo (2016), A novel approach to evaluate community
    detection algorithms on ground truth, Complex Networks VII, 133-144.
    """
    matches = community_matches(as_cover_pair(true_cover, pred_cover, items=items))
    if matches.matched == 0:
        return 0.0
    f1 = math.fsum(matches.f1.tolist()) / matches.f1.shape[0]
    return f1 * matches.coverage / matches.redundancy


COVER_ENTRIES = [
    CoverMetricInfo(key="community_f1", name="F1 of matched communities",
                    func=community_f1_score, lower=0.0, upper=1.0, better="higher",
                    symmetric=False, reference=_ROSSETTI, perfect_always=False),
    CoverMetricInfo(key="nf1", name="NF1 (normalized F1)", func=nf1_score, lower=0.0,
                    upper=math.inf, better="higher", symmetric=False, reference=_ROSSETTI,
                    perfect_always=False),
]
