"""numba maximum-weight matching by successive shortest paths in phases, and maximum-
cardinality matching by Karp-Sipser then Hopcroft-Karp; loaded only through
:mod:`clustermetrics.matching.compiled`, when the work repays compiling or loading it.
:func:`clustermetrics.matching.kernels.max_weight_matching` runs the phases first and the
auction (:mod:`clustermetrics.matching.auction`) where they give up.

Checked against scipy's solvers and brute force in tests/test_matching_solvers.py and
tests/test_matching_start.py.
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


@kernel(inner=True)
def _search(indptr, idx, cost, nc, u, v, col_match, roots, nroots, extra, dist, drow, popped,
            touched, rtouched, heap_keys, heap_nodes, pred, tree, used, sinks):
    """Dijkstra from the rows ``roots[:nroots]`` at once, over reduced costs. It stops at
    the first free column of a tree that has one already: the distance ``level`` up to
    which potentials change. Returns (columns touched, rows touched, the nearest free
    column's distance, level, trees that found their own free column (``sinks``), cells
    scanned)."""
    work = 0
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
                    # stop here: the columns left at this distance can only serve the
                    # trees that are taken
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
    return nt, nrt, first, level, nsink, work


@kernel(inner=True)
def _augment_sinks(row_match, col_match, pred, sinks, nsink, roots, nroots):
    """One shortest path per search tree, nearest first: the trees are disjoint, and every
    free column nearer than the search's level is now matched. Returns the roots still
    free (moved to the front of ``roots``)."""
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
    return still


@kernel(inner=True)
def _settle(u, v, dist, drow, popped, used, touched, nt, rtouched, nrt, level):
    """The potentials after a search that stopped at ``level`` (columns reached nearer
    lose, rows gain, the difference), and the search's marks cleared."""
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
        # the search starts from the last ``seeds`` free rows (``roots``: their view of
        # ``free``)
        base = nfree - seeds if seeds < nfree else 0
        roots = free[base:nfree]
        nroots = nfree - base
        nt, nrt, first, level, nsink, scanned = _search(
            indptr, idx, cost, nc, u, v, col_match, roots, nroots, extra, dist, drow, popped,
            touched, rtouched, heap_keys, heap_nodes, pred, tree, used, sinks)
        work += scanned
        if level == first:
            # ties at the nearest distance (degenerate tables): a maximum matching of
            # the cells tight at that level augments all of them at once
            still, scanned = _tight_augment(indptr, idx, cost, u, v, nc, roots, nroots,
                                            row_match, col_match, dist, drow, level, touched,
                                            nt, rlayer, clayer, queue, stack_row, stack_ptr,
                                            extra)
            work += scanned
        else:
            still = _augment_sinks(row_match, col_match, pred, sinks, nsink, roots, nroots)
        _settle(u, v, dist, drow, popped, used, touched, nt, rtouched, nrt, level)
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
