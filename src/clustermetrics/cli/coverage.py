"""The ``coverage`` command: how often each bootstrap interval method holds the
population's score, on simulated populations of known scores."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from ..experiments.coverage import DEFAULT_KEYS, DEFAULT_SIZES, SHAPES, coverage_study
from ..experiments.pages import coverage_sections
from ..inference.bootstrap import METHODS
from .commands import SUMMARIES
from .option_values import comma_list, confidence_level, integer, metric_keys, numpy_seed
from .options import add_run_options, progress_of, with_extras, write_page
from .output import add_output_options, render

__all__ = ["add_coverage_command"]

MAX_TABLES = 100_000
MAX_SIZE = 10**9


def add_coverage_command(sub) -> None:
    p = sub.add_parser(
        "coverage", help=SUMMARIES["coverage"],
        description="Draw populations with known scores (classes uniform; each item kept in "
                    "its own cluster with some probability, else put in a random cluster), "
                    "take samples of each size, and count how often each interval method "
                    "holds the population score. Prints coverage and mean width per score, "
                    "method, shape and sample size.")
    p.add_argument("--metrics", default=",".join(DEFAULT_KEYS),
                   help=f"comma-separated score keys (default {','.join(DEFAULT_KEYS)})")
    p.add_argument("--shapes", default=",".join(SHAPES),
                   help=f"comma-separated table shapes, of: {', '.join(SHAPES)} (default all)")
    p.add_argument("--sizes", default=",".join(map(str, DEFAULT_SIZES)),
                   help="comma-separated sample sizes (default "
                        f"{','.join(map(str, DEFAULT_SIZES))})")
    p.add_argument("--methods", default=",".join(METHODS),
                   help=f"comma-separated interval methods (default {','.join(METHODS)})")
    p.add_argument("--tables", type=integer(1, MAX_TABLES), default=100,
                   help="samples per shape and size (default 100)")
    p.add_argument("--n-boot", type=integer(2, 1_000_000), default=200,
                   help="bootstrap replicates per sample (default 200)")
    p.add_argument("--level", type=confidence_level, default=0.95,
                   help="confidence level (default 0.95)")
    p.add_argument("--population", type=integer(2, MAX_SIZE), default=10**6,
                   help="items in each population (default 1000000)")
    p.add_argument("--seed", type=numpy_seed, default=0,
                   help="random seed (default 0; any non-negative integer)")
    add_run_options(p)
    add_output_options(p)
    p.set_defaults(handler=with_extras(_coverage))


def _coverage(args: argparse.Namespace) -> str:
    keys = metric_keys(args.metrics)
    shapes = comma_list(args.shapes, "--shapes", _known(SHAPES))
    methods = comma_list(args.methods, "--methods", _known(METHODS))
    sizes = comma_list(args.sizes, "--sizes", integer(2, MAX_SIZE))
    result = coverage_study(shapes, sizes, keys, methods=methods, n_tables=args.tables,
                            n_boot=args.n_boot, level=args.level,
                            population=args.population, seed=args.seed,
                            progress=progress_of(args))
    if args.report:
        write_page(args.report, "clustermetrics coverage: bootstrap intervals",
                   lambda: coverage_sections(result))
    return render(result, args.format)


def _known(known) -> Callable[[str], str]:
    """A parser of one value of a comma list: one of ``known``."""
    def parse(name: str) -> str:
        if name not in known:
            raise ValueError(f"unknown {name!r}; known: {', '.join(known)}")
        return name
    return parse
