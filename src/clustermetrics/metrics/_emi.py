"""Expected mutual information under the permutation (hypergeometric) model, fast.

EMI = sum_i sum_j sum_n P(n | a_i, b_j, N) * (n/N) * log(N n / (a_i b_j)), where n_ij follows
the hypergeometric distribution with the table's margins (Vinh, Epps & Bailey 2010).

Three things make it fast without giving up accuracy:

1. It depends on the margins only through the multiset of values, so each distinct pair
   (a, b) is evaluated once and weighted by (#rows with a) x (#columns with b).
2. The pmf is evaluated by the ratio recurrence P(n+1)/P(n) = (a-n)(b-n)/((n+1)(N-a-b+n+1))
   and normalised by its sum inside the window, instead of by log-gamma differences of
   numbers of size N (which lose ~N*eps in the exponent: scikit-learn's terms carry a
   relative error of ~1e-9 at N = 1e6). Logs of the small integers involved come from one
   table; windows are vectorised in buckets of nearly equal width.
3. Each window is cut to where the pmf is negligible, with a *proven* bound (below);
   windows start at the Bernstein width t = L/3 + sqrt(L^2/9 + 2 L var) around the mean
   (L = log(1/tail tolerance); the hypergeometric is at least as concentrated as the
   binomial, Hoeffding 1963), and windows that fail the bound are widened until they pass.

Bound on what is dropped. The hypergeometric pmf is log-concave, so r(n) = P(n+1)/P(n) is
non-increasing. Past a right edge e with r(e) < 1 the tail is at most P(e) r(e)/(1-r(e))
(a geometric series), symmetrically on the left. For 1 <= n <= min(a, b) the summand
f(n) = (n/N) log(Nn/(ab)) satisfies |f(n)| <= (min(a,b)/N) log N, so dropping tail mass T
(relative to the window mass) changes that pair's term by at most 2 T (min(a,b)/N) log N.
Summed over all pairs with their weights, sum_ij min(a_i, b_j) <= N min(K_a, K_b), so with
every pair's relative tail T <= tol / (2 min(K_a, K_b) log N) the total error of the EMI is
at most ``tol`` (default 1e-15 nats, below the rounding error of the sum itself).
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["expected_mutual_information"]

_BLOCK_CELLS = 1 << 21  # window cells evaluated per vectorised block (~16 MB per array)
_LOG_TABLE_MAX = 1 << 24  # log(1..m) is tabulated when the largest margin is below this


def expected_mutual_information(a: np.ndarray, b: np.ndarray, n: int,
                                tol: float = 1e-15) -> float:
    """EMI of two labellings with class sizes ``a`` and cluster sizes ``b`` over ``n`` items.

    ``tol`` bounds the absolute error introduced by pruning (see the module docstring);
    ``tol=0`` sums every term of every hypergeometric support.
    """
    if a.shape[0] == 1 or b.shape[0] == 1:
        return 0.0
    ua, ca = np.unique(a, return_counts=True)
    ub, cb = np.unique(b, return_counts=True)
    log_n = math.log(n)
    tail_tol = tol / (2.0 * min(a.shape[0], b.shape[0]) * max(log_n, 1.0)) if tol > 0 else 0.0
    biggest = int(max(ua[-1], ub[-1])) + 1
    logs = _log_table(biggest) if biggest <= _LOG_TABLE_MAX else None
    total = 0.0
    rows_per_chunk = max(1, _BLOCK_CELLS // ub.shape[0])
    for start in range(0, ua.shape[0], rows_per_chunk):
        sa = ua[start:start + rows_per_chunk]
        pa = np.repeat(sa, ub.shape[0]).astype(np.int64)
        pb = np.tile(ub, sa.shape[0]).astype(np.int64)
        weight = np.outer(ca[start:start + rows_per_chunk], cb).ravel().astype(np.float64)
        total += float(weight @ _pair_emi(pa, pb, int(n), tail_tol, logs))
    return total


def _log_table(m: int) -> np.ndarray:
    """log(x) for integers 0..m (log 0 = -inf, only ever used where it is masked)."""
    with np.errstate(divide="ignore"):
        return np.log(np.arange(m + 1, dtype=np.float64))


def _pair_emi(a, b, n, tail_tol, logs):
    """sum_n P(n) f(n) for each (a, b) pair, windows widened until the tail bound holds."""
    lo = np.maximum(0, a + b - n)
    hi = np.minimum(a, b)
    if tail_tol <= 0:
        half = (hi - lo + 1).astype(np.float64)
    else:
        af, bf = a.astype(np.float64), b.astype(np.float64)
        var = af * bf / n * (n - af) / n * (n - bf) / max(n - 1.0, 1.0)
        big_l = math.log(1.0 / tail_tol)
        half = np.ceil(big_l / 3.0 + np.sqrt(big_l * big_l / 9.0 + 2.0 * big_l * var)) + 1.0
    out = np.empty(a.shape[0])
    todo = np.arange(a.shape[0])
    while todo.shape[0]:
        center = (a[todo] * b[todo]) // n
        h = np.minimum(half[todo], float(n)).astype(np.int64)
        w_lo = np.maximum(lo[todo], center - h)
        w_hi = np.minimum(hi[todo], center + h)
        value, ok = _windows(a[todo], b[todo], n, w_lo, w_hi, lo[todo], hi[todo], tail_tol,
                             logs)
        out[todo[ok]] = value[ok]
        half[todo[~ok]] *= 2.0
        todo = todo[~ok]
    return out


def _bucket_width(width: np.ndarray) -> np.ndarray:
    """Padded widths: at most 1/8 wasted, and few distinct values (8 per octave)."""
    step = np.maximum(1, 2 ** np.floor(np.log2(np.maximum(width, 1))).astype(np.int64) // 8)
    return -(-width // step) * step


def _windows(a, b, n, w_lo, w_hi, lo, hi, tail_tol, logs):
    """Window sums, bucketed by padded width so each bucket is one 2-D array."""
    padded = _bucket_width(w_hi - w_lo + 1)
    value = np.empty(a.shape[0])
    ok = np.empty(a.shape[0], dtype=bool)
    for cols in np.unique(padded):
        idx = np.flatnonzero(padded == cols)
        step = max(1, _BLOCK_CELLS // int(cols))
        for s in range(0, idx.shape[0], step):
            j = idx[s:s + step]
            value[j], ok[j] = _block(a[j], b[j], n, w_lo[j], w_hi[j], lo[j], hi[j], int(cols),
                                     tail_tol, logs)
    return value, ok


def _log_ratio(a, b, n, k, logs):
    """log P(k+1)/P(k) for the hypergeometric with margins a, b over n items (k integer)."""
    rest = np.log((n + 1 - a - b + k).astype(np.float64))
    if logs is None:
        return (np.log((a - k).astype(np.float64)) + np.log((b - k).astype(np.float64))
                - np.log((k + 1).astype(np.float64)) - rest)
    return logs[a - k] + logs[b - k] - logs[k + 1] - rest


def _block(a, b, n, w_lo, w_hi, lo, hi, cols, tail_tol, logs):
    a2, b2, top = a[:, None], b[:, None], w_hi[:, None]
    k = np.minimum(w_lo[:, None] + np.arange(cols), top)  # padding repeats the last cell
    inside = np.arange(cols) <= (w_hi - w_lo)[:, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        step = np.where(inside[:, 1:], _log_ratio(a2, b2, n, k[:, :-1], logs), 0.0)
        log_w = np.empty(k.shape)
        log_w[:, 0] = 0.0
        np.cumsum(step, axis=1, out=log_w[:, 1:])
        log_w[~inside] = -np.inf
        log_w -= log_w.max(axis=1, keepdims=True)
        w = np.exp(log_w)
        log_k = logs[k] if logs is not None else np.log(k.astype(np.float64))
        f = k / n * (math.log(n) + log_k - np.log(a2) - np.log(b2))
        f[k == 0] = 0.0
    mass = w.sum(axis=1)
    value = (w * f).sum(axis=1) / mass
    if tail_tol <= 0:
        return value, np.ones(a.shape[0], dtype=bool)
    last = w_hi - w_lo
    with np.errstate(invalid="ignore", divide="ignore"):
        left = -_log_ratio(a, b, n, np.maximum(w_lo - 1, lo), logs)
        right = _log_ratio(a, b, n, np.minimum(w_hi, np.maximum(hi - 1, lo)), logs)
    tail = _tail(w[:, 0], left, w_lo > lo) + _tail(w[np.arange(a.shape[0]), last], right,
                                                    w_hi < hi)
    return value, tail <= tail_tol * mass


def _tail(edge_w, log_r, open_side):
    """Geometric bound on the mass beyond an edge whose next-step ratio is exp(log_r)."""
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        r = np.exp(log_r)
        bound = np.where(r < 1.0, edge_w * r / (1.0 - r), np.inf)
    return np.where(open_side, bound, 0.0)
