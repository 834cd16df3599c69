"""The ``paired`` command: is clustering A better than clustering B on the same truth?"""

from __future__ import annotations

import argparse

from ..evaluation.paired import DEFAULT_PAIRED, paired_comparison
from ..experiments.pages import paired_sections
from ..inference.noise import NOISE_MODES
from ..io.files import read_label_file, read_labels, read_weighted_labels
from ..io.formats import format_of
from ..io.weights import text_weights
from ..render.text import one_role
from .commands import SUMMARIES
from .engines import FLAGS
from .option_values import confidence_level, metric_keys
from .options import add_run_options, progress_of, write_page
from .output import CliError, add_output_options, log, render

__all__ = ["add_paired_command"]


def add_paired_command(sub) -> None:
    p = sub.add_parser(
        "paired", help=SUMMARIES["paired"],
        description="Score two clusterings A and B of the same items against one truth and "
                    "test their difference with a paired jackknife over items: the "
                    "difference, its t interval and the two-sided p-value of the same "
                    "rule per score (p < 1 - level exactly when the interval excludes 0), "
                    "or a flag where the test cannot judge. Three files with one label "
                    "per row, or one table with --true-col, --a-col and --b-col.")
    p.add_argument("truth", metavar="TRUTH", help="true labels, or the table")
    p.add_argument("a", metavar="A", nargs="?", help="labels of clustering A")
    p.add_argument("b", metavar="B", nargs="?", help="labels of clustering B")
    p.add_argument("--true-col", help="column of true labels in a one-file table")
    p.add_argument("--a-col", help="column of clustering A in a one-file table")
    p.add_argument("--b-col", help="column of clustering B in a one-file table")
    p.add_argument("--weight-col", metavar="NAME",
                   help="column of row weights in a one-file table: each row counts that "
                        "many times in the scores; the jackknife leaves out rows, each "
                        "with its weight")
    p.add_argument("--sep", help="field separator (default: tab for .tsv/.tab, else comma)")
    p.add_argument("--header", action="store_true",
                   help="label files start with a header line (three-file form)")
    p.add_argument("--metrics", default=None,
                   help=f"comma-separated score keys (default: {','.join(DEFAULT_PAIRED)}; "
                        "with real weights, those that need whole items are left out)")
    p.add_argument("--ci", type=confidence_level, default=0.95,
                   help="level of the intervals of the differences; the test's level is "
                        "1 - CI (default 0.95)")
    p.add_argument("--noise-label", metavar="LABEL",
                   help="predicted label marking noise points in A and B (e.g. -1)")
    p.add_argument("--noise", choices=NOISE_MODES, default="singletons",
                   help="with --noise-label: one-item clusters (default) or excluded")
    p.add_argument("--names", default="A,B", help="names of A and B in the output "
                                                  "(default: A,B; or the column names)")
    # the paired bootstrap's options (before version 0.2): accepted with a note until 0.3
    p.add_argument("--n-boot", help=argparse.SUPPRESS)
    p.add_argument("--seed", help=argparse.SUPPRESS)
    add_run_options(p)
    add_output_options(p)
    p.set_defaults(handler=_paired)


def _labels(args: argparse.Namespace):
    columns = (args.true_col, args.a_col, args.b_col)
    for path in (args.truth, args.a, args.b):
        kind = format_of(path) if path is not None else None
        if kind is not None and not kind.delimited:
            raise CliError(f"{path} is a {kind.name} file: paired reads CSV/TSV tables and "
                           "text label files (export the three columns, or use "
                           "clustermetrics.paired_comparison on the columns)")
    if any(columns):
        if not all(columns) or args.a or args.b:
            raise CliError("a one-file table needs --true-col, --a-col and --b-col, and no "
                           "A or B file")
        if args.header:
            raise CliError("--header applies to the three-file form (TRUTH A B); a one-file "
                           "table always starts with its header line")
        for option, col in (("--true-col", args.true_col), ("--a-col", args.a_col),
                            ("--b-col", args.b_col)):  # labels, never the weights
            one_role({option: [col], "--weight-col": [args.weight_col] if args.weight_col
                      else []})
        names = {**FLAGS, "pred_col": "--a-col"}
        weights = None
        if args.weight_col is not None:
            t, a, w = read_weighted_labels(args.truth, args.true_col, args.a_col,
                                           args.weight_col, sep=args.sep, names=names)
            # one value per item: paired_comparison resamples the items
            weights = text_weights(w, args.truth, args.weight_col,
                                   "--weight-col").item_values()
        else:
            t, a = read_labels(args.truth, true_col=args.true_col, pred_col=args.a_col,
                               sep=args.sep, names=names)
        _, b = read_labels(args.truth, true_col=args.true_col, pred_col=args.b_col,
                           sep=args.sep, names={**FLAGS, "pred_col": "--b-col"})
        return t, a, b, (args.a_col, args.b_col), weights
    if args.weight_col is not None:
        raise CliError("--weight-col reads a column of one table: give it with --true-col, "
                       "--a-col and --b-col")
    if not (args.a and args.b):
        raise CliError("give three label files TRUTH A B, or one table with --true-col, "
                       "--a-col and --b-col")
    files = [read_label_file(f, sep=args.sep, header=args.header)
             for f in (args.truth, args.a, args.b)]
    for what, path, labels in (("A", args.a, files[1]), ("B", args.b, files[2])):
        if labels.shape[0] != files[0].shape[0]:
            raise CliError(f"TRUTH ({args.truth}) has {files[0].shape[0]} labels but {what} "
                           f"({path}) has {labels.shape[0]}: the files must label the same "
                           "items, one per line")
    return (*files, None, None)


def _paired(args: argparse.Namespace) -> str:
    if args.n_boot is not None or args.seed is not None:
        log("note: --n-boot and --seed no longer apply: the paired comparison is a "
            "deterministic jackknife since version 0.2 (ignored; removed in 0.3)")
    if args.noise != "singletons" and args.noise_label is None:
        raise CliError("--noise needs --noise-label (which predicted label is noise?)")
    t, a, b, columns, weights = _labels(args)
    names = tuple(args.names.split(",")) if args.names != "A,B" or columns is None \
        else columns
    if names == columns and columns[0] == columns[1]:  # one column as A and B: difference 0
        names = (f"{columns[0]} (A)", f"{columns[1]} (B)")
    if len(names) != 2 or not all(names) or names[0] == names[1]:
        raise CliError(f"--names must be two different names separated by a comma, got "
                       f"{args.names!r}")
    metrics = DEFAULT_PAIRED if args.metrics is None else metric_keys(args.metrics)
    result = paired_comparison(t, a, b, metrics, ci=args.ci,
                                 noise_label=args.noise_label, noise=args.noise, names=names,
                                 progress=progress_of(args), sample_weight=weights)
    if args.report:
        write_page(args.report, "clustermetrics paired", lambda: paired_sections(result))
    return render(result, args.format)
