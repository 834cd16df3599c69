"""The previous dense exact variance of S = sum n_ij log n_ij (Romano et al. 2014), kept as a
test reference: hypergeometric laws tabulated over every count up to the largest size, with
log k! from one table (memory and time grow with N, so only for small N)."""

import math

import numpy as np
from scipy.special import gammaln


def _distinct(sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    u, c = np.unique(np.asarray(sizes, dtype=np.int64), return_counts=True)
    return u, c.astype(np.float64)


def exact_work(a: np.ndarray, b: np.ndarray) -> float:
    """Rough number of hypergeometric terms :func:`exact_variance` evaluates (the cheaper
    orientation), to decide whether the exact computation is affordable."""
    return min(_work(*_distinct(a), *_distinct(b)), _work(*_distinct(b), *_distinct(a)))


def _work(ua, ca, ub, cb) -> float:
    af, bf = ua.astype(np.float64), ub.astype(np.float64)
    m_ab = np.minimum.outer(af, bf) + 1.0  # x per (a, b)
    inner = m_ab.sum(axis=1)  # sum_b' (min(a, b') + 1)
    walk = float((m_ab * inner[:, None]).sum())
    table = float(ua.shape[0] * (bf[-1] + 1.0) * (af + 1.0).sum())
    return walk + table


def _hyp(lf: np.ndarray, pop: int, succ: int, draws: np.ndarray, kmax: int) -> np.ndarray:
    """P[r, k] = P(Hyp(pop, succ, draws[r]) = k) for k = 0..kmax from the table ``lf`` of
    log k! (rows renormalised to sum 1; rows whose draws exceed the population are 0)."""
    draws = np.asarray(draws, dtype=np.int64)
    k = np.arange(kmax + 1, dtype=np.int64)[None, :]
    d = draws[:, None]
    valid = (k <= succ) & (k <= d) & (d - k <= pop - succ) & (d <= pop) & (d >= 0)
    kk = np.where(valid, k, 0)
    dd = np.where(valid, d, 0)
    logp = lf[succ] + lf[pop - succ] - lf[pop] - lf[kk] - lf[succ - kk] - lf[dd - kk] \
        - lf[pop - succ - dd + kk] + lf[dd] + lf[pop - dd]
    p = np.exp(logp, where=valid, out=np.zeros(logp.shape))
    total = p.sum(axis=1, keepdims=True)
    np.divide(p, total, out=p, where=total > 0)
    return p


def dense_exact_variance(a: np.ndarray, b: np.ndarray, n: int) -> tuple[float, float]:
    """(E[S], Var[S]) of S = sum n_ij log n_ij under the permutation model, exactly (up to
    rounding), for class sizes ``a`` and cluster sizes ``b`` over ``n`` items."""
    ua, ca = _distinct(a)
    ub, cb = _distinct(b)
    if _work(ub, cb, ua, ca) < _work(ua, ca, ub, cb):  # Var is symmetric: cheaper side
        ua, ca, ub, cb = ub, cb, ua, ca
    n = int(n)
    top = int(max(ua[-1], ub[-1]))
    k = np.arange(top + 1, dtype=np.float64)
    phi = k * np.log(np.maximum(k, 1.0))
    bmax = int(ub[-1])
    lf = gammaln(np.arange(n + 1, dtype=np.float64) + 1.0)  # log k!

    # m(a, b) = E[phi(n_ij)] for each pair of distinct sizes, and E[S]
    means = np.empty((ua.shape[0], ub.shape[0]))
    for ia, av in enumerate(ua.tolist()):
        means[ia] = _hyp(lf, n, av, ub, av) @ phi[:av + 1]
    e_s = math.fsum((means * np.outer(ca, cb)).ravel().tolist())

    # G_a(m) = sum over the other rows i' of E_Hyp(N - a, a_i', m)[phi], m = 0..bmax
    draws = np.arange(bmax + 1)
    g = np.zeros((ua.shape[0], bmax + 1))
    for ia, av in enumerate(ua.tolist()):
        pop = n - av
        for ja, (ov, oc) in enumerate(zip(ua.tolist(), ca.tolist(), strict=True)):
            mult = oc - (1.0 if ja == ia else 0.0)
            if mult:
                g[ia] += mult * (_hyp(lf, pop, ov, draws, min(ov, bmax)) @ phi[:min(ov, bmax) + 1])

    var = []
    for ia, av in enumerate(ua.tolist()):
        for jb, (bv, bc) in enumerate(zip(ub.tolist(), cb.tolist(), strict=True)):
            lo, hi = max(0, av + bv - n), min(av, bv)
            x = np.arange(lo, hi + 1)
            px = _hyp(lf, n, av, np.array([bv]), hi)[0, lo:]
            cond = phi[x] + g[ia, bv - x]  # cell (i, j) and the cells (i', j)
            for kb, (ov, oc) in enumerate(zip(ub.tolist(), cb.tolist(), strict=True)):
                mult = oc - (1.0 if kb == jb else 0.0)
                if not mult:
                    continue
                ymax = min(ov, av)
                y = np.arange(ymax + 1)
                f = phi[y] + g[ia, ov - y]  # cell (i, j') and the cells (i', j')
                cond += mult * (_hyp(lf, n - bv, ov, av - x, ymax) @ f)
            dev = phi[x] - means[ia, jb]
            var.append(ca[ia] * bc * float(px @ (dev * (cond - e_s))))
    return e_s, max(math.fsum(var), 0.0)
