"""Weights given in memory (``sample_weight``, counts and matrices of real masses) read as
exact numbers, or refused naming the argument.

A weight is a number: an integer (Python or numpy, any width), a float (16 to 64 bits: the
binary value it holds), a ``decimal.Decimal`` or a ``fractions.Fraction`` (the value
written). Refused, each class with its count and the first offender: missing weights
(None, ``pd.NA``, NaT, masked entries), NaN, infinite and negative weights (``-0.0`` is
0), and values that are not numbers: text (``"3"``: the file readers parse text, an
argument takes numbers), booleans (a flag is not a weight), complex numbers, dates.
How the exact weights become a table: :mod:`.exact_sums`.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np

from .exact_sums import BinaryRows, RationalSums, concat_sums
from .validation import MAX_ITEMS, as_raw_array

__all__ = ["INFINITE", "INVALID", "MISSING", "NAN", "NEGATIVE", "OK", "PROBLEMS", "Weights",
           "problem_message", "read_weights"]

# what each weight is; OK is a usable number, the others are refused in this order
OK, MISSING, INVALID, NAN, INFINITE, NEGATIVE = range(6)
PROBLEMS = {MISSING: "missing (None, NULL, masked or empty) {}",
            INVALID: "{} that are not numbers", NAN: "NaN {}", INFINITE: "infinite {}",
            NEGATIVE: "negative {}"}
_NA_TYPES = {"NAType", "NaTType"}  # pandas.NA and pandas.NaT, recognised without pandas


@dataclass(frozen=True)
class Weights:
    """Checked weights, one per item: ``rows`` (:class:`.RationalSums` or
    :class:`.BinaryRows`) sums them exactly by group; ``floats``: some weight is a float;
    ``positive``: the items of weight above 0."""

    rows: Any
    floats: bool
    positive: np.ndarray

    @property
    def n(self) -> int:
        return int(self.positive.shape[0])

    def take(self, keep: Any) -> Weights:
        return Weights(self.rows.take(keep), self.floats, self.positive[keep])

    @staticmethod
    def of(rows: Any, floats: bool) -> Weights:
        """Weights of exact numbers already checked (an engine's group sums)."""
        return Weights(rows, floats, rows.positive())

    @staticmethod
    def concat(parts: list[Weights]) -> Weights:
        return Weights(concat_sums([w.rows for w in parts]), any(w.floats for w in parts),
                       np.concatenate([w.positive for w in parts]))

    def item_values(self) -> np.ndarray:
        """One value per item: int64 when every weight is whole and their total is at most
        2**63 - 1, else float64 (each weight rounded once)."""
        rows = self.rows
        if isinstance(rows, BinaryRows):
            return np.ldexp(rows.mantissa.astype(np.float64), rows.exponent.astype(np.int32))
        if rows.den == 1 and rows.num.dtype.kind == "i" and rows.total() <= MAX_ITEMS:
            return rows.num
        if rows.den == 1 and rows.total() <= MAX_ITEMS:
            return rows.num.astype(np.int64)
        return rows.masses()


def problem_message(subject_holds: str, kind: int, count: int, example: str = "",
                    noun: str = "weights") -> str:
    """"<subject> holds <count> <problem>": ``noun`` names the values ("weights")."""
    extra = f"; every item needs a {noun[:-1]}" if kind == MISSING else ""
    return f"{subject_holds} {count} {PROBLEMS[kind].format(noun)}{example}{extra}"


def read_weights(values: Any, name: str, item: str | None = "",
                 noun: str = "weights") -> Weights:
    """``values`` (a 1-D sequence or array) as checked exact weights; a ValueError naming
    ``name`` for each class of problem: the first class found, with its count and first
    offender, at ``name[i]`` (``item`` "": an argument's own sequence), at
    ``"{item} {i}"`` ("row") or not located (None). ``noun``: what messages call the
    values."""
    arr = as_raw_array(values, name, noun[:-1])
    kind = arr.dtype.kind
    who = (name, item, noun)
    if kind in "iu":
        return _integers(arr, who)
    if kind == "f":
        return _floats(arr, who)
    if kind == "O":
        return _objects(arr, who)
    raise ValueError(problem_message(f"{name} holds", INVALID, arr.shape[0],
                                     f" (dtype {arr.dtype})", noun))


def _refuse(who: tuple[str, str | None, str], kind: int, count: int, index: int,
            value: Any) -> None:
    """The error of a problem; ``who``: (name, item, noun) of :func:`read_weights`."""
    name, item, noun = who
    shown = value.item() if isinstance(value, np.generic) else value
    what = f", a {type(shown).__name__}" if kind == INVALID else ""
    first = repr(shown) if item is None else f"{item} {index} = {shown!r}" if item else \
        f"{name}[{index}] = {shown!r}"
    raise ValueError(problem_message(f"{name} holds", kind, count,
                                     f" (the first: {first}{what})", noun))


def _first(mask: np.ndarray) -> int:
    return int(np.argmax(mask))


def _integers(arr: np.ndarray, who: tuple[str, str | None, str]) -> Weights:
    if arr.dtype.kind == "i":
        negative = arr < 0
        if negative.any():
            i = _first(negative)
            _refuse(who, NEGATIVE, int(negative.sum()), i, arr[i])
    if arr.dtype.kind == "u" and arr.dtype.itemsize == 8 and int(arr.max()) > MAX_ITEMS:
        num = arr.astype(object)  # Python integers: counts above int64, refused by the rule
    else:
        num = arr.astype(np.int64, copy=False)
    return Weights(RationalSums(num), False, arr > 0)


def _floats(arr: np.ndarray, who: tuple[str, str | None, str]) -> Weights:
    if arr.dtype.itemsize > 8:  # long double: its own exact value, through Fractions
        return _objects(arr.astype(object), who)
    x = arr.astype(np.float64, copy=False)  # float16/32 widen exactly
    nan = np.isnan(x)
    if nan.any():
        i = _first(nan)
        _refuse(who, NAN, int(nan.sum()), i, arr[i])
    infinite = np.isinf(x)
    if infinite.any():
        i = _first(infinite)
        _refuse(who, INFINITE, int(infinite.sum()), i, arr[i])
    negative = x < 0
    if negative.any():
        i = _first(negative)
        _refuse(who, NEGATIVE, int(negative.sum()), i, arr[i])
    return Weights(_float_rows(x), True, x > 0)


def _float_rows(x: np.ndarray) -> Any:
    """Whole floats below 2**63 as int64 (their exact value, summed fast); any other float
    as its binary mantissa and exponent."""
    if bool(np.all((x == np.floor(x)) & (x < 2.0 ** 63))):
        return RationalSums(x.astype(np.int64))
    return BinaryRows.of_floats(x)


def _objects(arr: np.ndarray, who: tuple[str, str | None, str]) -> Weights:
    """Python objects one by one: each a class and, when a number, its exact value."""
    items = arr.tolist()
    kinds = np.zeros(len(items), dtype=np.int8)
    types: set[type] = set()
    for i, v in enumerate(items):
        k = _object_kind(v)
        kinds[i] = k
        if k == OK:
            types.add(type(v))
    for kind in PROBLEMS:
        bad = kinds == kind
        if bad.any():
            i = _first(bad)
            _refuse(who, kind, int(bad.sum()), i, items[i])
    floats = any(issubclass(t, (float, np.floating)) for t in types)
    if all(issubclass(t, (int, np.integer)) for t in types):
        ints = [int(v) for v in items]
        big = any(v > MAX_ITEMS for v in ints)
        num = np.empty(len(ints), dtype=object) if big else np.array(ints, dtype=np.int64)
        if big:
            num[:] = ints
        return Weights(RationalSums(num), False, np.array([v > 0 for v in ints], dtype=bool))
    if all(issubclass(t, (int, float, np.integer, np.floating)) for t in types) and \
            all(isinstance(v, (float, np.floating)) or abs(int(v)) <= 2**53 for v in items):
        # integers up to 2**53 are exact floats: one fast path for the mixture
        x = np.array([float(v) for v in items], dtype=np.float64)
        return Weights(_float_rows(x), floats, x > 0)
    fractions = [_fraction(v) for v in items]
    return Weights(RationalSums.of_fractions(fractions), floats,
                   np.array([f > 0 for f in fractions], dtype=bool))


def _object_kind(v: Any) -> int:
    if v is None or type(v).__name__ in _NA_TYPES or v is np.ma.masked:
        return MISSING
    if isinstance(v, (bool, np.bool_, str, bytes, np.str_, np.bytes_)) or \
            not isinstance(v, (numbers.Real, Decimal)):
        return INVALID  # text, flags, complex numbers, dates, anything else
    if isinstance(v, Decimal):  # a signalling NaN raises on comparison: ask the Decimal
        if v.is_nan():
            return NAN
        if v.is_infinite():
            return INFINITE
    elif isinstance(v, (float, np.floating)):
        if math.isnan(v):
            return NAN
        if math.isinf(v):
            return INFINITE
    return NEGATIVE if v < 0 else OK


def _fraction(v: Any) -> Fraction:
    """The exact value of a number: a float's binary value, a Decimal's digits."""
    if isinstance(v, np.floating):
        return Fraction(*v.as_integer_ratio())
    if isinstance(v, np.integer):
        return Fraction(int(v))
    return Fraction(v)
