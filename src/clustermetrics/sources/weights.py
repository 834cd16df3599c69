"""Weight columns: one reading of a row's weight for every engine.

A weight says how many times a row counts, exactly as if it were repeated (the
``sample_weight`` of :meth:`~clustermetrics.Contingency.from_labels`). Every engine sorts
each row's weight into one :data:`KINDS` class with the same rules, sums the exact integer
weights of the good rows per (true, predicted) cell inside the engine (a GROUP BY), with
their float sum alongside, and counts the rows of each other class; :func:`cell_counts`
then refuses the problems, naming the column, or hands the sums on to the table.

* Integer columns: the value; above 2**63 - 1 is refused (a table counts at most that).
* Float and decimal columns: an integral value is that integer (``3.0`` is 3); a
  fraction is a real-valued weight; NaN and infinity are refused.
* Real-valued weights: one non-integral weight anywhere makes the table one of real
  masses (:attr:`~clustermetrics.Contingency.real_valued`), each cell the float64 sum of
  its rows' weights (integral ones included) as the engine adds them up; the order of
  that sum is the engine's, so the masses agree with ``from_labels`` to rounding
  (~1e-15 relative per cell), not bit for bit. Their total must lie between 1e-150 and
  1e150; next to a non-integral weight, weights above 2**63 - 1 are real masses too.
  Without a non-integral weight the sums stay exact integers.
* Text (CSV/TSV cells, string columns): a decimal number, ``-?[0-9]+(\\.[0-9]+)?`` with
  nothing around it (``3``, ``007``, ``3.0``); anything else (``1e3``, ``+3``, `` 3``) is
  not a number; an empty or whitespace-only cell is a missing weight.
* NULL is a missing weight. Missing and negative weights are refused.

Rows dropped for a missing label (``drop_null``) are dropped whole: their weight is not
read. Rows of weight 0 are left out, with the labels only they hold.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..table.validation import MAX_ITEMS, REAL_TOTAL
from .delimited import is_blank

__all__ = ["WeightCells", "KINDS", "OK", "MISSING", "INVALID", "NONFINITE", "NEGATIVE",
           "FRACTION", "BIG", "TEXT_NUMBER", "FETCH", "cell_counts", "check_problems",
           "check_real_total", "check_total", "classify", "classify_text", "exact_sum",
           "grouped_parts", "grouped_sql", "masses", "problem_counts", "sql_kind",
           "weight_cells"]

OK, MISSING, INVALID, NONFINITE, NEGATIVE, FRACTION, BIG = range(7)
# what each class is called in messages (OK never is)
KINDS = {MISSING: "missing (NULL or empty) weights", INVALID: "weights that are not numbers",
         NONFINITE: "NaN or infinite weights", NEGATIVE: "negative weights",
         FRACTION: "non-integral weights", BIG: "weights above 2**63 - 1"}
TEXT_NUMBER = r"-?[0-9]+(\.[0-9]+)?"
_DIGITS = r"^-?0*([0-9]*)"  # the integer part without its sign and leading zeros
_MAX_DIGITS = str(MAX_ITEMS)
_FRACTION = r"\.[0-9]*[1-9]"
_NEGATIVE = r"-.*[1-9].*"  # "-0" and "-0.0" are zero
_TEXT_RE, _DIGITS_RE = re.compile(TEXT_NUMBER), re.compile(_DIGITS)
_FRACTION_RE, _NEGATIVE_RE = re.compile(_FRACTION), re.compile(_NEGATIVE)


# ----------------------------------------------------------------- in memory
def classify_text(value: Any) -> tuple[int, int | None, float | None]:
    """(kind, exact integer, real value) of one text weight (None: missing)."""
    if value is None or (isinstance(value, str) and is_blank(value)):
        return MISSING, None, None
    if not isinstance(value, str) or not _TEXT_RE.fullmatch(value):
        return INVALID, None, None
    if _NEGATIVE_RE.fullmatch(value):
        return NEGATIVE, None, None
    if _FRACTION_RE.search(value):
        return FRACTION, None, float(value)
    digits = _DIGITS_RE.match(value).group(1)  # type: ignore[union-attr]
    if len(digits) > len(_MAX_DIGITS) or (len(digits) == len(_MAX_DIGITS)
                                          and digits > _MAX_DIGITS):
        return BIG, None, float(value)
    exact = int(digits or "0")
    return OK, exact, float(exact)


def classify(values: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(kinds, exact, real) of a column's weights, one per row: ``values`` a (masked)
    array of numbers, Decimals or text. ``exact`` holds the int64 weights (0 where not OK),
    ``real`` the floats of the good, non-integral and too big rows (NaN elsewhere)."""
    mask = np.ma.getmaskarray(values)
    data = np.ma.getdata(values)
    n = data.shape[0]
    kinds = np.full(n, OK, dtype=np.int8)
    exact = np.zeros(n, dtype=np.int64)
    real = np.full(n, np.nan)
    if data.dtype.kind not in "iufOUS":
        raise ValueError(f"weights must be numbers or text, got dtype {data.dtype}")
    if data.dtype.kind in "iu":
        kinds[data < 0] = NEGATIVE
        if data.dtype.kind == "u":
            kinds[data > MAX_ITEMS] = BIG
        good = kinds == OK
        exact[good] = data[good].astype(np.int64)  # at most 2**63 - 1: exact
        usable = good | (kinds == BIG)
        real[usable] = data[usable]
    elif data.dtype.kind == "f":
        finite = np.isfinite(data)
        kinds[~finite] = NONFINITE
        kinds[finite & (data < 0)] = NEGATIVE
        whole = finite & (data >= 0) & (data == np.floor(np.where(finite, data, 0)))
        kinds[finite & (data >= 0) & ~whole] = FRACTION
        kinds[whole & (data >= 2.0**63)] = BIG
        good = kinds == OK
        exact[good] = data[good].astype(np.int64)  # integral and below 2**63: exact
        usable = good | (kinds == FRACTION) | (kinds == BIG)
        real[usable] = data[usable]
    elif data.dtype.kind in "OUS":
        for i, v in enumerate(data.tolist()):
            if mask[i]:
                continue
            if isinstance(v, (str, bytes)) or v is None:
                k, e, r = classify_text(v.decode() if isinstance(v, bytes) else v)
            else:
                k, e, r = _classify_number(v)
            kinds[i] = k
            exact[i] = 0 if e is None else e
            real[i] = np.nan if r is None else r
    kinds[mask] = MISSING
    exact[mask] = 0
    real[mask] = np.nan
    return kinds, exact, real


def _classify_number(v: Any) -> tuple[int, int | None, float | None]:
    """A Decimal (or another number object) as a weight."""
    try:
        if v != v or v in (float("inf"), float("-inf")):
            return NONFINITE, None, None
        if v < 0:
            return NEGATIVE, None, None
        whole = int(v)
    except (TypeError, ValueError, ArithmeticError):
        return INVALID, None, None
    if whole != v:
        return FRACTION, None, float(v)
    if whole > MAX_ITEMS:
        return BIG, None, float(v)
    return OK, whole, float(whole)


def problem_counts(kinds: np.ndarray) -> dict[int, int]:
    counts = np.bincount(kinds.astype(np.intp), minlength=len(KINDS) + 1)
    return {k: int(counts[k]) for k in KINDS}


# ----------------------------------------------------------------- in an engine
def sql_kind(column: str, family: str, dialect: str) -> tuple[str, str, str]:
    """SQL expressions (kind, exact integer, real value) of the weight ``column`` (an
    identifier) of a type ``family`` ("int", "uint", "float", "decimal", "text"), by the
    rules above, for ``dialect`` "duckdb" or "spark" (the same classes as
    :func:`classify`)."""
    w = column
    exact_type = "HUGEINT" if dialect == "duckdb" else "DECIMAL(38, 0)"

    def lit(pattern: str) -> str:  # Spark's SQL literals read backslash escapes
        return pattern if dialect == "duckdb" else pattern.replace("\\", "\\\\")

    def full(pattern: str) -> str:
        if dialect == "duckdb":
            return f"regexp_full_match({w}, '{pattern}')"
        # \z, not $: Java's $ also matches before a last line break
        return f"({w} RLIKE '{lit('^(?:' + pattern + ')' + chr(92) + 'z')}')"

    # ASCII whitespace: RE2 has no \v in its \s, Java's \s is exactly this set
    blank = "[ \\t\\n\\r\\x0b\\x0c]*" if dialect == "duckdb" else "\\s*"
    if family == "text":
        digits = f"regexp_extract({w}, '{lit(_DIGITS)}', 1)"
        frac = f"regexp_matches({w}, '{_FRACTION}')" if dialect == "duckdb" \
            else f"({w} RLIKE '{lit(_FRACTION)}')"
        kind = (f"CASE WHEN {w} IS NULL OR {full(blank)} "
                f"THEN {MISSING} WHEN NOT {full(TEXT_NUMBER)} THEN {INVALID} "
                f"WHEN {full(_NEGATIVE)} THEN {NEGATIVE} WHEN {frac} THEN {FRACTION} "
                f"WHEN length({digits}) > {len(_MAX_DIGITS)} OR (length({digits}) = "
                f"{len(_MAX_DIGITS)} AND {digits} > '{_MAX_DIGITS}') THEN {BIG} "
                f"ELSE {OK} END")
        exact = (f"TRY_CAST(CASE WHEN {digits} = '' THEN '0' ELSE {digits} END "
                 f"AS {exact_type})")
        real = f"TRY_CAST({w} AS DOUBLE)"
        return kind, exact, real
    parts = [f"WHEN {w} IS NULL THEN {MISSING}"]
    if family == "float":
        # DuckDB folds isnan(w) to false from Parquet statistics, which leave NaN out
        # (DuckDB 2.0); isfinite is not folded
        parts.append(f"WHEN NOT isfinite({w}) THEN {NONFINITE}" if dialect == "duckdb" else
                     f"WHEN isnan({w}) OR {w} = CAST('Infinity' AS DOUBLE) OR "
                     f"{w} = CAST('-Infinity' AS DOUBLE) THEN {NONFINITE}")
    if family != "uint":
        parts.append(f"WHEN {w} < 0 THEN {NEGATIVE}")
    if family == "float":
        # before the fraction test: Spark's floor of a double is a BIGINT, which overflows
        # (an error under ANSI SQL); doubles this large are all integral anyway
        parts.append(f"WHEN {w} >= 9.223372036854775808e18 THEN {BIG}")
    if family in ("float", "decimal"):
        parts.append(f"WHEN {w} <> floor({w}) THEN {FRACTION}")
    if family in ("uint", "decimal"):
        parts.append(f"WHEN {w} > {MAX_ITEMS} THEN {BIG}")
    kind = f"CASE {' '.join(parts)} ELSE {OK} END"
    # TRY_CAST: an engine may evaluate the cast on rows the CASE around it leaves out
    # (NaN, too big); on the good rows it is the exact value
    # floats through BIGINT (exact below 2**63): Spark casts a double to a decimal by way
    # of its shortest decimal spelling, 2**60 becoming 1152921504606846980
    value = f"TRY_CAST({w} AS BIGINT)" if family == "float" else w
    return kind, f"TRY_CAST({value} AS {exact_type})", f"TRY_CAST({w} AS DOUBLE)"


@dataclass(frozen=True)
class WeightCells:
    """What an engine's GROUP BY (true, predicted, weight class) returns of the weights,
    one entry per group: its weight class ``kind`` (:data:`KINDS`, or ``OK``), the exact
    sum of its weights when OK (int64; ``big`` marks the sums above 2**63 - 1, which the
    engine summed exactly but no table holds) and the float sum of its weights when OK or
    non-integral. Grouping by the class costs one more key where counting each class
    would cost an aggregate each; a (true, predicted) pair then has one group unless its
    rows' weights are of several classes (integral and non-integral ones: the table sums
    the float sums of its groups)."""

    col: str
    option: str
    kind: np.ndarray
    exact: np.ndarray
    big: np.ndarray
    real: np.ndarray

    def counts(self, rows: np.ndarray, keep: np.ndarray | None, name: str) -> np.ndarray:
        """:func:`cell_counts` of the groups ``keep`` (None: all) of ``rows`` rows."""
        if keep is not None and keep.all():
            keep = None
        sel = slice(None) if keep is None else keep
        kind, rows = self.kind[sel], np.asarray(rows, dtype=np.int64)[sel]
        problems = {k: exact_sum(rows[kind == k]) for k in KINDS}
        return cell_counts(self.exact[sel], self.real[sel], problems, name, self.col,
                           self.option, big=bool(self.big[sel].any()))


# what an engine fetches of its grouped weight columns (wi its exact sums, HUGEINT or
# DECIMAL(38, 0)): the sums that int64 holds, and a mark on those it does not
FETCH = ["wk", f"CAST(CASE WHEN wi <= {MAX_ITEMS} THEN wi ELSE 0 END AS BIGINT) AS wi",
         f"coalesce(wi > {MAX_ITEMS}, false) AS wbig", "wf"]


def weight_cells(data: Mapping[str, Any], col: str, option: str) -> WeightCells:
    """The weight columns an engine fetched for its groups (:data:`FETCH`)."""
    def column(key: str, fill: Any, dtype: Any) -> np.ndarray:
        values = data[key]
        if hasattr(values, "to_numpy") and hasattr(values, "is_null"):  # Arrow
            values = values.fill_null(fill).to_numpy(zero_copy_only=False)
        return np.asarray(np.ma.filled(np.ma.asarray(values), fill), dtype=dtype)

    return WeightCells(col, option, column("wk", MISSING, np.int8), column("wi", 0, np.int64),
                       column("wbig", False, bool), column("wf", 0.0, np.float64))


def grouped_parts(family: str, dialect: str) -> tuple[str, str, str]:
    """(class of the row's weight ``w``, aggregate of the exact sum of OK weights,
    aggregate of the float sum of OK, non-integral and too big ones) in SQL."""
    kind, exact, real = sql_kind("w", family, dialect)
    return (kind, f"sum(CASE WHEN wk = {OK} THEN {exact} END)",
            f"sum(CASE WHEN wk IN ({OK}, {FRACTION}, {BIG}) THEN {real} END)")


def grouped_sql(rows: str, family: str, dialect: str) -> str:
    """GROUP BY (t, p, weight class ``wk``) of the rows (t, p, w) of the SELECT ``rows``:
    the rows ``n``, the exact sum ``wi`` of OK weights and the float sum ``wf`` of OK,
    non-integral and too big ones."""
    kind, wi, wf = grouped_parts(family, dialect)
    return (f"SELECT t, p, wk, count(*) AS n, {wi} AS wi, {wf} AS wf "
            f"FROM (SELECT t, p, w, {kind} AS wk FROM ({rows}) AS r) AS c GROUP BY t, p, wk")


# ----------------------------------------------------------------- the decision
def check_problems(counts: Mapping[int, int], name: str, col: str, option: str) -> None:
    """The first problem among the weights (counts of rows by class) as a ValueError
    naming the column; non-integral weights are no problem (real-valued weights), and
    next to one, neither are weights above 2**63 - 1 (real masses are floats)."""
    real = counts.get(FRACTION, 0) > 0
    for kind, what in KINDS.items():
        count = counts.get(kind, 0)
        if count and kind != FRACTION and not (real and kind == BIG):
            extra = "; every row needs a weight" if kind == MISSING else ""
            raise ValueError(f"{name}: column {col!r} ({option}) holds {count} {what}{extra}")


def check_total(total: int | None, name: str, col: str, option: str) -> None:
    """A total the table can hold (None: more than int64 holds)."""
    if total is None or total > MAX_ITEMS:
        amount = "more than 2**63 - 1" if total is None else \
            f"{total}, more than 2**63 - 1 = {MAX_ITEMS}"
        raise ValueError(f"{name}: the weights of column {col!r} ({option}) add up to "
                         f"{amount}, the largest table counted exactly")
    if total == 0:
        raise ValueError(f"{name}: column {col!r} ({option}) is 0 on every row: nothing "
                         "to score")


def check_real_total(total: float, name: str, col: str, option: str) -> None:
    """A total of real-valued weights the table can hold (between 1e-150 and 1e150)."""
    if total == 0:
        check_total(0, name, col, option)
    if not REAL_TOTAL[0] <= total <= REAL_TOTAL[1]:
        raise ValueError(f"{name}: the weights of column {col!r} ({option}) add up to "
                         f"{total:.3g}: real-valued weights must total between 1e-150 and "
                         "1e150 (so that products of two masses stay normal float64 "
                         "numbers); rescale them")


def exact_sum(values: np.ndarray) -> int:
    """The exact sum of non-negative int64 values (numpy's would wrap): in two halves."""
    values = np.asarray(values, dtype=np.int64)
    return (int((values >> 32).sum(dtype=np.int64)) << 32) + \
        int((values & 0xFFFFFFFF).sum(dtype=np.int64))


def cell_counts(exact: np.ndarray, real: np.ndarray, counts: Mapping[int, int], name: str,
                col: str, option: str, big: bool = False) -> np.ndarray:
    """What the weights give the cells (or rows), checked; the one place that decides
    what the weights become. Without a non-integral weight (``counts[FRACTION]``, rows
    by class) the exact integer sums ``exact`` (int64; ``big``: some sum is above what
    int64 holds, refused); with one, the float sums ``real`` (float64, integral weights
    included: real masses, whose table is :attr:`~clustermetrics.Contingency.real_valued`
    unless they all add up to whole numbers)."""
    check_problems(counts, name, col, option)
    sums = masses(exact, real, counts)
    if sums.dtype.kind == "f":
        check_real_total(float(sums.sum()), name, col, option)
    else:
        check_total(None if big else exact_sum(sums), name, col, option)
    return sums


def masses(exact: np.ndarray, real: np.ndarray, counts: Mapping[int, int]) -> np.ndarray:
    """The rule, unchecked (:func:`cell_counts` checks): the float64 sums ``real`` when
    some weight is non-integral (``counts``: rows by class), else the int64 sums
    ``exact``. A reader that decides part by part (the Parquet reader, batch by batch)
    applies it to each part, a part with a weight above 2**63 - 1 taken as real too (it
    is refused at the end unless some part holds a fraction); the merged table is one of
    real masses when a part is."""
    if counts.get(FRACTION, 0) or counts.get(BIG, 0):
        return np.asarray(real, dtype=np.float64)
    return np.asarray(exact, dtype=np.int64)
