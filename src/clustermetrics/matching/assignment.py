"""Exact maximum-weight bipartite matching on the non-zero cells of a table.

Shared by clustering error/accuracy, the exact recovery rate, NCA/NPA and the pair sets
index. Cells that provably belong to an optimal matching are fixed first, in O(nnz) per
round (on a table close to its truth that is nearly all of them); what is left goes to a
dense Hungarian-type solver when small, else to a sparse solver, never to a dense
classes x clusters matrix beyond a few million cells.

The sparse solver (compiled with numba, loaded automatically for large problems) starts
from a maximum matching of the cells largest in their row (Karp & Sipser's degree-one
rule, linear in the cells, finished by Hopcroft-Karp: relabelled chains and cycles of
cells, where Hopcroft-Karp from a greedy start meets long augmenting paths, are settled
by the first) and goes on by successive shortest paths in phases: one Dijkstra search
from several free rows at once (twice as many as the last phase augmented: all of them
where ties let one search augment many, one where distances differ), then either a
Hopcroft-Karp maximum matching of the cells tight at the nearest distance (noise tables
have huge numbers of ties: counts of 1, recall weights 1/a_i) or one shortest path per
search tree. Where weights are graded (PSI's n_ij / max(a_i, b_j), ordered by the
clusters' sizes; bootstrap replicates) a search reaches a free column only after most of
the problem; once the phases' pace shows it (or after 32 scans of the problem) an
epsilon-scaling auction with reverse bids for the unmatched columns solves it instead
(Bertsekas 1988; Bertsekas, Castanon & Tsaknakis 1993), in near-linear time on noise
tables (10^6 cells of PSI weights: 0.4-1.5 s where scipy's LAPJVsp needs minutes).
scipy's LAPJVsp solves whatever the compiled solvers hand back, and the problems too
small to repay loading (or, on a fresh install, compiling) them.

Exactness: rational weights (n_ij / a_i, n_ij / max(a_i, b_j)) are scaled to integers by
their common denominator when it stays below 2**50 (``fraction=``). Integer weights are
solved exactly: by the phases, by the auction on benefits w * (rows + 1) (epsilon = 1 then
leaves less than 1 of slack in total), or for larger integers by phases that finish from the
auction's prices. Other weights are solved up to rounding: the auction on
round(w * 2**60 / max w), within 1.5 * rows * max w * 2**-60 of the optimum, as LAPJVsp's
floats are.
"""

from __future__ import annotations

import functools
import itertools
import math
from typing import NamedTuple

import numpy as np

from . import compiled

__all__ = ["DENSE_MAX_CELLS", "Leaders", "cell_index", "dense_ok", "fixes_little",
           "integer_weights", "leaders", "max_weight_matching", "off_lines"]

# Up to this many cells a dense assignment solver is fastest; beyond it, sparse matching.
DENSE_MAX_CELLS = 4_000_000
# ... and when it holds at most this many cells per non-zero cell.
_DENSE_FILL = 16
# From this many non-zero cells on, provably optimal cells are fixed first (O(nnz)); on
# smaller tables the solver alone is as fast.
_FORCE_MIN_CELLS = 4096
# Integer-valued float64 weights stay exact in every sum the solvers form below this
# (potentials are differences of at most a few weights).
_EXACT_INT = 1 << 50


def max_weight_matching(rows: np.ndarray, cols: np.ndarray, weights: np.ndarray,
                        shape: tuple[int, int], *,
                        dense_max_cells: int | None = None,
                        first_round: Leaders | None = None,
                        keys: np.ndarray | None = None,
                        fraction: tuple[np.ndarray, np.ndarray] | None = None,
                        prices: np.ndarray | None = None,
                        forced_rounds: int | None = None,
                        graded: bool = False) -> np.ndarray:
    """Cells of a maximum-weight matching of a bipartite graph given by its positive cells.

    The graph has ``shape[0]`` row nodes and ``shape[1]`` column nodes; cell ``e`` joins
    ``rows[e]`` and ``cols[e]`` with weight ``weights[e] > 0`` (cells unique). A matching
    uses each node at most once; the one returned maximises the total weight over *all*
    matchings, whatever the shape (nodes may stay unmatched). Absent cells weigh 0 and are
    never part of the result.

    From 4096 cells on (and on any table with more than ``dense_max_cells`` cells), cells
    that provably belong to an optimal matching are fixed first (see ``_forced_cells``;
    ``first_round`` may pass their first round, :func:`leaders`, when it was computed
    already). What is left, or a small table, goes to
    :func:`scipy.optimize.linear_sum_assignment` when it has at most ``dense_max_cells``
    cells (default: the module's ``DENSE_MAX_CELLS``, 4e6), else to
    :func:`scipy.sparse.csgraph.min_weight_full_bipartite_matching` after the standard
    reduction (one dummy partner per node of the smaller side at cost ``K``, real cells at
    cost ``K - w`` with ``K = 2 max w``, so a full matching exists, all costs are positive,
    and minimising cost maximises weight). Memory is O(nnz) on the sparse path. Integer
    weights below 2**52 are handled exactly; float weights up to rounding of ``K - w``.
    The result is deterministic: among several optimal matchings the solver's choice only
    depends on the cell order, i.e. on the sorted label order of the table.

    ``fraction=(numerators, denominators)``, positive integers per cell with
    ``weights == numerators / denominators``, lets the solvers work on the exact integers
    ``numerators * (L / denominators)`` (L the common denominator of the cells left to
    solve) whenever L < 2**50; the optimal matchings are the same, found without rounding.
    Large sparse problems go to the compiled phases and auction when numba is installed (see
    the module docstring), else to
    :func:`scipy.sparse.csgraph.min_weight_full_bipartite_matching`.

    ``prices`` (one per column, in units of the weights, >= 0): optimal column duals of a
    nearby problem (a bootstrap replicate's table), from which the sparse problem left is
    solved warm (:mod:`clustermetrics.matching.warm_kernels`) when the compiled kernels are loaded;
    the result is optimal as the cold solver's is (exactly for integers, ``fraction``;
    up to rounding for float weights), though among several optimal matchings it may be
    another one.

    ``forced_rounds``: rounds of fixing cells before solving (default: until a round
    fixes less than a tenth of what is left; one with ``prices``, from which the solver
    finishes faster than further rounds); 0 where the caller knows the rounds fix little
    (a bootstrap replicate of a noise table).

    ``graded``: the weights order each row's cells (the pair sets index's n_ij /
    max(a_i, b_j)); the compiled solver then runs its auction at once, its phases (which
    give up on such weights) neither run nor compile.

    Returns
    -------
    cells : ndarray of int64
        Indices into ``rows``/``cols``/``weights`` of the matched cells, ascending.
    """
    rows = np.asarray(rows, dtype=np.int64)
    cols = np.asarray(cols, dtype=np.int64)
    weights = np.asarray(weights, dtype=np.float64)
    n_rows, n_cols = int(shape[0]), int(shape[1])
    if rows.shape[0] == 0:
        return np.zeros(0, dtype=np.int64)
    if dense_max_cells is None:
        dense_max_cells = DENSE_MAX_CELLS
    if rows.shape[0] < _FORCE_MIN_CELLS and \
            _dense_pays(n_rows, n_cols, rows.shape[0], dense_max_cells):
        return _solve(rows, cols, _exact(weights, fraction, None), n_rows, n_cols)
    # Fix the cells that are provably in an optimal matching (O(nnz)), solve the rest.
    if forced_rounds is None and prices is not None:
        forced_rounds = 1
    if forced_rounds == 0:
        forced, rest = np.zeros(0, dtype=np.int64), np.arange(rows.shape[0])
    else:
        forced, rest = _forced_cells(rows, cols, weights, n_rows, n_cols, first_round, keys,
                                     rounds=forced_rounds)
    if rest.shape[0] == 0:
        return np.sort(forced)
    if forced.shape[0] == 0:  # nothing fixed: solve the table as it is
        exact = _exact(weights, fraction, None)
        return _solve(rows, cols, exact, n_rows, n_cols,
                      dense=_dense_pays(n_rows, n_cols, rows.shape[0], dense_max_cells),
                      prices=_scaled_prices(prices, None, exact, weights), graded=graded)
    n_r, r = _renumber(rows[rest], n_rows)
    n_c, c = _renumber(cols[rest], n_cols)
    exact = _exact(weights, fraction, rest)
    solved = _solve(r, c, exact, n_r, n_c,
                    dense=_dense_pays(n_r, n_c, rest.shape[0], dense_max_cells),
                    prices=_scaled_prices(prices, cols[rest], exact, weights[rest]),
                    graded=graded)
    return np.sort(np.concatenate([forced, rest[solved]]))


def _dense_pays(n_rows: int, n_cols: int, nnz: int, dense_max_cells: int) -> bool:
    """Whether the dense solver is the faster for a problem of ``nnz`` cells: its work
    grows with rows x cols whatever the cells, so the grid must also be small next to
    the cells (a 2000 x 2000 diagonal took it 78 ms; the sparse path ~1 ms)."""
    return _small_grid(n_rows, n_cols, nnz, dense_max_cells, _DENSE_FILL)


def _small_grid(n_rows: int, n_cols: int, nnz: int, max_cells: int, fill: float) -> bool:
    """A rows x cols grid of at most ``max_cells`` cells and ``fill`` times ``nnz``."""
    cells = n_rows * n_cols
    return cells <= max_cells and cells <= fill * nnz


def _renumber(ids, size):
    """(number of distinct ids, ids renumbered 0.. in increasing order); O(n), no sort."""
    present = np.zeros(size, dtype=bool)
    present[ids] = True
    lookup = np.cumsum(present) - 1
    return int(lookup[-1]) + 1, lookup[ids]


def integer_weights(numerators: np.ndarray, denominators: np.ndarray) -> np.ndarray | None:
    """``numerators / denominators`` times their least common denominator L, as exact
    integer-valued float64, or None when L * max(ratio) would reach 2**50 or the counts
    are real masses."""
    if np.asarray(numerators).dtype.kind == "f" or np.asarray(denominators).dtype.kind == "f":
        return None  # real masses (real sample weights): solved as floats
    lcm, limit = 1, _EXACT_INT
    ratio = float(np.max(numerators / denominators))
    for d in _distinct_positive(np.asarray(denominators)).tolist():
        lcm = math.lcm(lcm, d)
        if lcm * ratio >= limit:
            return None
    scaled = np.asarray(numerators, dtype=np.int64) * (lcm // np.asarray(denominators,
                                                                          dtype=np.int64))
    return scaled.astype(np.float64)


def _distinct_positive(values: np.ndarray) -> np.ndarray:
    """The distinct values of positive integers, increasing: a histogram's when they are
    small (row sizes; a sort of every cell's costs ~10x more), else np.unique's."""
    if values.shape[0] and int(values.max()) <= 4 * values.shape[0]:
        return np.flatnonzero(np.bincount(values))
    return np.unique(values)


def _exact(weights, fraction, subset):
    """The weights of ``subset`` (all when None), as exact integers when ``fraction``
    allows (see :func:`integer_weights`)."""
    if fraction is None:
        return weights if subset is None else weights[subset]
    num, den = fraction if subset is None else (fraction[0][subset], fraction[1][subset])
    scaled = integer_weights(num, den)
    if scaled is None:
        return weights if subset is None else weights[subset]
    return scaled


def _scaled_prices(prices, cols, exact, weights):
    """``prices`` of the columns present in ``cols`` (all when None), in increasing column
    order (the renumbering of ``_renumber``), in the units of ``exact``: the weights
    ``weights`` scaled to exact integers, or the weights themselves; None without prices."""
    if prices is None or exact.shape[0] == 0:
        return None
    if cols is not None:
        present = np.zeros(prices.shape[0], dtype=bool)
        present[cols] = True
        prices = prices[present]
    # exact = weights * L (L the common denominator, or 1); a start needs no more precision
    return prices * (float(exact[0]) / float(weights[0]))


def _solve(rows, cols, weights, n_rows, n_cols, dense=True, prices=None, graded=False):
    """Indices of the cells of a maximum-weight matching (cells sorted by row, col)."""
    if dense:
        r, c = _dense_matching(rows, cols, weights, n_rows, n_cols)
    else:
        r, c = _sparse_matching(rows, cols, weights, n_rows, n_cols, prices, graded)
    return cell_index(rows, cols, n_cols, r, c)


def _forced_cells(rows, cols, weights, n_rows, n_cols, first_round=None, keys=None,
                  rounds=None):
    """Cells that some maximum-weight matching contains, and the cells left to solve.

    If cell (i, j) is the largest of its row and of its column and
    w_ij >= (largest other weight in row i) + (largest other in column j), then any optimal
    matching M can be changed into one containing (i, j) without losing weight: drop the
    edges (i, k) and (l, j) of M, add (i, j) (and (l, k) if it exists). Fixing such cells and
    removing their rows and columns, repeatedly, leaves an equivalent smaller problem; for a
    clustering close to its truth that is nearly everything. A relative margin of 1e-12
    keeps float rounding from fixing a cell the exact weights would not. Each round is
    O(nnz) (no sort); rounds stop when one fixes less than a tenth of what is left, or
    after ``rounds`` (a warm-started solver finishes the rest faster than further rounds).
    """
    active = np.arange(weights.shape[0])
    forced = []
    if first_round is None and dense_ok(n_rows, n_cols, weights.shape[0]) and \
            bool(np.all(rows[1:] >= rows[:-1])):
        first_round = leaders(rows, cols, weights, n_rows, n_cols, keys)
    if first_round is not None:
        lead = first_round
        chosen = lead.cells[lead.weight >= (lead.row_second + lead.col_second) * (1.0 + 1e-12)]
        forced.append(chosen)
        active = off_lines(rows, cols, chosen, active, n_rows, n_cols)
        if 10 * chosen.shape[0] < min(n_rows, n_cols):
            # a table far from a matching (e.g. uniform noise): sparse rounds would cost
            # more than they save, the solver takes what is left
            return np.concatenate(forced), active
    while active.shape[0]:
        whole = active.shape[0] == weights.shape[0]  # first round: no gathered copies
        r, c, w = (rows, cols, weights) if whole else \
            (rows[active], cols[active], weights[active])
        lead_r, second_r = _top_two(r, w, n_rows)
        lead_c, second_c = _top_two(c, w, n_cols)
        cand = np.intersect1d(lead_r, lead_c, assume_unique=True)
        ok = w[cand] >= (second_r[r[cand]] + second_c[c[cand]]) * (1.0 + 1e-12)
        chosen = active[cand[ok]]
        if chosen.shape[0] == 0:
            break
        forced.append(chosen)
        before = active.shape[0]
        active = off_lines(rows, cols, chosen, active, n_rows, n_cols)
        if 10 * (before - active.shape[0]) < before or len(forced) == rounds:
            break
    done = np.concatenate(forced) if forced else np.zeros(0, dtype=np.int64)
    return done, active


def fixes_little(rows: np.ndarray, cols: np.ndarray, weights: np.ndarray, n_rows: int,
                 n_cols: int) -> bool:
    """Whether a round of fixing provably optimal cells fixes less than a tenth of the
    smaller side (a noise table, and its bootstrap replicates): a solver started warm
    finishes such a problem faster without it."""
    forced, _ = _forced_cells(rows, cols, weights, n_rows, n_cols, rounds=1)
    return 10 * forced.shape[0] < min(n_rows, n_cols)


def dense_ok(n_rows: int, n_cols: int, nnz: int) -> bool:
    """Whether a dense copy of the table is cheap: few cells, not much emptier than nnz."""
    return _small_grid(n_rows, n_cols, nnz, DENSE_MAX_CELLS, 4)


def off_lines(rows, cols, chosen, active, n_rows, n_cols):
    """The active cells on neither a row nor a column of the chosen cells."""
    if chosen.shape[0] == min(n_rows, n_cols):  # every row (or column) is taken
        return np.zeros(0, dtype=np.int64)
    row_taken = np.zeros(n_rows, dtype=bool)
    col_taken = np.zeros(n_cols, dtype=bool)
    row_taken[rows[chosen]] = True
    col_taken[cols[chosen]] = True
    if active.shape[0] == rows.shape[0]:  # all cells: no gather needed
        return np.flatnonzero(~(row_taken[rows] | col_taken[cols]))
    return active[~(row_taken[rows[active]] | col_taken[cols[active]])]


class Leaders(NamedTuple):
    """Cells largest in their row (first on ties) and the unique largest in their column,
    with their weight and the second largest weights of their row and column."""

    cells: np.ndarray
    weight: np.ndarray
    row_second: np.ndarray
    col_second: np.ndarray


def leaders(rows, cols, weights, n_rows, n_cols, keys=None) -> Leaders:
    """:class:`Leaders` from a dense copy (cells sorted by row, col; see ``dense_ok``).

    Row and column reductions of a dense matrix cost a few passes, where grouping the
    sparse cells by column costs scatter-max passes. A column whose largest value is tied
    has no leader: its second largest equals the largest, so the forced-cell rule (with its
    margin) would never fix it, and the greedy recovery rate leaves it to its exact sort.
    """
    if keys is None:  # row * n_cols + col per cell; a table passes its cached copy
        keys = rows * n_cols + cols
    dense = np.zeros((n_rows, n_cols))
    dense.ravel()[keys] = weights
    line = np.arange(n_rows)
    r_arg = dense.argmax(axis=1)
    r_val = dense[line, r_arg]
    c_best = dense.max(axis=0)
    cand = np.flatnonzero((r_val > 0) & (r_val == c_best[r_arg]))
    j = r_arg[cand]
    dense[line, r_arg] = 0.0
    r_second = dense.max(axis=1)[cand]
    dense[line, r_arg] = r_val
    dense[cand, j] = 0.0
    c_second = dense.max(axis=0)[j]
    # a column's maximum is unique when no other cell equals it: not another candidate's
    # (two rows led to one column) and not a cell left after zeroing the candidates
    unique = (np.bincount(j, minlength=n_cols)[j] == 1) & (c_second < c_best[j])
    cand, j = cand[unique], j[unique]
    cells = _key_index(keys, cand * n_cols + j)
    return Leaders(cells, r_val[cand], r_second[unique], c_second[unique])


def _top_two(group, w, size):
    """Positions of each group's largest value (the first in cell order on ties), and each
    group's second largest value with that one cell left out (0 if none; weights are
    positive). O(len(w)) with np.maximum.at, in chunks so temporaries stay small."""
    n = w.shape[0]
    best = np.zeros(size)
    for sl in _chunks(n):
        np.maximum.at(best, group[sl], w[sl])
    first = np.full(size, n)
    for sl in _chunks(n):
        g = group[sl]
        hit = np.flatnonzero(w[sl] == best[g])
        np.minimum.at(first, g[hit], hit + sl.start)
    lead = first[first < n]
    is_lead = np.zeros(n, dtype=bool)
    is_lead[lead] = True
    second = np.zeros(size)
    for sl in _chunks(n):
        np.maximum.at(second, group[sl], np.where(is_lead[sl], 0.0, w[sl]))
    return np.sort(lead), second


def _chunks(n: int, size: int = 1 << 20):
    return [slice(s, s + size) for s in range(0, n, size)]


# Assignments of a small grid (at most this many) are tried one and all, in numpy: a
# table of a few classes (the README's 8 items, their bootstrap replicates) then never
# imports scipy.optimize (~0.17 s, a third of such a first call)
_ENUMERATED_MAX = 720


def _dense_matching(rows, cols, weights, n_rows, n_cols):
    dense = np.zeros((n_rows, n_cols), dtype=np.float64)
    dense[rows, cols] = weights
    if math.perm(max(n_rows, n_cols), min(n_rows, n_cols)) <= _ENUMERATED_MAX:
        return _enumerated_matching(dense)
    # here, not at the top: scipy.optimize adds ~0.25 s to importing clustermetrics
    from scipy.optimize import linear_sum_assignment

    return linear_sum_assignment(dense, maximize=True)


@functools.lru_cache(maxsize=64)
def _assignments(k: int, m: int) -> np.ndarray:
    """Every assignment of k rows to distinct columns of m, one per row, in
    lexicographic order (read-only: shared by the calls of a bootstrap's replicates)."""
    options = np.array(list(itertools.permutations(range(m), k)), dtype=np.int64)
    options = options.reshape(-1, k)
    options.flags.writeable = False
    return options


def _enumerated_matching(dense: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(rows, cols) of a maximum-weight assignment of a small grid, found by trying every
    assignment of the smaller side (the first best in lexicographic order: deterministic;
    totals of at most six weights below 2**50 each are exact sums)."""
    wide = dense.shape[0] <= dense.shape[1]
    grid = dense if wide else dense.T
    k, m = grid.shape
    options = _assignments(k, m)
    best = options[int(np.argmax(grid[np.arange(k), options].sum(axis=1)))]
    side = np.arange(k)
    return (side, best) if wide else (best, side)


# cells per row from which graded weights go to the compiled auction at once
_GRADED_MIN_CELLS = 4


def _sparse_matching(rows, cols, weights, n_rows, n_cols, prices=None, graded=False):
    """(rows, cols) of a max-weight matching: the compiled phases and auction when they pay
    (``compiled.matching_kernel``), else scipy's LAPJVsp; from ``prices`` (column prices in
    units of the integer weights) the warm-started auction when its kernels are loaded.

    The phase solver keeps the table's orientation: its first phase matches the cells
    largest in their row, and rows (true classes) are where recall weights n_ij / a_i
    tie. LAPJVsp's work grows with the side it saturates, so it gets the smaller one."""
    # graded weights defeat the phases where rows hold several cells (uniform noise: 10 a
    # row, the auction 1.5x the faster); on rows of one or two (a chain of classes split
    # over two clusters each) the phases finish, 3.5x faster than the auction
    graded = graded and rows.shape[0] >= _GRADED_MIN_CELLS * n_rows
    kernel = compiled.matching_kernel(rows.shape[0], graded)
    if kernel is not None:
        order = None if bool(np.all(rows[1:] >= rows[:-1])) else \
            np.argsort(rows, kind="stable")
        r_s, c_s, w_s = (rows, cols, weights) if order is None else \
            (rows[order], cols[order], weights[order])
        indptr = np.zeros(n_rows + 1, dtype=np.int64)
        np.cumsum(np.bincount(r_s, minlength=n_rows), out=indptr[1:])
        match = None
        warm = None if prices is None else compiled.warm_matching_kernels(rows.shape[0])
        if warm is not None:
            match = warm.warm_matching(indptr, c_s, w_s, n_cols, prices)
        if match is None:
            match = kernel(indptr, c_s, w_s, n_cols)
        if match is not None:
            matched = np.flatnonzero(match >= 0)
            return matched, match[matched]
    if n_rows > n_cols:
        c, r = _scipy_matching(cols, rows, weights, n_cols, n_rows)
        return r, c
    return _scipy_matching(rows, cols, weights, n_rows, n_cols)


def _scipy_matching(rows, cols, weights, n_rows, n_cols):
    """Max-weight matching for n_rows <= n_cols via a full min-cost matching."""
    # here, not at the top: scipy.sparse.csgraph adds ~0.14 s to importing clustermetrics
    from scipy import sparse
    from scipy.sparse.csgraph import min_weight_full_bipartite_matching

    big = 2.0 * float(weights.max())
    dummy = np.arange(n_rows, dtype=np.int64)
    graph = sparse.csr_matrix(
        (np.concatenate([big - weights, np.full(n_rows, big)]),
         (np.concatenate([rows, dummy]), np.concatenate([cols, n_cols + dummy]))),
        shape=(n_rows, n_cols + n_rows),
    )
    r, c = min_weight_full_bipartite_matching(graph)
    real = c < n_cols
    return r[real], c[real]


def cell_index(rows, cols, n_cols, r, c):
    """Positions of the cells (r, c) among the table's cells; pairs on absent cells dropped."""
    # Cells are sorted by (row, col), so row * n_cols + col is sorted too. It fits in int64
    # for a table: every row and column holds a cell, so n_rows * n_cols <= nnz**2 < 2**63.
    wanted = np.asarray(r, dtype=np.int64) * n_cols + np.asarray(c, dtype=np.int64)
    return _key_index(rows * n_cols + cols, wanted)


def _key_index(keys, wanted):
    """Positions of ``wanted`` among the sorted ``keys``, absent ones dropped, ascending."""
    pos = np.minimum(np.searchsorted(keys, wanted), keys.shape[0] - 1)
    return np.sort(pos[keys[pos] == wanted])


