"""The ``hierarchy`` command: every cut of a dendrogram scored against the truth, the
best cut per score printed, the curves drawn with ``--report``."""

from __future__ import annotations

import argparse
import os

import numpy as np

from ..experiments.datasets import read_dataset
from ..experiments.hierarchy_study import LINKAGE_METHODS, curve_sections, linkage_tree, score_curve
from ..hierarchy.cuts import updatable_metrics
from ..io.files import read_label_file
from .commands import SUMMARIES
from .option_values import comma_list, integer, metric_keys
from .options import add_run_options, with_extras, write_page
from .output import CliError, add_output_options, render

__all__ = ["add_hierarchy_command"]


def add_hierarchy_command(sub) -> None:
    p = sub.add_parser(
        "hierarchy", help=SUMMARIES["hierarchy"],
        description="Build a dendrogram of DATA (scipy linkage, Euclidean) or read one "
                    "(--linkage Z.npy with --truth), score every cut from 1 to N clusters "
                    "in one pass and print each score's best cut.")
    p.add_argument("data", nargs="?", metavar="DATA",
                   help="table file of features and the truth column (of any format "
                        "score reads)")
    p.add_argument("--true-col", help="the ground-truth column of DATA")
    p.add_argument("--features", help="comma-separated feature columns of DATA (default: "
                                      "every column but the truth)")
    p.add_argument("--sep", help="field separator of DATA (default: tab for .tsv, else ,)")
    p.add_argument("--method", choices=LINKAGE_METHODS,
                   help="linkage method for DATA (default ward)")
    p.add_argument("--linkage", metavar="Z.npy",
                   help="a scipy linkage matrix saved with numpy.save, instead of DATA")
    p.add_argument("--truth", metavar="FILE",
                   help="true labels of --linkage's points, one per line")
    p.add_argument("--metrics", help="comma-separated score keys (default: every score "
                                     "updatable merge by merge, and AMI)")
    p.add_argument("--k", help="comma-separated cuts at which the scores that are not "
                               "updatable are also computed (besides the best cuts and "
                               "the true number of classes)")
    add_run_options(p)
    add_output_options(p)
    p.set_defaults(handler=with_extras(_hierarchy))


def _hierarchy(args: argparse.Namespace) -> str:
    metrics = metric_keys(args.metrics)
    cuts = [] if args.k is None else comma_list(args.k, "--k", integer(1))
    if args.linkage is not None:
        if args.data is not None:
            raise CliError("give DATA or --linkage, not both")
        if args.truth is None:
            raise CliError("--linkage needs --truth (the true label of each point)")
        for option, value in (("--true-col", args.true_col), ("--features", args.features),
                              ("--sep", args.sep), ("--method", args.method)):
            if value is not None:
                raise CliError(f"{option} applies to DATA, not to --linkage")
        truth = read_label_file(args.truth)
        try:
            tree = np.load(args.linkage, allow_pickle=False)
        except (OSError, ValueError, EOFError) as exc:
            raise CliError(f"--linkage {args.linkage}: not a numpy .npy file ({exc})") from None
        source = os.path.basename(args.linkage)
    else:
        if args.data is None:
            raise CliError("give DATA (with --true-col) or --linkage Z.npy with --truth")
        if args.truth is not None:
            raise CliError("--truth applies to --linkage; DATA has its --true-col")
        if not args.true_col:
            raise CliError("DATA needs --true-col (the ground-truth column)")
        features = comma_list(args.features, "--features") if args.features else None
        dataset = read_dataset(args.data, args.true_col, feature_cols=features, sep=args.sep,
                             names={"sep": "--sep", "label_col": "--true-col",
                                    "feature_cols": "--features"})
        method = args.method or "ward"
        tree = linkage_tree(dataset.X, method)
        truth, source = dataset.y, f"{dataset.name}, {method} linkage"
    if metrics is None:
        metrics = [*updatable_metrics(), "ami"]
    too_big = [c for c in cuts if c > len(truth)]
    if too_big:
        raise CliError(f"--k must be at most the number of points ({len(truth)}), got "
                       f"{too_big[0]}")
    try:
        result = score_curve(truth, tree, source, metrics, cuts)
    except ValueError as exc:
        tree_name = "--linkage" if args.linkage else "the tree"
        raise CliError(str(exc).replace("tree", tree_name, 1).replace(
            "labels_true", "--truth" if args.linkage else "DATA")) from None
    if args.report:
        write_page(args.report, "clustermetrics hierarchy: every cut scored",
                   lambda: curve_sections(result),
                   "Every cut of a dendrogram scored against the truth in one pass (each "
                   "merge joins two columns of the contingency table).")
    return render(result, args.format)
