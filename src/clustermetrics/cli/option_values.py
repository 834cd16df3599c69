"""What every command reads from its options: numbers checked before any work, numpy's
seeds, comma-separated lists and the score names of ``--metrics``; a bad value is a
one-line error naming its option.

Apart from :mod:`.options` (the experiment commands' run options) so that ``score`` reads
its options without importing the experiments.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TypeVar

from ..render.text import named_twice
from ..scores.registry import resolve_metrics
from .output import CliError

__all__ = ["comma_list", "confidence_level", "integer", "metric_keys", "numpy_seed",
           "positive_float"]

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
# the chance study, the bootstrap) take any non-negative integer; scikit-learn's
# random_state takes less (options.sklearn_seed).
numpy_seed = integer(0)


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
