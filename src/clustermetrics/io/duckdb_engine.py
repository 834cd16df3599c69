"""Tables from files bigger than memory: the pair count runs as a GROUP BY inside DuckDB.

DuckDB scans every file format (``formats``: each format's reader names the DuckDB
relation it reads through) and globs of them out of core, spilling to disk within
``memory_limit``; only the non-zero cells of the table come back to Python.
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np

from ..render.text import find_column
from ..table import Contingency
from ..table.weight_values import MISSING
from ._common import PARAMETERS, check_nulls, stage, table_from_groups, text_parts
from ._common import source_name as _name
from .delimited import is_blank
from .files import expand_paths
from .formats import Columns, format_of
from .weights import FETCH, grouped_sql, text_digits, weight_cells

__all__ = ["from_duckdb"]

# DuckDB column types that are not labels (nested values, raw bytes, floating noise is fine)
_NOT_LABELS = ("LIST", "STRUCT", "MAP", "UNION", "ARRAY", "[]", "JSON")


def _duckdb():
    try:
        import duckdb
    except ImportError:
        raise ImportError("reading files with DuckDB needs the duckdb extra: "
                          "pip install 'clustermetrics[duckdb]'") from None
    return duckdb


def from_duckdb(source: Any, true_col: str, pred_col: str, *, sep: str | None = None,
                memory_limit: str | None = None, drop_null: bool = False,
                temp_directory: str | None = None, stats: dict | None = None,
                progress: bool = False, names: Mapping[str, str] | None = None,
                weight_col: str | None = None) -> Contingency:
    """The table of two columns of a file (of any format of the user guide's "How files
    are read"), a glob of files, or a relation.

    Parameters
    ----------
    source : path or glob (``data/*.parquet``), or a ``duckdb.DuckDBPyRelation``. A path
        that exists is read as itself even if it holds ``*?[``; the parts of a glob are
        combined by column name. The file's name says its format (``formats``); delimited
        text (also gzip, ``.gz``) is read by the rules of the user guide's "How files are
        read", exactly as the in-memory reader and Spark read it.
    true_col, pred_col : column names.
    sep : field separator of text files (one character; default: tab for ``.tsv``/``.tab``,
        else comma).
    memory_limit : DuckDB memory limit such as ``"4GB"``; beyond it the GROUP BY spills to
        ``temp_directory`` (default: a fresh temporary directory).
    drop_null : rows with a missing label in either column (NULL, NaN, or in text files an
        empty or whitespace-only cell or a blank line) are an error naming the column and
        the count unless this is True; then they are skipped.
    stats : optional dict, filled with ``rows`` (rows scanned) and ``skipped`` (rows with a
        missing label dropped).
    progress : show DuckDB's progress bar while it scans (on stderr).
    names : how messages spell the parameters (a command line passes its flags).
    weight_col : a column of weights (integers, floats, decimals, numbers written as
        text), summed exactly inside DuckDB: each cell weighs the exact sum of its rows'
        weights, counts when every cell's sum is whole, else real masses
        (:mod:`clustermetrics.io.weights`); missing, NaN, infinite and negative
        weights and text that is not a number are refused naming the column.

    Notes
    -----
    Integer labels come back as numbers and the grouped cells are sorted in numpy (packed
    int64 keys); for text labels DuckDB numbers the distinct labels in sorted order first,
    so no Python string is hashed.

    Label types survive exactly: integers of every width stay exact (2**53 + 1 is kept),
    DECIMAL labels become ``decimal.Decimal``, dates and timestamps stay dates and
    timestamps, VARCHAR stays str. Infinite float labels are an error.
    """
    duckdb = _duckdb()
    with tempfile.TemporaryDirectory(prefix="clustermetrics-") as work:
        con = duckdb.connect()
        try:
            con.execute(f"SET enable_progress_bar = {'true' if progress else 'false'}")
            spell = {**PARAMETERS, **(names or {})}
            if memory_limit is not None:
                _setting(duckdb, con, "memory_limit", memory_limit, spell["memory_limit"])
            _setting(duckdb, con, "temp_directory", temp_directory or work,
                     spell.get("temp_directory", "temp_directory"))
            read = _Read(duckdb, con, source, true_col, pred_col, drop_null, stats, names,
                         weight_col)
            if not isinstance(source, (str, Path)):
                return read.relation(_relation(source))
            files = expand_paths(source, "source")
            kind = format_of(files[0])
            read.staged = stage(files, work, kind.link_name)
            read.sep = sep
            kind.check_sep(sep, source, read.spell["sep"])
            return kind.reader.table(read)
        finally:
            con.close()


class _Read:
    """One source read on one connection; DuckDB's errors become ValueErrors."""

    def __init__(self, duckdb, con, source, true_col, pred_col, drop_null, stats, names,
                 weight_col=None):
        self.duckdb, self.con, self.source = duckdb, con, source
        self.spell = {**PARAMETERS, **(names or {})}
        self.weight_col = weight_col
        self.name = _name(source)
        self.true_col, self.pred_col = true_col, pred_col
        self.drop_null, self.stats = drop_null, stats
        self.staged: dict[str, str] = {}  # {link DuckDB reads: the user's file}
        self.sep: str | None = None

    def _error(self, exc) -> ValueError:
        message = str(exc).splitlines()[0]
        for link, path in self.staged.items():  # name the user's files, not our links
            message = message.replace(link, path)
        return ValueError(f"{self.name}: {message}")

    def relation(self, relation) -> Contingency:
        try:
            _check_columns(relation, self.name, self.true_col, self.pred_col)
            self._check_weight(relation)
            return self._typed(relation)
        except self.duckdb.Error as exc:
            raise self._error(exc) from None

    def columns(self, reader: Columns) -> Contingency:
        """Typed columns: the format's check gives each column read one of the label types
        every engine reads (``parquet.LabelType``), then its DuckDB relation is read."""
        checked = reader.check(list(self.staged.values()), self.true_col, self.pred_col,
                               self.weight_col, self.name, self.spell)
        try:
            relation = reader.duckdb(self.con, list(self.staged), checked)
            _check_columns(relation, self.name, self.true_col, self.pred_col)
            self._check_weight(relation)
            return self._typed(relation, files=checked.types)
        except self.duckdb.Error as exc:
            raise self._error(exc) from None

    def _typed(self, relation, files: dict | None = None) -> Contingency:
        types = dict(zip(relation.columns, map(str, relation.types), strict=True))
        (t_expr, t_conv), (p_expr, p_conv) = (_exact(col, types[col])
                                              for col in (self.true_col, self.pred_col))
        if self.weight_col is None:
            grouped = relation.query("src", f"SELECT {t_expr} AS t, {p_expr} AS p, "
                                            "count(*) AS n FROM src GROUP BY ALL")
        else:
            family = self._family(types)
            grouped = relation.query("src", grouped_sql(
                f"SELECT {t_expr} AS t, {p_expr} AS p, {_ident(self.weight_col)} AS w "
                "FROM src", family, "duckdb"))
        if files and types[self.true_col] == types[self.pred_col] == "VARCHAR":
            # text labels: our own connection numbers them in DuckDB (hashing millions of
            # Python strings would cost more than the GROUP BY)
            grouped.create("g")
            return _canonical_table(self.con, self.name, self.true_col, self.pred_col,
                                    self.drop_null, self.stats,
                                    weights=self._spelled(types))
        # numbers and the rest: fetch the grouped cells as they come, numpy numbers the
        # labels and sorts the cells as packed int64 keys (DuckDB's ORDER BY on the cells
        # cost ~5 s of 2e8 rows' 22 s)
        weights = None
        if self.weight_col is None:
            t, p, n = _fetch(grouped)
        else:
            data = grouped.query("g", f"SELECT t, p, n, {_WEIGHT_FETCH} FROM g").fetchnumpy()
            t, p, n = data["t"], data["p"], data["n"]
            weights = weight_cells(data, *self._spelled(types))
        fetched_t, fetched_p = t, p
        t, p = t_conv(t), p_conv(p)
        if files:  # the values of the Parquet types (DuckDB reads durations as integers)
            t, p = files[self.true_col].exact(t), files[self.pred_col].exact(p)
        # labels left as fetched go on as the fetched arrays themselves: the table's sort
        # reuses them as work space (a masked view of them costs 1.8 s of fresh arrays on
        # 3e7 cells, 2.5 s against 0.7 s)
        t, p = _as_fetched(t, fetched_t), _as_fetched(p, fetched_p)
        return table_from_groups(t, p, n, self.name, self.true_col,
                                 self.pred_col, self.drop_null, self.stats, weights=weights)

    def _spelled(self, types: Mapping[str, str] | None = None) -> tuple[str, str, str] | None:
        """(weight column, how messages name its option, family of its type: text without
        ``types``), None without weights."""
        if self.weight_col is None:
            return None
        family = "text" if types is None else self._family(types)
        return self.weight_col, self.spell["weight_col"], family

    def _family(self, types: Mapping[str, str]) -> str:
        family = _weight_family(types[str(self.weight_col)])
        assert family is not None  # checked by _check_weight
        return family

    def _check_weight(self, relation) -> None:
        if self.weight_col is None:
            return
        columns = dict(zip(relation.columns, map(str, relation.types), strict=True))
        option = self.spell["weight_col"]
        find_column(self.name, list(columns), self.weight_col, option)
        if _weight_family(columns[self.weight_col]) is None:
            raise ValueError(f"{self.name}: column {self.weight_col!r} ({option}) has type "
                             f"{columns[self.weight_col]}; weights are integers, floats, "
                             "decimals or numbers written as text")

    def text(self) -> Contingency:
        """Delimited text, checked by the rules first: DuckDB is told every choice (no
        sniffing), each part's columns are picked by the part's own header."""
        staged = self.staged
        parts = text_parts(list(staged.values()), self.sep, self.true_col, self.pred_col,
                           self.drop_null, self.spell, self.weight_col)
        groups: dict[tuple, list[str]] = {}
        for link, part in zip(staged, parts, strict=True):
            key = (part.layout.ncols, part.t, part.p, part.layout.gzip, part.layout.sep,
                   part.layout.crlf, part.w)
            groups.setdefault(key, []).append(link)
        longest = max(part.layout.longest for part in parts)
        selects = [_read_csv(links, ncols, t, p, gz, sep, crlf, longest, w)
                   for (ncols, t, p, gz, sep, crlf, w), links in groups.items()]
        weighted = self.weight_col is not None
        # DuckDB skips blank lines of tables of two or more columns, and reads those of a
        # one-column file as NULL rows (the blank lines after the last row too)
        blank = sum(part.layout.blank for part in parts if part.layout.ncols > 1)
        trailing = sum(part.layout.trailing_blank for part in parts if part.layout.ncols == 1)
        # DuckDB reads the header lines as rows (its header=true loses every row of a file
        # that starts with a BOM and a quoted name holding the separator): take them out
        headers: dict[tuple, int] = {}
        for part in parts:
            pair = tuple(None if is_blank(part.layout.header[i]) else part.layout.header[i]
                         for i in (part.t, part.p))
            # the header's weight cell (its name) is read as a weight too: taken out below
            pair += (part.layout.header[part.w],) if weighted else ()
            headers[pair] = headers.get(pair, 0) + 1
        union = " UNION ALL ".join(selects)
        try:
            self.con.execute("CREATE TEMP TABLE r AS " + (
                grouped_sql(union, "text", "duckdb") if weighted else
                f"SELECT t, p, count(*) AS n FROM ({union}) GROUP BY ALL"))
            for side in ("t", "p"):  # a whitespace-only cell is a missing label
                self.con.execute(f"UPDATE r SET {side} = NULL "
                                 f"WHERE regexp_full_match({side}, '{_BLANK_RE}')")
            # r's columns: t, p, n, or weighted t, p, wk, wx, n, d0 .. d5
            if weighted:
                adjust = [(None, None, MISSING, None, blank - trailing, *[0] * 6)]
                adjust += [(pair[0], pair[1], *_header_weight(pair[2], count))
                           for pair, count in headers.items()]
            else:
                adjust = [(None, None, blank - trailing)]
                adjust += [(pair[0], pair[1], -count) for pair, count in headers.items()]
            self.con.executemany(f"INSERT INTO r VALUES ({', '.join('?' * len(adjust[0]))})",
                                 adjust)
            keys, sums = ("t, p, wk, wx", "".join(f", CAST(sum(d{k}) AS BIGINT) AS d{k}"
                                                  for k in range(6))) if weighted else \
                ("t, p", "")
            self.con.execute(f"CREATE TEMP TABLE g AS SELECT {keys}, CAST(sum(n) AS BIGINT) "
                             f"AS n{sums} FROM r GROUP BY {keys} HAVING sum(n) <> 0")
            return _canonical_table(self.con, self.name, self.true_col, self.pred_col,
                                    self.drop_null, self.stats,
                                    expected_rows=sum(part.layout.rows for part in parts),
                                    weights=self._spelled())
        except self.duckdb.Error as exc:
            raise self._error(exc) from None


# ASCII whitespace (user guide: "How files are read"); RE2 reads the escapes
_BLANK_RE = "[ \\t\\n\\r\\v\\f]*"
_DEFAULT_LINE = 2_097_152  # DuckDB's max_line_size


def _weight_family(kind: str) -> str | None:
    """How the weights of a column of DuckDB type ``kind`` are read (None: refused)."""
    kind = kind.upper()
    if kind in ("TINYINT", "SMALLINT", "INTEGER", "BIGINT"):
        return "int"
    if kind in ("UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT"):
        return "uint"
    if kind in ("HUGEINT", "UHUGEINT"):
        return "int128" if kind == "HUGEINT" else "uint128"
    if kind in ("FLOAT", "DOUBLE"):
        return "float"
    if kind.startswith("DECIMAL"):
        return "decimal"
    return "text" if kind == "VARCHAR" else None


_WEIGHT_FETCH = ", ".join(FETCH)


def _header_weight(name: str, count: int) -> tuple:
    """(wk, wx, n, d0 .. d5) that ``count`` header lines added to r (their weight cell is
    the column's name, read by the same rules), negated."""
    kind, value, digits = text_digits(name)
    return (kind, value, -count, *(-count * d for d in digits))


def _read_csv(links, ncols, t, p, gz, sep, crlf, longest, w=None) -> str:
    """SELECT of two columns by position from read_csv, every option spelled out."""
    columns = ", ".join(f"'c{i}': 'VARCHAR'" for i in range(ncols))
    files = ", ".join(f"'{_safe(link, 'path')}'" for link in links)
    size = ""
    if longest >= _DEFAULT_LINE:  # DuckDB refuses longer rows unless told
        size = f", max_line_size = {longest + 1}, buffer_size = {max(4 * longest, 1 << 25)}"
    delim = sep.replace("'", "''")
    # the line end is told, or DuckDB may take a line break inside a quoted label for it;
    # its strict mode reads a CRLF file with a LF in a quoted label as an error, so CRLF
    # files are read in the lenient one (the scan has already checked the structure)
    line = "new_line = '\\r\\n', strict_mode = false" if crlf else \
        "new_line = '\\n', strict_mode = true"
    weight = "" if w is None else f", c{w} AS w"
    return (f"SELECT c{t} AS t, c{p} AS p{weight} FROM read_csv([{files}], delim = '{delim}', "
            "quote = '\"', escape = '\"', comment = '', header = false, auto_detect = false, "
            f"columns = {{{columns}}}, {line}, null_padding = false, "
            "ignore_errors = false, encoding = 'utf-8', "
            f"compression = '{'gzip' if gz else 'none'}'{size})")


def _canonical_table(con, name, true_col, pred_col, drop_null, stats,
                     expected_rows: int | None = None,
                     weights: tuple[str, str, str] | None = None) -> Contingency:
    """Table from the grouped cells in table g: codes and ordering done by DuckDB.
    ``expected_rows``: the rows the files hold; DuckDB reading another number is an error.
    ``weights``: (column, option, family) when g holds the weight columns, which weigh
    the cells."""
    t_null, p_null, skipped, rows = con.execute(
        "SELECT coalesce(sum(n) FILTER (WHERE t IS NULL), 0), "
        "coalesce(sum(n) FILTER (WHERE p IS NULL), 0), "
        "coalesce(sum(n) FILTER (WHERE t IS NULL OR p IS NULL), 0), coalesce(sum(n), 0) "
        "FROM g").fetchone()
    if expected_rows is not None and (rows != expected_rows or con.execute(
            "SELECT count(*) FROM g WHERE n < 0").fetchone()[0]):
        raise ValueError(f"{name}: DuckDB read {rows} rows but the file holds "
                         f"{expected_rows}; read it with engine 'memory'")
    check_nulls(name, true_col, pred_col, int(t_null), int(p_null), int(skipped), int(rows),
                drop_null, stats)
    for side in ("t", "p"):
        con.execute(f"CREATE TEMP TABLE {side}l AS SELECT {side} AS v, "
                    f"row_number() OVER (ORDER BY {side}) - 1 AS i FROM (SELECT DISTINCT "
                    f"{side} FROM g WHERE t IS NOT NULL AND p IS NOT NULL)")
    t_labels = con.execute("SELECT v FROM tl ORDER BY i").fetchnumpy()["v"]
    p_labels = con.execute("SELECT v FROM pl ORDER BY i").fetchnumpy()["v"]
    extra = f", {_WEIGHT_FETCH}" if weights else ""
    cells = con.execute(f"SELECT tl.i AS r, pl.i AS c, g.n{extra} FROM g JOIN tl ON "
                        "g.t = tl.v JOIN pl ON g.p = pl.v").fetchnumpy()
    rows_, cols, counts = (np.asarray(cells[k], dtype=np.int64) for k in ("r", "c", "n"))
    t_labels, p_labels = np.ma.getdata(t_labels), np.ma.getdata(p_labels)
    ordered = _strictly_increasing(t_labels) and _strictly_increasing(p_labels)
    if weights:  # the groups' exact weights: each cell their sum
        found = weight_cells(cells, *weights)
        w, subject = found.weights(counts, None, name), found.subject(name)
        if ordered:
            return Contingency.from_weights(rows_, cols, w, t_labels, p_labels, subject)
        return Contingency.from_weighted_labels(t_labels[rows_], p_labels[cols], w, subject)
    if ordered:
        # the codes are every label's rank: sort the cells by them, then name the labels
        coded = Contingency.from_group_counts(rows_, cols, counts)
        return coded.with_labels(t_labels[coded.class_labels], p_labels[coded.cluster_labels])
    # DuckDB ordered the labels differently from Python (a collation): sort them here
    return Contingency.from_counts(t_labels[rows_], p_labels[cols], counts)


def _strictly_increasing(values: np.ndarray) -> bool:
    if values.dtype.kind in "iufbUSmM":
        return bool(np.all(values[1:] > values[:-1]))
    items = values.tolist()
    try:
        return all(a < b for a, b in zip(items, items[1:], strict=False))
    except TypeError:
        return False


def _relation(source):
    if hasattr(source, "query") and hasattr(source, "columns"):
        return source
    raise ValueError(f"source must be a file path, a glob or a DuckDB relation, got "
                     f"{type(source).__name__}")


def _check_columns(relation, name, true_col, pred_col):
    columns = dict(zip(relation.columns, map(str, relation.types), strict=True))
    for option, col in (("true_col", true_col), ("pred_col", pred_col)):
        find_column(name, list(columns), col, option)
        if any(bad in columns[col].upper() for bad in _NOT_LABELS):
            raise ValueError(f"{name}: column {col!r} has type {columns[col]}, which cannot "
                             "hold labels")


def _exact(col: str, kind: str):
    """(SQL expression, converter) fetching column ``col`` of DuckDB type ``kind`` with its
    values exact: numpy would turn DECIMAL and 128-bit integers into float64 (2**60 and
    2**60 + 1 would merge) and DATE into a timestamp."""
    kind = kind.upper()
    if kind.startswith("DECIMAL"):
        return f"CAST({_ident(col)} AS VARCHAR)", _converter(Decimal)
    if kind in ("HUGEINT", "UHUGEINT"):
        return f"CAST({_ident(col)} AS VARCHAR)", _converter(int)
    if kind == "BLOB":  # bytearray, which cannot be hashed
        return _ident(col), _converter(bytes)
    if kind == "TIME_NS":  # numpy would drop the nanoseconds
        raise ValueError(f"column {col!r} has type TIME_NS: a time of day in nanoseconds, "
                         "which no engine keeps exactly; cast it to BIGINT nanoseconds")
    if kind == "DATE":
        return _ident(col), lambda values: values.astype("datetime64[D]")
    return _ident(col), lambda values: values


def _converter(make):
    def convert(values):
        mask = np.ma.getmaskarray(values)
        out = np.empty(values.shape[0], dtype=object)
        out[:] = [None if m else make(v) for v, m in zip(np.ma.getdata(values).tolist(),
                                                         mask.tolist(), strict=True)]
        return np.ma.masked_array(out, mask=mask)
    return convert


def _as_fetched(values, fetched):
    """``fetched`` (a plain array DuckDB gave) when ``values`` are its own numbers unmasked
    (a conversion that changed nothing), else ``values``."""
    if type(fetched) is not np.ndarray:
        return values
    data = np.ma.getdata(values)
    same = (data.dtype == fetched.dtype and data.shape == fetched.shape
            and data.strides == fetched.strides
            and data.__array_interface__["data"][0] == fetched.__array_interface__["data"][0])
    return fetched if same and not np.ma.getmaskarray(values).any() else values


def _fetch(grouped):
    data = grouped.fetchnumpy()
    return data["t"], data["p"], data["n"]


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _setting(duckdb, con, setting: str, value: Any, option: str) -> None:
    """``SET setting = value``, every value the user passes to DuckDB going through here:
    DuckDB's refusal (a parser error, with a traceback) becomes a ValueError naming
    ``option`` (how the caller spells the parameter)."""
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{option} must be a non-empty string, got {value!r}")
    try:
        con.execute(f"SET {setting} = '{_safe(value, option)}'")
    except duckdb.Error as exc:
        reason = str(exc).splitlines()[0].split("Error: ", 1)[-1]
        raise ValueError(f"{option} {value!r} is refused by DuckDB: {reason}") from None


def _safe(value: str, what: str = "temp_directory") -> str:
    if "'" in value:
        raise ValueError(f"{what} must not contain a quote: {value!r}")
    return value
