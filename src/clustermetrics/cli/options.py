"""Option parsing shared by the experiment commands: scikit-learn's seeds, the algorithm
names, the run options (progress, report pages, warnings). What every command reads
(numbers, comma lists, score names) is in :mod:`.option_values`, which imports none of the
experiments."""

from __future__ import annotations

import argparse
import functools
import warnings
from collections.abc import Callable, Sequence

from ..experiments.algorithms import MAX_SEED, SEED_RANGE, resolve_algorithms
from ..experiments.compare import captured_warnings, merge_counts
from ..experiments.html import Section, write_report
from ..render.text import visible
from .option_values import comma_list, integer
from .output import CliError, closing_note, log

__all__ = ["MAX_POINTS", "algorithm_names", "sklearn_seed", "add_run_options", "progress_of",
           "refuse_unused", "show_needs_report", "with_extras", "write_page"]

MAX_POINTS = 10_000_000  # simulated points per dataset (3 features: 240 MB)

# Seeds are checked against what receives them: numpy's generators take any non-negative
# integer (option_values.numpy_seed), scikit-learn's random_state (the algorithms,
# make_blobs) only [0, 2**32 - 1].
sklearn_seed = integer(0, MAX_SEED, SEED_RANGE)


def algorithm_names(text: str | None) -> list[str]:
    """The algorithms an ``--algorithms`` option names (all when not given), by
    :func:`comma_list`."""
    if text is None:
        return resolve_algorithms(None)
    return comma_list(text, "--algorithms", lambda name: resolve_algorithms([name])[0])


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
    closing_note(f"report written to {page}")


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
