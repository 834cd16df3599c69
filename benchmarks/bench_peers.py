"""clustermetrics against its peers, side by side in one process, with ratios.

Labels: truth = uniform random ints in [0, K); prediction = truth with 30 %
of positions redrawn uniformly. Each timing is the median of --repeats runs (a call slower
than 2 s runs once). Every peer value is checked against ours; a disagreement is printed,
never hidden. Peak memory is measured in a fresh subprocess (process RSS above the inputs).
"evaluate N scores [numpy|numba]": all registered scores on a built
table (fresh copy per repeat) against building that table, with each kernel set.

    python benchmarks/bench_peers.py                         # the default grid (make bench)
    python benchmarks/bench_peers.py --n 1e6 --k 1000 --libs clustermetrics,sklearn
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable

import numpy as np

import clustermetrics as cm

SCORES = ["adjusted_rand_score", "rand_score", "fowlkes_mallows_score", "mutual_info_score",
          "normalized_mutual_info_score", "adjusted_mutual_info_score", "homogeneity_score",
          "completeness_score", "v_measure_score"]
ROWS: list[dict] = []


def labels(n: int, k: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    t = rng.integers(0, k, n)
    p = t.copy()
    redraw = rng.random(n) < 0.3
    p[redraw] = rng.integers(0, k, int(redraw.sum()))
    return t, p


def timeit(func: Callable[[], object], repeats: int) -> tuple[float, object]:
    times, value = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        value = func()
        times.append(time.perf_counter() - start)
        if times[-1] > 2.0:
            break
    return statistics.median(times), value


def record(case: str, op: str, ours: float, peer: str, theirs: float | None,
           agree: str = "", target: str = "") -> None:
    ratio = theirs / ours if theirs else None
    ROWS.append(dict(case=case, op=op, ours=ours, peer=peer, theirs=theirs, ratio=ratio,
                     agree=agree, target=target))
    ratio_s = f"{ratio:8.1f}x" if ratio else "        -"
    theirs_s = f"{theirs:9.4f}" if theirs else "        -"
    print(f"{case:<16} {op:<30} {ours:9.4f} {peer:<22} {theirs_s} {ratio_s}  {agree:<10} "
          f"{target}", flush=True)


def _agree(a: float, b: float, tol: float = 1e-10) -> str:
    return "agree" if abs(a - b) <= tol else f"DIFF {abs(a - b):.1e}"


def bench_build(n: int, k: int, repeats: int) -> None:
    case = f"N={n:.0e} K={k}"
    t, p = labels(n, k)
    ours, _ = timeit(lambda: cm.Contingency.from_labels(t, p), repeats)
    if k * k <= 4 * n:
        floor, _ = timeit(lambda: np.bincount(t * k + p, minlength=k * k), repeats)
        record(case, "build table (int)", ours, "floor t*K+p+bincount", floor,
               target=f"ours/floor={ours / floor:.2f} (<=2.5)")
    else:
        floor, _ = timeit(lambda: np.unique(t * k + p), repeats)
        record(case, "build table (int)", ours, "floor np.unique(t*K+p)", floor,
               target=f"ours/floor={ours / floor:.2f} (<=2)")
    from sklearn.metrics.cluster import contingency_matrix

    sk, _ = timeit(lambda: contingency_matrix(t, p, sparse=True), repeats)
    record(case, "build table (int)", ours, "sklearn contingency", sk)


def bench_build_hard_labels(n: int, k: int, repeats: int) -> None:
    import pandas as pd

    case = f"N={n:.0e} K={k}"
    t, p = labels(n, k)
    rng = np.random.default_rng(1)
    spread_vals = rng.integers(-10**12, 10**12, k)
    for name, tt, pp in [("ints +-1e12", spread_vals[t], spread_vals[p]),
                         ("strings", np.array([f"c{i}" for i in range(k)])[t],
                          np.array([f"c{i}" for i in range(k)])[p])]:
        ours, _ = timeit(lambda tt=tt, pp=pp: cm.Contingency.from_labels(tt, pp), repeats)

        def floor(tt=tt, pp=pp):
            a, _ = pd.factorize(tt)
            b, _ = pd.factorize(pp)
            kk = int(max(a.max(), b.max())) + 1
            return np.bincount(a * kk + b, minlength=kk * kk) if kk * kk <= 4 * n else \
                np.unique(a * kk + b)

        fl, _ = timeit(floor, repeats)
        record(case, f"build table ({name})", ours, "pd.factorize x2+floor", fl,
               target=f"ours/floor={ours / fl:.2f} (<=1.5)")


def bench_scores(n: int, k: int, repeats: int, libs: set[str], sk_ami_max_n: int) -> None:
    from sklearn import metrics as skm

    case = f"N={n:.0e} K={k}"
    t, p = labels(n, k)
    for name in SCORES:
        ours, ov = timeit(lambda name=name: getattr(cm, name)(t, p), repeats)
        if "sklearn" in libs and not (name == "adjusted_mutual_info_score" and n > sk_ami_max_n):
            theirs, tv = timeit(lambda name=name: getattr(skm, name)(t, p), repeats)
            tol = 1e-10 if name != "adjusted_mutual_info_score" else 1e-9
            target = ">=10x" if n >= 10**7 else ">=100x" if "adjusted_mutual" in name and \
                n == 10**6 else ">=1x" if n <= 10**3 else ""
            record(case, name, ours, "sklearn", theirs, _agree(ov, tv, tol), target)
        else:
            record(case, name, ours, "sklearn (skipped)", None)
    if "genieclust" in libs and k <= 5000:
        from genieclust import compare_partitions as gc

        pairs = [("adjusted_rand_score", "adjusted_rand_score")]
        if n <= 10**5:  # genieclust's NMI takes 6.7 s at N=1e5 and grows from there
            pairs.append(("normalized_mutual_info_score", "normalized_mi_score"))
        for ours_name, theirs_name in pairs:
            ours, ov = timeit(lambda o=ours_name: getattr(cm, o)(t, p), repeats)
            theirs, tv = timeit(lambda g=theirs_name: getattr(gc, g)(t, p), repeats)
            record(case, ours_name, ours, "genieclust", theirs, _agree(ov, tv))
    if "permetrics" in libs and n <= 10**6:
        from permetrics import ClusteringMetric

        ours, ov = timeit(lambda: cm.adjusted_rand_score(t, p), repeats)
        theirs, tv = timeit(lambda: ClusteringMetric(y_true=t, y_pred=p).ARS(), repeats)
        record(case, "adjusted_rand_score", ours, "permetrics ARS", theirs, _agree(ov, tv))
    every = bench_evaluate(case, t, p, repeats)
    if "sklearn" in libs and n >= 10**7:
        sk_ari, _ = timeit(lambda: skm.adjusted_rand_score(t, p), 1)
        record(case, f"evaluate (all {len(cm.METRICS)})", every, "sklearn ARI alone", sk_ari)


def bench_evaluate(case: str, t: np.ndarray, p: np.ndarray, repeats: int) -> float:
    """Issue 4 target 4: every score on a built table against building the table.

    Each repeat scores a fresh copy of the table (nothing cached), once with the numpy
    kernels and, when numba is installed, once with the compiled ones (loaded beforehand;
    loading them is timed on its own). Prints the slowest scores. Returns build + scores.
    """
    from clustermetrics.compute import dispatch as _kernels

    build, table = timeit(lambda: cm.Contingency.from_labels(t, p), max(repeats, 3))
    modes = ["numpy"] + (["numba"] if _numba_available() else [])
    result = 0.0
    for mode in modes:
        old = _kernels.set_kernels(mode)
        try:
            if mode == "numba":
                start = time.perf_counter()
                cm.expected_mutual_info_score(_fresh(table))  # import numba + cached kernels
                record(case, "load numba kernels (once)", time.perf_counter() - start, "",
                       None)
            times, report = [], None
            for _ in range(max(repeats, 3)):
                report = cm.evaluate(_fresh(table))
                times.append(sum(report.timings.values()))
        finally:
            _kernels.set_kernels(old)
        scores = statistics.median(times)
        result = result or build + scores
        record(case, f"evaluate {len(cm.METRICS)} scores [{mode}]", scores,
               "build table alone", build,
               target=f"scores/build={scores / build:.2f} (<=2); "
                      f"(build+scores)/build={(build + scores) / build:.2f}")
        slow = sorted(report.timings.items(), key=lambda kv: -kv[1])[:6]
        print("    slowest: " + ", ".join(f"{k} {v:.3f}" for k, v in slow), flush=True)
    return result


def _numba_available() -> bool:
    import importlib.util

    return importlib.util.find_spec("numba") is not None


def bench_matching(repeats: int) -> None:
    rng = np.random.default_rng(3)
    k, n = 10**4, 10**7
    t = rng.integers(0, k, n)
    p = np.where(rng.random(n) < 0.3, rng.integers(0, k, n), t)
    table = cm.Contingency.from_labels(t, p)
    case = f"sparse {k}x{k}"
    for name in ["recovery_rate", "clustering_error"]:
        ours, _ = timeit(lambda name=name: getattr(cm, name)(_fresh(table)), repeats)
        record(case, f"{name} (nnz={table.nnz})", ours, "", None, target="<=10 s")
    dense = rng.integers(1, 50, (2000, 2000))
    dtable = cm.Contingency.from_matrix(dense)
    for name in ["recovery_rate", "clustering_error"]:
        ours, _ = timeit(lambda name=name: getattr(cm, name)(_fresh(dtable)), repeats)
        record("dense 2000x2000", name, ours, "", None, target="<=1 s")


def _fresh(table: cm.Contingency) -> cm.Contingency:
    """A copy without cached results, so each repeat really computes the matching."""
    return cm.Contingency(table.rows, table.cols, table.counts, table.class_labels,
                          table.cluster_labels, table.class_sizes, table.cluster_sizes)


def _peak_rss_kb() -> int:
    """This process's peak RSS. Linux's ru_maxrss survives fork + exec (a child started
    by a big parent reports the parent's peak), so read VmHWM of this address space."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def _memory_child(path: str) -> None:
    t, p = np.load(f"{path}.t.npy"), np.load(f"{path}.p.npy")  # the baseline high-water mark
    base = _peak_rss_kb()
    cm.evaluate(t, p)
    peak = _peak_rss_kb()
    print(json.dumps({"above_inputs_mb": (peak - base) / 1024}))


def bench_memory(n: int, k: int) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path = f"{tmp}/labels"
        t, p = labels(n, k)
        np.save(f"{path}.t.npy", t)
        np.save(f"{path}.p.npy", p)
        del t, p
        out = subprocess.run([sys.executable, __file__, "--memory-child", path],
                             capture_output=True, text=True, check=True)
    mb = json.loads(out.stdout)["above_inputs_mb"]
    record(f"N={n:.0e} K={k}", "evaluate: peak RSS above inputs (MB)", mb, "", None,
           target="<=1500 MB")


def bench_import() -> None:
    times = []
    for _ in range(5):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import clustermetrics"], check=True)
        times.append(time.perf_counter() - start)
    base = []
    for _ in range(5):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        base.append(time.perf_counter() - start)
    record("import", "python -c 'import clustermetrics'", statistics.median(times),
           "bare interpreter", statistics.median(base), target="<=0.3 s")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=lambda s: [int(float(x)) for x in s.split(",")],
                    default=[10**3, 10**5, 10**6, 10**7], help="comma list of N")
    ap.add_argument("--k", type=lambda s: [int(float(x)) for x in s.split(",")],
                    default=[1000], help="comma list of K")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--libs", default="clustermetrics,sklearn,genieclust,permetrics")
    ap.add_argument("--sklearn-ami-max-n", type=float, default=1e6,
                    help="skip scikit-learn's AMI above this N (it needs > 60 s at 1e7)")
    ap.add_argument("--no-extras", action="store_true",
                    help="skip the large-K, matching, memory and import sections")
    ap.add_argument("--only-extras", action="store_true",
                    help="run only the large-K, matching, memory and import sections")
    ap.add_argument("--json", metavar="FILE", help="also write the rows as JSON")
    ap.add_argument("--memory-child", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.memory_child:
        _memory_child(args.memory_child)
        return
    libs = set(args.libs.split(","))
    cm.evaluate([0, 0, 1], [0, 1, 1])  # one-time lazy imports (scipy.optimize) off the clock
    print(f"{'case':<16} {'operation':<30} {'ours (s)':>9} {'peer':<22} {'peer (s)':>9} "
          f"{'speed-up':>9}  {'values':<10} target")
    for n in [] if args.only_extras else args.n:
        for k in args.k:
            bench_build(n, k, args.repeats)
            bench_scores(n, k, args.repeats, libs, int(args.sklearn_ami_max_n))
    if not args.no_extras:
        bench_build_hard_labels(10**7, 1000, args.repeats)
        bench_build(10**7, 10**5, args.repeats)
        bench_scores(10**7, 10**5, 1, libs - {"genieclust", "permetrics"},
                     int(args.sklearn_ami_max_n))
        bench_matching(args.repeats)
        bench_memory(10**7, 10**6)
        bench_import()
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(ROWS, fh, indent=1)


if __name__ == "__main__":
    main()
