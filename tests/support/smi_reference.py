"""Independent reference for the tests: the law of the mutual information under the
permutation model by enumerating every contingency table with the given margins.

P(table) = prod a_i! prod b_j! / (N! prod n_ij!) (the multivariate hypergeometric law of
a random pairing of the items) as an exact rational; MI of each table with mpmath at 50
digits; mean and variance summed in mpmath."""

import math
from fractions import Fraction

import mpmath


def tables(a, b):
    """Every non-negative integer table with row sums a and column sums b."""
    a, b = list(a), list(b)

    def rows(i, left):
        if i == len(a):
            if all(v == 0 for v in left):
                yield []
            return
        for row in _compositions(a[i], left):
            rest = [lv - rv for lv, rv in zip(left, row, strict=True)]
            for tail in rows(i + 1, rest):
                yield [row, *tail]

    yield from rows(0, b)


def _compositions(total, caps):
    if len(caps) == 1:
        if total <= caps[0]:
            yield [total]
        return
    for v in range(min(total, caps[0]) + 1):
        for tail in _compositions(total - v, caps[1:]):
            yield [v, *tail]


def mi_of(table, a, b, n):
    """MI (nats) of a table at 50 digits."""
    with mpmath.workdps(50):
        total = mpmath.mpf(0)
        for i, row in enumerate(table):
            for j, v in enumerate(row):
                if v:
                    total += mpmath.mpf(v) / n * mpmath.log(mpmath.mpf(v * n) / (a[i] * b[j]))
        return total


def mi_law(a, b):
    """(E[MI], Var[MI]) as mpmath numbers, by enumeration of the tables."""
    n = sum(a)
    top = Fraction(math.prod(math.factorial(v) for v in a) *
                   math.prod(math.factorial(v) for v in b), math.factorial(n))
    with mpmath.workdps(50):
        m1 = m2 = mpmath.mpf(0)
        mass = Fraction(0)
        for t in tables(a, b):
            p = top / math.prod(math.factorial(v) for row in t for v in row)
            mass += p
            pm = mpmath.mpf(p.numerator) / p.denominator
            mi = mi_of(t, a, b, n)
            m1 += pm * mi
            m2 += pm * mi * mi
        assert mass == 1
        return m1, m2 - m1 * m1


def nested_variance(a, b, dps=40):
    """(E[S], Var[S]) of S = sum n_ij log n_ij by Romano et al.'s nested hypergeometric
    sums (Theorem 1) over every support point, in mpmath at ``dps`` digits with log k! from
    mpmath's log-gamma: the uncentred formula, no windows. Cost is the product of the
    supports, so only for tables whose laws have short supports (small N, or one row
    holding nearly every item)."""
    a, b = [int(v) for v in a], [int(v) for v in b]
    n = sum(a)
    with mpmath.workdps(dps):
        lf_cache, phi_cache = {}, {}

        def lf(k):
            if k not in lf_cache:
                lf_cache[k] = mpmath.loggamma(k + 1)
            return lf_cache[k]

        def phi(k):
            if k not in phi_cache:
                phi_cache[k] = mpmath.mpf(k) * mpmath.log(k) if k > 1 else mpmath.mpf(0)
            return phi_cache[k]

        def hyp(pop, succ, d):
            lo, hi = max(0, d + succ - pop), min(succ, d)
            c = lf(succ) + lf(pop - succ) - lf(pop) + lf(d) + lf(pop - d)
            return [(k, mpmath.exp(c - lf(k) - lf(succ - k) - lf(d - k)
                                   - lf(pop - succ - d + k))) for k in range(lo, hi + 1)]

        g_cache = {}

        def g(i, m):  # sum over the other rows of E[phi] of their cell in a column of m
            if (i, m) not in g_cache:
                g_cache[i, m] = sum((sum((p * phi(k) for k, p in hyp(n - a[i], a[o], m)),
                                         mpmath.mpf(0))
                                     for o in range(len(a)) if o != i), mpmath.mpf(0))
            return g_cache[i, m]

        means = [[sum((p * phi(k) for k, p in hyp(n, ai, bj)), mpmath.mpf(0)) for bj in b]
                 for ai in a]
        e_s = sum((sum(r, mpmath.mpf(0)) for r in means), mpmath.mpf(0))
        var = mpmath.mpf(0)
        for i, ai in enumerate(a):
            for j, bj in enumerate(b):
                for x, px in hyp(n, ai, bj):
                    cond = phi(x) + g(i, bj - x)
                    for o, bo in enumerate(b):
                        if o != j:
                            cond += sum((p * (phi(y) + g(i, bo - y))
                                         for y, p in hyp(n - bj, bo, ai - x)), mpmath.mpf(0))
                    var += px * (phi(x) - means[i][j]) * (cond - e_s)
        return e_s, var


def two_by_two_variance(a, b, dps=30):
    """(E[S], Var[S]) of a 2 x 2 table directly: S is a function of n_11 ~ Hyp(N, a_1,
    b_1); the sums run outward from the mode until the terms fall below 1e-45 of it."""
    (a1, a2), (b1, _) = [int(v) for v in a], [int(v) for v in b]
    n = a1 + a2
    lo, hi = max(0, a1 + b1 - n), min(a1, b1)
    mode = min(max((a1 + 1) * (b1 + 1) // (n + 2), lo), hi)
    with mpmath.workdps(dps):
        def logp(k):
            return -(mpmath.loggamma(k + 1) + mpmath.loggamma(a1 - k + 1)
                     + mpmath.loggamma(b1 - k + 1) + mpmath.loggamma(n - a1 - b1 + k + 1))

        def phi(k):
            return mpmath.mpf(k) * mpmath.log(k) if k > 1 else mpmath.mpf(0)

        top = logp(mode)
        terms = []
        for step in (1, -1):
            k = mode if step == 1 else mode - 1
            while lo <= k <= hi:
                w = mpmath.exp(logp(k) - top)
                if w < mpmath.mpf(10) ** -45:
                    break
                terms.append((w, phi(k) + phi(a1 - k) + phi(b1 - k) + phi(n - a1 - b1 + k)))
                k += step
        mass = sum(w for w, _ in terms)
        mean = sum(w * s for w, s in terms) / mass
        return mean, sum(w * (s - mean) ** 2 for w, s in terms) / mass
