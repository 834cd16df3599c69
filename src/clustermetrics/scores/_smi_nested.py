"""Romano et al.'s nested sums for the exact variance of the SMI, in numpy.

Var[S] = sum_ij Cov(phi(n_ij), S) = sum_ij E[(phi(n_ij) - m_ij) (E[S | n_ij] - E[S])]
with phi(n) = n log n and m_ij = E[phi(n_ij)]; the centred form keeps the rounding error
at the size of the variance times eps E[S] / sd instead of eps E[S]^2. E[S | n_ij = x] is
the sum over every cell of its expectation given x, which Romano et al. (Theorem 1 and
their published code) obtain from nested hypergeometric laws:

* cell (i, j'), j' != j: n_ij' ~ Hyp(N - b_j, a_i - x, b_j');
* cell (i', j'), i' != i, j' != j: given n_ij' = y, n_i'j' ~ Hyp(N - a_i, a_i', b_j' - y);
* cell (i', j): n_i'j ~ Hyp(N - a_i, a_i', b_j - x).

The sums over i' depend on the row only through a_i, so G_a(m) = sum_{i' != i}
E_Hyp(N - a, a_i', m)[phi] is kept once per distinct row size (:class:`_OtherRows`);
every sum is over the distinct row and column sizes weighted by their multiplicities.

Each law is summed only over its window, the k with log p(k) >= log p(mode) - T: the
hypergeometric pmf is log-concave, so the neglected mass has a geometric bound, and T
(:func:`clustermetrics.scores._smi_cost.nested_cut`, about 60 log 2 plus logarithms of N
and of the number of cells) keeps the change in Var[S] below 2^-60. A window spans about
2 sqrt(2 T) standard deviations of its law, so the work is about sum_{a,b} w(a, b)
sum_{b'} w'(a, b, b') (w the windows, of the order of the square roots of the sizes, or
the whole support where that is shorter) instead of growing with N
(:func:`clustermetrics.scores._smi_cost.nested_terms` estimates it). The pmf is a product
of ratios p(k + 1) / p(k) (no log k! table), and each phi(n_ij) is the shifted phi^ of
:mod:`clustermetrics.scores._smi_shift`, so the rounding scales with the fluctuations of
the cells rather than with E[S].

Romano, Bailey, Nguyen & Verspoor, "Standardized mutual information for clustering
comparisons: one step further in adjustment for chance", ICML 2014.
"""

from __future__ import annotations

import math

import numpy as np

from ..compute.special import gammaln
from ._smi_cost import nested_cut
from ._smi_shift import anchor, phi_shifted, shifts, tangent_slope

__all__ = ["nested_sums"]

_CHUNK = 1 << 20  # terms held at once (rows x window width)
_SHORT = 48  # supports shorter than this are kept whole (no bisection)


def _log_pmf(pop, succ, draws, k) -> np.ndarray:
    """log P(Hyp(pop, succ, draws) = k) up to a term free of k (log-gamma; for the windows
    only: its error, ~1e-16 N log N, is far below the one nat of slack they get)."""
    k = np.asarray(k, dtype=np.float64)
    return -(gammaln(k + 1.0) + gammaln(succ - k + 1.0) + gammaln(draws - k + 1.0)
             + gammaln(pop - succ - draws + k + 1.0))


def _windows(pop, succ, draws, cut: float) -> tuple[np.ndarray, np.ndarray]:
    """(lo, hi): for each row the k of Hyp(pop, succ, draws) with log p(k) >= log p(mode)
    - cut (found by bisection on each side of the mode: the pmf is log-concave), widened by
    one nat against the rounding of log-gamma."""
    pop, succ, draws = np.broadcast_arrays(*(np.asarray(v, dtype=np.int64)
                                             for v in (pop, succ, draws)))
    klo = np.maximum(0, draws + succ - pop)
    khi = np.minimum(succ, draws)
    left, right = klo.copy(), khi.copy()
    wide = np.flatnonzero(khi - klo >= _SHORT)  # shorter supports are kept whole
    if wide.shape[0]:
        left[wide], right[wide] = _bisect(pop[wide], succ[wide], draws[wide], klo[wide],
                                          khi[wide], cut)
    return left, right


def _bisect(pop, succ, draws, klo, khi, cut):
    mode = np.clip((draws + 1) * (succ + 1) // (pop + 2), klo, khi)
    p, s, d = (v.astype(np.float64) for v in (pop, succ, draws))
    level = _log_pmf(p, s, d, mode) - cut - 1.0
    # left: smallest k in [klo, mode] above the level; right: largest in [mode, khi]
    lo, hi = klo.copy(), mode.copy()
    while np.any(lo < hi):
        mid = (lo + hi) // 2
        ok = _log_pmf(p, s, d, mid) >= level
        hi, lo = np.where(ok, mid, hi), np.where(ok, lo, mid + 1)
    left = hi
    lo, hi = mode.copy(), khi.copy()
    while np.any(lo < hi):
        mid = (lo + hi + 1) // 2
        ok = _log_pmf(p, s, d, mid) >= level
        lo, hi = np.where(ok, mid, lo), np.where(ok, hi, mid - 1)
    return left, lo


def _laws(pop, succ, draws, lo, hi) -> tuple[np.ndarray, np.ndarray]:
    """(k, P): P[r, t] = P(Hyp(pop_r, succ_r, draws_r) = k[r, t]) for k = lo_r .. hi_r
    (renormalised on the window; 0 past hi_r, where k is clipped to hi_r). The pmf comes
    from the products of the ratios p(k + 1) / p(k) = (s - k)(d - k) / ((k + 1)(p - s - d +
    k + 1)) from lo: each ratio is rounded once, so p is exact to ~eps times the width,
    whatever N (log-gamma differences would lose eps N log N)."""
    width = int(np.max(hi - lo)) + 1
    t = np.arange(width, dtype=np.int64)[None, :]
    k = lo[:, None] + t
    inside = k <= hi[:, None]
    k = np.minimum(k, hi[:, None])
    pf, sf, df = (np.asarray(v, dtype=np.float64)[:, None] for v in (pop, succ, draws))
    kf = k[:, :-1].astype(np.float64)
    ratio = ((sf - kf) * (df - kf)) / ((kf + 1.0) * (pf - sf - df + kf + 1.0))
    # within a window the pmf spans at most e^(T + 1) < 1e80 of the mode: no overflow
    prob = np.concatenate([np.ones((k.shape[0], 1)), np.where(inside[:, 1:], ratio, 0.0)],
                          axis=1).cumprod(axis=1)
    prob /= prob.sum(axis=1, keepdims=True)
    return k, prob


def _group_min(group: np.ndarray, values: np.ndarray, size: int) -> np.ndarray:
    out = np.full(size, np.iinfo(np.int64).max)
    np.minimum.at(out, group, values)
    return out


def _group_max(group: np.ndarray, values: np.ndarray, size: int) -> np.ndarray:
    out = np.full(size, np.iinfo(np.int64).min)
    np.maximum.at(out, group, values)
    return out


def _expect(pop, succ, draws, cut: float, f, windows=None) -> np.ndarray:
    """E[f(k)] under Hyp(pop, succ, draws) for each row (windowed, in chunks of rows of
    similar widths); ``f`` maps (the chunk's row indices, its matrix of k) to values."""
    pop, succ, draws = np.broadcast_arrays(*(np.asarray(v, dtype=np.int64)
                                             for v in (pop, succ, draws)))
    lo, hi = _windows(pop, succ, draws, cut) if windows is None else windows
    out = np.empty(pop.shape[0])
    order = np.argsort(hi - lo, kind="stable")  # chunks of similar widths
    start = 0
    while start < order.shape[0]:
        width = int(hi[order[start]] - lo[order[start]]) + 1
        stop = min(order.shape[0], start + max(1, _CHUNK // max(width, 1)))
        while stop > start + 1 and int(hi[order[stop - 1]] - lo[order[stop - 1]]) + 1 \
                > 2 * width:
            stop = start + 1 + (stop - start - 1) // 2
        rows = order[start:stop]
        k, prob = _laws(pop[rows], succ[rows], draws[rows], lo[rows], hi[rows])
        out[rows] = np.sum(prob * f(rows, k), axis=1)
        start = stop
    return out


class _OtherRows:
    """G_(a, b')(m) = sum over the rows i' != i of E_Hyp(N - a, a_i', m)[phi^_(i' j')] for
    a column j' of size b' holding m items outside row i (phi^ shifted by phi(k0),
    k0 = round(a_i' b' / N)),
    evaluated on demand over the needed ranges of m and kept (one per distinct row size
    a)."""

    def __init__(self, n: int, ua: np.ndarray, ca: np.ndarray, ia: int, cut: float,
                 sloped: bool):
        self.n, self.cut, self.sloped = n, cut, sloped
        self.av = int(ua[ia])
        mult = ca - (np.arange(ua.shape[0]) == ia)
        self.sizes, self.mult = ua[mult > 0], mult[mult > 0]
        self.segments: dict[int, list[tuple[int, np.ndarray]]] = {}  # b' -> (first m, values)

    def _values(self, bv: np.ndarray, m: np.ndarray) -> np.ndarray:
        r, s = m.shape[0], self.sizes.shape[0]
        succ = np.tile(self.sizes, r)
        k0 = anchor(succ, np.repeat(bv, s), self.n)
        slope = tangent_slope(succ, np.repeat(bv, s), self.n, self.sloped)
        vals = _expect(self.n - self.av, succ, np.repeat(m, s), self.cut,
                       lambda rows, k: phi_shifted(k, k0[rows, None], slope[rows, None]))
        return (vals.reshape(r, s) * self.mult[None, :]).sum(axis=1)

    def ensure(self, wanted: list[tuple[int, int, int]]) -> list[tuple[int, np.ndarray]]:
        """For each (bv, lo, hi), (first m, values) of a kept run of G_(a, bv) that covers
        m = lo .. hi (the missing values computed together)."""
        plans, todo_b, todo_m = [], [], []
        for bv, lo, hi in wanted:
            segments = self.segments.setdefault(bv, [])
            touching = [(st, v) for st, v in segments
                        if st <= hi + 1 and lo <= st + v.shape[0]]
            first = min([lo] + [st for st, _ in touching])
            last = max([hi] + [st + v.shape[0] - 1 for st, v in touching])
            vals = np.full(last - first + 1, np.nan)
            for st, v in touching:
                vals[st - first:st - first + v.shape[0]] = v
            todo = np.flatnonzero(np.isnan(vals))
            plans.append((bv, first, vals, todo, {st for st, _ in touching}))
            todo_b.append(np.full(todo.shape[0], bv))
            todo_m.append(todo + first)
        computed = self._values(np.concatenate(todo_b), np.concatenate(todo_m))
        out, at = [], 0
        for bv, first, vals, todo, merged in plans:
            vals[todo] = computed[at:at + todo.shape[0]]
            at += todo.shape[0]
            segments = self.segments[bv]  # disjoint runs: their starts differ
            segments[:] = [seg for seg in segments if seg[0] not in merged] + [(first, vals)]
            out.append((first, vals))
        return out


def nested_sums(ua, ca, ub, cb, n: int) -> tuple[float, float]:
    """(E[S], Var[S]) by Romano et al.'s nested sums, in numpy (module docstring), rows of
    sizes ``ua`` (multiplicities ``ca``), columns ``ub``."""
    cut = nested_cut(n, float(ca.sum()) * float(cb.sum()))
    na, nb = ua.shape[0], ub.shape[0]
    k0, slope, shift = shifts(ua, ca, ub, cb, n)
    sloped = int(ua[0]) * int(ub[0]) >= n  # as in shifts
    weight = np.outer(ca, cb)

    # m(a, b) = E[phi^(n_ij)] for each pair of distinct sizes, and E[S^] = E[S] - const
    flat_k0, flat_slope = k0.ravel(), slope.ravel()
    means = _expect(n, np.repeat(ua, nb), np.tile(ub, na), cut,
                    lambda rows, k: phi_shifted(k, flat_k0[rows, None],
                                                 flat_slope[rows, None])).reshape(na, nb)
    e_t = math.fsum((means * weight).ravel().tolist())
    e_s = e_t + shift

    var = []
    for ia, av in enumerate(ua.tolist()):
        g = _OtherRows(n, ua, ca, ia, cut, sloped)
        # x = n_ij ~ Hyp(N, a, b) for every column size b at once
        law = np.full(nb, n), np.full(nb, av), ub
        k, px = _laws(*law, *_windows(*law, cut))
        xlo, xhi = k[:, 0], k.max(axis=1)
        # rows (b, x, b'): y = n_ij' ~ Hyp(N - b, b', a - x), for the other columns b'
        cols, xs, others = [], [], []
        for jb in range(nb):
            x = np.arange(xlo[jb], xhi[jb] + 1)
            mult = cb - (np.arange(nb) == jb)
            kbs = np.flatnonzero(mult > 0)
            cols.append(np.full(x.shape[0] * kbs.shape[0], jb))
            xs.append(np.repeat(x, kbs.shape[0]))
            others.append(np.tile(kbs, x.shape[0]))
        col, xr, other = (np.concatenate(v) for v in (cols, xs, others))
        pop, succ, draws = n - ub[col], ub[other], av - xr
        ylo, yhi = _windows(pop, succ, draws, cut)
        # G_(a, b')(m) over every m needed: m = b - x (cells (i', j)), b' - y (cells (i', j'))
        need_lo = np.minimum(ub - xhi, _group_min(other, succ - yhi, nb))
        need_hi = np.maximum(ub - xlo, _group_max(other, succ - ylo, nb))
        runs = g.ensure([(int(ub[c]), int(need_lo[c]), int(need_hi[c])) for c in range(nb)])
        start = np.array([st for st, _ in runs], dtype=np.int64)
        offset = np.cumsum([0] + [v.shape[0] for _, v in runs])[:-1]
        flat = np.concatenate([v for _, v in runs])
        base = offset - start  # G_(a, ub[c])(m) = flat[base[c] + m]
        k0_row, slope_row = k0[ia, other], slope[ia, other]

        def inner(rows, y, succ=succ, other=other, k0_row=k0_row, slope_row=slope_row,
                  flat=flat, base=base):
            return phi_shifted(y, k0_row[rows, None], slope_row[rows, None]) + \
                flat[base[other[rows], None] + succ[rows, None] - y]

        vals = _expect(pop, succ, draws, cut, inner, windows=(ylo, yhi))
        weights = (cb[other] - (other == col)) * vals
        for jb, bc in enumerate(cb.tolist()):
            x = np.arange(xlo[jb], xhi[jb] + 1)
            dev = phi_shifted(x, k0[ia, jb], slope[ia, jb])
            cond = dev + flat[base[jb] + ub[jb] - x]  # cell (i, j) and the cells (i', j)
            here = col == jb
            cond = cond + np.bincount(xr[here] - xlo[jb], weights=weights[here],
                                      minlength=x.shape[0])
            var.append(ca[ia] * bc * float(px[jb, :x.shape[0]] @ ((dev - means[ia, jb])
                                                                 * (cond - e_t))))
    return e_s, max(math.fsum(var), 0.0)
