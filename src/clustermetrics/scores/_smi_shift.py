"""phi^, the cell statistic the exact variance of the SMI sums: phi(n) = n log n shifted
by per-cell constants so that its terms are of the size of their fluctuations.

Each phi(n_ij) is replaced by phi^_ij(n_ij) = phi(n_ij) - phi(k0_ij) - s_ij (n_ij - k0_ij),
k0_ij the integer nearest mu_ij = a_i b_j / N (:func:`anchor`) and s_ij the slope of phi
at mu_ij where every mu_ij >= 1, else 0 (:func:`tangent_slope`). Both exact paths
(:mod:`clustermetrics.scores._smi_expansion` and :mod:`clustermetrics.scores._smi_nested`)
sum the same phi^, formed without cancellation (:func:`phi_shifted`); :func:`shifts`
gives E[S] - E[S^].
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["anchor", "phi_shifted", "shifts", "tangent_slope"]


def _phi(k: np.ndarray) -> np.ndarray:
    k = np.asarray(k, dtype=np.float64)
    return k * np.log(np.maximum(k, 1.0))


def anchor(a, b, n: int) -> np.ndarray:
    """k0 = round(a b / N) in integers (the same for a cell wherever it is computed)."""
    return (np.asarray(a, dtype=np.int64) * np.asarray(b, dtype=np.int64) + n // 2) // n


def tangent_slope(a, b, n: int, sloped: bool):
    """phi'(a b / N) = log a + log b - log N + 1 (additive in the row and the column), or 0."""
    if not sloped:
        return np.zeros(np.broadcast(np.asarray(a), np.asarray(b)).shape)
    return (np.log(np.asarray(a, dtype=np.float64)) + np.log(np.asarray(b, dtype=np.float64))
            - math.log(n)) + 1.0


def phi_shifted(k: np.ndarray, k0, slope) -> np.ndarray:
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


def shifts(ua, ca, ub, cb, n: int):
    """(k0, slope, shift): the anchors and slopes of phi^ (module docstring) per pair
    of distinct sizes, and E[S] - E[S^]."""
    k0 = anchor(ua[:, None], ub[None, :], n)
    sloped = int(ua[0]) * int(ub[0]) >= n  # every mu_ij >= 1
    slope = tangent_slope(ua[:, None], ub[None, :], n, sloped)
    mu = np.outer(ua.astype(np.float64), ub.astype(np.float64)) / n
    shift = math.fsum((np.outer(ca, cb) * (_phi(k0) + slope * (mu - k0))).ravel().tolist())
    return k0, slope, shift


