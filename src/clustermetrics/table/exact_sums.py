"""Exact sums of non-negative weights per cell, and the one rule that makes them a table
of integer counts or of real masses.

The rule, applied by every path that sums weights (``sample_weight``, ``from_counts``,
``from_matrix``, weight columns read in memory, by DuckDB or by Spark):

1. A weight is an exact number: an integer is itself; a float is the binary value it holds
   exactly (the float64 ``0.1`` is 0.1000000000000000055511151231257827...); a decimal (a
   ``decimal.Decimal``, a DECIMAL column, a number written as text) is the decimal
   written (``"0.1"`` and DECIMAL ``0.10`` are one tenth), a ``fractions.Fraction`` the
   rational it is.
2. A cell weighs the exact sum of its items' weights.
3. When every cell's exact sum is a whole number, the table holds integer counts, whose
   exact total must be at most 2**63 - 1 (the largest table counted exactly): a larger
   total is an error. Otherwise the table holds real masses
   (:attr:`~clustermetrics.Contingency.real_valued`): each cell its exact sum rounded once
   to the nearest float64 (ties to even), and the exact total, rounded, between 1e-150 and
   1e150. A positive sum that rounds to 0 (below 2**-1075) leaves its cell out.

Nothing depends on the order of the sums, so every engine gives the same table, bit for
bit. Two representations hold the sums: :class:`BinaryDigits` (integer digits of 26 bits,
vectorised: float and integer weights, in memory and from an engine's per-group sums) and
:class:`RationalSums` (Python integers over one denominator: decimals, fractions, text).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from .validation import MAX_ITEMS, REAL_TOTAL

__all__ = ["BinaryBlocks", "BinaryDigits", "BinaryRows", "DIGIT_BITS", "RationalSums",
           "Subject", "concat_sums", "decide"]

DIGIT_BITS = 26  # digit sums of 2**37 rows fit in int64; two digits fit in 52 bits
_BASE = 1 << DIGIT_BITS
_MASK = _BASE - 1
# rows per exact float64 bincount of 26-bit digits: sums stay below 2**53
_CHUNK = 1 << 26


@dataclass(frozen=True)
class Subject:
    """How messages name the weights: ``holds`` ("sample_weight holds", "f.csv: column
    'w' (--weight-col) holds"), ``adds`` (their total: "... adds up to") and ``zero``
    (the message when all are zero)."""

    holds: str
    adds: str
    zero: str

    @staticmethod
    def argument(name: str) -> Subject:
        return Subject(f"{name} holds", f"{name} adds up to",
                       f"{name} is 0 for every item: nothing to score")

    @staticmethod
    def column(source: str, col: str, option: str) -> Subject:
        return Subject(f"{source}: column {col!r} ({option}) holds",
                       f"{source}: the weights of column {col!r} ({option}) add up to",
                       f"{source}: column {col!r} ({option}) is 0 on every row: nothing "
                       "to score")


# ----------------------------------------------------------------- binary digits
@dataclass(frozen=True)
class BinaryDigits:
    """Non-negative exact numbers, one per row of ``digits``:
    sum_c digits[i, c] * 2**(26 * (c + low)). Digits are int64, normalised (below 2**26)
    unless ``raw``."""

    digits: np.ndarray
    low: int
    raw: bool = False

    def take(self, keep: Any) -> BinaryDigits:
        return BinaryDigits(self.digits[keep], self.low, self.raw)

    def positive(self) -> np.ndarray:
        return self.normalized().digits.any(axis=1)

    def rationals(self) -> RationalSums:
        """The same numbers as Python integers over a power of two."""
        d = self.normalized()
        num = np.zeros(d.digits.shape[0], dtype=object)
        for c in range(d.digits.shape[1] - 1, -1, -1):
            num = num * _BASE + d.digits[:, c].astype(object)
        if d.low >= 0:
            return RationalSums(num * (1 << (DIGIT_BITS * d.low)), 1)
        return RationalSums(num, 1 << (-DIGIT_BITS * d.low))

    def reduce(self, index: np.ndarray, size: int) -> BinaryDigits:
        """Exact sums of the rows by group (``index`` below ``size``)."""
        digits = self.normalized().digits
        index = np.asarray(index, dtype=np.intp)
        width = digits.shape[1] + 2  # room for the carries of 2**52 rows
        out = np.zeros((size, width), dtype=np.int64)
        for start in range(0, max(index.shape[0], 1), _CHUNK):
            part = slice(start, start + _CHUNK)
            for c in range(digits.shape[1]):
                column = digits[part, c]
                if not column.any():
                    continue
                out[:, c] += np.bincount(index[part], weights=column,
                                         minlength=size).astype(np.int64)
        return BinaryDigits(out, self.low, raw=True).normalized()

    def normalized(self) -> BinaryDigits:
        if not self.raw:
            return self
        digits = np.array(self.digits, dtype=np.int64)
        column = 0
        while column < digits.shape[1]:
            carry = digits[:, column] >> DIGIT_BITS  # floor: a negative digit borrows
            if carry.any():
                if column + 1 == digits.shape[1]:
                    digits = np.concatenate([digits, np.zeros((digits.shape[0], 1),
                                                              np.int64)], axis=1)
                digits[:, column] -= carry << DIGIT_BITS
                digits[:, column + 1] += carry
            column += 1
        if np.any(digits[:, -1] < 0):
            raise AssertionError("a negative sum of weights")  # weights are non-negative
        return BinaryDigits(digits, self.low)

    def aligned(self, low: int, width: int) -> np.ndarray:
        """The digits on columns ``low .. low + width - 1`` (which must cover them)."""
        out = np.zeros((self.digits.shape[0], width), dtype=np.int64)
        start = self.low - low
        out[:, start:start + self.digits.shape[1]] = self.digits
        return out

    def whole(self) -> np.ndarray:
        d = self.normalized()
        fraction = d.digits[:, :max(0, -d.low)]
        return ~fraction.any(axis=1)

    def total(self) -> Fraction:
        d = self.normalized()
        sums = [int(x) for x in d.digits.sum(axis=0, dtype=np.int64).tolist()] \
            if d.digits.shape[0] < (1 << 37) else \
            [sum(int(x) for x in column.tolist()) for column in d.digits.T]
        value = sum(s << (DIGIT_BITS * c) for c, s in enumerate(sums))
        return Fraction(value) * Fraction(2) ** (DIGIT_BITS * d.low)

    def counts(self) -> np.ndarray:
        """The whole values as int64 (each at most 2**63 - 1, checked by the caller)."""
        d = self.normalized()
        out = np.zeros(d.digits.shape[0], dtype=np.int64)
        for c in range(d.digits.shape[1]):
            position = DIGIT_BITS * (c + d.low)
            if position >= 0 and d.digits[:, c].any():
                out += d.digits[:, c] << position
        return out

    def masses(self) -> np.ndarray:
        """Each value rounded once to the nearest float64 (ties to even)."""
        return _round_digits(self.normalized())


def _split(mantissa: np.ndarray, shift: np.ndarray, width: int) -> list[np.ndarray]:
    """The 26-bit digits of mantissa << shift (shift in [0, 26)), lowest first, without
    forming the shifted value (it may need 88 bits)."""
    parts = [(mantissa & ((np.int64(1) << (DIGIT_BITS - shift)) - 1)) << shift]
    for k in range(1, width):
        # shifts past 63 bits are undefined in C: the digits there are 0 anyway
        parts.append((mantissa >> np.minimum(DIGIT_BITS * k - shift, 63)) & _MASK)
    return parts


@dataclass(frozen=True)
class BinaryRows:
    """Non-negative exact numbers ``mantissa * 2**exponent``, one per row (mantissa int64
    in [0, 2**63)), summed by group into :class:`BinaryDigits` without a digit matrix per
    row."""

    mantissa: np.ndarray
    exponent: np.ndarray

    @staticmethod
    def of_floats(values: np.ndarray) -> BinaryRows:
        """Finite non-negative floats as their exact binary values."""
        mantissa, exponent = np.frexp(np.asarray(values, dtype=np.float64))
        return BinaryRows(np.ldexp(mantissa, 53).astype(np.int64), exponent - 53)

    def take(self, keep: Any) -> BinaryRows:
        return BinaryRows(self.mantissa[keep], self.exponent[keep])

    def positive(self) -> np.ndarray:
        return np.asarray(self.mantissa) > 0

    def digits(self) -> BinaryDigits:
        """One digit row per row."""
        n = self.mantissa.shape[0]
        return self.reduce(np.arange(n), n).normalized()

    def reduce(self, index: np.ndarray, size: int) -> BinaryDigits:
        """Exact sums by group (``index`` below ``size``)."""
        mantissa = np.asarray(self.mantissa, dtype=np.int64)
        if mantissa.shape[0] == 0:
            return BinaryDigits(np.zeros((size, 1), dtype=np.int64), 0)
        col = np.asarray(self.exponent, dtype=np.int64) // DIGIT_BITS  # the lowest bit's
        shift = (self.exponent - col * DIGIT_BITS).astype(np.int64)
        width = 4 if int(mantissa.max()) >> 53 else 3  # 63 or 53 bits, shifted < 26
        return _scatter(index, size, col, _split(mantissa, shift, width))


@dataclass(frozen=True)
class BinaryBlocks:
    """Non-negative exact numbers sum_k digits[i, k] * 2**(26 * (block[i] + k)), one per
    row (an engine's group sums: digits non-negative int64, not necessarily below
    2**26), summed by group into :class:`BinaryDigits`."""

    block: np.ndarray
    digits: np.ndarray

    def take(self, keep: Any) -> BinaryBlocks:
        return BinaryBlocks(self.block[keep], self.digits[keep])

    def positive(self) -> np.ndarray:
        return self.digits.any(axis=1)

    def reduce(self, index: np.ndarray, size: int) -> BinaryDigits:
        digits = self.digits
        if np.any(digits >> DIGIT_BITS):  # carried within each row first
            digits = BinaryDigits(digits, 0, raw=True).normalized().digits
        if digits.shape[0] == 0:
            return BinaryDigits(np.zeros((size, 1), dtype=np.int64), 0)
        return _scatter(index, size, np.asarray(self.block, dtype=np.int64),
                        list(digits.T))


def _scatter(index: np.ndarray, size: int, block: np.ndarray,
             digits: list[np.ndarray]) -> BinaryDigits:
    """Exact sums by group of the rows' digits (below 2**26), digit k of row i at column
    block[i] + k: one bincount per block and digit (a column's sums stay below 2**53:
    exact in float64, for 2**26 rows at a time); rows of zeros have no block of their
    own."""
    held = np.zeros(block.shape[0], dtype=bool)
    for column in digits:
        held |= column != 0
    if not held.any():
        return BinaryDigits(np.zeros((size, 1), dtype=np.int64), 0)
    if not held.all():
        block = np.where(held, block, int(block[held].min()))
    low = int(block.min())
    out = np.zeros((size, int(block.max()) - low + len(digits) + 2), dtype=np.int64)
    index = np.asarray(index, dtype=np.int64)
    high = int(block.max())
    # a few blocks (a sort of the rows would cost more than a pass per block)
    blocks = list(range(low, high + 1)) if high - low < 64 else np.unique(block).tolist()
    for b in blocks:
        rows: Any = slice(None) if low == high else block == b
        at = index[rows]
        if at.shape[0] == 0:
            continue
        for k, column in enumerate(digits):
            values = column[rows]
            for start in range(0, values.shape[0], _CHUNK):
                part = slice(start, start + _CHUNK)
                if values[part].any():
                    out[:, b - low + k] += np.bincount(
                        at[part], weights=values[part], minlength=size).astype(np.int64)
    return BinaryDigits(out, low, raw=True).normalized()


def _round_digits(d: BinaryDigits) -> np.ndarray:
    """Correct rounding of normalised digit rows to float64, vectorised: the top 54 bits
    of each value, a sticky bit for the rest, round half to even. Values that round into
    the subnormal range (rounded at a fixed bit, not at 53) are rounded exactly in Python."""
    out = np.zeros(d.digits.shape[0], dtype=np.float64)
    nonzero = np.flatnonzero(d.digits.any(axis=1))
    if nonzero.shape[0] == 0:
        return out
    digits = d.digits[nonzero]
    width = digits.shape[1]
    present = digits != 0
    top = width - 1 - np.argmax(present[:, ::-1], axis=1)  # the top non-zero digit
    first = np.argmax(present, axis=1)  # the lowest non-zero digit
    # the top digit and the three below it (0 below the first column)
    g0, g1, g2, g3 = (np.where(top >= k, np.take_along_axis(
        digits, np.maximum(top - k, 0)[:, None], axis=1)[:, 0], 0) for k in range(4))
    bits = _bit_length(g0)  # 1..26
    a = (g0 << DIGIT_BITS) | g1  # bits + 26 bits
    b = (g2 << DIGIT_BITS) | g3  # 52 bits
    drop = 24 + bits  # bits of b below the top 54 bits of a:b
    t = (a << (28 - bits)) | (b >> drop)
    sticky = ((b & ((np.int64(1) << drop) - 1)) != 0) | (first < top - 3)
    q = t >> 1
    q += ((t & 1) == 1) & (sticky | ((q & 1) == 1))  # round half to even
    # lowest bit of t: bit `drop` of b, whose lowest bit is at column top - 3
    exponent = DIGIT_BITS * (top - 3 + d.low) + drop + 1
    rounded = np.ldexp(q.astype(np.float64), exponent.astype(np.int32))
    # at and below 2**-1022 the grid is fixed (2**-1074): rounding at 53 bits, then by
    # ldexp, would round twice
    for i in np.flatnonzero(rounded <= 2.0 ** -1022).tolist():
        value = sum(int(x) << (DIGIT_BITS * c) for c, x in enumerate(digits[i].tolist()))
        rounded[i] = _quotient(value, DIGIT_BITS * d.low)
    out[nonzero] = rounded
    return out


def _quotient(value: int, exponent: int) -> float:
    """value * 2**exponent correctly rounded (Python's int division rounds correctly)."""
    if exponent >= 0:
        return float(value << exponent)
    return value / (1 << -exponent)


def _bit_length(x: np.ndarray) -> np.ndarray:
    """Bit length of non-negative int64 below 2**53 (exact through float64's exponent)."""
    return np.frexp(x.astype(np.float64))[1].astype(np.int64)


# ----------------------------------------------------------------- rationals
@dataclass(frozen=True)
class RationalSums:
    """Non-negative exact numbers ``num / den``: ``num`` int64 (whole numbers, den 1) or
    Python integers (an object array), ``den`` a positive integer."""

    num: np.ndarray
    den: int = 1

    @staticmethod
    def of_fractions(values: list[Fraction]) -> RationalSums:
        den = math.lcm(*(v.denominator for v in values)) if values else 1
        num = np.empty(len(values), dtype=object)
        num[:] = [v.numerator * (den // v.denominator) for v in values]
        return RationalSums(num, den)

    def take(self, keep: Any) -> RationalSums:
        return RationalSums(self.num[keep], self.den)

    def positive(self) -> np.ndarray:
        return np.asarray(self.num > 0, dtype=bool)

    def over(self, den: int) -> RationalSums:
        """The same numbers over ``den`` (a multiple of this denominator)."""
        if den == self.den:
            return self
        num = np.asarray(self.num, dtype=object) * (den // self.den)
        return RationalSums(num, den)

    def reduce(self, index: np.ndarray, size: int) -> RationalSums:
        """Exact sums by group; int64 numerators stay int64 while their total fits."""
        num = self.num
        if num.dtype.kind == "i" and _int_total(num) > MAX_ITEMS:
            num = num.astype(object)
        if num.dtype.kind == "i":
            out = np.zeros(size, dtype=np.int64)
            np.add.at(out, np.asarray(index, dtype=np.intp), num)
            return RationalSums(out, self.den)
        out = np.zeros(size, dtype=object)
        if num.shape[0]:
            order = np.argsort(index, kind="stable")
            ordered = np.asarray(index)[order]
            starts = np.flatnonzero(np.concatenate(([True], ordered[1:] != ordered[:-1])))
            out[ordered[starts]] = np.add.reduceat(num[order], starts)
        return RationalSums(out, self.den)

    def whole(self) -> np.ndarray:
        if self.den == 1:
            return np.ones(self.num.shape[0], dtype=bool)
        return np.asarray(self.num % self.den == 0, dtype=bool)

    def total(self) -> Fraction:
        total = _int_total(self.num) if self.num.dtype.kind == "i" else \
            sum(self.num.tolist(), 0)
        return Fraction(total, self.den)

    def counts(self) -> np.ndarray:
        if self.num.dtype.kind == "i" and self.den == 1:
            return self.num
        return np.array([int(v) // self.den for v in self.num.tolist()], dtype=np.int64)

    def masses(self) -> np.ndarray:
        return np.array([int(v) / self.den for v in self.num.tolist()], dtype=np.float64)


def concat_sums(parts: list[Any]) -> Any:
    """One array of exact numbers from several (:class:`BinaryRows`,
    :class:`BinaryDigits`, :class:`RationalSums`): binary digits while every part is
    binary (whole int64 numbers are), else Python integers over a common denominator."""
    def binary(x: Any) -> Any:
        if isinstance(x, RationalSums) and x.den == 1 and x.num.dtype.kind == "i":
            return BinaryRows(x.num, np.zeros(x.num.shape[0], dtype=np.int64)).digits()
        if isinstance(x, BinaryBlocks):
            return x.reduce(np.arange(x.block.shape[0]), x.block.shape[0])
        return x.digits() if isinstance(x, BinaryRows) else x
    parts = [binary(x) for x in parts]
    if all(isinstance(x, BinaryDigits) for x in parts):
        digits = [x.normalized() for x in parts]
        low = min(x.low for x in digits)
        width = max(x.low + x.digits.shape[1] for x in digits) - low
        return BinaryDigits(np.concatenate([x.aligned(low, width) for x in digits]), low)
    rationals = [x.rationals() if isinstance(x, BinaryDigits) else x for x in parts]
    den = math.lcm(*(x.den for x in rationals))
    return RationalSums(np.concatenate([x.over(den).num.astype(object) for x in rationals]),
                        den)


def _int_total(values: np.ndarray) -> int:
    """The exact sum of non-negative int64 values (numpy's would wrap): in two halves."""
    values = np.asarray(values, dtype=np.int64)
    return (int((values >> 32).sum(dtype=np.int64)) << 32) + \
        int((values & 0xFFFFFFFF).sum(dtype=np.int64))


# ----------------------------------------------------------------- the rule
_FLOAT_HINT = ("; every float from 2**53 up is a whole number, so real masses that large "
               "read as counts: divide them by a constant (their mean, say) to score them "
               "as real masses")


def decide(sums: Any, subject: Subject, floats: bool = False) -> np.ndarray:
    """The cells' values by the rule: int64 counts when every sum is whole, else float64
    masses (on every path: merged tables too).
    ``sums``: :class:`BinaryDigits` or :class:`RationalSums`, one per cell; ``floats``:
    some weight was a float (the message on a total above 2**63 - 1 then says why large
    floats are counts)."""
    total = sums.total()
    if total == 0:
        raise ValueError(subject.zero)
    if bool(sums.whole().all()):
        whole = int(total)
        if whole > MAX_ITEMS:
            raise ValueError(f"{subject.adds} {whole}, more than 2**63 - 1 = {MAX_ITEMS}, "
                             "the largest table counted exactly"
                             + (_FLOAT_HINT if floats else ""))
        return sums.counts()
    if not REAL_TOTAL[0] <= _rounded(total) <= REAL_TOTAL[1]:  # the rule reads it rounded
        raise ValueError(f"{subject.adds} {_approximately(total)}: real-valued weights must total "
                         "between 1e-150 and 1e150 (so that products of two masses stay "
                         "normal float64 numbers); rescale them")
    return sums.masses()


def _rounded(value: Fraction) -> float:
    """The float64 nearest a positive rational (inf past the largest float)."""
    try:
        return float(value)
    except OverflowError:
        return math.inf


def _approximately(value: Fraction) -> str:
    """A positive rational in three significant digits, however large or small."""
    try:
        return f"{value.numerator / value.denominator:.3g}"
    except OverflowError:
        return f"about 10**{len(str(value.numerator)) - len(str(value.denominator))}"
