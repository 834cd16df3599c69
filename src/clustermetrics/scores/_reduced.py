"""Reduced mutual information with the Dirichlet-multinomial encoding of the table.

Jerdee, Kirkley & Newman, "Mutual information and the encoding of contingency tables",
Phys. Rev. E 110, 064306 (2024). With the truth g (row sizes a_r, q = number of rows),
the prediction c (column sizes b_s) and the table n_rs over N items, the information
needed to send g is, up to a term log N that cancels,

    H(g)   = min_alpha [ log Gamma(q alpha + N)/Gamma(q alpha)
                         - sum_r log Gamma(alpha + a_r)/Gamma(alpha) ],

(the Dirichlet-multinomial code of the sequence of labels), and given c

    H(g|c) = min_beta sum_s [ log Gamma(q beta + b_s)/Gamma(q beta)
                              - sum_r log Gamma(beta + n_rs)/Gamma(beta) ],

(one Dirichlet-multinomial per column, sharing beta). The reduced mutual information is
H(g) - H(g|c), in nats here (the reference package ``clustering-mi`` reports it in bits,
for the whole data set; the scores divide it by N, as ``mutual_info_score`` is per item).
The concentrations are minimised over [1e-4, 1e4], the range of the reference package.

Every sum is a sum over the *distinct* values of the sizes and cell counts weighted by
their multiplicity, so an evaluation costs O(number of distinct values) after one
O(nnz + R + C) pass, whatever the number of labels. The codes of a table are minimised
together, each step one array evaluation over all of them (:func:`minimise`).

Minimisation. In t = log x a code is sum_s w_s E(s x, v_s) (w the signed multiplicities,
s = q for a group size and 1 for a cell), with the derivative

    g(t) = sum_s w_s T(y_s, v_s),   T(y, v) = y (psi(y + v) - psi(y)) = sum_{k<v} y / (y + k),

y_s = s x. T is taken from digamma, accurate to ~eps y log(y + v) whatever v (a form
v - sum_k k / (y + k) would carry eps v, 1e-6 at counts of 1e10); where y >> v that
difference of digammas cancels, and the root is polished with T = v - sum_{k<v} k/(y + k),
the sum from psi's asymptotic series. g is evaluated on a 33-point grid over log x. A
local minimum lies between two grid points where g goes from negative to non-negative,
and at an end of the range where g points outward; every such bracket is refined by
Newton's method in t (slope from g at t and t + 1e-5, bisection when a step leaves the
bracket) until a step is below 1e-5, the root then polished by one step with the accurate
T, and the candidates' code lengths compared: so an objective with several minima (or
its minimum at an end of the range) gets the smallest, at the grid's resolution. The
minimum is flat: an error dt in the root changes the code by about
g'(t) dt^2 / 2, and the polished root is accurate to the rounding of g over g'. A code
whose self-description is the table (H(g|g): each column's cells are its size) increases
with x, each term log((q x + k) / (x + k)) doing so, so its minimum is the left end.

Accuracy. Each log Gamma(x + n)/Gamma(x) is split as E(x, n) + log n!, with
E(x, n) = log Gamma(x + n) - log Gamma(x) - log n! (a log binomial coefficient). The
log n! parts do not depend on the concentrations; in a difference of two codes they
combine into log N! + sum log n_rs! - sum log a_r! - sum log b_s!, which is N MI (Shannon
MI, computed from exact integer ratios) plus the half-log and remainder terms of
Stirling's series: no difference of two numbers of size N log N is formed (at N = 4.6e15
such numbers have an ulp of 32 nats). E(x, n) is a sum of log1p terms below n = 10, and
above it is written with log1p of exact ratios and the remainder c(z) of Stirling's
series (its asymptotic series, error < 1e-16), so every piece is of the size of the
result. Where the optimal concentration is large, E(x, n) is close to n log x - log n!
and two codes nearly cancel (a labelling of singletons has an RMI with itself of ~1e-4 at
x = 1e4); there the difference is taken from F(x, n) = log Gamma(x + n) - log Gamma(x) -
n log x = sum_k log1p(k / x) instead, each code being sum F(q x, m) - sum F(x, n) +
N log q. Each difference uses the form with the smaller bound on its rounding. Tests check
E and F against mpmath at 50 digits, the minimisation against mpmath's root of g and a
fine grid at 50 digits, and whole scores against an 80-digit reference on tables with
counts up to 1e17.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ..compute.special import digamma, gammaln

__all__ = ["ALPHA_RANGE", "CodeSpec", "Optimum", "code_difference", "distinct", "minimise",
           "log_binomial", "log_rising_over_power", "stirling_excess"]

ALPHA_RANGE = (1e-4, 1e4)
_STIRLING_FROM = 10.0
# coefficients of 1/z, 1/z^3, ..., 1/z^13 in log Gamma(z) - Stirling (Bernoulli numbers)
_STIRLING = (1 / 12, -1 / 360, 1 / 1260, -1 / 1680, 1 / 1188, -691 / 360360, 1 / 156)
_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)
_EPS = float(np.finfo(np.float64).eps)
# the grid over log x that finds the basins (the objective is smooth at the scale of one
# unit of log x: each R(y, v) is a sum of logistic steps k / (y + k))
_GRID_T = np.linspace(math.log(ALPHA_RANGE[0]), math.log(ALPHA_RANGE[1]), 33)
_GRID_X = np.exp(_GRID_T)
_GRID_X[0], _GRID_X[-1] = ALPHA_RANGE
_SLOPE_STEP = 1e-5  # in log x: g's slope from g(t + h) - g(t)
# Newton on the digamma form stops once every step is this small: the error is then ~1e-10
# (quadratic convergence), and one step on the accurate form leaves ~1e-20
_ROOT_TOL = 1e-5
_MAX_STEPS = 60
# y from which R uses the asymptotic series of psi (truncation < 1e-16 there)
_ASYMPTOTIC_FROM = 20.0
# psi(z) - log z + 1/(2 z) = -sum_k c_k z^(-2k): Bernoulli numbers B_2k / (2k)
_PSI = (1 / 12, -1 / 120, 1 / 252, -1 / 240, 1 / 132)


class CodeSpec(NamedTuple):
    """One Dirichlet-multinomial code: ``q`` labels per group, the distinct group sizes
    and cells with their multiplicities (float64, see :func:`distinct`); ``increasing``:
    the code is known to increase with the concentration (its minimum is the left end)."""

    q: int
    sizes: np.ndarray
    size_mult: np.ndarray
    cells: np.ndarray
    cell_mult: np.ndarray
    increasing: bool = False


class Optimum(NamedTuple):
    """A code at its optimal concentration ``x``: the E-form (sum_s E(q x, m_s) - sum
    E(x, n)) and the sum of its terms' magnitudes, the F-form (the same with F) and its
    magnitude (see :func:`code_difference`)."""

    x: float
    e_form: float
    e_size: float
    f_form: float
    f_size: float


_ZERO = Optimum(ALPHA_RANGE[0], 0.0, 0.0, 0.0, 0.0)


def distinct(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(distinct positive values as float64, their multiplicities as float64)."""
    values = np.asarray(values)
    values = values[values > 0]
    u, c = np.unique(values, return_counts=True)
    return u.astype(np.float64), c.astype(np.float64)


def _stirling_remainder(z: np.ndarray) -> np.ndarray:
    """log Gamma(z) - ((z - 1/2) log z - z + log(2 pi)/2) for z >= 10 (error < 1e-17)."""
    w = 1.0 / (z * z)
    acc = np.full_like(z, _STIRLING[-1])
    for c in _STIRLING[-2::-1]:
        acc = acc * w + c
    return acc / z


def _pair(x, n) -> tuple[np.ndarray, np.ndarray]:
    n = np.asarray(n, dtype=np.float64)
    x = np.asarray(x, dtype=np.float64)
    shape = np.broadcast(x, n).shape
    return np.broadcast_to(x, shape).ravel(), np.broadcast_to(n, shape).ravel()


def log_binomial(x, n) -> np.ndarray:
    """E(x, n) = log Gamma(x + n) - log Gamma(x) - log n! for x > 0, integers n >= 0
    (arrays, broadcast together), without differences of large log-gammas (module
    docstring)."""
    shape = np.broadcast(np.asarray(x), np.asarray(n)).shape
    x, n = _pair(x, n)
    out = np.empty(n.shape)
    small = n < _STIRLING_FROM
    out[small] = _log_binomial_small(x[small], n[small])
    near = ~small & (x < _STIRLING_FROM)
    if near.any():
        xs, nb = x[near], n[near]
        y, z = nb + 1.0, nb + xs  # log Gamma(z) - log Gamma(y), both arguments >= 10
        d = (y - 0.5) * np.log1p((xs - 1.0) / y) + (xs - 1.0) * (np.log(z) - 1.0)
        d += _stirling_remainder(z) - _stirling_remainder(y)
        out[near] = d - gammaln(xs)
    far = ~small & ~near
    if far.any():
        xs, nb = x[far], n[far]
        z = xs + nb
        e = (xs - 0.5) * np.log1p(nb / xs) + (nb + 0.5) * np.log1p((xs - 1.0) / (nb + 1.0))
        e -= 0.5 * np.log(z)
        e += 1.0 - _HALF_LOG_2PI
        e += _stirling_remainder(z) - _stirling_remainder(xs) - _stirling_remainder(nb + 1.0)
        out[far] = e
    return out.reshape(shape)


_KS = np.arange(1.0, _STIRLING_FROM)


def _log_binomial_small(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    """E(x, n) for integers 0 <= n < 10 as log(x / n) + sum_{k<n} log1p(x / k): the log of
    x (x + 1) ... (x + n - 1) / n!, every term accurate to an ulp of itself."""
    steps = np.log1p(x[:, None] / _KS) * (_KS < n[:, None])
    return np.where(n > 0, np.log(x / np.maximum(n, 1.0)) + steps.sum(axis=1), 0.0)


def _log1p_minus(t: np.ndarray) -> np.ndarray:
    """log1p(t) - t for t >= 0 without cancellation: below t = 1/4 from u = t / (2 + t)
    (log1p(t) = 2 atanh(u)) as -2 u^2 / (1 - u) + 2 (u^3/3 + u^5/5 + ...), u <= 1/9, ten
    terms to 1e-19 relative."""
    out = np.log1p(t) - t
    near = t < 0.25
    if near.any():
        tn = t[near]
        u = tn / (2.0 + tn)
        u2 = u * u
        acc = np.zeros(tn.shape)
        for j in range(21, 1, -2):
            acc = acc * u2 + 1.0 / j
        out[near] = 2.0 * u2 * (u * acc - 1.0 / (1.0 - u))
    return out


def log_rising_over_power(x, n) -> np.ndarray:
    """F(x, n) = log Gamma(x + n) - log Gamma(x) - n log x = sum_{k<n} log1p(k / x), small
    when x is large next to n (then E(x, n) is close to n log x - log n! and its
    differences cancel). Direct sum below n = 10; for x >= 10 Stirling's form
    (n - 1/2) log1p(n/x) + x (log1p(n/x) - n/x) + c(x + n) - c(x); else the plain
    log-gammas. Arrays, broadcast together."""
    shape = np.broadcast(np.asarray(x), np.asarray(n)).shape
    x, n = _pair(x, n)
    out = np.empty(n.shape)
    small = n < _STIRLING_FROM
    xs = x[small]
    out[small] = (np.log1p(_KS / xs[:, None]) * (_KS < n[small][:, None])).sum(axis=1)
    far = ~small & (x >= _STIRLING_FROM)
    if far.any():
        xs, nb = x[far], n[far]
        t = nb / xs
        f = (nb - 0.5) * np.log1p(t) + xs * _log1p_minus(t)
        out[far] = f + _stirling_remainder(xs + nb) - _stirling_remainder(xs)
    near = ~small & ~far
    if near.any():
        xs, nb = x[near], n[near]
        out[near] = gammaln(xs + nb) - gammaln(xs) - nb * np.log(xs)
    return out.reshape(shape)


def stirling_excess(sets: list[tuple[np.ndarray, np.ndarray]]) -> list[float]:
    """For each (distinct values, multiplicities) of positive integers, sum mult * (log n!
    - (n log n - n)): the half-log and remainder terms of Stirling's series."""
    v = np.concatenate([values for values, _ in sets])
    out = np.empty(v.shape)
    small = v < _STIRLING_FROM
    vs = v[small]
    out[small] = gammaln(vs + 1.0) - (vs * np.log(vs) - vs)
    vb = v[~small]
    out[~small] = 0.5 * np.log(vb) + _HALF_LOG_2PI + _stirling_remainder(vb)
    out = (out * np.concatenate([mult for _, mult in sets])).tolist()
    bounds = np.cumsum([0] + [values.shape[0] for values, _ in sets]).tolist()
    return [math.fsum(out[i:j]) for i, j in zip(bounds[:-1], bounds[1:], strict=True)]


# --------------------------------------------------------------------------- minimisation
class _Terms:
    """The terms of several codes laid end to end: value v, signed multiplicity w and
    scale s (q for a group size, 1 for a cell) of each, ``start[c]`` the first of code c."""

    def __init__(self, specs: list[CodeSpec]):
        v, w, s, counts = [], [], [], []
        for spec in specs:
            v += [spec.sizes, spec.cells]
            w += [spec.size_mult, -spec.cell_mult]
            s += [np.full(spec.sizes.shape[0], float(spec.q)), np.ones(spec.cells.shape[0])]
            counts.append(spec.sizes.shape[0] + spec.cells.shape[0])
        self.v, self.w, self.s = np.concatenate(v), np.concatenate(w), np.concatenate(s)
        self.count = np.array(counts)
        self.start = np.concatenate(([0], np.cumsum(self.count)[:-1]))

    def rows(self, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(term indices, the position of each in ``codes``, the first row of each): the
        terms of codes[0], then of codes[1], ..."""
        count = self.count[codes]
        first = np.concatenate(([0], np.cumsum(count)[:-1]))
        owner = np.repeat(np.arange(codes.shape[0]), count)
        index = self.start[codes][owner] + np.arange(owner.shape[0]) - first[owner]
        return index, owner, first


def _rise(y: np.ndarray, v: np.ndarray) -> np.ndarray:
    """T(y, v) = y (psi(y + v) - psi(y)) = sum_{k<v} y / (y + k) by digamma, rounded to
    ~eps y (|psi(y + v)| + |psi(y)|): accurate unless y >> v, where the difference
    cancels (:func:`_rise_accurate`)."""
    return y * (digamma(y + v) - digamma(y))


def _deficit_asymptotic(y: np.ndarray, v: np.ndarray) -> np.ndarray:
    """v - T(y, v) = sum_{k<v} k / (y + k) for y >= 20 from psi's asymptotic series, every
    piece of the size of the result (v - y log1p(v/y) as -y (log1p(t) - t))."""
    z = y + v
    r = -y * _log1p_minus(v / y) - 0.5 * v / z - v * (2.0 * y + v) / (12.0 * y * z * z)
    zi, yi = 1.0 / (z * z), 1.0 / (y * y)
    zp, yp = zi * zi, yi * yi
    for c in _PSI[1:]:  # -y sum_k c_k (z^-2k - y^-2k), k >= 2
        r += y * c * (zp - yp)
        zp, yp = zp * zi, yp * yi
    return r


def _rise_accurate(y: np.ndarray, v: np.ndarray) -> np.ndarray:
    """T(y, v) to a few ulps of max(T, eps v): as v minus the asymptotic form of the
    deficit where y >= 20 and y >= v (T is then at least v / 2 ... v)."""
    t = _rise(y, v)
    big = (y >= _ASYMPTOTIC_FROM) & (y >= v)
    if big.any():
        t[big] = v[big] - _deficit_asymptotic(y[big], v[big])
    return t


class _Rows:
    """The terms of a list of codes (one row block per entry, codes may repeat), laid out
    for evaluations of g at one point per block."""

    def __init__(self, terms: _Terms, codes: np.ndarray):
        self.index, self.owner, self.first = terms.rows(codes)
        self.s = terms.s[self.index]
        self.v = terms.v[self.index]
        self.w = terms.w[self.index]
        self.v2 = np.repeat(self.v, 2).reshape(-1, 2)
        self.s2 = self.s[:, None]

    def slopes(self, t: np.ndarray, accurate: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """g and its slope at t (one per block), from g(t) and g(t + h)."""
        both = np.empty((t.shape[0], 2))
        both[:, 0] = t
        both[:, 1] = t + _SLOPE_STEP
        y = self.s2 * np.exp(both)[self.owner]
        if accurate:
            rise = _rise_accurate(y.ravel(), self.v2.ravel()).reshape(y.shape)
        else:
            rise = _rise(y, self.v2)
        rise *= self.w[:, None]
        g = np.add.reduceat(rise, self.first, axis=0)
        return g[:, 0], (g[:, 1] - g[:, 0]) / _SLOPE_STEP


def _brackets(terms: _Terms, codes: np.ndarray):
    """g on the grid for each code: the brackets (code, left, right, g left, g right) of
    its interior minima and the ends of the range where g points outward."""
    index, _, first = terms.rows(codes)
    y = terms.s[index, None] * _GRID_X[None, :]
    v = terms.v[index, None]
    top, bottom = digamma(y + v), digamma(y)
    w = terms.w[index, None]
    g = np.add.reduceat(w * (y * (top - bottom)), first, axis=0)
    # the rounding of T (see _rise): g is 0 within it, flat there
    tol = np.add.reduceat(np.abs(w) * y * (np.abs(top) + np.abs(bottom)), first, axis=0)
    g[np.abs(g) <= 4.0 * _EPS * tol] = 0.0
    code_at, left = np.nonzero((g[:, :-1] < 0.0) & (g[:, 1:] >= 0.0))
    ends = [(codes[g[:, 0] >= 0.0], 0), (codes[g[:, -1] <= 0.0], _GRID_X.shape[0] - 1)]
    return (codes[code_at], _GRID_T[left], _GRID_T[left + 1], g[code_at, left],
            g[code_at, left + 1]), ends


def _newton(terms: _Terms, codes, lo, hi, g_lo, g_hi) -> np.ndarray:
    """The roots of g in the brackets (lo, hi) (g(lo) < 0 <= g(hi)), in log x: Newton
    steps on the digamma form of g until a step is below _ROOT_TOL (bisection where a step
    leaves the bracket), then one step on the accurate form (:func:`_rise_accurate`)."""
    rows = _Rows(terms, codes)
    t = lo + (hi - lo) * np.clip(g_lo / (g_lo - g_hi), 0.05, 0.95)  # regula falsi
    for _ in range(_MAX_STEPS):
        g, slope = rows.slopes(t)
        below = g < 0.0
        lo, hi = np.where(below, t, lo), np.where(below, hi, t)
        new = t - g / np.where(slope > 0.0, slope, 1.0)
        new = np.where((slope <= 0.0) | (new <= lo) | (new >= hi), 0.5 * (lo + hi), new)
        done = np.abs(new - t).max() <= _ROOT_TOL
        t = new
        if done:
            break
    g, slope = rows.slopes(t, accurate=True)
    return np.clip(t - g / np.where(slope > 0.0, slope, np.inf), lo, hi)


def _forms(terms: _Terms, codes: np.ndarray, t: np.ndarray) -> list[Optimum]:
    """Each code at x = exp(t), both forms (:class:`Optimum`)."""
    index, owner, first = terms.rows(codes)
    x = np.exp(t)
    x[t <= _GRID_T[0]] = ALPHA_RANGE[0]
    x[t >= _GRID_T[-1]] = ALPHA_RANGE[1]
    y = terms.s[index] * x[owner]
    v, w = terms.v[index], terms.w[index]
    e_terms = w * log_binomial(y, v)
    f_terms = w * log_rising_over_power(y, v)
    e_size = np.add.reduceat(np.abs(e_terms), first).tolist()
    f_size = np.add.reduceat(np.abs(f_terms), first).tolist()
    e_list, f_list = e_terms.tolist(), f_terms.tolist()
    bounds = [*first.tolist(), owner.shape[0]]
    return [Optimum(xk, math.fsum(e_list[a:b]), e_size[k], math.fsum(f_list[a:b]), f_size[k])
            for k, (xk, a, b) in enumerate(zip(x.tolist(), bounds[:-1], bounds[1:],
                                               strict=True))]


def _better(a: Optimum, b: Optimum) -> bool:
    """Whether ``a`` is a shorter code than ``b`` (the same code at two concentrations),
    compared in the form with the smaller rounding."""
    if max(a.f_size, b.f_size) < max(a.e_size, b.e_size):
        return a.f_form < b.f_form
    return a.e_form < b.e_form


def minimise(specs: list[CodeSpec]) -> list[Optimum]:
    """Each code at its optimal concentration in ALPHA_RANGE (module docstring); a code
    with q <= 1 or without terms is 0."""
    live = [k for k, spec in enumerate(specs) if spec.q > 1 and spec.cells.shape[0]]
    out = [_ZERO] * len(specs)
    if not live:
        return out
    terms = _Terms([specs[k] for k in live])
    searched = np.array([i for i, k in enumerate(live) if not specs[k].increasing], dtype=int)
    fixed = [(np.array([i for i, k in enumerate(live) if specs[k].increasing], dtype=int), 0)]
    codes, roots = [], []
    if searched.shape[0]:
        bracket, ends = _brackets(terms, searched)
        fixed += ends
        if bracket[0].shape[0]:
            codes.append(bracket[0])
            roots.append(_newton(terms, *bracket))
    for which, at in fixed:
        codes.append(which)
        roots.append(np.full(which.shape[0], _GRID_T[at]))
    all_codes = np.concatenate(codes)
    best: dict[int, Optimum] = {}
    for code, opt in zip(all_codes.tolist(), _forms(terms, all_codes, np.concatenate(roots)),
                         strict=True):
        if code not in best or _better(opt, best[code]):
            best[code] = opt
    for i, k in enumerate(live):
        out[k] = best[i]
    return out


def code_difference(first: Optimum, second: Optimum, log_factorials: list[float]) -> float:
    """first - second, two codes over the same rows, in the form with the smaller rounding
    error: the E-forms plus ``log_factorials`` (the terms that sum to the difference of
    their log-factorial parts), or the F-forms (their N log q parts are equal). Terms of
    ``log_factorials`` that cancel exactly (a table whose cells are its column sizes: the
    cells' and the columns' Stirling terms) are dropped first, so that equal differences
    reached by two routes (RMI(t; p) and RMI(t; t) of identical partitions) take the same
    form and are equal."""
    log_factorials = _cancelled(log_factorials)
    e_err = first.e_size + second.e_size + sum(abs(v) for v in log_factorials)
    f_err = first.f_size + second.f_size
    if f_err < e_err:
        return math.fsum([first.f_form, -second.f_form])
    return math.fsum([first.e_form, -second.e_form, *log_factorials])


def _cancelled(terms: list[float]) -> list[float]:
    """``terms`` less the pairs x, -x (each pair once)."""
    left = list(terms)
    out = []
    while left:
        x = left.pop()
        if x != 0.0 and -x in left:
            left.remove(-x)
        else:
            out.append(x)
    return out
