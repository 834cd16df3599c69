"""The ``clustermetrics`` command line: the parser of every command and ``main``.

Each command is one module with an ``add_<name>_command(subparsers)`` function that
registers its parser and handler. Errors print one line, ``clustermetrics: error: ...``,
and exit with status 2; there is never a traceback for bad input.

``main`` imports only the module of the command it runs: together the commands' modules
and what they import (experiments, file sources, report pages) are about as much code as
the scores themselves, and ``clustermetrics --help`` lists the commands from
:data:`.commands.SUMMARIES` alone.
"""

from __future__ import annotations

import argparse
import functools
import sys
import warnings
from collections.abc import Callable, Collection, Sequence

from .._version import __version__
from .commands import SUMMARIES
from .output import PROG, CliError, as_flags, closing_notes, error_line, log, write

__all__ = ["build_parser", "main"]


class _StoreOnce(argparse._StoreAction):
    """argparse's ``store``, refusing a second value: argparse keeps the last of
    ``--ci 0.9 --ci 0.95`` without a word, and which one the user meant is a guess."""

    def __call__(self, parser, namespace, values, option_string=None):
        given = namespace.__dict__.setdefault("_given_once", {})
        if self.dest in given:
            flag = max(self.option_strings, key=len)
            both = {given[self.dest], option_string}
            spelled = f" (as {' and '.join(sorted(both))})" if len(both) > 1 else ""
            raise CliError(f"{flag} is given twice{spelled}: it takes one value, give it once")
        given[self.dest] = option_string
        super().__call__(parser, namespace, values, option_string)


class _Parser(argparse.ArgumentParser):
    """argparse with one-line usage errors (argparse prints usage + message by default)
    and single-valued options that take one value (every parser of a command is one of
    these: argparse makes subparsers of their parent's class)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.register("action", None, _StoreOnce)
        self.register("action", "store", _StoreOnce)

    def error(self, message: str):  # type: ignore[override]
        raise CliError(message)


def build_parser(commands: Collection[str] = tuple(SUMMARIES)) -> argparse.ArgumentParser:
    """The parser of the command line with the full parsers of ``commands`` (all by
    default); every other command is listed by its summary line only."""
    parser = _Parser(prog=PROG, description="Score a clustering against a known ground truth.")
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name, summary in SUMMARIES.items():
        if name in commands:
            _add_command(sub, name)
        else:
            sub.add_parser(name, help=summary)
    return parser


def _add_command(sub, name: str) -> None:
    """Register command ``name``'s parser and handler, importing its module now."""
    # imported here, not at the top: import time (only the command that runs is loaded)
    if name == "score":
        from .score import add_score_command as add
    elif name == "metrics":
        from .metric_list import add_metrics_command as add
    elif name == "compare":
        from .compare import add_compare_command as add
    elif name == "paired":
        from .paired import add_paired_command as add
    elif name == "demo":
        from .demo import add_demo_command as add
    elif name == "chance":
        from .chance import add_chance_command as add
    elif name == "coverage":
        from .coverage import add_coverage_command as add
    elif name == "paired-calibration":
        from .paired_calibration import add_paired_calibration_command as add
    elif name == "hierarchy":
        from .hierarchy import add_hierarchy_command as add
    else:
        raise AssertionError(f"command {name!r} has a summary but no module")
    add(sub)


def command_of(argv: Sequence[str]) -> str | None:
    """The command ``argv`` runs: its first argument that is not an option (the options
    before a command, --help and --version, take no value), or None."""
    return next((a for a in argv if not a.startswith("-")), None)


def _note_warning(message, category, filename, lineno, file=None, line=None,
                  flags: dict[str, str] | None = None) -> None:
    """Warnings reach the terminal as one note line, without source-line clutter, the
    library's parameters spelled as the command's flags (``flags``)."""
    log(f"note: {as_flags(str(message), flags) if flags else message}")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (0 ok, 2 bad input, 130 interrupted)."""
    warnings.showwarning = _note_warning
    argv = sys.argv[1:] if argv is None else list(argv)
    command = command_of(argv)
    parser = build_parser(() if command is None else (command,))
    flags: dict[str, str] = {}
    closing_notes()  # none left over from an earlier call in this process
    try:
        try:
            args = parser.parse_args(argv)
            vars(args).pop("_given_once", None)
        except SystemExit as exc:  # --help / --version: return their status, do not exit
            return exc.code if isinstance(exc.code, int) else 0
        flags = _flags_of(parser, args.command)
        warnings.showwarning = functools.partial(_note_warning, flags=flags)
        handler: Callable[[argparse.Namespace], str] = args.handler
        write(handler(args), getattr(args, "output", None))
        sys.stdout.flush()  # the notes on stderr follow the output, also where both are piped
        for note in closing_notes():
            log(note)
    except CliError as exc:
        error_line(str(exc))
        return 2
    except (ValueError, OSError) as exc:  # the library's words: parameters become flags
        error_line(as_flags(str(exc), flags, _options_of_every_command(build_parser())))
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
    # imported here, not at the top: import time (the file sources, only on this error path)
    from ..io.files import PARAMETERS

    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    every = [_flags_of(parser, c) for c in sub.choices]
    return set(PARAMETERS).union(*every, *(f.values() for f in every))


# The library's parameters that a command's option of another name feeds: its messages
# say ``sample_weight`` where the command line said --weight-col.
_LIBRARY_NAMES = {"sample_weight": "weight_col", "n_perm": "permutations",
                  "significance": "significance"}


def _flags_of(parser: argparse.ArgumentParser, command: str) -> dict[str, str]:
    """Parameter name -> the flag of ``command`` that sets it (``true_col`` ->
    ``--true-col``; the library's ``sample_weight`` -> ``--weight-col``)."""
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    flags = {a.dest: max(a.option_strings, key=len) for a in sub.choices[command]._actions
             if a.option_strings and a.dest != "help"}
    return {**flags, **{name: flags[dest] for name, dest in _LIBRARY_NAMES.items()
                        if dest in flags}}
