"""The arithmetic of score formulas that run on one table and on many tables at once.

A score written with these helpers (instead of ``if``, ``min``, ``math.sqrt``) computes
one table's value from its numbers as Python ints and floats, exactly as plain code would
(pair counts stay exact integers, each quotient of them is rounded once), and the values
of many tables from numpy arrays of their numbers in one vectorised pass: every cut of a
dendrogram (:func:`clustermetrics.score_hierarchy`). One formula serves both, so the two
cannot drift apart. Pair counts come as float64 arrays while they are exact there (below
2^53), else as object arrays of Python ints, on which the same formula is exact again.

A zero denominator: :func:`undefined_where` raises :class:`Undefined` for one table; for
arrays it records the undefined entries and their conventional value on the table
object (:meth:`record_undefined`), and the formula goes on with the others (their 0/0
entries are overwritten by the caller).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from .spec import Undefined

__all__ = ["is_many", "maximum", "minimum", "one_by_one", "ratio", "select", "sqrt",
           "undefined_where", "with_sign"]


def is_many(x: Any) -> bool:
    """Is ``x`` an array of many tables' numbers (not one table's number)?"""
    return isinstance(x, np.ndarray) and x.ndim > 0


def undefined_where(table: Any, mask: Any, value: Any, why: str) -> None:
    """The score is a 0/0 where ``mask`` holds, ``value`` its convention there.

    One table (``mask`` a bool): raises :class:`Undefined` when it holds. Many tables
    (``mask`` an array): ``table.record_undefined(mask, value)``; the first recorded
    convention of an entry wins, as the first raise does for one table."""
    if is_many(mask):
        table.record_undefined(mask, value)
    elif mask:
        raise Undefined(float(value), why)


def select(condition: Any, yes: Any, no: Any) -> Any:
    """``yes`` where ``condition`` holds, else ``no`` (both already computed)."""
    if is_many(condition):
        return np.where(condition, yes, no)
    return yes if condition else no


def ratio(num: Any, den: Any, zero: float) -> Any:
    """``num / den``, and ``zero`` where ``den`` is 0 (one table: an exact int quotient
    is correctly rounded)."""
    if is_many(num) or is_many(den):
        num, den = np.broadcast_arrays(np.asarray(num, dtype=np.float64),
                                       np.asarray(den, dtype=np.float64))
        return np.divide(num, den, out=np.full(num.shape, float(zero)), where=den != 0)
    return zero if den == 0 else num / den


def sqrt(x: Any) -> Any:
    """Correctly rounded square root (of a float, or of each entry; an object array holds
    Python floats: exact quotients of exact ints). The root of an exact
    :class:`~fractions.Fraction` (pair masses of real-valued tables) is a Fraction within
    2^-104 of it, relatively, so that a formula goes on in exact rationals and is rounded
    once at the end: a float root would underflow, overflow or lose the digits of a
    ratio far outside float64's range (Fractions of masses from 1e-300 to 1e150)."""
    if is_many(x):
        return np.sqrt(np.asarray(x, dtype=np.float64))
    return _fraction_root(x) if isinstance(x, Fraction) else math.sqrt(x)


_ROOT_BITS = 106  # the integer square root keeps at least this many bits


def _fraction_root(x: Fraction) -> Fraction:
    """sqrt(x) rounded down to a Fraction with a power-of-two denominator and at least
    106 significant bits (relative error below 2^-105)."""
    num, den = x.numerator, x.denominator
    shift = max(0, (2 * _ROOT_BITS - num.bit_length() + den.bit_length()) // 2 + 1)
    return Fraction(math.isqrt((num << (2 * shift)) // den), 1 << shift)


def minimum(a: Any, b: Any) -> Any:
    return np.minimum(a, b) if is_many(a) or is_many(b) else min(a, b)


def maximum(a: Any, b: Any) -> Any:
    return np.maximum(a, b) if is_many(a) or is_many(b) else max(a, b)


def with_sign(magnitude: Any, sign: Any) -> Any:
    """``magnitude`` with the sign of ``sign``; 0.0 where ``sign`` is 0 (``sign`` may be
    an exact int beyond any float's reach: only compared with 0)."""
    if is_many(magnitude) or is_many(sign):
        return np.where(sign > 0, magnitude, np.where(sign < 0, -magnitude, 0.0))
    return 0.0 if sign == 0 else (magnitude if sign > 0 else -magnitude)


def one_by_one(stack: Any, compute: Any) -> np.ndarray:
    """``compute(table)`` of each table of a stack, as a float64 array: for the steps that
    are one problem per table (a variance summed over hypergeometric laws, a minimised code
    length). A table where ``compute`` raises :class:`Undefined` is recorded as a 0/0 with
    that convention (``stack.record_undefined``), as for one table; tables with equal counts
    are computed once."""
    out = np.zeros(len(stack))
    undefined = np.zeros(len(stack), dtype=bool)
    conventions = np.zeros(len(stack))

    def value(table: Any) -> tuple[float, float | None]:
        try:
            return float(compute(table)), None
        except Undefined as exc:
            return 0.0, float(exc.value)

    for b, (got, convention) in enumerate(stack.each(value)):
        out[b] = got
        if convention is not None:
            undefined[b], conventions[b] = True, convention
    if undefined.any():
        stack.record_undefined(undefined, conventions)
    return out
