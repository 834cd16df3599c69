"""numba versions of the hot loops; imported only through :mod:`clustermetrics._kernels`.

Each function computes exactly what its numpy counterpart computes (same recurrences, same
tail bound, same exact integer arithmetic); tests/test_kernels.py compares them.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from . import _merge_loop

# f(k) is evaluated with log1p of an exact integer difference when the mean a b / N exceeds
# this (see clustermetrics.metrics._emi); below it from a table of logs.
_MU_TABLE = 16.0
_EXACT_INT = 3_000_000_000


@numba.njit(cache=True, nogil=True)
def _f(k, a, b, n, lmu, precise, logs):
    """k log(k N / (a b)) for an integer k in the support (0 at k = 0)."""
    if k == 0:
        return 0.0
    if not precise:
        return k * (logs[k] - lmu)
    if n < _EXACT_INT:
        d = float(k * n - a * b)
    else:
        d = float(k) * float(n) - float(a) * float(b)
    return k * math.log1p(d / (float(a) * float(b)))


@numba.njit(cache=True, nogil=True)
def _side(a, b, n, mode, step, bound, lmu, precise, logs):
    """Mass and f-sum of one side of the window, walking from the mode (weight 1) until
    the geometric tail bound is at most ``bound`` times (1 + the side's mass).

    The step's ratio is (p1 p2) / (q1 q2) with factors that move by one per cell:
    going right P(k+1)/P(k) = (a-k)(b-k) / ((k+1)(N-a-b+k+1)), going left
    P(k-1)/P(k) = k(N-a-b+k) / ((a-k+1)(b-k+1)); a factor reaches 0 where the support ends.
    """
    rest = n - a - b
    if step > 0:
        p1, p2, q1, q2 = float(a - mode), float(b - mode), mode + 1.0, float(rest + mode + 1)
    else:
        p1, p2, q1, q2 = float(mode), float(rest + mode), float(a - mode + 1), \
            float(b - mode + 1)
    k = mode
    w = 1.0
    mass = 0.0
    fsum = 0.0
    while p1 > 0.0 and p2 > 0.0:
        r = (p1 * p2) / (q1 * q2)
        # the geometric bound w r / (1 - r), compared without dividing
        if bound > 0.0 and r < 1.0 and w * r <= bound * (1.0 + mass) * (1.0 - r):
            break
        w *= r
        if w == 0.0:
            break
        k += step
        p1 -= 1.0
        p2 -= 1.0
        q1 += 1.0
        q2 += 1.0
        mass += w
        if precise:
            fsum += w * _f(k, a, b, n, lmu, precise, logs)
        else:
            fsum += w * (k * (logs[k] - lmu))
    return mass, fsum


@numba.njit(cache=True, nogil=True)
def _pair(a, b, n, tail_tol, logs):
    """sum_k P(k) f(k) N for one pair of margins."""
    lo = max(0, a + b - n)
    hi = min(a, b)
    mode = int(math.floor((a + 1.0) * (b + 1.0) / (n + 2.0)))
    mode = min(max(mode, lo), hi)
    precise = float(a) * float(b) > _MU_TABLE * n or logs.shape[0] <= max(a, b)
    lmu = math.log(a) + math.log(b) - math.log(n)
    fsum = _f(mode, a, b, n, lmu, precise, logs)
    m_r, f_r = _side(a, b, n, mode, 1, 0.5 * tail_tol, lmu, precise, logs)
    m_l, f_l = _side(a, b, n, mode, -1, 0.5 * tail_tol, lmu, precise, logs)
    return (fsum + f_r + f_l) / (1.0 + m_r + m_l)


@numba.njit(cache=True, nogil=True)
def _emi(pa, pb, weight, n, tail_tol, logs):
    total = 0.0
    for i in range(pa.shape[0]):
        total += weight[i] * _pair(pa[i], pb[i], n, tail_tol, logs)
    return total / n


def expected_mutual_information(pa, pb, weight, n, tail_tol, logs):
    """sum_i weight_i E[f] over margin pairs (pa_i, pb_i): the EMI's pair sum.

    ``logs`` is log(0..m) (log 0 = 0) with m at least the largest margin, or an empty
    array to evaluate every f with log1p.
    """
    return float(_emi(np.asarray(pa, dtype=np.int64), np.asarray(pb, dtype=np.int64),
                      np.asarray(weight, dtype=np.float64), int(n), float(tail_tol), logs))


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


_merge_levels = numba.njit(cache=True, nogil=True)(_merge_loop.merge_levels)


def merge_levels(n, left, right, classes, n_classes, size_terms, cell_offset, cell_terms,
                 out_tp, out_joined, out_nnz, out_h_pred, out_h_cond):
    """The compiled per-merge loop of :mod:`clustermetrics.hierarchy` (state allocated
    here; the loop is ``_merge_loop.merge_levels``)."""
    cell_of = numba.typed.Dict.empty(numba.types.int64, numba.types.int64)
    entries = [np.empty(n, dtype=np.int64) for _ in range(3)]
    cols = [np.empty(n, dtype=np.int64) for _ in range(2)]
    column = np.empty(2 * n - 1 if n else 0, dtype=np.int64)
    _merge_levels(n, left, right, classes, n_classes, size_terms, cell_offset, cell_terms,
                  cell_of, *entries, *cols, column, out_tp, out_joined, out_nnz, out_h_pred,
                  out_h_cond)
