"""The variance of the mutual information under the permutation model, for the SMI.

Romano, Bailey, Nguyen & Verspoor, "Standardized mutual information for clustering
comparisons: one step further in adjustment for chance", ICML 2014: SMI = (MI - E[MI]) /
sd[MI] with both labellings' sizes fixed and the pairing of items random (the model of
AMI's E[MI]). With S = sum_ij n_ij log n_ij, N MI = S + N log N - sum a log a - sum b log b,
so Var[MI] = Var[S] / N^2.

The variance is exact (:func:`exact_variance`, :func:`exact_variances` for the tables of
a stack) or estimated from random tables (:func:`monte_carlo_variance`, from
:mod:`clustermetrics.scores._smi_monte_carlo`); the SMI's ``method="auto"`` weighs the two
by their estimated costs (:func:`exact_cost`, :func:`sample_cost`, from
:mod:`clustermetrics.scores._smi_cost`).

Exact variance
--------------
It comes, far cheaper than Romano et al.'s nested sums
(:mod:`clustermetrics.scores._smi_nested`), from one law per pair of distinct sizes
(:mod:`clustermetrics.scores._smi_expansion`): every pair of cells' joint law is diagonal in
the orthogonal (Hahn) polynomials of the two cells' laws, with correlations that factor
over rows and columns, so Var[S] is a sum over orders q of separable double sums over the
cells, each O(distinct rows x distinct columns); the orders left out are bounded (their
correlations do not increase with q) and added until that bound is below 2^-60 of the
variance. Each law costs its window times the orders (12-30 suffice on the tables
measured), or, for a large mean, O(degree^2) from the Taylor polynomial of phi at the
mean with a bounded remainder. It runs compiled
(:mod:`clustermetrics.scores._smi_kernels`) where the kernel is ready or where making it
ready (a compile of seconds on a fresh install) costs less than the uncompiled run
(``method="auto"`` prices the exact variance with the compiled run wherever compiled
kernels may run), else vectorised across laws in numpy
(:mod:`clustermetrics.scores._smi_vectorised`: no compile, a few milliseconds on a small
table), or as plain Python on a tiny table; the nested sums where they are the cheaper.
All sum phi(n) = n log n shifted per cell
(:mod:`clustermetrics.scores._smi_shift`), so the rounding scales with the fluctuations
of the cells rather than with E[S]. A stack's tables (bootstrap replicates) share most of
their laws: :func:`exact_variances` expands each once for all of them.
"""

from __future__ import annotations

import math
from functools import partial

import numpy as np

from ..compute import dispatch as _kernels
from ..compute.kernel_arrays import one_type
from . import _smi_expansion, compiled
from ._line_sizes import Tables, tables_of
from ._smi_cost import (
    EXACT_TERM_COST,
    KERNEL_STEP_COST,
    PYTHON_STEP_COST,
    ExactPlan,
    distinct_sizes,
    exact_cost,
    exact_costs,
    expansion_cut,
    nested_terms,
    stack_sums_cost,
    table_steps,
    vectorised_costs,
    vectorised_law_costs,
)
from ._smi_expansion import FIRST_ORDER
from ._smi_monte_carlo import monte_carlo_variance, sample_cost, sample_costs
from ._smi_nested import nested_sums
from ._smi_shift import anchor, shifts, tangent_slope
from ._smi_vectorised import remembered, vectorised_moments, vectorised_variances

# what scores.information reads (the costs and the Monte Carlo estimate re-exported from
# the modules that hold them)
__all__ = ["EXACT_TERM_COST", "KERNEL_STEP_COST", "PYTHON_STEP_COST", "exact_cost",
           "exact_costs", "exact_variance", "exact_variances", "monte_carlo_variance",
           "s_of_counts", "sample_cost", "sample_costs", "stack_expansion"]


def s_of_counts(counts: np.ndarray) -> float:
    """sum n log n over the given counts (0 log 0 = 0), summed exactly-ish (fsum)."""
    c = np.asarray(counts, dtype=np.float64)
    c = c[c > 1]
    return math.fsum((c * np.log(c)).tolist())


def exact_variance(a: np.ndarray, b: np.ndarray, n: int, *, path: str | None = None,
                   plan: ExactPlan | None = None, nested_max: float = math.inf,
                   ) -> tuple[float, float] | None:
    """(E[S], Var[S]) of S = sum n_ij log n_ij under the permutation model, exactly (up to
    rounding and truncations below 2^-60, see :mod:`._smi_cost`), for class sizes ``a``
    and cluster sizes ``b`` over ``n`` items.

    Each phi(n_ij) is replaced by phi^_ij(n_ij) = phi(n_ij) - phi(k0_ij) - s_ij (n_ij -
    k0_ij), k0_ij the integer nearest mu_ij = a_i b_j / N: per-cell constants, and where
    every mu_ij >= 1 the slopes s_ij = phi'(mu_ij) = log a_i + log b_j - log N + 1, additive
    in i and j so that sum_ij s_ij n_ij is the same for every table (elsewhere s = 0: on
    sparse tables that sum is ~N log N and would cancel only up to rounding). Var[S^] =
    Var[S], with terms of the size of their fluctuations, formed without cancellation
    (:mod:`._smi_shift`), so the rounding scales with them rather than with E[S].

    The variance comes from the expansion of the cells' joint laws in orthogonal
    polynomials (:mod:`clustermetrics.scores._smi_expansion`), compiled
    (:mod:`clustermetrics.scores._smi_kernels`) where the kernels load
    (:func:`clustermetrics.scores.compiled.smi_variance_kernel`: loaded, or loading them
    pays), else vectorised in numpy (:mod:`._smi_vectorised`), or as plain Python on a
    table so small that numpy's calls would cost more, where that is estimated cheaper
    than the numpy sums (Romano et al.'s nested sums, :mod:`._smi_nested`), which also
    take over on the rare table where the expansion cannot bound its orders; ``path``
    ("numpy", "compiled", "vectorised" or "python") forces one (tests compare them);
    ``plan``: :func:`exact_cost` of the same sizes, if known. ``nested_max``: the most
    the numpy sums, or the uncompiled expansion, may cost (units of ~5 ns, as
    :data:`EXACT_TERM_COST`); where the expansion does not run or cannot bound its
    orders (Zipf-like sizes: one law of a large mean among many small ones) and the sums
    would cost more, None (the caller estimates instead: ``auto``'s Monte Carlo)."""
    n = int(n)
    ua, ca = distinct_sizes(a)
    ub, cb = distinct_sizes(b)
    if plan is None:
        tables = tables_of(np.atleast_2d(a), np.atleast_2d(b))
        costs = (float(table_steps(tables, n)[0]) * PYTHON_STEP_COST,
                 float(vectorised_costs(tables, n)[0]))
    else:
        costs = (plan.steps * PYTHON_STEP_COST, plan.vectorised)
    kernel = _expansion_kernel(ua, ca, ub, cb, n, path, costs, plan, nested_max)
    if kernel is not None:
        moments = _expanded(kernel, ua, ca, ub, cb, n)
        if moments is not None:
            return moments
    terms = plan.terms if plan is not None and plan.terms is not None else \
        (nested_terms(ua, ca, ub, cb, n), nested_terms(ub, cb, ua, ca, n))
    if min(terms) * EXACT_TERM_COST > nested_max:
        return None
    if terms[1] < terms[0]:  # Var is symmetric: the cheaper side as rows
        ua, ca, ub, cb = ub, cb, ua, ca
    return nested_sums(ua, ca, ub, cb, n)


def exact_variances(class_sizes: np.ndarray, cluster_sizes: np.ndarray, n: int, kernel
                    ) -> tuple[np.ndarray, np.ndarray]:
    """(Var[S], done) of many tables of ``n`` items (the rows of ``class_sizes`` and
    ``cluster_sizes``, zeros for absent lines: a stack's replicates) by the expansion
    ``kernel`` (:func:`stack_expansion`: compiled or vectorised), each law
    of a pair of sizes expanded once for all the tables that hold it (replicates share most
    of theirs); done[r] False where the expansion could not bound table r's orders (use
    :func:`exact_variance` there). The same phi^ as :func:`exact_variance`, windows cut
    for the largest table (wider windows only add terms), so each value equals that
    table's alone to rounding."""
    tables = tables_of(class_sizes, cluster_sizes)
    pa, pb, law_sloped, index = _stack_laws(tables, n)
    k0 = anchor(pa, pb, n)
    slope = np.where(law_sloped, tangent_slope(pa, pb, n, True), 0.0)
    cells = _most_cells(class_sizes, cluster_sizes)
    out = np.zeros(class_sizes.shape[0])
    status = np.empty(class_sizes.shape[0], dtype=np.int64)
    kernel(tables.ua, tables.ca, tables.row_off, tables.ub, tables.cb, tables.col_off,
           index, tables.pair_off, int(n), pa, pb,
           one_type(k0, np.int64), one_type(slope, np.float64), expansion_cut(n, cells),
           out, status)
    return np.maximum(out, 0.0), status == 0


def _stack_laws(tables: Tables, n: int
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(pa, pb, sloped, index): the laws of a stack's tables, one per distinct (a, b) and
    flag (whether the table's phi^ has the tangent's slope, see :func:`exact_variance`),
    and each pair's law (a, b < 2^32 for a stack: one uint64 key)."""
    counts = np.diff(tables.pair_off)
    first_rows = tables.ua[tables.row_off[:-1]]  # the smallest sizes, as in shifts
    first_cols = tables.ub[tables.col_off[:-1]]
    sloped = np.repeat(first_rows.astype(np.float64) * first_cols >= n, counts)
    keys = (tables.pa.astype(np.uint64) << np.uint64(32)) | tables.pb.astype(np.uint64)
    index = np.empty(keys.shape[0], dtype=np.int64)
    found, flags = [], []
    for flag in (False, True):
        at = np.flatnonzero(sloped == flag)
        if at.shape[0]:
            distinct, inverse = np.unique(keys[at], return_inverse=True)
            index[at] = inverse + sum(f.shape[0] for f in found)
            found.append(distinct)
            flags.append(np.full(distinct.shape[0], flag))
    law_keys = np.concatenate(found) if found else np.zeros(0, dtype=np.uint64)
    law_sloped = np.concatenate(flags) if flags else np.zeros(0, dtype=bool)
    return ((law_keys >> np.uint64(32)).astype(np.int64),
            (law_keys & np.uint64(0xFFFFFFFF)).astype(np.int64), law_sloped, index)


def _most_cells(class_sizes: np.ndarray, cluster_sizes: np.ndarray) -> float:
    """The most cells (rows x columns) of a stack's tables: its windows' cut is theirs."""
    return float(np.max(np.count_nonzero(class_sizes, axis=1).astype(np.float64)
                        * np.count_nonzero(cluster_sizes, axis=1)))


def _expansion_kernel(ua, ca, ub, cb, n: int, path: str | None,
                      costs: tuple[float, float], plan: ExactPlan | None,
                      budget: float = math.inf):
    """The expansion to run (compiled, vectorised in numpy, or its plain-Python source), or
    None for the numpy sums (see :func:`exact_variance`); ``costs``: the estimated costs
    of the plain-Python and the numpy expansion (units of ~5 ns). Uncompiled, it runs only
    within ``budget`` (``auto``'s, as the numpy sums: beyond it, auto estimates)."""
    if path in _PATHS:
        return _PATHS[path]
    if path == "compiled":
        kernel = compiled.smi_variance_kernel(math.inf)
        if kernel is None:
            raise ValueError("path='compiled' needs numba and kernels mode 'auto' or 'numba'")
        return kernel
    kernel = compiled.smi_variance_kernel(0.0)  # ready already (no work asks to load it)
    if kernel is not None:
        return kernel
    python, vectorised = costs
    if _kernels.compiled_available():
        # loaded where the numpy expansion's time would repay it (the ski-rental rule of
        # compute.dispatch; its work counts terms of the numpy sums)
        kernel = compiled.smi_variance_kernel(vectorised / EXACT_TERM_COST)
        if kernel is not None:
            return kernel
    terms = plan.terms if plan is not None and plan.terms is not None else \
        (nested_terms(ua, ca, ub, cb, n), nested_terms(ub, cb, ua, ca, n))
    if min(python, vectorised) > min(min(terms) * EXACT_TERM_COST, budget):
        return None
    # plain Python on a table so tiny that its steps cost less than numpy's calls
    return _smi_expansion.expansion_moments if python < vectorised else vectorised_moments


# the expansions ``path`` names (tests compare them): "numpy" is Romano et al.'s sums
_PATHS = {"numpy": None, "python": _smi_expansion.expansion_moments,
          "vectorised": vectorised_moments}


# a loop of stacks of one sample's replicates expands, through the memo, about this many
# times the laws of its first stack (5612 against 2362 over 20 stacks of 50 replicates of
# 10 x 10 labels over 1000 items)
_LAW_STACKS = 3


def stack_expansion(class_sizes: np.ndarray, cluster_sizes: np.ndarray, n: int,
                    memo: dict):
    """The expansion :func:`exact_variances` runs over a stack's tables: the compiled one
    where it is ready, or where the numpy one's estimated time (over all the stacks of a
    loop: a pass serves its tables at once, so its work counts once per stack of them)
    would repay compiling it; else the numpy one, keeping the laws' terms in ``memo``
    (the stacks of one sample's replicates share most of their laws)."""
    kernel = compiled.smi_variances_kernel(0.0)  # ready already (no work asks to load it)
    if kernel is not None:
        return kernel
    tables = tables_of(class_sizes, cluster_sizes)
    pa, pb, sloped, _ = _stack_laws(tables, n)
    cut = expansion_cut(n, _most_cells(class_sizes, cluster_sizes))
    new = ~remembered(memo, n, cut, FIRST_ORDER, pa, pb, sloped)
    laws = float(vectorised_law_costs(pa[new], pb[new], n, cut).sum())
    with _kernels.repeated(1.0 / class_sizes.shape[0]):
        loops = _kernels.repeats()
        # every stack of the loop sums its tables; the laws new to the memo are about
        # _LAW_STACKS times this stack's in all (those of the later stacks are mostly known)
        work = stack_sums_cost(tables) + laws * min(loops, _LAW_STACKS) / loops
        kernel = compiled.smi_variances_kernel(work / EXACT_TERM_COST)
    return kernel if kernel is not None else partial(vectorised_variances, memo=memo)


def _expanded(kernel, ua, ca, ub, cb, n: int) -> tuple[float, float] | None:
    """(E[S], Var[S]) from the expansion ``kernel``, or None where it could not bound the
    orders it leaves out."""
    k0, slope, shift = shifts(ua, ca, ub, cb, n)
    cut = expansion_cut(n, float(ca.sum()) * float(cb.sum()))
    # one type per argument: numba compiles a version of a kernel per type it meets
    ints = [one_type(x, np.int64) for x in (ua, ca, ub, cb, k0)]
    means, parts, bound = kernel(ints[0], ints[1], ints[2], ints[3], int(n), ints[4],
                                 one_type(slope, np.float64), float(cut))
    if not math.isfinite(bound):
        return None
    e_s = math.fsum((means * np.outer(ca, cb)).ravel().tolist()) + shift
    return e_s, max(math.fsum(parts.tolist()), 0.0)
