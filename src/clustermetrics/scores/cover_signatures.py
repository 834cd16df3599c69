"""Items of two covers grouped by their memberships, and the pairs of groups that share a
community: the one primitive of the pair-based cover scores.

A *cover* pair holds, for n items, the 0/1 membership matrices of the true and predicted
communities (items x communities; an item may be in several communities or in none). Two
items with the same true set and the same predicted set (the same *signature*) are
interchangeable for every pair-based score, so the items are first grouped by signature:
a partition's items collapse to its contingency cells, and a cover's to at most one group
per distinct pair of membership sets.

Two signatures s, s' *meet* when they share at least one true or one predicted community;
their shared counts are t = |T_s ∩ T_s'| and p = |P_s ∩ P_s'|. All such (s, s') come from
one sparse product of the signature-by-community matrices, row chunk by row chunk, so the
work is O(sum over communities of (signatures in it)^2) and the memory that of one chunk's
meeting pairs; pairs of items that meet in no community (t = p = 0) are never listed: their
number is the complement.

:func:`pair_counts` gives the number of item pairs at each (t, p), exactly, over all
N(N-1)/2 pairs.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, NamedTuple, Protocol

import numpy as np

if TYPE_CHECKING:
    from scipy.sparse import csr_array

__all__ = ["CoverPair", "Meetings", "PairCounts", "Signatures", "canonical", "meetings",
           "pair_counts", "signatures"]

# Int64 holds every pair count while N(N-1)/2 does: up to N = 4,294,967,296 items.
_MAX_PAIRS = 2**63 - 1
# Float64 sums of integer pair weights are exact while every partial sum stays below 2**53.
_EXACT_FLOAT = 2**53
# Meeting signature pairs listed at once (memory of one chunk: ~ 40 bytes each).
_CHUNK_PAIRS = 1 << 22


class CoverPair(Protocol):
    """Two covers of the same items: ``true`` and ``pred`` are n_items x communities 0/1
    ``scipy.sparse.csr_array`` with sorted, unique indices; an all-zero row is an item in
    no community of that side."""

    @property
    def true(self) -> csr_array: ...
    @property
    def pred(self) -> csr_array: ...
    @property
    def n_items(self) -> int: ...


class Signatures(NamedTuple):
    """The distinct (true set, pred set) of the items in at least one community.

    ``true`` and ``pred`` are n_signatures x communities 0/1 CSR arrays (int64 data),
    ``weights`` the number of items of each signature, ``n_items`` every item, those in no
    community of either side included."""

    true: csr_array
    pred: csr_array
    weights: np.ndarray
    n_items: int


class Meetings(NamedTuple):
    """One chunk of meeting signature pairs (s, s'), both orders and s = s' included:
    ``rows``, ``cols`` signature indices, ``shared_true`` t and ``shared_pred`` p."""

    rows: np.ndarray
    cols: np.ndarray
    shared_true: np.ndarray
    shared_pred: np.ndarray


class PairCounts(NamedTuple):
    """Item pairs by (t, p): ``pairs[k]`` unordered pairs of distinct items share exactly
    ``shared_true[k]`` true and ``shared_pred[k]`` predicted communities. Sorted by (t, p),
    zero counts left out; ``pairs`` sums to ``n_pairs`` = N(N-1)/2."""

    shared_true: np.ndarray
    shared_pred: np.ndarray
    pairs: np.ndarray
    n_pairs: int


def _check(cover: CoverPair) -> tuple[csr_array, csr_array, int]:
    from scipy import sparse

    true, pred, n = cover.true, cover.pred, cover.n_items
    if n < 0 or n * (n - 1) // 2 > _MAX_PAIRS:
        raise ValueError(f"cover.n_items={n}: the pair counts of more than 4,294,967,296 "
                         "items overflow 64-bit integers")
    for name, side in (("true", true), ("pred", pred)):
        if not sparse.issparse(side) or side.ndim != 2:
            raise ValueError(f"cover.{name} must be a 2-D scipy sparse array, got "
                             f"{type(side).__name__}")
        if side.shape[0] != n:
            raise ValueError(f"cover.{name} has {side.shape[0]} rows for n_items={n}")
    return sparse.csr_array(true), sparse.csr_array(pred), n


class _Swapped(NamedTuple):
    true: csr_array
    pred: csr_array
    n_items: int


def canonical(cover: CoverPair) -> tuple[CoverPair, bool]:
    """``cover`` with its two sides in a canonical order, and whether they were swapped.

    A symmetric score computed on it is bitwise symmetric: (T, P) and (P, T) give the same
    canonical pair, so the same float operations in the same order (signatures are
    ordered by (true, pred) degrees, so the two orders otherwise sum in different orders
    and may differ in the last bit)."""
    true, pred, n = _check(cover)

    def key(side: csr_array) -> tuple:
        side = side.copy()
        side.sort_indices()
        return (side.shape[1], side.nnz, side.indptr.astype(np.int64).tobytes(),
                side.indices.astype(np.int64).tobytes())

    if key(pred) < key(true):
        return _Swapped(pred, true, n), True
    return cover, False


def _row_keys(side: csr_array, rows: np.ndarray, degree: int) -> np.ndarray:
    """The sorted community indices of ``rows``, all of ``degree`` memberships, as a
    (len(rows), degree) array."""
    start = side.indptr[rows].astype(np.int64)
    return side.indices[start[:, None] + np.arange(degree)].astype(np.int64)


def signatures(cover: CoverPair) -> Signatures:
    """Group the items of ``cover`` by (true set, pred set).

    Items of equal memberships have equal degrees, so each (true degree, pred degree)
    group is a rectangular array of community indices whose distinct rows are found by one
    ``np.unique``; items in no community of either side are counted in ``n_items`` only.
    Deterministic: signatures in order of degrees, then of community indices.
    """
    from scipy import sparse

    true, pred, n = _check(cover)
    true.sort_indices()
    pred.sort_indices()
    deg_t, deg_p = np.diff(true.indptr), np.diff(pred.indptr)
    pair = deg_t.astype(np.int64) * (int(deg_p.max(initial=0)) + 1) + deg_p
    order = np.argsort(pair, kind="stable")
    cuts = np.flatnonzero(np.diff(pair[order])) + 1
    t_rows: list[np.ndarray] = []
    p_rows: list[np.ndarray] = []
    weights: list[np.ndarray] = []
    for rows in np.split(order, cuts):
        if rows.size == 0:
            continue
        dt, dp = int(deg_t[rows[0]]), int(deg_p[rows[0]])
        if dt == dp == 0:
            continue
        keys = np.hstack([_row_keys(true, rows, dt), _row_keys(pred, rows, dp)])
        distinct, counts = np.unique(keys, axis=0, return_counts=True)
        t_rows.append(distinct[:, :dt])
        p_rows.append(distinct[:, dt:])
        weights.append(counts.astype(np.int64))

    def matrix(rows: list[np.ndarray], width: int) -> csr_array:
        sizes = np.array([r.shape[1] for r in rows for _ in range(r.shape[0])], np.int64)
        indptr = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        indices = np.concatenate([r.ravel() for r in rows] or [np.empty(0, np.int64)])
        return sparse.csr_array((np.ones(indices.size, np.int64), indices, indptr),
                                shape=(sizes.size, width))

    return Signatures(matrix(t_rows, true.shape[1]), matrix(p_rows, pred.shape[1]),
                      np.concatenate(weights or [np.empty(0, np.int64)]), n)


def _base(sig: Signatures) -> int:
    """One more than any signature's predicted degree: b t + p codes (t, p) uniquely."""
    return int(np.diff(sig.pred.indptr).max(initial=0)) + 1


def _coded_blocks(sig: Signatures, chunk_pairs: int) -> Iterator[tuple[int, csr_array]]:
    """(first row, block): rows of [T | P] @ [b T | P]^T, about ``chunk_pairs`` entries a
    block, each entry b t + p for a pair of signatures sharing a community; one sparse
    product gives both counts."""
    from scipy import sparse

    if sig.weights.size == 0:
        return
    left = sparse.hstack([sig.true, sig.pred], format="csr").astype(np.int64)
    right = sparse.hstack([sig.true * _base(sig), sig.pred], format="csr").T.tocsr()
    # a row meets at most the signatures of its communities: a bound on its chunk share
    cost = np.cumsum(left @ np.diff(right.indptr).astype(np.int64))
    ends = np.searchsorted(cost, np.arange(1, int(cost[-1]) // chunk_pairs + 2)
                           * chunk_pairs, side="right")
    start = 0
    for end in np.unique(np.append(ends, cost.size).clip(1, cost.size)).tolist():
        if end > start:
            yield start, sparse.csr_array(left[start:end] @ right)
            start = end


def _rows(start: int, block: csr_array) -> np.ndarray:
    return np.repeat(np.arange(start, start + block.shape[0], dtype=np.int64),
                     np.diff(block.indptr))


def meetings(sig: Signatures, chunk_pairs: int = _CHUNK_PAIRS) -> Iterator[Meetings]:
    """Every meeting pair of signatures, in row chunks of about ``chunk_pairs`` pairs."""
    base = _base(sig)
    for start, block in _coded_blocks(sig, chunk_pairs):
        codes = block.data.astype(np.int64)
        yield Meetings(_rows(start, block), block.indices.astype(np.int64), codes // base,
                       codes % base)


def _sum_by_code(codes: np.ndarray, weights: np.ndarray | None, exact_float: bool,
                 into: dict[int, int]) -> None:
    """Add the int64 ``weights`` (None: 1 each) of each code into ``into``, exactly."""
    if codes.size == 0:
        return
    span = int(codes.max()) + 1
    if span <= max(1 << 16, codes.size) and (weights is None or exact_float):
        # a dense count over the few codes; float sums are exact below 2**53
        sums = np.bincount(codes, None if weights is None else weights.astype(np.float64),
                           span).astype(np.int64)
        distinct = np.flatnonzero(sums)
        sums = sums[distinct]
    else:
        order = np.argsort(codes, kind="stable")
        codes = codes[order]
        starts = np.flatnonzero(np.r_[True, codes[1:] != codes[:-1]])
        distinct = codes[starts]
        sums = (np.diff(np.r_[starts, codes.size]) if weights is None
                else np.add.reduceat(weights[order], starts))
    for code, value in zip(distinct.tolist(), sums.tolist(), strict=True):
        into[code] = into.get(code, 0) + value


def pair_counts(cover: CoverPair, chunk_pairs: int = _CHUNK_PAIRS) -> PairCounts:
    """The number of item pairs at each (shared true, shared predicted) community count.

    Exact: int64 with no partial sum above N(N-1)/2, which :func:`signatures` checks fits
    (N up to 4,294,967,296; beyond, a ``ValueError``). Pairs of the same signature add
    C(w, 2) at (|T|, |P|); pairs of two meeting signatures add w_s w_s'; (0, 0) is the
    complement. O(sum over communities of (signatures in it)^2) time, never a loop over
    all pairs.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> from scipy.sparse import csr_array
    >>> t = csr_array([[1, 0], [1, 1], [0, 1]])  # items 0, 1 share A; 1, 2 share B
    >>> p = csr_array([[1], [1], [1]])           # one community of all three
    >>> c = pair_counts(SimpleNamespace(true=t, pred=p, n_items=3))
    >>> list(zip(c.shared_true.tolist(), c.shared_pred.tolist(), c.pairs.tolist()))  # (t, p, pairs)
    [(0, 1, 1), (1, 1, 2)]
    """
    sig = signatures(cover)
    n_pairs = sig.n_items * (sig.n_items - 1) // 2
    base, w = _base(sig), sig.weights
    exact_float = n_pairs < _EXACT_FLOAT
    into: dict[int, int] = {}
    same = w * (w - 1) // 2
    own = np.diff(sig.true.indptr) * base + np.diff(sig.pred.indptr)
    _sum_by_code(own[same > 0], same[same > 0], exact_float, into)
    unit = not w.size or int(w.max()) == 1
    for start, block in _coded_blocks(sig, chunk_pairs):
        rows, cols = _rows(start, block), block.indices
        upper = cols > rows
        _sum_by_code(block.data[upper], None if unit else
                     w[rows[upper]] * w[cols[upper]], exact_float, into)
    into[0] = n_pairs - sum(into.values())
    codes = np.array(sorted(k for k, v in into.items() if v), np.int64)
    return PairCounts(codes // base, codes % base,
                      np.array([into[int(k)] for k in codes], np.int64), n_pairs)
