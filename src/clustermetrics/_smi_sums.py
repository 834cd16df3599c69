"""The exact variance of S = sum n_ij log n_ij under the permutation model (the SMI of
:mod:`.metrics._smi`) by row conditioning, in scalar loops: run as plain Python on tiny
tables, compiled by :mod:`clustermetrics._smi_kernels` (numba) otherwise. Nothing here
imports numba.

Row conditioning. With S_i the sum over row i, Var[S] = sum_i Cov(S_i, S) =
sum_i Cov(S_i, E[S | row i]). Given row i's vector r (a multivariate hypergeometric draw of
a_i items from the columns), the other rows form a permutation-model table with column
sizes b_l - r_l over N - a_i items, so E[S | r] = sum_l h_l(r_l) with
h_l(y) = phi(y) + G_l(b_l - y) and G_l(m) = sum_{k != i} E[phi(Hyp(N - a_i, a_k, m))] (the
expectation of the other rows' cells in a column holding m of their items; Romano et al.,
ICML 2014, Theorem 1 conditions on one cell instead). Cov(sum_l phi(r_l), sum_l h_l(r_l))
is accumulated over the columns one at a time: drawing row i column by column, r_l is
Hyp(N - b_1 - ... - b_(l-1), b_l, a_i - s) given the s items drawn before, so a forward
pass over the states s carries, for each s, its probability and the expectations of the
two partial sums and of their product. The cost is (columns) x (states) x (window) per
distinct row size, against (distinct column sizes)^2 x window^2 for the nested sums over
pairs of cells.

Every phi is the shifted phi^_ij (:func:`phi_hat`, as in :func:`.metrics._smi.exact_variance`)
and every function is centred by its marginal mean, so the accumulated terms are of the
size of the fluctuations. Each law is summed over its window, the k with
p(k) >= e^-T p(mode) (T from :func:`.metrics._smi._cut`), its pmf built from the ratios
p(k +- 1) / p(k) outward from the mode (or advanced one draw at a time from the previous
law) and normalised on the window; a transition is kept where the draw lies in the window
of its column's marginal law Hyp(N, a_i, b_l), and a state where its probability is at
least e^-T of the largest. As in ``_cut``, each dropped part is below tau = 2 e^-T (1 + N)
of the mass kept (the laws are log-concave), a path meets at most R + C truncations, and
the summands are bounded by C B and their products by (C B)^2 (B of ``_cut``), so Var[S]
moves by at most ~(R + C) tau (C B)^2, (R + C) / (28 R^2) 2^-60 with that T: far below
its rounding, as for the nested sums. Tests compare it with them, with enumeration of
every table, and with mpmath.
"""

from __future__ import annotations

import math

import numpy as np

# the longest window a kernel call holds (a window of 2^22 points would mean ~10^13 terms;
# the callers' cost estimates never send such a table; a wider window raises ValueError)
_BUFFER = 1 << 22
# phi^ is tabulated for counts below this (beyond, computed where needed)
_TABLE = 4096


def phi_hat(k, k0, slope):
    """phi(k) - phi(k0) - slope (k - k0), phi(k) = k log k, without cancellation (see
    :func:`clustermetrics.metrics._smi._phi_shifted`)."""
    if k0 == 0:
        return (k * math.log(k) if k > 1 else 0.0) - slope * k
    if k == 0:
        return slope * k0 - k0 * math.log(k0)
    d = float(k - k0)
    return d * (math.log(k) - slope) + k0 * math.log1p(d / k0)


def window(pop, succ, draws, floor, buf):
    """(first k, count): buf[:count] holds P(Hyp(pop, succ, draws) = k) for the k whose
    probability is at least ``floor`` times the mode's, normalised on them."""
    klo = max(0, draws + succ - pop)
    khi = min(succ, draws)
    mode = min(max((draws + 1) * (succ + 1) // (pop + 2), klo), khi)
    rest = float(pop - succ - draws)
    left = 0
    w = 1.0
    k = mode
    while k > klo:
        w *= k * (rest + k) / ((succ - k + 1.0) * (draws - k + 1.0))
        if w < floor:
            break
        if left + 2 >= buf.shape[0]:
            raise ValueError("a hypergeometric window is wider than the kernel's buffer")
        buf[left] = w
        left += 1
        k -= 1
    for t in range(left // 2):
        buf[t], buf[left - 1 - t] = buf[left - 1 - t], buf[t]
    buf[left] = 1.0
    count = left + 1
    w = 1.0
    k = mode
    while k < khi:
        w *= (succ - k) * (draws - k) / ((k + 1.0) * (rest + k + 1.0))
        if w < floor:
            break
        if count + 1 >= buf.shape[0]:
            raise ValueError("a hypergeometric window is wider than the kernel's buffer")
        buf[count] = w
        count += 1
        k += 1
    total = 0.0
    for t in range(count):
        total += buf[t]
    for t in range(count):
        buf[t] /= total
    return mode - left, count


def advance(pop, succ, draws, floor, lo, count, buf, phis, k0, slope):
    """buf[:count] holds the window of Hyp(pop, succ, draws) from k = lo: replace it by
    the law after one more draw (the next item is a success with probability (succ - k) /
    (pop - draws) given k), trimmed to p >= floor * max; returns the new (lo, count) and
    E[phi^(k)] under the new law (phi^ from ``phis`` below its length). Not normalised
    again: a step loses at most ~floor of the mass."""
    if count + 1 >= buf.shape[0]:
        raise ValueError("a hypergeometric window is wider than the kernel's buffer")
    inv = 1.0 / (pop - draws)
    rest = float(pop - draws - succ)
    prev = 0.0
    top = 0.0
    mean = 0.0
    for t in range(count + 1):
        k = lo + t
        here = buf[t] if t < count else 0.0
        # the failure weight is exactly 0 at the support's new left end
        value = here * ((rest + k) * inv) + prev * ((succ - k + 1.0) * inv)
        prev = here
        buf[t] = value
        top = max(top, value)
        if phis.shape[0]:
            mean += value * (phis[k] if k < phis.shape[0] else phi_hat(k, k0, slope))
    count += 1
    first = 0
    while buf[first] < floor * top:
        first += 1
    while buf[count - 1] < floor * top:
        count -= 1
    if first:
        for t in range(first, count):
            buf[t - first] = buf[t]
    return lo + first, count - first, mean


def _other_rows(n, ia, ua, ca, k0, slope, jb, m_lo, m_hi, floor, buf, phis, out):
    """out[m - m_lo] = G(m) = sum over the rows other than one of size ua[ia] of
    E[phi^(Hyp(n - ua[ia], a_k, m))] in a column of index jb, for m = m_lo .. m_hi: each
    law advanced one draw at a time from m_lo (phi^ from phis[ka, jb] where tabulated)."""
    pop = n - ua[ia]
    for t in range(m_hi - m_lo + 1):
        out[t] = 0.0
    for ka in range(ua.shape[0]):
        mult = ca[ka] - (1 if ka == ia else 0)
        if mult <= 0:
            continue
        table = phis[ka, jb]
        lo, count = window(pop, ua[ka], m_lo, floor, buf)
        mean = 0.0
        for t in range(count):
            k = lo + t
            mean += buf[t] * (table[k] if k < table.shape[0]
                              else phi_hat(k, k0[ka, jb], slope[ka, jb]))
        out[0] += mult * mean
        for m in range(m_lo, m_hi):
            lo, count, mean = advance(pop, ua[ka], m, floor, lo, count, buf, table,
                                      k0[ka, jb], slope[ka, jb])
            out[m + 1 - m_lo] += mult * mean


def _column_functions(n, ia, ua, ub, k0, slope, floor, buf, g, g_at, lo, count):
    """For each column size jb: on the window [lo, lo + count) of the row's cell law
    Hyp(n, a, b) (from :func:`window`), the centred f = phi^ and h = phi^ + G(b - y)
    (G from g[g_at[jb]:], starting at m = b - (lo + count - 1)), laid end to end."""
    a = ua[ia]
    nb = ub.shape[0]
    start = np.empty(nb + 1, dtype=np.int64)
    start[0] = 0
    for jb in range(nb):
        start[jb + 1] = start[jb] + count[jb]
    f = np.empty(start[nb])
    h = np.empty(start[nb])
    for jb in range(nb):
        lo_j, c = window(n, a, ub[jb], floor, buf)
        top = lo_j + c - 1
        mean_f = 0.0
        mean_h = 0.0
        for t in range(c):
            at = start[jb] + t
            f[at] = phi_hat(lo_j + t, k0[ia, jb], slope[ia, jb])
            h[at] = f[at] + g[g_at[jb] + top - lo_j - t]
            mean_f += buf[t] * f[at]
            mean_h += buf[t] * h[at]
        for t in range(c):
            f[start[jb] + t] -= mean_f
            h[start[jb] + t] -= mean_h
    return start, f, h


def _row_covariance(n, a, ub, cb, floor, buf, lo, count, start, f, h):
    """Cov(S_i, E[S | row i]) for a row of size a from the centred f and h of each column
    (module docstring)."""
    # states s = s_lo .. s_hi at acc[:, s - s_lo]: probability, E[F; s], E[H; s], E[F H; s]
    acc = np.zeros((4, 1))
    acc[0, 0] = 1.0
    no_phis = np.empty(0)
    s_lo, s_hi = 0, 0
    pop = n
    for jb in range(ub.shape[0]):
        b = ub[jb]
        y_lo, y_hi = lo[jb], lo[jb] + count[jb] - 1
        for _ in range(cb[jb]):
            first = max(s_lo, a - pop)  # below, more draws left than items: unreachable
            top = 0.0
            for s in range(first, s_hi + 1):
                top = max(top, acc[0, s - s_lo])
            n_lo, n_hi = min(first + y_lo, a), min(s_hi + y_hi, a)
            nxt = np.zeros((4, n_hi - n_lo + 1))
            k_lo, c = window(pop, b, a - s_hi, floor, buf)
            for s in range(s_hi, first - 1, -1):
                if s < s_hi:
                    # an int64 0, not a literal: one compiled version of advance
                    k_lo, c, _ = advance(pop, b, a - s - 1, floor, k_lo, c, buf, no_phis,
                                         np.int64(0), 0.0)
                p_s = acc[0, s - s_lo]
                if p_s < floor * top:
                    continue
                e_f, e_h, e_fh = acc[1, s - s_lo], acc[2, s - s_lo], acc[3, s - s_lo]
                for t in range(max(k_lo, y_lo) - k_lo, min(k_lo + c - 1, y_hi) - k_lo + 1):
                    y = k_lo + t
                    p = buf[t]
                    fy = f[start[jb] + y - y_lo]
                    hy = h[start[jb] + y - y_lo]
                    u = s + y - n_lo
                    nxt[0, u] += p_s * p
                    nxt[1, u] += (e_f + p_s * fy) * p
                    nxt[2, u] += (e_h + p_s * hy) * p
                    nxt[3, u] += (e_fh + e_f * hy + e_h * fy + p_s * fy * hy) * p
            acc = nxt
            s_lo, s_hi = n_lo, n_hi
            pop -= b
    at = a - s_lo
    p_a = acc[0, at]
    return acc[3, at] / p_a - acc[1, at] * acc[2, at] / (p_a * p_a)


def exact_moments(ua, ca, ub, cb, n, k0, slope, cut):
    """(means[a, b] = E[phi^(Hyp(n, a, b))] per pair of distinct sizes, Cov(S_i, E[S | row
    i]) per distinct row size): E[S] and Var[S] = sum ca * cov follow (the caller sums
    them accurately)."""
    floor = math.exp(-cut)
    size = min(int(min(ua.max(), ub.max())) + 3, _BUFFER)
    buf = np.empty(size)
    na, nb = ua.shape[0], ub.shape[0]
    # phi^ of every pair of sizes at k = 0 .. min(size, _TABLE) - 1, once
    phis = np.empty((na, nb, min(size, _TABLE)))
    for ka in range(na):
        for jb in range(nb):
            for k in range(phis.shape[2]):
                phis[ka, jb, k] = phi_hat(k, k0[ka, jb], slope[ka, jb])
    means = np.empty((na, nb))
    cov = np.empty(na)
    lo = np.empty(nb, dtype=np.int64)
    count = np.empty(nb, dtype=np.int64)
    g_at = np.empty(nb + 1, dtype=np.int64)
    for ia in range(na):
        g_at[0] = 0
        for jb in range(nb):
            lo[jb], count[jb] = window(n, ua[ia], ub[jb], floor, buf)
            total = 0.0
            for t in range(count[jb]):
                total += buf[t] * phi_hat(lo[jb] + t, k0[ia, jb], slope[ia, jb])
            means[ia, jb] = total
            g_at[jb + 1] = g_at[jb] + count[jb]
        g = np.empty(g_at[nb])
        for jb in range(nb):  # G(m) for m = b - y over the window of y
            m_hi = ub[jb] - lo[jb]
            _other_rows(n, ia, ua, ca, k0, slope, jb, m_hi - count[jb] + 1, m_hi, floor, buf,
                        phis, g[g_at[jb]:])
        start, f, h = _column_functions(n, ia, ua, ub, k0, slope, floor, buf, g, g_at, lo,
                                        count)
        cov[ia] = _row_covariance(n, ua[ia], ub, cb, floor, buf, lo, count, start, f, h)
    return means, cov
