"""What every command shares: one-line errors, notes on stderr, the output options, and
one way to render a result: its tables (:mod:`clustermetrics.render.tables`) as a text
table, Markdown or LaTeX (:data:`~clustermetrics.render.documents.RENDERERS`), or its
data as strict JSON or CSV."""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Collection, Sequence
from typing import Protocol

from ..render.documents import DESCRIPTIONS, RENDERERS, render_blocks
from ..render.tables import Block
from ..render.text import visible

__all__ = ["FORMATS", "PROG", "CliError", "Renderable", "add_output_options", "as_flags",
           "closing_note", "closing_notes", "error_line", "log", "render", "write"]

PROG = "clustermetrics"
#: Every ``--format``: the renderers of a result's tables, then its data as JSON and CSV.
FORMATS = (*RENDERERS, "json", "csv")


class CliError(Exception):
    """A user-facing problem: reported as one line, exit status 2."""


class Renderable(Protocol):
    """A command's result: its tables and prose (``blocks``), which every renderer of
    :data:`FORMATS` draws, and its data as strict JSON and CSV."""

    def blocks(self) -> Sequence[Block]: ...

    def to_json(self) -> str: ...

    def to_csv(self) -> str: ...


def render(result: Renderable, fmt: str) -> str:
    """``result`` in the output format ``fmt`` (one of :data:`FORMATS`)."""
    if fmt == "json":
        return result.to_json()
    if fmt == "csv":
        return result.to_csv()
    return render_blocks(result.blocks(), fmt)


def add_output_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--format", default="table", choices=FORMATS,
                   help="output format: " + "; ".join(
                       f"{name} ({DESCRIPTIONS[name]})" if name in DESCRIPTIONS else name
                       for name in FORMATS) + " (default: table)")
    p.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout")


def write(text: str, output: str | None) -> None:
    text = text if text.endswith("\n") else text + "\n"
    if output is None:
        sys.stdout.write(text)
        return
    with open(output, "w", encoding="utf-8") as fh:
        fh.write(text)


def log(message: str, *, progress: bool = False) -> None:
    """A one-line note on stderr (control characters escaped); progress notes only when
    stderr is a terminal."""
    if progress and not sys.stderr.isatty():
        return
    print(f"{PROG}: {visible(message, backslash=False)}", file=sys.stderr, flush=True)


# Notes about what a command produced beside its output ("report written to ..."): main
# prints them once the output is written, so that on a terminal, or with stdout
# redirected, they come after the tables they follow, never before.
_CLOSING: list[str] = []


def closing_note(message: str) -> None:
    """A note (see :func:`log`) printed after the command's output."""
    _CLOSING.append(message)


def closing_notes() -> list[str]:
    """The closing notes held so far, handed over once (the list is emptied)."""
    notes = _CLOSING[:]
    _CLOSING.clear()
    return notes


def error_line(message: str) -> None:
    """``clustermetrics: error: MESSAGE`` on one line. Nothing is collapsed or dropped:
    control characters (a line break included) show as escapes
    (``clustermetrics.render.text.visible``); user strings in messages are Python literals
    already, so backslashes are left as they are."""
    print(f"{PROG}: error: {visible(message, backslash=False)}", file=sys.stderr)


def as_flags(message: str, flags: dict[str, str], others: Collection[str] = ()) -> str:
    """A library message with the parameters it names spelled as the command's flags.

    Library errors name a parameter in parentheses, ``(true_col)`` or ``(noise
    'exclude')``, start with it (``noise_label '-1' matches ...``), or advise a boolean as
    ``drop_null=True``; only those places are rewritten, so a column or file that happens
    to be called ``true_col`` is not. A parenthesised hint that advises a parameter or
    flag in ``others`` (options of other commands) but not in ``flags`` is left out: the
    command has no such option.

    >>> as_flags("t.csv has no column 'x' (true_col); (noise 'exclude')",
    ...          {"true_col": "--true-col", "noise": "--noise"})
    "t.csv has no column 'x' (--true-col); (--noise 'exclude')"
    >>> as_flags("3 NULL labels (drop_null=True skips them)", {"drop_null": "--drop-null"})
    '3 NULL labels (--drop-null skips them)'
    >>> as_flags("line 2 is empty (drop_null skips such rows)", {}, {"drop_null"})
    'line 2 is empty'
    >>> as_flags("line 2 (missing; --drop-null skips them)", {}, {"--drop-null"})
    'line 2 (missing)'
    >>> as_flags("ci must be a level in (0, 1), got 0", {"ci": "--ci"})
    '--ci must be a level in (0, 1), got 0'

    Elsewhere a parameter is rewritten where it cannot be prose: a name with an
    underscore outside quotes, ``name="value"``, or the subject of ``needs``:

    >>> as_flags('significance needs counts (from sample_weight); noise="exclude" works',
    ...          {"significance": "--significance", "sample_weight": "--weight-col",
    ...           "noise": "--noise"})
    '--significance needs counts (from --weight-col); --noise exclude works'
    """
    def flag(match: re.Match) -> str:
        return flags.get(match.group(1), match.group(1))

    def advice(match: re.Match) -> str:  # one parenthesis, clause by clause
        kept = []
        for clause in match.group(1).split("; "):
            said = re.match(r"(--[\w-]+|\w+)(=True)? (?!')", clause)
            if said is not None:
                name = said.group(1)
                if name in flags or name in flags.values():
                    clause = flags.get(name, name) + clause[said.end() - 1:]
                elif (said.group(2) or "_" in name or name.startswith("--")) and \
                        name in others:
                    continue  # advice to use an option this command does not have
            kept.append(clause)
        return f" ({'; '.join(kept)})" if kept else ""

    message = re.sub(r" \(([^()]*)\)", advice, message)
    message = re.sub(r"(?<=\()(\w+)(?=\)| ')", flag, message)
    message = re.sub(r"\b(\w+)=True\b",
                     lambda m: flags.get(m.group(1), m.group(0)), message)
    message = re.sub(r"^(\w+)(?= must )", lambda m: flags.get(m.group(1), m.group(1)),
                     message)  # "ci must be ...": the library's check of a parameter
    message = re.sub(r"^(\w+)(?= \(| needs )", flag, message)
    message = re.sub(r'\b(\w+)="([\w-]*)"', lambda m: f"{flags[m.group(1)]} {m.group(2)}"
                     if m.group(1) in flags else m.group(0), message)
    # quoted spans are the user's values (a column may be called sample_weight)
    parts = re.split(r"('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")", message)
    parts[::2] = [re.sub(r"(?<![-\w])([a-z]\w*_\w+)(?![-\w])", flag, part)
                  for part in parts[::2]]
    return re.sub(r"^(\w+_\w+)(?= )", flag, "".join(parts))
