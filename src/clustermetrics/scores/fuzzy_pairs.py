"""Sums over item pairs of soft memberships, without an N x N matrix.

The pair-based fuzzy scores (``scores/fuzzy.py``) are sums over the C(N, 2) item pairs of
non-linear functions of two items' membership rows (an absolute difference of L1
distances, a maximum of t-norms), which do not factor through K1 x K2 sums. Two exact
reductions keep them near linear where the data allow:

- items with the same pair of rows (crisp items, most items of a near-crisp clustering)
  collapse into one weighted row: a sum over item pairs is a weighted sum over the D
  distinct rows, computed in blocks of rows against all D (memory O(block x D x K));
- a sum of absolute differences over pairs of one column, Sum_{i<j} |x_i - x_j|, is a
  sort and one pass (:func:`sum_abs_differences`), which makes Hullermeier et al.'s index
  O(N K log N) when one side is crisp, or when both have two clusters.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from ..compute.progress import progress_bar

__all__ = ["distinct_rows", "grouped_sum_abs_differences", "pair_sums",
           "sum_abs_differences", "top_two", "weighted_pair_values",
           "sum_abs_cross_differences"]

# elements of one block's (rows x D x K) work arrays: ~32 MiB of float64
_BLOCK_ELEMENTS = 1 << 22
# distinct-row pairs above which a pair sum shows progress (when stderr is a terminal)
_PROGRESS_PAIRS = 10**8

PairTerms = Callable[[slice], Sequence[np.ndarray]]


def distinct_rows(u: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct rows of [u | v] split back into (u_rows, v_rows) and each one's number
    of items (int64): every pair sum is the same over these weighted rows."""
    joint = np.unique(np.hstack([u, v]), axis=0, return_counts=True)
    rows, counts = joint
    return (np.ascontiguousarray(rows[:, :u.shape[1]]),
            np.ascontiguousarray(rows[:, u.shape[1]:]), counts.astype(np.int64))


def pair_sums(terms: PairTerms, weights: np.ndarray, width: int, what: str) -> list[float]:
    """Sum_{i<j} f(i, j) over the items, for each function f that ``terms`` evaluates.

    ``terms(block)`` gives, for the distinct rows in ``block`` against all D rows, one
    (rows x D) array per function (each symmetric: f(g, h) = f(h, g)); ``weights`` are the
    rows' numbers of items. An item pair of rows g != h counts w_g w_h times, a pair
    within row g C(w_g, 2) times, so the sum is (Sum_{g,h} w_g w_h f(g, h) -
    Sum_g w_g f(g, g)) / 2. ``width`` (columns per row) sizes the blocks.
    """
    d = len(weights)
    w = weights.astype(np.float64)
    step = max(1, _BLOCK_ELEMENTS // max(1, d * width))
    starts = range(0, d, step)
    bar = progress_bar(len(starts), what, None if d * d > _PROGRESS_PAIRS else False)
    totals: list[list[float]] = []
    try:
        for start in starts:
            block = slice(start, min(start + step, d))
            rows = np.arange(block.start, block.stop)
            parts = []
            for f in terms(block):
                full = float(w[block] @ (f @ w))
                own = float(w[block] @ f[rows - block.start, rows])
                parts.append((full - own) / 2)
            totals.append(parts)
            bar.update(1)
    finally:
        bar.close()
    return [math.fsum(column) for column in zip(*totals, strict=True)]


def top_two(u: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each row's largest value, its column (the first of ties) and the largest value of
    the other columns (0 with one column)."""
    first = np.argmax(u, axis=1)
    m1 = u[np.arange(len(u)), first]
    if u.shape[1] == 1:
        return m1, first, np.zeros_like(m1)
    m2 = -np.partition(-u, 1, axis=1)[:, 1]
    return m1, first, m2


def sum_abs_differences(x: np.ndarray) -> float:
    """Sum_{i<j} |x_i - x_j| in O(N log N): after sorting, the gap between the r-th and
    (r+1)-th values lies between (r+1)(N-r-1) pairs; every term is non-negative, so the
    float sum has no cancellation."""
    s = np.sort(x)
    n = len(s)
    r = np.arange(1, n, dtype=np.float64)
    return float(np.diff(s) @ (r * (n - r)))


def grouped_sum_abs_differences(codes: np.ndarray, x: np.ndarray) -> float:
    """Sum over groups (``codes``) of Sum_{i<j in the group} |x_i - x_j|, by one sort."""
    order = np.lexsort((x, codes))
    c, s = codes[order], x[order]
    starts = np.flatnonzero(np.r_[True, c[1:] != c[:-1]])
    sizes = np.diff(np.r_[starts, len(c)])
    rank = np.arange(len(c)) - np.repeat(starts, sizes)  # position within its group
    size = np.repeat(sizes, sizes)
    inside = c[1:] == c[:-1]  # gaps within a group
    r = (rank[:-1] + 1).astype(np.float64)
    return float((np.diff(s) * inside) @ (r * (size[:-1] - r)))


def weighted_pair_values(rows: np.ndarray, weights: np.ndarray,
                         value: Callable[[np.ndarray, np.ndarray], np.ndarray],
                         ) -> tuple[np.ndarray, np.ndarray]:
    """The values of ``value`` over the item pairs of one membership, as (values,
    multiplicities) over its distinct-row pairs g <= h: w_g w_h pairs for g < h, C(w_g, 2)
    for g = h. Memory O(D^2) for D distinct rows."""
    d = len(rows)
    w = weights.astype(np.float64)
    g, h = np.triu_indices(d)
    step = 1 << 16
    values = np.concatenate([value(rows[g[i:i + step]], rows[h[i:i + step]])
                             for i in range(0, len(g), step)]) if len(g) else np.empty(0)
    counts = np.where(g == h, w[g] * (w[g] - 1) / 2, w[g] * w[h])
    keep = counts > 0
    return values[keep], counts[keep]


def sum_abs_cross_differences(a: np.ndarray, wa: np.ndarray, b: np.ndarray,
                              wb: np.ndarray) -> float:
    """Sum_p Sum_q wa_p wb_q |a_p - b_q| in O((P + Q) log(P + Q)): for each b_q, the a
    values below it and those above it are a prefix and a suffix of the sorted a."""
    order = np.argsort(a, kind="stable")
    a, wa = a[order], wa[order]
    cw = np.r_[0.0, np.cumsum(wa)]
    cs = np.r_[0.0, np.cumsum(wa * a)]
    at = np.searchsorted(a, b, side="left")
    below = b * cw[at] - cs[at]
    above = (cs[-1] - cs[at]) - b * (cw[-1] - cw[at])
    return math.fsum(wb * (below + above))
