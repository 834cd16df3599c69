"""The install users make and the first calls they run, against scikit-learn's ARI.

``pip install clustermetrics`` brings numpy, scipy and numba and nothing else; this script
measures what that install gives, each figure a ratio to scikit-learn's
``adjusted_rand_score`` on the same labels, timed side by side in the same process (best
of repeats; the peer's best of runs taken before and after ours, so that load drift
counts against us), and prints it with its limit and PASS or FAIL:

  1 readme   ``evaluate(truth, pred, ci=0.95)`` (every score, 1,000 bootstrap
             replicates) on the README's 8 items: the first call in a fresh process with
             an empty numba cache, and the best of repeats, <= 1,000x; at N = 1,000 (truth
             and prediction uniform over 10 labels, several seeds) <= 2,000x
  2 small    every registered score's function, called on labels, on the 8 items and at
             N = 1,000 (10 x 10 uniform labels) <= 10x
  3 compile  in a fresh process with an empty numba cache (NUMBA_CACHE_DIR), the first
             call costs at most 3 s more than the second: every score on the
             uniform-noise labels (N = 10^6, each side uniform over 10^5 labels),
             ``evaluate(ci=0.95)`` at N = 1,000, ``paired_comparison``,
             ``score_hierarchy`` on a 10^6-point tree (10^5 with --quick) and
             ``permutation_test`` (--quick: a representative subset of the scores)
  4 zoo      on every shape of bench_shapes.py at N = 10^6, several seeds: every score's
             function on labels <= 10x, ``evaluate`` of every score <= 30x (the worst
             seed is reported, so that a cliff cannot hide behind a lucky draw)
  5 import   ``python -c "import clustermetrics"`` and ``clustermetrics --help`` <=
             2.5x ``python -c "import numpy, scipy"`` (fresh processes, best of 5)

The scores measured are read from ``clustermetrics.METRICS`` when the script runs
(:func:`target_keys`), so a newly registered score is measured without editing this file.
The install is recorded (editable or plain, numpy / scipy / numba versions, which extras
are present); figures from anything but a plain install come with a warning.

    make bench-defaults                                     # fresh plain venv, --check
    python benchmarks/bench_defaults.py --quick             # ~20 min on 2 cores at load 6
    python benchmarks/bench_defaults.py --targets 2,5 --json out.json --check
"""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
import warnings
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

import clustermetrics as cm

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # imported by the tests too
from bench_shapes import SHAPES, shape_labels  # noqa: E402

README_TRUTH = ["cat", "cat", "cat", "dog", "dog", "eel", "eel", "eel"]
README_PRED = [0, 0, 1, 1, 1, 2, 2, 2]

README_LIMIT = 1000.0      # target 1, the README example
SMALL_EVALUATE_LIMIT = 2000.0  # target 1 at N = 1,000
SCORE_LIMIT = 10.0         # targets 2 and 4, one score
ZOO_EVALUATE_LIMIT = 30.0  # target 4, evaluate of every score
COMPILE_LIMIT_S = 3.0      # target 3, first call minus second call
IMPORT_LIMIT = 2.5         # target 5

# --quick's subset for target 3: the set-matching scores whose first call on the noise
# table loads the compiled matchings (the assignment, the maximum-cardinality matching),
# and scores whose kernels load only in repeated work there (AMI's expected-MI sum, SMI's
# sampled null; evaluate(ci=0.95), paired_comparison and permutation_test repeat it).
# The full run measures every registered score.
QUICK_COMPILE_KEYS = ["ari", "nmi", "ami", "recovery_rate", "clustering_accuracy",
                      "pseudo_recovery_rate", "psi", "smi"]
QUICK_SHAPES = ["uniform", "entity", "chain_perm"]
TARGETS = ("1", "2", "3", "4", "5")


@dataclass
class Row:
    """One measured figure against its limit (``unit`` "x": a ratio to scikit-learn's
    ARI on the same labels; "s": seconds)."""

    target: str
    case: str
    value: float
    limit: float
    unit: str
    detail: str = ""

    @property
    def ok(self) -> bool:
        return bool(self.value <= self.limit)

    def line(self) -> str:
        value = f"{self.value:10.2f}{self.unit}"
        limit = f"{self.limit:g}{self.unit}"
        status = "PASS" if self.ok else "FAIL"
        return f"[{self.target}] {self.case:<56} {value} <= {limit:<6} {status}  {self.detail}"


# ---------------------------------------------------------------- what is measured


def target_keys(quick: bool = False) -> dict[str, list[str]]:
    """The registry keys each per-score target measures, read from the registry now."""
    every = list(cm.METRICS)
    first_calls = [k for k in QUICK_COMPILE_KEYS if k in cm.METRICS] if quick else every
    return {"2 small": every, "3 compile": first_calls, "4 zoo": every}


def score_call(key: str, labels_true: Any, labels_pred: Any) -> Callable[[], float]:
    """What a user calls for one score: its function, on labels, with its entry's options
    (the variants of a function, NMI with ``average_method="max"``, are their options)."""
    entry = cm.METRICS[key]
    return lambda: float(entry.func(labels_true, labels_pred, **entry.options))


def uniform_labels(n: int, k: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return rng.integers(0, k, n), rng.integers(0, k, n)


def sorted_tree(labels_true: np.ndarray) -> np.ndarray:
    """A scipy linkage matrix over ``labels_true``'s items: items ordered by class, then
    neighbours merged pairwise level by level (heights 1, 2, ...), so the lower cuts split
    classes and the upper ones merge them. Building it is O(N); a real linkage of 10^6
    points (scipy's is O(N^2)) would cost minutes before anything is measured."""
    n = labels_true.shape[0]
    ids = np.argsort(labels_true, kind="stable")
    sizes = np.ones(2 * n - 1)
    levels, next_id, height = [], n, 0.0
    while ids.shape[0] > 1:
        height += 1.0
        pairs = ids.shape[0] // 2
        left, right = ids[0:2 * pairs:2], ids[1:2 * pairs:2]
        new = next_id + np.arange(pairs)
        sizes[new] = sizes[left] + sizes[right]
        levels.append(np.column_stack([left, right, np.full(pairs, height), sizes[new]]))
        ids = np.concatenate([new, ids[2 * pairs:]])
        next_id += pairs
    return np.concatenate(levels).astype(np.float64)


def first_call_cases(quick: bool) -> list[str]:
    """Target 3's cases, each run in its own fresh process."""
    keys = target_keys(quick)["3 compile"]
    return [f"score:{k}" for k in keys] + ["evaluate_ci", "compare", "hierarchy",
                                           "permutation"]


def first_call_work(case: str, quick: bool) -> tuple[str, Callable[[], object]]:
    """(description, the call) of one target-3 case; its data is built here, untimed."""
    if case.startswith("score:"):
        key = case.split(":", 1)[1]
        t, p = shape_labels("uniform", 10**6, 0)
        return f"{key}, N = 1e6, 1e5 x 1e5 labels", score_call(key, t, p)
    if case == "evaluate_ci":
        t, p = uniform_labels(1000, 10, 0)
        return "evaluate(ci=0.95), N = 1e3, 10 x 10", lambda: cm.evaluate(t, p, ci=0.95)
    if case == "compare":
        t, a = uniform_labels(10**4, 100, 0)
        b = np.where(np.random.default_rng(1).random(t.shape[0]) < 0.5, t, a)
        return ("paired_comparison, N = 1e4, 100 x 100",
                lambda: cm.paired_comparison(t, a, b))
    if case == "hierarchy":
        n = 10**5 if quick else 10**6
        y = np.random.default_rng(0).integers(0, 10, n)
        tree = sorted_tree(y)
        return f"score_hierarchy, {n:.0e}-point tree", lambda: cm.score_hierarchy(y, tree)
    if case == "permutation":
        t, p = uniform_labels(10**5, 10**4, 0)
        return ("permutation_test(ari), N = 1e5, 1e4 x 1e4",
                lambda: cm.permutation_test(t, p, n_perm=999, seed=0))
    raise ValueError(f"unknown first-call case {case!r}")


# ---------------------------------------------------------------- timing


def timed(call: Callable[[], object]) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def best(call: Callable[[], object], repeats: int, budget: float) -> float:
    """Best of up to ``repeats`` runs, stopping early when another run would take the
    total past ``budget`` seconds (a slow call runs once)."""
    times = [timed(call)]
    while len(times) < repeats and sum(times) + times[-1] <= budget:
        times.append(timed(call))
    return min(times)


def peer_ari(labels_true: Any, labels_pred: Any, repeats: int) -> Callable[[], float]:
    """scikit-learn's ARI on the same labels: call the result for its best time."""
    from sklearn.metrics import adjusted_rand_score

    def run() -> float:
        return best(lambda: adjusted_rand_score(labels_true, labels_pred), repeats, 5.0)
    return run


def side_by_side(ours: Callable[[], object], labels_true: Any, labels_pred: Any,
                 repeats: int, budget: float, peer_repeats: int) -> tuple[float, float]:
    """(our best seconds, the peer's best of runs before and after ours)."""
    peer = peer_ari(labels_true, labels_pred, peer_repeats)
    before = peer()
    mine = best(ours, repeats, budget)
    return mine, min(before, peer())


# ---------------------------------------------------------------- the install


def _installed(name: str) -> str | None:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def install_info() -> dict[str, Any]:
    """Which clustermetrics runs: how it is installed ("plain": a regular install in
    site-packages; "editable"; "source tree": imported from a directory on sys.path such
    as PYTHONPATH=src), where from, the versions that matter, and the extras present."""
    imported = Path(cm.__file__).resolve().parent
    info: dict[str, Any] = {
        "install": "source tree", "clustermetrics": cm.__version__,
        "imported_from": str(imported), "python": sys.version.split()[0],
        "numpy": _installed("numpy"), "scipy": _installed("scipy"),
        "numba": _installed("numba"), "scikit-learn": _installed("scikit-learn"),
        "pandas_importable": importlib.util.find_spec("pandas") is not None,
        "kernels_env": os.environ.get("CLUSTERMETRICS_KERNELS"), "cpus": os.cpu_count(),
        "extras_present": []}
    site = {Path(sysconfig.get_paths()[k]).resolve() for k in ("purelib", "platlib")}
    for dist in importlib.metadata.distributions(name="clustermetrics"):
        direct = json.loads(dist.read_text("direct_url.json") or "{}")
        source = direct.get("url", "").removeprefix("file://")
        if direct.get("dir_info", {}).get("editable") and source \
                and imported.is_relative_to(Path(source).resolve()):
            info["install"] = "editable"
        elif Path(str(dist.locate_file("clustermetrics"))).resolve() == imported \
                and imported.parent in site:
            info["install"] = "plain"
        else:
            continue
        names = {req: re.match(r"[A-Za-z0-9._-]+", req).group(0)  # type: ignore[union-attr]
                 for req in dist.requires or []}
        needed = {name for req, name in names.items() if "extra ==" not in req}
        # scikit-learn is the peer, installed beside ours on purpose
        optional = set(names.values()) - needed - {"scikit-learn"}
        info["extras_present"] = sorted(e for e in optional if _installed(e))
        break
    return info


def install_warnings(info: dict[str, Any]) -> list[str]:
    """Why ``info`` is not the plain install (``pip install clustermetrics``), if it is not."""
    out = []
    if info["install"] != "plain":
        out.append(f"clustermetrics is imported from {info['imported_from']} "
                   f"({info['install']})")
    if info["extras_present"]:
        out.append(f"{len(info['extras_present'])} packages of clustermetrics' extras are "
                   f"installed ({', '.join(info['extras_present'])})")
    elif info["install"] != "plain" and info["pandas_importable"]:
        out.append("pandas (an extra) is importable")
    if info["numba"] is None:
        out.append("numba is missing, a dependency of the plain install")
    if info["kernels_env"] not in (None, "auto"):
        out.append(f"CLUSTERMETRICS_KERNELS={info['kernels_env']} is not the default")
    return out


# ---------------------------------------------------------------- fresh processes


def child_env(cache: str) -> dict[str, str]:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache)
    env.pop("CLUSTERMETRICS_KERNELS", None)  # the defaults are measured
    return env


def run_child(case: str, quick: bool, repeats: int) -> dict[str, Any]:
    """Run ``case`` in a fresh interpreter with an empty numba cache; its JSON result."""
    cache = tempfile.mkdtemp(prefix="bench-defaults-numba-")
    try:
        cmd = [sys.executable, os.path.abspath(__file__), "--child", case,
               "--repeats", str(repeats)] + (["--quick"] if quick else [])
        done = subprocess.run(cmd, env=child_env(cache), capture_output=True, text=True,
                              cwd=tempfile.gettempdir())
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    if done.returncode != 0:
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return {"error": f"exit {done.returncode}: {tail}"}
    return json.loads(done.stdout.strip().splitlines()[-1])


def child_main(case: str, quick: bool, repeats: int) -> None:
    """Inside the fresh process: the first call, then the steady state."""
    warnings.simplefilter("ignore")  # refused and undefined scores are not timed here
    if case == "readme":
        first = timed(lambda: cm.evaluate(README_TRUTH, README_PRED, ci=0.95))
        loaded = "numba" in sys.modules
        mine, peer = side_by_side(lambda: cm.evaluate(README_TRUTH, README_PRED, ci=0.95),
                                  README_TRUTH, README_PRED, repeats, 60.0, 20)
        result = {"first": first, "best": mine, "peer": peer, "numba_loaded": loaded}
    else:
        what, call = first_call_work(case, quick)
        first = timed(call)
        result = {"what": what, "first": first, "second": timed(call),
                  "numba_loaded": "numba" in sys.modules}
    print(json.dumps(result))


# ---------------------------------------------------------------- the targets


def readme_rows(quick: bool, repeats: int) -> list[Row]:
    """Target 1."""
    rows = []
    got = run_child("readme", quick, repeats)
    if "error" in got:
        return [Row("1", "README example: evaluate(ci=0.95), 8 items", float("inf"),
                    README_LIMIT, "x", got["error"])]
    numba = "numba loaded" if got["numba_loaded"] else "numba not loaded"
    rows.append(Row("1", "README example, first call (fresh process, empty cache)",
                    got["first"] / got["peer"], README_LIMIT, "x",
                    f"{got['first']:.3f} s vs ARI {got['peer'] * 1e3:.3f} ms; {numba}"))
    rows.append(Row("1", "README example, best of repeats", got["best"] / got["peer"],
                    README_LIMIT, "x",
                    f"{got['best']:.3f} s vs ARI {got['peer'] * 1e3:.3f} ms"))
    for seed in range(1 if quick else 3):
        t, p = uniform_labels(1000, 10, seed)
        mine, peer = side_by_side(lambda t=t, p=p: cm.evaluate(t, p, ci=0.95), t, p,
                                  repeats, 90.0, 20)
        rows.append(Row("1", f"evaluate(ci=0.95), N = 1e3, 10 x 10, seed {seed}",
                        mine / peer, SMALL_EVALUATE_LIMIT, "x",
                        f"{mine:.3f} s vs ARI {peer * 1e3:.3f} ms"))
    return rows


def small_rows(quick: bool, repeats: int) -> list[Row]:
    """Target 2: one row per score, its worse case of the two inputs."""
    cases = [("8 items", README_TRUTH, README_PRED)]
    cases += [(f"N = 1e3 seed {s}", *uniform_labels(1000, 10, s))
              for s in range(1 if quick else 2)]
    worst: dict[str, tuple[float, str]] = {}
    for name, t, p in cases:
        peer = peer_ari(t, p, 50)
        before = peer()
        seconds = {}
        for key in target_keys(quick)["2 small"]:
            seconds[key] = _score_seconds(key, t, p, repeats, 2.0, True)
        reference = min(before, peer())
        for key, s in seconds.items():
            text = s if isinstance(s, str) else f"{name}: {s * 1e3:.3f} ms"
            ratio = float("inf") if isinstance(s, str) else s / reference
            if key not in worst or ratio > worst[key][0]:
                worst[key] = (ratio, f"{text} vs ARI {reference * 1e3:.3f} ms")
    return [Row("2", f"{key}, from labels, small N", ratio, SCORE_LIMIT, "x", detail)
            for key, (ratio, detail) in worst.items()]


def _score_seconds(key: str, t: Any, p: Any, repeats: int, budget: float,
                   warm_up: bool) -> float | str:
    """Best seconds of one score's function (after one untimed call with ``warm_up``:
    the target is the steady state), or what it raised, which counts as a failure: every
    registered score must score these labels."""
    call = score_call(key, t, p)
    try:
        if warm_up:
            call()
        return best(call, repeats, budget)
    except Exception as exc:  # noqa: BLE001 - reported, and counted as a failure
        return f"raised {type(exc).__name__}: {str(exc).splitlines()[0][:80]}"


def compile_rows(quick: bool, repeats: int) -> list[Row]:
    """Target 3: each case in its own fresh process with an empty numba cache."""
    rows = []
    for case in first_call_cases(quick):
        got = run_child(case, quick, repeats)
        if "error" in got:
            rows.append(Row("3", case, float("inf"), COMPILE_LIMIT_S, "s", got["error"]))
        else:
            numba = "numba loaded" if got["numba_loaded"] else "numba not loaded"
            rows.append(Row("3", f"compile wall: {got['what']}",
                            got["first"] - got["second"], COMPILE_LIMIT_S, "s",
                            f"first {got['first']:.2f} s, second {got['second']:.2f} s; "
                            f"{numba}"))
        print(rows[-1].line(), flush=True)
    return rows


def zoo_rows(quick: bool, repeats: int, n: int) -> list[Row]:
    """Target 4: every score and evaluate of all on each shape and seed; one row per score
    (its worst shape and seed) and one per shape for evaluate."""
    shapes = QUICK_SHAPES if quick else SHAPES
    seeds = range(2 if quick else 3)
    keys = target_keys(quick)["4 zoo"]
    worst: dict[str, tuple[float, str]] = {}
    spread: dict[str, list[float]] = {k: [] for k in keys}
    rows = []
    warm_t, warm_p = shape_labels(shapes[0], n, 0)
    cm.evaluate(warm_t, warm_p)  # compiled kernels loaded before the steady state is timed
    for shape in shapes:
        evaluate_worst = (0.0, "")
        for seed in seeds:
            t, p = shape_labels(shape, n, seed)
            peer = peer_ari(t, p, repeats)
            before = peer()
            # the warm-up above loaded the kernels; one call per score more would double the run
            seconds = {key: _score_seconds(key, t, p, repeats, 4.0, False) for key in keys}
            every = best(lambda t=t, p=p: cm.evaluate(t, p), repeats, 10.0)
            reference = min(before, peer())
            for key, s in seconds.items():
                ratio = float("inf") if isinstance(s, str) else s / reference
                spread[key].append(ratio)
                text = s if isinstance(s, str) else f"{s:.3f} s"
                if key not in worst or ratio > worst[key][0]:
                    worst[key] = (ratio, f"worst: {shape} seed {seed}, {text} vs ARI "
                                         f"{reference:.3f} s")
            if every / reference > evaluate_worst[0]:
                evaluate_worst = (every / reference, f"worst seed {seed}, {every:.2f} s vs "
                                                     f"ARI {reference:.3f} s")
            slowest = max(seconds, key=lambda k: _ratio(seconds[k], reference))
            print(f"    {shape} seed {seed}: ARI {reference:.3f} s; slowest score {slowest} "
                  f"{_ratio(seconds[slowest], reference):.2f}x; evaluate "
                  f"{every / reference:.2f}x", flush=True)
        rows.append(Row("4", f"evaluate (every score), {shape}, N = {n:.0e}",
                        evaluate_worst[0], ZOO_EVALUATE_LIMIT, "x", evaluate_worst[1]))
        print(rows[-1].line(), flush=True)
    for key, (ratio, detail) in worst.items():
        finite = [r for r in spread[key] if np.isfinite(r)]
        seeds_note = f"; all runs {min(finite):.2f}-{max(finite):.2f}x" if finite else ""
        rows.append(Row("4", f"{key}, from labels, zoo N = {n:.0e}", ratio, SCORE_LIMIT, "x",
                        detail + seeds_note))
        print(rows[-1].line(), flush=True)
    return rows


def _ratio(seconds: float | str, reference: float) -> float:
    return float("inf") if isinstance(seconds, str) else seconds / reference


def import_rows(repeats: int = 5) -> list[Row]:
    """Target 5: fresh interpreters, interleaved, best of ``repeats``."""
    script = Path(sys.executable).parent / "clustermetrics"
    cli = [str(script)] if script.exists() else [sys.executable, "-m", "clustermetrics"]
    cases = {"numpy+scipy": [sys.executable, "-c", "import numpy, scipy"],
             "import clustermetrics": [sys.executable, "-c", "import clustermetrics"],
             "clustermetrics --help": cli + ["--help"]}
    times: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(repeats):
        for name, cmd in cases.items():
            start = time.perf_counter()
            subprocess.run(cmd, check=True, capture_output=True, cwd=tempfile.gettempdir())
            times[name].append(time.perf_counter() - start)
    floor = min(times["numpy+scipy"])
    return [Row("5", name, min(times[name]) / floor, IMPORT_LIMIT, "x",
                f"{min(times[name]):.3f} s vs import numpy, scipy {floor:.3f} s")
            for name in ("import clustermetrics", "clustermetrics --help")]


# ---------------------------------------------------------------- main


def _json_row(row: Row) -> dict[str, Any]:
    """A row as strict JSON: a score that raised (an infinite ratio) becomes null."""
    out = dict(asdict(row), ok=row.ok)
    if not np.isfinite(row.value):
        out["value"] = None
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true",
                    help="fewer seeds, shapes and first-call cases")
    ap.add_argument("--check", action="store_true",
                    help="exit with status 1 when any figure misses its limit")
    ap.add_argument("--json", help="write the install, the load and every row here")
    ap.add_argument("--targets", default=",".join(TARGETS),
                    help="comma-separated targets to run (default: 1,2,3,4,5)")
    ap.add_argument("--n", type=float, default=1e6, help="items per zoo shape (default 1e6)")
    ap.add_argument("--repeats", type=int, default=None,
                    help="best of this many runs (default 3, 2 with --quick)")
    ap.add_argument("--child", help=argparse.SUPPRESS)  # one fresh-process case
    args = ap.parse_args(argv)
    repeats = args.repeats or (2 if args.quick else 3)
    if args.child:
        child_main(args.child, args.quick, repeats)
        return 0
    targets = [t.strip() for t in args.targets.split(",")]
    unknown = [t for t in targets if t not in TARGETS]
    if unknown:
        ap.error(f"--targets: unknown target {unknown[0]!r}; choose from "
                 f"{', '.join(TARGETS)}")
    warnings.simplefilter("ignore")  # refused and undefined scores are not timed here
    info = install_info()
    print("install: " + ", ".join(f"{k} {v}" for k, v in info.items()), flush=True)
    problems = install_warnings(info)
    for problem in problems:
        print(f"WARNING: not the plain install: {problem}; these figures do not describe "
              f"`pip install clustermetrics`", flush=True)
    load_before = os.getloadavg()
    print(f"load {load_before}", flush=True)
    rows: list[Row] = []
    steps = {"1": lambda: readme_rows(args.quick, repeats),
             "2": lambda: small_rows(args.quick, max(repeats, 5)),
             "3": lambda: compile_rows(args.quick, repeats),
             "4": lambda: zoo_rows(args.quick, repeats, int(args.n)),
             "5": lambda: import_rows()}
    for target in targets:
        print(f"\n== target {target}", flush=True)
        new = steps[target]()
        if target not in ("3", "4"):  # those print their rows as they go
            for row in new:
                print(row.line(), flush=True)
        rows += new
    failed = [row for row in rows if not row.ok]
    print(f"\nload {os.getloadavg()}; {len(rows)} figures, {len(failed)} over their limit")
    for row in failed:
        print("  FAIL " + row.line())
    for problem in problems:
        print(f"WARNING: not the plain install: {problem}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"install": info, "install_warnings": problems, "quick": args.quick,
                       "load": [load_before, os.getloadavg()],
                       "rows": [_json_row(r) for r in rows]}, fh, indent=1, allow_nan=False)
    return 1 if args.check and failed else 0


if __name__ == "__main__":
    sys.exit(main())
