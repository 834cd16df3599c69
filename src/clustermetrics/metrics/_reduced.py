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
their multiplicity, so a function evaluation costs O(number of distinct values) after one
O(nnz + R + C) pass, whatever the number of labels; the minimisation takes ~60 of them.

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
E and F against mpmath at 50 digits, and whole scores against an 80-digit reference on
tables with counts up to 1e17.
"""

from __future__ import annotations

import math

import numpy as np

from .._special_functions import gammaln
from ._cells import accurate_sum

__all__ = ["ALPHA_RANGE", "code_difference", "conditional_code", "entropy_code",
           "log_binomial", "log_rising_over_power", "stirling_excess"]

ALPHA_RANGE = (1e-4, 1e4)
_STIRLING_FROM = 10.0
# coefficients of 1/z, 1/z^3, ..., 1/z^13 in log Gamma(z) - Stirling (Bernoulli numbers)
_STIRLING = (1 / 12, -1 / 360, 1 / 1260, -1 / 1680, 1 / 1188, -691 / 360360, 1 / 156)
_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)
_GRID = 33  # starting grid over log alpha (the objective is smooth; the grid finds its basin)


def _stirling_remainder(z: np.ndarray) -> np.ndarray:
    """log Gamma(z) - ((z - 1/2) log z - z + log(2 pi)/2) for z >= 10 (error < 1e-17)."""
    w = 1.0 / (z * z)
    acc = np.full_like(z, _STIRLING[-1])
    for c in _STIRLING[-2::-1]:
        acc = acc * w + c
    return acc / z


def log_binomial(x: float, n: np.ndarray) -> np.ndarray:
    """E(x, n) = log Gamma(x + n) - log Gamma(x) - log n! for x > 0, integers n >= 0,
    without differences of large log-gammas (module docstring)."""
    n = np.asarray(n, dtype=np.float64)
    out = np.empty(n.shape)
    big = n >= _STIRLING_FROM
    small = ~big
    out[small] = _log_binomial_small(x, n[small])
    if x < _STIRLING_FROM:
        nb = n[big]
        y, z = nb + 1.0, nb + x  # log Gamma(z) - log Gamma(y), both arguments >= 10
        d = (y - 0.5) * np.log1p((x - 1.0) / y) + (x - 1.0) * (np.log(z) - 1.0)
        d += _stirling_remainder(z) - _stirling_remainder(y)
        out[big] = d - gammaln(x)
        return out
    nb = n[big]
    z = x + nb
    e = (x - 0.5) * np.log1p(nb / x) + (nb + 0.5) * np.log1p((x - 1.0) / (nb + 1.0))
    e -= 0.5 * np.log(z)
    e += 1.0 - _HALF_LOG_2PI
    e += _stirling_remainder(z) - _stirling_remainder(np.array([x]))[0] \
        - _stirling_remainder(nb + 1.0)
    out[big] = e
    return out


def _log_binomial_small(x: float, n: np.ndarray) -> np.ndarray:
    """E(x, n) for integers 0 <= n < 10 as log(x / n) + sum_{k<n} log1p(x / k): the log of
    x (x + 1) ... (x + n - 1) / n!, every term accurate to an ulp of itself."""
    out = np.zeros(n.shape)
    pos = n > 0
    out[pos] = np.log(x / n[pos])
    for k in range(1, int(_STIRLING_FROM)):
        more = n > k
        if not more.any():
            break
        out[more] += math.log1p(x / k)
    return out


def _log1p_minus(t: np.ndarray) -> np.ndarray:
    """log1p(t) - t for t >= 0 without cancellation (its series below t = 1/4)."""
    out = np.log1p(t) - t
    near = t < 0.25
    tn = t[near]
    acc = np.zeros(tn.shape)
    for j in range(32, 1, -1):  # -t^2/2 + t^3/3 - ...: 0.25^32 < 1e-19
        acc = acc * tn + (-1.0) ** (j + 1) / j
    out[near] = acc * tn * tn
    return out


def log_rising_over_power(x: float, n: np.ndarray) -> np.ndarray:
    """F(x, n) = log Gamma(x + n) - log Gamma(x) - n log x = sum_{k<n} log1p(k / x), small
    when x is large next to n (then E(x, n) is close to n log x - log n! and its
    differences cancel). Direct sum below n = 10; for x >= 10 Stirling's form
    (n - 1/2) log1p(n/x) + x (log1p(n/x) - n/x) + c(x + n) - c(x); else the plain
    log-gammas."""
    n = np.asarray(n, dtype=np.float64)
    out = np.zeros(n.shape)
    small = n < _STIRLING_FROM
    for k in range(1, int(_STIRLING_FROM)):
        more = small & (n > k)
        if not more.any():
            break
        out[more] += math.log1p(k / x)
    nb = n[~small]
    if x >= _STIRLING_FROM:
        t = nb / x
        f = (nb - 0.5) * np.log1p(t) + x * _log1p_minus(t)
        f += _stirling_remainder(x + nb) - _stirling_remainder(np.array([x]))[0]
    else:
        f = gammaln(x + nb) - gammaln(x) - nb * math.log(x)
    out[~small] = f
    return out


def stirling_excess(plus: np.ndarray, minus: np.ndarray) -> float:
    """sum over ``plus`` minus sum over ``minus`` of log n! - (n log n - n): the half-log
    and remainder terms of Stirling's series, for positive integers."""
    def part(values: np.ndarray) -> np.ndarray:
        u, c = np.unique(np.asarray(values, dtype=np.int64), return_counts=True)
        v = u.astype(np.float64)
        out = np.empty(v.shape)
        small = v < _STIRLING_FROM
        vs = v[small]
        out[small] = gammaln(vs + 1.0) - (vs * np.log(vs) - vs)
        vb = v[~small]
        out[~small] = 0.5 * np.log(vb) + _HALF_LOG_2PI + _stirling_remainder(vb)
        return out * c
    return accurate_sum(np.concatenate((part(plus), -part(minus))))


def _distinct(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(distinct positive values as float64, their multiplicities as float64)."""
    values = np.asarray(values)
    values = values[values > 0]
    u, c = np.unique(values, return_counts=True)
    return u.astype(np.float64), c.astype(np.float64)


class _Code:
    """The part of a Dirichlet-multinomial description length that depends on the
    concentration x: sum_s E(q x, m_s) - sum_rs E(x, n_rs) (E = log_binomial), from the
    distinct values of the group sizes m_s and of the cells n_rs (for H(g): one group of
    size N whose cells are the class sizes). The rest, sum log m_s! - sum log n_rs!, is
    added by the caller in a stable form."""

    def __init__(self, q: int, sizes: np.ndarray, cells: np.ndarray):
        self.q = float(q)
        self.sizes, self.size_mult = _distinct(sizes)
        self.cells, self.cell_mult = _distinct(cells)

    def __call__(self, x: float) -> float:
        top = log_binomial(self.q * x, self.sizes) * self.size_mult
        bottom = log_binomial(x, self.cells) * self.cell_mult
        return accurate_sum(np.concatenate((top, -bottom)))

    def forms(self, x: float) -> tuple[float, float, float, float]:
        """(E-form value, its magnitude, F-form value, its magnitude) at x: the code is
        E-form + sum log m! - sum log n! = F-form + N log q, where the F-form is
        sum_s F(q x, m_s) - sum F(x, n) (log_rising_over_power). The magnitudes (sums of
        |terms|) bound each form's rounding error."""
        top = log_binomial(self.q * x, self.sizes) * self.size_mult
        bottom = log_binomial(x, self.cells) * self.cell_mult
        e_terms = np.concatenate((top, -bottom))
        top = log_rising_over_power(self.q * x, self.sizes) * self.size_mult
        bottom = log_rising_over_power(x, self.cells) * self.cell_mult
        f_terms = np.concatenate((top, -bottom))
        return (accurate_sum(e_terms), float(np.abs(e_terms).sum()),
                accurate_sum(f_terms), float(np.abs(f_terms).sum()))

    def minimum(self) -> tuple[float, float]:
        """(min over x in ALPHA_RANGE, argmin): a log-spaced grid, then bounded Brent in
        log x around the best grid point."""
        lo, hi = math.log(ALPHA_RANGE[0]), math.log(ALPHA_RANGE[1])
        grid = np.linspace(lo, hi, _GRID)
        values = [self(math.exp(t)) for t in grid]
        k = int(np.argmin(values))
        left, right = grid[max(k - 1, 0)], grid[min(k + 1, _GRID - 1)]
        # imported here: scipy.optimize adds ~0.2 s to importing clustermetrics
        from scipy.optimize import minimize_scalar

        res = minimize_scalar(lambda t: self(math.exp(t)), bounds=(left, right),
                              method="bounded", options={"xatol": 1e-10})
        best_t, best = (float(res.x), float(res.fun)) if res.fun < values[k] \
            else (float(grid[k]), float(values[k]))
        return best, math.exp(best_t)


def entropy_code(sizes: np.ndarray) -> tuple[float, float, float, float]:
    """H(g) for group sizes ``sizes`` at its optimum, as :meth:`_Code.forms`."""
    sizes = np.asarray(sizes)
    if sizes.shape[0] <= 1:
        return (0.0, 0.0, 0.0, 0.0)
    code = _Code(sizes.shape[0], np.array([int(sizes.sum())]), sizes)
    return code.forms(code.minimum()[1])


def conditional_code(q: int, col_sizes: np.ndarray,
                     cells: np.ndarray) -> tuple[float, float, float, float]:
    """H(g|c) at its optimum for a table with q rows, column sizes ``col_sizes`` and
    non-zero cells ``cells``, as :meth:`_Code.forms`."""
    if q <= 1:
        return (0.0, 0.0, 0.0, 0.0)
    code = _Code(q, col_sizes, cells)
    return code.forms(code.minimum()[1])


def code_difference(first, second, log_factorials: list[float]) -> float:
    """first - second, two codes over the same rows (as :meth:`_Code.forms`), in the form
    with the smaller rounding error: the E-forms plus ``log_factorials`` (the terms that
    sum to the difference of their log-factorial parts), or the F-forms (their N log q
    parts are equal)."""
    e_err = first[1] + second[1] + sum(abs(v) for v in log_factorials)
    f_err = first[3] + second[3]
    if f_err < e_err:
        return math.fsum([first[2], -second[2]])
    return math.fsum([first[0], -second[0], *log_factorials])
