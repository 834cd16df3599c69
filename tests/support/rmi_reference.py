"""Independent reference for the minimisation of the Dirichlet-multinomial codes of the
reduced MI (Jerdee, Kirkley & Newman, Phys. Rev. E 110, 064306, 2024), in mpmath.

A code is C(x) = sum_s [log Gamma(q x + m_s) - log Gamma(q x) - log m_s!]
- sum_c [log Gamma(x + n_c) - log Gamma(x) - log n_c!] over the group sizes m_s and the
cells n_c, minimised over x in [1e-4, 1e4]. The reference evaluates C on a grid of 257
points in log x at ``dps`` digits, takes every local minimum of the grid (an end of the
range included), solves C'(x) = 0 (digamma) next to each interior one with mpmath's
``findroot`` (the bracketing Illinois method on a bracket of neighbouring grid points
where C' changes sign), and returns the smallest value with its argument. It shares nothing with the
library's minimiser but the problem statement."""

from __future__ import annotations

import mpmath

LOG_LO, LOG_HI = mpmath.log(mpmath.mpf("1e-4")), mpmath.log(mpmath.mpf("1e4"))
GRID = 257


def _code(q, sizes, cells):
    lf = {}

    def log_factorial(v):
        if v not in lf:
            lf[v] = mpmath.loggamma(v + 1)
        return lf[v]

    def value(x):
        qx = q * x
        top = mpmath.fsum(c * (mpmath.loggamma(qx + v) - mpmath.loggamma(qx) - log_factorial(v))
                          for v, c in sizes)
        return top - mpmath.fsum(c * (mpmath.loggamma(x + v) - mpmath.loggamma(x)
                                      - log_factorial(v)) for v, c in cells)

    def slope(t):  # d C / d log x
        x = mpmath.exp(t)
        qx = q * x
        top = mpmath.fsum(c * qx * (mpmath.digamma(qx + v) - mpmath.digamma(qx))
                          for v, c in sizes)
        return top - mpmath.fsum(c * x * (mpmath.digamma(x + v) - mpmath.digamma(x))
                                 for v, c in cells)

    return value, slope


def code_minimum(q: int, sizes, cells, dps: int = 50) -> tuple[mpmath.mpf, mpmath.mpf]:
    """(min C, argmin x) for ``sizes`` and ``cells`` given as (value, multiplicity) pairs
    of integers."""
    with mpmath.workdps(dps):
        value, slope = _code(q, [(int(v), int(c)) for v, c in sizes],
                             [(int(v), int(c)) for v, c in cells])
        ts = [LOG_LO + (LOG_HI - LOG_LO) * i / (GRID - 1) for i in range(GRID)]
        ts[0], ts[-1] = LOG_LO, LOG_HI
        vals = [value(mpmath.exp(t)) for t in ts]
        candidates = []
        for i, v in enumerate(vals):
            left = vals[i - 1] if i > 0 else mpmath.inf
            right = vals[i + 1] if i + 1 < GRID else mpmath.inf
            if v <= left and v <= right:
                candidates.append((v, ts[i]))
                lo, hi = ts[max(i - 1, 0)], ts[min(i + 1, GRID - 1)]
                for a, b in ((lo, ts[i]), (ts[i], hi)):
                    if a < b and slope(a) < 0 < slope(b):
                        try:
                            t = mpmath.findroot(slope, (a, b), solver="illinois", verify=False)
                        except ZeroDivisionError:  # C' is 0 up to the working precision
                            continue
                        candidates.append((value(mpmath.exp(t)), t))
        best, t = min(candidates, key=lambda c: c[0])
        return best, mpmath.exp(t)
