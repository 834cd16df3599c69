"""numba epsilon-scaling auction for the maximum-weight matching, where the phases of
:mod:`clustermetrics.matching.phases` would augment a path or two at a time; loaded only
through :mod:`clustermetrics.matching.compiled`. The kernels follow the phases' rules on
compile cost (the comment at the top of :mod:`clustermetrics.matching.phases`).

Checked against scipy's solvers and brute force in tests/test_matching_solvers.py.
"""

from __future__ import annotations

import numpy as np

from ..compute.jit import kernel
from ..compute.kernel_arrays import one_type
from .phases import _column_lists, _phases

# ------------------------------------------------------------ epsilon-scaling auction
# Few ties (PSI's weights, bootstrap replicates): the phases augment a path or two each.
# There the rows bid for columns in a forward auction with epsilon-scaling (Bertsekas, "The
# auction algorithm: a distributed relaxation method for the assignment problem", Ann.
# Oper. Res. 14, 1988; "Linear Network Optimization", MIT Press 1991, ch. 4): row i values
# column j at b_ij - p_j and its own private dummy at 0 (the row stays unmatched; the dummy's
# price stays 0, no one else wants it), bids for its best column, raising its price by
# (best - second best + epsilon); the outbid owner bids again. Epsilon starts at the largest
# benefit over ``_START``; between phases the prices are kept and epsilon divided by
# ``_ALPHA``; the last phase has epsilon = 1. (Starting at the largest benefit over 7 let
# the first bids raise prices far above what rows gain, sending them to their dummies and
# costing as many reverse bids as forward ones: 4 s instead of 0.4 s for PSI's weights on a
# uniform noise table of 10^4 x 10^4 labels, N = 10^6.) A column that
# ends a phase unassigned keeps a price a later phase may have left it, which LP duality
# forbids (an unmatched column's dual is 0): after the last phase such prices are set to 0
# and the rows that now prefer those columns by more than epsilon bid again (a column once
# bid for stays assigned, so the unassigned ones end at price 0). Then every row is within
# epsilon of its best choice at prices that are optimal duals up to epsilon per row: with
# integer benefits multiplied by (rows + 1) the matching is within rows * 1 < rows + 1 of
# the optimum, hence optimal.

_ALPHA = 7
_START = 100
_NO_BID = -(1 << 62)
_NO_LIMIT = int(np.iinfo(np.int64).max)  # the cold auction bids until it ends
# benefits (weights times rows + 1) stay below this: prices never pass the largest benefit
# plus the first epsilon, so int64 has room to spare
_AUCTION_MAX = float(1 << 60)


@kernel
def _bid_loop(indptr, idx, ben, nc, price, assigned, gain, owner, queue, count, eps, limit):
    """Forward auction until the queue (``count`` rows from its head, circular) is empty;
    ``assigned[i]`` = column (``gain[i]`` its benefit minus its price: the row's profit,
    fixed until the row is outbid), ``nc`` for the dummy (profit 0). Returns the cells its
    bids scanned (one more per bid), or -1 where they would pass ``limit`` (a warm start's
    price war: the caller solves cold)."""
    nr = queue.shape[0]
    head = 0
    bids = 0
    while count > 0:
        if bids >= limit:
            return -1
        i = queue[head]
        head += 1
        if head == nr:
            head = 0
        count -= 1
        best = 0  # the dummy
        second = _NO_BID
        bj = -1
        bb = 0
        for e in range(indptr[i], indptr[i + 1]):
            j = idx[e]
            val = ben[e] - price[j]
            if val > best:
                second = best
                best = val
                bj = j
                bb = ben[e]
            elif val > second:
                second = val
        bids += indptr[i + 1] - indptr[i] + 1
        if bj < 0:
            assigned[i] = nc
            gain[i] = 0
            continue
        price[bj] += best - second + eps
        old = owner[bj]
        owner[bj] = i
        assigned[i] = bj
        gain[i] = bb - price[bj]
        if old >= 0:
            assigned[old] = -1
            tail = head + count
            if tail >= nr:
                tail -= nr
            queue[tail] = old
            count += 1
    return bids


def _auction(indptr, idx, ben, nr, nc, cptr, crow, ccell):
    """(assigned, prices): assigned[i] the column of row i or ``nc`` (unmatched)."""
    price = np.zeros(nc, np.int64)
    owner = np.empty(nc, np.int64)
    assigned = np.empty(nr, np.int64)
    queue = np.empty(nr, np.int64)
    stack = np.empty(nc, np.int64)
    gain = np.zeros(nr, np.int64)
    cben = ben[ccell]  # the benefits in column order, for the reverse bids
    eps = max(1, int(ben.max(initial=1)) // _START)
    while True:
        owner[:] = -1
        assigned[:] = -1
        queue[:] = np.arange(nr)
        _bid_loop(indptr, idx, ben, nc, price, assigned, gain, owner, queue, nr, eps,
                  _NO_LIMIT)
        _reverse_loop(cben, nc, price, assigned, gain, owner, cptr, crow, stack, eps,
                      _NO_LIMIT)
        if eps == 1:
            return assigned, price
        eps = max(1, eps // _ALPHA)


@kernel
def _reverse_loop(cben, nc, price, assigned, gain, owner, cptr, crow, stack, eps, limit):
    """Reverse auction for the unassigned columns with a price above 0 (Bertsekas,
    Castanon & Tsaknakis, "Reverse auction and the solution of inequality constrained
    assignment problems", SIAM J. Optim. 3, 1993): the column takes the row that gains most
    at a price ``eps`` below the second best offer (at least 0), the row's old column
    becomes unassigned in turn; a column no row wants by more than ``eps`` goes to price 0.
    Rows keep their epsilon-complementary slackness, each bid raises a row's profit by at
    least ``eps``; at the end every unassigned column has price 0. Returns the cells its
    bids scanned (one more per bid), or -1 where they would pass ``limit`` (as
    ``_bid_loop``)."""
    top = 0
    for j in range(nc):
        if owner[j] < 0 and price[j] > 0:
            stack[top] = j
            top += 1
    bids = 0
    while top > 0:
        if bids >= limit:
            return -1
        top -= 1
        j = stack[top]
        bids += cptr[j + 1] - cptr[j] + 1
        b1 = _NO_BID
        b2 = _NO_BID
        best_i = -1
        bb = 0
        for t in range(cptr[j], cptr[j + 1]):
            i = crow[t]
            val = cben[t] - gain[i]
            if val > b1:
                b2 = b1
                b1 = val
                best_i = i
                bb = cben[t]
            elif val > b2:
                b2 = val
        if b1 <= eps:
            price[j] = 0
            continue
        price[j] = b2 - eps if b2 > eps else 0
        a = assigned[best_i]
        owner[j] = best_i
        assigned[best_i] = j
        gain[best_i] = bb - price[j]
        if a < nc:
            owner[a] = -1
            if price[a] > 0:
                stack[top] = a
                top += 1
    return bids


def _doubled_state(assigned, price, scale, nr, nc):
    """The auction's matching and prices as a state of the symmetric problem (``_doubled``):
    unmatched rows on their dummies, unmatched columns on theirs, the dummy of a matched
    column on the dummy of its row; object potentials -price / scale rounded to integers
    (row dummies 0)."""
    npers = nr + nc
    match = np.empty(npers, np.int64)
    owner = np.empty(npers, np.int64)
    match[nr:] = np.arange(nc)
    owner[:nc] = nr + np.arange(nc)
    alone = np.flatnonzero(assigned >= nc)
    match[alone] = nc + alone
    owner[nc + alone] = alone
    paired = np.flatnonzero(assigned < nc)
    to = assigned[paired]
    match[paired] = to
    owner[to] = paired
    match[nr + to] = nc + paired
    owner[nc + paired] = nr + to
    v = np.zeros(npers)
    # integer potentials: the weights are integers, and equal weights then compare equal
    # (fractional prices would leave most rows with a tie that is not tight)
    v[:nc] = -np.floor(price[:nc] / scale + 0.5)
    return np.zeros(npers), v, match, owner


def auction_matching(indptr, cols, weights, n_cols):
    """Row -> column of a maximum-weight matching (-1: unmatched) by the epsilon-scaling
    auction (see above), or None.

    Integer weights with weight * (rows + 1) <= 2**60: benefits weight * (rows + 1), the
    optimum exactly. Larger integer weights: the auction runs on them rounded to 2**-60 of
    the largest, and the phases finish on the exact integers from its prices, in the
    symmetric form (None if they pass their budget). Other weights: benefits
    round(weight * 2**60 / max weight); the matching is optimal for those, so within
    (rows + rows / 2) * max weight * 2**-60 of the optimum, below the rounding of a float64
    sum of the weights.
    """
    n_rows = indptr.shape[0] - 1
    nc = int(n_cols)
    indptr = one_type(indptr, np.int64)
    cols = one_type(cols, np.int64)
    weights = np.asarray(weights, dtype=np.float64)
    ben, scale, rounded = benefits(weights, n_rows)
    cptr, crow, ccell = _column_lists(indptr, cols, n_rows, nc)
    assigned, price = _auction(indptr, cols, ben, n_rows, nc, cptr, crow, ccell)
    return finish(indptr, cols, weights, nc, cptr, crow, assigned, price, scale, rounded)


def benefits(weights, n_rows):
    """(integer benefits of the auction, their scale to the weights, whether they are
    rounded integers the phases must finish): integer weights with weight * (rows + 1) <=
    2**60 are exact at epsilon = 1 times (rows + 1); other weights are rounded to 2**-60 of
    the largest."""
    top = float(weights.max())
    integral = bool(np.all(weights == np.floor(weights)))
    if integral and top * (n_rows + 1) <= _AUCTION_MAX:
        return weights.astype(np.int64) * (n_rows + 1), float(n_rows + 1), False
    scale = _AUCTION_MAX / top
    return np.rint(weights * scale).astype(np.int64), scale, integral


def finish(indptr, cols, weights, nc, cptr, crow, assigned, price, scale, rounded):
    """Row -> column (-1: unmatched) from the auction's end state: as it is, or for
    ``rounded`` integer weights after the exact phases from its prices, in the symmetric
    form (None where they pass their budget). Float weights are left at the auction's
    rounded optimum: phases on float costs would chase rounding, not weight."""
    n_rows = indptr.shape[0] - 1
    if rounded:
        pptr, pobj, where = _doubled(indptr, cols, n_rows, nc, cptr, crow)
        cost = np.zeros(pobj.shape[0])
        cost[where] = -weights
        npers = n_rows + nc
        u, v, match, owner = _doubled_state(assigned, price, scale, n_rows, nc)
        free = np.empty(npers, np.int64)
        nfree = _refine(pptr, pobj, cost, npers, u, v, match, owner, free)
        if nfree:
            budget = _BUDGET_SCANS * (pobj.shape[0] + npers)
            match, ok = _phases(pptr, pobj, cost, npers, npers, budget, u, v, match, owner,
                                free, nfree, 0)
            if not ok:
                return None
        assigned = match[:n_rows]
    return np.where(assigned < nc, assigned, -1)


# ---------------------------------------------- the phases' finish on rounded weights
# The phases that finish the auction on rounded integers get ``_BUDGET_SCANS`` scans of
# the symmetric problem before the caller falls back to scipy.
_BUDGET_SCANS = 32


def _doubled(indptr, idx, nr, nc, cptr, crow):
    """The symmetric form: persons are the rows (i < nr) and one dummy per column
    (nr + j), objects the columns (j < nc) and one dummy per row (nc + i). Row i reaches its
    cells' columns and its dummy; column j's dummy reaches j and the dummies of column j's
    rows (all at cost 0). Returns (pptr, pobj, cell position of each row's arcs)."""
    nnz = int(indptr[nr])
    rows, cols = np.arange(nr, dtype=np.int64), np.arange(nc, dtype=np.int64)
    pptr = np.zeros(nr + nc + 1, np.int64)
    np.cumsum(np.concatenate([np.diff(indptr[:nr + 1]), np.diff(cptr[:nc + 1])]) + 1,
              out=pptr[1:])
    pobj = np.empty(pptr[-1], np.int64)
    where = np.arange(nnz, dtype=np.int64) + np.repeat(rows, np.diff(indptr[:nr + 1]))
    pobj[where] = idx[:nnz]
    pobj[pptr[1:nr + 1] - 1] = nc + rows  # after its cells, each row's dummy
    starts = pptr[nr:nr + nc]
    pobj[starts] = cols  # each column's dummy person reaches the column first
    of_column = np.repeat(cols, np.diff(cptr[:nc + 1]))
    pobj[starts[of_column] + 1 + np.arange(nnz) - cptr[of_column]] = nc + crow[:nnz]
    return pptr, pobj, where


def _refine(pptr, pobj, cost, npers, u, v, row_match, col_match, free):
    """Make the state feasible for ``_phases`` under new costs, keeping ``v``: each
    person's u its least c - v, the persons whose matched arc is then not tight freed
    (every person has an arc). Returns nfree."""
    reduced = cost - v[pobj]
    u[:npers] = np.minimum.reduceat(reduced, pptr[:npers])
    person = np.repeat(np.arange(npers, dtype=np.int64), np.diff(pptr[:npers + 1]))
    on_match = pobj == row_match[person]
    mine = np.full(npers, np.inf)
    mine[person[on_match]] = reduced[on_match]
    loose = (row_match[:npers] >= 0) & (mine != u[:npers])
    col_match[row_match[:npers][loose]] = -1
    row_match[:npers][loose] = -1
    freed = np.flatnonzero(row_match[:npers] < 0)
    free[:freed.shape[0]] = freed
    return freed.shape[0]
