"""The SMI on a fresh install (an empty numba cache): one call at N = 1000 against
scikit-learn's ARI on the same labels, and ``evaluate(ci=0.95)``'s first and second call,
each in a new process; with ``--before DIR`` the same for another checkout's ``src``,
run alternately with this one so that both see the same load. ``--costs``: instead, the
numpy expansion's time per estimated step (what scores._smi_cost.NUMPY_STEP_COST
prices) against the scalar loops as plain Python, table by table, and a bootstrap's
stacks through it.

    python benchmarks/bench_smi_fresh.py [--before MAIN/src] [--rounds 2]
    python benchmarks/bench_smi_fresh.py --costs
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import numpy as np

SRC = Path(__file__).resolve().parents[1] / "src"
sys.path.insert(0, str(SRC))

from clustermetrics import Contingency  # noqa: E402
from clustermetrics.scores import (  # noqa: E402
    _line_sizes,
    _smi,
    _smi_cost,
    _smi_expansion,
    _smi_shift,
    _smi_vectorised,
)
from clustermetrics.table.stack import TableStack  # noqa: E402

# one process per seed: the first SMI call (what a fresh install pays), then the best of
# 5 more and of 5 ARI calls (scikit-learn) on the same labels
SMI = """
    import json, sys, time
    import numpy as np
    from sklearn.metrics import adjusted_rand_score
    import clustermetrics as cm
    rng = np.random.default_rng({seed})
    a, b = rng.integers(0, 10, 1000), rng.integers(0, 10, 1000)

    def best(func, times):
        out = []
        for _ in range(times):
            start = time.perf_counter()
            func()
            out.append(time.perf_counter() - start)
        return min(out)

    first = best(lambda: cm.standardized_mutual_info_score(a, b), 1)
    again = best(lambda: cm.standardized_mutual_info_score(a, b), 5)
    ari = best(lambda: adjusted_rand_score(a, b), 5)
    method = cm.standardized_mutual_info(a, b).method
    print(json.dumps(dict(first=first, again=again, ari=ari, method=method,
                          numba="numba" in sys.modules)))
"""

# evaluate with intervals, twice in one process (1000 replicates each)
EVALUATE = """
    import json, sys, time
    import numpy as np
    import clustermetrics as cm
    rng = np.random.default_rng(0)
    a, b = rng.integers(0, 10, 1000), rng.integers(0, 10, 1000)
    times = []
    for _ in range(2):
        start = time.perf_counter()
        cm.evaluate(a, b, ci=0.95)
        times.append(time.perf_counter() - start)
    small = "numba" in sys.modules
    print(json.dumps(dict(first=times[0], second=times[1], numba=small)))
"""

# the README's 8 items: does numba load?
README = """
    import json, sys
    import clustermetrics as cm
    cm.evaluate([0, 0, 0, 1, 1, 1, 2, 2], [0, 0, 1, 1, 1, 2, 2, 2], ci=0.95)
    print(json.dumps(dict(numba="numba" in sys.modules)))
"""


def fresh(script: str, src: Path) -> dict:
    """``script``'s JSON line, run in a new process on an empty numba cache."""
    with tempfile.TemporaryDirectory() as cache:
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("NUMBA_", "CLUSTERMETRICS_", "PYTHON"))}
        env.update(PYTHONPATH=str(src), NUMBA_CACHE_DIR=cache)
        out = subprocess.run([sys.executable, "-c", textwrap.dedent(script)], env=env,
                             capture_output=True, text=True, timeout=900, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _best(func, times: int = 3) -> float:
    out = []
    for _ in range(times):
        start = time.perf_counter()
        func()
        out.append(time.perf_counter() - start)
    return min(out)


def _margins(rng, n: int, k: int) -> np.ndarray:
    counts = np.bincount(rng.integers(0, k, n))
    return counts[counts > 0]


# (N, classes, clusters) of uniform labels
COST_TABLES = [(8, 3, 3), (100, 4, 5), (100, 10, 10), (1000, 3, 3), (1000, 10, 10),
               (1000, 30, 30), (5000, 15, 15), (10**4, 50, 50), (10**5, 10, 10),
               (10**5, 100, 100), (10**6, 30, 30)]


def costs() -> None:
    """The numpy expansion per table (units of 5 ns per estimated step), the scalar loops
    as plain Python beside it where they take under a second, then 20 stacks of 50
    replicates of 10 x 10 labels over 1000 items (a bootstrap of 1000) through it."""
    rng = np.random.default_rng(0)
    print(f"load {os.getloadavg()[0]:.1f}")
    for n, k1, k2 in COST_TABLES:
        a, b = _margins(rng, n, k1), _margins(rng, n, k2)
        ua, ca = _smi_cost.distinct_sizes(a)
        ub, cb = _smi_cost.distinct_sizes(b)
        k0, slope, _ = _smi_shift.shifts(ua, ca, ub, cb, n)
        args = (ua, ca, ub, cb, n, k0, slope,
                _smi_cost.expansion_cut(n, float(ca.sum() * cb.sum())))
        tables = _line_sizes.tables_of(a[None], b[None])
        steps = float(_smi_cost.table_steps(tables, n)[0])
        estimate = float(_smi_cost.vectorised_costs(tables, n)[0]) * 5e-9
        numpy_s = _best(lambda args=args: _smi_vectorised.vectorised_moments(*args))
        line = (f"N={n} {a.size}x{b.size}: {steps:.3g} steps, numpy {numpy_s * 1e3:.2f} ms "
                f"(estimated {estimate * 1e3:.2f} ms; {numpy_s / 5e-9 / steps:.1f} units/step)")
        if steps * _smi_cost.PYTHON_STEP_COST * 5e-9 < 1.0:
            python_s = _best(lambda args=args: _smi_expansion.expansion_moments(*args), 1)
            line += f", plain Python {python_s * 1e3:.1f} ms ({python_s / numpy_s:.0f}x)"
        print(line)
    table = Contingency.from_labels(rng.integers(0, 10, 1000), rng.integers(0, 10, 1000))
    memo: dict = {}
    spent = 0.0
    for _ in range(20):
        stack = TableStack(table, rng.multinomial(1000, table.counts / 1000, size=50))
        kernel = functools.partial(_smi_vectorised.vectorised_variances, memo=memo)
        start = time.perf_counter()
        _smi.exact_variances(stack.class_sizes, stack.cluster_sizes, 1000, kernel)
        spent += time.perf_counter() - start
    print(f"20 stacks of 50 replicates (10 x 10 labels, N = 1000): {spent:.3f} s, "
          f"{sum(v[0].shape[0] for v in memo.values())} laws expanded; load "
          f"{os.getloadavg()[0]:.1f}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--before", type=Path, help="another checkout's src, run alternately")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--costs", action="store_true")
    args = parser.parse_args()
    if args.costs:
        costs()
        return
    sources = [("this", SRC)] + ([("before", args.before)] if args.before else [])
    for round_ in range(args.rounds):
        print(f"round {round_ + 1}, load {os.getloadavg()[0]:.1f}")
        for name, src in sources:
            for seed in range(3):
                r = fresh(SMI.format(seed=seed), src)
                print(f"  {name} smi seed {seed}: first {r['first'] * 1e3:.1f} ms "
                      f"({r['first'] / r['ari']:.0f}x ARI), then {r['again'] * 1e3:.2f} ms "
                      f"({r['again'] / r['ari']:.1f}x ARI {r['ari'] * 1e3:.2f} ms); "
                      f"{r['method']}, numba loaded: {r['numba']}")
            r = fresh(EVALUATE, src)
            print(f"  {name} evaluate(ci=0.95): first {r['first']:.2f} s, second "
                  f"{r['second']:.2f} s (first - second {r['first'] - r['second']:.2f} s); "
                  f"numba loaded: {r['numba']}")
            print(f"  {name} README's 8 items with ci: numba loaded: "
                  f"{fresh(README, src)['numba']}")
        print(f"  load after {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
