"""Independent reference for the scikit-learn agreement tests: every scikit-learn score at 40
significant digits (``decimal``), from integer counts taken with ``collections.Counter``.

It shares no code with clustermetrics or scikit-learn. The edge-case conventions (one class,
one cluster, zero MI, the epsilon clamps of AMI) are scikit-learn 1.9's; the values are the
exact ones. The expected mutual information sums every hypergeometric term from the mode
outwards, each probability from its predecessor by the exact ratio
P(k+1)/P(k) = (a-k)(b-k) / ((k+1)(N-a-b+k+1)), and stops where the weight falls below
1e-50 of the mode's (the distribution is log-concave, so the rest is smaller still).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from decimal import Context, Decimal, localcontext
from fractions import Fraction
from functools import cache, wraps

CTX = Context(prec=40)
_EPS = Decimal(2) ** -52
_CUT = Decimal("1e-50")
_ZERO = Decimal("1e-30")


def _at_40_digits(func):
    """Run ``func`` with every Decimal operation (operators included) at 40 digits."""
    @wraps(func)
    def wrapper(*args, **kwargs):
        with localcontext(CTX):
            return func(*args, **kwargs)
    return wrapper


@cache
@_at_40_digits
def ln(n: int) -> Decimal:
    return CTX.ln(Decimal(n))


def _div(x, y) -> Decimal:
    return CTX.divide(Decimal(x), Decimal(y))


@dataclass(frozen=True)
class Table:
    """Cells {(class, cluster): count}, class and cluster sizes and N, by counting labels."""

    cells: dict
    a: dict
    b: dict
    n: int
    memo: dict = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def of(cls, labels_true, labels_pred) -> Table:
        t, p = list(labels_true), list(labels_pred)
        assert len(t) == len(p) > 0
        cells = dict(Counter(zip(t, p, strict=True)))
        return cls(cells, dict(Counter(t)), dict(Counter(p)), len(t))


@_at_40_digits
def entropy(sizes) -> Decimal:
    sizes = list(sizes)
    if len(sizes) == 1:
        return Decimal(0)
    n = sum(sizes)
    return ln(n) - _div(sum((s * ln(s) for s in sizes), Decimal(0)), n)


def _memoised(func):
    def wrapper(t: Table) -> Decimal:
        if func.__name__ not in t.memo:
            t.memo[func.__name__] = func(t)
        return t.memo[func.__name__]
    return wrapper


@_memoised
@_at_40_digits
def mutual_info(t: Table) -> Decimal:
    if len(t.a) == 1 or len(t.b) == 1:
        return Decimal(0)
    total = sum((c * (ln(c) + ln(t.n) - ln(t.a[i]) - ln(t.b[j]))
                 for (i, j), c in t.cells.items()), Decimal(0))
    return _div(total, t.n)


@_at_40_digits
def _emi_term(a: int, b: int, n: int) -> Decimal:
    """sum_k P(k) k/N log(kN/(ab)) for one class of size a and one cluster of size b."""
    lo, hi = max(0, a + b - n), min(a, b)
    mode = min(hi, max(lo, (a + 1) * (b + 1) // (n + 2)))

    def ratio_up(k):  # P(k+1) / P(k)
        return _div((a - k) * (b - k), (k + 1) * (n - a - b + k + 1))

    weights = {mode: Decimal(1)}
    for step, stop in ((1, hi), (-1, lo)):
        k, w = mode, Decimal(1)
        while k != stop and w > _CUT:
            w = CTX.multiply(w, ratio_up(k)) if step == 1 else CTX.divide(w, ratio_up(k - 1))
            k += step
            weights[k] = w
    norm = sum(weights.values(), Decimal(0))
    s = sum((w * k * (ln(k) + ln(n) - ln(a) - ln(b)) for k, w in weights.items() if k > 0),
            Decimal(0))
    return _div(s, norm * n)


@_memoised
@_at_40_digits
def expected_mutual_info(t: Table) -> Decimal:
    if len(t.a) == 1 or len(t.b) == 1:
        return Decimal(0)
    size_a, size_b = Counter(t.a.values()), Counter(t.b.values())
    return sum((ma * mb * _emi_term(a, b, t.n)
                for a, ma in size_a.items() for b, mb in size_b.items()), Decimal(0))


@_at_40_digits
def average(h1: Decimal, h2: Decimal, method: str) -> Decimal:
    return {"arithmetic": lambda: (h1 + h2) / 2, "geometric": lambda: CTX.sqrt(h1 * h2),
            "min": lambda: min(h1, h2), "max": lambda: max(h1, h2)}[method]()


def _clamped(x: Decimal) -> Decimal:
    # a difference below _ZERO is zero: 40 digits cannot resolve it, and where MI, E[MI] and
    # the mean entropy coincide in theory (a side of singletons) they agree to ~1e-38 here
    x = Decimal(0) if abs(x) < _ZERO else x
    return min(x, -_EPS) if x < 0 else max(x, _EPS)


@_at_40_digits
def adjusted_mutual_info(t: Table, method: str = "arithmetic") -> Decimal:
    if len(t.a) == len(t.b) == 1:
        return Decimal(1)
    if len(t.a) == 1 or len(t.b) == 1:
        return Decimal(0)
    mi, emi = mutual_info(t), expected_mutual_info(t)
    avg = average(entropy(t.a.values()), entropy(t.b.values()), method)
    return _div(_clamped(mi - emi), _clamped(avg - emi))


@_at_40_digits
def normalized_mutual_info(t: Table, method: str = "arithmetic") -> Decimal:
    if len(t.a) == len(t.b) == 1:
        return Decimal(1)
    mi = mutual_info(t)
    if mi == 0:
        return Decimal(0)
    return _div(mi, average(entropy(t.a.values()), entropy(t.b.values()), method))


@_at_40_digits
def homogeneity_completeness_v(t: Table) -> tuple[Decimal, Decimal, Decimal]:
    mi = mutual_info(t)
    h_true, h_pred = entropy(t.a.values()), entropy(t.b.values())
    h = _div(mi, h_true) if h_true else Decimal(1)
    c = _div(mi, h_pred) if h_pred else Decimal(1)
    return h, c, (Decimal(0) if h + c == 0 else _div(2 * h * c, h + c))


def pair_counts(t: Table) -> tuple[int, int, int, int]:
    """(TP, FN, FP, TN) over unordered pairs, exact integers."""
    tp = sum(math.comb(c, 2) for c in t.cells.values())
    fn = sum(math.comb(s, 2) for s in t.a.values()) - tp
    fp = sum(math.comb(s, 2) for s in t.b.values()) - tp
    return tp, fn, fp, math.comb(t.n, 2) - tp - fn - fp


def adjusted_rand(t: Table) -> Fraction:
    tp, fn, fp, tn = pair_counts(t)
    if fn == fp == 0:
        return Fraction(1)
    return Fraction(2 * (tp * tn - fn * fp), (tp + fn) * (fn + tn) + (tp + fp) * (fp + tn))


def rand(t: Table) -> Fraction:
    tp, fn, fp, tn = pair_counts(t)
    total = tp + fn + fp + tn
    return Fraction(1) if total == 0 else Fraction(tp + tn, total)


@_at_40_digits
def fowlkes_mallows(t: Table) -> Decimal:
    tp, fn, fp, _ = pair_counts(t)
    if tp == 0:
        return Decimal(0)
    return _div(tp, CTX.sqrt(Decimal((tp + fp) * (tp + fn))))


@_at_40_digits
def error(value: float, exact) -> float:
    """|value - exact| as a float, the difference taken at 40 digits."""
    if isinstance(exact, Fraction):
        exact = _div(exact.numerator, exact.denominator)
    return float(abs(CTX.subtract(Decimal(value), exact)))
