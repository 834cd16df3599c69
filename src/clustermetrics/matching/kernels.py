"""numba sparse maximum-weight matching of :mod:`clustermetrics.matching.assignment`: the
phases of :mod:`clustermetrics.matching.phases` from a maximum matching of the cells
largest in their row, and the auction of :mod:`clustermetrics.matching.auction` where they
give up; loaded only through :mod:`clustermetrics.compute.dispatch`, when the work repays
compiling or loading it.

The solver's result is checked against scipy's and brute force in
tests/matching/test_matching_solvers.py.
"""

from __future__ import annotations

import numpy as np

from ..compute.kernel_arrays import one_type
from .auction import auction_matching
from .phases import _phases, _row_max_start

# Cells scanned by the phases (Dijkstra and Hopcroft-Karp searches together), per cell and
# row of the problem, before they hand over to the auction. They start from a maximum
# matching of the cells largest in their row (``_row_max_start``). Tables with many ties
# (noise counts, recall weights n_ij / a_i: equal along a row, different between rows)
# finish in 1-20 scans (10^6 cells, 10^3-10^5 classes); with graded weights (PSI's, where
# the clusters' sizes order each row) a search finds a free column only after most of the
# problem, so the phases stop once the last scan's pace would not finish within the budget
# (one or two scans there), and the auction does better.
_PHASE_SCANS = 32


def max_weight_matching(indptr, cols, weights, n_cols, graded=False):
    """Row -> column of a maximum-weight matching (-1: unmatched) of the bipartite graph
    whose row i holds the cells ``cols[indptr[i]:indptr[i+1]]`` with positive
    ``weights``: the phases from ``_row_max_start`` while they make progress
    (``_PHASE_SCANS``), else the
    epsilon-scaling auction (:func:`auction_matching`); None if float rounding stalled the
    search or the auction's finishing phases went past their budget (the caller then uses
    scipy). ``graded``: weights that order each row's cells (PSI's), on which the phases
    give up after a scan or two: the auction at once.
    """
    n_rows = indptr.shape[0] - 1
    # writable C arrays only: a table's cached cells are read-only (see one_type)
    indptr = one_type(indptr, np.int64)
    cols = one_type(cols, np.int64)
    weights = one_type(weights, np.float64)
    if graded:
        return auction_matching(indptr, cols, weights, n_cols)
    budget = _PHASE_SCANS * (int(indptr[-1]) + n_rows)
    u, v, row_match, col_match, free, nfree = _row_max_start(indptr, cols, weights, int(n_cols))
    match, ok = _phases(indptr, cols, -weights, n_rows, int(n_cols), budget, u, v, row_match,
                        col_match, free, nfree, 1)
    if not ok:
        return auction_matching(indptr, cols, weights, n_cols)
    return np.where(match < n_cols, match, -1)
