"""Weight columns: one reading of a row's weight for every engine (memory, DuckDB, Spark).

A weight says how much a row counts, as ``sample_weight`` of
:meth:`~clustermetrics.Contingency.from_labels` does, by one rule
(:mod:`clustermetrics.table.exact_sums`): each (true, predicted) cell weighs the exact sum
of its rows' weights; the table holds integer counts when every cell's sum is a whole
number (their total at most 2**63 - 1, else an error), else real masses, each cell's exact
sum rounded once to float64. A column's weights are the exact numbers its type holds:

* integer columns (any width, signed or unsigned): the integer;
* float columns (32 or 64 bits): the binary value the float holds, so ten float64 ``0.1``
  add up to 1.0000000000000000555..., not 1: a real mass of 1.0;
* DECIMAL columns: the decimal (ten DECIMAL(10, 2) ``0.10`` add up to a count of 1);
* text (CSV/TSV cells, string columns): a decimal number ``-?[0-9]+(\\.[0-9]+)?`` with
  nothing around it (``3``, ``007``, ``3.0``; ``0.1`` is one tenth); ``nan``, ``inf`` and
  ``infinity`` (any case, signed) are NaN and infinite weights; anything else (``1e3``,
  ``+3``, `` 3``, ``1_000``) is not a number; an empty or whitespace-only cell is missing.

Refused, naming the column and counting the rows: missing (NULL or empty), not a number,
NaN, infinite and negative weights (``-0`` is 0). Rows dropped for a missing label
(``drop_null``) are dropped whole: their weight is not read. Cells of weight 0 are left
out, with the labels only they hold.

Every engine sums exactly, inside the engine: a GROUP BY (true, predicted, class, block)
sums whole numbers (an integer; a float over 2**(26 * block), its block chosen by its
exponent) or their integer digits (26 bits of them; seven decimal digits of a text or
DECIMAL value, 21 each side of the point), and Python puts the sums together as exact
numbers. Text with more than 21 digits on a side of its point is
grouped by its value and read in Python. The order of the sums does not matter, so every
engine gives the same table, bit for bit.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from ..table.exact_sums import BinaryBlocks, BinaryRows, RationalSums, Subject
from ..table.validation import MAX_ITEMS
from ..table.weight_values import (
    INFINITE,
    INVALID,
    MISSING,
    NAN,
    NEGATIVE,
    OK,
    PROBLEMS,
    Weights,
    problem_message,
)
from .delimited import is_blank

__all__ = ["FETCH", "LONG", "TEXT_NUMBER", "WeightCells", "check_problems", "column_weights",
           "grouped_sql", "text_digits", "text_weights", "weight_cells", "weight_plan",
           "weight_steps"]

LONG = 6  # a text number too long for the digit columns: grouped by its value
TEXT_NUMBER = r"-?[0-9]+(\.[0-9]+)?"
_NAN, _INF = r"[+-]?(?i:nan)", r"[+-]?(?i:inf|infinity)"
_NEGATIVE = r"-.*[1-9].*"  # "-0" and "-0.0" are zero
_INTEGER = r"^-?0*([0-9]*)"  # the integer digits without sign and leading zeros
_FRACTION = r"\.([0-9]*?)0*$"  # the fraction digits without trailing zeros
_TEXT_RE, _NEGATIVE_RE = re.compile(TEXT_NUMBER), re.compile(_NEGATIVE)
_NAN_RE, _INF_RE = re.compile(_NAN), re.compile(_INF)
_INTEGER_RE, _FRACTION_RE = re.compile(_INTEGER), re.compile(_FRACTION)
_DIGITS = 6  # digit columns of every family
_CHUNK = 7  # decimal digits per column: three columns each side of the point
_SIDE = 3 * _CHUNK
_BITS = 26  # binary digits per column (table.exact_sums.DIGIT_BITS)
_MAX_ROWS = 1 << 37  # rows of one group whose digit sums fit in BIGINT


def _blank(dialect: str) -> str:
    # ASCII whitespace: RE2 has no \v in its \s, Java's \s is exactly this set
    return "[ \\t\\n\\r\\x0b\\x0c]*" if dialect == "duckdb" else "\\s*"


# ----------------------------------------------------------------- text, in memory
def text_digits(value: Any) -> tuple[int, Any, list[int]]:
    """(class, group value, digits) of one text weight by the rules above, as the engines
    compute them: the six seven-digit columns of an OK number (lowest first, from
    10**-21), or LONG with the text as its group value."""
    zero = [0] * _DIGITS
    if value is None or (isinstance(value, str) and is_blank(value)):
        return MISSING, None, zero
    if not isinstance(value, str):
        return INVALID, None, zero
    if _NAN_RE.fullmatch(value):
        return NAN, None, zero
    if _INF_RE.fullmatch(value):
        return INFINITE, None, zero
    if not _TEXT_RE.fullmatch(value):
        return INVALID, None, zero
    if _NEGATIVE_RE.fullmatch(value):
        return NEGATIVE, None, zero
    whole = _INTEGER_RE.match(value).group(1)  # type: ignore[union-attr]
    found = _FRACTION_RE.search(value)
    fraction = found.group(1) if found else ""
    if len(whole) > _SIDE or len(fraction) > _SIDE:
        return LONG, value, zero
    digits = whole.rjust(_SIDE, "0") + fraction.ljust(_SIDE, "0")
    # columns from the lowest: fraction digits 15..21, 8..14, 1..7, then integer digits
    number = [int(digits[i:i + _CHUNK]) for i in range(0, 2 * _SIDE, _CHUNK)]
    return OK, None, number[::-1]


def _decimal_value(digits: list[int]) -> int:
    """The integer sum_k digits[k] * 10**(7k): the value times 10**21."""
    return sum(d * 10 ** (_CHUNK * k) for k, d in enumerate(digits))


def column_weights(values: Any, family: str) -> tuple[np.ndarray, Any]:
    """(class of each row, exact numbers of the rows: 0 where not OK) of a (masked) array
    of one column's weights: numbers of the ``family`` ("int", "uint", "float",
    "decimal") or text ("text")."""
    mask = np.ma.getmaskarray(values)
    data = np.ma.getdata(values)
    n = data.shape[0]
    kinds = np.full(n, OK, dtype=np.int8)
    if family == "text" or data.dtype.kind in "OUS" and family != "decimal":
        items = [None if m else (v.decode() if isinstance(v, bytes) else v)
                 for v, m in zip(data.tolist(), mask.tolist(), strict=True)]
        return _text_rows(items)
    if family == "float":
        x = data.astype(np.float64)
        kinds[np.isnan(x)] = NAN
        kinds[np.isinf(x)] = INFINITE
        kinds[np.isfinite(x) & (x < 0)] = NEGATIVE
        kinds[mask] = MISSING
        good = np.where(kinds == OK, x, 0.0)
        whole = bool(np.all((good == np.floor(good)) & (good < 2.0 ** 63)))
        return kinds, RationalSums(good.astype(np.int64)) if whole else \
            BinaryRows.of_floats(good)
    if family in ("int", "uint") and data.dtype.kind in "iu":
        if data.dtype.kind == "i":
            kinds[data < 0] = NEGATIVE
        kinds[mask] = MISSING
        good = np.where(kinds == OK, data, 0)
        if data.dtype.kind == "u" and int(good.max(initial=0)) > MAX_ITEMS:
            return kinds, RationalSums(good.astype(object))
        return kinds, RationalSums(good.astype(np.int64))
    # decimals (and integers held as objects): Python numbers, exactly
    items = data.tolist()
    fractions = []
    for i, v in enumerate(items):
        if mask[i] or v is None:
            kinds[i] = MISSING
        elif v < 0:
            kinds[i] = NEGATIVE
        fractions.append(Fraction(v) if kinds[i] == OK else Fraction(0))
    return kinds, RationalSums.of_fractions(fractions)


def _text_rows(items: list[Any]) -> tuple[np.ndarray, RationalSums]:
    kinds = np.full(len(items), OK, dtype=np.int8)
    values = []
    for i, v in enumerate(items):
        kind, long, digits = text_digits(v)
        kinds[i] = OK if kind == LONG else kind
        values.append(Fraction(long) if kind == LONG else
                      Fraction(_decimal_value(digits), 10 ** _SIDE) if kind == OK
                      else Fraction(0))
    return kinds, RationalSums.of_fractions(values)


# ----------------------------------------------------------------- in an engine
def weight_steps(family: str, dialect: str) -> list[tuple[str, str]]:
    """The columns, in order, that a SELECT of the rows (t, p, w) adds to find each row's
    weight class ``wk``, group value ``wx`` (a float's block, a long text's value) and
    digit columns ``d0 .. d5`` (0 unless OK), for a column of the ``family`` ("int",
    "uint", "int128", "uint128", "float", "decimal", "text") in ``dialect`` ("duckdb" or
    "spark"). Each step's expression may use the columns of the steps before it."""
    if family in ("text", "decimal"):
        return _decimal_steps(family, dialect)
    if family == "float":
        return _float_steps(dialect)
    return _integer_steps(family, dialect)


def _kind(parts: list[str]) -> str:
    return f"CASE WHEN w IS NULL THEN {MISSING} {' '.join(parts)} ELSE {OK} END"


def _integer_steps(family: str, dialect: str) -> list[tuple[str, str]]:
    kind = _kind([] if family.startswith("u") else [f"WHEN w < 0 THEN {NEGATIVE}"])
    if dialect == "spark" or family == "int":  # at most 63 bits: BIGINT arithmetic
        x = "CAST(w AS BIGINT)"
    else:  # DuckDB's unsigned and 128-bit integers
        x = f"CAST(w AS {'UHUGEINT' if family == 'uint128' else 'HUGEINT'})"
    steps = [("wk", kind), ("wx", "0"), ("x", f"CASE WHEN wk = {OK} THEN {x} ELSE 0 END")]
    bits = 63 if dialect == "spark" or family in ("int", "uint") else 128
    for k in range(_DIGITS):
        if _BITS * k >= bits:  # beyond the type: 0
            steps.append((f"d{k}", "CAST(0 AS BIGINT)"))
        elif dialect == "duckdb":
            steps.append((f"d{k}", _digit("x", k)))
        else:
            shifted = "x" if k == 0 else f"(x div {1 << (_BITS * k)})"
            steps.append((f"d{k}", f"CAST({shifted} % {1 << _BITS} AS BIGINT)"))
    return steps


def _float_steps(dialect: str) -> list[tuple[str, str]]:
    """A float's exact binary value: a block (of 26 bits) below its lowest bit, and the
    value over 2**(26 * block) (a whole number below 2**82) cut into four 26-bit digits;
    every step is exact in float64 arithmetic."""
    if dialect == "duckdb":
        # DuckDB folds isnan(w) to false from Parquet statistics, which leave NaN out
        # (DuckDB 2.0); isfinite is not folded
        nonfinite = [f"WHEN NOT isfinite(w) AND (w = CAST('inf' AS DOUBLE) OR "
                     f"w = CAST('-inf' AS DOUBLE)) THEN {INFINITE}",
                     f"WHEN NOT isfinite(w) THEN {NAN}"]
    else:
        nonfinite = [f"WHEN isnan(w) THEN {NAN}",
                     f"WHEN w = CAST('Infinity' AS DOUBLE) OR "
                     f"w = CAST('-Infinity' AS DOUBLE) THEN {INFINITE}"]
    kind = _kind(nonfinite + [f"WHEN w < 0 THEN {NEGATIVE}"])
    two = "CAST(2 AS DOUBLE)"
    steps = [("wk", kind),
             ("x", f"CASE WHEN wk = {OK} THEN CAST(w AS DOUBLE) ELSE CAST(0 AS DOUBLE) END"),
             # floor(log2(x)) is the exponent e, or one off near a power of two; a block
             # two bits lower than e - 52 keeps every bit of x whole either way
             ("wx", "CASE WHEN x > 0 THEN CAST(floor((floor(log2(x)) - 54) / "
                    f"CAST({_BITS} AS DOUBLE)) AS BIGINT) ELSE 0 END"),
             # x / 2**(26 * block), a whole number below 2**82; below 1, x is scaled up
             # first (2**1144 is beyond float64). DuckDB does not share a step between
             # the steps that use it: each of these is used once
             ("v", f"CASE WHEN x < 1 THEN (x * {2.0 ** 200!r}) * power({two}, -{_BITS} * wx "
                   f"- 200) ELSE x * power({two}, -{_BITS} * wx) END")]
    for k in range(_DIGITS):
        steps.append((f"d{k}", f"CAST(floor((v * {2.0 ** (-_BITS * k)!r}) % "
                               f"CAST({1 << _BITS} AS DOUBLE)) AS BIGINT)" if k < 4
                      else "CAST(0 AS BIGINT)"))
    return steps


def _decimal_steps(family: str, dialect: str) -> list[tuple[str, str]]:
    """A decimal's digits, from its text (a DECIMAL's as the engine spells it exactly)."""
    def lit(pattern: str) -> str:  # Spark's SQL literals read backslash escapes
        return pattern if dialect == "duckdb" else pattern.replace("\\", "\\\\")

    def full(pattern: str) -> str:
        if dialect == "duckdb":
            return f"regexp_full_match(s, '{pattern}')"
        # \z, not $: Java's $ also matches before a last line break
        return f"(s RLIKE '{lit('^(?:' + pattern + ')' + chr(92) + 'z')}')"

    if family == "text":
        kind = (f"CASE WHEN s IS NULL OR {full(_blank(dialect))} THEN {MISSING} "
                f"WHEN {full(_NAN)} THEN {NAN} WHEN {full(_INF)} THEN {INFINITE} "
                f"WHEN NOT {full(TEXT_NUMBER)} THEN {INVALID} "
                f"WHEN {full(_NEGATIVE)} THEN {NEGATIVE} ELSE {OK} END")
        text = "w"
    else:
        kind = _kind([f"WHEN w < 0 THEN {NEGATIVE}"])
        text = f"CAST(w AS {'VARCHAR' if dialect == 'duckdb' else 'STRING'})"
    steps = [("s", text), ("wk0", kind),
             ("iw", f"CASE WHEN wk0 = {OK} THEN regexp_extract(s, '{lit(_INTEGER)}', 1) "
                    "ELSE '' END"),
             ("fw", f"CASE WHEN wk0 = {OK} THEN regexp_extract(s, '{lit(_FRACTION)}', 1) "
                    "ELSE '' END"),
             ("wk", f"CASE WHEN wk0 = {OK} AND (length(iw) > {_SIDE} OR length(fw) > "
                    f"{_SIDE}) THEN {LONG} ELSE wk0 END"),
             ("wx", f"CASE WHEN wk = {LONG} THEN s END"),
             ("ip", f"CASE WHEN wk = {OK} THEN lpad(iw, {_SIDE}, '0') ELSE '' END"),
             ("fp", f"CASE WHEN wk = {OK} THEN rpad(fw, {_SIDE}, '0') ELSE '' END")]
    # columns from the lowest: fraction digits 15..21, 8..14, 1..7, integer digits the same
    for k in range(_DIGITS):
        side, start = ("fp", 1 + _CHUNK * (2 - k)) if k < 3 else ("ip", 1 + _CHUNK * (5 - k))
        steps.append((f"d{k}", f"CASE WHEN wk = {OK} THEN CAST(substr({side}, {start}, "
                               f"{_CHUNK}) AS BIGINT) ELSE 0 END"))
    return steps


def weight_plan(family: str, dialect: str) -> tuple[list[tuple[str, str]],
                                                   list[tuple[str, str]],
                                                   list[tuple[str, str]]]:
    """(row steps, sums, group steps): columns a SELECT of the rows (t, p, w) adds
    (:func:`weight_steps`, or cheaper ones), the aggregates of the GROUP BY (t, p, wk,
    wx), and the columns computed from them that give the digit sums ``d0 .. d5``.
    DuckDB sums integers and a float's block value exactly as HUGEINT, then cuts the sums
    into digits; elsewhere each row's digits are summed."""
    digits = [(f"d{k}", f"CAST(sum(d{k}) AS BIGINT)") for k in range(_DIGITS)]
    if dialect != "duckdb" or family not in ("int", "uint", "float"):
        return weight_steps(family, dialect), digits, []
    if family == "float":
        rows = weight_steps(family, dialect)
        rows = rows[:[name for name, _ in rows].index("v") + 1]
        rows += [("h", "CAST(v AS HUGEINT)")]  # exact: a whole number below 2**82
        groups = [(f"d{k}", _digit("s", k) if k < 5 else "CAST(0 AS BIGINT)")
                  for k in range(_DIGITS)]
        return rows, [("s", "sum(h)")], groups
    kind = _kind([] if family == "uint" else [f"WHEN w < 0 THEN {NEGATIVE}"])
    rows = [("wk", kind), ("wx", "0"),
            ("x", f"CASE WHEN wk = {OK} THEN CAST(w AS HUGEINT) ELSE 0 END")]
    # a sum of at most 2**64 values below 2**64: five digits
    groups = [(f"d{k}", _digit("s", k) if k < 5 else "CAST(0 AS BIGINT)")
              for k in range(_DIGITS)]
    return rows, [("s", "sum(x)")], groups


def _digit(total: str, k: int) -> str:
    """Digit k (26 bits) of a non-negative HUGEINT, as BIGINT (shifts and masks: DuckDB's
    128-bit division costs as much as the whole GROUP BY)."""
    return f"CAST(({total} >> {_BITS * k}) & {(1 << _BITS) - 1} AS BIGINT)"


def grouped_sql(rows: str, family: str, dialect: str) -> str:
    """GROUP BY (t, p, weight class ``wk``, group value ``wx``) of the rows (t, p, w) of
    the SELECT ``rows``: the rows ``n`` and the digit sums ``d0 .. d5``."""
    row_steps, sums, group_steps = weight_plan(family, dialect)
    sql = f"SELECT t, p, w FROM ({rows}) AS r0"
    for i, (name, expr) in enumerate(row_steps):
        sql = f"SELECT *, {expr} AS {name} FROM ({sql}) AS r{i + 1}"
    aggregates = ", ".join(f"{expr} AS {name}" for name, expr in sums)
    sql = (f"SELECT t, p, wk, wx, count(*) AS n, {aggregates} FROM ({sql}) AS c "
           "GROUP BY t, p, wk, wx")
    if not group_steps:
        return sql
    columns = ", ".join(f"{expr} AS {name}" for name, expr in group_steps)
    return f"SELECT t, p, wk, wx, n, {columns} FROM ({sql}) AS g0"


# what an engine fetches of its grouped weight columns
FETCH = ["wk", "wx", *(f"d{k}" for k in range(_DIGITS))]


@dataclass(frozen=True)
class WeightCells:
    """What an engine's GROUP BY (true, predicted, class, group value) returns of the
    weights, one entry per group: its class ``kind``, group value ``wx``, digit sums
    ``digits`` (groups x 6), the ``family`` of the column, and how messages name it."""

    col: str
    option: str
    family: str
    kind: np.ndarray
    wx: np.ndarray
    digits: np.ndarray

    def weights(self, rows: np.ndarray, keep: np.ndarray | None, name: str) -> Weights:
        """The exact weights of the groups ``keep`` (None: all) of ``rows`` rows each,
        their problems refused naming the column."""
        sel = slice(None) if keep is None else keep
        kind, rows = self.kind[sel], np.asarray(rows, dtype=np.int64)[sel]
        by_kind = np.bincount(kind, weights=rows, minlength=LONG + 1)  # exact below 2**53
        check_problems({k: int(by_kind[k]) for k in PROBLEMS}, self.subject(name))
        if rows.shape[0] and int(rows.max()) >= _MAX_ROWS:
            raise ValueError(f"{name}: more than 2**37 rows in one cell of column "
                             f"{self.col!r}: their exact sum is not supported")
        wx, digits = self.wx[sel], self.digits[sel]
        if self.family in ("text", "decimal"):
            return Weights.of(_decimal_sums(kind, wx, rows, digits), False)
        sums = _binary_sums(wx, digits, self.family == "float")
        if self.family != "float":
            sums = _as_int64(sums)
        return Weights.of(sums, self.family == "float")

    def subject(self, name: str) -> Subject:
        return Subject.column(name, self.col, self.option)


def _binary_sums(wx: np.ndarray, digits: np.ndarray, blocks: bool) -> Any:
    """Digit sums of 26-bit columns; a float's block b puts its digit k at b + k. Whole
    sums below 2**63 given as normalised digits (an integer column's, from DuckDB) come
    back as int64, the integer fast path."""
    n = digits.shape[0]
    if n == 0:
        return RationalSums(np.zeros(0, dtype=np.int64))
    if not blocks and not np.any(digits >> _BITS) and not digits[:, 3:].any() and \
            not np.any(digits[:, 2] >> 11):
        return RationalSums(digits[:, 0] | (digits[:, 1] << _BITS) | (digits[:, 2] << 52))
    at = np.asarray(wx, dtype=np.int64) if blocks else np.zeros(n, dtype=np.int64)
    return BinaryBlocks(at, digits)


def _as_int64(sums: Any) -> Any:
    """Whole sums that int64 holds (each below 2**63) as int64: the fast path of integer
    columns; else the digits."""
    if isinstance(sums, RationalSums):
        return sums
    d = sums.reduce(np.arange(sums.block.shape[0]), sums.block.shape[0])
    if d.low != 0 or d.digits.shape[1] < 3 or d.digits[:, 3:].any() or \
            np.any(d.digits[:, 2] >> 11):
        return d
    return RationalSums(d.digits[:, 0] | (d.digits[:, 1] << _BITS) | (d.digits[:, 2] << 52))


def _decimal_sums(kind: np.ndarray, wx: np.ndarray, rows: np.ndarray,
                  digits: np.ndarray) -> RationalSums:
    """Seven-digit column sums (from 10**-21) and long texts times their rows, exactly."""
    num = np.zeros(digits.shape[0], dtype=object)
    for k in range(_DIGITS - 1, -1, -1):
        num = num * 10 ** _CHUNK + digits[:, k].astype(object)
    long = np.flatnonzero(kind == LONG).tolist()
    values = [Fraction(wx[i]) * int(rows[i]) for i in long]
    den = math.lcm(10 ** _SIDE, *(v.denominator for v in values))
    num = num * (den // 10 ** _SIDE)
    for i, v in zip(long, values, strict=True):  # their digit sums are 0
        num[i] = v.numerator * (den // v.denominator)
    return RationalSums(num, den)


def weight_cells(data: Mapping[str, Any], col: str, option: str, family: str) -> WeightCells:
    """The weight columns an engine fetched for its groups (:data:`FETCH`)."""
    def column(key: str, fill: Any, dtype: Any) -> np.ndarray:
        values = data[key]
        if hasattr(values, "to_numpy") and hasattr(values, "is_null"):  # Arrow
            values = values.fill_null(fill).to_numpy(zero_copy_only=False)
        return np.asarray(np.ma.filled(np.ma.asarray(values), fill), dtype=dtype)

    text = family in ("text", "decimal")
    wx = column("wx", None if text else 0, object if text else np.int64)
    digits = np.stack([column(f"d{k}", 0, np.int64) for k in range(_DIGITS)], axis=1)
    return WeightCells(col, option, family, column("wk", MISSING, np.int8), wx, digits)


def text_weights(values: Any, name: str, col: str, option: str) -> Weights:
    """The text cells of a weight column read in memory, checked (problems name the
    column, as every engine's do)."""
    kinds, rows = column_weights(np.asarray(values, dtype=object), "text")
    check_problems({k: int((kinds == k).sum()) for k in PROBLEMS},
                   Subject.column(name, col, option))
    return Weights.of(rows, False)


# ----------------------------------------------------------------- the decision
def check_problems(counts: Mapping[int, int], subject: Subject) -> None:
    """The first problem among the weights (rows by class) as a ValueError naming the
    column."""
    for kind in PROBLEMS:
        if counts.get(kind, 0):
            raise ValueError(problem_message(subject.holds, kind, counts[kind]))
