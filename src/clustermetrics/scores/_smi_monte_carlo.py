"""The variance of the mutual information under the permutation model by Monte Carlo,
for the SMI (:mod:`clustermetrics.scores._smi`).

Random tables with the same margins are drawn row by row from the multivariate
hypergeometric law (cost R C per table) or, when that is larger, as random pairings of the
items (the column labels, laid out by size, shuffled against the row labels, and counted
into cells in O(N)). The draw depends only on the sorted sizes, so it is the same for every
order of the labels and for the transposed table. E[MI] is exact (AMI's), so only the
variance is estimated, from Y_k = (S_k - E[S])^2 over the M draws, S = sum_ij n_ij log n_ij.

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

import numpy as np

from . import compiled

__all__ = ["control_moments", "monte_carlo_variance", "sample_cost", "sample_costs",
           "sample_s", "sample_stats", "variance_from_stats"]


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
