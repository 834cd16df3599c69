"""Independent reference for the tests: expected mutual information from exact rationals."""

import math
from fractions import Fraction


def exact_emi(a, b, n):
    """EMI from exact hypergeometric probabilities, summed with fsum; each log(kN/ab) is
    log1p of an exact rational, so terms near the mean keep full relative accuracy."""
    terms = []
    for ai in a:
        denom = math.comb(n, ai)
        for bj in b:
            for k in range(max(1, ai + bj - n), min(ai, bj) + 1):
                prob = Fraction(math.comb(bj, k) * math.comb(n - bj, ai - k), denom)
                terms.append(float(prob) * k / n * math.log1p(
                    float(Fraction(k * n - ai * bj, ai * bj))))
    return math.fsum(terms)
