"""Option parsing shared by the commands: numbers checked before any work, seeds checked
against what receives them, and the run options of the experiment commands."""

from __future__ import annotations

import argparse
import functools
import warnings
from collections.abc import Callable, Sequence
from typing import TypeVar

from .._text import named_twice, visible
from ..experiments.algorithms import MAX_SEED, SEED_RANGE, resolve_algorithms
from ..experiments.compare import captured_warnings, merge_counts
from ..experiments.html import Section, write_report
from ..registry import resolve_metrics
from .output import CliError, log

__all__ = ["MAX_POINTS", "algorithm_names", "comma_list", "metric_keys", "integer",
           "numpy_seed", "positive_float", "sklearn_seed", "confidence_level",
           "add_run_options", "progress_of", "refuse_unused", "show_needs_report",
           "with_extras", "write_page"]

MAX_POINTS = 10_000_000  # simulated points per dataset (3 features: 240 MB)

T = TypeVar("T")


def integer(lo: int, hi: int | None = None, why: str = "") -> Callable[[str], int]:
    """An argparse type: an integer in [lo, hi], checked before any work; ``why`` explains
    the bound in the message."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or value < lo or (hi is not None and value > hi):
            what = (f"an integer from {lo:,} to {hi:,}" if hi is not None
                    else "a non-negative integer" if lo == 0 else "a positive integer"
                    if lo == 1 else f"an integer >= {lo:,}")
            raise argparse.ArgumentTypeError(f"must be {what}{why}, got {text!r}")
        return value
    return parse


# Seeds are checked against what receives them: numpy's generators (the simulated data,
# the chance study) take any non-negative integer, scikit-learn's random_state (the
# algorithms, make_blobs) only [0, 2**32 - 1].
numpy_seed = integer(0)
sklearn_seed = integer(0, MAX_SEED, SEED_RANGE)


def _name(text: str) -> str:
    """A name (a column, say): any text but the empty one."""
    if not text:
        raise ValueError("an empty name")
    return text


def comma_list(text: str, option: str,
               parse: Callable[[str], T] = _name) -> list[T]:  # type: ignore[assignment]
    """The values of a comma-separated option, each stripped of surrounding blanks and
    parsed by ``parse`` (an argparse type, or a function raising ValueError), in the
    order given. Every command reads such an option this way: a bad value (an empty one
    included) or a value given twice (after parsing: ``ari`` and ``adjusted_rand_score``
    are one score) is a one-line error naming the option.

    >>> comma_list("8x10, 30x40", "--shapes")
    ['8x10', '30x40']
    >>> comma_list("2,3,2", "--k", int)
    Traceback (most recent call last):
    ...
    clustermetrics.cli.output.CliError: --k names 2 twice
    """
    values = []
    for item in text.split(","):
        try:
            values.append(parse(item.strip()))
        except (ValueError, argparse.ArgumentTypeError) as exc:
            raise CliError(f"{option}: {exc}") from None
    try:
        named_twice(values, option)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    return values


def metric_keys(text: str | None, option: str = "--metrics") -> list[str] | None:
    """The registry keys a ``--metrics`` option names (None when not given), by
    :func:`comma_list`: a score named twice, by any of its names, is refused."""
    if text is None:
        return None
    return comma_list(text, option, lambda name: resolve_metrics([name])[0])


def algorithm_names(text: str | None) -> list[str]:
    """The algorithms an ``--algorithms`` option names (all when not given), by
    :func:`comma_list`."""
    if text is None:
        return resolve_algorithms(None)
    return comma_list(text, "--algorithms", lambda name: resolve_algorithms([name])[0])


def positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text!r}")
    return value


def confidence_level(text: str) -> float:
    """An argparse type: a confidence level strictly between 0 and 1."""
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(f"must be a confidence level in (0, 1), e.g. 0.95, "
                                         f"got {text!r}")
    return value


def with_extras(handler: Callable[[argparse.Namespace], str]) -> Callable[..., str]:
    """A missing optional dependency becomes a one-line error naming the extra; warnings
    that no run captured (none expected) become one-line notes on stderr, never the
    warnings module's two lines with a source line."""
    @functools.wraps(handler)
    def run(args: argparse.Namespace) -> str:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                return handler(args)
            except ImportError as exc:
                raise CliError(str(exc)) from None
            finally:
                for line in dict.fromkeys(_warning_line(w) for w in caught):
                    log(f"note: {line}")
    return run


def _warning_line(w: warnings.WarningMessage) -> str:
    text = str(w.message).strip()
    return f"{w.category.__name__}: {text.splitlines()[0]}" if text else w.category.__name__


def add_run_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--report", metavar="DIR",
                   help="write an HTML report (plots embedded) and its PNGs into DIR")
    p.add_argument("--quiet", action="store_true",
                   help="no progress bar (there is none anyway when stderr is not a terminal)")


def progress_of(args: argparse.Namespace) -> bool | None:
    """The experiments' progress switch: off with --quiet, else on a terminal."""
    return False if args.quiet else None


def write_page(directory: str, title: str, sections: Callable[[], list],
               intro: str = "") -> None:
    """Build the sections (plots) and write the page; warnings raised while drawing (a
    glyph missing from the font, say) go into the page as notes, not to the terminal."""
    built, caught = captured_warnings(sections)
    if caught:  # messages: their user strings are literals already, shown as they are
        built = [*built, Section("Notes", ["Warnings raised while drawing the plots:",
                                           *(visible(line, backslash=False)
                                             for line in merge_counts(caught))])]
    page = write_report(directory, title, built, intro)
    log(f"report written to {page}")


def refuse_unused(args: argparse.Namespace, option: str, dest: str, why: str | None) -> None:
    """``option`` was given but would change nothing: ``why`` says so (None: it applies)."""
    if getattr(args, dest) is not None and why is not None:
        raise CliError(f"{option} {why}")


def show_needs_report(args: argparse.Namespace, algorithms: Sequence[str]) -> None:
    if args.show is None:
        return
    if args.report is None:
        raise CliError("--show picks the run detailed in the --report page: give --report")
    if args.show not in algorithms:
        raise CliError(f"--show {args.show!r} is not one of the algorithms run: "
                       f"{', '.join(algorithms)}")
