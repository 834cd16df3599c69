"""numba sparse maximum-weight matching of :mod:`.metrics._assignment`; loaded only through
:mod:`clustermetrics._kernels` (numba is the optional ``fast`` extra).

The solver's result is checked against scipy's and brute force in tests/test_matching_solvers.py.
"""

from __future__ import annotations

import numba
import numpy as np

# --------------------------------------------------------------------------- matching
# Maximum-weight bipartite matching by successive shortest paths in phases (see
# clustermetrics.metrics._assignment for the formulation). Rows are matched to a real
# column or to their own dummy column ``nc + i`` (cost 0: the row stays unmatched);
# costs are -weight, potentials keep every reduced cost c_ij - u_i - v_j >= 0 and matched
# cells tight, free columns keep v = 0, so the row-perfect matching found last is optimal
# (LP duality). Reduced costs are clamped at 0: float rounding of the potentials is the
# only inexactness, and with integer-valued weights below 2**52 there is none.


@numba.njit(cache=True, nogil=True)
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


@numba.njit(cache=True, nogil=True)
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


@numba.njit(cache=True, nogil=True)
def _reduced(p, end, i, idx, cost, u, v, nc):
    """(column, reduced cost >= 0) of the p-th cell of row i; p == end is its dummy."""
    if p < end:
        j = idx[p]
        r = cost[p] - u[i] - v[j]
    else:
        j = nc + i
        r = -u[i] - v[j]
    return j, max(r, 0.0)


@numba.njit(cache=True, nogil=True)
def _tight_augment(indptr, idx, cost, u, v, nc, free, nfree, row_match, col_match, dist,
                   drow, level, touched, nt, rlayer, clayer, queue, stack_row, stack_ptr):
    """Hopcroft-Karp on the cells tight at ``level`` (drow[i] + r_ij == dist[j] <= level):
    augment until no such path is left. Returns the number of rows still free (in
    ``free[:n]``)."""
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
            for p in range(indptr[i], end + 1):
                j, r = _reduced(p, end, i, idx, cost, u, v, nc)
                dj = dist[j]
                if dj > level or di + r != dj or clayer[j] >= 0:
                    continue
                clayer[j] = depth
                i2 = col_match[j]
                if i2 < 0:
                    found_layer = min(found_layer, depth)
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
                    while p <= end:
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
            return nfree


@numba.njit(cache=True, nogil=True)
def _matching_phases(indptr, idx, cost, nr, nc, budget):
    ncol = nc + nr
    work = 0
    u = np.zeros(nr)
    v = np.zeros(ncol)
    for i in range(nr):
        best = 0.0
        for e in range(indptr[i], indptr[i + 1]):
            best = min(best, cost[e])
        u[i] = best
    row_match = np.full(nr, -1, np.int64)
    col_match = np.full(ncol, -1, np.int64)
    dist = np.full(ncol, np.inf)
    drow = np.full(nr, np.inf)
    popped = np.zeros(ncol, np.bool_)
    touched = np.empty(ncol, np.int64)
    rtouched = np.empty(nr, np.int64)
    heap_keys = np.empty(indptr[nr] + nr + 1)
    heap_nodes = np.empty(indptr[nr] + nr + 1, np.int64)
    pred = np.full(ncol, -1, np.int64)
    tree = np.full(nr, -1, np.int64)
    used = np.zeros(nr, np.bool_)
    sinks = np.empty(nr, np.int64)
    rlayer = np.full(nr, -1, np.int64)
    clayer = np.full(ncol, -1, np.int64)
    queue = np.empty(nr, np.int64)
    stack_row = np.empty(nr + 1, np.int64)
    stack_ptr = np.empty(nr + 1, np.int64)
    free = np.arange(nr)
    nfree = nr
    while nfree > 0:
        # Dijkstra from every free row at once, over reduced costs
        size = 0
        nt = 0
        nrt = 0
        for f in range(nfree):
            i = free[f]
            drow[i] = 0.0
            tree[i] = i
            rtouched[nrt] = i
            nrt += 1
            end = indptr[i + 1]
            for p in range(indptr[i], end + 1):
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
                first = min(first, key)
                if level == np.inf:
                    root = tree[pred[j]]
                    if used[root]:
                        level = key
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
            for p in range(indptr[i2], end + 1):
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
            work += end + 1 - indptr[i2]
        if level == np.inf:  # every tree found its own free column
            level = dist[sinks[nsink - 1]]
        before = nfree
        if level == first:
            # ties at the nearest distance (degenerate tables): a maximum matching of
            # the cells tight at that level augments all of them at once
            nfree = _tight_augment(indptr, idx, cost, u, v, nc, free, nfree, row_match,
                                   col_match, dist, drow, level, touched, nt, rlayer,
                                   clayer, queue, stack_row, stack_ptr)
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
            for f in range(nfree):
                if row_match[free[f]] < 0:
                    free[still] = free[f]
                    still += 1
            nfree = still
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
        if nfree == before:  # no progress: cannot happen in exact arithmetic
            return row_match, False
        if work > budget:  # few ties: phases of a path or two each; LAPJVsp does better
            return row_match, False
    return row_match, True


# Cells scanned by the searches, per cell and row of the problem, before the phases give
# up: tables with many ties (noise counts, recall weights) finish in 2-3 full scans; with
# few ties (PSI weights, bootstrap replicates of noise tables) each phase augments a path
# or two and the phases cost more than scipy's LAPJVsp (3e5 cells: ~30 s against 3.6 s).
_BUDGET_SCANS = 12


def max_weight_matching(indptr, cols, weights, n_cols):
    """Row -> column of a maximum-weight matching (-1: unmatched) of the bipartite graph
    whose row i holds the cells ``cols[indptr[i]:indptr[i+1]]`` with positive
    ``weights``; None if float rounding stalled the search or the phases went past their
    budget (``_BUDGET_SCANS``); the caller then uses scipy.
    """
    n_rows = indptr.shape[0] - 1
    budget = _BUDGET_SCANS * (int(indptr[-1]) + n_rows)
    # writable C arrays only: numba compiles a separate version (seconds) for read-only
    # inputs, and a table's cached cells are read-only
    match, ok = _matching_phases(np.require(indptr, np.int64, ["C", "W"]),
                                 np.require(cols, np.int64, ["C", "W"]),
                                 -np.asarray(weights, dtype=np.float64), n_rows, int(n_cols),
                                 budget)
    if not ok:
        return None
    return np.where(match < n_cols, match, -1)
