"""numba version of the expected-mutual-information pair sum of :mod:`._emi`; loaded only
through :mod:`clustermetrics.compute.dispatch`, when the work repays compiling or loading it.

It computes exactly what the numpy walk in :mod:`._emi` computes (same recurrences, same
tail bound, same exact integer arithmetic); tests/compute/test_fast_paths_eval.py compares them.
"""

from __future__ import annotations

import math

import numpy as np

from ..compute.jit import kernel
from ..compute.kernel_arrays import one_type

# f(k) is evaluated with log1p of an exact integer difference when the mean a b / N exceeds
# this (see clustermetrics.scores._emi); below it from a table of logs.
_MU_TABLE = 16.0
_EXACT_INT = 3_000_000_000


@kernel(inner=True)
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


@kernel(inner=True)
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


@kernel(inner=True)
def _pair(a, b, n, tail_tol, logs):
    """sum_k P(k) f(k) N for one pair of margins."""
    # comparisons, not min and max: numba compiles those per pair of argument types
    lo = a + b - n if a + b > n else 0
    hi = a if a < b else b
    mode = int(math.floor((a + 1.0) * (b + 1.0) / (n + 2.0)))
    mode = lo if mode < lo else (hi if mode > hi else mode)
    precise = float(a) * float(b) > _MU_TABLE * n or logs.shape[0] <= a or \
        logs.shape[0] <= b
    lmu = math.log(a) + math.log(b) - math.log(n)
    fsum = _f(mode, a, b, n, lmu, precise, logs)
    # the steps as np.int64, not constants: literals would compile _side twice
    m_r, f_r = _side(a, b, n, mode, np.int64(1), 0.5 * tail_tol, lmu, precise, logs)
    m_l, f_l = _side(a, b, n, mode, np.int64(-1), 0.5 * tail_tol, lmu, precise, logs)
    return (fsum + f_r + f_l) / (1.0 + m_r + m_l)


@kernel
def _pair_values(pa, pb, n, tail_tol, logs, out):
    for i in range(pa.shape[0]):
        out[i] = _pair(pa[i], pb[i], n, tail_tol, logs) / n


def pair_values(pa, pb, n, tail_tol, logs):
    """E[(k/N) log(N k / (a b))] for each pair of margins (pa_i, pb_i): the terms of the
    EMI's pair sum.

    ``logs`` is log(0..m) (log 0 = 0) with m at least the largest margin, or an empty
    array to evaluate every f with log1p.
    """
    out = np.empty(pa.shape[0])
    _pair_values(one_type(pa, np.int64), one_type(pb, np.int64), int(n), float(tail_tol),
                 one_type(logs, np.float64), out)
    return out
