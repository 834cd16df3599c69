"""The exact SMI variance's orthogonal expansion (:mod:`clustermetrics.scores._smi_expansion`)
in numpy, vectorised across laws and tables instead of looping over them: no compile, a
few milliseconds on a small table.

The scalar loops run well compiled, but compiling them costs seconds on a fresh install
and plain Python costs microseconds a step. Here each step of the expansion is one numpy
operation over every law at once (a law: Hyp(N, a, b) for one pair of distinct sizes):
the windows are padded rows of an (L, W) array, the three-term recurrence runs order by
order on all of them, and each law leaves the working set when its orders are done or
its recurrence loses accuracy (the scalar code's ``_NORM_SLACK`` stop; where that window
is the whole support, explicit orthonormalisation follows, as there). The double sums
over a table's cells (:func:`._smi_expansion.table_sum`) run over the padded (tables x
distinct rows x distinct columns) arrays of a stack, every order at once. The arithmetic
is the scalar code's, term for term; only the order of summation differs, so the values
agree to rounding. The laws of a large mean, which the scalar code takes from a Taylor
polynomial (O(degree^2) each, no window), go to that code (plain Python) as they are.

:func:`vectorised_moments` and :func:`vectorised_variances` take the arguments of
:func:`._smi_expansion.expansion_moments` and :func:`._smi_expansion.expansion_variances`
and give the same results, so that the callers run either.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ._smi_expansion import (
    _BUFFER,
    FIRST_ORDER,
    MAX_ORDER,
    MOMENT_MEAN,
    RELATIVE_TAIL,
    TAYLOR_MAX,
    pair_terms,
)
from ._smi_projection import _NORM_SLACK

__all__ = ["law_terms", "remembered", "vectorised_moments", "vectorised_variances"]

# entries of one padded array (laws x window points, or tables x orders x cells): work is
# split into blocks of at most this many so that the arrays stay within a few MB
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


def _empty_terms(laws: int, orders: int) -> LawTerms:
    return LawTerms(*(np.zeros(laws) for _ in range(5)), np.zeros(laws, dtype=np.int64),
                    np.zeros((orders + 1, laws)))


def _support(n: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
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
    last_order = _support(n, a, b) - 1
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


def _law_blocks(n: int, a: np.ndarray, b: np.ndarray, cut: float
                ) -> list[tuple[np.ndarray, int]]:
    """The laws in blocks of similar window widths (sorted by an estimate: a normal law's
    tails of sqrt(2 cut) deviations, plus a few points) of at most _BLOCK points each, with
    the half width to try first."""
    af, bf = a.astype(np.float64), b.astype(np.float64)
    sd = np.sqrt(af * bf * (n - af) * (n - bf) / (float(n) * n * max(n - 1.0, 1.0)))
    est = np.minimum(_support(n, a, b), 2.0 * math.sqrt(2.0 * cut) * sd + 0.1 * cut + 4.0)
    order = np.argsort(est, kind="stable")
    ranked = est[order]
    blocks, at = [], 0
    while at < order.shape[0]:  # the widest law of a block is its last (ascending)
        size = np.arange(1, order.shape[0] - at + 1) * ranked[at:]
        end = at + max(1, int(np.searchsorted(size, _BLOCK, side="right")))
        blocks.append((order[at:end], int(ranked[end - 1]) // 2 + 2))
        at = end
    return blocks


def law_terms(n: int, pa: np.ndarray, pb: np.ndarray, k0: np.ndarray, slope: np.ndarray,
              cut: float, orders: int, moments: bool) -> LawTerms:
    """:func:`._smi_expansion.pair_terms` of the laws Hyp(n, pa[p], pb[p]), vectorised over
    the laws whose windows it sums; those of a large mean (``moments``: a Taylor
    polynomial, O(degree^2) a law) run the scalar code."""
    pa, pb = np.asarray(pa, dtype=np.int64), np.asarray(pb, dtype=np.int64)
    k0, slope = np.asarray(k0, dtype=np.int64), np.asarray(slope, dtype=np.float64)
    out = _empty_terms(pa.shape[0], orders)
    last_order = _support(n, pa, pb) - 1
    af, bf, nf = pa.astype(np.float64), pb.astype(np.float64), float(n)
    scalar = moments & (af * bf >= MOMENT_MEAN * nf) & (last_order > TAYLOR_MAX + orders + 4)
    windowed = np.flatnonzero(~scalar)
    for block, start in _law_blocks(n, pa[windowed], pb[windowed], cut):
        at = windowed[block]
        mean, r2, done, alpha = _window_terms(n, pa[at], pb[at], k0[at], slope[at],
                                              math.exp(-cut), orders, start)
        r2 = np.maximum(r2, 0.0)
        sd = np.sqrt(af[at] * bf[at] * (nf - af[at]) * (nf - bf[at]) / (nf * nf * (nf - 1.0)))
        out.means[at] = mean
        out.second[at] = r2 + (alpha[2:] ** 2).sum(axis=0)
        out.beta[at] = np.divide(alpha[1], sd, out=np.zeros(at.shape[0]), where=done >= 1)
        out.resid[at] = np.where(done == last_order[at], 0.0, r2)
        out.reached[at] = done
        out.alpha[:, at] = alpha
    _scalar_terms(n, pa, pb, k0, slope, cut, orders, moments, np.flatnonzero(scalar), out)
    return out


def _scalar_terms(n, pa, pb, k0, slope, cut, orders, moments, at, out: LawTerms) -> None:
    """The laws ``at`` by the scalar :func:`._smi_expansion.pair_terms`, into ``out``."""
    if at.shape[0] == 0:
        return
    part = LawTerms(*(np.empty(at.shape[0]) for _ in range(5)),
                    np.empty(at.shape[0], dtype=np.int64), np.empty((orders + 1, at.shape[0])))
    pair_terms(n, pa[at], pb[at], k0[at], slope[at], cut, orders, moments, *part)
    part.alpha[0] = 0.0
    for mine, theirs in zip(out, part, strict=True):
        mine[..., at] = theirs


class Padded(NamedTuple):
    """Tables laid over a common (tables x rows x columns) grid: sizes padded with zeros of
    zero multiplicity; law[r, s, t] the law of a cell (0 in the padding, weighed by 0)."""

    ua: np.ndarray
    ca: np.ndarray
    ub: np.ndarray
    cb: np.ndarray
    law: np.ndarray

    def rows(self, at: np.ndarray) -> Padded:
        return Padded(*(v[at] for v in self))


def padded(ua, ca, row_off, ub, cb, col_off, index, pair_off) -> Padded:
    """:class:`Padded` of the ragged tables of :func:`vectorised_variances`."""
    rows, cols = np.diff(row_off), np.diff(col_off)
    count = rows.shape[0]

    def spread(values, offsets, lengths):
        out = np.zeros((count, int(lengths.max(initial=1))), dtype=values.dtype)
        table = np.repeat(np.arange(count), lengths)
        out[table, np.arange(values.shape[0]) - offsets[:-1][table]] = values
        return out

    law = np.zeros((count, int(rows.max(initial=1)), int(cols.max(initial=1))),
                   dtype=np.int64)
    table = np.repeat(np.arange(count), rows * cols)
    local = np.arange(index.shape[0]) - pair_off[:-1][table]
    law[table, local // cols[table], local % cols[table]] = index
    return Padded(spread(np.asarray(ua, dtype=np.int64), row_off, rows),
                  spread(np.asarray(ca, dtype=np.float64), row_off, rows),
                  spread(np.asarray(ub, dtype=np.int64), col_off, cols),
                  spread(np.asarray(cb, dtype=np.float64), col_off, cols), law)


def _line_logs(sizes: np.ndarray, n: int, orders: int) -> np.ndarray:
    """:func:`._smi_expansion.line_logs` of padded sizes (..., S): (..., S, orders + 1)."""
    t = np.arange(orders, dtype=np.int64)
    a = sizes[..., None]
    with np.errstate(all="ignore"):
        step = np.where((a - t <= 0) | (n - a - t <= 0), -np.inf,
                        0.5 * np.log((a - t) / (n - a - t).astype(np.float64)))
    return np.concatenate([np.zeros(sizes.shape + (1,)), np.cumsum(step, axis=-1)], axis=-1)


class Lines(NamedTuple):
    """One side's lines for the separable sums: multiplicities, c (0 at the big line: it
    enters through g alone), g = c_big c (0 at the big line and without one), and the big
    line's indicator."""

    mult: np.ndarray
    c: np.ndarray
    g: np.ndarray
    big: np.ndarray


def _lines(mult: np.ndarray, logs: np.ndarray, big: np.ndarray) -> Lines:
    """:class:`Lines` from the logs of c at one order per line (``logs`` like ``mult``)."""
    big_log = np.where(big, logs, -np.inf).max(axis=-1, keepdims=True)
    with np.errstate(over="ignore"):
        c = np.where(big, 0.0, np.exp(logs))
        g = np.where(big, 0.0, np.exp(big_log + logs))
    return Lines(mult, c, g, big.astype(np.float64))


def _line_form(y: np.ndarray, z: np.ndarray, side: Lines, sign) -> np.ndarray:
    """:func:`._smi_expansion.line_form` over axis -2 of y and z (..., S, K), the line
    arrays (..., S) broadcast against them: (..., K)."""
    mult, c, g, big = (v[..., None] for v in side)
    cm, gm = mult * c, mult * g
    out = sign * (mult * y * z).sum(axis=-2) + (cm * y).sum(axis=-2) * (cm * z).sum(axis=-2) \
        - (cm * c * y * z).sum(axis=-2)
    return out + (big * y).sum(axis=-2) * (gm * z).sum(axis=-2) \
        + (big * z).sum(axis=-2) * (gm * y).sum(axis=-2)


def _order_form(mat: np.ndarray, rows: Lines, cols: Lines, sign) -> np.ndarray:
    """:func:`._smi_expansion.order_form` of mat (..., R, C), the lines broadcast against
    it, sign (...): the double sum over distinct cells for each leading index."""
    cb, cc, cg, cbig = cols
    same = (rows.mult[..., :, None] * cb[..., None, :] * mat * mat).sum(axis=(-2, -1))
    total = (cb * (sign[..., None] - cc * cc) * _line_form(mat, mat, rows, sign[..., None])
             ).sum(axis=-1)
    v = (mat * (cb * cc)[..., None, :]).sum(axis=-1)[..., None]
    z = (mat * (cb * cg)[..., None, :]).sum(axis=-1)[..., None]
    on_big = (mat * cbig[..., None, :]).sum(axis=-1)[..., None]
    total = total + _line_form(v, v, rows, sign[..., None])[..., 0]
    total = total + 2.0 * _line_form(on_big, z, rows, sign[..., None])[..., 0]
    return total - same


def _linear_variance(pad: Padded, n: int, beta: np.ndarray) -> np.ndarray:
    """:func:`._smi_expansion.linear_variance` of each padded table (beta (B, R, C))."""
    nf = float(n)
    wa, wb = pad.ca * pad.ua, pad.cb * pad.ub
    row_mean = (wb[:, None, :] * beta).sum(axis=2) / nf
    grand = (wa * row_mean).sum(axis=1) / nf
    col_mean = (wa[:, :, None] * beta).sum(axis=1) / nf
    g = (beta - row_mean[:, :, None]) - (col_mean[:, None, :] - grand[:, None, None])
    return (wa[:, :, None] * wb[:, None, :] * g * g).sum(axis=(1, 2)) / (nf - 1.0)


def _order_parts(pad: Padded, alpha: np.ndarray, logs, orders: int) -> np.ndarray:
    """The order-q sums of each table, q = 2 .. orders: (B, orders - 1), in blocks of
    orders of at most _BLOCK cells."""
    tables, r, c = pad.law.shape
    row_logs, col_logs, big_row, big_col = logs
    out = np.zeros((tables, max(orders - 1, 0)))
    step = max(1, _BLOCK // max(tables * r * c, 1))
    for lo in range(2, orders + 1, step):
        q = np.arange(lo, min(lo + step, orders + 1))
        mat = np.moveaxis(alpha[q][:, pad.law], 0, 1)  # (B, Q, R, C)
        rows = _lines(pad.ca[:, None, :], np.moveaxis(row_logs[:, :, q], 2, 1),
                      big_row[:, None, :])
        cols = _lines(pad.cb[:, None, :], np.moveaxis(col_logs[:, :, q], 2, 1),
                      big_col[:, None, :])
        out[:, q - 2] = _order_form(mat, rows, cols, np.where(q % 2 == 0, 1.0, -1.0)[None, :])
    return out


def _tail_bound(pad: Padded, terms: LawTerms, logs, stop: np.ndarray, orders: int
                ) -> np.ndarray:
    """The bound of :func:`._smi_expansion.table_sum` on the orders above ``stop`` (per
    table): the residuals after them, summed with the factors of order stop + 1."""
    tail = np.cumsum((terms.alpha ** 2)[::-1], axis=0)[::-1]  # sum of alpha^2 from q on
    tail = np.concatenate([tail, np.zeros((1, tail.shape[1]))])
    at = np.minimum(stop + 1, orders + 1)[:, None, None]
    mat = np.sqrt(terms.resid[pad.law] + tail[at, pad.law]) + terms.err[pad.law]
    rows = _lines(pad.ca, np.take_along_axis(logs[0], at, axis=2)[:, :, 0], logs[2])
    cols = _lines(pad.cb, np.take_along_axis(logs[1], at, axis=2)[:, :, 0], logs[3])
    return _order_form(mat, rows, cols, np.ones(pad.law.shape[0]))


def table_sums(pad: Padded, n: int, terms: LawTerms, support: np.ndarray, orders: int
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`._smi_expansion.table_sum` of every padded table: (status, bound, parts),
    parts (B, orders + 1); the statuses and bounds are table_sum's."""
    valid = (pad.ca[:, :, None] > 0) & (pad.cb[:, None, :] > 0)
    weight = pad.ca[:, :, None] * pad.cb[:, None, :]
    reached, resid = terms.reached[pad.law], terms.resid[pad.law]
    stop = np.where(valid & (reached < orders) & (resid > 0.0), reached, orders).min(axis=(1, 2))
    most = np.where(valid, support[pad.law] - 1, 0).max(axis=(1, 2))
    spread = (weight * terms.err[pad.law]).sum(axis=(1, 2))
    parts = np.zeros((pad.law.shape[0], orders + 1))
    parts[:, 0] = _linear_variance(pad, n, terms.beta[pad.law])
    parts[:, 1] = (weight * terms.second[pad.law]).sum(axis=(1, 2))
    logs = (_line_logs(pad.ua, n, orders + 1), _line_logs(pad.ub, n, orders + 1),
            2 * pad.ua > n, 2 * pad.ub > n)
    parts[:, 2:] = _order_parts(pad, terms.alpha, logs, orders)
    total = np.maximum(parts.sum(axis=1), 0.0)
    complete = (orders >= most) & (stop == orders)
    bound = np.where(complete, 0.0, _tail_bound(pad, terms, logs, stop, orders))
    status = np.where(complete | (bound <= RELATIVE_TAIL * total), 0, np.where(
        (orders >= MAX_ORDER) | (stop < orders) | (orders >= most), 2, 1))
    # sd(S) moves by at most the Taylor remainders' sum when every f becomes its polynomial
    wide = (spread > 0.0) & (2.0 * np.sqrt(total) * spread + spread * spread
                             > RELATIVE_TAIL * total)
    status = np.where(wide, 3, status)
    return status, np.where(status == 0, bound, math.inf), parts


def vectorised_moments(ua, ca, ub, cb, n, k0, slope, cut):
    """:func:`._smi_expansion.expansion_moments` (same arguments and results), vectorised:
    (means, parts, bound) of one table."""
    na, nb = ua.shape[0], ub.shape[0]
    pa, pb = np.repeat(ua, nb).astype(np.int64), np.tile(ub, na).astype(np.int64)
    pad = Padded(np.asarray(ua, dtype=np.int64)[None], np.asarray(ca, dtype=np.float64)[None],
                 np.asarray(ub, dtype=np.int64)[None], np.asarray(cb, dtype=np.float64)[None],
                 np.arange(na * nb).reshape(1, na, nb))
    support = _support(n, pa, pb)
    most = int(support.max()) - 1
    orders = max(min(FIRST_ORDER, most), 1)
    moments = cut > 0.0
    while True:
        terms = law_terms(n, pa, pb, np.ravel(k0), np.ravel(slope), cut, orders, moments)
        status, bound, parts = table_sums(pad, n, terms, support, orders)
        if status[0] == 3:
            moments = False
        elif status[0] == 1:
            orders = min(2 * orders, most, MAX_ORDER)
        else:
            return terms.means.reshape((na, nb)), parts[0], float(bound[0])


def vectorised_variances(ua, ca, row_off, ub, cb, col_off, index, pair_off, n, pa, pb, k0,
                         slope, cut, variances, status, memo: dict | None = None):
    """:func:`._smi_expansion.expansion_variances` (same arguments and results),
    vectorised: each law expanded once for the tables still pending, orders doubling.
    ``memo``: a dict that keeps the laws' terms from call to call (the stacks of one
    sample's bootstrap replicates share most of their laws), or None."""
    pad = padded(ua, ca, row_off, ub, cb, col_off, index, pair_off)
    pa, pb = np.asarray(pa, dtype=np.int64), np.asarray(pb, dtype=np.int64)
    k0, slope = np.asarray(k0, dtype=np.int64), np.asarray(slope, dtype=np.float64)
    support = _support(n, pa, pb)
    most = max(1, int(support.max(initial=2)) - 1)
    status[:] = 1
    orders = min(FIRST_ORDER, most)
    valid = (pad.ca[:, :, None] > 0) & (pad.cb[:, None, :] > 0)
    while True:
        pending = np.flatnonzero(status == 1)
        needed = np.unique(pad.law[pending][valid[pending]])
        laws = (pa[needed], pb[needed], k0[needed], slope[needed])
        part = law_terms(n, *laws, cut, orders, cut > 0.0) if memo is None else \
            remembered_terms(memo, n, *laws, cut, orders)
        terms = _empty_terms(pa.shape[0], orders)
        for mine, theirs in zip(terms, part, strict=True):
            mine[..., needed] = theirs
        code, _, parts = table_sums(pad.rows(pending), n, terms, support, orders)
        code = np.where((code == 1) & (orders >= min(most, MAX_ORDER)), 2, code)
        status[pending] = code
        for r in np.flatnonzero(code == 0).tolist():
            variances[pending[r]] = math.fsum(parts[r].tolist())
        if not np.any(code == 1):
            return
        orders = min(2 * orders, most, MAX_ORDER)


def remembered_terms(memo: dict, n: int, pa, pb, k0, slope, cut: float, orders: int
                     ) -> LawTerms:
    """:func:`law_terms` (windows and Taylor polynomials alike), the laws met before under
    the same (n, cut, orders) taken from ``memo``. A law's terms depend on (a, b) and on
    whether its slope is the tangent's or 0 (k0 and the slope follow from them), so that
    is its key."""
    out = _empty_terms(pa.shape[0], orders)
    for flag in (False, True):
        at = np.flatnonzero((slope != 0.0) == flag)
        if at.shape[0] == 0:
            continue
        keys = (pa[at].astype(np.uint64) << np.uint64(32)) | pb[at].astype(np.uint64)
        known, stored = memo.get((n, cut, orders, flag), (np.zeros(0, dtype=np.uint64), None))
        spot = np.minimum(np.searchsorted(known, keys), max(known.shape[0] - 1, 0))
        found = known[spot] == keys if known.shape[0] else np.zeros(keys.shape[0], dtype=bool)
        new = at[~found]
        if new.shape[0]:
            made = law_terms(n, pa[new], pb[new], k0[new], slope[new], cut, orders, cut > 0.0)
            known, stored = _merged(known, stored, keys[~found], made)
            memo[(n, cut, orders, flag)] = (known, stored)
            spot = np.searchsorted(known, keys)
        for mine, theirs in zip(out, stored, strict=True):
            mine[..., at] = theirs[..., spot]
    return out


def remembered(memo: dict, n: int, cut: float, orders: int, pa: np.ndarray, pb: np.ndarray,
               sloped: np.ndarray) -> np.ndarray:
    """Whether ``memo`` (of :func:`vectorised_variances`) holds each law's terms (``sloped``:
    the slope is the tangent's), at these n, cut and orders."""
    out = np.zeros(pa.shape[0], dtype=bool)
    for flag in (False, True):
        at = np.flatnonzero(sloped == flag)
        known = memo.get((n, cut, orders, flag), (np.zeros(0, dtype=np.uint64),))[0]
        if at.shape[0] and known.shape[0]:
            keys = (pa[at].astype(np.uint64) << np.uint64(32)) | pb[at].astype(np.uint64)
            out[at] = known[np.minimum(np.searchsorted(known, keys), known.shape[0] - 1)] == keys
    return out


def _merged(known: np.ndarray, stored: LawTerms | None, keys: np.ndarray, made: LawTerms
            ) -> tuple[np.ndarray, LawTerms]:
    """The memo's sorted keys and terms with the laws ``keys`` (terms ``made``) added."""
    merged = np.concatenate([known, keys])
    order = np.argsort(merged, kind="stable")
    both = made if stored is None else LawTerms(*(
        np.concatenate([old, fresh], axis=-1) for old, fresh in zip(stored, made, strict=True)))
    return merged[order], LawTerms(*(v[..., order] for v in both))
