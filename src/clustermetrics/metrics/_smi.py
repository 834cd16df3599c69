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
E_Hyp(N - a, a_i', m)[phi] is tabulated once per distinct row size; every sum is over the
distinct row and column sizes weighted by their multiplicities. The work is about
sum_{a,b,b'} min(a, b) min(a, b') (a, b, b' distinct sizes), cubic in N in the worst case
(Romano et al. state a cost cubic in N as well); :func:`exact_work` estimates it so that
``method="auto"`` can fall back to Monte Carlo.

Monte Carlo
-----------
Random tables with the same margins are drawn row by row from the multivariate
hypergeometric law (cost R C per table) or, when that is larger than N log N, as random
pairings of the items (the column labels, laid out by size, shuffled against the row
labels). The draw depends only on the sorted sizes, so it is the same for every order of
the labels and for the transposed table. E[MI] is exact (AMI's), so only the variance is estimated:
sigma^2 = mean((S_k - E[S])^2) over the draws, whose standard error is sd((S_k - E[S])^2)
/ sqrt(M) whatever the law of S; the delta method gives SE(SMI) = |SMI| SE(sigma^2) /
(2 sigma^2). (Klede et al., "FastAMI", AAAI 2023, estimate both moments by Monte Carlo.)
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import gammaln

__all__ = ["exact_variance", "exact_work", "sample_cost", "sample_s", "s_of_counts"]


def s_of_counts(counts: np.ndarray) -> float:
    """sum n log n over the given counts (0 log 0 = 0), summed exactly-ish (fsum)."""
    c = np.asarray(counts, dtype=np.float64)
    c = c[c > 1]
    return math.fsum((c * np.log(c)).tolist())


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


def exact_variance(a: np.ndarray, b: np.ndarray, n: int) -> tuple[float, float]:
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


_ROW_CELL_COST = 80.0
_ROWS_MAX_N = 10**9 - 1  # numpy's multivariate hypergeometric sampler needs N < 1e9
_PAIRING_MAX_N = 1 << 28  # a random pairing holds ~3 arrays of N int64 (6 GB at 2^28)


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
    """Rough cost of one random table in units of ~5 ns (measured): a multivariate
    hypergeometric row at a time ~80 units per cell, a shuffled pairing N log2 N."""
    return _sampler(*_canonical(a, b))[1]


def _sampler(a: np.ndarray, b: np.ndarray) -> tuple[str | None, float]:
    """(which sampler, its cost per table); (None, inf) when N is beyond both."""
    n = int(a.sum())
    rows = float(a.shape[0]) * float(b.shape[0]) * _ROW_CELL_COST
    pairing = float(n) * max(math.log2(n), 1.0)
    options = [(cost, name) for cost, name, ok in ((rows, "rows", n <= _ROWS_MAX_N),
                                                   (pairing, "pairing", n <= _PAIRING_MAX_N))
               if ok]
    if not options:
        return None, math.inf
    cost, name = min(options)
    return name, cost


def sample_s(a: np.ndarray, b: np.ndarray, n_samples: int, seed: int) -> np.ndarray:
    """S = sum n log n of ``n_samples`` random tables with margins ``a`` and ``b``: rows
    drawn one after another from the multivariate hypergeometric law when the table is
    small next to N, else a random pairing of the items (both draw the same law)."""
    a, b = _canonical(a, b)
    name, _ = _sampler(a, b)
    if name is None:
        raise ValueError(f"the Monte Carlo sampler supports N < {_ROWS_MAX_N + 1:.0e} items "
                         f"(numpy's multivariate hypergeometric sampler), got N = {a.sum()}")
    rng = np.random.default_rng(seed)
    out = np.empty(n_samples)
    if name == "rows":
        for s in range(n_samples):
            left = b.copy()
            table = np.empty((a.shape[0], b.shape[0]), dtype=np.int64)
            for i, size in enumerate(a.tolist()):
                table[i] = rng.multivariate_hypergeometric(left, size, method="marginals")
                left -= table[i]
            out[s] = s_of_counts(table.ravel())
        return out
    base = _layout(a) * np.int64(b.shape[0])
    cols = _layout(b)
    for s in range(n_samples):
        keys = base + rng.permutation(cols)
        keys.sort()
        starts = np.flatnonzero(np.diff(keys, prepend=-1))
        counts = np.diff(np.append(starts, keys.shape[0]))
        out[s] = s_of_counts(counts)
    return out
