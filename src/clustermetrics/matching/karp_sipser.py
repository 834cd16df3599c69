"""numba Karp-Sipser start of a maximum-cardinality bipartite matching; loaded only through
:mod:`clustermetrics.compute.dispatch`, when the work repays compiling or loading it.

Karp & Sipser, Maximum matchings in sparse random graphs, FOCS (1981): while a vertex has
a single neighbour left, match the two and delete both (some maximum matching of what is
left contains that edge, so the rule never loses cardinality); when none has, match an
arbitrary edge and go on. Each vertex's neighbours are scanned a bounded number of times,
so it runs in time linear in the cells. It settles paths, trees and cycles (one arbitrary
edge leaves a path) exactly, whatever the order of their vertices: the shapes on which a
Hopcroft-Karp search started from a greedy matching meets very long augmenting paths. The
matching it returns is maximal, not always maximum; the callers finish it with
Hopcroft-Karp (:func:`clustermetrics.matching.phases.maximum_matching`).
"""

from __future__ import annotations

import numpy as np

from ..compute.jit import kernel


@kernel(inner=True)
def _remove(x, nr, indptr, idx, cptr, crow, deg, stack, top):
    """Delete matched vertex x (its degree already 0): its live neighbours (degree > 0) lose
    one; those left with one are pushed. Returns the new stack top."""
    if x < nr:
        start, end = indptr[x], indptr[x + 1]
    else:
        start, end = cptr[x - nr], cptr[x - nr + 1]
    for p in range(start, end):
        y = idx[p] + nr if x < nr else crow[p]
        if deg[y] > 0:
            deg[y] -= 1
            if deg[y] == 1:
                stack[top] = y
                top += 1
    return top


@kernel(inner=True)
def _neighbour(x, nr, indptr, idx, cptr, crow, deg):
    """The live neighbour of x with the fewest live neighbours itself (-1: none)."""
    if x < nr:
        start, end = indptr[x], indptr[x + 1]
    else:
        start, end = cptr[x - nr], cptr[x - nr + 1]
    best = -1
    for p in range(start, end):
        y = idx[p] + nr if x < nr else crow[p]
        if deg[y] > 0 and (best < 0 or deg[y] < deg[best]):
            best = y
            if deg[y] == 1:
                break
    return best


def karp_sipser(indptr, idx, nr, nc, cptr, crow):
    """A maximal matching of the bipartite graph whose row i holds the columns
    ``idx[indptr[i]:indptr[i+1]]`` (no column twice in a row; column j's rows are
    ``crow[cptr[j]:cptr[j+1]]``), by the Karp-Sipser rules.
    Returns (row_match, col_match): row -> column and column -> row, -1 where unmatched.

    Vertices are rows 0..nr-1 and columns nr..nr+nc-1. When no vertex of degree one is
    left, the next live vertex in index order is matched to its live neighbour of least
    degree (a cheap stand-in for the minimum-degree rule). A vertex is live while its
    degree (live neighbours) is positive; a matched one gets degree 0. The arrays are
    numpy's (see :func:`_rules`)."""
    deg = np.concatenate([np.diff(indptr[:nr + 1]), np.diff(cptr[:nc + 1])])
    # each vertex is pushed at most once: when its degree is or becomes exactly one
    stack = np.empty(nr + nc, np.int64)
    ones = np.flatnonzero(deg == 1)
    stack[:ones.shape[0]] = ones
    row_match = np.full(nr, -1, np.int64)
    col_match = np.full(nc, -1, np.int64)
    _rules(indptr, idx, nr, cptr, crow, deg, stack, ones.shape[0], row_match, col_match)
    return row_match, col_match


@kernel
def _rules(indptr, idx, nr, cptr, crow, deg, stack, top, row_match, col_match):
    """The Karp-Sipser rules from the degrees ``deg`` and the degree-one vertices
    ``stack[:top]``, into ``row_match`` and ``col_match`` (-1 where unmatched). The caller
    allocates every array: numba compiles no allocation (seconds on a fresh install)."""
    n = deg.shape[0]
    scan = 0
    while True:
        if top > 0:
            top -= 1
            x = stack[top]
            if deg[x] <= 0:
                continue
        else:
            while scan < n and deg[scan] <= 0:
                scan += 1
            if scan == n:
                break
            x = scan
        y = _neighbour(x, nr, indptr, idx, cptr, crow, deg)
        r, c = (x, y - nr) if x < nr else (y, x - nr)
        row_match[r] = c
        col_match[c] = r
        deg[x] = 0
        deg[y] = 0
        top = _remove(x, nr, indptr, idx, cptr, crow, deg, stack, top)
        top = _remove(y, nr, indptr, idx, cptr, crow, deg, stack, top)
