"""What the exact variance of the SMI costs, and how wide its windows are.

The exact variance (:mod:`clustermetrics.scores._smi`) runs one of four paths: the
orthogonal expansion compiled, the same expansion vectorised in numpy
(:mod:`clustermetrics.scores._smi_vectorised`) or as plain Python, or Romano et al.'s
nested sums in numpy (:mod:`clustermetrics.scores._smi_nested`). ``method="auto"`` of the
SMI weighs the chosen one against Monte Carlo draws
(:mod:`clustermetrics.scores._smi_monte_carlo`) by the estimates here: the expansion's
steps (:func:`table_steps`: a law's window times its orders, :func:`_pair_steps`) and the
nested sums' terms (:func:`nested_terms`), both from the widths of the hypergeometric
windows (:func:`_est_width`) at the truncations whose error bounds are proven below
(:func:`nested_cut`, :func:`expansion_cut`). The estimates depend only on the table's
sizes, so a table of a stack is priced as it would be alone (:func:`exact_costs`).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ..compute import dispatch as _kernels
from . import _smi_expansion
from ._line_sizes import Tables, tables_of

__all__ = ["CALL_COST", "EXACT_TERM_COST", "KERNEL_STEP_COST", "PYTHON_STEP_COST", "ExactPlan",
           "distinct_sizes", "exact_cost", "exact_costs", "exact_work", "expansion_cut",
           "nested_cut", "nested_terms", "stack_sums_cost", "table_steps",
           "vectorised_costs", "vectorised_law_costs"]


def distinct_sizes(sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    u, c = np.unique(np.asarray(sizes, dtype=np.int64), return_counts=True)
    return u, c.astype(np.float64)


def exact_work(a: np.ndarray, b: np.ndarray) -> float:
    """Estimated work of the nested sums (:mod:`._smi_nested`) in hypergeometric terms
    (the cheaper orientation; each term ~100 ns, plus a fixed cost per pair of distinct
    sizes)."""
    n = int(np.sum(a))
    ua, ca = distinct_sizes(a)
    ub, cb = distinct_sizes(b)
    return min(nested_terms(ua, ca, ub, cb, n), nested_terms(ub, cb, ua, ca, n))


class ExactPlan(NamedTuple):
    """:func:`exact_cost`'s estimate: ``cost`` in units of ~5 ns; ``work`` what it counts
    (the expansion's steps, or the numpy sums' terms where those are the cheaper);
    ``steps`` the expansion's estimated steps; ``terms`` the numpy sums' terms with the
    first sizes as rows and with the second (what :func:`._smi.exact_variance` orients
    them by), None where not estimated (compiled kernels may run: the expansion is the
    cheaper); ``vectorised`` the cost of the expansion in numpy (same units)."""

    cost: float
    work: float
    steps: float
    terms: tuple[float, float] | None
    vectorised: float


def exact_cost(a: np.ndarray, b: np.ndarray) -> ExactPlan:
    """The estimated cost of :func:`._smi.exact_variance`: the compiled expansion
    (:mod:`clustermetrics.scores._smi_expansion`) where compiled kernels may run, else the
    cheaper of the same expansion in plain Python and the numpy sums. It does not depend
    on whether the kernel is loaded yet (that only decides when it loads), so the method
    ``auto`` picks depends on the table alone (and is the same for a table of a stack,
    :func:`exact_costs`)."""
    n = int(np.sum(a))
    tables = tables_of(np.atleast_2d(a), np.atleast_2d(b))
    steps, vectorised = float(table_steps(tables, n)[0]), float(vectorised_costs(tables, n)[0])
    if _kernels.compiled_available():
        return ExactPlan(steps * KERNEL_STEP_COST + CALL_COST, steps, steps, None, vectorised)
    ua, ca = distinct_sizes(a)
    ub, cb = distinct_sizes(b)
    terms = (nested_terms(ua, ca, ub, cb, n), nested_terms(ub, cb, ua, ca, n))
    python, numpy_sums = steps * PYTHON_STEP_COST, min(terms) * EXACT_TERM_COST
    if min(python, vectorised) <= numpy_sums:
        return ExactPlan(min(python, vectorised) + CALL_COST, steps, steps, terms, vectorised)
    return ExactPlan(numpy_sums + CALL_COST, min(terms), steps, terms, vectorised)


def exact_costs(class_sizes: np.ndarray, cluster_sizes: np.ndarray, n: int) -> np.ndarray:
    """:func:`exact_cost` (``cost``, compiled) of each table of ``n`` items whose class and
    cluster sizes are the rows of ``class_sizes`` and ``cluster_sizes`` (zeros: absent
    lines), with the same arithmetic as one table's."""
    return table_steps(tables_of(class_sizes, cluster_sizes), n) * KERNEL_STEP_COST + CALL_COST


def table_steps(tables: Tables, n: int) -> np.ndarray:
    """Estimated steps of the expansion of each table of ``tables``: its laws'
    :func:`_pair_steps`, and the work per pair and per call around them."""
    counts = np.diff(tables.pair_off)
    steps = _pair_steps(tables.pa, tables.pb, n, np.repeat(_table_cuts(tables, n), counts))
    return np.add.reduceat(steps, tables.pair_off[:-1]) + _PAIR_STEPS * counts


def _table_cuts(tables: Tables, n: int) -> np.ndarray:
    """:func:`expansion_cut` of each table of ``tables``."""
    counts = np.diff(tables.pair_off)
    rows = np.add.reduceat(tables.ca, tables.row_off[:-1]) if tables.ca.size else counts
    cols = np.add.reduceat(tables.cb, tables.col_off[:-1]) if tables.cb.size else counts
    return np.array([expansion_cut(n, float(r) * float(c))
                     for r, c in zip(rows.tolist(), cols.tolist(), strict=True)])


def vectorised_costs(tables: Tables, n: int) -> np.ndarray:
    """Estimated cost of the numpy expansion (:mod:`._smi_vectorised`) of each table of
    ``tables`` alone, in units of ~5 ns: its window steps, its laws taken from a Taylor
    polynomial (plain Python), and the numpy calls around them."""
    counts = np.diff(tables.pair_off)
    windows, taylor = _law_steps(tables.pa, tables.pb, n,
                                 np.repeat(_table_cuts(tables, n), counts))
    return np.add.reduceat(_numpy_law_costs(windows, taylor), tables.pair_off[:-1]) \
        + NUMPY_CALL_COST


def vectorised_law_costs(pa: np.ndarray, pb: np.ndarray, n: int, cut: float) -> np.ndarray:
    """Estimated cost of each law Hyp(n, pa, pb) in the numpy expansion at the windows'
    ``cut`` (units of ~5 ns): its window steps, or its Taylor polynomial (plain Python)."""
    return _numpy_law_costs(*_law_steps(pa, pb, n, np.full(pa.shape[0], cut)))


def _numpy_law_costs(windows: np.ndarray, taylor: np.ndarray) -> np.ndarray:
    """Each law's cost in the numpy expansion: its window steps, and for a law of large
    mean its Taylor polynomial as well. Priced in full because the table's Taylor
    remainders may turn out too large for its variance, and the laws are then summed
    over their windows after all: on Zipf-like sizes (one law of a large mean among
    many small ones: a 10^6-item entity table) pricing the Taylor polynomial alone
    ran ~4 s of windows where ~0.3 s was estimated, before Monte Carlo took over."""
    return windows * NUMPY_STEP_COST + np.where(taylor, NUMPY_TAYLOR_COST, 0.0)


def stack_sums_cost(tables: Tables) -> float:
    """Estimated cost of the numpy expansion's sums over the cells of all the tables of
    ``tables`` in one pass (:func:`._smi_vectorised.vectorised_variances`), for the first
    orders, in units of ~5 ns; its laws cost :func:`vectorised_law_costs` each."""
    cells = float(np.sum(tables.pair_count > 0)) * _smi_expansion.FIRST_ORDER
    return cells * NUMPY_CELL_COST + NUMPY_CALL_COST


# one term costs ~100 ns (20 units of ~5 ns, the unit of the sampling costs below;
# 80-180 ns measured on tables of N = 1e4 to 1e6 at load 5-7)
EXACT_TERM_COST = 20.0
_PAIR_COST = 3000.0  # the Python work per pair of distinct sizes, in terms (~30 us)
# one step of the expansion (a point of a window times an order), in units of ~5 ns:
# compiled ~1.5-2.5 ns, plain Python ~1.2-5 us (measured on 3 x 3 to 10 x 10 labels)
KERNEL_STEP_COST = 0.4
PYTHON_STEP_COST = 600.0
# steps per point of a window beyond its orders (the pmf and phi^: two logarithms), and
# per pair of distinct sizes (a call, the recurrence's coefficients, the sums per order)
_POINT_STEPS = 8.0
_PAIR_STEPS = 64.0
# the numpy expansion (scores._smi_vectorised): a step on the padded (laws x window)
# arrays ~10 ns (8-13 ns measured on 10 x 10 to 100 x 100 labels of N = 1e3 to 1e5, load
# ~3), ~1 ms of numpy calls per table (the orders' loop and the sums over its cells),
# ~25-50 us per law from its Taylor polynomial (~0.8 ms as plain Python), and in a stack's
# pass ~125 ns per cell of a table and order (50 tables of 10 x 10 labels). Unlike the
# compiled estimate, it counts the windows of the laws of large mean too
# (:func:`_numpy_law_costs`)
NUMPY_STEP_COST = 3.0
NUMPY_CALL_COST = 2e5
NUMPY_TAYLOR_COST = 1e4
NUMPY_CELL_COST = 25.0
CALL_COST = 1.2e4  # per table, in units of ~5 ns (~60 us of Python around the sums)
# steps of a law from its Taylor polynomial (degree ~10-40, its moments and Horner's rule)
_TAYLOR_STEPS = 1500.0


def nested_cut(n: int, cells: float) -> float:
    """T of the windows: every law keeps the k where log p(k) >= log p(mode) - T.

    Bound. The hypergeometric pmf is log-concave in k, so p(k + 1) / p(k) decreases in k;
    from the first excluded K > mode (p(K) < e^-T p(mode)) the ratios are below
    r = e^(-T / (K - mode)), and the excluded mass on that side is at most
    p(K) / (1 - r) <= e^-T p(mode) (1 + (K - mode) / T); with the left side, at most
    tau = 2 e^-T (1 + N) of the kept mass. Every summand is a shifted
    phi(k) - phi(k0) in [-B, B], B = N log N <= 2 N log N + N, so a
    truncated and renormalised expectation is off by at most 2 tau B; following the
    nesting (G over <= R rows, <= C other columns, R C cells) Var[S] is off by at most
    28 tau (R C)^2 B^2. With T = 60 log 2 + log 56 + log(1 + N) + 2 log(R C) + 2 log B
    that is below 2^-60 (absolute; far below the rounding of the sums)."""
    bound = 2.0 * n * math.log(max(n, 1)) + n
    return (60.0 * math.log(2.0) + math.log(56.0) + math.log1p(n)
            + 2.0 * math.log(max(cells, 1.0)) + 2.0 * math.log(max(bound, 1.0)))


def expansion_cut(n: int, cells: float) -> float:
    """T of the expansion's windows (:mod:`clustermetrics.scores._smi_expansion`).

    Bound. With tau = 2 e^-T (1 + N) the mass outside a window (as in :func:`nested_cut`) and
    |phi^| <= B: a polynomial orthonormal under the law has sum_out p Q_q^2 <= 1, so by
    Cauchy-Schwarz sum_out p phi^ Q_q is at most B sqrt(tau), and each coefficient alpha_q
    computed on the renormalised window is off by at most 3 B sqrt(tau), the variances by
    less. The order-1 part and each order q <= K (K <= MAX_ORDER) sum at most (R C)^2
    products of two coefficients with |rho_q| <= 1, and the tail bound's residuals move
    as much: Var[S] is off by at most 16 (K + 2) (R C)^2 B^2 sqrt(tau). With T / 2 =
    60 log 2 + log(16 (MAX_ORDER + 2)) + log(2 (1 + N)) / 2 + 2 log(R C) + 2 log B that is
    below 2^-60 (absolute; the square root of tau costs the factor 2 in T against the nested
    sums)."""
    bound = 2.0 * n * math.log(max(n, 1)) + n
    return 2.0 * (60.0 * math.log(2.0) + math.log(16.0 * (_smi_expansion.MAX_ORDER + 2))
                  + 0.5 * math.log(2.0 * (1.0 + n)) + 2.0 * math.log(max(cells, 1.0))
                  + 2.0 * math.log(max(bound, 1.0)))


def _est_width(pop, succ, draws, cut) -> np.ndarray:
    """About how many k a window of Hyp(pop, succ, draws) holds (normal tails of
    sqrt(2 T) standard deviations, a few more where the mean is small; at most the
    support)."""
    pop = np.maximum(np.asarray(pop, dtype=np.float64), 1.0)
    succ = np.asarray(succ, dtype=np.float64)
    draws = np.asarray(draws, dtype=np.float64)
    q = succ / pop
    var = np.maximum(draws * q * (1.0 - q) * (pop - draws) / np.maximum(pop - 1.0, 1.0), 0.0)
    support = np.maximum(np.minimum(succ, draws) - np.maximum(draws + succ - pop, 0.0) + 1.0,
                         1.0)
    return np.minimum(support, 2.0 * np.sqrt(2.0 * cut) * np.sqrt(var) + 0.1 * cut)


def nested_terms(ua: np.ndarray, ca: np.ndarray, ub: np.ndarray, cb: np.ndarray, n: int) -> float:
    """Estimated terms of the nested sums (:mod:`._smi_nested`) with rows of sizes
    ``ua`` (distinct, with multiplicities ``ca``) and columns ``ub``: for each pair (a, b),
    the window of x = n_ij times the windows of y = n_ij' ~ Hyp(N - b, b', a - x) over the
    other columns b', and G_a(m) over the m that needs (windows of Hyp(N - a, a', m) over
    the other rows a')."""
    cut = nested_cut(n, float(ca.sum()) * float(cb.sum()))
    na, nb = ua.shape[0], ub.shape[0]
    af, bf = ua.astype(np.float64), ub.astype(np.float64)
    wx = _est_width(n, af[:, None], bf[None, :], cut)  # (a, b)
    draws = af[:, None] * (1.0 - bf[None, :] / n)  # a - E[x]
    others_b = (cb[None, :] - np.eye(nb)) > 0  # (b, b'): b' is another column
    others_a = (ca[None, :] - np.eye(na)) > 0  # (a, a')
    if na * nb * max(na, nb) <= 1 << 21:
        wy = _est_width(n - bf[None, :, None], bf[None, None, :], draws[:, :, None], cut)
        wy = wy * others_b[None, :, :]  # (a, b, b')
        span = (wy + wx[:, :, None] * (bf[None, None, :] / np.maximum(n - bf, 1.0)[None, :, None])
                ).max(axis=1)  # m = b' - y over all x and b: (a, b')
        wg = (_est_width(n - af[:, None, None], af[None, :, None], bf[None, None, :], cut)
              * others_a[:, :, None]).sum(axis=1)  # (a, m ~ b')
        walk = float((wx * wy.sum(axis=2)).sum())
    else:  # many distinct sizes: the same with N for N - b and N - a (an over-estimate)
        wy = _est_width(n, bf[None, :], af[:, None], cut)  # (a, b')
        span = wy + wx
        wg = np.broadcast_to(_est_width(n, af[:, None], bf[None, :], cut).sum(axis=0), (na, nb))
        walk = float((wx * wy.sum(axis=1, keepdims=True)).sum())
    table = float(((span + wx) * wg).sum())
    return walk + table + _PAIR_COST * na * nb


def _pair_steps(pa: np.ndarray, pb: np.ndarray, n: int, cut: np.ndarray) -> np.ndarray:
    """Estimated steps of the expansion (:mod:`clustermetrics.scores._smi_expansion`) of each law
    Hyp(N, pa, pb) (windows at ``cut``): its window times the orders it is expanded to
    (FIRST_ORDER, at most its support; more are rarely needed) plus the pmf and phi^ on
    the window, or, for a large mean, the Taylor polynomial's Horner steps
    (~_TAYLOR_STEPS)."""
    steps, taylor = _law_steps(pa, pb, n, cut)
    return np.where(taylor, np.minimum(steps, _TAYLOR_STEPS), steps)


def _law_steps(pa: np.ndarray, pb: np.ndarray, n: int, cut: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray]:
    """(steps, taylor): each law's window steps and whether it is taken from its Taylor
    polynomial instead (see :func:`_pair_steps`)."""
    af, bf = pa.astype(np.float64), pb.astype(np.float64)
    width = _est_width(n, af, bf, cut)
    support = np.minimum(af, bf) - np.maximum(af + bf - n, 0.0) + 1.0
    orders = np.minimum(support - 1.0, float(_smi_expansion.FIRST_ORDER))
    steps = width * (orders + _POINT_STEPS)
    taylor = (af * bf >= _smi_expansion.MOMENT_MEAN * n) & (
        support - 1.0 > _smi_expansion.TAYLOR_MAX + orders + 4)
    return steps, taylor
