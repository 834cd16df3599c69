"""Each law's terms of the exact SMI variance's orthogonal expansion
(:func:`._smi_expansion.pair_terms`), vectorised across laws in numpy: the windows as
padded rows of a (laws x points) array, the three-term recurrence order by order on all of
them, and the laws of a large mean from their Taylor polynomials, together.

Every window sum of :mod:`clustermetrics.scores._smi_projection` weighs by the pmf; the
rows hold sqrt(pmf) times the function, so each is a dot product. A law leaves the
working set when its orders are done or its recurrence loses accuracy (the scalar code's
``_NORM_SLACK`` stop; where that window is the whole support, explicit orthonormalisation
follows, as there). The arithmetic is the scalar code's, term for term; only the order of
summation differs, so the terms agree to rounding.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ._smi_expansion import _BUFFER, MOMENT_MEAN, TAYLOR_MAX
from ._smi_projection import _NORM_SLACK

__all__ = ["LawTerms", "empty_terms", "law_terms", "support_sizes"]

# entries of one padded (laws x window points) array: the laws are taken in blocks of at
# most this many so that the arrays stay within a few MB
_BLOCK = 1 << 20


class LawTerms(NamedTuple):
    """What :func:`._smi_expansion.pair_terms` gives per law: alpha is (orders + 1, laws)."""

    means: np.ndarray
    second: np.ndarray
    beta: np.ndarray
    resid: np.ndarray
    err: np.ndarray
    reached: np.ndarray
    alpha: np.ndarray


def empty_terms(laws: int, orders: int) -> LawTerms:
    return LawTerms(*(np.zeros(laws) for _ in range(5)), np.zeros(laws, dtype=np.int64),
                    np.zeros((orders + 1, laws)))


def support_sizes(n: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """How many values each Hyp(n, a, b) takes (int64)."""
    return np.minimum(a, b) - np.maximum(0, a + b - n) + 1


def _side(ratio, steps: np.ndarray, floor: float, start: int) -> tuple[np.ndarray, np.ndarray]:
    """(count, w): the running products w[:, d - 1] of ratio(d), d = 1, 2, ... (the pmf
    relative to the mode's, moving away from it), and how many of them the window keeps:
    the first ``count`` (at most ``steps``) are at least ``floor``. The pmf is log-concave,
    so the products fall monotonically and the kept ones are a prefix; the width tried
    doubles until every law's side has ended."""
    width = max(1, min(start, int(steps.max(initial=0))))
    while True:
        d = np.arange(1, width + 1)
        with np.errstate(all="ignore"):
            w = np.cumprod(ratio(d), axis=1)
        kept = np.logical_and.accumulate((d <= steps[:, None]) & (w >= floor), axis=1)
        count = kept.sum(axis=1)
        if not np.any((count == width) & (steps > width)):
            return count, w
        width *= 2


def _windows(n: int, a: np.ndarray, b: np.ndarray, floor: float, start: int
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(lo, count, p): the windows of :func:`._smi_projection.window` (pop n, succ a,
    draws b) of many laws, the pmf normalised on each, as rows of p padded with zeros."""
    klo = np.maximum(0, a + b - n)
    khi = np.minimum(a, b)
    mode = np.minimum(np.maximum((b + 1) * (a + 1) // (n + 2), klo), khi)
    rest = (n - a - b).astype(np.float64)[:, None]
    m, sa, sb = mode[:, None], a[:, None], b[:, None]

    def down(d):  # p(k - 1) / p(k) at k = mode - d + 1, formed as the scalar loop forms it
        k = m - d + 1
        return k * (rest + k) / ((sa - k + 1.0) * (sb - k + 1.0))

    def up(d):  # p(k + 1) / p(k) at k = mode + d - 1
        k = m + d - 1
        return (sa - k) * (sb - k) / ((k + 1.0) * (rest + k + 1.0))

    left, wl = _side(down, mode - klo, floor, start)
    right, wr = _side(up, khi - mode, floor, start)
    if np.any(left + right + 3 > _BUFFER):
        raise ValueError("a hypergeometric window is wider than the kernel's buffer")
    count = left + right + 1
    t = np.arange(int(count.max()))
    lft = left[:, None]
    p = np.where(t < lft, np.take_along_axis(wl, np.clip(lft - 1 - t, 0, wl.shape[1] - 1),
                                             axis=1), 0.0)
    p = np.where(t == lft, 1.0, p)
    beyond = (t > lft) & (t < count[:, None])
    p = np.where(beyond, np.take_along_axis(wr, np.clip(t - lft - 1, 0, wr.shape[1] - 1),
                                            axis=1), p)
    return mode - left, count, p / p.sum(axis=1, keepdims=True)


def _phi_hat(k: np.ndarray, k0: np.ndarray, rel: np.ndarray) -> np.ndarray:
    """:func:`._smi_projection.phi_hat` elementwise (k0, rel broadcast against k)."""
    kf = k.astype(np.float64)
    d = (k - k0).astype(np.float64)
    with np.errstate(all="ignore"):
        plain = np.where(k > 1, kf * np.log(np.maximum(kf, 1.0)), 0.0) - rel * kf
        body = kf * np.log1p(d / np.maximum(k0, 1)) - rel * d
    return np.where(k0 == 0, plain, np.where(k == 0, rel * k0, body))


def _recurrences(n: int, a: np.ndarray, b: np.ndarray, orders: int):
    """(shift, anchor, frac, centred, off): :func:`._smi_projection.recurrence` of many laws,
    centred (L, orders) and off (L, orders + 1); entries at orders a law does not have
    (beyond its support) are meaningless and never read."""
    over = a + b > n
    shift = np.where(over, a + b - n, 0)
    a, b = np.where(over, n - a, a), np.where(over, n - b, b)
    small, large = np.minimum(a, b), np.maximum(a, b)
    anchor = (small * large + n // 2) // n
    frac = (anchor * n - small * large).astype(np.float64) / float(n)
    m = small.astype(np.float64)[:, None]
    big = large.astype(np.float64)[:, None]
    nf = float(n)
    kf = np.arange(orders, dtype=np.float64)
    k1 = kf + 1.0
    with np.errstate(all="ignore"):  # the scalar recurrence's closed forms, all orders
        bracket = (-nf * kf * kf + kf * (nf * (m + big + nf + 1.0) - 4.0 * big * m)
                   - nf * (nf + 1.0) * (m + big) + big * m * (3.0 * nf + 2.0))
        shifted = kf * bracket / (nf * (2.0 * kf - nf - 1.0) * (2.0 * kf - nf))
        c_k = np.where(kf > 0, kf * (kf + m - nf - 1.0) * (kf + big - nf - 1.0) / (
            (2.0 * kf - nf - 2.0) * (2.0 * kf - nf - 1.0)), 0.0)
        a_k = (kf - nf - 1.0) * (kf - big) * (m - kf) / ((2.0 * kf - nf - 1.0)
                                                        * (2.0 * kf - nf))
        c_next = k1 * (k1 + m - nf - 1.0) * (k1 + big - nf - 1.0) / (
            (2.0 * k1 - nf - 2.0) * (2.0 * k1 - nf - 1.0))
        off = np.sqrt(np.maximum(a_k * c_next, 0.0))
    off = np.concatenate([np.zeros((off.shape[0], 1)), off], axis=1)
    return shift, anchor, frac, shifted + c_k, off


class _Window(NamedTuple):
    """The windows of many laws (:func:`_window_data`), rows padded with zeros: root =
    sqrt(pmf); points y - E[Y] = xi + frac (xi integer-valued); res = root (phi^ - mean);
    top the orders each law is expanded to; full whether the window is the whole support;
    the recurrence's coefficients."""

    root: np.ndarray
    xi: np.ndarray
    frac: np.ndarray
    res: np.ndarray
    mean: np.ndarray
    top: np.ndarray
    full: np.ndarray
    centred: np.ndarray
    off: np.ndarray

    def rows(self, at: np.ndarray) -> _Window:
        return _Window(*(v[at] for v in self))


def _window_data(n: int, a, b, k0, slope, floor: float, orders: int, start: int) -> _Window:
    """What :func:`._smi_projection.project` sums over, for many laws. Every window sum
    weighs by the pmf p; with the rows held as sqrt(p) times the function (the
    recurrence is linear, so sqrt(p) Q_q follows it too) each is a plain dot product."""
    lo, count, p = _windows(n, a, b, floor, start)
    t = np.arange(p.shape[1])
    inside = t < count[:, None]
    rel = np.where(k0 > 0, slope - np.log(np.maximum(k0, 1)), slope)[:, None]
    f = np.where(inside, _phi_hat(lo[:, None] + t, k0[:, None], rel), 0.0)
    mean = (p * f).sum(axis=1)
    last_order = support_sizes(n, a, b) - 1
    shift, anchor, frac, centred, off = _recurrences(n, a, b, max(orders, 1))
    xi = (lo - shift - anchor)[:, None] + np.where(inside, t, 0)
    root = np.sqrt(p)
    return _Window(root, xi.astype(np.float64), frac,
                   np.where(inside, f - mean[:, None], 0.0) * root, mean,
                   np.minimum(orders, last_order), count == last_order + 1, centred, off)


class _Working(NamedTuple):
    """The laws of :func:`_recurrence_orders` whose orders go on, row by row: their
    indices, points, and residual and last two polynomials times sqrt(pmf)."""

    live: np.ndarray
    x: np.ndarray
    res: np.ndarray
    q_prev: np.ndarray
    q_cur: np.ndarray

    def kept(self, keep: np.ndarray) -> _Working:
        return _Working(*(v[keep] for v in self))


def _recurrence_orders(win: _Window, orders: int
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(done, alpha, r2) of :func:`._smi_projection._recurrence_orders` for every law at
    once, order by order: a law leaves the working set when its orders are done or when
    the order just tried is inaccurate (the residual before it is then final)."""
    laws = win.root.shape[0]
    alpha, r2, done = np.zeros((orders + 1, laws)), np.zeros(laws), win.top.copy()
    work = _Working(np.arange(laws), win.xi, win.res.copy(), np.zeros_like(win.root),
                    win.root)
    nxt = acc = norm = np.zeros(0)
    for q in range(1, orders + 2):
        if q > 1:  # order q - 1 was just tried
            lost = ~(np.abs(norm - 1.0) <= _NORM_SLACK)
            if lost.any():
                done[work.live[lost]] = q - 2
                r2[work.live[lost]] = np.einsum("ij,ij->i", work.res[lost], work.res[lost])
                work, nxt, acc = work.kept(~lost), nxt[~lost], acc[~lost]
            alpha[q - 1, work.live] = acc
            work.res[...] -= acc[:, None] * nxt
            work = work._replace(q_prev=work.q_cur, q_cur=nxt)
        finished = q > win.top[work.live]
        if finished.any():
            r2[work.live[finished]] = np.einsum("ij,ij->i", work.res[finished],
                                                work.res[finished])
            work = work.kept(~finished)
        if work.live.shape[0] == 0:
            break
        live = work.live
        nxt = (work.x + (win.frac[live] - win.centred[live, q - 1])[:, None]) * work.q_cur
        nxt -= win.off[live, q - 1][:, None] * work.q_prev
        nxt *= (1.0 / win.off[live, q])[:, None]
        acc = np.einsum("ij,ij->i", work.res, nxt)
        norm = np.einsum("ij,ij->i", nxt, nxt)
    return done, alpha, r2


def _explicit_orders(win: _Window, orders: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(done, alpha, r2) of :func:`._smi_projection._explicit_orders` for every law at
    once: each polynomial orthonormalised against all the lower ones (Gram-Schmidt twice,
    one lower polynomial after the other as there), a law's orders ending at its top or
    where a polynomial vanishes."""
    laws, top = win.root.shape[0], int(win.top.max(initial=0))
    basis = np.zeros((top + 1,) + win.root.shape)
    basis[0] = win.root
    res, y = win.res.copy(), win.xi + win.frac[:, None]
    alpha, done, alive = np.zeros((orders + 1, laws)), win.top.copy(), np.ones(laws, bool)
    for q in range(1, top + 1):
        v = y * basis[q - 1]
        for _ in range(2):
            for j in range(q):
                v -= np.einsum("ij,ij->i", v, basis[j])[:, None] * basis[j]
        norm = np.einsum("ij,ij->i", v, v)
        vanished = alive & (q <= win.top) & ~(norm > 0.0)
        done[vanished] = q - 1
        alive &= ~vanished
        with np.errstate(all="ignore"):
            basis[q] = np.where((alive & (q <= win.top))[:, None],
                                v * (1.0 / np.sqrt(norm))[:, None], 0.0)
        alpha[q] = np.einsum("ij,ij->i", res, basis[q])
        res -= alpha[q][:, None] * basis[q]
    return done, alpha, np.einsum("ij,ij->i", res, res)


def _window_terms(n: int, a, b, k0, slope, floor: float, orders: int, start: int):
    """:func:`._smi_projection.project` of many laws at once: (mean, r2, done, alpha),
    alpha (orders + 1, L); where the recurrence stops early on a window that is the whole
    support, the orders come from explicit orthonormalisation, as there."""
    win = _window_data(n, a, b, k0, slope, floor, orders, start)
    done, alpha, r2 = _recurrence_orders(win, orders)
    explicit = np.flatnonzero((done < win.top) & win.full)
    blocks = -(-explicit.shape[0] * win.root.shape[1] * (orders + 1) // _BLOCK)
    for block in np.array_split(explicit, blocks) if blocks else ():
        done[block], alpha[:, block], r2[block] = _explicit_orders(win.rows(block), orders)
    return win.mean, r2, done, alpha


def _jacobi_times(vin: np.ndarray, centred: np.ndarray, off: np.ndarray, sd: np.ndarray
                  ) -> np.ndarray:
    """:func:`._smi_projection._jacobi_times` of many laws, rows of vin (L, width) zero
    beyond their support (so are their products: every coefficient read is finite)."""
    width = vin.shape[1]
    out = centred[:, :width] * vin
    out[:, :-1] += off[:, 1:width] * vin[:, 1:]
    out[:, 1:] += off[:, 1:width] * vin[:, :-1]
    return out / sd[:, None]


def _taylor(k: int, mu, sd, ratio, k0, slope) -> np.ndarray:
    """:func:`._smi_projection._taylor` of many laws: the coefficient of z^k."""
    rel = np.where(k0 > 0, slope - np.log(np.maximum(k0, 1)), slope)
    if k == 0:
        return mu * np.log1p((mu - k0) / k0) - rel * (mu - k0)
    if k == 1:
        return (np.log1p((mu - k0) / k0) + 1.0 - rel) * sd
    value = sd * ratio ** (k - 1) / (k * (k - 1.0))
    return value if k % 2 == 0 else -value


def _remainder_bound(m: int, mu: np.ndarray, scaled: np.ndarray) -> np.ndarray:
    """:func:`._smi_projection._remainder_bound` of many laws at degree m."""
    best = np.full(mu.shape[0], math.inf)
    for d in (0.5, 0.7, 0.8, 0.9, 0.95):
        head = scaled / ((m * (m + 1.0) * (1.0 - d)) ** 2)
        low = (mu / m) ** 2 * np.exp(-mu * (d + (1.0 - d) * math.log1p(-d)))
        best = np.minimum(best, head + low)
    return best


def _taylor_degrees(mu, sd, ratio, centred, off) -> tuple[np.ndarray, np.ndarray]:
    """(degree, bound): the least degree of :func:`._smi_projection.moment_project` whose
    remainder bound meets its goal, per law (-1 where none up to TAYLOR_MAX does), and
    that bound (the mean square)."""
    laws = mu.shape[0]
    goal = (2.0 ** -64 * sd * ratio / math.sqrt(2.0)) ** 2
    power, tmp = np.ones(laws), np.zeros((laws, TAYLOR_MAX + 2))
    tmp[:, 0] = 1.0
    degree, best = np.full(laws, -1), np.full(laws, math.inf)
    for k in range(1, TAYLOR_MAX + 2):  # tmp = J^k e_0
        tmp[:, :k + 1] = _jacobi_times(tmp[:, :k + 1], centred, off, sd)
        m = k - 1
        if m >= 1:
            power = power * (ratio * ratio)
        if m >= 2:
            moment = np.einsum("ij,ij->i", tmp[:, :k + 1], tmp[:, :k + 1])
            bound = _remainder_bound(m, mu, sd * sd * power * moment)
            met = (degree < 0) & (bound <= goal)
            degree[met], best[met] = m, bound[met]
    return degree, best


def _taylor_terms(n: int, a, b, k0, slope, orders: int):
    """:func:`._smi_projection.moment_project` of many laws at once: (mean, tail, second,
    err, alpha), err -1 where no degree meets the goal (the window then). Horner's rule
    runs for every law together, each starting at its own degree."""
    af, bf, nf = a.astype(np.float64), b.astype(np.float64), float(n)
    mu = af * bf / nf
    sd = np.sqrt(af * bf * (nf - af) * (nf - bf) / (nf * nf * (nf - 1.0)))
    ratio = sd / mu
    _, _, _, centred, off = _recurrences(n, a, b, TAYLOR_MAX + orders + 2)
    degree, best = _taylor_degrees(mu, sd, ratio, centred, off)
    top = int(degree.max(initial=0))
    tmp = np.zeros((a.shape[0], max(top, orders) + 1))
    for k in range(top, -1, -1):
        started = degree > k
        if started.any():
            rows = np.flatnonzero(started)
            tmp[rows, :top + 1] = _jacobi_times(tmp[rows, :top + 1], centred[rows],
                                                off[rows], sd[rows])
        coefficient = _taylor(k, mu, sd, ratio, k0, slope)
        tmp[:, 0] = np.where(started, tmp[:, 0] + coefficient, np.where(
            degree == k, coefficient, tmp[:, 0]))
    square = tmp[:, 1:] ** 2
    q = np.arange(1, tmp.shape[1])
    second = np.where(q >= 2, square, 0.0).sum(axis=1)
    tail = np.where(q > orders, square, 0.0).sum(axis=1)
    alpha = np.zeros((orders + 1, a.shape[0]))
    alpha[1:] = tmp[:, 1:orders + 1].T
    return tmp[:, 0], tail, second, np.where(degree >= 0, np.sqrt(best), -1.0), alpha


def _law_blocks(n: int, a: np.ndarray, b: np.ndarray, cut: float
                ) -> list[tuple[np.ndarray, int]]:
    """The laws in blocks of similar window widths (sorted by an estimate: a normal law's
    tails of sqrt(2 cut) deviations, plus a few points) of at most _BLOCK points each, with
    the half width to try first."""
    af, bf = a.astype(np.float64), b.astype(np.float64)
    sd = np.sqrt(af * bf * (n - af) * (n - bf) / (float(n) * n * max(n - 1.0, 1.0)))
    est = np.minimum(support_sizes(n, a, b), 2.0 * math.sqrt(2.0 * cut) * sd + 0.1 * cut + 4.0)
    order = np.argsort(est, kind="stable")
    ranked = est[order]
    blocks, at = [], 0
    while at < order.shape[0]:  # the widest law of a block is its last (ascending)
        size = np.arange(1, order.shape[0] - at + 1) * ranked[at:]
        end = at + max(1, int(np.searchsorted(size, _BLOCK, side="right")))
        blocks.append((order[at:end], int(ranked[end - 1]) // 2 + 2))
        at = end
    return blocks


def _taylor_into(out: LawTerms, n: int, pa, pb, k0, slope, orders: int, taylor: np.ndarray
                 ) -> np.ndarray:
    """The laws ``taylor`` from their Taylor polynomials into ``out`` (as
    :func:`._smi_expansion.pair_terms` writes them); returns those whose remainder met the
    goal (the others take their windows, as there)."""
    if taylor.shape[0] == 0:
        return taylor
    mean, tail, second, err, alpha = _taylor_terms(n, pa[taylor], pb[taylor], k0[taylor],
                                                   slope[taylor], orders)
    met = err >= 0.0
    at = taylor[met]
    af, bf, nf = pa[at].astype(np.float64), pb[at].astype(np.float64), float(n)
    sd = np.sqrt(af * bf * (nf - af) * (nf - bf) / (nf * nf * (nf - 1.0)))
    out.means[at], out.second[at], out.resid[at], out.err[at] = \
        mean[met], second[met], tail[met], err[met]
    out.beta[at], out.reached[at], out.alpha[:, at] = alpha[1, met] / sd, orders, alpha[:, met]
    return at


def law_terms(n: int, pa: np.ndarray, pb: np.ndarray, k0: np.ndarray, slope: np.ndarray,
              cut: float, orders: int, moments: bool) -> LawTerms:
    """:func:`._smi_expansion.pair_terms` of the laws Hyp(n, pa[p], pb[p]), vectorised over
    the laws: those of a large mean (``moments``) from their Taylor polynomial where its
    remainder meets the goal, the others from their windows."""
    pa, pb = np.asarray(pa, dtype=np.int64), np.asarray(pb, dtype=np.int64)
    k0, slope = np.asarray(k0, dtype=np.int64), np.asarray(slope, dtype=np.float64)
    out = empty_terms(pa.shape[0], orders)
    last_order = support_sizes(n, pa, pb) - 1
    af, bf, nf = pa.astype(np.float64), pb.astype(np.float64), float(n)
    taylor = np.flatnonzero(moments & (af * bf >= MOMENT_MEAN * nf)
                            & (last_order > TAYLOR_MAX + orders + 4))
    windowed = np.ones(pa.shape[0], dtype=bool)
    windowed[_taylor_into(out, n, pa, pb, k0, slope, orders, taylor)] = False
    windowed = np.flatnonzero(windowed)
    for block, start in _law_blocks(n, pa[windowed], pb[windowed], cut):
        at = windowed[block]
        mean, r2, done, alpha = _window_terms(n, pa[at], pb[at], k0[at], slope[at],
                                              math.exp(-cut), orders, start)
        r2 = np.maximum(r2, 0.0)
        sd = np.sqrt(af[at] * bf[at] * (nf - af[at]) * (nf - bf[at]) / (nf * nf * (nf - 1.0)))
        out.means[at] = mean
        # a law expanded to its last order leaves no residual (its polynomials span every
        # function of its support): 0, not the ~1e-32 that r2's sums round to, so that an
        # S the same for every pairing has a variance of exactly 0, as in the scalar code
        complete = done == last_order[at]
        out.second[at] = np.where(complete, 0.0, r2) + (alpha[2:] ** 2).sum(axis=0)
        out.beta[at] = np.divide(alpha[1], sd, out=np.zeros(at.shape[0]), where=done >= 1)
        out.resid[at] = np.where(complete, 0.0, r2)
        out.reached[at] = done
        out.alpha[:, at] = alpha
    return out
