"""One hypergeometric law of the exact SMI variance's expansion
(:mod:`clustermetrics.scores._smi_expansion`): phi^ projected on the law's orthonormal
(Hahn) polynomials, alpha_q = E[phi^(n) Q_q(n)]; scalar loops, run as plain Python on tiny
tables and compiled by :mod:`clustermetrics.scores._smi_kernels` (numba) otherwise.

Each law is summed over its window p(k) >= e^-T p(mode) (T of
:func:`clustermetrics.scores._smi_cost.expansion_cut`, :func:`window`): a polynomial
orthonormal under p has p(k) Q_q(k)^2 <= 1, so the neglected part of alpha is at most
B sqrt(tau) (tau the neglected mass). A law of large mean takes instead the Taylor
polynomial of phi at its mean, projected exactly through the law's Jacobi matrix, with a
proven bound on the remainder (:func:`moment_project`). Every phi is the shifted phi^ of
:func:`phi_hat` (the variance is the same), so the terms are of the size of the
fluctuations. The polynomials come from their three-term recurrence, whose coefficients
are closed forms (:func:`recurrence`; Hahn polynomials with alpha = -b - 1,
beta = b - N - 1; Koekoek, Lesky & Swarttouw, "Hypergeometric orthogonal polynomials",
2010, section 9.5), evaluated on the window's points while they stay accurate
(:func:`_recurrence_orders`), and explicitly beyond (:func:`_explicit_orders`).
"""

from __future__ import annotations

import math

import numpy as np


def phi_hat(k, k0, rel):
    """phi(k) - phi(k0) - slope (k - k0), phi(k) = k log k, given rel = slope - log k0
    (slope itself where k0 = 0), as k log(k / k0) - rel (k - k0): rounded to ~eps k
    |log(k / k0)|, plus rel's rounding times (k - k0), a part linear in k that moves
    neither the variance's orders above the first nor, after their centring, the first's
    (:func:`._smi_expansion.linear_variance`)."""
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
