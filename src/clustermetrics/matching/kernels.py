"""numba sparse maximum-weight matching of :mod:`.metrics._assignment`; loaded only through
:mod:`clustermetrics.compute.dispatch`, when the work repays compiling or loading it.

The solver's result is checked against scipy's and brute force in
tests/matching/test_matching_solvers.py.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..compute.jit import kernel
from ..compute.kernel_arrays import one_type
from .karp_sipser import karp_sipser

# --------------------------------------------------------------------------- matching
# Maximum-weight bipartite matching by successive shortest paths in phases (see
# clustermetrics.matching.assignment for the formulation). Rows are matched to a real
# column or to their own dummy column ``nc + i`` (cost 0: the row stays unmatched);
# costs are -weight, potentials keep every reduced cost c_ij - u_i - v_j >= 0 and matched
# cells tight, free columns keep v = 0, so the row-perfect matching found last is optimal
# (LP duality). Reduced costs are clamped at 0: float rounding of the potentials is the
# only inexactness, and with integer-valued weights below 2**52 there is none.
#
# One compiled version per function: an integer constant handed to another compiled
# function, or a counter that starts at one and is then handed over, types that argument
# as a literal while numba infers the caller, and the callee is compiled once more for it
# (about a second each on a fresh install). Such values are np.int64(...) here; the
# Python entry points cast their arrays to the one dtype and layout the kernels take.
#
# numba's compile time grows with the code it types, lowers and hands to LLVM, and a
# compiled function called by another is optimised and turned into machine code once on
# its own and once more in every caller it is linked into. So the kernels allocate and
# fill nothing (each np.empty or slice fill is milliseconds of compiling, each dtype of
# np.empty one more function): their Python callers allocate with numpy. The least or
# largest of two numbers is a comparison (numba compiles its min and max once more for
# every pair of argument types). And a loop that
# runs a few times around large kernels (the phases of the auction; Karp-Sipser, then
# Hopcroft-Karp) is Python calling each kernel, compiled once, rather than a kernel
# linking them all.


@kernel(inner=True)
def _heap_push(keys, nodes, size, key, node):
    i = size
    keys[i] = key
    nodes[i] = node
    while i > 0:
        parent = (i - 1) >> 1
        if keys[parent] <= keys[i]:
            break
        keys[parent], keys[i] = keys[i], keys[parent]
        nodes[parent], nodes[i] = nodes[i], nodes[parent]
        i = parent
    return size + 1


@kernel(inner=True)
def _heap_pop(keys, nodes, size):
    key = keys[0]
    node = nodes[0]
    size -= 1
    keys[0] = keys[size]
    nodes[0] = nodes[size]
    i = 0
    while True:
        child = 2 * i + 1
        if child >= size:
            break
        if child + 1 < size and keys[child + 1] < keys[child]:
            child += 1
        if keys[i] <= keys[child]:
            break
        keys[child], keys[i] = keys[i], keys[child]
        nodes[child], nodes[i] = nodes[i], nodes[child]
        i = child
    return key, node, size


@kernel(inner=True)
def _reduced(p, end, i, idx, cost, u, v, nc):
    """(column, reduced cost >= 0) of the p-th cell of row i; p == end is its dummy."""
    if p < end:
        j = idx[p]
        r = cost[p] - u[i] - v[j]
    else:
        j = nc + i
        r = -u[i] - v[j]
    return j, r if r > 0.0 else 0.0


@kernel
def _tight_augment(indptr, idx, cost, u, v, nc, free, nfree, row_match, col_match, dist,
                   drow, level, touched, nt, rlayer, clayer, queue, stack_row, stack_ptr,
                   extra):
    """Hopcroft-Karp on the cells tight at ``level`` (drow[i] + r_ij == dist[j] <= level):
    augment until no such path is left. Returns the number of rows still free (in
    ``free[:n]``) and the number of cells the searches looked at."""
    scanned = 0
    while True:
        qh = 0
        qt = 0
        for f in range(nfree):
            i = free[f]
            rlayer[i] = 0
            queue[qt] = i
            qt += 1
        found_layer = 1 << 62
        while qh < qt:
            i = queue[qh]
            qh += 1
            depth = rlayer[i]
            if depth > found_layer:
                break
            end = indptr[i + 1]
            di = drow[i]
            scanned += end + extra - indptr[i]
            for p in range(indptr[i], end + extra):
                j, r = _reduced(p, end, i, idx, cost, u, v, nc)
                dj = dist[j]
                if dj > level or di + r != dj or clayer[j] >= 0:
                    continue
                clayer[j] = depth
                i2 = col_match[j]
                if i2 < 0:
                    if depth < found_layer:
                        found_layer = depth
                elif rlayer[i2] < 0:
                    rlayer[i2] = depth + 1
                    queue[qt] = i2
                    qt += 1
        augmented = 0
        still = 0
        if found_layer < (1 << 62):
            for f in range(nfree):
                root = free[f]
                top = 0
                stack_row[0] = root
                stack_ptr[0] = indptr[root]
                found = -1
                while top >= 0:
                    i = stack_row[top]
                    end = indptr[i + 1]
                    depth = rlayer[i]
                    di = drow[i]
                    advanced = False
                    p = stack_ptr[top]
                    while p < end + extra:
                        j, r = _reduced(p, end, i, idx, cost, u, v, nc)
                        p += 1
                        dj = dist[j]
                        if dj > level or di + r != dj or clayer[j] != depth:
                            continue
                        clayer[j] = -2
                        i2 = col_match[j]
                        if i2 < 0:
                            found = j
                            break
                        if rlayer[i2] == depth + 1 and depth < found_layer:
                            stack_ptr[top] = p
                            top += 1
                            stack_row[top] = i2
                            stack_ptr[top] = indptr[i2]
                            advanced = True
                            break
                    if found >= 0:
                        break
                    if not advanced:
                        rlayer[i] = -3
                        top -= 1
                if found >= 0:
                    j = found
                    for t in range(top, -1, -1):
                        i = stack_row[t]
                        previous = row_match[i]
                        row_match[i] = j
                        col_match[j] = i
                        j = previous
                    augmented += 1
                else:
                    free[still] = root
                    still += 1
        else:
            still = nfree
        for q in range(qt):
            rlayer[queue[q]] = -1
        for q in range(nt):
            clayer[touched[q]] = -1
        nfree = still
        if augmented == 0 or nfree == 0:
            return nfree, scanned


def _matching_phases(indptr, idx, cost, nr, nc, budget):
    """The phases from scratch: every row free, u its least cost, v = 0."""
    row_min = np.zeros(nr)
    full = indptr[1:] > indptr[:-1]
    row_min[full] = np.minimum.reduceat(cost[:indptr[nr]], indptr[:-1][full])
    return _phases(indptr, idx, cost, nr, nc, budget, np.minimum(row_min, 0.0),
                   np.zeros(nc + nr), np.full(nr, -1, np.int64),
                   np.full(nc + nr, -1, np.int64), np.arange(nr, dtype=np.int64), nr, 1)


class PhaseWork(NamedTuple):
    """The work arrays of :func:`_phase_loop`, allocated by numpy (see above)."""

    dist: np.ndarray  # per column: its distance in the search (inf: not reached)
    drow: np.ndarray  # per row: the same
    popped: np.ndarray  # per column: its distance is final
    touched: np.ndarray  # the columns the search reached
    rtouched: np.ndarray  # the rows it reached
    heap_keys: np.ndarray
    heap_nodes: np.ndarray
    pred: np.ndarray  # per column: the row it was reached from
    tree: np.ndarray  # per row: the root of its search tree
    used: np.ndarray  # per root: its tree has found a free column
    sinks: np.ndarray  # those free columns
    rlayer: np.ndarray  # Hopcroft-Karp's layers of rows and columns (-1: none)
    clayer: np.ndarray
    queue: np.ndarray
    stack_row: np.ndarray
    stack_ptr: np.ndarray

    @classmethod
    def of(cls, nr: int, ncol: int, cells: int) -> PhaseWork:
        """For ``nr`` rows, ``ncol`` columns and a heap of ``cells`` entries."""
        def ints(n: int) -> np.ndarray:
            return np.empty(n, np.int64)

        def unset(n: int) -> np.ndarray:
            return np.full(n, -1, np.int64)

        return cls(dist=np.full(ncol, np.inf), drow=np.full(nr, np.inf),
                   popped=np.zeros(ncol, np.bool_), touched=ints(ncol), rtouched=ints(nr),
                   heap_keys=np.empty(cells), heap_nodes=ints(cells), pred=unset(ncol),
                   tree=unset(nr), used=np.zeros(nr, np.bool_), sinks=ints(nr),
                   rlayer=unset(nr), clayer=unset(ncol), queue=ints(nr),
                   stack_row=ints(nr + 1), stack_ptr=ints(nr + 1))


def _phases(indptr, idx, cost, nr, nc, budget, u, v, row_match, col_match, free, nfree,
            extra):
    """The phases from a feasible start: reduced costs >= 0, matched cells tight, v <= 0
    and v = 0 on free columns; ``free[:nfree]`` the unmatched rows. ``extra`` 1: row i
    has a dummy column nc + i at cost 0 besides its cells; 0: none (v.shape[0] columns,
    a perfect matching exists, v unconstrained). Returns (row_match, whether they
    finished within ``budget`` cells scanned)."""
    work = PhaseWork.of(nr, v.shape[0], int(indptr[nr]) + nr + 1)
    return _phase_loop(indptr, idx, cost, nr, nc, budget, u, v, row_match, col_match, free,
                       nfree, extra, work)


@kernel
def _phase_loop(indptr, idx, cost, nr, nc, budget, u, v, row_match, col_match, free, nfree,
                extra, arrays):
    """:func:`_phases` with its work arrays (a :class:`PhaseWork`)."""
    (dist, drow, popped, touched, rtouched, heap_keys, heap_nodes, pred, tree, used, sinks,
     rlayer, clayer, queue, stack_row, stack_ptr) = arrays
    work = 0
    scan = indptr[nr] + nr
    mark_work = 0
    mark_free = nfree
    seeds = nfree
    while nfree > 0:
        # Dijkstra from the last ``seeds`` free rows at once (``roots``: their view of
        # ``free``), over reduced costs. It stops at the first free column of a tree that
        # has one already: the distance ``level`` up to which potentials change
        base = nfree - seeds if seeds < nfree else 0
        roots = free[base:nfree]
        nroots = nfree - base
        size = np.int64(0)
        nt = np.int64(0)
        nrt = 0
        for f in range(nroots):
            i = roots[f]
            drow[i] = 0.0
            tree[i] = i
            rtouched[nrt] = i
            nrt += 1
            end = indptr[i + 1]
            work += end + extra - indptr[i]
            for p in range(indptr[i], end + extra):
                j, r = _reduced(p, end, i, idx, cost, u, v, nc)
                if r < dist[j]:
                    if dist[j] == np.inf:
                        touched[nt] = j
                        nt += 1
                    dist[j] = r
                    pred[j] = i
                    size = _heap_push(heap_keys, heap_nodes, size, r, j)
        first = np.inf  # distance of the nearest free column
        level = np.inf  # where the search stops: a free column whose tree is taken
        nsink = 0
        while size > 0:
            key, j, size = _heap_pop(heap_keys, heap_nodes, size)
            if popped[j] or key > dist[j]:
                continue
            if key > level:
                break
            popped[j] = True
            i2 = col_match[j]
            if i2 < 0:
                if key < first:
                    first = key
                if level == np.inf:
                    root = tree[pred[j]]
                    if used[root]:
                        # stop here: the columns left at this distance can only serve
                        # the trees that are taken
                        level = key
                        break
                    else:
                        used[root] = True
                        sinks[nsink] = j
                        nsink += 1
                continue
            drow[i2] = key
            tree[i2] = tree[pred[j]]
            rtouched[nrt] = i2
            nrt += 1
            end = indptr[i2 + 1]
            for p in range(indptr[i2], end + extra):
                jj, r = _reduced(p, end, i2, idx, cost, u, v, nc)
                if popped[jj]:
                    continue
                nd = key + r
                if nd < dist[jj]:
                    if dist[jj] == np.inf:
                        touched[nt] = jj
                        nt += 1
                    dist[jj] = nd
                    pred[jj] = i2
                    size = _heap_push(heap_keys, heap_nodes, size, nd, jj)
            work += end + extra - indptr[i2]
        if level == np.inf:  # every tree found its own free column
            level = dist[sinks[nsink - 1]]
        if level == first:
            # ties at the nearest distance (degenerate tables): a maximum matching of
            # the cells tight at that level augments all of them at once
            still, scanned = _tight_augment(indptr, idx, cost, u, v, nc, roots, nroots,
                                            row_match, col_match, dist, drow, level, touched,
                                            nt, rlayer, clayer, queue, stack_row, stack_ptr,
                                            extra)
            work += scanned
        else:
            # one shortest path per search tree, nearest first: the trees are disjoint,
            # and every free column nearer than ``level`` is now matched
            for s in range(nsink):
                j = sinks[s]
                while True:
                    i = pred[j]
                    previous = row_match[i]
                    row_match[i] = j
                    col_match[j] = i
                    if previous < 0:
                        break
                    j = previous
            still = 0
            for f in range(nroots):
                if row_match[roots[f]] < 0:
                    roots[still] = roots[f]
                    still += 1
        for q in range(nt):
            j = touched[q]
            if popped[j] and dist[j] < level:
                v[j] -= level - dist[j]
            dist[j] = np.inf
            popped[j] = False
        for q in range(nrt):
            i = rtouched[q]
            if drow[i] < level:
                u[i] += level - drow[i]
            drow[i] = np.inf
            used[i] = False
        if still == nroots:  # no progress: cannot happen in exact arithmetic
            return row_match, False
        nfree = base + still
        # Seed the next search with twice as many free rows as this one augmented: one
        # search from all of them pays where ties let it augment many at once, one from a
        # few where distinct distances let it augment only the nearest (each search starts
        # by scanning the cells of its roots)
        seeds = 2 * (nroots - still)
        if work > budget:
            return row_match, False
        if work - mark_work >= scan:
            # few ties: phases of a path or two each. Give up as soon as the last scan's
            # pace would need more than the budget left for the rows still free.
            if float(mark_free - nfree) * float(budget - work) < \
                    float(nfree) * float(work - mark_work):
                return row_match, False
            mark_work = work
            mark_free = nfree
    return row_match, True


# Cells scanned by the phases (Dijkstra and Hopcroft-Karp searches together), per cell and
# row of the problem, before they hand over to the auction. They start from a maximum
# matching of the cells largest in their row (``_row_max_start``). Tables with many ties
# (noise counts, recall weights n_ij / a_i: equal along a row, different between rows)
# finish in 1-20 scans (10^6 cells, 10^3-10^5 classes); with graded weights (PSI's, where
# the clusters' sizes order each row) a search finds a free column only after most of the
# problem, so the phases stop once the last scan's pace would not finish within the budget
# (one or two scans there), and the auction does better. The phases that finish the auction on
# rounded integers get ``_BUDGET_SCANS`` before the caller falls back to scipy.
_PHASE_SCANS = 32
_BUDGET_SCANS = 32


def max_weight_matching(indptr, cols, weights, n_cols):
    """Row -> column of a maximum-weight matching (-1: unmatched) of the bipartite graph
    whose row i holds the cells ``cols[indptr[i]:indptr[i+1]]`` with positive
    ``weights``: the phases from ``_row_max_start`` while they make progress
    (``_PHASE_SCANS``), else the
    epsilon-scaling auction (:func:`auction_matching`); None if float rounding stalled the
    search or the auction's finishing phases went past their budget (the caller then uses
    scipy).
    """
    n_rows = indptr.shape[0] - 1
    # writable C arrays only: a table's cached cells are read-only (see one_type)
    indptr = one_type(indptr, np.int64)
    cols = one_type(cols, np.int64)
    weights = one_type(weights, np.float64)
    budget = _PHASE_SCANS * (int(indptr[-1]) + n_rows)
    u, v, row_match, col_match, free, nfree = _row_max_start(indptr, cols, weights, int(n_cols))
    match, ok = _phases(indptr, cols, -weights, n_rows, int(n_cols), budget, u, v, row_match,
                        col_match, free, nfree, 1)
    if not ok:
        return auction_matching(indptr, cols, weights, n_cols)
    return np.where(match < n_cols, match, -1)


def _row_max_start(indptr, cols, weights, n_cols):
    """A feasible start for ``_phases`` (costs -weights, one dummy column per row): a
    maximum matching of the cells largest in their row (:func:`maximum_matching`),
    u_i = -(largest weight of row i), v = 0.

    It is what the first phase from scratch computes (every row at distance 0, the cells
    tight at level 0), without a heap of every cell."""
    n_rows = indptr.shape[0] - 1
    sizes = np.diff(indptr)
    full = sizes > 0
    row_max = np.zeros(n_rows)
    row_max[full] = np.maximum.reduceat(weights, indptr[:-1][full])
    tight = weights == np.repeat(row_max, sizes)
    ends = np.zeros(indptr[-1] + 1, np.int64)
    np.cumsum(tight, out=ends[1:])
    row_match, found, free = maximum_matching(ends[indptr], cols[tight], n_rows, n_cols)
    col_match = np.full(n_cols + n_rows, -1, np.int64)
    col_match[:n_cols] = found
    return -row_max, np.zeros(n_cols + n_rows), row_match, col_match, free, free.shape[0]


def maximum_matching(indptr, idx, nr, nc):
    """A maximum-cardinality matching of the bipartite graph whose row i holds the columns
    ``idx[indptr[i]:indptr[i+1]]`` (no column twice in a row): the Karp-Sipser start
    (:func:`clustermetrics.matching.karp_sipser.karp_sipser`, linear time; it settles paths,
    trees and cycles) finished by Hopcroft-Karp (``_tight_augment`` with every cell
    tight). Returns (row_match, col_match, the free rows), -1 where unmatched."""
    cptr, crow, _ = _column_lists(indptr, idx, nr, nc)
    row_match, col_match = karp_sipser(indptr, idx, nr, nc, cptr, crow)
    free = np.flatnonzero((row_match < 0) & (indptr[1:nr + 1] > indptr[:nr]))
    if free.shape[0] > 0:
        # zero costs, potentials and distances (read only): every cell is tight at level 0
        zero = np.zeros(max(int(indptr[nr]), nr, nc))
        _tight_augment(indptr, idx, zero[:indptr[nr]], zero[:nr], zero[:nc], nc, free,
                       free.shape[0], row_match, col_match, zero[:nc], zero[:nr], 0.0,
                       np.arange(nc, dtype=np.int64), nc, np.full(nr, -1, np.int64),
                       np.full(nc, -1, np.int64), np.empty(nr, np.int64),
                       np.empty(nr + 1, np.int64), np.empty(nr + 1, np.int64), 0)
    return row_match, col_match, np.flatnonzero(row_match < 0)


def max_cardinality(indptr, cols, n_cols):
    """Row -> column of a maximum-cardinality matching (-1: unmatched) of the bipartite
    graph whose row i holds the columns ``cols[indptr[i]:indptr[i+1]]``."""
    indptr = one_type(indptr, np.int64)
    cols = one_type(cols, np.int64)
    return maximum_matching(indptr, cols, indptr.shape[0] - 1, int(n_cols))[0]


def _column_lists(indptr, idx, nr, nc):
    """CSC of the cells: (cptr, crow, ccell) with the rows and cell positions per column."""
    cptr = np.zeros(nc + 1, np.int64)
    np.cumsum(np.bincount(idx[:indptr[nr]], minlength=nc), out=cptr[1:])
    crow = np.empty(indptr[nr], np.int64)
    ccell = np.empty(indptr[nr], np.int64)
    _place_cells(indptr, idx, nr, cptr[:nc].copy(), crow, ccell)
    return cptr, crow, ccell


@kernel
def _place_cells(indptr, idx, nr, fill, crow, ccell):
    """Each cell's row and position at ``fill[j]`` (then one further on) of its column j."""
    for i in range(nr):
        for e in range(indptr[i], indptr[i + 1]):
            j = idx[e]
            crow[fill[j]] = i
            ccell[fill[j]] = e
            fill[j] += 1


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
