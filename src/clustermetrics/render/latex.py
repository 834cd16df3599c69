"""Results as LaTeX: one ``table`` float per table, a booktabs ``tabular`` inside.

A table needs ``\\usepackage{booktabs}`` (``\\toprule``, ``\\midrule``, ``\\bottomrule``:
Fear, *Publication quality tables in LaTeX*, the booktabs manual); numeric columns are
right-aligned, text left-aligned, and the notes follow the tabular in a small
paragraph. Text is shown as the terminal shows it
(:func:`~clustermetrics.render.text.visible`), then LaTeX's special characters are
escaped (``& % $ # _ { } ~ ^ \\`` and ``< > |``, which the default font encoding would
draw as other glyphs), ``[`` is braced (after ``\\\\`` it would open an optional
argument), and the few symbols our tables write (``±``, ``≈``, arrows) are given as math
symbols, so the output compiles with pdflatex as well as with XeLaTeX and LuaLaTeX.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

from .tables import Block, ResultTable, prose_lines
from .text import visible

__all__ = ["latex_text", "table_latex", "blocks_latex"]

_SPECIAL = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
    "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
    "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}", "[": "{[}",
    "\u00b1": r"\ensuremath{\pm}", "\u2248": r"\ensuremath{\approx}",
    "\u2264": r"\ensuremath{\leq}", "\u2265": r"\ensuremath{\geq}",
    "\u2212": r"\ensuremath{-}", "\u00d7": r"\ensuremath{\times}",
    "\u2191": r"\ensuremath{\uparrow}", "\u2193": r"\ensuremath{\downarrow}",
    "\u2192": r"\ensuremath{\rightarrow}",
    "`": r"\textasciigrave{}",  # else a left quote, and !` ?` the inverted marks
}
# Greek letters (a score's name: Hubert's Γ) as math symbols, which pdflatex sets without a
# Greek font; capitals LaTeX has no command for are the Latin letters they look like
_GREEK_LATIN = {"ALPHA": "A", "BETA": "B", "EPSILON": "E", "ZETA": "Z", "ETA": "H",
                "IOTA": "I", "KAPPA": "K", "MU": "M", "NU": "N", "OMICRON": "O", "RHO": "P",
                "TAU": "T", "CHI": "X"}


def _greek() -> dict[str, str]:
    out = {}
    for code in range(0x391, 0x3CA):
        name = unicodedata.name(chr(code), "")
        if not name.startswith("GREEK"):
            continue
        letter = name.rsplit(" ", 1)[-1].replace("LAMDA", "LAMBDA")
        if "FINAL" in name:
            out[chr(code)] = r"\ensuremath{\varsigma}"
        elif "CAPITAL" in name:
            out[chr(code)] = _GREEK_LATIN.get(letter) or rf"\ensuremath{{\{letter.title()}}}"
        else:
            out[chr(code)] = "o" if letter == "OMICRON" else \
                rf"\ensuremath{{\{letter.lower()}}}"
    return out


_TABLE = str.maketrans({**_SPECIAL, **_greek()})
# pairs that TeX's fonts join into other glyphs (-- en dash, '' and ,, quotes)
_LIGATURES = ("--", "''", ",,")


def latex_text(text: str) -> str:
    r"""Text (already shown as the terminal shows it) as LaTeX text.

    >>> print(latex_text("50% of a_1 & {b} ~ \\ [x] ± 1"))
    50\% of a\_1 \& \{b\} \textasciitilde{} \textbackslash{} {[}x] \ensuremath{\pm} 1
    """
    out = text.translate(_TABLE)
    for pair in _LIGATURES:
        while pair in out:
            out = out.replace(pair, pair[0] + "{}" + pair[1])
    return out


def table_latex(table: ResultTable) -> str:
    r"""``table`` as a ``table`` float: caption, booktabs tabular, notes.

    >>> from .tables import Column
    >>> print(table_latex(ResultTable(["k", Column("v", ".2f")], [["a_b", 0.5]], "T")))
    \begin{table}[htbp]
    \centering
    \caption{T}
    \begin{tabular}{lr}
    \toprule
    k & v \\
    \midrule
    a\_b & 0.50 \\
    \bottomrule
    \end{tabular}
    \end{table}
    """
    spec = "".join("r" if right else "l" for right in table.right())

    def row(cells: Sequence[str]) -> str:
        return " & ".join(latex_text(visible(c).strip()) for c in cells) + r" \\"

    lines = [r"\begin{table}[htbp]", r"\centering"]
    if table.caption:
        lines.append(r"\caption{" + _prose(table.caption) + "}")
    lines += [r"\begin{tabular}{" + spec + "}", r"\toprule", row(table.titles), r"\midrule",
              *(row(cells) for cells in table.texts()), r"\bottomrule", r"\end{tabular}"]
    if table.notes:
        lines += [r"\par\smallskip", r"{\footnotesize\raggedright",
                  *(_prose(note) + r"\par" for note in table.notes), "}"]
    lines.append(r"\end{table}")
    return "\n".join(lines)


def _prose(text: str) -> str:
    """A caption, note or paragraph: its code-written line breaks as spaces."""
    return " ".join(latex_text(line) for line in prose_lines(text))


def blocks_latex(blocks: Sequence[Block]) -> str:
    """A result in LaTeX: its tables, and its paragraphs as paragraphs, a blank line
    between them."""
    return "\n\n".join(table_latex(b) if isinstance(b, ResultTable) else _prose(b)
                       for b in blocks)
