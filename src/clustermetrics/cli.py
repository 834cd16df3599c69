"""The ``clustermetrics`` command line.

Every subcommand is one ``add_<name>_command(subparsers)`` function that registers its
parser and handler. Errors print one line, ``clustermetrics: error: ...``, and exit with
status 2; there is never a traceback for bad input.
"""

from __future__ import annotations

import argparse
import csv
import io
import os
import re
import sys
from collections.abc import Callable, Sequence

from . import __version__
from ._json import dumps
from ._progress import progress_bar
from ._text import text_table, visible
from .noise import NOISE_MODES
from .sources.engines import AUTO_DUCKDB_BYTES, ENGINES

PROG = "clustermetrics"
FORMATS = ("table", "json", "csv")


class CliError(Exception):
    """A user-facing problem: reported as one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    """argparse with one-line usage errors (argparse prints usage + message by default)."""

    def error(self, message: str):  # type: ignore[override]
        raise CliError(message)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=PROG, description="Score a clustering against a known ground truth.")
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    add_score_command(sub)
    add_metrics_command(sub)
    from .cli_experiments import add_chance_command, add_compare_command, add_demo_command
    add_compare_command(sub)
    add_demo_command(sub)
    add_chance_command(sub)
    return parser


# --------------------------------------------------------------------------- score
def add_score_command(sub) -> None:
    p = sub.add_parser(
        "score", help="score predicted labels against true labels",
        description="Score PRED against TRUTH (two files, one label per row), or two columns "
                    "of one CSV/TSV table (--true-col/--pred-col). Labels are compared as the "
                    "exact strings in the file.")
    p.add_argument("truth", metavar="TRUTH", help="true labels, or the table")
    p.add_argument("pred", metavar="PRED", nargs="?", help="predicted labels")
    p.add_argument("--true-col", action="append",
                   help="column of true labels in a one-file table; repeat it to score "
                        "against several references")
    p.add_argument("--reference", action="append", metavar="FILE", default=[],
                   help="another file of true labels (two-file form; repeatable): scores "
                        "against every reference, with the best value and the spread")
    p.add_argument("--pred-col", help="column of predicted labels in a one-file table")
    p.add_argument("--sep", help="field separator (default: tab for .tsv/.tab, else comma)")
    p.add_argument("--header", action="store_true",
                   help="label files start with a header line (two-file form)")
    p.add_argument("--metrics", help="comma-separated metric keys (default: all; see "
                                     "`clustermetrics metrics`)")
    p.add_argument("--engine", default="auto", choices=("auto",) + ENGINES,
                   help="who counts the (true, predicted) pairs: memory (Python), duckdb "
                        "(out of core) or spark (local Spark); auto = duckdb for Parquet, "
                        f"globs and tables over {AUTO_DUCKDB_BYTES >> 20} MB, else memory")
    p.add_argument("--memory-limit", help="DuckDB memory limit, e.g. 2GB (--engine duckdb)")
    p.add_argument("--drop-null", action="store_true",
                   help="skip rows whose true or predicted label is missing (NULL or blank) "
                        "instead of failing; the number skipped is reported on stderr")
    p.add_argument("--noise-label", metavar="LABEL",
                   help="predicted label marking noise points (e.g. -1 for HDBSCAN)")
    p.add_argument("--noise", choices=NOISE_MODES,
                   help="with --noise-label: noise points become one-item clusters (default) "
                        "or are excluded from both labelings")
    p.add_argument("--ci", type=float, metavar="LEVEL",
                   help="add percentile bootstrap intervals at this level, e.g. 0.95")
    p.add_argument("--n-boot", type=int,
                   help="with --ci: bootstrap replicates (default 1000)")
    p.add_argument("--seed", type=int,
                   help="with --ci: seed of the bootstrap (reproducible intervals)")
    p.add_argument("--details", nargs="?", const="10", metavar="N",
                   help="also list the N largest split errors (classes spread over clusters) "
                        "and merge errors (clusters mixing classes); N defaults to 10, 'all' "
                        "lists every class and cluster (table and json formats)")
    _add_output_options(p)
    p.set_defaults(handler=_score)


def _score(args: argparse.Namespace) -> str:
    from .evaluate import check_options, evaluate
    from .registry import resolve_metrics
    from .sources.engines import choose_engine, table_from_files

    keys = resolve_metrics(args.metrics)  # bad names and options fail before any file is read
    top = _details_count(args.details)
    if args.details is not None and args.format == "csv":
        raise CliError("--details with --format csv: the split and merge tables have no "
                       "CSV form (CSV is the score table); use --format table or json")
    check_options(noise_label=args.noise_label, noise=args.noise, ci=args.ci,
                  n_boot=args.n_boot, seed=args.seed, names=_SCORE_NAMES)
    engine = choose_engine(args.engine, args.truth, args.pred)
    if args.memory_limit and engine != "duckdb":
        raise CliError(f"--memory-limit applies to --engine duckdb, not {engine}")
    tables = {}
    for name, truth, true_col in _references(args):
        tables[name] = table_from_files(
            engine, truth, args.pred, true_col=true_col, pred_col=args.pred_col, sep=args.sep,
            header=args.header, memory_limit=args.memory_limit, drop_null=args.drop_null,
            log=_log)
    first = next(iter(tables.values()))
    noise_label = _noise_label(first, args.noise_label)
    n_boot = (args.n_boot or 1000) if args.ci is not None else None
    bar = progress_bar((n_boot or 0) * len(tables), "bootstrap", enabled=None
                       if args.ci is not None else False)
    try:
        report = evaluate(
            first if len(tables) == 1 else tables, metrics=keys, noise_label=noise_label,
            noise=args.noise if noise_label is not None else None,
            ci=args.ci, n_boot=n_boot, seed=args.seed,
            progress=lambda done, total: bar.update(1))
    finally:
        bar.close()
    if args.format == "json":
        return report.to_json(details=True, diagnostics=args.details is not None, top=top)
    if args.format == "csv":
        return report.to_csv()
    return report.format(diagnostics=0 if args.details is None else top)


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
    if len(set(cols)) != len(cols):
        raise CliError("--true-col names the same column twice")
    return [(col or "truth", args.truth, col) for col in cols]


def _same_file(a: str, b: str) -> bool:
    """Do two paths name one file (links and relative spellings resolved)?"""
    try:
        if os.path.samefile(a, b):
            return True
    except OSError:  # a glob pattern or a missing file: compare the resolved spellings
        pass
    return os.path.realpath(a) == os.path.realpath(b)


_SCORE_NAMES = {"noise_label": "--noise-label", "noise": "--noise", "ci": "--ci",
                "n_boot": "--n-boot", "seed": "--seed"}


def _details_count(value: str | None) -> int | None:
    """Rows of ``--details`` (None: all); the library's own check, under the flag's name."""
    from .diagnostics import check_top

    return None if value is None else check_top(value, "--details")


def _noise_label(table, text: str | None):
    """The predicted label written as ``text`` (labels from Parquet may be ints). A text
    that no label has is kept when the labels are text (the outputs then say 0 noise
    points); otherwise there is nothing to match, which a note says."""
    if text is None:
        return None
    labels = table.cluster_labels.tolist()
    for label in labels:
        if label == text or str(label) == text:
            return label
    _log(f"no predicted label is {text!r} (--noise-label): no noise points")
    return text if any(isinstance(label, str) for label in labels) else None


# --------------------------------------------------------------------------- metrics
def add_metrics_command(sub) -> None:
    p = sub.add_parser("metrics", help="list the registered metrics",
                       description="List every registered metric with its properties.")
    _add_output_options(p)
    p.set_defaults(handler=_metrics)


def _metric_rows() -> list[dict]:
    from .registry import METRICS

    return [{
        "key": e.key, "name": e.name, "family": e.family, "lower": e.lower, "upper": e.upper,
        "higher_is_better": e.higher_is_better, "symmetric": e.symmetric,
        "adjusted_for_chance": e.adjusted, "reference": e.reference,
    } for e in METRICS.values()]


def _metrics(args: argparse.Namespace) -> str:
    rows = _metric_rows()
    if args.format == "json":  # strict: an unbounded range's end is null
        return dumps(rows)
    if args.format == "csv":
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
        return out.getvalue()
    return _text_table(rows)


def _text_table(rows: list[dict]) -> str:
    def bound(x: float) -> str:
        return "inf" if x == float("inf") else "-inf" if x == float("-inf") else f"{x:g}"

    cells = [[r["key"], r["name"], r["family"], f"[{bound(r['lower'])}, {bound(r['upper'])}]",
              "higher" if r["higher_is_better"] else "lower", "yes" if r["symmetric"] else "no",
              "yes" if r["adjusted_for_chance"] else "no", r["reference"]] for r in rows]
    return text_table(["key", "name", "family", "range", "better", "symmetric", "adjusted",
                       "reference"], cells)


# --------------------------------------------------------------------------- plumbing
def _log(message: str, *, progress: bool = False) -> None:
    """A one-line note on stderr (control characters escaped); progress notes only when
    stderr is a terminal."""
    if progress and not sys.stderr.isatty():
        return
    print(f"{PROG}: {visible(message, backslash=False)}", file=sys.stderr, flush=True)


def _add_output_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--format", default="table", choices=FORMATS,
                   help="output format (default: table)")
    p.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout")


def _write(text: str, output: str | None) -> None:
    text = text if text.endswith("\n") else text + "\n"
    if output is None:
        sys.stdout.write(text)
        return
    with open(output, "w", encoding="utf-8") as fh:
        fh.write(text)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (0 ok, 2 bad input)."""
    parser = build_parser()
    flags: dict[str, str] = {}
    try:
        try:
            args = parser.parse_args(argv)
        except SystemExit as exc:  # --help / --version: return their status, do not exit
            return exc.code if isinstance(exc.code, int) else 0
        flags = _flags_of(parser, args.command)
        handler: Callable[[argparse.Namespace], str] = args.handler
        _write(handler(args), getattr(args, "output", None))
    except CliError as exc:
        _error_line(str(exc))
        return 2
    except (ValueError, OSError) as exc:  # the library's words: parameters become flags
        _error_line(as_flags(str(exc), flags))
        return 2
    except MemoryError:
        _error_line("out of memory: lower the sizes asked for (points, replicates, --k, "
                    "--max-pairwise)")
        return 2
    return 0


def _flags_of(parser: argparse.ArgumentParser, command: str) -> dict[str, str]:
    """Parameter name -> the flag of ``command`` that sets it (``true_col`` ->
    ``--true-col``)."""
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {a.dest: max(a.option_strings, key=len) for a in sub.choices[command]._actions
            if a.option_strings and a.dest != "help"}


def as_flags(message: str, flags: dict[str, str]) -> str:
    """A library message with the parameters it names spelled as the command's flags.

    Library errors name a parameter in parentheses, ``(true_col)`` or ``(noise
    'exclude')``, or start with it (``noise_label '-1' matches ...``); only those places
    are rewritten, so a column or file that happens to be called ``true_col`` is not.

    >>> as_flags("t.csv has no column 'x' (true_col); (noise 'exclude')",
    ...          {"true_col": "--true-col", "noise": "--noise"})
    "t.csv has no column 'x' (--true-col); (--noise 'exclude')"
    """
    def flag(match: re.Match) -> str:
        return flags.get(match.group(1), match.group(1))

    message = re.sub(r"(?<=\()(\w+)(?=\)| ')", flag, message)
    return re.sub(r"^(\w+_\w+)(?= )", flag, message)


def _error_line(message: str) -> None:
    """``clustermetrics: error: MESSAGE`` on one line. Nothing is collapsed or dropped:
    control characters (a line break included) show as escapes
    (``clustermetrics._text.visible``); user strings in messages are Python literals
    already, so backslashes are left as they are."""
    print(f"{PROG}: error: {visible(message, backslash=False)}", file=sys.stderr)
