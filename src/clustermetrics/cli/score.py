"""The ``score`` command: score predicted labels against one or several references read
from files, through the engine that fits them."""

from __future__ import annotations

import argparse
import csv
import io
import os
from dataclasses import dataclass

from ..compute.progress import progress_bar
from ..evaluation.diagnostics import check_top
from ..evaluation.evaluate import check_intervals, check_options, evaluate
from ..evaluation.inference_text import (
    bootstrap_notes,
    interval_header,
    interval_value,
    permutation_notes,
    permutation_value,
    significance_notes,
    significance_values,
)
from ..evaluation.report import MultiReport, Report
from ..inference.bootstrap import DEFAULT_METHOD, METHODS
from ..inference.noise import NOISE_MODES
from ..io.formats import FORMATS, format_of
from ..io.spark_cluster import CONNECT_TIMEOUT_S, LOCAL_MASTER, MASTER_FORMS
from ..render.json_text import dumps
from ..render.tables import Block, Column, ResultTable, blocks_text
from ..render.text import Shown, csv_text, named_twice, one_role, plural, visible
from ..scores.registry import METRICS, resolve_metrics
from .commands import SUMMARIES
from .engines import AUTO_DUCKDB_BYTES, ENGINES, choose_engine, table_from_files
from .option_values import metric_keys, numpy_seed
from .output import CliError, add_output_options, log, render

__all__ = ["add_score_command"]

# the tables every engine reads, as the format registry declares them
_TABLES = ", ".join(f"{kind.name} ({'/'.join(kind.suffixes)})" for kind in FORMATS)
_OUT_OF_CORE = ", ".join(kind.name for kind in FORMATS if kind.out_of_core)


def add_score_command(sub) -> None:
    p = sub.add_parser(
        "score", help=SUMMARIES["score"],
        description="Score PRED against TRUTH (two files, one label per row), or two columns "
                    f"of one table (--true-col/--pred-col): {_TABLES}. Labels are compared "
                    "as the file holds them (text as its exact strings).")
    p.add_argument("truth", metavar="TRUTH", help="true labels, or the table")
    p.add_argument("pred", metavar="PRED", nargs="?", help="predicted labels")
    p.add_argument("--true-col", action="append",
                   help="column of true labels in a one-file table; repeat it to score "
                        "against several references")
    p.add_argument("--reference", action="append", metavar="FILE", default=[],
                   help="another file of true labels (two-file form; repeatable): scores "
                        "against every reference, with the best value and the spread")
    p.add_argument("--pred-col", action="append",
                   help="column of predicted labels in a one-file table; repeat it to score "
                        "several runs (one column of scores each)")
    p.add_argument("--weight-col", metavar="NAME",
                   help="column of row weights in a one-file table: each row counts that "
                        "many times (non-negative numbers; 3.0 is 3); every engine sums "
                        "integers exactly, and real weights (0.5) as float sums, scores "
                        "that need whole items then left out with a note")
    p.add_argument("--sep", help="field separator (default: tab for .tsv/.tab, else comma)")
    p.add_argument("--header", action="store_true",
                   help="label files start with a header line (two-file form)")
    p.add_argument("--metrics", help="comma-separated metric keys (default: all; see "
                                     "`clustermetrics metrics`)")
    p.add_argument("--engine", default="auto", choices=("auto",) + ENGINES,
                   help="who counts the (true, predicted) pairs: memory (Python), duckdb "
                        "(out of core) or spark (local Spark, or a cluster with "
                        f"--spark-master); auto = duckdb for {_OUT_OF_CORE}, globs and "
                        f"tables over {AUTO_DUCKDB_BYTES >> 20} MB, else memory")
    p.add_argument("--memory-limit", help="DuckDB memory limit, e.g. 2GB (--engine duckdb)")
    p.add_argument("--spark-master", metavar="URL",
                   help=f"Spark master to count on (implies --engine spark): "
                        f"{', '.join(MASTER_FORMS)}; default {LOCAL_MASTER} in this process. A "
                        f"cluster must answer within {CONNECT_TIMEOUT_S:g} s, and its "
                        "executors read the files themselves: each must see them at the "
                        "same absolute path (a shared filesystem)")
    p.add_argument("--drop-null", action="store_true",
                   help="skip rows whose true or predicted label is missing (NULL or blank) "
                        "instead of failing; the number skipped is reported on stderr")
    p.add_argument("--noise-label", metavar="LABEL",
                   help="predicted label marking noise points (e.g. -1 for HDBSCAN)")
    p.add_argument("--noise", choices=NOISE_MODES,
                   help="with --noise-label: noise points become one-item clusters (default) "
                        "or are excluded from both labelings")
    p.add_argument("--ci", type=float, metavar="LEVEL",
                   help="add bootstrap intervals at this level, e.g. 0.95")
    p.add_argument("--ci-method", choices=METHODS,
                   help=f"with --ci: how replicates become an interval (default "
                        f"{DEFAULT_METHOD}; see `clustermetrics coverage`)")
    p.add_argument("--n-boot", type=int,
                   help="with --ci: bootstrap replicates (default 1000)")
    p.add_argument("--seed", type=numpy_seed,
                   help="with --ci or --permutations: seed of the bootstrap and of the "
                        "permutation test (reproducible results)")
    p.add_argument("--significance", action="store_true",
                   help="add the z-score and one-sided p-value of each score with an analytic "
                        "null (ARI, RI, SRI, FMI, pair precision/recall, ...): random "
                        "labelings with the same class and cluster sizes, exact mean and "
                        "variance, normal approximation")
    p.add_argument("--permutations", type=int, metavar="N",
                   help="add a permutation test of every score: N random tables with the "
                        "same class and cluster sizes give each score's p-value (with its "
                        "Monte Carlo standard error) and null mean and sd; --seed seeds it")
    p.add_argument("--details", nargs="?", const="10", metavar="N",
                   help="also list the N largest split errors (classes spread over clusters) "
                        "and merge errors (clusters mixing classes); N defaults to 10, 'all' "
                        "lists every class and cluster (table and json formats)")
    add_output_options(p)
    p.set_defaults(handler=_score)


def _score(args: argparse.Namespace) -> str:
    # bad names and options fail before any file is read
    keys = metric_keys(args.metrics) or resolve_metrics(None)
    top = _details_count(args.details)
    if args.details is not None and args.format == "csv":
        raise CliError("--details with --format csv: the split and merge tables have no "
                       "CSV form (CSV is the score table); use --format table or json")
    check_options(noise_label=args.noise_label, noise=args.noise, ci=args.ci,
                  n_boot=args.n_boot, seed=args.seed, n_perm=args.permutations,
                  ci_method=args.ci_method,
                  names=_SCORE_NAMES)
    if args.ci is not None:  # a named score without a bootstrap interval: before any file
        check_intervals(keys, every_score=not args.metrics)
    for what, path in (("TRUTH", args.truth), ("PRED", args.pred),
                       *(("--reference", ref) for ref in args.reference)):
        if path == "":
            raise CliError(f"{what} is an empty path; give a file")
    _check_text_flags(args)
    engine = choose_engine(args.engine, args.truth, args.pred, memory_limit=args.memory_limit,
                           master=args.spark_master)
    references = _references(args)
    pred_cols = args.pred_col or [None]
    named_twice(pred_cols, "--pred-col")
    if args.weight_col is not None and args.pred is not None:
        raise CliError("--weight-col reads a column of one table: give FILE with "
                       "--true-col and --pred-col instead of TRUTH PRED")
    for option, cols in (("--true-col", args.true_col), ("--pred-col", args.pred_col)):
        # a label column may serve as truth and prediction (a reference scored against
        # itself), never as the weights
        one_role({option: cols or [], "--weight-col": [args.weight_col] if args.weight_col
                  else []})
    if len(pred_cols) > 1 and len(references) > 1:
        raise CliError("repeat --true-col (several references) or --pred-col (several "
                       "runs), not both")
    n_boot = (args.n_boot or 1000) if args.ci is not None else None
    draws = (n_boot or 0) + (args.permutations or 0)
    what = "bootstrap" if not args.permutations else \
        "permutations" if n_boot is None else "bootstrap + permutations"
    bar = progress_bar(draws * len(references) * len(pred_cols), what,
                       enabled=None if draws else False)
    reports = {}
    try:
        for pred_col in pred_cols:
            tables = {}
            for name, truth, true_col in references:
                tables[name] = table_from_files(
                    engine, truth, args.pred, true_col=true_col, pred_col=pred_col,
                    sep=args.sep, header=args.header, memory_limit=args.memory_limit,
                    drop_null=args.drop_null, log=log, weight_col=args.weight_col,
                    master=args.spark_master)
            first = next(iter(tables.values()))
            noise_label = _noise_label(first, args.noise_label,
                                       f" in {pred_col!r}" if len(pred_cols) > 1 else "")
            reports[pred_col] = evaluate(
                first if len(tables) == 1 else tables, metrics=keys if args.metrics else None,
                noise_label=noise_label,
                noise=args.noise if noise_label is not None else None,
                ci=args.ci, n_boot=n_boot, seed=args.seed, significance=args.significance,
                n_perm=args.permutations, ci_method=args.ci_method,
                progress=lambda done, total: bar.update(1))
    finally:
        bar.close()
    if len(reports) > 1:
        return render(RunsOutput(reports, args.details is not None, top), args.format)
    return render(ScoreOutput(reports[pred_cols[0]], args.details is not None, top),
                  args.format)


@dataclass(frozen=True)
class RunsOutput:
    """Several runs (prediction columns) against one truth: one column of scores per run
    in the table, every run's report in JSON (``runs``), one CSV row per run and score."""

    reports: dict[str, Report]
    details: bool
    top: int | None

    def blocks(self) -> list[Block]:
        reports = self.reports
        first = next(iter(reports.values()))
        columns = [Column("metric"), Column("score"),
                   *(Column(name, " .6f") for name in reports)]
        if first.intervals:
            # the method is in the notes: one column per run need not repeat it
            columns += [Column(f"{name} {interval_header(first.bootstrap, short=True)}",
                               align="left") for name in reports]
        if first.significance is not None:
            columns += [Column(f"{name} {col}", fmt, missing="") for name in reports
                        for col, fmt in (("z", ".3f"), ("p-value", ""))]
        if first.permutation is not None:
            columns += [Column(f"{name} permutation p-value") for name in reports]
        rows = []
        for k in first:
            row = [k, METRICS[k].name, *(r[k] for r in reports.values()),
                   *(interval_value(r.intervals, k) for r in reports.values() if r.intervals)]
            if first.significance is not None:
                row += [cell for r in reports.values()
                        for cell in significance_values((r.significance or {}).get(k))]
            if first.permutation is not None:
                row += [permutation_value(r.permutation[k]) for r in reports.values()
                        if r.permutation is not None]
            rows.append(row)
        # the names with the values, intervals, z and p, permutation p: a group each
        runs = len(reports)
        kinds = [1 + runs, *([runs] if first.intervals else []),
                 *([2 * runs] if first.significance is not None else []),
                 *([runs] if first.permutation is not None else [])]
        heading = Shown(f"{plural(len(reports), 'run')}: " + "; ".join(
            f"{visible(name)} ({r.summary()})" for name, r in reports.items()))
        table = ResultTable(columns, rows, heading, self._notes(), keep=1, groups=kinds,
                            indent=2)
        out: list[Block] = [table]
        if self.details:
            for name, r in reports.items():
                out += [Shown(f"run {visible(name)}:"), *r.diagnostics.blocks(self.top)]
        return out

    def _notes(self) -> list[str]:
        """A note of every run once, the others prefixed with their run."""
        own = {name: [*bootstrap_notes(r.intervals, r.bootstrap, r.table, r),
                      *significance_notes(r.significance), *permutation_notes(r.permutation)]
               for name, r in self.reports.items()}
        notes: dict[str, None] = {}
        for name, run_notes in own.items():
            for note in run_notes:
                shared = all(note in other for other in own.values())
                notes[note if shared else f"{visible(name)}: {note}"] = None
        return list(notes)

    def format(self) -> str:
        return blocks_text(self.blocks())

    def to_json(self) -> str:
        return dumps({"runs": {name: r.to_dict(details=True, diagnostics=self.details,
                                               top=self.top)
                               for name, r in self.reports.items()}})

    def to_csv(self) -> str:
        header: dict[str, None] = {"pred": None}
        records = []
        for name, r in self.reports.items():  # a run without noise points lacks noise columns
            reader = csv.DictReader(io.StringIO(r.to_csv()))
            header.update(dict.fromkeys(reader.fieldnames or []))
            records += [dict(row, pred=name) for row in reader]
        return csv_text([list(header), *([row.get(f, "") for f in header] for row in records)])


@dataclass(frozen=True)
class ScoreOutput:
    """A report as ``score`` prints it: JSON with every detail, the split and merge
    tables (``--details``) in the table and JSON forms."""

    report: Report | MultiReport
    details: bool
    top: int | None

    def blocks(self) -> list[Block]:
        return self.report.blocks(diagnostics=self.top if self.details else 0)

    def format(self) -> str:
        return blocks_text(self.blocks())

    def to_json(self) -> str:
        return self.report.to_json(details=True, diagnostics=self.details, top=self.top)

    def to_csv(self) -> str:
        return self.report.to_csv()


def _references(args: argparse.Namespace) -> list[tuple[str, str, str | None]]:
    """(name, file, true column) of each reference the score command compares with."""
    if args.pred is not None:
        if args.true_col or args.pred_col:
            raise CliError("give either two label files, or one table with --true-col and "
                           "--pred-col, not both (--reference adds label files)")
        paths = [args.truth, *args.reference]
        for i, path in enumerate(paths[1:], 1):
            for j, earlier in enumerate(paths[:i]):
                if _same_file(path, earlier):
                    what = "TRUTH" if j == 0 else f"the --reference {earlier!r}"
                    raise CliError(f"--reference {path!r} names the same file as {what}: "
                                   "each reference is scored once")
        return [(path, path, None) for path in paths]
    if args.reference:
        raise CliError("--reference adds label files in the two-file form (TRUTH PRED); "
                       "repeat --true-col to compare with several columns of one table")
    cols = args.true_col or [None]
    named_twice(cols, "--true-col")
    return [(col or "truth", args.truth, col) for col in cols]


def _check_text_flags(args: argparse.Namespace) -> None:
    """--header and --sep say how to read text files: where they cannot apply they are an
    error rather than silently ignored."""
    if args.header and args.pred is None:
        raise CliError("--header applies to the two-file form (TRUTH PRED); a table read "
                       "with --true-col/--pred-col always starts with its header line")
    if args.sep is not None or args.header:
        for path in (args.truth, args.pred, *args.reference):
            kind = format_of(path) if path is not None else None
            if kind is not None and not kind.delimited:
                flag = "--sep" if args.sep is not None else "--header"
                raise CliError(f"{flag} applies to delimited text files; {path} is {kind.name}")


def _same_file(a: str, b: str) -> bool:
    """Do two paths name one file (links and relative spellings resolved)?"""
    try:
        if os.path.samefile(a, b):
            return True
    except OSError:  # a glob pattern or a missing file: compare the resolved spellings
        pass
    return os.path.realpath(a) == os.path.realpath(b)


_SCORE_NAMES = {"noise_label": "--noise-label", "noise": "--noise", "ci": "--ci",
                "n_boot": "--n-boot", "seed": "--seed", "n_perm": "--permutations",
                "ci_method": "--ci-method"}


def _details_count(value: str | None) -> int | None:
    """Rows of ``--details`` (None: all); the library's own check, under the flag's name."""
    return None if value is None else check_top(value, "--details")


def _noise_label(table, text: str | None, where: str = ""):
    """The predicted label written as ``text`` (labels from Parquet may be ints). A text
    that no label has is kept when the labels are text (the outputs then say 0 noise
    points); otherwise there is nothing to match, which a note says."""
    if text is None:
        return None
    labels = table.cluster_labels.tolist()
    for label in labels:
        if label == text or str(label) == text:
            return label
    log(f"no predicted label{where} is {text!r} (--noise-label): no noise points")
    return text if any(isinstance(label, str) for label in labels) else None
