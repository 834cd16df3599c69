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
