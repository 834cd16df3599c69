"""Compiled kernels (numba), loaded only when they pay.

numba is a dependency, but ``import clustermetrics`` never imports it. Making a kernel
ready in a process costs: importing numba and setting it up, ~0.4 s once per process
(``_SETUP_SECONDS``); then per compiled function a few milliseconds to load its machine
code from numba's on-disk cache, or, where the cache does not hold it yet (a fresh
install, an upgrade), 0.4-2 s to compile it, once (:mod:`clustermetrics._jit`: where the
cache lives; a note on a terminal while a compile runs). A kernel runs when that cost is
nil (ready in this process, or numba set up and the cache holding it), or when the work
at hand reaches its threshold for the cost: the work from which the numpy path, on its
slowest shapes, takes as long as numba's set-up (``threshold``, measured), scaled to
other costs as the numpy path's time grows (as work ** ``growth``). The work counted is
this call's (times its repeats, :func:`repeated`) plus what the numpy path has done in the
kernel's place before in this process, so that a loop of small calls compiles once
their numpy time reaches the compile's (the ski-rental rule: about twice the time of the
better choice made in hindsight, at worst). So a compile is paid only by work that repays it,
and where the cache is warm nothing changes from the thresholds measured for numba's
load. Otherwise the numpy path runs. Both paths compute
the same exact quantities (tests compare them).

``CLUSTERMETRICS_KERNELS`` (environment) or :func:`set_kernels` chooses: ``"auto"``
(default), ``"numba"`` (always) or ``"numpy"`` (never).
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import pickle
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import ModuleType

__all__ = ["set_kernels", "kernels_mode", "emi_kernel", "matching_kernel",
           "cardinality_kernel", "hierarchy_kernel",
           "sampling_stats_kernel", "sampling_kernel_pays", "smi_variance_kernel",
           "smi_variances_kernel",
           "compiled_available", "repeated",
           "repeats", "warm_matching_kernels"]

_MODES = ("auto", "numba", "numpy")
# Importing numba and setting it up, once per process: 0.13 s of CPU to import, 0.17 s to
# set up and load the first cached function (benchmarks/bench_compile.py: a new process
# on a warm cache, 0.35-0.45 s of wall time in all); each further cached function 3-6 ms.
_SETUP_SECONDS = 0.4


@dataclass(frozen=True)
class _Kernel:
    """A compiled path: its module; the compiled functions it calls, as (module, name,
    seconds to compile it once numba is set up, on an idle 2-core machine: measured with
    benchmarks/bench_compile.py); ``threshold``, the work from which loading it from a
    warm cache pays in a fresh process; and ``growth``, the exponent of the numpy path's
    time in the work."""

    module: str
    compiles: tuple[tuple[str, str, float], ...]
    threshold: float
    growth: float

    def threshold_at(self, cost: float) -> float:
        """The work from which making the kernel ready for ``cost`` seconds pays."""
        return self.threshold * (cost / _SETUP_SECONDS) ** (1.0 / self.growth)


# Window cells of the expected-MI sum: numpy needs ~25 ns per cell.
_EMI = _Kernel(".metrics._emi_kernels", ((".metrics._emi_kernels", "_emi", 0.6),),
               threshold=3e7, growth=1.0)
# Cells of a sparse assignment: on noise tables scipy's LAPJVsp needs 0.04-0.18 s for 5e4
# cells, 0.16-0.31 s for 1e5, 2.7-6.4 s for 3e5 and grows superlinearly; the compiled
# phases 0.01, 0.02-0.05 and 0.4-0.6 s (load 5, benchmarks/bench_shapes.py for 1e6 cells).
# Hard mid-size tables (a chain: class i split over clusters i and i + 1) take LAPJVsp
# 0.15 s at 2.4e4 cells, 0.57 s at 5e4, 1.0-1.3 s at 7e4 and 1.9-2.1 s at 9.8e4 (N = 1e6,
# 20x scikit-learn's ARI), the compiled solver ~0.07 s once loaded: from 4e4 cells the
# ~0.5 s load is the smaller risk. The phases start from the compiled maximum matching.
# (Where the phases give up, on graded weights, the auction takes over: ~1 s more to
# compile on a fresh install, not counted here since the weights decide it.)
_MATCHING = _Kernel("._numba_kernels", (("._numba_kernels", "_place_cells", 0.2),
                                        ("._matching_start", "_rules", 0.5),
                                        ("._numba_kernels", "_tight_augment", 0.5),
                                        ("._numba_kernels", "_phase_loop", 0.9)),
                    threshold=4e4, growth=2.0)
# Cells of a maximum-cardinality matching: scipy's Hopcroft-Karp needs 6 ms for 1.25e5
# cells of noise (0.08 s for 10^6) but, from its greedy start, is quadratic where
# augmenting paths are long (a class-cluster chain or cycle with its ids shuffled: 0.2 s at
# 1.25e5 cells, 0.55 s at 2.5e5, 10 s at 10^6); the compiled Karp-Sipser start and
# Hopcroft-Karp take 0.015, 0.05 and 0.4 s there (load 2-3) once loaded.
_CARDINALITY = _Kernel("._numba_kernels", _MATCHING.compiles[:3], threshold=1e5, growth=2.0)
# Points of a dendrogram: the Python merge loop needs ~2 us per moved cell (N log2 N / 2
# of them at most).
_HIERARCHY = _Kernel("._hierarchy_kernels",
                     (("._hierarchy_kernels", "_merge_levels", 0.9),),
                     threshold=2e4, growth=1.0)
# Items counted into random tables (N per table): the numpy path sorts the cell keys
# (~20-50 ns an item at N = 1e6 beyond the shuffle), the compiled count ~5 ns.
_SAMPLING = _Kernel("._sampling_kernels", (("._sampling_kernels", "_pairing_stats", 0.4),),
                    threshold=2e7, growth=1.0)
# Cells of one warm-started matching of a bootstrap replicate: it replaces the cold
# solver's, or scipy's, per replicate; the table's own prices come from the cold phases.
_WARM = _Kernel("._warm_kernels", (*_MATCHING.compiles,
                                   ("._numba_kernels", "_bid_loop", 0.3),
                                   ("._numba_kernels", "_reverse_loop", 0.3)),
                threshold=4e4, growth=2.0)
# Terms of the numpy exact SMI variance (~100 ns each, see metrics._smi.EXACT_TERM_COST):
# 5e6 terms are ~0.5 s, about numba's set-up. Compiling the expansion cold took 7.9 s of
# CPU at load ~3 where the row-conditioning pass it replaced took 4.35 s (listed at 2.5
# for an idle machine): ~4.5 s idle. The stack's pass compiles the same callees (~0.5 s
# more when it comes first).
_SMI = _Kernel("._smi_kernels", (("._smi_kernels", "expansion_moments", 4.5),),
               threshold=5e6, growth=1.0)
# the same for the tables of a stack together (bootstrap replicates sharing their laws)
_SMI_MANY = _Kernel("._smi_kernels", (("._smi_kernels", "expansion_variances", 5.0),),
                    threshold=5e6, growth=1.0)
_mode = os.environ.get("CLUSTERMETRICS_KERNELS", "auto")
# module name -> the loaded module, or False where numba is unavailable
_loaded: dict[str, ModuleType | bool] = {}
# (module, function) of the compiled functions handed out in this process: compiled or
# loaded, they cost nothing more
_ready: set[tuple[str, str]] = set()
# whether numba is installed, once looked up (see `compiled_available`)
_numba_found: bool | None = None
# how many times the work at hand is about to be done (see `repeated`)
_repeats = 1
# per kernel (its compiled functions), the work its numpy path has done in this process
# in its place: a loop of calls each too small to repay a compile repays it together
_spent: dict[tuple[tuple[str, str, float], ...], float] = {}


def set_kernels(mode: str) -> str:
    """Choose when compiled kernels run: "auto", "numba" or "numpy"; returns the old mode."""
    global _mode
    if mode not in _MODES:
        raise ValueError(f"kernels mode must be one of {', '.join(_MODES)}; got {mode!r}")
    old, _mode = _mode, mode
    return old


def kernels_mode() -> str:
    return _mode


def compiled_available() -> bool:
    """Whether compiled kernels may run at all: the mode allows them and numba is installed
    (imports nothing). Choices that must not depend on what this process has loaded so far
    (which SMI method ``auto`` takes) read this, not whether a kernel is loaded."""
    global _numba_found
    if _mode == "numpy":
        return False
    if _loaded:
        return any(_loaded.values())
    if _numba_found is None:
        _numba_found = importlib.util.find_spec("numba") is not None
    return _numba_found


def sampling_kernel_pays(items: float) -> bool:
    """Whether the compiled count of random tables pays for this work, judged by the work
    alone (as in a process where numba is not loaded yet and its cache holds the kernel);
    imports nothing. SMI's choice of sampler reads it: so its draws, and its estimate, do
    not depend on what ran before in the process or on the state of numba's cache."""
    if _mode == "numpy":
        return False
    if _mode == "auto" and items * _repeats < _SAMPLING.threshold:
        return False
    return _available(_SAMPLING.module)


@contextmanager
def repeated(times: float) -> Iterator[None]:
    """Inside it, the work asked of a kernel counts ``times`` over: a loop that repeats one
    computation (bootstrap replicates, permutation draws) loads the compiled kernels when
    their load repays over all the repeats, not only when one repeat does. A ``times``
    below 1 scales the repeats down (never below 1): inside a loop, the share of its
    iterations that will compute this work (the rest found computed already)."""
    global _repeats
    old = _repeats
    _repeats = max(1, round(old * times)) if times < 1 else old * max(1, int(times))
    try:
        yield
    finally:
        _repeats = old


def repeats() -> int:
    """How many times the work at hand is about to be done (1 outside :func:`repeated`)."""
    return _repeats


def _load(name: str) -> ModuleType | None:
    # imported by name here, not at the top of a module, so that numba loads only when a
    # kernel pays (the modules themselves import numba at their top)
    if name not in _loaded:
        try:
            _loaded[name] = importlib.import_module(name, __package__)
        except ImportError:
            _loaded[name] = False
    return _loaded[name] or None


def _available(name: str) -> bool:
    if name in _loaded:
        return bool(_loaded[name])
    return importlib.util.find_spec("numba") is not None


def _pending(kernel: _Kernel) -> list[tuple[str, str, float]]:
    """The compiled functions of ``kernel`` not yet ready in this process."""
    return [c for c in kernel.compiles if c[:2] not in _ready]


def _cost(kernel: _Kernel, module: ModuleType | None) -> float:
    """Seconds to make ``kernel`` ready: numba's set-up unless done, then the compile of
    each pending function that ``module`` (imported) shows the cache does not hold (none
    without ``module``); loading a cached one counts as nothing (milliseconds)."""
    setup = 0.0 if _ready else _SETUP_SECONDS
    if module is None:
        return setup
    return setup + sum(seconds for mod, name, seconds in _pending(kernel)
                       if not _cached(mod, name))


def _cached(module: str, name: str) -> bool:
    """Whether numba's on-disk cache holds a compiled version of ``module.name``, as
    numba reads it (its index, checked against the source); False where it cannot tell."""
    loaded = _load(module)
    try:
        index = getattr(loaded, name)._cache._cache_file._load_index()
    except (AttributeError, OSError, EOFError, pickle.UnpicklingError, ValueError):
        return False  # no cache, a damaged index, or not the index numba 0.60-0.68 keep
    return bool(index)


def _wanted(kernel: _Kernel, work: float) -> ModuleType | None:
    """The module of ``kernel`` if it runs for ``work`` (see the module docstring)."""
    if _mode not in _MODES:  # only the environment can set it so
        raise ValueError(f"CLUSTERMETRICS_KERNELS must be one of {', '.join(_MODES)}; "
                         f"got {_mode!r}")
    if _mode == "numpy":
        return None
    pending = _pending(kernel)
    if _mode == "auto" and pending:
        # the work about to be done, and what the numpy path did before in its place:
        # numpy's time so far is the rent, the kernel's cost the price (compile once the
        # rent paid reaches the price)
        spent = _spent.get(kernel.compiles, 0.0)
        total = work * _repeats + spent
        cheapest = _cost(kernel, None)
        if cheapest and total < kernel.threshold_at(cheapest):
            _spent[kernel.compiles] = spent + work
            return None  # cheaper in numpy than even loading it: numba stays unimported
        module = _load(kernel.module)
        cost = _cost(kernel, module)
        if module is None or (cost and total < kernel.threshold_at(cost)):
            _spent[kernel.compiles] = spent + work
            return None  # cheaper in numpy than compiling it
    module = _load(kernel.module)
    if module is not None:
        _ready.update(c[:2] for c in pending)
    return module


def emi_kernel(cells: float):
    """The compiled expected-MI sum, or None to use numpy (``cells``: estimated work)."""
    mod = _wanted(_EMI, cells)
    return None if mod is None else mod.expected_mutual_information


def matching_kernel(cells: float):
    """The compiled sparse maximum-weight matching, or None to use scipy (``cells``: the
    number of cells of the assignment problem)."""
    mod = _wanted(_MATCHING, cells)
    return None if mod is None else mod.max_weight_matching


def cardinality_kernel(cells: float):
    """The compiled maximum-cardinality bipartite matching
    (:func:`clustermetrics._numba_kernels.max_cardinality`), or None to use scipy's
    ``maximum_bipartite_matching`` (``cells``: the number of edges)."""
    mod = _wanted(_CARDINALITY, cells)
    return None if mod is None else mod.max_cardinality


def hierarchy_kernel(points: float):
    """The compiled per-merge loop of :mod:`clustermetrics.hierarchy`, or None to run it
    in Python (``points``: the number of leaves)."""
    mod = _wanted(_HIERARCHY, points)
    return None if mod is None else mod.merge_levels


def sampling_stats_kernel(items: float):
    """The compiled statistics of a random pairing
    (:func:`clustermetrics._sampling_kernels.pairing_stats`), or None to use numpy."""
    mod = _wanted(_SAMPLING, items)
    return None if mod is None else mod.pairing_stats


def smi_variance_kernel(terms: float):
    """The compiled exact variance of the SMI
    (:func:`clustermetrics._smi_kernels.expansion_moments`), or None to run it uncompiled
    (``terms``: the uncompiled run's estimated work, in terms of the numpy sums)."""
    mod = _wanted(_SMI, terms)
    return None if mod is None else mod.expansion_moments


def smi_variances_kernel(terms: float):
    """The compiled exact variances of the SMI of many tables at once
    (:func:`clustermetrics._smi_kernels.expansion_variances`), or None to take them one by
    one (``terms``: the uncompiled runs' estimated work, in terms of the numpy sums)."""
    mod = _wanted(_SMI_MANY, terms)
    return None if mod is None else mod.expansion_variances


def warm_matching_kernels(cells: float):
    """The compiled warm-started matching of bootstrap replicates
    (:mod:`clustermetrics._warm_kernels`: ``reference_prices``, ``warm_matching``), or None
    (``cells``: the number of cells of one assignment problem)."""
    return _wanted(_WARM, cells)
