"""Expected mutual information under the permutation (hypergeometric) model, fast.

EMI = sum_i sum_j sum_n P(n | a_i, b_j, N) * f(n),  f(n) = (n/N) log(N n / (a_i b_j)),
where n_ij follows the hypergeometric distribution with the table's margins (Vinh, Epps &
Bailey 2010).

What makes it fast without giving up accuracy:

1. It depends on the margins only through the multiset of values, so each distinct pair
   (a, b) is evaluated once and weighted by (#rows with a) x (#columns with b).
2. The pmf is evaluated relative to its mode m by the ratio recurrence
   P(k+1)/P(k) = (a-k)(b-k) / ((k+1)(N-a-b+k+1)): running products of ratios of exact
   integers walk right and left from P(m) = 1, so every weight is in [0, 1] (no overflow,
   no log-gamma differences of numbers of size N, which lose ~N*eps in the exponent:
   scikit-learn's terms carry a relative error of ~1e-9 at N = 1e6), and the sum is
   normalised by the mass inside the window. Outside the support a factor is exactly 0, so
   padded cells weigh 0. Windows are vectorised in buckets of nearly equal width.
3. Each side of each window is cut where the pmf is negligible, with a *proven* bound
   (below). A side first walks t = L/4 + sqrt(2 L var) cells past the mean (L = log(2/tail
   tolerance): a Gaussian guess just inside the Bernstein width; the hypergeometric is at
   least as concentrated as the binomial, Hoeffding 1963); a side whose bound fails walks
   on from its edge, a quarter of its width at a time, until it passes.
4. f(k) N = k log(k N/(a b)) is k log k from a table minus k log(a b / N) when the mean
   a b / N is at most 16 (per-cell rounding ~eps k log k, as for k (log k - log mean)); for
   larger means, where log k and log(a b / N) share many leading digits, it is
   k log1p(d / (a b)) with d = k N - a b formed exactly, so the EMI keeps full relative
   accuracy even when it is tiny (two clusters of 5e6: 5.00000075e-8, to 1e-11).
5. (a, b) and (b, a) have the same distribution and are evaluated once.
6. Pairs with a large mean a b / N (>= 512) skip the walk: their window would span
   ~sqrt(mean) cells (so the cost would grow as sqrt(N) on a table of fixed shape), and
   its running products lose ~eps per cell. Their term comes from the central moments
   instead (a recurrence in floating point, vectorised over the pairs, ~1.5 us a pair),
   with a proven truncation bound (:mod:`._hypergeometric`); checked against the exact
   integer moments to ~1e-15 relative.

Bound on what is dropped. The hypergeometric pmf is log-concave, so r(k) = P(k+1)/P(k) is
non-increasing. Past a right edge e with r(e) < 1 the tail is at most P(e) r(e)/(1-r(e))
(a geometric series), symmetrically on the left. Each side is accepted when its bound is at
most tail_tol/2 times the mass it adds to P(m) = 1, so the two tails together are at most
tail_tol times the window's mass. (A weight that underflows to 0 is below 2^-1074 while
1 - r >= 1/((k+1)(N-a-b+k+1)) > N^-2, so its bound is below 1e-290 for any N < 1e17.)
For 1 <= n <= min(a, b) the summand satisfies |f(n)| <= (min(a,b)/N) log N, so dropping
tail mass T (relative to the window mass) changes that pair's term by at most
2 T (min(a,b)/N) log N. Summed over all pairs with their weights,
sum_ij min(a_i, b_j) <= N min(K_a, K_b), so with every pair's relative tail
T <= tol / (2 min(K_a, K_b) log N) the total error of the EMI is at most ``tol`` (default
1e-15 nats, below the rounding error of the sum itself).

The same walk is compiled with numba when the work is large enough to pay for compiling
or loading it (:mod:`clustermetrics.compute.dispatch`); it stops each side at the first cell
where the same bound holds, and tests check both paths agree.
"""

from __future__ import annotations

import math

import numpy as np

from ..compute.dispatch import repeated
from . import compiled
from ._hypergeometric import mean_xlog_x_over_mean_float
from ._line_sizes import tables_of

__all__ = ["expected_mutual_information", "expected_mutual_information_of_tables",
           "expected_mutual_information_weighted"]

_BLOCK_CELLS = 1 << 17  # window cells per vectorised block (measured best of 2^13..2^20)
_LOG_TABLE_MAX = 1 << 24  # log(1..m) is tabulated when the largest margin is below this
_MAX_PAIRS = 1 << 21  # distinct (a, b) pairs evaluated together (~16 MB per array)
_PACK_MAX = 3_000_000_000  # margins below this pack (min, max) into one int64 key
_EXACT_INT = 3_000_000_000  # below this N, k N - a b is formed exactly in int64
_EXACT_FLOAT = float(1 << 53)  # integers below this are exact in float64
_MU_TABLE = 16.0  # pairs whose mean a b / N exceeds this evaluate f with log1p (exact d)
# pairs with a mean a b / N from here on use the moment expansion (their walk would be
# ~2 sqrt(90 mean) cells; the expansion ~400 flops whatever the mean)
_EXPANSION_MEAN = 512.0
_EXPANSION_REL_TOL = 2.0**-53  # relative truncation error per pair, below its rounding


def expected_mutual_information(a: np.ndarray, b: np.ndarray, n: int,
                                tol: float = 1e-15) -> float:
    """EMI of two labellings with class sizes ``a`` and cluster sizes ``b`` over ``n`` items.

    ``tol`` bounds the absolute error introduced by pruning (see the module docstring);
    ``tol=0`` sums every term of every hypergeometric support.
    """
    if a.shape[0] == 1 or b.shape[0] == 1:
        return 0.0
    ua, ca = np.unique(np.asarray(a, dtype=np.int64), return_counts=True)
    ub, cb = np.unique(np.asarray(b, dtype=np.int64), return_counts=True)
    return expected_mutual_information_weighted(ua, ca, ub, cb, n, tol)


def expected_mutual_information_weighted(ua: np.ndarray, ca: np.ndarray, ub: np.ndarray,
                                         cb: np.ndarray, n: int, tol: float = 1e-15) -> float:
    """sum_(a, b) ca cb E[(k/N) log(N k / (a b))], k ~ Hypergeometric(N, a, b), over the
    distinct sizes ``ua`` (sorted, int64) with counts ``ca`` and ``ub`` with weights ``cb``
    (counts, or expected numbers of clusters of each size under a random-clustering
    model: real weights summing to the expected number of clusters, with sum cb ub = N).
    ``tol`` bounds the pruning error as for :func:`expected_mutual_information`."""
    n = int(n)
    tail_tol = _tail_tol(min(float(ca.sum()), float(cb.sum())), n, tol)
    logs = _logs_for(int(max(ua[-1], ub[-1])))
    total = 0.0
    for pa, pb, weight in _pair_chunks(ua, ca, ub, cb):
        total += float(weight @ _law_values(pa, pb, n, tail_tol, logs))
    return total


def expected_mutual_information_of_tables(class_sizes: np.ndarray, cluster_sizes: np.ndarray,
                                          n: np.ndarray, tol: float = 1e-15) -> np.ndarray:
    """:func:`expected_mutual_information` of many tables at once (a stack's replicates):
    the rows of ``class_sizes`` and ``cluster_sizes`` (zeros for absent lines), over
    ``n[r]`` items. Each hypergeometric law (a distinct N and pair of sizes, unordered) is
    summed once for all the tables that hold it (replicates of one table share most of
    theirs), with the strictest tail tolerance among them (each table's error stays within
    ``tol``)."""
    class_sizes = np.asarray(class_sizes, dtype=np.int64)
    cluster_sizes = np.asarray(cluster_sizes, dtype=np.int64)
    n = np.asarray(n, dtype=np.int64)
    out = np.zeros(class_sizes.shape[0])
    # a loop of replicates counts its repeats per table (compute.dispatch.repeated); this
    # pass does the work of all these tables at once
    with repeated(1.0 / max(class_sizes.shape[0], 1)):
        _each_n(class_sizes, cluster_sizes, n, tol, out)
    return out


def _each_n(class_sizes, cluster_sizes, n, tol, out) -> None:
    """out[r] for the tables of more than one class and cluster (MI is 0 for every pairing
    of the others), those of each N together, in chunks of at most _MAX_PAIRS pairs of
    sizes."""
    rows = np.count_nonzero(class_sizes, axis=1)
    cols = np.count_nonzero(cluster_sizes, axis=1)
    live = (rows > 1) & (cols > 1)
    for total in np.unique(n[live]).tolist():
        at = np.flatnonzero(live & (n == total))
        pairs = np.cumsum(rows[at].astype(np.float64) * cols[at])
        for chunk in np.split(at, np.searchsorted(pairs, np.arange(1, int(pairs[-1] //
                                                  _MAX_PAIRS) + 1) * float(_MAX_PAIRS))):
            if chunk.shape[0]:
                out[chunk] = _tables_emi(class_sizes[chunk], cluster_sizes[chunk],
                                         int(total), tol)


def _tables_emi(class_sizes: np.ndarray, cluster_sizes: np.ndarray, n: int,
                tol: float) -> np.ndarray:
    """The EMI of tables of ``n`` items, each law once (see
    :func:`expected_mutual_information_of_tables`)."""
    tables = tables_of(class_sizes, cluster_sizes)
    lines = np.minimum(np.count_nonzero(class_sizes, axis=1),
                       np.count_nonzero(cluster_sizes, axis=1))
    tail_tol = _tail_tol(float(lines.max()), n, tol)
    small = np.minimum(tables.pa, tables.pb)
    large = np.maximum(tables.pa, tables.pb)
    if int(large.max()) < _PACK_MAX:
        keys, inverse = np.unique(small * _PACK_MAX + large, return_inverse=True)
        pa, pb = keys // _PACK_MAX, keys % _PACK_MAX
    else:
        pa, pb, inverse = small, large, np.arange(small.shape[0])
    values = _law_values(pa, pb, n, tail_tol, _logs_for(int(large.max())))
    owner = np.repeat(np.arange(class_sizes.shape[0]), np.diff(tables.pair_off))
    return np.bincount(owner, weights=tables.pair_count * values[inverse],
                       minlength=class_sizes.shape[0])


def _tail_tol(lines: float, n: int, tol: float) -> float:
    """The relative tail each pair may drop so that a table of ``lines`` rows (the fewer of
    its rows and columns) loses at most ``tol`` nats (see the module docstring)."""
    return tol / (2.0 * max(lines, 1.0) * max(math.log(n), 1.0)) if tol > 0 else 0.0


def _logs_for(biggest: int) -> np.ndarray | None:
    """The table of log(0..biggest) the walk reads, or None where it would be too large."""
    return _log_table(biggest + 1) if biggest + 1 <= _LOG_TABLE_MAX else None


def _law_values(pa: np.ndarray, pb: np.ndarray, n: int, tail_tol: float,
                logs: np.ndarray | None) -> np.ndarray:
    """E[(k/N) log(N k / (a b))] for each pair of margins (pa_i, pb_i): from the moments
    where the mean is large (:func:`_large_means`), else from the walk over the pmf,
    compiled where that pays."""
    values, walk = _large_means(pa, pb, n)
    at = np.flatnonzero(walk)
    if at.shape[0]:
        wa, wb = pa[at], pb[at]
        kernel = compiled.emi_kernel(_work(wa, wb, n, tail_tol) + _CALL_CELLS)
        values[at] = kernel(wa, wb, n, tail_tol, logs if logs is not None else np.zeros(0)) \
            if kernel is not None else _pair_emi(wa, wb, n, tail_tol, logs)
    return values


def _large_means(pa, pb, n):
    """(the terms of the pairs with a large mean a b / N, computed from the moments, and
    the mask of the pairs left to the pmf walk, whose terms are left at 0).

    A window of the walk spans ~sqrt(mean) cells, so summing the pmf costs ~sqrt(N) per
    pair as N grows with the table's shape fixed, and its running products and the
    cancelling sum of P(k) f(k) lose ~eps sqrt(mean) per pair. From a mean of
    _EXPANSION_MEAN on, the term comes from the moment expansion instead
    (:func:`._hypergeometric.mean_xlog_x_over_mean_float`: central moments from their
    recurrence in floating point, O(K^2) per pair whatever the mean, truncation error
    proven below _EXPANSION_REL_TOL relative); pairs whose bound is not met within the
    orders tried go back to the walk.
    """
    values = np.zeros(pa.shape[0])
    large = pa.astype(np.float64) * pb.astype(np.float64) >= _EXPANSION_MEAN * float(n)
    walk = ~large
    if not large.any():
        return values, walk
    at = np.flatnonzero(large)
    found, ok = mean_xlog_x_over_mean_float(pa[at], pb[at], n, _EXPANSION_REL_TOL)
    walk[at[~ok]] = True
    values[at[ok]] = found[ok] / n
    return values, walk


def _pair_chunks(ua, ca, ub, cb):
    """(a, b, weight) for the distinct margin pairs, in chunks of at most _MAX_PAIRS.

    The hypergeometric is symmetric in a and b, so when everything fits in one chunk the
    pairs (a, b) and (b, a) are evaluated once with their weights added (a third fewer
    windows on balanced tables, where class and cluster sizes overlap).
    """
    total = ua.shape[0] * ub.shape[0]
    rows_per_chunk = max(1, _MAX_PAIRS // ub.shape[0])
    for start in range(0, ua.shape[0], rows_per_chunk):
        sa = ua[start:start + rows_per_chunk]
        pa = np.repeat(sa, ub.shape[0])
        pb = np.tile(ub, sa.shape[0])
        weight = np.outer(ca[start:start + rows_per_chunk], cb).ravel().astype(np.float64)
        if total <= _MAX_PAIRS and int(max(ua[-1], ub[-1])) < _PACK_MAX:
            pa, pb, weight = _unordered(pa, pb, weight)
        yield pa, pb, weight


def _unordered(pa, pb, weight):
    small, large = np.minimum(pa, pb), np.maximum(pa, pb)
    keys, inverse = np.unique(small * _PACK_MAX + large, return_inverse=True)
    summed = np.bincount(inverse, weights=weight, minlength=keys.shape[0])
    return keys // _PACK_MAX, keys % _PACK_MAX, summed


# The numpy walk's cost per call beyond its window cells, in cells (~25 ns each): its
# blocks of vectorised steps cost ~0.5 ms on 8 items, ~1 ms on a 10 x 10 table of N = 1000
# whose windows hold ~4,500 cells (load 2), against ~0.07 ms compiled; a loop of bootstrap
# replicates of such tables repays loading the kernel through this term
_CALL_CELLS = 3e4


def _work(pa: np.ndarray, pb: np.ndarray, n: int, tail_tol: float) -> float:
    """Rough number of window cells the walk visits for the pairs (a, b)."""
    if tail_tol <= 0:
        return float(np.minimum(pa, pb).astype(np.float64).sum())
    af, bf = pa.astype(np.float64), pb.astype(np.float64)
    var = af * bf / n * (1 - af / n) * (1 - bf / n)
    big_l = math.log(2.0 / tail_tol)
    return float((2 * (big_l / 3 + np.sqrt(2 * big_l * var)) + 1).sum())


def _log_table(m: int) -> np.ndarray:
    """log(x) for integers 0..m, with log 0 set to 0: it is only ever multiplied by 0."""
    logs = np.log(np.maximum(np.arange(m + 1, dtype=np.float64), 1.0))
    return logs


def _pair_emi(a, b, n, tail_tol, logs):
    """sum_k P(k) f(k) for each (a, b) pair: the mode, then the right and the left side."""
    lo = np.maximum(0, (a - n) + b)  # a + b may pass 2^63; a - n + b never does
    hi = np.minimum(a, b)
    af, bf = a.astype(np.float64), b.astype(np.float64)
    # a mode of the hypergeometric (float rounding may move it by one: any cell near the
    # mode keeps the weights bounded)
    mode = np.clip(np.floor((af + 1) * (bf + 1) / (n + 2.0)).astype(np.int64), lo, hi)
    mf = mode.astype(np.float64)
    rest = float(n) - af - bf
    precise = af * bf > _MU_TABLE * n
    work = _Workspace(logs, n)
    mass = np.ones(a.shape[0])
    fsum = np.empty(a.shape[0])
    for flag in (False, True):
        sel = precise == flag
        fsum[sel] = work.f(mf[sel], af[sel], bf[sel], flag)
    width_r, width_l = _first_widths(af, bf, mf, n, tail_tol)
    sides = (  # ratios P(k+1)/P(k) going right, P(k-1)/P(k) going left, as (p1 p2)/(q1 q2)
        (af - mf, bf - mf, mf + 1.0, rest + mf + 1.0, 1.0, hi - mode, width_r),
        (mf, rest + mf, af - mf + 1.0, bf - mf + 1.0, -1.0, mode - lo, width_l),
    )
    for p1, p2, q1, q2, step, room, width in sides:
        state = np.stack([p1, p2, q1, q2, mf.copy(), af, bf, np.ones(a.shape[0]),
                          np.zeros(a.shape[0]), np.zeros(a.shape[0])])
        _walk(state, step, np.minimum(width, room), room, tail_tol, precise, work)
        mass += state[_MASS]
        fsum += state[_FSUM]
    return fsum / mass / n


def _first_widths(af, bf, mf, n, tail_tol):
    """Cells to walk on each side first: the whole support when nothing may be dropped,
    else a Gaussian-like guess just inside the Bernstein width (the bound decides)."""
    if tail_tol <= 0:
        big = np.full(af.shape[0], np.iinfo(np.int64).max // 4)
        return big, big
    var = af * bf / n * (n - af) / n * (n - bf) / max(n - 1.0, 1.0)
    big_l = math.log(2.0 / tail_tol)
    t = big_l / 4.0 + np.sqrt(2.0 * big_l * var)
    mean = af * bf / n
    return (np.maximum(np.ceil(mean + t - mf), 1).astype(np.int64),
            np.maximum(np.ceil(mf - mean + t), 1).astype(np.int64))


# rows of a side's state: the four ratio factors (shifted as the walk goes on), the last
# cell walked, the margins, the last weight, and the mass and f-sum walked so far
_P1, _P2, _Q1, _Q2, _K, _A, _B, _EDGE, _MASS, _FSUM = range(10)


def _walk(state, step, width, room, tail_tol, precise, work):
    """Walk one side of every window until its tail bound holds or its support ends.

    A side that fails the bound goes on from its edge with a quarter of its width, so a
    slightly short first guess costs only the added cells.
    """
    done = np.zeros(width.shape[0], dtype=np.int64)
    todo = np.flatnonzero(width > 0)
    while todo.shape[0]:
        w = _bucket_width(width[todo])
        tail = _bucketed(state, todo, w, precise[todo], step, work)
        done[todo] += w
        # the side's tail against the mass it adds to P(mode) = 1 (module docstring)
        ok = (tail <= 0.5 * tail_tol * (1.0 + state[_MASS, todo])) | (done[todo] >= room[todo])
        todo = todo[~ok]
        width[todo] = np.minimum(np.maximum(width[todo] // 4, 4), room[todo] - done[todo])


def _bucket_width(width: np.ndarray) -> np.ndarray:
    """Padded widths: at most 1/8 wasted, and few distinct values (8 per octave)."""
    step = np.maximum(1, 2 ** np.floor(np.log2(np.maximum(width, 1))).astype(np.int64) // 8)
    return -(-width // step) * step


def _bucketed(state, todo, padded, precise, step, work):
    """Walk ``padded[i]`` more cells for each pair ``todo[i]``; returns the tail bounds.

    Pairs of equal padded width (and way of evaluating f) form one 2-D block, cells x
    pairs; padding only walks further, which is exact.
    """
    tail = np.empty(todo.shape[0])
    bucket = 2 * padded + precise
    for key in np.unique(bucket).tolist():
        sel = np.flatnonzero(bucket == key)
        idx = todo[sel]
        sub = state[:, idx]
        cols = key // 2
        chunk = max(1, _BLOCK_CELLS // cols)
        for s in range(0, idx.shape[0], chunk):
            tail[sel[s:s + chunk]] = _block(sub[:, s:s + chunk], step, cols, bool(key % 2),
                                            work)
        state[:, idx] = sub
    return tail


def _block(st, step, cols, precise, work):
    """Walk ``cols`` cells for a block of pairs (state ``st`` updated in place).

    Cells along axis 0, pairs along axis 1: each row of the running product is one
    vectorised multiply over the pairs. Returns the tail bound beyond the new edge.
    """
    w, t, f = work.views(cols, st.shape[1])
    j = np.arange(cols, dtype=np.float64)[:, None]
    np.subtract(st[_P1], j, out=w)
    np.subtract(st[_P2], j, out=t)
    w *= t
    np.add(st[_Q1], j, out=t)
    np.add(st[_Q2], j, out=f)
    t *= f
    w /= t
    w[0] *= st[_EDGE]
    if st.shape[1] >= 256:  # a Python loop over rows beats np.cumprod's strided walk
        for r in range(1, cols):
            np.multiply(w[r], w[r - 1], out=w[r])
    else:
        np.cumprod(w, axis=0, out=w)
    # a factor is exactly 0 where the support ends, so every later weight is 0
    if not precise and work.klogk is not None:
        # k log k from a table minus k log(a b / N): no float copy of k is needed
        idx = work.index_buffer(w.shape)
        np.add(st[_K].astype(np.int64), np.arange(1, cols + 1)[:, None] * int(step), out=idx)
        np.multiply(idx, np.log(st[_A]) + np.log(st[_B]) - math.log(work.n), out=t)
        np.take(work.klogk, idx, out=f, mode="clip")  # clip: cells past the support
        f -= t
    else:
        np.add(st[_K], step * (j + 1.0), out=t)  # the cells k walked
        work.f(t, st[_A], st[_B], precise, out=f)
    st[_MASS] += w.sum(axis=0)
    st[_FSUM] += np.einsum("ij,ij->j", w, f)
    st[_P1] -= cols
    st[_P2] -= cols
    st[_Q1] += cols
    st[_Q2] += cols
    st[_K] += step * cols
    st[_EDGE] = w[-1]
    nxt = st[_P1] * st[_P2] / (st[_Q1] * st[_Q2])
    with np.errstate(divide="ignore", invalid="ignore"):
        bound = np.where(nxt < 1.0, st[_EDGE] * nxt / (1.0 - nxt), np.inf)
    return np.where(st[_EDGE] > 0.0, bound, 0.0)


class _Workspace:
    """Reused block buffers (fresh megabyte arrays cost page faults every time) and the
    evaluation of f(k) N = k log(k N / (a b))."""

    def __init__(self, logs, n):
        self.logs, self.n = logs, n
        # k log k for k < len(logs) (k log k - k log mu has the rounding of k (log k - log
        # mu), ~eps k log k, so small means may use it)
        self.klogk = None if logs is None else logs * np.arange(logs.shape[0])
        self._buf = np.empty((3, _BLOCK_CELLS + 4096))
        self._idx = np.empty(_BLOCK_CELLS + 4096, dtype=np.int64)

    def views(self, cols, pairs):
        size = cols * pairs
        if size > self._idx.shape[0]:  # a single very wide window
            self._buf = np.empty((3, size))
            self._idx = np.empty(size, dtype=np.int64)
        return tuple(self._buf[i, :size].reshape(cols, pairs) for i in range(3))

    def f(self, k, a, b, precise, out=None):
        """k log(k N / (a b)) for integer-valued k >= 0 (0 at k = 0; cells outside the
        support get finite values, later multiplied by weight 0).

        With a small mean a b / N the logs come from a table: log k - log(a b / N) is then
        a difference of numbers below ~log 16, so the cancellation costs little. With a
        large mean, where log k and log(a b / N) agree in many leading digits, it is
        k log1p(d / (a b)) with d = k N - a b formed exactly (floats hold it exactly below
        2^53, else int64).
        """
        if not precise and self.logs is not None:
            idx = self._index(k)
            out = np.take(self.logs, idx, out=out, mode="clip")  # clip: past the support
            out -= np.log(a) + np.log(b) - math.log(self.n)
        else:
            kk = np.maximum(k, 1.0)  # k = 0 contributes 0 whatever the log
            ab = a * b
            if self.n * float(np.max(a, initial=0)) < _EXACT_FLOAT:
                out = np.multiply(kk, float(self.n), out=out)
                out -= ab
            elif self.n < _EXACT_INT:
                idx = self._index(kk)
                if out is None:  # the integer difference is written into floats
                    out = np.empty(np.broadcast(kk, ab).shape)
                out = np.subtract(idx * self.n, a.astype(np.int64) * b.astype(np.int64),
                                  out=out, casting="unsafe")
            else:  # beyond int64: rounded products (never reached by realistic tables)
                out = np.multiply(kk, float(self.n), out=out)
                out -= ab
            out /= ab
            np.log1p(out, out=out)
        out *= k
        return out

    def index_buffer(self, shape):
        size = shape[0] * shape[1]
        idx = self._idx[:size] if size <= self._idx.shape[0] else np.empty(size, np.int64)
        return idx.reshape(shape)

    def _index(self, k):
        idx = self._idx[:k.size] if k.size <= self._idx.shape[0] else \
            np.empty(k.size, dtype=np.int64)
        idx = idx.reshape(k.shape)
        np.copyto(idx, k, casting="unsafe")
        return idx
