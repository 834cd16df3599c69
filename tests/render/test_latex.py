"""LaTeX booktabs tables: structurally sound whatever a label holds (balanced braces, one
row end per row, as many cells as the header), every special character escaped, and the
cells read back as the terminal shows them."""

import re
import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st
from table_strategies import result_tables, texts

from clustermetrics.render.latex import blocks_latex, latex_text, table_latex
from clustermetrics.render.tables import Column, ResultTable
from clustermetrics.render.text import visible

_UNDO = {v: k for k, v in {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
    "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
    "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}", "[": "{[}",
    "`": r"\textasciigrave{}", "-": "-{}", "'": "'{}", ",": ",{}"}.items()}
# the symbols drawn in math mode, by their LaTeX names (the LaTeX Companion)
_MATH = {r"\pm": "\u00b1", r"\approx": "\u2248", r"\leq": "\u2264", r"\geq": "\u2265",
         "-": "\u2212", r"\times": "\u00d7", r"\uparrow": "\u2191",
         r"\downarrow": "\u2193", r"\rightarrow": "\u2192"}
_TOKEN = re.compile(r"\\ensuremath\{(\\?[\w-]+)\}|"
                    + "|".join(re.escape(k) for k in sorted(_UNDO, key=len, reverse=True))
                    + "|.", re.S)


def _math(name: str) -> str:
    """A math symbol by its LaTeX name: ours, else a Greek letter (\\Gamma, \\alpha)."""
    if name in _MATH:
        return _MATH[name]
    letter = name.lstrip("\\")
    case = "CAPITAL" if letter[0].isupper() else "SMALL"
    return unicodedata.lookup(f"GREEK {case} LETTER {letter.upper().replace('LAMBDA', 'LAMDA')}"
                              if letter != "varsigma" else "GREEK SMALL LETTER FINAL SIGMA")


def _unescape(text: str) -> str:
    return "".join(_math(m.group(1)) if m.group(1) else _UNDO.get(m.group(), m.group())
                   for m in _TOKEN.finditer(text))


def _balanced(text: str) -> bool:
    depth = 0
    for m in re.finditer(r"\\[{}]|\\.|[{}]", text):
        token = m.group()
        depth += token == "{"
        depth -= token == "}"
        if depth < 0:
            return False
    return depth == 0


def _tabular(text: str) -> list[str]:
    body = text.split("\\begin{tabular}", 1)[1].split("\\end{tabular}", 1)[0]
    return [line for line in body.splitlines()[1:] if line not in
            (r"\toprule", r"\midrule", r"\bottomrule")]


@settings(max_examples=200, deadline=None)
@given(result_tables())
def test_structure_and_cells(table):
    out = table_latex(table)
    assert _balanced(out)
    assert out.count(r"\\") == 1 + len(table.rows)  # one row end per row, none elsewhere
    assert re.search(r"\\begin\{tabular\}\{([lr]+)\}", out).group(1) == "".join(
        "r" if r else "l" for r in table.right())
    assert [out.count(s) for s in (r"\toprule", r"\midrule", r"\bottomrule")] == [1, 1, 1]
    rows = _tabular(out)
    assert len(rows) == 1 + len(table.rows)
    expected = [[visible(t) for t in table.titles],
                *([visible(c) for c in row] for row in table.texts())]
    for line, cells in zip(rows, expected, strict=True):
        assert line.endswith(r" \\")
        parts = re.split(r"(?<!\\) & ", line[:-3])
        assert len(parts) == len(table.header), line
        assert [_unescape(p) for p in parts] == [c.strip() for c in cells]  # blanks trimmed
    assert not re.search(r"[\x00-\x1f]", out.replace("\n", ""))


@settings(max_examples=200, deadline=None)
@given(texts(60))
def test_escaped_text_has_no_bare_special(text):
    out = latex_text(visible(text))
    assert _balanced(out)
    bare = re.sub(r"\\(?:[&%$#_{}]|textbackslash\{\}|textasciitilde\{\}|textasciicircum\{\}|"
                  r"textless\{\}|textgreater\{\}|textbar\{\}|textasciigrave\{\}|"
                  r"ensuremath\{\\?[\w-]+\})|\{\[\}|(?<=[-',])\{\}",
                  "", out)
    assert not re.search(r"[&%$#_{}~^\\<>|\[]", bare), out
    assert _unescape(out) == visible(text)


def test_notes_follow_the_tabular_and_paragraphs_are_escaped():
    t = ResultTable(["a", Column("p", ".1%")], [["x_1", 0.25]], "50% & more", ["* 5$ note"])
    out = table_latex(t)
    assert r"\caption{50\% \& more}" in out and r"x\_1 & 25.0\% \\" in out
    assert out.index(r"\end{tabular}") < out.index(r"* 5\$ note\par") < out.index(
        r"\end{table}")
    assert blocks_latex(["a # b", t]).startswith("a \\# b\n\n\\begin{table}")


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(
    list("-',`!?ab ") + [chr(c) for c in range(0x391, 0x3CA)
                         if unicodedata.name(chr(c), "").startswith("GREEK")])))
def test_no_pair_tex_joins_and_no_greek_pdflatex_cannot_set(text):
    """TeX's fonts join -- '' ,, into other glyphs and read a backtick as a quote (!` ?`
    as inverted marks), and pdflatex stops at a Greek letter: none survives (the phi
    coefficient's name holds Hubert's Γ)."""
    out = latex_text(text)
    assert not any(pair in out for pair in ("--", "''", ",,", "`"))
    assert out.isascii()
