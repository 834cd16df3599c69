"""Weight columns: one reading of a row's weight for every engine.

A weight says how many times a row counts, exactly as if it were repeated (the
``sample_weight`` of :meth:`~clustermetrics.Contingency.from_labels`). Every engine sorts
each row's weight into one :data:`KINDS` class with the same rules, sums the exact integer
weights of the good rows per (true, predicted) cell inside the engine (a GROUP BY), and
counts the rows of each other class; :func:`cell_counts` then refuses the problems, naming
the column, or hands the sums on to the table.

* Integer columns: the value; above 2**63 - 1 is refused (a table counts at most that).
* Float and decimal columns: an integral value is that integer (``3.0`` is 3); a
  fraction is refused today (real-valued weights), NaN and infinity always.
* Text (CSV/TSV cells, string columns): a decimal number, ``-?[0-9]+(\\.[0-9]+)?`` with
  nothing around it (``3``, ``007``, ``3.0``); anything else (``1e3``, ``+3``, `` 3``) is
  not a number; an empty or whitespace-only cell is a missing weight.
* NULL is a missing weight. Missing and negative weights are refused.

Rows dropped for a missing label (``drop_null``) are dropped whole: their weight is not
read. Rows of weight 0 are left out, with the labels only they hold.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..table.validation import MAX_ITEMS
from .delimited import is_blank

__all__ = ["WeightCells", "KINDS", "OK", "MISSING", "INVALID", "NONFINITE", "NEGATIVE",
           "FRACTION", "BIG", "TEXT_NUMBER", "cell_counts", "problem_columns", "check_total",
           "classify", "classify_text", "problem_counts", "sql_kind", "weight_cells"]

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
        return BIG, None, None
    exact = int(digits or "0")
    return OK, exact, float(exact)


def classify(values: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(kinds, exact, real) of a column's weights, one per row: ``values`` a (masked)
    array of numbers, Decimals or text. ``exact`` holds Python ints (0 where not OK),
    ``real`` the floats of the good and non-integral rows (NaN elsewhere)."""
    mask = np.ma.getmaskarray(values)
    data = np.ma.getdata(values)
    n = data.shape[0]
    kinds = np.full(n, OK, dtype=np.int8)
    exact = np.zeros(n, dtype=object)
    real = np.full(n, np.nan)
    if data.dtype.kind not in "iufOUS":
        raise ValueError(f"weights must be numbers or text, got dtype {data.dtype}")
    if data.dtype.kind in "iu":
        kinds[data < 0] = NEGATIVE
        if data.dtype.kind == "u":
            kinds[data > MAX_ITEMS] = BIG
        good = kinds == OK
        exact[good] = data[good].astype(object) if data.dtype.kind == "i" else \
            [int(v) for v in data[good].tolist()]
        real[good] = data[good]
    elif data.dtype.kind == "f":
        finite = np.isfinite(data)
        kinds[~finite] = NONFINITE
        kinds[finite & (data < 0)] = NEGATIVE
        whole = finite & (data >= 0) & (data == np.floor(np.where(finite, data, 0)))
        kinds[finite & (data >= 0) & ~whole] = FRACTION
        kinds[whole & (data >= 2.0**63)] = BIG
        good = kinds == OK
        exact[good] = [int(v) for v in data[good].tolist()]
        usable = good | (kinds == FRACTION)
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
        return BIG, None, None
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
    if family in ("float", "decimal"):
        parts.append(f"WHEN {w} <> floor({w}) THEN {FRACTION}")
    if family == "float":
        parts.append(f"WHEN {w} >= 9.223372036854775808e18 THEN {BIG}")
    elif family in ("uint", "decimal"):
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
    """What an engine's GROUP BY returns of the weights, one entry per cell: the exact
    sum of the good rows' weights, the float sum of the usable rows' (good and
    non-integral), and ``problems[cell, kind]``, the rows of each class."""

    col: str
    option: str
    exact: np.ndarray
    real: np.ndarray
    problems: np.ndarray

    def counts(self, keep: np.ndarray | None, name: str) -> np.ndarray:
        """:func:`cell_counts` of the cells ``keep`` (None: all)."""
        sel = slice(None) if keep is None else keep
        totals = self.problems[sel].sum(axis=0)
        return cell_counts(self.exact[sel], self.real[sel],
                           {k: int(totals[k]) for k in KINDS}, name, self.col, self.option)


def weight_cells(data: Mapping[str, Any], col: str, option: str) -> WeightCells:
    """The weight columns an engine fetched for its cells: ``wi`` the exact sums (ints,
    Decimals or their text; None for none), ``wf`` the float sums, ``k1``... the rows of
    each problem class."""
    exact = np.array([0 if v is None else int(v) for v in _values(data["wi"])], dtype=object)
    real = np.array([0.0 if v is None else float(v) for v in _values(data["wf"])])
    problems = np.zeros((exact.shape[0], max(KINDS) + 1), dtype=np.int64)
    for k in KINDS:
        problems[:, k] = [0 if v is None else int(v) for v in _values(data[f"k{k}"])]
    return WeightCells(col, option, exact, real, problems)


def _values(column: Any) -> list:
    """A fetched column as a list, masked entries (NULL) as None."""
    if hasattr(column, "to_pylist"):  # an Arrow column
        return column.to_pylist()
    mask = np.ma.getmaskarray(column)
    return [None if m else v for v, m in zip(np.ma.getdata(column).tolist(), mask.tolist(),
                                             strict=True)]


def problem_columns(kind: str) -> list[str]:
    """SQL aggregates counting the rows of each problem class (``kind``: the class
    expression's column), in :data:`KINDS` order."""
    return [f"sum(CASE WHEN {kind} = {k} THEN 1 ELSE 0 END) AS k{k}" for k in KINDS]


# ----------------------------------------------------------------- the decision
def check_problems(counts: Mapping[int, int], name: str, col: str, option: str) -> None:
    """The first problem among the weights (counts of rows by class) as a ValueError
    naming the column; non-integral weights are refused here."""
    for kind, what in KINDS.items():
        count = counts.get(kind, 0)
        if count:
            extra = {MISSING: "; every row needs a weight",
                     FRACTION: " (a weight counts repetitions of a row: real-valued "
                               "weights are not supported)"}.get(kind, "")
            raise ValueError(f"{name}: column {col!r} ({option}) holds {count} {what}{extra}")


def check_total(total: int, name: str, col: str, option: str) -> None:
    if total > MAX_ITEMS:
        raise ValueError(f"{name}: the weights of column {col!r} ({option}) add up to "
                         f"{total}, more than 2**63 - 1 = {MAX_ITEMS}, the largest table "
                         "counted exactly")
    if total == 0:
        raise ValueError(f"{name}: column {col!r} ({option}) is 0 on every row: nothing "
                         "to score")


def cell_counts(exact: Sequence[Any] | np.ndarray, real: np.ndarray,
                counts: Mapping[int, int], name: str, col: str, option: str) -> np.ndarray:
    """The counts that the weights give the cells (or rows): the exact integer sums,
    checked. The one place that decides what the weights become: ``real`` holds the
    float sums (non-integral weights included), which would be returned here once the
    table takes real-valued counts; today non-integral weights are refused."""
    check_problems(counts, name, col, option)
    values = [int(v) for v in (exact.tolist() if isinstance(exact, np.ndarray) else exact)]
    check_total(sum(values), name, col, option)
    return np.array(values, dtype=np.int64)
