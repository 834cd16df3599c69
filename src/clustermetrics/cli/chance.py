"""The ``chance`` command: scikit-learn's chance-level experiments for every registered
score."""

from __future__ import annotations

import argparse

from ..experiments.chance import SETUPS, ChanceResult, chance_study
from ..experiments.pages import chance_sections
from .commands import SUMMARIES
from .option_values import integer, metric_keys, numpy_seed
from .options import add_run_options, progress_of, with_extras, write_page
from .output import add_output_options, render

__all__ = ["add_chance_command"]

MAX_REPEATS = 100_000


def add_chance_command(sub) -> None:
    p = sub.add_parser(
        "chance", help=SUMMARIES["chance"],
        description="scikit-learn's chance-level experiments for every registered score: "
                    "two independent random labelings (100 samples, k = 2 ... 100), and "
                    "random labelings against a fixed 10-class truth (1,000 samples).")
    p.add_argument("--metrics", help="comma-separated score keys (default: all)")
    p.add_argument("--repeats", type=integer(1, MAX_REPEATS), default=5,
                   help="random draws per k (default 5)")
    p.add_argument("--points", type=integer(1, 99), default=10,
                   help="values of k between 2 and 100 (default 10, at most 99)")
    p.add_argument("--experiment", choices=("both", "equal", "fixed"), default="both",
                   help="equal: two labelings with k clusters each; fixed: against a fixed "
                        "10-class truth (default both)")
    p.add_argument("--seed", type=numpy_seed, default=42,
                   help="random seed (default 42; any non-negative integer)")
    add_run_options(p)
    add_output_options(p)
    p.set_defaults(handler=with_extras(_chance))


def _chance(args: argparse.Namespace) -> str:
    metrics = metric_keys(args.metrics)
    setups = [s for s in SETUPS if args.experiment in ("both", s.key)]
    curves = chance_study(metrics, setups=setups, n_repeats=args.repeats,
                          n_points=args.points, seed=args.seed, progress=progress_of(args))
    if args.report:
        write_page(args.report, "clustermetrics chance: scores of random labelings",
                      lambda: chance_sections(curves))
    return render(ChanceResult(curves), args.format)
