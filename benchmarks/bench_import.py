"""Import time: `import clustermetrics`, the command line's help and first calls, in fresh
interpreters, against `import numpy, scipy` run side by side (best of --repeats, every
case once per round, rounds interleaved so that load changes hit all cases alike).

    python benchmarks/bench_import.py [--before OTHER/src] [--repeats 5]

--before names the src folder of another checkout (e.g. the main branch) to run the same
cases with it in the same rounds. Two bytecode modes: "source" compiles our modules
anew in every run (PYTHONDONTWRITEBYTECODE=1 and no cached .pyc, as in a fresh checkout
or a read-only tree); "cached" reads compiled .pyc files from a private cache
(PYTHONPYCACHEPREFIX, warmed first), as an installed package does. Third-party packages
read their installed .pyc in both.

The first-call cases print, from inside the child, the seconds of the import and of the
first call (ARI on 1,000 labels; `evaluate` of every registered score on 1,000 labels),
so that a deferred import moved into the first call is seen there.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
BASELINES = {
    "import numpy": "import numpy",
    "import numpy, scipy": "import numpy, scipy",
    "import numpy, scipy, scipy.sparse, scipy.special":
        "import numpy, scipy, scipy.sparse, scipy.special",
}
OURS = {
    "import clustermetrics": "import clustermetrics",
    "clustermetrics --help":
        "import sys; from clustermetrics.cli import main; sys.exit(main(['--help']))",
    "clustermetrics score --help":
        "import sys; from clustermetrics.cli import main; sys.exit(main(['score', '--help']))",
    "clustermetrics score TRUTH PRED":
        "import sys; from clustermetrics.cli import main; "
        "sys.exit(main(['score', {truth!r}, {pred!r}]))",
}
FIRST_CALLS = {
    "ARI, 1,000 labels": "cm.adjusted_rand_score(t, p)",
    "evaluate (all scores), 1,000 labels": "cm.evaluate(t, p)",
}
FIRST_CALL_CHILD = """
import time
t0 = time.perf_counter()
import numpy as np
import clustermetrics as cm
t1 = time.perf_counter()
rng = np.random.default_rng(0)
t = rng.integers(0, 20, 1000)
p = np.where(rng.random(1000) < 0.3, rng.integers(0, 20, 1000), t)
t2 = time.perf_counter()
{call}
t3 = time.perf_counter()
print(t1 - t0, t3 - t2)
"""


def _env(src: Path | None, mode: str, cache: str) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    if src is not None:
        env["PYTHONPATH"] = str(src)
    if mode == "source":
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env.pop("PYTHONPYCACHEPREFIX", None)
    else:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = cache
    return env


def _wall(code: str, env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], env=env, check=True,
                   stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def _first_call(call: str, env: dict[str, str]) -> tuple[float, float]:
    out = subprocess.run([sys.executable, "-c", FIRST_CALL_CHILD.format(call=call)],
                         env=env, check=True, capture_output=True, text=True).stdout
    imp, first = (float(v) for v in out.split())
    return imp, first


def _importtime(module: str, env: dict[str, str]) -> float:
    """Seconds ``python -X importtime -c "import MODULE"`` gives MODULE and the packages
    above it (each is imported first, on a line of its own): their cumulative times."""
    err = subprocess.run([sys.executable, "-X", "importtime", "-c", f"import {module}"],
                         env=env, check=True, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True).stderr
    parts = module.split(".")
    tops = {".".join(parts[:i]) for i in range(1, len(parts) + 1)}
    total = 0
    for line in err.splitlines():
        fields = line.removeprefix("import time:").split("|")
        if len(fields) == 3 and fields[2].strip() in tops and \
                not fields[2].startswith("  "):  # top level: not nested under another
            total += int(fields[1])
    return total / 1e6


def run(trees: dict[str, Path], mode: str, repeats: int, files: dict[str, str]) -> None:
    cache = tempfile.mkdtemp(prefix="cm-pyc-")
    envs = {name: _env(src, mode, cache) for name, src in trees.items()}
    cases = [("", label, code, None) for label, code in BASELINES.items()]
    cases += [(name, label, code.format(**files), envs[name])
              for label, code in OURS.items() for name in trees]
    best = {(t, label): float("inf") for t, label, _, _ in cases}
    calls = {(name, label): (float("inf"), float("inf"))
             for label in FIRST_CALLS for name in trees}
    base_env = _env(None, mode, cache)
    if mode == "cached":  # fill the cache: the first runs compile
        for _, _, code, env in cases:
            subprocess.run([sys.executable, "-c", code], env=env or base_env,
                           stdout=subprocess.DEVNULL, check=True)
        for (name, label) in calls:
            _first_call(FIRST_CALLS[label], envs[name])
    traced = {(name, top): float("inf") for name in trees
              for top in ("clustermetrics", "clustermetrics.cli")}
    for _ in range(repeats):
        for t, label, code, env in cases:
            best[t, label] = min(best[t, label], _wall(code, env or base_env))
        for (name, top) in traced:
            traced[name, top] = min(traced[name, top], _importtime(top, envs[name]))
        for (name, label) in calls:
            imp, first = _first_call(FIRST_CALLS[label], envs[name])
            calls[name, label] = (min(calls[name, label][0], imp),
                                  min(calls[name, label][1], first))
    unit = best["", "import numpy, scipy"]
    print(f"\n## bytecode: {mode} (best of {repeats}; ratio = / import numpy, scipy)")
    for (t, label), secs in best.items():
        who = f"[{t}] " if t else ""
        print(f"{who + label:<58} {secs:7.3f} s {secs / unit:5.1f}x")
    for (name, top), secs in traced.items():
        label = f"[{name}] -X importtime -c 'import {top}' (cumulative)"
        print(f"{label:<58} {secs:7.3f} s")
    for (name, label), (imp, first) in calls.items():
        print(f"[{name}] import {imp:6.3f} s, then first {label}: {first:6.3f} s "
              f"(sum {imp + first:6.3f} s)")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", type=Path, help="src folder of another checkout to compare")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--modes", default="source,cached")
    args = ap.parse_args(argv)
    trees = {"this": HERE / "src"}
    if args.before is not None:
        trees = {"before": args.before.resolve(), **trees}
    files = {"truth": str(HERE / "examples" / "truth.txt"),
             "pred": str(HERE / "examples" / "pred.txt")}
    print(f"python {sys.version.split()[0]}; load {os.getloadavg()[0]:.2f}; "
          + "; ".join(f"{k} = {v}" for k, v in trees.items()))
    for mode in args.modes.split(","):
        run(trees, mode, args.repeats, files)
    print(f"load {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
