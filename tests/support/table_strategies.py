"""Hypothesis strategies of result tables (clustermetrics.render.tables): captions,
titles, cells and notes of any text -- the specials of LaTeX, Markdown and HTML, control
characters, bidi controls, wide characters -- and numbers of every kind (NaN, infinities,
integers beyond a double)."""

from hypothesis import strategies as st

from clustermetrics.render.tables import Cell, Column, ResultTable

SPECIALS = "&%$#_{}~^\\|<>\"'*`[]!-+=.()\n\r\t\x00\x1b\u2028\u202e\u00b1\u2248\u65e5 "
_TEXT_ALPHABET = st.one_of(st.sampled_from(SPECIALS),
                           st.characters(blacklist_categories=("Cs",)))


def texts(max_size: int = 20) -> st.SearchStrategy[str]:
    return st.text(_TEXT_ALPHABET, max_size=max_size)


def numbers() -> st.SearchStrategy:
    return st.one_of(st.floats(allow_nan=True, allow_infinity=True),
                     st.integers(min_value=-(10**40), max_value=10**40),
                     st.sampled_from([float("nan"), float("inf"), float("-inf"), 2**63 - 1]))


def cells(max_text: int = 20) -> st.SearchStrategy:
    return st.one_of(numbers(), texts(max_text), st.none(),
                     st.builds(Cell, texts(max_text), st.one_of(st.none(), numbers())))


@st.composite
def result_tables(draw, max_title: int = 20, max_text: int = 20, max_columns: int = 6,
                  max_rows: int = 6) -> ResultTable:
    n = draw(st.integers(1, max_columns))
    fmts = st.sampled_from(["", ".3f", "+.4f", ".2g", ".1%"])
    aligns = st.sampled_from([None, None, "left", "right"])
    columns = [Column(draw(texts(max_title)), draw(fmts), align=draw(aligns)) for _ in range(n)]
    rows = draw(st.lists(st.lists(cells(max_text), min_size=n, max_size=n),
                         max_size=max_rows))
    caption = draw(st.one_of(st.just(""), texts(40)))
    notes = draw(st.lists(texts(60), max_size=2))
    return ResultTable(columns, rows, caption, notes, keep=draw(st.integers(0, min(n, 2))))
