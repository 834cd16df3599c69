"""The ``clustermetrics`` command line: the parser of every command and ``main``.

Each command is one module with an ``add_<name>_command(subparsers)`` function that
registers its parser and handler. Errors print one line, ``clustermetrics: error: ...``,
and exit with status 2; there is never a traceback for bad input.
"""

from __future__ import annotations

import argparse
import warnings
from collections.abc import Callable, Sequence

from .._version import __version__
from ..sources.files import PARAMETERS
from .chance import add_chance_command
from .compare import add_compare_command
from .coverage import add_coverage_command
from .demo import add_demo_command
from .hierarchy import add_hierarchy_command
from .metric_list import add_metrics_command
from .output import PROG, CliError, as_flags, error_line, log, write
from .paired import add_paired_command
from .paired_calibration import add_paired_calibration_command
from .score import add_score_command

__all__ = ["build_parser", "main"]


class _Parser(argparse.ArgumentParser):
    """argparse with one-line usage errors (argparse prints usage + message by default)."""

    def error(self, message: str):  # type: ignore[override]
        raise CliError(message)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=PROG, description="Score a clustering against a known ground truth.")
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for add in (add_score_command, add_metrics_command, add_compare_command,
                add_paired_command, add_demo_command, add_chance_command,
                add_coverage_command, add_paired_calibration_command,
                add_hierarchy_command):
        add(sub)
    return parser


def _note_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """Warnings reach the terminal as one note line, without source-line clutter."""
    log(f"note: {message}")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (0 ok, 2 bad input, 130 interrupted)."""
    warnings.showwarning = _note_warning
    parser = build_parser()
    flags: dict[str, str] = {}
    try:
        try:
            args = parser.parse_args(argv)
        except SystemExit as exc:  # --help / --version: return their status, do not exit
            return exc.code if isinstance(exc.code, int) else 0
        flags = _flags_of(parser, args.command)
        handler: Callable[[argparse.Namespace], str] = args.handler
        write(handler(args), getattr(args, "output", None))
    except CliError as exc:
        error_line(str(exc))
        return 2
    except (ValueError, OSError) as exc:  # the library's words: parameters become flags
        error_line(as_flags(str(exc), flags, _options_of_every_command(parser)))
        return 2
    except MemoryError:
        error_line("out of memory: lower the sizes asked for (points, replicates, --k, "
                    "--max-pairwise)")
        return 2
    except KeyboardInterrupt:  # Ctrl-C: one line and the shell's status for SIGINT
        error_line("interrupted")
        return 130
    return 0


def _options_of_every_command(parser: argparse.ArgumentParser) -> set[str]:
    """The parameter names some command has a flag for (and the library's file-reading
    parameters): a hint naming one of them is dropped where the command lacks it."""
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    every = [_flags_of(parser, c) for c in sub.choices]
    return set(PARAMETERS).union(*every, *(f.values() for f in every))


def _flags_of(parser: argparse.ArgumentParser, command: str) -> dict[str, str]:
    """Parameter name -> the flag of ``command`` that sets it (``true_col`` ->
    ``--true-col``)."""
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {a.dest: max(a.option_strings, key=len) for a in sub.choices[command]._actions
            if a.option_strings and a.dest != "help"}
