"""The compiled kernels on a fresh install: each compiled once (one type signature), a cache
that a read-only installation cannot break, and a note on a terminal while they compile.

Each check runs in a child process with an empty numba cache (a fresh install); how long
compiling takes is measured in benchmarks/bench_compile.py, not here.
"""

from __future__ import annotations

import ast
import json
import os
import pty
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numba
import numpy as np
import pytest

import clustermetrics as cm
from clustermetrics.compute import dispatch as _kernels
from clustermetrics.compute import jit as _jit
from clustermetrics.hierarchy import compiled as hierarchy_kernels
from clustermetrics.matching import compiled as matching_kernels
from clustermetrics.scores import compiled as score_kernels

SRC = Path(cm.__file__).resolve().parents[1]


def _child(script: str, env: dict[str, str], **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(script)], env=env,
                          capture_output=True, text=True, timeout=900, **kwargs)


def _env(tmp_path: Path, pythonpath: Path = SRC, **more: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("NUMBA_", "CLUSTERMETRICS_", "PYTHON"))}
    env.update(PYTHONPATH=str(pythonpath), NUMBA_CACHE_DIR=str(tmp_path / "numba-cache"),
               CLUSTERMETRICS_KERNELS="numba", **more)
    return env


def _result(out: subprocess.CompletedProcess) -> dict:
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


# ---------------------------------------------------------------- one signature each
# The library's calls into the kernels (replicates of noise with ~10 items a class: the
# warm-started matchings), with labels of several dtypes and read-only inputs: every
# compiled function must end with one type signature (the boundary casts of
# clustermetrics.compute.jit.one_type).
SIGNATURES = """
    import json
    import numpy as np
    import numba
    import clustermetrics as cm
    from clustermetrics.hierarchy import merge_kernels as _hierarchy_kernels
    from clustermetrics.matching import karp_sipser as _matching_start
    from clustermetrics.matching import auction as _auction_kernels
    from clustermetrics.matching import phases as _phase_kernels
    from clustermetrics.matching import warm_kernels as _warm_kernels
    from clustermetrics.scores import (_emi_kernels, _sampling_kernels, _smi_kernels,
                                       _smi_monte_carlo)

    rng = np.random.default_rng(0)
    t = rng.integers(0, 2000, 20000)
    p = rng.integers(0, 2000, 20000)
    cm.evaluate(t.astype(np.int32), p.astype(np.uint16))  # every score
    cm.evaluate(t, p, ci=0.95, n_boot=5, seed=0)  # every score's replicates
    big = rng.integers(0, 10**4, 10**5), rng.integers(0, 10**4, 10**5)
    cm.evaluate(*big, ["recovery_rate", "clustering_accuracy"], ci=0.95, n_boot=3, seed=0)
    cm.evaluate(t[:500], p[:500].astype(float), sample_weight=rng.random(500) + 0.5)
    cm.paired_comparison(t, p, rng.permutation(p), n_boot=5, seed=0)
    y = rng.integers(0, 5, 300)
    merges = [[0, 1]] + [[i + 1, 299 + i] for i in range(1, 299)]  # a caterpillar
    for tree in (np.array(merges, dtype=np.int64), np.array(merges, dtype=np.int32)):
        cm.score_hierarchy(y, tree)
    sizes = np.full(2000, 10)
    _smi_monte_carlo.sample_stats(sizes, sizes, 3, 0)  # the pairing sampler's compiled count
    for labels in ((t[:1000] % 10, p[:1000] % 10), (t[:300] % 7, p[:300] % 4),
                   (t % 3, p % 2)):  # windows, and large means (Taylor polynomials)
        cm.standardized_mutual_info_score(*labels, method="exact")  # compiled variance
    # a law of mean 1e-4 over its whole support: the recurrence turns unstable there
    rare = np.repeat([0, 0, 1], [999980, 10, 10]), np.repeat([0, 1, 0], [999980, 10, 10])
    cm.standardized_mutual_info_score(*rare, method="exact")
    # the auction where the phases give up: float weights, and large integers (exact
    # phases from its prices); the phases from scratch (tests)
    cols = np.sort(np.stack([rng.choice(300, 2, replace=False) for _ in range(300)]), 1)
    cols = cols.ravel()
    indptr = np.arange(0, 601, 2)
    read_only = cols.copy()
    read_only.flags.writeable = False
    for weights in (rng.random(600), rng.integers(1 << 55, 1 << 56, 600).astype(float)):
        _auction_kernels.auction_matching(indptr.astype(np.int32), read_only, weights, 300)
    _phase_kernels._matching_phases(indptr, cols, -rng.random(600), 300, 300, 1 << 40)
    out = {}
    for mod in (_phase_kernels, _auction_kernels, _matching_start, _warm_kernels,
                _hierarchy_kernels, _sampling_kernels, _emi_kernels, _smi_kernels):
        for name, obj in vars(mod).items():
            if isinstance(obj, numba.core.dispatcher.Dispatcher):
                out[f"{mod.__name__}.{name}"] = [str(s) for s in obj.signatures]
    print(json.dumps(out))
"""


@pytest.mark.slow
def test_every_kernel_compiles_once(tmp_path):
    found = _result(_child(SIGNATURES, _env(tmp_path)))
    assert len(found) > 25
    wrong = {name: sigs for name, sigs in found.items() if len(sigs) != 1}
    assert wrong == {}, "compiled for other types (or never reached):\n" + "\n".join(
        f"{name}: {sigs}" for name, sigs in wrong.items())


def test_every_kernel_compiles_through_the_kernel_pipeline():
    """numba's nopython pipeline less the passes the kernels do not need
    (clustermetrics.compute.jit):
    where numba renamed its passes the kernels would compile through numba's own, slower."""
    from clustermetrics.hierarchy import merge_kernels as _hierarchy_kernels
    from clustermetrics.matching import auction as _auction_kernels
    from clustermetrics.matching import karp_sipser as _matching_start
    from clustermetrics.matching import phases as _phase_kernels
    from clustermetrics.scores import _emi_kernels, _sampling_kernels, _smi_kernels

    assert _jit.KernelPipeline is not None
    kernels = [obj for mod in (_phase_kernels, _auction_kernels, _matching_start,
                               _hierarchy_kernels, _sampling_kernels, _emi_kernels, _smi_kernels)
               for obj in vars(mod).values()
               if isinstance(obj, numba.core.dispatcher.Dispatcher)]
    assert len(kernels) > 20
    assert {k._compiler.pipeline_class for k in kernels} == {_jit.KernelPipeline}


def test_every_declared_compile_is_a_compiled_function_of_its_module():
    """The dispatcher prices a kernel by the compiled functions its ``compiles`` lists,
    each looked up by name on the module its loader imports: a function moved to another
    module takes its declaration with it, or its compile cost goes uncounted."""
    declared = [c for owner in (matching_kernels, score_kernels, hierarchy_kernels)
                for k in vars(owner).values() if isinstance(k, _kernels.Kernel)
                for c in k.compiles]
    assert len(declared) > 8
    wrong = [f"{load.__name__}: {name}" for load, name, _ in declared
             if not isinstance(getattr(load(), name, None), numba.core.dispatcher.Dispatcher)]
    assert wrong == []


# ------------------------------------------- inner kernels: no entry point for Python
def _is_kernel(node: ast.AST) -> bool:
    return isinstance(node, ast.FunctionDef) and any(
        (isinstance(d, ast.Name) and d.id == "kernel")
        or (isinstance(d, ast.Call) and isinstance(d.func, ast.Name) and d.func.id == "kernel")
        for d in node.decorator_list)


def _is_inner(node: ast.AST) -> bool:
    return isinstance(node, ast.FunctionDef) and any(
        isinstance(d, ast.Call) and isinstance(d.func, ast.Name) and d.func.id == "kernel"
        and any(k.arg == "inner" and isinstance(k.value, ast.Constant) and k.value.value
                for k in d.keywords)
        for d in node.decorator_list)


def _uses_outside_kernels(tree: ast.AST, names: set[str], module: str, own: bool):
    """Lines using ``names`` (defined in ``module``) outside a kernel: as attributes, as
    imports from ``module``, and where ``own`` (the defining module) as bare names."""
    found = []

    def visit(node: ast.AST, inside: bool) -> None:
        inside = inside or _is_kernel(node)
        used = (isinstance(node, ast.Attribute) and node.attr in names) or \
            (own and isinstance(node, ast.Name) and node.id in names) or \
            (isinstance(node, ast.ImportFrom) and (node.module or "").endswith(module)
             and any(a.name in names for a in node.names))
        if used and not inside:
            found.append(node.lineno)
        for child in ast.iter_child_nodes(node):
            visit(child, inside)

    visit(tree, False)
    return found


def test_inner_kernels_are_called_from_kernels_only():
    """A kernel(inner=True) has no Python entry point: a call from Python would crash."""
    files = [*SRC.rglob("*.py"), *(SRC.parent / "tests").rglob("*.py"),
             *(SRC.parent / "benchmarks").rglob("*.py")]
    trees = {f: ast.parse(f.read_text()) for f in files}
    inner = {f: {n.name for n in ast.walk(t) if _is_inner(n)} for f, t in trees.items()}
    assert sum(len(v) for v in inner.values()) >= 6
    wrong = [f"{path}:{line}" for owner, names in inner.items() if names
             for path, tree in trees.items()
             for line in _uses_outside_kernels(tree, names, owner.stem, path == owner)]
    assert wrong == []


# ------------------------------------------------------- a read-only installation
# AMI of these labels under CLUSTERMETRICS_KERNELS=numba: the compiled expected-MI sum
# (the cheapest kernel to compile), its numba compile events, and whether the package
# directory is really read-only to this process.
READ_ONLY = """
    import json, os, tempfile
    import numpy as np
    from numba.core import event
    import clustermetrics as cm
    listener = event.RecordingListener()
    event.register("numba:compile", listener)
    rng = np.random.default_rng(0)
    t, p = rng.integers(0, 40, 4000), rng.integers(0, 40, 4000)
    value = cm.adjusted_mutual_info_score(t, p)
    try:
        tempfile.TemporaryFile(dir=os.path.dirname(cm.__file__)).close()
        writable = True
    except OSError:
        writable = False
    print(json.dumps({"value": value, "compiles": len(listener.buffer),
                      "package_writable": writable}))
"""


def _read_only_run(site: Path, read_only: list[Path], env: dict[str, str]) -> dict:
    """READ_ONLY in a child that sees ``read_only`` read-only: by their mode bits, or where
    this process is root (which the mode bits do not stop), by read-only bind mounts in a
    mount namespace of its own (util-linux's unshare)."""
    if os.geteuid() != 0:
        return _result(_child(READ_ONLY, env))
    mounts = " && ".join(f"mount --bind -o ro {d} {d}" for d in read_only)
    script = f"{mounts} && exec {sys.executable} -c \"$CHILD\""
    env = dict(env, CHILD=textwrap.dedent(READ_ONLY))
    command = ["unshare", "--user", "--map-root-user", "--mount", "sh", "-c", script]
    out = subprocess.run(command, env=env, capture_output=True, text=True, timeout=900)
    return _result(out)


@pytest.fixture
def installed(tmp_path):
    """A copy of the package in a site directory of its own, read-only to its children."""
    site = tmp_path / "site"
    shutil.copytree(SRC / "clustermetrics", site / "clustermetrics",
                    ignore=shutil.ignore_patterns("__pycache__"))
    for d in (site, *site.rglob("*")):
        d.chmod(0o555 if d.is_dir() else 0o444)
    yield site
    for d in (site, *site.rglob("*")):
        d.chmod(0o755 if d.is_dir() else 0o644)


def _cache_files(root: Path) -> list[Path]:
    return sorted(root.rglob("*.nbi"))


@pytest.mark.parametrize("home_writable", [True, False])
def test_read_only_install_caches_elsewhere_and_reuses_it(tmp_path, installed, home_writable):
    """numba's own fallback (the user's cache directory) where the home is writable, ours
    (a private directory under TMPDIR) where it is not; either way the second process
    compiles nothing."""
    home, xdg, tmp = tmp_path / "home", tmp_path / "xdg", tmp_path / "tmp"
    for d in (home, xdg, tmp):
        d.mkdir()
    if not home_writable:
        for d in (home, xdg):
            d.chmod(0o555)
    env = _env(tmp_path, installed, HOME=str(home), XDG_CACHE_HOME=str(xdg), TMPDIR=str(tmp))
    del env["NUMBA_CACHE_DIR"]
    read_only = [installed] + ([] if home_writable else [home, xdg])
    rng = np.random.default_rng(0)  # READ_ONLY's labels
    expected = cm.adjusted_mutual_info_score(rng.integers(0, 40, 4000),
                                             rng.integers(0, 40, 4000))
    first = _read_only_run(installed, read_only, env)
    second = _read_only_run(installed, read_only, env)
    assert not first["package_writable"]
    assert first["value"] == pytest.approx(expected, abs=1e-12) == second["value"]
    assert first["compiles"] > 0 and second["compiles"] == 0
    assert _cache_files(installed) == []
    where = xdg / "numba" if home_writable else \
        tmp / f"clustermetrics-numba-cache-{os.getuid()}"
    assert any("_emi_kernels._pair_values-" in f.name for f in _cache_files(where))
    assert _cache_files(tmp if home_writable else xdg) == []
    for d in (home, xdg):
        d.chmod(0o755)


def test_private_cache_directory_refuses_one_others_can_write(tmp_path, monkeypatch):
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    root = Path(_jit.private_cache_root())
    root.mkdir(mode=0o777)
    root.chmod(0o777)  # as another user's planted directory would be
    with pytest.raises(OSError, match="not private"):
        _jit._ensure_private(str(root))
    root.chmod(0o700)
    _jit._ensure_private(str(root))


# ------------------------------------------------------------- the note on a terminal
NOTE = """
    import numpy as np
    from clustermetrics.compute import jit as _jit
    _jit.NOTE_AFTER = 0.05  # the EMI kernel compiles in well under the usual second
    import clustermetrics as cm
    rng = np.random.default_rng(0)
    print(cm.adjusted_mutual_info_score(rng.integers(0, 40, 4000), rng.integers(0, 40, 4000)))
"""


def test_compile_note_on_a_terminal_only(tmp_path):
    env = _env(tmp_path)
    leader, follower = pty.openpty()
    try:
        child = subprocess.Popen([sys.executable, "-c", textwrap.dedent(NOTE)], env=env,
                                 stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                 stderr=follower)
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            chunks.append(chunk)
        child.wait(timeout=900)
    finally:
        os.close(leader)
    terminal = b"".join(chunks).decode()
    assert child.returncode == 0, terminal
    assert terminal.count(_jit.NOTE) == 1, terminal
    assert terminal.strip() == _jit.NOTE  # one line, nothing else
    piped = _child(NOTE, _env(tmp_path / "again"))  # a cold cache again, stderr a pipe
    assert piped.returncode == 0 and piped.stderr == "", piped.stderr


# ------------------------------------------------------------------ the thresholds
@pytest.fixture
def fresh_process(monkeypatch):
    """Auto mode, as in a process where no kernel is ready yet; ``cached`` sets whether
    numba's cache holds them."""
    monkeypatch.setattr(_kernels, "_mode", "auto")
    monkeypatch.setattr(_kernels, "_ready", set())
    monkeypatch.setattr(_kernels, "_spent", {})
    state = {"cached": True}
    monkeypatch.setattr(_kernels, "_cached", lambda module, name: state["cached"])
    return state


def _smallest_paying(accessor, low: float = 1.0, high: float = 1e12) -> float:
    """The least work (to 1 %) for which ``accessor`` hands out the kernel (the kernels
    ready before are all that is ready at each try)."""
    ready, spent = set(_kernels._ready), dict(_kernels._spent)
    while high / low > 1.01:
        mid = (low * high) ** 0.5
        pays = accessor(mid) is not None
        _kernels._ready.clear()
        _kernels._ready.update(ready)
        _kernels._spent.clear()  # each try as the first call of its size
        _kernels._spent.update(spent)
        low, high = (low, mid) if pays else (mid, high)
    return high


ACCESSORS = [score_kernels.emi_kernel, matching_kernels.matching_kernel,
             matching_kernels.cardinality_kernel,
             hierarchy_kernels.hierarchy_kernel, score_kernels.sampling_stats_kernel,
             matching_kernels.warm_matching_kernels, score_kernels.smi_variance_kernel,
             score_kernels.smi_variances_kernel]


@pytest.mark.parametrize("accessor", ACCESSORS)
def test_a_compile_needs_more_work_than_a_load(fresh_process, accessor):
    warm = _smallest_paying(accessor)
    fresh_process["cached"] = False
    cold = _smallest_paying(accessor)
    assert 1 < warm < cold < 1e12
    with _kernels.repeated(1000):  # a loop of replicates repays a compile sooner
        assert _smallest_paying(accessor) < cold


@pytest.mark.parametrize("accessor", ACCESSORS)
def test_a_ready_kernel_runs_whatever_the_work(fresh_process, accessor):
    fresh_process["cached"] = False
    assert accessor(1e12) is not None
    assert accessor(1.0) is not None


def test_little_work_leaves_numba_unimported(fresh_process, monkeypatch):
    monkeypatch.setattr(_kernels, "_loaded", {})
    for accessor in ACCESSORS:
        assert accessor(10.0) is None
    assert _kernels._loaded == {}


@pytest.mark.parametrize("accessor", ACCESSORS)
@pytest.mark.parametrize("cached", [True, False])
def test_a_loop_of_small_calls_loads_the_kernel_once_their_work_repays_it(
        fresh_process, accessor, cached):
    """Calls each a tenth of the least paying work: the kernel is handed out from the
    call whose work, with the numpy path's work before it, reaches that least (a user's
    loop of small calls compiles once their numpy time would have paid for it)."""
    fresh_process["cached"] = cached
    least = _smallest_paying(accessor)
    calls = [accessor(least / 10) is not None for _ in range(12)]
    assert calls.index(True) in (9, 10)  # 10 tenths, to the bisection's 1 %
    assert not any(calls[:calls.index(True)]) and all(calls[calls.index(True):])


def test_once_numba_is_set_up_a_cached_kernel_runs_whatever_the_work(fresh_process):
    """numba set up by one kernel, loading another from the cache costs milliseconds."""
    hierarchy_kernels.hierarchy_kernel(1e12)
    assert score_kernels.emi_kernel(10.0) is not None


def test_once_numba_is_set_up_a_compile_needs_less_work(fresh_process):
    fresh_process["cached"] = False
    alone = _smallest_paying(score_kernels.emi_kernel)
    hierarchy_kernels.hierarchy_kernel(1e12)
    assert _smallest_paying(score_kernels.emi_kernel) < alone
    assert score_kernels.emi_kernel(10.0) is None  # before, it compiled once any kernel loaded
