"""Optional compiled kernels (numba, the ``fast`` extra), loaded only when they pay.

``import clustermetrics`` never imports numba (it alone takes ~0.45 s to import, ~0.55 s
with the cached machine code; compiling on a fresh install ~3 s, once). A kernel is used
when numba is installed and either the kernels are already loaded in this process or the
work at hand is big enough to repay loading them; otherwise the pure-numpy path runs. Both
paths compute the same exact quantities (tests compare them).

``CLUSTERMETRICS_KERNELS`` (environment) or :func:`set_kernels` chooses: ``"auto"``
(default), ``"numba"`` (always, when installed) or ``"numpy"`` (never).
"""

from __future__ import annotations

import importlib
import importlib.util
import os
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType

__all__ = ["set_kernels", "kernels_mode", "emi_kernel", "matching_kernel",
           "cardinality_kernel", "hierarchy_kernel",
           "sampling_stats_kernel", "sampling_kernel_pays", "smi_variance_kernel",
           "compiled_available", "repeated",
           "repeats", "warm_matching_kernels"]

_MODES = ("auto", "numba", "numpy")
# Window cells of the expected-MI sum above which loading numba pays in a fresh process:
# numpy needs ~25 ns per cell, loading numba and the cached kernels ~0.6 s.
_EMI_LOAD_CELLS = 3e7
# Cells of a sparse assignment above which loading numba pays (~0.7 s with the cached
# machine code): on noise tables scipy's LAPJVsp needs 0.04-0.18 s for 5e4 cells,
# 0.16-0.31 s for 1e5, 2.7-6.4 s for 3e5 and grows superlinearly; the compiled phases
# 0.01, 0.02-0.05 and 0.4-0.6 s (load 5, benchmarks/bench_shapes.py for 1e6 cells).
# Hard mid-size tables (a chain: class i split over clusters i and i + 1) take LAPJVsp
# 0.15 s at 2.4e4 cells, 0.57 s at 5e4, 1.0-1.3 s at 7e4 and 1.9-2.1 s at 9.8e4 (N = 1e6,
# 20x scikit-learn's ARI), the compiled solver ~0.07 s once loaded: from 4e4 cells the
# ~0.5 s load is the smaller risk.
_MATCH_LOAD_CELLS = 4e4
# Cells of a maximum-cardinality matching above which loading numba pays: scipy's
# Hopcroft-Karp needs 6 ms for 1.25e5 cells of noise (0.08 s for 10^6) but, from its greedy
# start, is quadratic where augmenting paths are long (a class-cluster chain or cycle with
# its ids shuffled: 0.2 s at 1.25e5 cells, 0.55 s at 2.5e5, 10 s at 10^6); the compiled
# Karp-Sipser start and Hopcroft-Karp take 0.015, 0.05 and 0.4 s there (load 2-3) once
# loaded (~0.5 s).
_CARDINALITY_LOAD_CELLS = 1e5
# Points of a dendrogram above which loading numba pays: the Python merge loop needs
# ~2 us per moved cell (N log2 N / 2 of them at most), loading the kernel ~0.6 s.
_HIERARCHY_LOAD_POINTS = 20_000
# Items counted into random tables (N per table) above which loading numba pays: the
# numpy path sorts the cell keys (~20-50 ns an item at N = 1e6 beyond the shuffle), the
# compiled count ~5 ns; loading costs ~0.6-1 s (the break-even of the EMI kernel's rule).
_SAMPLING_LOAD_ITEMS = 2e7
# Terms of the numpy exact SMI variance (~100 ns each, see metrics._smi.EXACT_TERM_COST)
# above which loading numba and the compiled variance pays: 5e6 terms are ~0.5 s, the
# load ~0.4-0.6 s from the cached machine code.
_SMI_LOAD_TERMS = 5e6
_mode = os.environ.get("CLUSTERMETRICS_KERNELS", "auto")
# module name -> the loaded module, or False where numba is unavailable
_loaded: dict[str, ModuleType | bool] = {}
# whether numba is installed, once looked up (see `compiled_available`)
_numba_found: bool | None = None
# how many times the work at hand is about to be done (see `repeated`)
_repeats = 1


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
    """Whether :func:`sampling_stats_kernel` would return the compiled kernel for this work
    (numba installed and the mode and the work allow it); imports nothing."""
    if _mode == "numpy" or (_mode == "auto" and not any(_loaded.values())
                            and items * _repeats < _SAMPLING_LOAD_ITEMS):
        return False
    if "._sampling_kernels" in _loaded:
        return bool(_loaded["._sampling_kernels"])
    return importlib.util.find_spec("numba") is not None


@contextmanager
def repeated(times: int) -> Iterator[None]:
    """Inside it, the work asked of a kernel counts ``times`` over: a loop that repeats one
    computation (bootstrap replicates, permutation draws) loads the compiled kernels when
    their load repays over all the repeats, not only when one repeat does."""
    global _repeats
    old = _repeats
    _repeats = old * max(1, int(times))
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


def _wanted(name: str, work: float, threshold: float) -> ModuleType | None:
    if _mode not in _MODES:  # only the environment can set it so
        raise ValueError(f"CLUSTERMETRICS_KERNELS must be one of {', '.join(_MODES)}; "
                         f"got {_mode!r}")
    if _mode == "numpy":
        return None
    if _mode == "auto" and not any(_loaded.values()) and work * _repeats < threshold:
        return None  # cheaper in numpy than loading (or, once, compiling) the kernels
    return _load(name)


def emi_kernel(cells: float):
    """The compiled expected-MI sum, or None to use numpy (``cells``: estimated work)."""
    mod = _wanted(".metrics._emi_kernels", cells, _EMI_LOAD_CELLS)
    return None if mod is None else mod.expected_mutual_information



def matching_kernel(cells: float):
    """The compiled sparse maximum-weight matching, or None to use scipy (``cells``: the
    number of cells of the assignment problem)."""
    mod = _wanted("._numba_kernels", cells, _MATCH_LOAD_CELLS)
    return None if mod is None else mod.max_weight_matching


def cardinality_kernel(cells: float):
    """The compiled maximum-cardinality bipartite matching
    (:func:`clustermetrics._numba_kernels.max_cardinality`), or None to use scipy's
    ``maximum_bipartite_matching`` (``cells``: the number of edges)."""
    mod = _wanted("._numba_kernels", cells, _CARDINALITY_LOAD_CELLS)
    return None if mod is None else mod.max_cardinality


def hierarchy_kernel(points: float):
    """The compiled per-merge loop of :mod:`clustermetrics.hierarchy`, or None to run it
    in Python (``points``: the number of leaves)."""
    mod = _wanted("._hierarchy_kernels", points, _HIERARCHY_LOAD_POINTS)
    return None if mod is None else mod.merge_levels


def sampling_stats_kernel(items: float):
    """The compiled statistics of a random pairing
    (:func:`clustermetrics._sampling_kernels.pairing_stats`), or None to use numpy."""
    mod = _wanted("._sampling_kernels", items, _SAMPLING_LOAD_ITEMS)
    return None if mod is None else mod.pairing_stats


def smi_variance_kernel(terms: float):
    """The compiled exact variance of the SMI
    (:func:`clustermetrics._smi_kernels.exact_moments`), or None to use numpy (``terms``:
    the numpy path's estimated hypergeometric terms)."""
    mod = _wanted("._smi_kernels", terms, _SMI_LOAD_TERMS)
    return None if mod is None else mod.exact_moments


def warm_matching_kernels(cells: float):
    """The compiled warm-started matching of bootstrap replicates
    (:mod:`clustermetrics._warm_kernels`: ``reference_prices``, ``warm_matching``), or None
    (``cells``: the number of cells of one assignment problem)."""
    return _wanted("._warm_kernels", cells, _MATCH_LOAD_CELLS)
