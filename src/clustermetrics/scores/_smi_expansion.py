"""The exact variance of S = sum n_ij log n_ij under the permutation model (the SMI of
:mod:`clustermetrics.scores._smi`) from one law per pair of distinct sizes, by expanding
every pair of cells' joint law in orthogonal polynomials; scalar loops, run as plain Python
on tiny tables and compiled by :mod:`clustermetrics.scores._smi_kernels` (numba)
otherwise. Nothing here imports numba.

The expansion. A cell n of class size a and cluster size b is Hyp(N, a, b); let Q_q be
the orthonormal polynomials of that law (Hahn polynomials; Q_0 = 1). For any two cells n
and n', E[(n')_q | n] is a polynomial of degree q in n ((x)_q the falling factorial): given
n_ij = x, row i's other cells are a multivariate hypergeometric draw of a_i - x items, and
every other row a draw from what row i left. So E[Q'_q(n') | n] is orthogonal to every
polynomial of degree below q, i.e. E[Q'_q(n') | n] = rho_q Q_q(n), and E[Q_p(n) Q'_q(n')] =
rho_q [p = q]: the joint law is diagonal in the two bases (a Lancaster expansion:
Lancaster, Ann. Math. Statist. 29, 1958; diagonal where conditional moments are polynomials
of their degree: Eagleson, Ann. Math. Statist. 35, 1964). rho_q^2 is the product of the leading
coefficients of E[(n')_q | n] and E[(n)_q | n'], which gives rho_q = R_q(i, k) D_q(j, l)
for cells (i, j) and (k, l): R_q(i, i) = (-1)^q, R_q(i, k) = c_q(a_i) c_q(a_k) for i != k
with c_q(a) = sqrt((a)_q / (N - a)_q), and D_q likewise over the clusters. With
alpha_c,q = E[phi(n_c) Q_q(n_c)],

    Var[S] = sum_c Var[phi(n_c)] + sum_q sum_{c != c'} rho_q(c, c') alpha_c,q alpha_c',q,

and for each order q the double sum over cells is separable (R_q and D_q are a diagonal
plus a rank one), so it costs O(distinct rows x distinct columns), not O(cells^2).

Truncation. |rho_q| does not increase with q (each factor (a_i - t)(a_k - t) / ((N - a_i -
t)(N - a_k - t)) is at most 1 since a_i + a_k <= N), so by Cauchy-Schwarz over q the
orders above K add at most sum_{c != c'} |rho_(K+1)(c, c')| r_c r_c', r_c^2 = sum_{q > K}
alpha_c,q^2 the squared distance from phi to its projection (computed from the residual
itself, not as a difference of sums); K doubles from FIRST_ORDER until that bound is below
2^-60 of the variance, or every law is expanded completely (the orders reach its support).
The order-1 part is a linear statistic of the cells, whose variance is taken from the
cells' covariances after removing the part additive in rows and columns
(:func:`linear_variance`), so no cancellation of additive terms reaches the sum.

Each law is summed over its window p(k) >= e^-T p(mode) (T of
:func:`clustermetrics.scores._smi_cost.expansion_cut`): a polynomial orthonormal under p has
p(k) Q_q(k)^2 <= 1, so the neglected part of alpha is at most B sqrt(tau) (tau the
neglected mass). A law of large mean takes instead the Taylor polynomial of phi at its
mean, projected exactly through the law's Jacobi matrix, with a proven bound on the
remainder (:func:`moment_project`). Every phi is the shifted phi^ of :func:`phi_hat` (the
variance is the same), so the terms are of the size of the fluctuations. The polynomials
come from their three-term recurrence, whose coefficients are closed forms (Hahn
polynomials with alpha = -b - 1, beta = b - N - 1; Koekoek, Lesky & Swarttouw,
"Hypergeometric orthogonal polynomials", 2010, section 9.5), evaluated on the window's
points while they stay accurate (:func:`_recurrence_orders`). One table:
:func:`expansion_moments`; the tables of a stack, each law once for all of them:
:func:`expansion_variances`.
"""

from __future__ import annotations

import math

import numpy as np

# the longest window a kernel call holds (a window of 2^22 points would mean ~10^8 steps an
# order; the callers' cost estimates never send such a table; a wider window raises
# ValueError)
_BUFFER = 1 << 22
# pairs are expanded to at most this order (then the caller uses another method)
MAX_ORDER = 512
# the first order tried; doubled until the tail bound holds
FIRST_ORDER = 16
# the orders above K may move Var[S] by at most this fraction of it
RELATIVE_TAIL = 2.0 ** -60
# laws of mean a b / N from this on come from the Taylor polynomial of phi at the mean
# (:func:`moment_project`, O(degree^2)), not their window (O(window x orders)): its
# remainder falls like (2 sd / mean)^degree and exp(-mean / 8) is negligible
MOMENT_MEAN = 256.0
TAYLOR_MAX = 64  # the highest degree of that polynomial


def phi_hat(k, k0, rel):
    """phi(k) - phi(k0) - slope (k - k0), phi(k) = k log k, given rel = slope - log k0
    (slope itself where k0 = 0), as k log(k / k0) - rel (k - k0): rounded to ~eps k
    |log(k / k0)|, plus rel's rounding times (k - k0), a part linear in k that moves
    neither the variance's orders above the first nor, after their centring, the first's
    (:func:`linear_variance`)."""
    if k0 == 0:
        return (k * math.log(k) if k > 1 else 0.0) - rel * k
    if k == 0:
        return rel * k0
    d = float(k - k0)
    return k * math.log1p(d / k0) - rel * d


def relative_slope(k0, slope):
    """rel of :func:`phi_hat` for an anchor k0 and a slope."""
    return slope - math.log(k0) if k0 > 0 else slope


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


def recurrence(n, a, b, orders, centred, off):
    """The three-term recurrence of the orthonormal polynomials of Y = X - shift, X ~
    Hyp(n, a, b): (y - E[Y]) Q_k = off[k + 1] Q_(k+1) + centred[k] Q_k + off[k] Q_(k-1)
    for k < orders (off[0] = 0). Returns (shift, anchor, frac): anchor the integer nearest
    E[Y] and frac = anchor - E[Y], so that y - E[Y] = (y - anchor) + frac without
    cancellation. Needs orders below the support's size."""
    shift = 0
    if a + b > n:  # the cell of the other rows and columns: X = a + b - n + Hyp(n, n - a, n - b)
        shift = a + b - n
        a, b = n - a, n - b
    small, large = min(a, b), max(a, b)
    anchor = (small * large + n // 2) // n
    frac = float(anchor * n - small * large) / float(n)  # exact integers (n <= 1e9)
    m = float(small)
    big = float(large)
    nf = float(n)
    off[0] = 0.0
    for k in range(orders):
        kf = float(k)
        # monic recurrence x p_k = p_(k+1) + (A_k + C_k) p_k + A_(k-1) C_k p_(k-1) of the
        # Hahn polynomials, A_0 = E[Y] = m big / n; A_k - A_0 over a common denominator
        # (its leading terms n (n + 1) big m cancel exactly, by hand), so that the centred
        # coefficient loses nothing to E[Y] being large
        bracket = (-nf * kf * kf + kf * (nf * (m + big + nf + 1.0) - 4.0 * big * m)
                   - nf * (nf + 1.0) * (m + big) + big * m * (3.0 * nf + 2.0))
        shifted = kf * bracket / (nf * (2.0 * kf - nf - 1.0) * (2.0 * kf - nf))
        c_k = 0.0
        if k > 0:
            c_k = kf * (kf + m - nf - 1.0) * (kf + big - nf - 1.0) / (
                (2.0 * kf - nf - 2.0) * (2.0 * kf - nf - 1.0))
        centred[k] = shifted + c_k
        a_k = (kf - nf - 1.0) * (kf - big) * (m - kf) / ((2.0 * kf - nf - 1.0) * (2.0 * kf - nf))
        k1 = kf + 1.0
        c_next = k1 * (k1 + m - nf - 1.0) * (k1 + big - nf - 1.0) / (
            (2.0 * k1 - nf - 2.0) * (2.0 * k1 - nf - 1.0))
        off[k + 1] = math.sqrt(max(a_k * c_next, 0.0))
    return shift, anchor, frac


def support_size(n, a, b):
    """How many values Hyp(n, a, b) takes."""
    return min(a, b) - max(0, a + b - n) + 1


def project(n, a, b, k0, slope, floor, orders, buf, res, q_prev, q_cur, diag, off, alpha):
    """For the law Hyp(n, a, b) on its window (``window``), with f = phi^ (anchor k0,
    slope): returns (E[f], Var[f], K, r^2, complete), alpha[1 .. K] = E[f Q_q] for the
    orders q <= K and r^2 = E[(f - sum alpha_q Q_q)^2], the squared residual after them;
    complete: no order above K (K = support - 1). K = min(orders, support - 1), or less
    where the recurrence stops being accurate (see :func:`_recurrence_orders`)."""
    lo, count = window(n, a, b, floor, buf)
    rel = relative_slope(k0, slope)
    mean = 0.0
    for t in range(count):
        res[t] = phi_hat(lo + t, k0, rel)
        mean += buf[t] * res[t]
    var = 0.0
    for t in range(count):
        res[t] -= mean
        var += buf[t] * res[t] * res[t]
    last_order = support_size(n, a, b) - 1
    top = min(orders, last_order)
    if top <= 0:
        return mean, var, 0, var, True
    shift, anchor, frac = recurrence(n, a, b, top, diag, off)
    first = lo - shift - anchor  # y - E[Y] = first + t + frac
    done = _recurrence_orders(first, frac, count, top, buf, res, q_prev, q_cur, diag, off,
                              alpha)
    if done < top and count == last_order + 1:
        # the window is the whole support: orthonormalise explicitly instead
        for t in range(count):
            res[t] = phi_hat(lo + t, k0, rel) - mean
        done = _explicit_orders(first, frac, count, top, buf, res, alpha)
    r2 = 0.0
    for t in range(count):
        r2 += buf[t] * res[t] * res[t]
    return mean, var, done, r2, done == last_order


def moment_project(n, a, b, k0, slope, orders, taylor_max, diag, off, vec, tmp, alpha):
    """For a law Hyp(n, a, b) of large mean mu (``MOMENT_MEAN``) with f = phi^: as
    :func:`project`, from f's Taylor polynomial P at mu instead of a window. Returns (E[P],
    K, tail, second, err): alpha[1 .. K] (K = orders), tail = sum_(q > K) alpha_q^2,
    second = sum_(q >= 2) alpha_q^2, all of P; err bounds ||f - P|| (the root mean square
    under the law), and is -1.0 where no degree up to ``taylor_max`` brings it below 2^-64
    of the polynomial's order-2 spread (use the window then).

    With z = (x - mu) / sigma, the coefficients of z^k in the basis Q are J^k e_0, J the
    law's Jacobi matrix (its recurrence) less mu, over sigma; Horner's rule gives those of P
    in O(degree^2). Remainder: with t = x / mu - 1, f - P = mu (g(t) - g_M(t)), g(t) = (1 +
    t) log(1 + t) = t + sum_(k >= 2) (-1)^k t^k / (k (k - 1)) and g_M its terms to degree M.
    For t >= 0 that is at most mu t^(M+1) / (M (M + 1)) (Taylor's remainder, g^(M+1)(s) =
    (-1)^(M+1) (M - 1)! / (1 + s)^M); for -1 <= t < 0 every term is positive, so at most
    mu |t|^(M+1) / (M (M + 1) (1 - |t|)), and at most mu / M. Split at t = -d: the mean
    square is at most mu^2 E[t^(2M+2)] / (M (M + 1) (1 - d))^2 (a multiple of E[z^(2M+2)]
    = |J^(M+1) e_0|^2) plus (mu / M)^2 P(X < (1 - d) mu), and P(X <= (1 - d) mu) <=
    exp(-mu (d + (1 - d) log(1 - d))) (Chernoff's bound, which holds for sampling without
    replacement: Hoeffding, JASA 58, 1963, Theorem 4); the best of a few d is taken."""
    af, bf, nf = float(a), float(b), float(n)
    mu = af * bf / nf
    sd = math.sqrt(af * bf * (nf - af) * (nf - bf) / (nf * nf * (nf - 1.0)))
    ratio = sd / mu
    depth = taylor_max + orders + 2
    recurrence(n, a, b, depth, diag, off)
    goal = 2.0 ** -64 * sd * ratio / math.sqrt(2.0)  # 2^-64 of |d_2| sqrt(2)
    goal *= goal
    # tmp = J^k e_0, k = 1, 2, ...: E[z^(2M+2)] = |J^(M+1) e_0|^2 for M = k - 1
    for q in range(depth + 1):
        tmp[q] = 0.0
    tmp[0] = 1.0
    degree = -1
    best = math.inf
    power = 1.0  # ratio^(2M)
    for k in range(1, taylor_max + 2):
        _jacobi_times(tmp, k, diag, off, sd, vec)
        for q in range(k + 1):
            tmp[q] = vec[q]
        m = k - 1
        if m >= 1:
            power *= ratio * ratio
        if m >= 2:
            moment = 0.0
            for q in range(k + 1):
                moment += tmp[q] * tmp[q]
            best = _remainder_bound(m, mu, sd * sd * power * moment)
            if best <= goal:
                degree = m
                break
    if degree < 0:
        return 0.0, 0, 0.0, 0.0, -1.0
    err = math.sqrt(best)
    # Horner: tmp = coefficients of P in the basis Q
    for q in range(depth + 1):
        tmp[q] = 0.0
    tmp[0] = _taylor(degree, mu, sd, ratio, k0, slope)
    for k in range(degree - 1, -1, -1):
        _jacobi_times(tmp, degree - k, diag, off, sd, vec)
        for q in range(degree - k + 1):
            tmp[q] = vec[q]
        tmp[0] += _taylor(k, mu, sd, ratio, k0, slope)
    second = 0.0
    tail = 0.0
    for q in range(1, degree + 1):
        if q >= 2:
            second += tmp[q] * tmp[q]
        if q > orders:
            tail += tmp[q] * tmp[q]
    for q in range(1, orders + 1):
        alpha[q] = tmp[q] if q <= degree else 0.0
    return tmp[0], orders, tail, second, err


def _remainder_bound(m, mu, scaled):
    """The bound of :func:`moment_project` on E[(f - P)^2] for degree m, given scaled =
    mu^2 E[t^(2m+2)], minimised over the split t = -d."""
    best = math.inf
    for d in (0.5, 0.7, 0.8, 0.9, 0.95):
        head = scaled / ((m * (m + 1.0) * (1.0 - d)) ** 2)
        low = (mu / m) ** 2 * math.exp(-mu * (d + (1.0 - d) * math.log1p(-d)))
        best = min(best, head + low)
    return best


def _taylor(k, mu, sd, ratio, k0, slope):
    """The coefficient of z^k, z = (x - mu) / sd, in the Taylor series of phi^ at mu."""
    rel = relative_slope(k0, slope)
    if k == 0:  # phi(mu) - phi(k0) - slope (mu - k0), as in phi_hat
        return mu * math.log1p((mu - k0) / k0) - rel * (mu - k0)
    if k == 1:  # phi'(mu) - slope = log(mu / k0) + 1 - rel
        return (math.log1p((mu - k0) / k0) + 1.0 - rel) * sd
    value = sd * ratio ** (k - 1) / (k * (k - 1.0))
    return value if k % 2 == 0 else -value


def _jacobi_times(vin, size, diag, off, sd, out):
    """out[0 .. size] = J vin, vin supported on 0 .. size - 1, J = (Jacobi - mean) / sd
    (``diag`` centred already)."""
    for q in range(size + 1):
        acc = 0.0
        if q < size:
            acc += diag[q] * vin[q]
            if q + 1 < size:
                acc += off[q + 1] * vin[q + 1]
        if q >= 1:
            acc += off[q] * vin[q - 1]
        out[q] = acc / sd


# the recurrence's polynomials are trusted while sum p Q_q^2 stays this close to 1 (a
# stable evaluation keeps it within ~1e-15; where the law's mass falls off steeply, the
# recurrence turns unstable from orders of about 0.4 x the window and the sum departs
# from 1 at once, growing by a large factor an order)
_NORM_SLACK = 1e-13


def _recurrence_orders(first, frac, count, top, buf, res, q_prev, q_cur, diag, off, alpha):
    """alpha[q] = sum buf res Q_q for q = 1 .. top, res (centred f) left as the residual;
    the polynomials from the closed-form recurrence (centred coefficients ``diag``) at the
    points y - E[Y] = (first + t) + frac. Returns the orders
    done: fewer than top where the recurrence lost accuracy (res then holds the residual
    after the orders done)."""
    for t in range(count):
        q_prev[t] = 0.0
        q_cur[t] = 1.0
    last = 0.0  # alpha of the previous order (Q_0: the residual is already centred)
    for q in range(1, top + 1):
        d, o_prev, inv = diag[q - 1], off[q - 1], 1.0 / off[q]
        acc = 0.0
        norm = 0.0
        for t in range(count):
            res[t] -= last * q_cur[t]  # the residual after the previous order
            nxt = ((float(first + t) + (frac - d)) * q_cur[t] - o_prev * q_prev[t]) * inv
            q_prev[t] = q_cur[t]
            q_cur[t] = nxt
            acc += buf[t] * res[t] * nxt
            norm += buf[t] * nxt * nxt
        if abs(norm - 1.0) > _NORM_SLACK:
            return q - 1  # res: the residual after order q - 1
        alpha[q] = acc
        last = acc
    for t in range(count):
        res[t] -= last * q_cur[t]
    return top


def _explicit_orders(first, frac, count, top, buf, res, alpha):
    """As :func:`_recurrence_orders`, with each polynomial orthonormalised against all the
    lower ones under the weights buf (Gram-Schmidt twice, Lanczos' process with full
    reorthogonalisation): accurate however steeply the law falls off, O(count top^2)."""
    basis = np.empty((top + 1, count))
    for t in range(count):
        basis[0, t] = 1.0
    for q in range(1, top + 1):
        for t in range(count):
            basis[q, t] = (float(first + t) + frac) * basis[q - 1, t]
        for _ in range(2):
            for j in range(q):
                c = 0.0
                for t in range(count):
                    c += buf[t] * basis[q, t] * basis[j, t]
                for t in range(count):
                    basis[q, t] -= c * basis[j, t]
        norm = 0.0
        for t in range(count):
            norm += buf[t] * basis[q, t] * basis[q, t]
        if not norm > 0.0:
            return q - 1
        scale = 1.0 / math.sqrt(norm)
        acc = 0.0
        for t in range(count):
            basis[q, t] *= scale
            acc += buf[t] * res[t] * basis[q, t]
        alpha[q] = acc
        for t in range(count):
            res[t] -= acc * basis[q, t]
    return top


def line_logs(sizes, n, orders, out):
    """out[s, q] = log c_q(sizes[s]) = log sqrt((a)_q / (n - a)_q), q = 0 .. orders (-inf
    once (a)_q = 0; also where n - a < q, where no law of that line has an order q)."""
    for s in range(sizes.shape[0]):
        a = sizes[s]
        acc = 0.0
        out[s, 0] = 0.0
        for q in range(1, orders + 1):
            t = q - 1
            if a - t <= 0 or n - a - t <= 0:
                acc = -math.inf
            if acc != -math.inf:
                acc += 0.5 * math.log((a - t) / (n - a - t))
            out[s, q] = acc


def _big(sizes, n):
    """Index of the size above n / 2 (its factors c_q exceed 1), or -1."""
    for s in range(sizes.shape[0]):
        if 2 * sizes[s] > n:
            return s
    return -1


def line_form(y, z, mult, c, g, big, sign):
    """sum over lines u, v of R(u, v) y_u z_v, lines of equal size sharing an entry (mult of
    them): R(u, u) = sign, R(u, v) = c_u c_v; the line of size above n / 2 (index ``big``,
    whose c exceeds 1) enters only through g_v = c_big c_v <= 1."""
    diag = 0.0
    sy = 0.0
    sz = 0.0
    sq = 0.0
    gy = 0.0
    gz = 0.0
    for s in range(y.shape[0]):
        diag += mult[s] * y[s] * z[s]
        if s == big:
            continue
        sy += mult[s] * c[s] * y[s]
        sz += mult[s] * c[s] * z[s]
        sq += mult[s] * c[s] * c[s] * y[s] * z[s]
        gy += mult[s] * g[s] * y[s]
        gz += mult[s] * g[s] * z[s]
    out = sign * diag + sy * sz - sq
    if big >= 0:
        out += y[big] * gz + z[big] * gy
    return out


def line_factors(logs, big, c, g):
    """c = exp(logs) and g = c_big c (0 without a big line), from the logs of one order."""
    for s in range(logs.shape[0]):
        c[s] = math.exp(logs[s])
        g[s] = math.exp(logs[big] + logs[s]) if big >= 0 else 0.0


def order_form(mat, ca, row_c, row_g, big_row, cb, col_c, col_g, big_col, sign, col_y,
               col_z, acc):
    """sum over cells c != c' of R(i, k) D(j, l) mat[c] mat[c'] (cells of equal sizes
    sharing an entry of ``mat``, distinct rows x distinct columns; the lines' factors from
    :func:`line_factors`): the full double sum, separable, less the cells with themselves
    (R D = 1 there). col_y, col_z, acc: scratch of the rows' length."""
    na, nb = mat.shape
    total = 0.0
    same = 0.0
    for t in range(nb):
        for s in range(na):
            col_y[s] = mat[s, t]
            same += ca[s] * cb[t] * mat[s, t] * mat[s, t]
        d2 = 0.0 if t == big_col else col_c[t] * col_c[t]
        total += cb[t] * (sign - d2) * line_form(col_y, col_y, ca, row_c, row_g, big_row, sign)
    # the rank-one part over the columns (big column apart): V = sum_t cb d_t X_t
    for s in range(na):
        col_y[s] = 0.0
        col_z[s] = 0.0
    for t in range(nb):
        if t == big_col:
            continue
        d, g = cb[t] * col_c[t], cb[t] * col_g[t]
        for s in range(na):
            col_y[s] += d * mat[s, t]
            col_z[s] += g * mat[s, t]
    total += line_form(col_y, col_y, ca, row_c, row_g, big_row, sign)
    if big_col >= 0:
        for s in range(na):
            acc[s] = mat[s, big_col]
        total += 2.0 * line_form(acc, col_z, ca, row_c, row_g, big_row, sign)
    return total - same


def linear_variance(ua, ca, ub, cb, n, beta):
    """Var[sum_ij beta(a_i, b_j) n_ij] under the permutation model, beta per pair of
    distinct sizes: sum_ij a_i b_j g_ij^2 / (N - 1) with g = beta centred by its weighted
    row and column means (weights a / N, b / N), from Cov(n_ij, n_kl) = (N [i = k] a_i -
    a_i a_k)(N [j = l] b_j - b_j b_l) / (N^2 (N - 1)). Centring first drops the part of beta
    additive in the row and the column (a constant statistic) before anything is summed,
    so the rounding scales with what is left."""
    na, nb = ua.shape[0], ub.shape[0]
    nf = float(n)
    row_mean = np.empty(na)
    col_mean = np.empty(nb)
    grand = 0.0
    for s in range(na):
        acc = 0.0
        for t in range(nb):
            acc += cb[t] * ub[t] * beta[s, t]
        row_mean[s] = acc / nf
        grand += ca[s] * ua[s] * row_mean[s]
    grand /= nf
    for t in range(nb):
        acc = 0.0
        for s in range(na):
            acc += ca[s] * ua[s] * beta[s, t]
        col_mean[t] = acc / nf
    total = 0.0
    for s in range(na):
        for t in range(nb):
            g = (beta[s, t] - row_mean[s]) - (col_mean[t] - grand)
            total += ca[s] * cb[t] * float(ua[s]) * float(ub[t]) * g * g
    return total / (nf - 1.0)


def pair_terms(n, pa, pb, k0, slope, cut, orders, moments, means, second, beta, resid,
               err, reached, alpha):
    """The terms of each law Hyp(n, pa[p], pb[p]) with f = phi^ (anchor k0[p], slope[p])
    expanded to ``orders``: means[p] = E[f], second[p] = Var[f] less its order-1 part,
    beta[p] = E[f Q_1] / sd (the slope of its order-1 part), alpha[q, p] (zero above the
    orders reached), resid[p] = the squared residual after reached[p] orders (0: none
    left), err[p] = the Taylor remainder's norm (0 for a window; ``moments``: large means
    from the Taylor polynomial). reached[p] < orders with resid[p] > 0: the recurrence
    lost accuracy there."""
    floor = math.exp(-cut)
    size = 3
    for p in range(pa.shape[0]):
        size = max(size, min(pa[p], pb[p]) + 3)
    size = min(size, _BUFFER)
    buf = np.empty(size)
    res = np.empty(size)
    q_prev = np.empty(size)
    q_cur = np.empty(size)
    depth = TAYLOR_MAX + orders + 4
    diag = np.empty(depth)
    off = np.empty(depth + 1)
    vec = np.empty(depth + 1)
    tmp = np.empty(depth + 1)
    one = np.empty(orders + 1)
    nf = float(n)
    for p in range(pa.shape[0]):
        a, b = pa[p], pb[p]
        af, bf = float(a), float(b)
        sd = math.sqrt(af * bf * (nf - af) * (nf - bf) / (nf * nf * (nf - 1.0)))
        last_order = support_size(n, a, b) - 1
        e = -1.0
        complete = False
        if moments and af * bf >= MOMENT_MEAN * nf and last_order > depth:
            m, top, r2, sec, e = moment_project(n, a, b, k0[p], slope[p], orders,
                                                TAYLOR_MAX, diag, off, vec, tmp, one)
        if e < 0.0:
            e = 0.0
            m, _, top, r2, complete = project(n, a, b, k0[p], slope[p], floor, orders, buf,
                                              res, q_prev, q_cur, diag, off, one)
            r2 = max(r2, 0.0)
            sec = r2
            for q in range(2, top + 1):
                sec += one[q] * one[q]
        means[p] = m
        second[p] = sec
        beta[p] = one[1] / sd if top >= 1 else 0.0
        resid[p] = 0.0 if complete else r2
        err[p] = e
        reached[p] = top
        for q in range(1, orders + 1):
            alpha[q, p] = one[q] if q <= top else 0.0


def table_sum(ua, ca, ub, cb, n, index, orders, second, beta, resid, err, reached, alpha,
              parts):
    """Var[S] of one table from the terms of its pairs (:func:`pair_terms`; the pair of
    distinct sizes (s, t) at index[s, t]): parts[0] = its linear part, parts[1] = sum ca cb
    second, parts[q] = the order-q sum, q = 2 .. orders (the caller sums them accurately).
    Returns (status, bound): 0 done (bound: the proven bound on the orders left out), 1
    more orders needed, 2 not within MAX_ORDER or not with accurate polynomials, 3 a
    Taylor polynomial's remainder too large for this variance (use the windows)."""
    na, nb = ua.shape[0], ub.shape[0]
    big_row, big_col = _big(ua, n), _big(ub, n)
    col_y = np.empty(na)
    col_z = np.empty(na)
    scratch = np.empty(na)
    mat = np.empty((na, nb))
    stop = orders  # orders below which every law's terms are known
    most = 0
    spread = 0.0  # sum of the Taylor remainders' norms, over cells
    for s in range(na):
        for t in range(nb):
            p = index[s, t]
            mat[s, t] = beta[p]
            spread += ca[s] * cb[t] * err[p]
            most = max(most, support_size(n, ua[s], ub[t]) - 1)
            if reached[p] < orders and resid[p] > 0.0:
                stop = min(stop, reached[p])
    parts[0] = linear_variance(ua, ca, ub, cb, n, mat)
    acc = 0.0
    for s in range(na):
        for t in range(nb):
            acc += ca[s] * cb[t] * second[index[s, t]]
    parts[1] = acc
    total = parts[0] + acc
    row_logs = np.empty((na, orders + 2))
    col_logs = np.empty((nb, orders + 2))
    line_logs(ua, n, orders + 1, row_logs)
    line_logs(ub, n, orders + 1, col_logs)
    row_c = np.empty(na)
    row_g = np.empty(na)
    col_c = np.empty(nb)
    col_g = np.empty(nb)
    for q in range(2, orders + 1):
        for s in range(na):
            for t in range(nb):
                mat[s, t] = alpha[q, index[s, t]]
        line_factors(row_logs[:, q], big_row, row_c, row_g)
        line_factors(col_logs[:, q], big_col, col_c, col_g)
        sign = 1.0 if q % 2 == 0 else -1.0
        parts[q] = order_form(mat, ca, row_c, row_g, big_row, cb, col_c, col_g, big_col,
                              sign, col_y, col_z, scratch)
        total += parts[q]
    # sd(S) moves by at most sum ||f - P|| over the cells when every f becomes P
    if spread > 0.0 and 2.0 * math.sqrt(max(total, 0.0)) * spread + spread * spread \
            > RELATIVE_TAIL * max(total, 0.0):
        return 3, math.inf
    if orders >= most and stop == orders:
        return 0, 0.0
    # the orders above ``stop``: r_c^2 there is the residual after the orders reached plus
    # those of alpha_c above ``stop`` (orthogonal parts: a sum of squares), and the Taylor
    # remainder's share
    for s in range(na):
        for t in range(nb):
            p = index[s, t]
            extra = 0.0
            for q in range(stop + 1, reached[p] + 1):
                extra += alpha[q, p] * alpha[q, p]
            mat[s, t] = math.sqrt(resid[p] + extra) + err[p]
    line_factors(row_logs[:, stop + 1], big_row, row_c, row_g)
    line_factors(col_logs[:, stop + 1], big_col, col_c, col_g)
    bound = order_form(mat, ca, row_c, row_g, big_row, cb, col_c, col_g, big_col, 1.0,
                       col_y, col_z, scratch)
    if bound <= RELATIVE_TAIL * max(total, 0.0):
        return 0, bound
    if orders >= MAX_ORDER or stop < orders or orders >= most:
        return 2, math.inf
    return 1, bound


def expansion_moments(ua, ca, ub, cb, n, k0, slope, cut):
    """(means, parts, bound) of one table: means[s, t] = E[phi^(Hyp(n, ua[s], ub[t]))]
    per pair of distinct sizes, Var[S] = sum parts (:func:`table_sum`), bound the proven
    bound on the orders left out (inf: the expansion could not bound them: use another
    method). Orders double from FIRST_ORDER until the bound holds."""
    na, nb = ua.shape[0], ub.shape[0]
    pa = np.empty(na * nb, dtype=np.int64)
    pb = np.empty(na * nb, dtype=np.int64)
    pk = np.empty(na * nb, dtype=np.int64)
    ps = np.empty(na * nb)
    index = np.empty((na, nb), dtype=np.int64)
    most = 0
    for s in range(na):
        for t in range(nb):
            p = s * nb + t
            pa[p], pb[p], pk[p], ps[p] = ua[s], ub[t], k0[s, t], slope[s, t]
            index[s, t] = p
            most = max(most, support_size(n, ua[s], ub[t]) - 1)
    means = np.empty(na * nb)
    second = np.empty(na * nb)
    beta = np.empty(na * nb)
    resid = np.empty(na * nb)
    err = np.empty(na * nb)
    reached = np.empty(na * nb, dtype=np.int64)
    orders = max(min(FIRST_ORDER, most), 1)
    moments = cut > 0.0  # True (the windows' cut is positive), typed as any flag
    while True:
        alpha = np.empty((orders + 1, na * nb))
        pair_terms(n, pa, pb, pk, ps, cut, orders, moments, means, second, beta, resid, err,
                   reached, alpha)
        parts = np.empty(orders + 1)
        status, bound = table_sum(ua, ca, ub, cb, n, index, orders, second, beta, resid, err,
                                  reached, alpha, parts)
        if status == 3:
            moments = False
        elif status == 1:
            orders = min(2 * orders, most, MAX_ORDER)
        else:
            return means.reshape((na, nb)), parts, bound


def expansion_variances(ua, ca, row_off, ub, cb, col_off, index, pair_off, n, pa, pb, k0,
                        slope, cut, variances, status):
    """Var[S] of many tables of n items sharing their laws: table r has the distinct
    sizes ua[row_off[r]:row_off[r + 1]] (multiplicities ca), likewise ub, cb, and the pair
    of its s-th row and t-th column size is the law index[pair_off[r] + s nb + t] of pa,
    pb (anchor k0, slope). Each law is expanded once for all the tables that hold it; the
    tables whose bound needs more orders get them in a further round (twice the orders).
    variances[r] (a compensated sum of the parts) and status[r] as in :func:`table_sum`
    (0: done; 2, 3: use another method there)."""
    tables = row_off.shape[0] - 1
    laws = pa.shape[0]
    most = 1
    for p in range(laws):
        most = max(most, support_size(n, pa[p], pb[p]) - 1)
    means = np.empty(laws)
    second = np.empty(laws)
    beta = np.empty(laws)
    resid = np.empty(laws)
    err = np.empty(laws)
    reached = np.empty(laws, dtype=np.int64)
    for r in range(tables):
        status[r] = 1
    orders = min(FIRST_ORDER, most)
    # a flag computed, not a literal True: numba would compile pair_terms once more for it
    moments = cut > 0.0
    needed = np.empty(laws, dtype=np.bool_)
    while True:
        # the laws of the tables still pending (all of them at first), expanded together
        for p in range(laws):
            needed[p] = False
        for r in range(tables):
            if status[r] == 1:
                for p in range(pair_off[r], pair_off[r + 1]):
                    needed[index[p]] = True
        some = 0
        for p in range(laws):
            if needed[p]:
                some += 1
        at = np.empty(some, dtype=np.int64)
        some = 0
        for p in range(laws):
            if needed[p]:
                at[some] = p
                some += 1
        part = np.empty((orders + 1, some))
        pair_terms(n, pa[at], pb[at], k0[at], slope[at], cut, orders, moments,
                   means[:some], second[:some], beta[:some], resid[:some], err[:some],
                   reached[:some], part)
        alpha = np.empty((orders + 1, laws))
        for i in range(some - 1, -1, -1):  # spread out in place (at is increasing)
            p = at[i]
            means[p], second[p], beta[p] = means[i], second[i], beta[i]
            resid[p], err[p], reached[p] = resid[i], err[i], reached[i]
            for q in range(orders + 1):
                alpha[q, p] = part[q, i]
        parts = np.empty(orders + 1)
        again = False
        for r in range(tables):
            if status[r] != 1:
                continue
            rows = ua[row_off[r]:row_off[r + 1]]
            cols = ub[col_off[r]:col_off[r + 1]]
            here = index[pair_off[r]:pair_off[r + 1]].reshape((rows.shape[0], cols.shape[0]))
            code, _ = table_sum(rows, ca[row_off[r]:row_off[r + 1]], cols,
                                cb[col_off[r]:col_off[r + 1]], n, here, orders, second, beta,
                                resid, err, reached, alpha, parts)
            if code == 1 and orders >= min(most, MAX_ORDER):
                code = 2
            status[r] = code
            if code == 1:
                again = True
            elif code == 0:
                variances[r] = _compensated_sum(parts)
        if not again:
            return
        orders = min(2 * orders, most, MAX_ORDER)


def _compensated_sum(values):
    """sum of values, Neumaier's compensated summation (error ~ eps of the sum)."""
    total = 0.0
    comp = 0.0
    for v in values:
        t = total + v
        if abs(total) >= abs(v):
            comp += (total - t) + v
        else:
            comp += (v - t) + total
        total = t
    return total + comp
