"""Warm-started maximum-weight matching for bootstrap replicates, on the numba kernels of
:mod:`.kernels`; loaded only through :mod:`.compiled`, when the work
repays compiling or loading them.

A replicate keeps its table's cells and redraws their counts, so the optimal prices (column
duals) of the table's own matching problem are close to each replicate's. The
epsilon-scaling auction of :mod:`.kernels` starts every replicate from zero prices and
a large epsilon; started instead from the table's prices at epsilon = 1 it needs a tenth of
the bids (uniform noise, 10^5 x 10^5 labels, N = 10^6: 3.4e5 bids instead of 4.1e6). The
auction is correct from any starting prices (Bertsekas, "The auction algorithm: a
distributed relaxation method for the assignment problem", Ann. Oper. Res. 14, 1988), so
the result is exactly what the cold solver's is: integer benefits times (rows + 1) end
optimal at epsilon = 1, larger integers are finished by the exact phases in the symmetric
form, as :func:`.auction.auction_matching` does. A start far from a replicate's
prices wages a price war at epsilon = 1 (tied rows outbid each other, or reverse bids
lower a price, by 1 a bid): the bids are bounded (``_BID_SCANS``), and past it the scaled
auction from zero prices solves the replicate, which on its graded weights beats the cold
solver's phases (10^4 x 10^4 noise labels, N = 10^6: recall weights 0.16 s against 0.76 s,
counts 0.08 s against 0.33 s; counts of tied blocks 0.08 s against 0.13 s). Large integers
(rounded benefits, finished by the exact phases: recall weights of tied blocks, where the
phases win) go back to the cold solver.

Checked against the cold solver and scipy in tests/matching/test_matching_warm.py.
"""

from __future__ import annotations

import numpy as np

from ..compute.kernel_arrays import one_type
from . import auction, phases

__all__ = ["reference_prices", "warm_matching"]

# Scans of the problem the phases may spend on the table's own (float) problem for its prices.
_REFERENCE_SCANS = 64
# Cells the bids of a warm auction may scan (forward and reverse, one more per bid), per cell
# and row of the problem, before it gives the problem back (recall weights of a replicate:
# uniform noise with ~10 cells a row needs 3.5, entity resolution 1.4, relabelled chains 1.2;
# tied blocks and noise with ~60 cells a row start price wars that would need thousands)
_BID_SCANS = 8
# Where they do not finish, the auction finds prices to this relative precision instead.
_REFERENCE_PRECISION = float(1 << 40)


def _auction_from(indptr, idx, ben, nr, nc, cptr, crow, ccell, price, limit):
    """The last phase (epsilon = 1) of ``auction._auction`` from the given prices,
    and the cells its bids scanned, -1 where forward and reverse bids together would pass
    ``limit`` (a price war: many rows tied for few columns, which epsilon-scaling settles in
    large steps; reverse bids wage one too, lowering prices by 1 where the replicate's
    optimum lies far below). The cold auction's kernels, compiled once for both."""
    owner = np.full(nc, -1, np.int64)
    assigned = np.full(nr, -1, np.int64)
    gain = np.zeros(nr, np.int64)
    work = auction._bid_loop(indptr, idx, ben, nc, price, assigned, gain, owner,
                             np.arange(nr, dtype=np.int64), nr, 1, limit)
    if work < 0:
        return assigned, price, -1
    more = auction._reverse_loop(ben[ccell], nc, price, assigned, gain, owner, cptr, crow,
                                 np.empty(nc, np.int64), 1, limit - work)
    return assigned, price, -1 if more < 0 else work + more


def reference_prices(indptr, cols, weights, n_cols):
    """Optimal column prices (in units of the weights, >= 0) of the max-weight matching of
    the rows' cells, by the phases (:mod:`.phases`) on the float weights (a start only:
    rounding does not matter), or where they do not finish within their budget by the
    auction on the weights rounded to 2**-40 of the largest."""
    n_rows = indptr.shape[0] - 1
    indptr = one_type(indptr, np.int64)
    cols = one_type(cols, np.int64)
    weights = one_type(weights, np.float64)
    budget = _REFERENCE_SCANS * (int(indptr[-1]) + n_rows)
    u, v, row_match, col_match, free, nfree = phases._row_max_start(indptr, cols, weights,
                                                                    int(n_cols))
    _, ok = phases._phases(indptr, cols, -weights, n_rows, int(n_cols), budget, u, v,
                           row_match, col_match, free, nfree, 1)
    if ok:
        return np.maximum(-v[:int(n_cols)], 0.0)
    # graded weights: the auction on the weights rounded to 2**-40 of the largest
    scale = _REFERENCE_PRECISION / float(weights.max())
    ben = np.rint(weights * scale).astype(np.int64)
    cptr, crow, ccell = phases._column_lists(indptr, cols, n_rows, int(n_cols))
    _, price = auction._auction(indptr, cols, ben, n_rows, int(n_cols), cptr, crow, ccell)
    return price / scale


def warm_matching(indptr, cols, weights, n_cols, prices):
    """Row -> column of a maximum-weight matching (-1: unmatched), by the auction from
    ``prices`` (column prices in units of the weights) at epsilon = 1: exactly for
    integer-valued ``weights`` (below 2**50), up to rounding for other weights, as the cold
    solver. Where its bids pass ``_BID_SCANS`` scans of the problem, the scaled auction
    from zero prices solves it, except for integers too large for exact benefits, which
    give None (the caller solves cold), as where the finishing phases pass their budget."""
    n_rows = indptr.shape[0] - 1
    nc = int(n_cols)
    indptr = one_type(indptr, np.int64)
    cols = one_type(cols, np.int64)
    weights = np.asarray(weights, dtype=np.float64)
    ben, scale, rounded = auction.benefits(weights, n_rows)
    cptr, crow, ccell = phases._column_lists(indptr, cols, n_rows, nc)
    price = np.rint(np.minimum(prices, float(weights.max())) * scale).astype(np.int64)
    limit = _BID_SCANS * (int(indptr[-1]) + n_rows)
    assigned, price, work = _auction_from(indptr, cols, ben, n_rows, nc, cptr, crow, ccell,
                                          price, limit)
    if work < 0:
        if rounded:
            return None  # large integers: the cold solver's phases (tied blocks: faster)
        # small integers (counts) and floats: on a replicate's graded weights the cold
        # solver's phases lose their budget to the scaled auction (and cannot finish floats)
        assigned, price = auction._auction(indptr, cols, ben, n_rows, nc, cptr, crow, ccell)
    return auction.finish(indptr, cols, weights, nc, cptr, crow, assigned, price, scale, rounded)
