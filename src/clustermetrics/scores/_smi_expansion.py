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

Each law's coefficients alpha_c,q come from
:mod:`clustermetrics.scores._smi_projection`. One table: :func:`expansion_moments`; the
tables of a stack, each law once for all of them: :func:`expansion_variances`.

Every function here and there is rebuilt and compiled by
:mod:`clustermetrics.scores._smi_kernels` with that module's globals: a function calls
the others by their bare names (imported with ``from ... import``), never as attributes
of a module, so that the compiled copies call the compiled ones.
"""

from __future__ import annotations

import math

import numpy as np

from ._smi_projection import moment_project, project, support_size

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
            # expanded to its last order: no residual (its polynomials span every function
            # of the support), not the ~1e-33 its sums round to (an S the same for every
            # pairing must get a variance of exactly 0)
            sec = 0.0 if complete else r2
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
