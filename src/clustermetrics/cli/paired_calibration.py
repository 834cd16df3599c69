"""The ``paired-calibration`` command: how often the paired test calls equally good
clusterings different, per score, on a grid of simulated table shapes."""

from __future__ import annotations

import argparse

from ..experiments.paired_calibration import (
    DEFAULT_CLASSES,
    DEFAULT_KEEPS,
    DEFAULT_KEYS,
    DEFAULT_SIZES,
    paired_calibration,
)
from .commands import SUMMARIES
from .option_values import comma_list, integer, metric_keys, numpy_seed
from .options import progress_of
from .output import add_output_options, render

__all__ = ["add_paired_calibration_command"]

MAX_TRIALS = 1_000_000
MAX_SIZE = 10**7
MAX_CLASSES = 10**6


def add_paired_calibration_command(sub) -> None:
    p = sub.add_parser(
        "paired-calibration",
        help=SUMMARIES["paired-calibration"],
        description="Draw samples where two predictions come from one process (each keeps "
                    "an item's true label with probability KEEP, else draws a uniform "
                    "label), so that they are equally good, compare them with the paired "
                    "test, and report per score and table shape how often they were "
                    "called different at ALPHA, with its binomial limit.")
    p.add_argument("--metrics", default=",".join(DEFAULT_KEYS),
                   help=f"comma-separated score keys, or all (every score with an "
                        f"interval; default {','.join(DEFAULT_KEYS)})")
    p.add_argument("--classes", default=",".join(map(str, DEFAULT_CLASSES)),
                   help="comma-separated numbers of true classes (default "
                        f"{','.join(map(str, DEFAULT_CLASSES))})")
    p.add_argument("--keeps", default=",".join(map(str, DEFAULT_KEEPS)),
                   help="comma-separated probabilities that a prediction keeps an item's "
                        f"true label (default {','.join(map(str, DEFAULT_KEEPS))})")
    p.add_argument("--sizes", default=",".join(map(str, DEFAULT_SIZES)),
                   help="comma-separated sample sizes (default "
                        f"{','.join(map(str, DEFAULT_SIZES))})")
    p.add_argument("--trials", type=integer(1, MAX_TRIALS), default=200,
                   help="samples per classes, keep and size (default 200)")
    p.add_argument("--alpha", type=_level, default=0.05,
                   help="level of the test (default 0.05)")
    p.add_argument("--seed", type=numpy_seed, default=0,
                   help="random seed (default 0; any non-negative integer)")
    p.add_argument("--quiet", action="store_true",
                   help="no progress bar (there is none anyway when stderr is not a terminal)")
    add_output_options(p)
    p.set_defaults(handler=_calibration)


def _calibration(args: argparse.Namespace) -> str:
    keys = None if args.metrics.strip() == "all" else metric_keys(args.metrics)
    classes = comma_list(args.classes, "--classes", integer(2, MAX_CLASSES))
    keeps = comma_list(args.keeps, "--keeps", _probability)
    sizes = comma_list(args.sizes, "--sizes", integer(2, MAX_SIZE))
    result = paired_calibration(classes, keeps, sizes, keys, n_trials=args.trials,
                                alpha=args.alpha, seed=args.seed,
                                progress=progress_of(args))
    return render(result, args.format)


def _probability(text: str) -> float:
    """A probability in [0, 1]."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be a probability in [0, 1], got {text!r}")
    return value


def _level(text: str) -> float:
    """The level of a test: a probability strictly between 0 and 1."""
    value = _probability(text)
    if value in (0.0, 1.0):
        raise argparse.ArgumentTypeError(f"must be in (0, 1), e.g. 0.05, got {text!r}")
    return value
