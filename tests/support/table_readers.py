"""Tables read back from the Markdown and LaTeX renderings (clustermetrics.render.markdown,
clustermetrics.render.latex), written from the formats' rules, not from our renderers:
each reader checks the structure as it goes (a pipe table's delimiter row and cell
counts; booktabs rules, one row end per row, a column per cell, balanced braces)."""

import re

_PIPE = re.compile(r"(?<!\\)(?:\\\\)*\|")
_AMP = re.compile(r"(?<!\\) & ")


def markdown_tables(text):
    """The tables of a Markdown text: rows of cells with the escapes undone."""
    tables, rows = [], None
    for line in [*text.splitlines(), ""]:
        if line.startswith("| "):
            assert line.endswith(" |"), line
            if rows is None:
                rows = []
            inner = line[2:-2]
            cuts = [m.end() - 1 for m in _PIPE.finditer(inner)]
            cells = [inner[a + 1 if a else 0:b].strip()
                     for a, b in zip([0, *cuts], [*cuts, len(inner)], strict=True)]
            rows.append([re.sub(r"\\(.)", r"\1", c) for c in cells])
        elif rows is not None:
            assert re.fullmatch(r"(?::--|--:)(?: \| (?::--|--:))*", " | ".join(rows[1])), rows[1]
            assert all(len(r) == len(rows[0]) for r in rows), rows
            tables.append([rows[0], *rows[2:]])
            rows = None
    return tables


_LATEX_UNDO = [(r"\textbackslash{}", "\\"), (r"\textasciitilde{}", "~"),
               (r"\textasciicircum{}", "^"), (r"\textless{}", "<"), (r"\textgreater{}", ">"),
               (r"\textbar{}", "|"), ("{[}", "["), (r"\ensuremath{\pm}", "\u00b1"),
               (r"\ensuremath{\approx}", "\u2248"), (r"\textasciigrave{}", "`"),
               (r"\ensuremath{\Gamma}", "\u0393"), ("-{}-", "--"), ("'{}'", "''"),
               (",{},", ",,")]


def _latex_cell(cell):
    for escaped, plain in _LATEX_UNDO:
        cell = cell.replace(escaped, plain)
    return re.sub(r"\\([&%$#_{}])", r"\1", cell)


def latex_tables(text):
    """The tabulars of a LaTeX text: rows of cells with the escapes undone; each checked
    for booktabs rules, a column spec per cell and one row end per row."""
    tables = []
    for body in re.findall(r"\\begin\{tabular\}\{([lr]+)\}\n(.*?)\\end\{tabular\}", text, re.S):
        spec, inner = body
        lines = inner.splitlines()
        assert lines[0] == r"\toprule" and lines[2] == r"\midrule" and lines[-1] == r"\bottomrule"
        rows = [lines[1], *lines[3:-1]]
        assert all(r.endswith(r" \\") and r.count(r"\\") == 1 for r in rows), rows
        cells = [[_latex_cell(c) for c in _AMP.split(r[:-3])] for r in rows]
        assert all(len(c) == len(spec) for c in cells), (spec, cells)
        tables.append([[c.strip() for c in row] for row in cells])
    assert text.count(r"\begin{table}") == text.count(r"\end{table}") == len(tables)
    depth = 0
    for token in re.findall(r"\\[{}]|\\.|[{}]", text):
        depth += (token == "{") - (token == "}")
        assert depth >= 0
    assert depth == 0
    return tables
