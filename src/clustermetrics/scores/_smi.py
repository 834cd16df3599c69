"""The variance of the mutual information under the permutation model, for the SMI.

Romano, Bailey, Nguyen & Verspoor, "Standardized mutual information for clustering
comparisons: one step further in adjustment for chance", ICML 2014: SMI = (MI - E[MI]) /
sd[MI] with both labellings' sizes fixed and the pairing of items random (the model of
AMI's E[MI]). With S = sum_ij n_ij log n_ij, N MI = S + N log N - sum a log a - sum b log b,
so Var[MI] = Var[S] / N^2.

Exact variance
--------------
Var[S] = sum_ij Cov(phi(n_ij), S) = sum_ij E[(phi(n_ij) - m_ij) (E[S | n_ij] - E[S])]
with phi(n) = n log n and m_ij = E[phi(n_ij)]; the centred form keeps the rounding error
at the size of the variance times eps E[S] / sd instead of eps E[S]^2. E[S | n_ij = x] is
the sum over every cell of its expectation given x, which Romano et al. (Theorem 1 and
their published code) obtain from nested hypergeometric laws:

* cell (i, j'), j' != j: n_ij' ~ Hyp(N - b_j, a_i - x, b_j');
* cell (i', j'), i' != i, j' != j: given n_ij' = y, n_i'j' ~ Hyp(N - a_i, a_i', b_j' - y);
* cell (i', j): n_i'j ~ Hyp(N - a_i, a_i', b_j - x).

The sums over i' depend on the row only through a_i, so G_a(m) = sum_{i' != i}
E_Hyp(N - a, a_i', m)[phi] is kept once per distinct row size; every sum is over the
distinct row and column sizes weighted by their multiplicities.

Each law is summed only over its window, the k with log p(k) >= log p(mode) - T: the
hypergeometric pmf is log-concave, so the neglected mass has a geometric bound, and T
(:func:`_cut`, about 60 log 2 plus logarithms of N and of the number of cells) keeps the
change in Var[S] below 2^-60. A window spans about 2 sqrt(2 T) standard deviations of
its law, so the work is about sum_{a,b} w(a, b) sum_{b'} w'(a, b, b') (w the windows, of
the order of the square roots of the sizes, or the whole support where that is shorter)
instead of growing with N; :func:`exact_work` estimates it. The pmf is a product of
ratios p(k + 1) / p(k) (no log k! table), and each phi(n_ij) is shifted by phi(k0_ij),
k0_ij the integer nearest a_i b_j / N, and on dense tables by its tangent
(:func:`exact_variance`), so the rounding scales with the fluctuations of the cells rather
than with E[S].

The variance also comes, far cheaper, from one law per pair of distinct sizes
(:mod:`clustermetrics.scores._smi_expansion`): every pair of cells' joint law is diagonal in the
orthogonal (Hahn) polynomials of the two cells' laws, with correlations that factor over
rows and columns, so Var[S] is a sum over orders q of separable double sums over the
cells, each O(distinct rows x distinct columns); the orders left out are bounded (their
correlations do not increase with q) and added until that bound is below 2^-60 of the
variance. Each law costs its window times the orders (12-30 suffice on the tables
measured), or, for a large mean, O(degree^2) from the Taylor polynomial of phi at the
mean with a bounded remainder; :func:`_pair_steps` estimates it. It runs compiled
(:mod:`clustermetrics.scores._smi_kernels`) wherever compiled kernels may run (``method="auto"``
prices the exact variance with it then, :func:`exact_cost`, and the kernel loads when
the uncompiled run would cost more than loading it), else as plain Python where that is
cheaper than the numpy sums above. A stack's tables (bootstrap replicates) share most of
their laws: :func:`exact_variances` expands each once for all of them.

Monte Carlo
-----------
Random tables with the same margins are drawn row by row from the multivariate
hypergeometric law (cost R C per table) or, when that is larger, as random pairings of the
items (the column labels, laid out by size, shuffled against the row labels, and counted
into cells in O(N)). The draw depends only on the sorted sizes, so it is the same for every
order of the labels and for the transposed table. E[MI] is exact (AMI's), so only the
variance is estimated, from Y_k = (S_k - E[S])^2 over the M draws.

Control variates. Two weighted pair counts of each table, P = sum_ij C(n_ij, 2) and
W = sum_ij u_i v_j C(n_ij, 2) with u_i ~ 1/a_i and v_j ~ 1/b_j, have exact means and
covariances under the same model (the pair-count moments of Hubert & Arabie 1985, with
weights; see :func:`control_moments`). S moves with them: on sparse tables S is about
log(2) times the number of cells holding 2 items, i.e. about P log 2, and on dense ones
S - E[S] is about half Pearson's chi-square, sum (n - mu)^2 / (2 mu), i.e. about N W (the
linear term of n log n around mu_ij = a_i b_j / N is additive in i and j, so it is
constant). So sigma^2 = E[Y] is estimated by the regression (control-variate) estimator:
the intercept of the least-squares fit of Y_k on the centred controls
X_k = ((P_k - E P)^2, (W_k - E W)^2, (P_k - E P)(W_k - E W)) - E[X], whose expectations are
exact; its standard error is the fit's standard error of the intercept (Glasserman,
"Monte Carlo Methods in Financial Engineering", 2003, section 4.1). When S is close to a
combination of P and W the error shrinks by sqrt(1 - R^2) against the plain mean of Y, so
the same standard error needs far fewer tables. With fewer than 12 tables the plain mean
is used (standard error sd(Y) / sqrt(M), whatever the law of S). The delta method gives
SE(SMI) = |SMI| SE(sigma^2) / (2 sigma^2). (Klede et al., "FastAMI", AAAI 2023, estimate
both moments by Monte Carlo.)
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import NamedTuple

import numpy as np

from ..compute import dispatch as _kernels
from ..compute.kernel_arrays import one_type
from ..compute.special import gammaln
from . import _smi_expansion, compiled

__all__ = ["EXACT_TERM_COST", "KERNEL_STEP_COST", "ExactPlan", "exact_cost", "exact_costs",
           "exact_variance", "exact_variances", "exact_work", "sample_cost", "sample_costs",
           "sample_s",
           "sample_stats", "s_of_counts", "control_moments", "monte_carlo_variance"]


def s_of_counts(counts: np.ndarray) -> float:
    """sum n log n over the given counts (0 log 0 = 0), summed exactly-ish (fsum)."""
    c = np.asarray(counts, dtype=np.float64)
    c = c[c > 1]
    return math.fsum((c * np.log(c)).tolist())


def _distinct(sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    u, c = np.unique(np.asarray(sizes, dtype=np.int64), return_counts=True)
    return u, c.astype(np.float64)


def exact_work(a: np.ndarray, b: np.ndarray) -> float:
    """Estimated work of the numpy sums of :func:`exact_variance` in hypergeometric terms
    (the cheaper orientation; each term ~100 ns, plus a fixed cost per pair of distinct
    sizes)."""
    n = int(np.sum(a))
    ua, ca = _distinct(a)
    ub, cb = _distinct(b)
    return min(_work(ua, ca, ub, cb, n), _work(ub, cb, ua, ca, n))


class ExactPlan(NamedTuple):
    """:func:`exact_cost`'s estimate: ``cost`` in units of ~5 ns; ``work`` what it counts
    (the expansion's steps, or the numpy sums' terms where those are the cheaper);
    ``steps`` the expansion's estimated steps; ``terms`` the numpy sums' terms with the
    first sizes as rows and with the second (what :func:`exact_variance` orients them by),
    None where not estimated (compiled kernels may run: the expansion is the cheaper)."""

    cost: float
    work: float
    steps: float
    terms: tuple[float, float] | None


def exact_cost(a: np.ndarray, b: np.ndarray) -> ExactPlan:
    """The estimated cost of :func:`exact_variance`: the compiled expansion
    (:mod:`clustermetrics.scores._smi_expansion`) where compiled kernels may run, else the
    cheaper of the same expansion in plain Python and the numpy sums. It does not depend
    on whether the kernel is loaded yet (that only decides when it loads), so the method
    ``auto`` picks depends on the table alone (and is the same for a table of a stack,
    :func:`exact_costs`)."""
    n = int(np.sum(a))
    steps = float(_table_steps(_tables(np.atleast_2d(a), np.atleast_2d(b)), n)[0])
    if _kernels.compiled_available():
        return ExactPlan(steps * KERNEL_STEP_COST + _CALL_COST, steps, steps, None)
    ua, ca = _distinct(a)
    ub, cb = _distinct(b)
    terms = (_work(ua, ca, ub, cb, n), _work(ub, cb, ua, ca, n))
    python, numpy_sums = steps * PYTHON_STEP_COST, min(terms) * EXACT_TERM_COST
    if python <= numpy_sums:
        return ExactPlan(python + _CALL_COST, steps, steps, terms)
    return ExactPlan(numpy_sums + _CALL_COST, min(terms), steps, terms)


def exact_costs(class_sizes: np.ndarray, cluster_sizes: np.ndarray, n: int) -> np.ndarray:
    """:func:`exact_cost` (``cost``, compiled) of each table of ``n`` items whose class and
    cluster sizes are the rows of ``class_sizes`` and ``cluster_sizes`` (zeros: absent
    lines), with the same arithmetic as one table's."""
    return _table_steps(_tables(class_sizes, cluster_sizes), n) * KERNEL_STEP_COST + _CALL_COST


class Tables(NamedTuple):
    """The distinct line sizes of many tables and their pairs, laid end to end: table r
    has the row sizes ua[row_off[r]:row_off[r + 1]] (ascending, multiplicities ca), the
    column sizes likewise, and the pairs pa, pb[pair_off[r]:pair_off[r + 1]] (row-major)."""

    ua: np.ndarray
    ca: np.ndarray
    row_off: np.ndarray
    ub: np.ndarray
    cb: np.ndarray
    col_off: np.ndarray
    pa: np.ndarray
    pb: np.ndarray
    pair_off: np.ndarray


def _distinct_rows(sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(values, counts, offsets): the distinct positive entries of each row of a (B, L)
    array, ascending, laid end to end (one sort for all the rows)."""
    sizes = np.asarray(sizes, dtype=np.int64)
    if sizes.shape[0] == 1:
        values, counts = np.unique(sizes[0][sizes[0] > 0], return_counts=True)
        return values, counts.astype(np.int64), np.array([0, values.shape[0]])
    width = int(sizes.max(initial=0)) + 1
    rows = np.broadcast_to(np.arange(sizes.shape[0], dtype=np.int64)[:, None], sizes.shape)
    keep = sizes > 0
    keys, counts = np.unique(rows[keep] * width + sizes[keep], return_counts=True)
    table = keys // width
    offsets = np.searchsorted(table, np.arange(sizes.shape[0] + 1))
    return keys - table * width, counts.astype(np.int64), offsets.astype(np.int64)


def _tables(class_sizes: np.ndarray, cluster_sizes: np.ndarray) -> Tables:
    """:class:`Tables` of the tables whose class sizes are the rows of ``class_sizes`` and
    cluster sizes those of ``cluster_sizes`` (zeros: absent lines)."""
    ua, ca, row_off = _distinct_rows(class_sizes)
    ub, cb, col_off = _distinct_rows(cluster_sizes)
    if class_sizes.shape[0] == 1:  # one table: its pairs row-major, as below
        return Tables(ua, ca, row_off, ub, cb, col_off, np.repeat(ua, ub.shape[0]),
                      np.tile(ub, ua.shape[0]), np.array([0, ua.shape[0] * ub.shape[0]]))
    na, nb = np.diff(row_off), np.diff(col_off)
    pair_off = np.concatenate([[0], np.cumsum(na * nb)]).astype(np.int64)
    # each row entry repeated once per column of its table, then that table's columns
    row_table = np.repeat(np.arange(na.shape[0]), na)
    pa = np.repeat(ua, nb[row_table])
    block = np.repeat(np.arange(ua.shape[0]), nb[row_table])  # the row entry of each pair
    starts = np.concatenate([[0], np.cumsum(nb[row_table])])[:-1]
    pb = ub[col_off[row_table[block]] + np.arange(pa.shape[0]) - starts[block]]
    return Tables(ua, ca, row_off, ub, cb, col_off, pa, pb, pair_off)


def _table_steps(tables: Tables, n: int) -> np.ndarray:
    """Estimated steps of the expansion of each table of ``tables``: its laws'
    :func:`_pair_steps`, and the work per pair and per call around them."""
    counts = np.diff(tables.pair_off)
    rows = np.add.reduceat(tables.ca, tables.row_off[:-1]) if tables.ca.size else counts
    cols = np.add.reduceat(tables.cb, tables.col_off[:-1]) if tables.cb.size else counts
    cut = np.array([_expansion_cut(n, float(r) * float(c)) for r, c in zip(rows.tolist(),
                                                                          cols.tolist(),
                                                                          strict=True)])
    steps = _pair_steps(tables.pa, tables.pb, n, np.repeat(cut, counts))
    return np.add.reduceat(steps, tables.pair_off[:-1]) + _PAIR_STEPS * counts


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
_CALL_COST = 1.2e4  # per table, in units of ~5 ns (~60 us of Python around the sums)
# steps of a law from its Taylor polynomial (degree ~10-40, its moments and Horner's rule)
_TAYLOR_STEPS = 1500.0
_CHUNK = 1 << 20  # terms held at once (rows x window width)
_SHORT = 48  # supports shorter than this are kept whole (no bisection)


def _cut(n: int, cells: float) -> float:
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


def _expansion_cut(n: int, cells: float) -> float:
    """T of the expansion's windows (:mod:`clustermetrics.scores._smi_expansion`).

    Bound. With tau = 2 e^-T (1 + N) the mass outside a window (as in :func:`_cut`) and
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


def _work(ua: np.ndarray, ca: np.ndarray, ub: np.ndarray, cb: np.ndarray, n: int) -> float:
    """Estimated terms of :func:`exact_variance` with rows of sizes ``ua`` (distinct, with
    multiplicities ``ca``) and columns ``ub``: for each pair (a, b), the window of x = n_ij
    times the windows of y = n_ij' ~ Hyp(N - b, b', a - x) over the other columns b', and
    G_a(m) over the m that needs (windows of Hyp(N - a, a', m) over the other rows a')."""
    cut = _cut(n, float(ca.sum()) * float(cb.sum()))
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
    af, bf = pa.astype(np.float64), pb.astype(np.float64)
    width = _est_width(n, af, bf, cut)
    support = np.minimum(af, bf) - np.maximum(af + bf - n, 0.0) + 1.0
    orders = np.minimum(support - 1.0, float(_smi_expansion.FIRST_ORDER))
    steps = width * (orders + _POINT_STEPS)
    taylor = (af * bf >= _smi_expansion.MOMENT_MEAN * n) & (
        support - 1.0 > _smi_expansion.TAYLOR_MAX + orders + 4)
    return np.where(taylor, np.minimum(steps, _TAYLOR_STEPS), steps)


def _phi(k: np.ndarray) -> np.ndarray:
    k = np.asarray(k, dtype=np.float64)
    return k * np.log(np.maximum(k, 1.0))


def _log_pmf(pop, succ, draws, k) -> np.ndarray:
    """log P(Hyp(pop, succ, draws) = k) up to a term free of k (log-gamma; for the windows
    only: its error, ~1e-16 N log N, is far below the one nat of slack they get)."""
    k = np.asarray(k, dtype=np.float64)
    return -(gammaln(k + 1.0) + gammaln(succ - k + 1.0) + gammaln(draws - k + 1.0)
             + gammaln(pop - succ - draws + k + 1.0))


def _windows(pop, succ, draws, cut: float) -> tuple[np.ndarray, np.ndarray]:
    """(lo, hi): for each row the k of Hyp(pop, succ, draws) with log p(k) >= log p(mode)
    - cut (found by bisection on each side of the mode: the pmf is log-concave), widened by
    one nat against the rounding of log-gamma."""
    pop, succ, draws = np.broadcast_arrays(*(np.asarray(v, dtype=np.int64)
                                             for v in (pop, succ, draws)))
    klo = np.maximum(0, draws + succ - pop)
    khi = np.minimum(succ, draws)
    left, right = klo.copy(), khi.copy()
    wide = np.flatnonzero(khi - klo >= _SHORT)  # shorter supports are kept whole
    if wide.shape[0]:
        left[wide], right[wide] = _bisect(pop[wide], succ[wide], draws[wide], klo[wide],
                                          khi[wide], cut)
    return left, right


def _bisect(pop, succ, draws, klo, khi, cut):
    mode = np.clip((draws + 1) * (succ + 1) // (pop + 2), klo, khi)
    p, s, d = (v.astype(np.float64) for v in (pop, succ, draws))
    level = _log_pmf(p, s, d, mode) - cut - 1.0
    # left: smallest k in [klo, mode] above the level; right: largest in [mode, khi]
    lo, hi = klo.copy(), mode.copy()
    while np.any(lo < hi):
        mid = (lo + hi) // 2
        ok = _log_pmf(p, s, d, mid) >= level
        hi, lo = np.where(ok, mid, hi), np.where(ok, lo, mid + 1)
    left = hi
    lo, hi = mode.copy(), khi.copy()
    while np.any(lo < hi):
        mid = (lo + hi + 1) // 2
        ok = _log_pmf(p, s, d, mid) >= level
        lo, hi = np.where(ok, mid, lo), np.where(ok, hi, mid - 1)
    return left, lo


def _laws(pop, succ, draws, lo, hi) -> tuple[np.ndarray, np.ndarray]:
    """(k, P): P[r, t] = P(Hyp(pop_r, succ_r, draws_r) = k[r, t]) for k = lo_r .. hi_r
    (renormalised on the window; 0 past hi_r, where k is clipped to hi_r). The pmf comes
    from the products of the ratios p(k + 1) / p(k) = (s - k)(d - k) / ((k + 1)(p - s - d +
    k + 1)) from lo: each ratio is rounded once, so p is exact to ~eps times the width,
    whatever N (log-gamma differences would lose eps N log N)."""
    width = int(np.max(hi - lo)) + 1
    t = np.arange(width, dtype=np.int64)[None, :]
    k = lo[:, None] + t
    inside = k <= hi[:, None]
    k = np.minimum(k, hi[:, None])
    pf, sf, df = (np.asarray(v, dtype=np.float64)[:, None] for v in (pop, succ, draws))
    kf = k[:, :-1].astype(np.float64)
    ratio = ((sf - kf) * (df - kf)) / ((kf + 1.0) * (pf - sf - df + kf + 1.0))
    # within a window the pmf spans at most e^(T + 1) < 1e80 of the mode: no overflow
    prob = np.concatenate([np.ones((k.shape[0], 1)), np.where(inside[:, 1:], ratio, 0.0)],
                          axis=1).cumprod(axis=1)
    prob /= prob.sum(axis=1, keepdims=True)
    return k, prob


def _group_min(group: np.ndarray, values: np.ndarray, size: int) -> np.ndarray:
    out = np.full(size, np.iinfo(np.int64).max)
    np.minimum.at(out, group, values)
    return out


def _group_max(group: np.ndarray, values: np.ndarray, size: int) -> np.ndarray:
    out = np.full(size, np.iinfo(np.int64).min)
    np.maximum.at(out, group, values)
    return out


def _expect(pop, succ, draws, cut: float, f, windows=None) -> np.ndarray:
    """E[f(k)] under Hyp(pop, succ, draws) for each row (windowed, in chunks of rows of
    similar widths); ``f`` maps (the chunk's row indices, its matrix of k) to values."""
    pop, succ, draws = np.broadcast_arrays(*(np.asarray(v, dtype=np.int64)
                                             for v in (pop, succ, draws)))
    lo, hi = _windows(pop, succ, draws, cut) if windows is None else windows
    out = np.empty(pop.shape[0])
    order = np.argsort(hi - lo, kind="stable")  # chunks of similar widths
    start = 0
    while start < order.shape[0]:
        width = int(hi[order[start]] - lo[order[start]]) + 1
        stop = min(order.shape[0], start + max(1, _CHUNK // max(width, 1)))
        while stop > start + 1 and int(hi[order[stop - 1]] - lo[order[stop - 1]]) + 1 \
                > 2 * width:
            stop = start + 1 + (stop - start - 1) // 2
        rows = order[start:stop]
        k, prob = _laws(pop[rows], succ[rows], draws[rows], lo[rows], hi[rows])
        out[rows] = np.sum(prob * f(rows, k), axis=1)
        start = stop
    return out


def _anchor(a, b, n: int) -> np.ndarray:
    """k0 = round(a b / N) in integers (the same for a cell wherever it is computed)."""
    return (np.asarray(a, dtype=np.int64) * np.asarray(b, dtype=np.int64) + n // 2) // n


def _slope(a, b, n: int, sloped: bool):
    """phi'(a b / N) = log a + log b - log N + 1 (additive in the row and the column), or 0."""
    if not sloped:
        return np.zeros(np.broadcast(np.asarray(a), np.asarray(b)).shape)
    return (np.log(np.asarray(a, dtype=np.float64)) + np.log(np.asarray(b, dtype=np.float64))
            - math.log(n)) + 1.0


def _phi_shifted(k: np.ndarray, k0, slope) -> np.ndarray:
    """phi(k) - phi(k0) - slope (k - k0), as (k - k0) (log k - slope) + k0 log1p((k - k0) /
    k0): an absolute rounding error of ~eps |k - k0| log k instead of eps k log k."""
    k = np.asarray(k, dtype=np.float64)
    k0 = np.asarray(k0, dtype=np.float64)
    d = k - k0
    safe_k0 = np.maximum(k0, 1.0)
    body = d * (np.log(np.maximum(k, 1.0)) - slope) \
        + k0 * np.log1p(np.where(k > 0, d / safe_k0, 0.0))
    plain = _phi(k) - slope * k
    return np.where(k0 == 0, plain, np.where(k == 0, slope * k0 - _phi(k0), body))


class _OtherRows:
    """G_(a, b')(m) = sum over the rows i' != i of E_Hyp(N - a, a_i', m)[phi^_(i' j')] for
    a column j' of size b' holding m items outside row i (phi^ shifted by phi(k0),
    k0 = round(a_i' b' / N)),
    evaluated on demand over the needed ranges of m and kept (one per distinct row size
    a)."""

    def __init__(self, n: int, ua: np.ndarray, ca: np.ndarray, ia: int, cut: float,
                 sloped: bool):
        self.n, self.cut, self.sloped = n, cut, sloped
        self.av = int(ua[ia])
        mult = ca - (np.arange(ua.shape[0]) == ia)
        self.sizes, self.mult = ua[mult > 0], mult[mult > 0]
        self.segments: dict[int, list[tuple[int, np.ndarray]]] = {}  # b' -> (first m, values)

    def _values(self, bv: np.ndarray, m: np.ndarray) -> np.ndarray:
        r, s = m.shape[0], self.sizes.shape[0]
        succ = np.tile(self.sizes, r)
        k0 = _anchor(succ, np.repeat(bv, s), self.n)
        slope = _slope(succ, np.repeat(bv, s), self.n, self.sloped)
        vals = _expect(self.n - self.av, succ, np.repeat(m, s), self.cut,
                       lambda rows, k: _phi_shifted(k, k0[rows, None], slope[rows, None]))
        return (vals.reshape(r, s) * self.mult[None, :]).sum(axis=1)

    def ensure(self, wanted: list[tuple[int, int, int]]) -> list[tuple[int, np.ndarray]]:
        """For each (bv, lo, hi), (first m, values) of a kept run of G_(a, bv) that covers
        m = lo .. hi (the missing values computed together)."""
        plans, todo_b, todo_m = [], [], []
        for bv, lo, hi in wanted:
            segments = self.segments.setdefault(bv, [])
            touching = [(st, v) for st, v in segments
                        if st <= hi + 1 and lo <= st + v.shape[0]]
            first = min([lo] + [st for st, _ in touching])
            last = max([hi] + [st + v.shape[0] - 1 for st, v in touching])
            vals = np.full(last - first + 1, np.nan)
            for st, v in touching:
                vals[st - first:st - first + v.shape[0]] = v
            todo = np.flatnonzero(np.isnan(vals))
            plans.append((bv, first, vals, todo, {st for st, _ in touching}))
            todo_b.append(np.full(todo.shape[0], bv))
            todo_m.append(todo + first)
        computed = self._values(np.concatenate(todo_b), np.concatenate(todo_m))
        out, at = [], 0
        for bv, first, vals, todo, merged in plans:
            vals[todo] = computed[at:at + todo.shape[0]]
            at += todo.shape[0]
            segments = self.segments[bv]  # disjoint runs: their starts differ
            segments[:] = [seg for seg in segments if seg[0] not in merged] + [(first, vals)]
            out.append((first, vals))
        return out


def exact_variance(a: np.ndarray, b: np.ndarray, n: int, *, path: str | None = None,
                   plan: ExactPlan | None = None) -> tuple[float, float]:
    """(E[S], Var[S]) of S = sum n_ij log n_ij under the permutation model, exactly (up to
    rounding and truncations below 2^-60, see :func:`_cut` and :func:`_expansion_cut`), for
    class sizes ``a`` and cluster sizes ``b`` over ``n`` items.

    Each phi(n_ij) is replaced by phi^_ij(n_ij) = phi(n_ij) - phi(k0_ij) - s_ij (n_ij -
    k0_ij), k0_ij the integer nearest mu_ij = a_i b_j / N: per-cell constants, and where
    every mu_ij >= 1 the slopes s_ij = phi'(mu_ij) = log a_i + log b_j - log N + 1, additive
    in i and j so that sum_ij s_ij n_ij is the same for every table (elsewhere s = 0: on
    sparse tables that sum is ~N log N and would cancel only up to rounding). Var[S^] =
    Var[S], with terms of the size of their fluctuations, formed without cancellation
    (:func:`_phi_shifted`), so the rounding scales with them rather than with E[S].

    The variance comes from the expansion of the cells' joint laws in orthogonal
    polynomials (:mod:`clustermetrics.scores._smi_expansion`), compiled
    (:mod:`clustermetrics.scores._smi_kernels`) where the kernels load
    (:func:`clustermetrics.scores.compiled.smi_variance_kernel`: loaded, or loading them pays), else
    as plain Python where that is estimated cheaper than the numpy sums (Romano et al.'s
    nested sums, below), which also take over on the rare table where the expansion cannot
    bound its orders; ``path`` ("numpy", "compiled" or "python") forces one (tests compare
    them); ``plan``: :func:`exact_cost` of the same sizes, if known."""
    n = int(n)
    ua, ca = _distinct(a)
    ub, cb = _distinct(b)
    steps = plan.steps if plan is not None else \
        float(_table_steps(_tables(np.atleast_2d(a), np.atleast_2d(b)), n)[0])
    kernel = _expansion_kernel(ua, ca, ub, cb, n, path, steps, plan)
    if kernel is not None:
        moments = _expanded(kernel, ua, ca, ub, cb, n)
        if moments is not None:
            return moments
    terms = plan.terms if plan is not None and plan.terms is not None else \
        (_work(ua, ca, ub, cb, n), _work(ub, cb, ua, ca, n))
    if terms[1] < terms[0]:  # Var is symmetric: the cheaper side as rows
        ua, ca, ub, cb = ub, cb, ua, ca
    return _nested_sums(ua, ca, ub, cb, n)


def exact_variances(class_sizes: np.ndarray, cluster_sizes: np.ndarray, n: int, kernel
                    ) -> tuple[np.ndarray, np.ndarray]:
    """(Var[S], done) of many tables of ``n`` items (the rows of ``class_sizes`` and
    ``cluster_sizes``, zeros for absent lines: a stack's replicates) by the compiled
    expansion ``kernel`` (:func:`clustermetrics.scores.compiled.smi_variances_kernel`), each law
    of a pair of sizes expanded once for all the tables that hold it (replicates share most
    of theirs); done[r] False where the expansion could not bound table r's orders (use
    :func:`exact_variance` there). The same phi^ as :func:`exact_variance`, windows cut
    for the largest table (wider windows only add terms), so each value equals that
    table's alone to rounding."""
    tables = _tables(class_sizes, cluster_sizes)
    counts = np.diff(tables.pair_off)
    first_rows = tables.ua[tables.row_off[:-1]]  # the smallest sizes, as in _shifts
    first_cols = tables.ub[tables.col_off[:-1]]
    sloped = np.repeat(first_rows.astype(np.float64) * first_cols >= n, counts)
    # the laws: distinct (a, b) per flag (a, b < 2^32 for a stack: one uint64 key)
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
    law_keys, law_sloped = np.concatenate(found), np.concatenate(flags)
    pa = (law_keys >> np.uint64(32)).astype(np.int64)
    pb = (law_keys & np.uint64(0xFFFFFFFF)).astype(np.int64)
    k0 = _anchor(pa, pb, n)
    slope = np.where(law_sloped, _slope(pa, pb, n, True), 0.0)
    cells = float(np.max(np.count_nonzero(class_sizes, axis=1).astype(np.float64)
                         * np.count_nonzero(cluster_sizes, axis=1)))
    out = np.zeros(class_sizes.shape[0])
    status = np.empty(class_sizes.shape[0], dtype=np.int64)
    kernel(tables.ua, tables.ca, tables.row_off, tables.ub, tables.cb, tables.col_off,
           index, tables.pair_off, int(n), pa, pb,
           one_type(k0, np.int64), one_type(slope, np.float64), _expansion_cut(n, cells),
           out, status)
    return np.maximum(out, 0.0), status == 0


def _expansion_kernel(ua, ca, ub, cb, n: int, path: str | None, steps: float,
                      plan: ExactPlan | None):
    """The expansion to run (compiled, or its plain-Python source), or None for the numpy
    sums (see :func:`exact_variance`)."""
    if path == "numpy":
        return None
    if path == "python":
        return _smi_expansion.expansion_moments
    if path == "compiled":
        kernel = compiled.smi_variance_kernel(math.inf)
        if kernel is None:
            raise ValueError("path='compiled' needs numba and kernels mode 'auto' or 'numba'")
        return kernel
    kernel = compiled.smi_variance_kernel(0.0)  # ready already (no work asks to load it)
    if kernel is not None:
        return kernel
    terms = plan.terms if plan is not None and plan.terms is not None else \
        (_work(ua, ca, ub, cb, n), _work(ub, cb, ua, ca, n))
    if _kernels.compiled_available():
        # loaded where the numpy sums' terms would repay it (as before the expansion: the
        # compiled run is ~10^3 times the faster, and the plain-Python one rarely 10 times)
        kernel = compiled.smi_variance_kernel(min(terms))
        if kernel is not None:
            return kernel
    python = steps * PYTHON_STEP_COST
    return _smi_expansion.expansion_moments if python <= min(terms) * EXACT_TERM_COST \
        else None


def _shifts(ua, ca, ub, cb, n: int):
    """(k0, slope, shift): the anchors and slopes of phi^ (:func:`exact_variance`) per pair
    of distinct sizes, and E[S] - E[S^]."""
    k0 = _anchor(ua[:, None], ub[None, :], n)
    sloped = int(ua[0]) * int(ub[0]) >= n  # every mu_ij >= 1
    slope = _slope(ua[:, None], ub[None, :], n, sloped)
    mu = np.outer(ua.astype(np.float64), ub.astype(np.float64)) / n
    shift = math.fsum((np.outer(ca, cb) * (_phi(k0) + slope * (mu - k0))).ravel().tolist())
    return k0, slope, shift


def _expanded(kernel, ua, ca, ub, cb, n: int) -> tuple[float, float] | None:
    """(E[S], Var[S]) from the expansion ``kernel``, or None where it could not bound the
    orders it leaves out."""
    k0, slope, shift = _shifts(ua, ca, ub, cb, n)
    cut = _expansion_cut(n, float(ca.sum()) * float(cb.sum()))
    # one type per argument: numba compiles a version of a kernel per type it meets
    ints = [one_type(x, np.int64) for x in (ua, ca, ub, cb, k0)]
    means, parts, bound = kernel(ints[0], ints[1], ints[2], ints[3], int(n), ints[4],
                                 one_type(slope, np.float64), float(cut))
    if not math.isfinite(bound):
        return None
    e_s = math.fsum((means * np.outer(ca, cb)).ravel().tolist()) + shift
    return e_s, max(math.fsum(parts.tolist()), 0.0)


def _nested_sums(ua, ca, ub, cb, n: int) -> tuple[float, float]:
    """(E[S], Var[S]) by Romano et al.'s nested sums, in numpy (module docstring), rows of
    sizes ``ua`` (multiplicities ``ca``), columns ``ub``."""
    cut = _cut(n, float(ca.sum()) * float(cb.sum()))
    na, nb = ua.shape[0], ub.shape[0]
    k0, slope, shift = _shifts(ua, ca, ub, cb, n)
    sloped = int(ua[0]) * int(ub[0]) >= n  # as in _shifts
    weight = np.outer(ca, cb)

    # m(a, b) = E[phi^(n_ij)] for each pair of distinct sizes, and E[S^] = E[S] - const
    flat_k0, flat_slope = k0.ravel(), slope.ravel()
    means = _expect(n, np.repeat(ua, nb), np.tile(ub, na), cut,
                    lambda rows, k: _phi_shifted(k, flat_k0[rows, None],
                                                 flat_slope[rows, None])).reshape(na, nb)
    e_t = math.fsum((means * weight).ravel().tolist())
    e_s = e_t + shift

    var = []
    for ia, av in enumerate(ua.tolist()):
        g = _OtherRows(n, ua, ca, ia, cut, sloped)
        # x = n_ij ~ Hyp(N, a, b) for every column size b at once
        law = np.full(nb, n), np.full(nb, av), ub
        k, px = _laws(*law, *_windows(*law, cut))
        xlo, xhi = k[:, 0], k.max(axis=1)
        # rows (b, x, b'): y = n_ij' ~ Hyp(N - b, b', a - x), for the other columns b'
        cols, xs, others = [], [], []
        for jb in range(nb):
            x = np.arange(xlo[jb], xhi[jb] + 1)
            mult = cb - (np.arange(nb) == jb)
            kbs = np.flatnonzero(mult > 0)
            cols.append(np.full(x.shape[0] * kbs.shape[0], jb))
            xs.append(np.repeat(x, kbs.shape[0]))
            others.append(np.tile(kbs, x.shape[0]))
        col, xr, other = (np.concatenate(v) for v in (cols, xs, others))
        pop, succ, draws = n - ub[col], ub[other], av - xr
        ylo, yhi = _windows(pop, succ, draws, cut)
        # G_(a, b')(m) over every m needed: m = b - x (cells (i', j)), b' - y (cells (i', j'))
        need_lo = np.minimum(ub - xhi, _group_min(other, succ - yhi, nb))
        need_hi = np.maximum(ub - xlo, _group_max(other, succ - ylo, nb))
        runs = g.ensure([(int(ub[c]), int(need_lo[c]), int(need_hi[c])) for c in range(nb)])
        start = np.array([st for st, _ in runs], dtype=np.int64)
        offset = np.cumsum([0] + [v.shape[0] for _, v in runs])[:-1]
        flat = np.concatenate([v for _, v in runs])
        base = offset - start  # G_(a, ub[c])(m) = flat[base[c] + m]
        k0_row, slope_row = k0[ia, other], slope[ia, other]

        def inner(rows, y, succ=succ, other=other, k0_row=k0_row, slope_row=slope_row,
                  flat=flat, base=base):
            return _phi_shifted(y, k0_row[rows, None], slope_row[rows, None]) + \
                flat[base[other[rows], None] + succ[rows, None] - y]

        vals = _expect(pop, succ, draws, cut, inner, windows=(ylo, yhi))
        weights = (cb[other] - (other == col)) * vals
        for jb, bc in enumerate(cb.tolist()):
            x = np.arange(xlo[jb], xhi[jb] + 1)
            dev = _phi_shifted(x, k0[ia, jb], slope[ia, jb])
            cond = dev + flat[base[jb] + ub[jb] - x]  # cell (i, j) and the cells (i', j)
            here = col == jb
            cond = cond + np.bincount(xr[here] - xlo[jb], weights=weights[here],
                                      minlength=x.shape[0])
            var.append(ca[ia] * bc * float(px[jb, :x.shape[0]] @ ((dev - means[ia, jb])
                                                                 * (cond - e_t))))
    return e_s, max(math.fsum(var), 0.0)


# costs in units of ~5 ns (measured at N = 1e6, load ~5): a row-by-row draw ~90 ns a cell
# and ~5 us a row; a pairing ~15 ns an item shuffled and counted by the compiled kernel,
# ~35-70 ns with numpy's sort of the cell keys
_ROW_CELL_COST = 18.0
_ROW_COST = 1000.0
_PAIRING_ITEM_COST = 4.0
_PAIRING_ITEM_COST_NUMPY = 10.0
_ROWS_MAX_N = 10**9 - 1  # numpy's multivariate hypergeometric sampler needs N < 1e9
_PAIRING_MAX_N = 1 << 28  # a random pairing holds ~3 arrays of N int64 (6 GB at 2^28)
_MIN_CONTROL_SAMPLES = 12  # below this, the plain mean of the squared deviations


def _layout(sizes: np.ndarray) -> np.ndarray:
    return np.repeat(np.arange(sizes.shape[0], dtype=np.int64), sizes)


def _canonical(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted sizes, the side with fewer labels first (ties: the smaller list): the draws
    are then the same for any order of the labels and for the transposed table."""
    a = np.sort(np.asarray(a, dtype=np.int64))
    b = np.sort(np.asarray(b, dtype=np.int64))
    if (a.shape[0], a.tolist()) > (b.shape[0], b.tolist()):
        a, b = b, a
    return a, b


def sample_cost(a: np.ndarray, b: np.ndarray) -> float:
    """Rough cost of one random table in units of ~5 ns (measured; see _ROW_CELL_COST)."""
    return _sampler(*_canonical(a, b))[1]


def _pairing_item_cost(n: int) -> float:
    # the compiled count is used when it pays for ~20 tables (the least ``auto`` draws)
    if compiled.sampling_kernel_pays(20.0 * n):
        return _PAIRING_ITEM_COST
    return _PAIRING_ITEM_COST_NUMPY * max(1.0, math.log2(max(n, 2)) / 20.0)


def _sampler(a: np.ndarray, b: np.ndarray) -> tuple[str | None, float]:
    """(which sampler, its cost per table); (None, inf) when N is beyond both."""
    n = int(a.sum())
    rows, pairing = _sampler_costs(np.array([a.shape[0]]), np.array([b.shape[0]]), n)
    options = [(cost, name) for cost, name, ok in ((float(rows[0]), "rows", n <= _ROWS_MAX_N),
                                                   (pairing, "pairing", n <= _PAIRING_MAX_N))
               if ok]
    if not options:
        return None, math.inf
    cost, name = min(options)
    return name, cost


def _sampler_costs(rows: np.ndarray, cols: np.ndarray, n: int) -> tuple[np.ndarray, float]:
    """(row-by-row cost per table, pairing cost per table) of random tables with ``rows``
    x ``cols`` labels (rows: the side with fewer labels) over n items."""
    rows_cost = rows.astype(np.float64) * (cols.astype(np.float64) * _ROW_CELL_COST + _ROW_COST)
    return rows_cost, float(n) * _pairing_item_cost(n)


def sample_costs(n_classes: np.ndarray, n_clusters: np.ndarray, n: int) -> np.ndarray:
    """:func:`sample_cost` of tables of ``n`` items with these numbers of classes and
    clusters (the same arithmetic as one table's)."""
    fewer, more = np.minimum(n_classes, n_clusters), np.maximum(n_classes, n_clusters)
    rows, pairing = _sampler_costs(fewer, more, n)
    options = [c for c, ok in ((rows, n <= _ROWS_MAX_N),
                               (np.full(rows.shape, pairing), n <= _PAIRING_MAX_N)) if ok]
    return np.minimum.reduce(options) if options else np.full(rows.shape, math.inf)


_MAX_LINEAR_PAIRS = 1 << 22  # distinct (a, b) pairs for the linear control


class _Controls:
    """The control statistics of a random table with class sizes ``a`` and cluster sizes
    ``b`` (canonical order) and their exact moments under the permutation model.

    * P = sum_ij C(n_ij, 2);
    * W = sum_ij u_i v_j C(n_ij, 2), u_i = U // a_i / U (about 1 / a_i, dyadic, so its
      moments are exact integers over powers of 2), v_j the same for the clusters;
    * L = sum_ij c(mu_ij) n_ij with mu_ij = a_i b_j / N and c(mu) = log(1 + mu) +
      mu / (1 + mu) (about the slope of n log n at mu when mu is large, ~0 on cells that
      hold 0 or 1 item); left out when the table has more than _MAX_LINEAR_PAIRS distinct
      pairs of sizes.
    """

    def __init__(self, a: np.ndarray, b: np.ndarray, n: int):
        self.n = int(n)
        self.ua, ca = np.unique(a, return_counts=True)
        self.ub, cb = np.unique(b, return_counts=True)
        self.ca, self.cb = ca.astype(np.float64), cb.astype(np.float64)
        self.row_index = np.searchsorted(self.ua, a)
        self.col_index = np.searchsorted(self.ub, b)
        self.wa_int, self.sa = _weights(self.ua)
        self.wb_int, self.sb = _weights(self.ub)
        self.wa = self.wa_int / float(self.sa)  # exact: integers below 2^53 over 2^k
        self.wb = self.wb_int / float(self.sb)
        self.linear = None
        if self.ua.shape[0] * self.ub.shape[0] <= _MAX_LINEAR_PAIRS:
            mu = np.outer(self.ua.astype(np.float64), self.ub.astype(np.float64)) / self.n
            self.linear = np.stack([np.log1p(mu) + mu / (1.0 + mu), 1.0 / (1.0 + mu)])
        self.mean, self.cov = self._moments()

    def stats(self, rows, cols, counts) -> list[float]:
        """[S, P, W, L1, L2] of one table from its non-zero cells (``rows``, ``cols`` index
        the canonical sizes; L1 = L2 = 0 where the linear controls are left out)."""
        big = counts[counts > 1]
        c = big.astype(np.float64)
        s = float(np.sum(c * np.log(c)))
        pairs = counts * (counts - 1) // 2
        ia, ib = self.row_index[rows], self.col_index[cols]
        p = float(int(pairs.sum()))
        w = float(np.sum(pairs * (self.wa[ia] * self.wb[ib])))
        if self.linear is None:
            return [s, p, w, 0.0, 0.0]
        flat = ia * self.ub.shape[0] + ib
        return [s, p, w, *(float(np.sum(counts * np.take(c.ravel(), flat)))
                           for c in self.linear)]

    def _moments(self) -> tuple[np.ndarray, np.ndarray]:
        """Exact means and covariances of (P, W), rounded once; L's from float sums.

        For weighted pair counts Z_k = sum_ij u^k_i v^k_j C(n_ij, 2) (P has u = v = 1),
        with M = C(N, 2) and (N)_r the falling factorial: E[Z_k] = P_k Q_k / M with
        P_k = sum_i C(a_i, 2) u^k_i, Q_k the same over the clusters, and
        E[Z_k Z_l] = P_kl Q_kl / M + T1_kl U1_kl / (N)_3 + 4 T0_kl U0_kl / (N)_4 with
        P_kl = sum_i C(a_i, 2) u^k_i u^l_i, T1_kl = sum_i (a_i)_3 u^k_i u^l_i,
        T0_kl = P_k P_l - P_kl - T1_kl (the same over the clusters): the ordered pairs of
        item pairs that coincide, share one item or are disjoint (Hubert & Arabie 1985;
        the unweighted case is :mod:`._pair_moments`).

        For L = sum c_ij n_ij: Cov(n_ij, n_kl) = (N a_i [i=k] - a_i a_k)
        (N b_j [j=l] - b_j b_l) / (N^2 (N - 1)) under the permutation model, and
        E[n_ij C(n_kl, 2)] = [i=k][j=l] (a_i)_2 (b_j)_2 / (N)_2 + A_ik B_jl / (N)_3 with
        A_ik = a_i C(a_k, 2) - [i=k] (a_k)_2 and B_jl = b_j (b_l)_2 - 2 [j=l] (b_l)_2
        (the item of n_ij is one of the pair's, or not), which is separable in (i, k)
        and (j, l).
        """
        n = self.n
        sides = []
        for u, c, w, scale in ((self.ua, self.ca, self.wa_int, self.sa),
                               (self.ub, self.cb, self.wb_int, self.sb)):
            sizes = [int(x) for x in u.tolist()]
            cnt = [int(x) for x in c.tolist()]
            s2 = [x * (x - 1) // 2 for x in sizes]
            s3 = [_falling_int(x, 3) for x in sizes]
            weights = ([1] * len(cnt), [int(x) for x in w.tolist()])  # P's, then W's
            lin = [sum(cc * p * wk for cc, p, wk in zip(cnt, s2, weights[k], strict=True))
                   for k in range(2)]
            quad, third = {}, {}
            for k in range(2):
                for m in range(2):
                    both = [x * y for x, y in zip(weights[k], weights[m], strict=True)]
                    quad[k, m] = sum(cc * p * x for cc, p, x in zip(cnt, s2, both, strict=True))
                    third[k, m] = sum(cc * p * x for cc, p, x in zip(cnt, s3, both,
                                                                     strict=True))
            sides.append((lin, quad, third, scale))
        (pa, qa, ta, la), (pb, qb, tb, lb) = sides
        m2, n3, n4 = Fraction(n * (n - 1), 2), _falling_int(n, 3), _falling_int(n, 4)
        scale = [1, la * lb]  # W is the integer-weighted count divided by this
        mean = [Fraction(pa[k] * pb[k]) / m2 / scale[k] for k in range(2)]
        size = 2 if self.linear is None else 4
        cov = np.zeros((size, size))
        for k in range(2):
            for m in range(2):
                t0a = pa[k] * pa[m] - qa[k, m] - ta[k, m]
                t0b = pb[k] * pb[m] - qb[k, m] - tb[k, m]
                second = Fraction(qa[k, m] * qb[k, m]) / m2
                if n3:
                    second += Fraction(ta[k, m] * tb[k, m], n3)
                if n4:
                    second += Fraction(4 * t0a * t0b, n4)
                cov[k, m] = float(second / (scale[k] * scale[m]) - mean[k] * mean[m])
        means = [float(x) for x in mean]
        if self.linear is None:
            return np.array(means), cov
        # L1, L2: float sums over the distinct sizes (weighted by their multiplicities)
        nf = float(n)
        af, bf = self.ua.astype(np.float64), self.ub.astype(np.float64)
        mult = np.outer(self.ca, self.cb)
        sums, r_a, s_b = [], [], []
        for c in self.linear:
            sums.append(float((c * mult * np.outer(af, bf)).sum()))  # sum c_ij a_i b_j
            r_a.append((c * (self.cb * bf)[None, :]).sum(axis=1))  # sum_j c_ij b_j
            s_b.append((c * (self.ca * af)[:, None]).sum(axis=0))  # sum_i c_ij a_i
        for x in range(2):
            means.append(sums[x] / nf)
            for y in range(x + 1):
                terms = (nf * nf * float((self.linear[x] * self.linear[y] * mult
                                          * np.outer(af, bf)).sum()),
                         -nf * float((self.ca * af * r_a[x] * r_a[y]).sum()),
                         -nf * float((self.cb * bf * s_b[x] * s_b[y]).sum()),
                         sums[x] * sums[y])
                cov_xy = math.fsum(terms) / (nf * nf * (nf - 1.0))
                if x == y and cov_xy <= 1e-9 * max(abs(t) for t in terms) / (nf * nf * nf):
                    cov_xy = 0.0  # L is constant up to rounding (c additive in i and j)
                cov[2 + x, 2 + y] = cov[2 + y, 2 + x] = cov_xy
            cmat = self.linear[x] * mult
            a2, b2 = af * (af - 1.0), bf * (bf - 1.0)
            n2f, n3f = nf * (nf - 1.0), nf * (nf - 1.0) * (nf - 2.0)
            for k, (u_w, v_w) in enumerate(((np.ones_like(af), np.ones_like(bf)),
                                            (self.wa, self.wb))):
                p_u = float((self.ca * u_w * a2).sum()) / 2.0
                q_v = float((self.cb * v_w * b2).sum()) / 2.0
                alpha = af * p_u - u_w * a2
                beta = 2.0 * bf * q_v - 2.0 * v_w * b2
                e_lz = float((u_w * a2) @ cmat @ (v_w * b2)) / n2f
                if nf > 2:
                    e_lz += float(alpha @ cmat @ beta) / n3f
                cov[k, 2 + x] = cov[2 + x, k] = e_lz - means[2 + x] * means[k]
        return np.array(means), cov


def _checked_sampler(a: np.ndarray, b: np.ndarray) -> str:
    name, _ = _sampler(a, b)
    if name is None:
        raise ValueError(f"the Monte Carlo sampler supports N < {_ROWS_MAX_N + 1:.0e} items "
                         f"(numpy's multivariate hypergeometric sampler), got N = {a.sum()}")
    return name


def _weights(sizes: np.ndarray) -> tuple[np.ndarray, int]:
    """Integer weights u(s) = L // s (about L / s) for the sizes, and the scale L: exact
    integers for the moments, exact dyadic floats u / L for the tables."""
    scale = 1 << (int(np.max(sizes)).bit_length() + 20)
    return scale // np.maximum(np.asarray(sizes, dtype=np.int64), 1), scale


def _falling_int(x: int, k: int) -> int:
    out = 1
    for i in range(k):
        out *= x - i
    return out


def control_moments(a: np.ndarray, b: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Means and covariance of the controls (P, W[, L]) of :func:`sample_stats`."""
    ctl = _Controls(*_canonical(a, b), n)
    return ctl.mean, ctl.cov


def sample_stats(a: np.ndarray, b: np.ndarray, n_samples: int, seed: int,
                 controls: _Controls | None = None) -> np.ndarray:
    """(S, P, W, L) of ``n_samples`` random tables with margins ``a`` and ``b``, shape
    (4, M): S = sum n log n and the controls of :class:`_Controls` (L is 0 where that
    leaves it out). Rows are drawn one after another from the multivariate
    hypergeometric law when the table is small next to N, else a random pairing of the
    items (both draw the same law)."""
    a, b = _canonical(a, b)
    name = _checked_sampler(a, b)
    n = int(a.sum())
    ctl = controls if controls is not None else _Controls(a, b, n)
    rng = np.random.default_rng(seed)
    out = np.empty((5, n_samples))
    if name == "rows":
        for s in range(n_samples):
            left = b.copy()
            table = np.empty((a.shape[0], b.shape[0]), dtype=np.int64)
            for i, size in enumerate(a.tolist()):
                table[i] = rng.multivariate_hypergeometric(left, size, method="marginals")
                left -= table[i]
            rows, cols = np.nonzero(table)
            out[:, s] = ctl.stats(rows, cols, table[rows, cols])
        return out
    # the compiled count takes int32 column codes, so up to 2^31 - 1 clusters
    kernel = compiled.sampling_stats_kernel(float(n) * n_samples) \
        if b.shape[0] < 2**31 else None
    small = a.shape[0] * b.shape[0] < 2**31
    base = (_layout(a) * np.int64(b.shape[0])).astype(np.int32 if small else np.int64)
    # int32 codes: half the memory traffic, and the same permutation as int64 codes
    cols = _layout(b).astype(np.int32 if small or kernel is not None else np.int64)
    lin = ctl.linear if ctl.linear is not None else np.zeros((0, 1, 1))
    for s in range(n_samples):
        perm = rng.permutation(cols)
        if kernel is not None:
            out[:, s] = kernel(a, perm, b.shape[0], ctl.row_index, ctl.col_index, ctl.wa,
                               ctl.wb, lin)
        else:
            rows, cc, counts = _count_pairing(base, perm, b.shape[0], a.shape[0])
            out[:, s] = ctl.stats(rows, cc, counts)
    return out


def _count_pairing(base, perm, n_cols, n_rows):
    """Non-zero cells of the pairing (numpy: a bincount of the cell keys when the table is
    not much larger than N, else a sort)."""
    keys = base + perm  # int32 where the table has fewer than 2^31 cells (a faster sort)
    if n_rows * n_cols <= 4 * keys.shape[0]:
        dense = np.bincount(keys, minlength=n_rows * n_cols)
        at = np.flatnonzero(dense)
        counts = dense[at]
    else:
        keys.sort()
        starts = np.flatnonzero(np.diff(keys, prepend=-1))
        counts = np.diff(np.append(starts, keys.shape[0]))
        at = keys[starts]
    return at // n_cols, at % n_cols, counts


def sample_s(a: np.ndarray, b: np.ndarray, n_samples: int, seed: int) -> np.ndarray:
    """S = sum n log n of ``n_samples`` random tables with margins ``a`` and ``b``."""
    return sample_stats(a, b, n_samples, seed)[0]


def monte_carlo_variance(a: np.ndarray, b: np.ndarray, n: int, e_s: float, n_samples: int,
                         seed: int) -> tuple[float, float]:
    """(estimate of Var[S], its standard error) from ``n_samples`` random tables: the
    control-variate estimator of the module docstring (the plain mean of (S - E[S])^2
    below _MIN_CONTROL_SAMPLES tables or when no control varies)."""
    a, b = _canonical(a, b)
    _checked_sampler(a, b)
    ctl = _Controls(a, b, n)
    stats = sample_stats(a, b, n_samples, seed, ctl)
    return variance_from_stats(stats, e_s, ctl.mean, ctl.cov)


def variance_from_stats(stats: np.ndarray, e_s: float, mean: np.ndarray, cov: np.ndarray
                        ) -> tuple[float, float]:
    """The regression estimate of Var[S] and its standard error from the [S, P, W, L1, L2]
    of random tables and the controls' exact means and covariance (module docstring)."""
    m = stats.shape[1]
    ds = stats[0] - e_s
    y = ds * ds
    plain = float(y.mean()), float(y.std(ddof=1)) / math.sqrt(m)
    k = mean.shape[0]
    dev = stats[1:1 + k] - mean[:, None]
    sd = np.sqrt(np.maximum(np.diag(cov), 0.0))
    if m >= _MIN_CONTROL_SAMPLES and any(sd[i] > 0 and dev[i].var(ddof=1) < 0.05 * sd[i] ** 2
                                         for i in range(2)):
        # the pair counts varied far less than their exact variance says they must: the
        # variance sits in tables too rare for these draws (a 2 x 2 table with a few
        # stray items), so no error can be stated
        return plain[0], math.inf
    # a control whose variance is 0, or lost to rounding (its sample variance then
    # disagrees with the exact one far beyond sampling error), says nothing
    sample_var = dev.var(axis=1, ddof=1) if m > 1 else np.zeros(k)
    keep = [i for i in range(k) if sd[i] > 0 and 0.05 < sample_var[i] / sd[i] ** 2 < 20.0]
    if m < _MIN_CONTROL_SAMPLES or not keep:
        return plain
    design = (dev[keep] / sd[keep, None]).T  # M x k, centred at the exact means
    corr = cov[np.ix_(keep, keep)] / np.outer(sd[keep], sd[keep])
    # drop controls that add nothing (equal sizes make W proportional to P)
    _, r = np.linalg.qr(design)
    good = np.abs(np.diag(r)) > 1e-7 * np.abs(np.diag(r)).max()
    design, corr = design[:, good], corr[np.ix_(good, good)]
    q = design.shape[1]
    if m - q < 6:
        return plain
    gram_inv = np.linalg.pinv(design.T @ design)
    beta = gram_inv @ (design.T @ ds)
    resid = ds - design @ beta
    s2 = float(resid @ resid) / (m - q)
    explained = float(beta @ corr @ beta)
    # standard error: the delta method on beta' C beta (heteroscedasticity-consistent
    # covariance of beta) and the sampling error of the residual variance
    # HC3: residuals inflated by their leverage, which keeps the coverage of the stated
    # error near nominal with 20 tables (MacKinnon & White, J. Econometrics 29, 1985)
    leverage = np.einsum("ij,jk,ik->i", design, gram_inv, design)
    loo = resid / np.maximum(1.0 - leverage, 1e-3)
    meat = design.T @ (design * (loo * loo)[:, None])
    cov_beta = gram_inv @ meat @ gram_inv
    grad = 2.0 * (corr @ beta)
    se2 = float(grad @ cov_beta @ grad) + float(np.var(loo * loo, ddof=1)) / m
    return explained + s2, math.sqrt(max(se2, 0.0))
