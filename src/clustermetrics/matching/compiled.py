"""The compiled paths of the matchings (numba), declared for
:mod:`clustermetrics.compute.dispatch`, which runs each only where the work repays loading
or compiling it; else the callers take scipy's solvers."""

from __future__ import annotations

from functools import partial
from types import ModuleType
from typing import Any

from ..compute.dispatch import Kernel, wanted

__all__ = ["cardinality_kernel", "matching_kernel", "warm_matching_kernels"]


# The kernel modules import numba at their top: imported here, in functions, only where a
# kernel pays (numba's import and set-up cost ~0.4 s, see clustermetrics.compute.dispatch).
def _kernels() -> ModuleType:
    from . import kernels
    return kernels


def _phases() -> ModuleType:
    from . import phases
    return phases


def _auction() -> ModuleType:
    from . import auction
    return auction


def _karp_sipser() -> ModuleType:
    from . import karp_sipser
    return karp_sipser


def _warm() -> ModuleType:
    from . import warm_kernels
    return warm_kernels


# Cells of a sparse assignment: on noise tables scipy's LAPJVsp needs 0.04-0.18 s for 5e4
# cells, 0.16-0.31 s for 1e5, 2.7-6.4 s for 3e5 and grows superlinearly; the compiled
# phases 0.01, 0.02-0.05 and 0.4-0.6 s (load 5, benchmarks/bench_shapes.py for 1e6 cells).
# Hard mid-size tables (a chain: class i split over clusters i and i + 1) take LAPJVsp
# 0.15 s at 2.4e4 cells, 0.57 s at 5e4, 1.0-1.3 s at 7e4 and 1.9-2.1 s at 9.8e4 (N = 1e6,
# 20x scikit-learn's ARI), the compiled solver ~0.07 s once loaded: from 4e4 cells the
# ~0.5 s load is the smaller risk. The phases start from the compiled maximum matching.
# (Where the phases give up, on graded weights, the auction takes over: ~1 s more to
# compile on a fresh install, not counted here since the weights decide it.)
MATCHING = Kernel(_kernels, ((_phases, "_place_cells", 0.2), (_karp_sipser, "_rules", 0.5),
                            (_phases, "_tight_augment", 0.5), (_phases, "_phase_loop", 0.9)),
                  threshold=4e4, growth=2.0)
# The same for graded weights (PSI's n_ij / max(a_i, b_j): the clusters' sizes order
# each row), where the phases give up after a scan or two and the auction solves the
# problem: only the auction is compiled (PSI's first call on a 10^6-item noise table 1.7 s
# against 4.0 s with the phases compiled too; its later calls 0.8 s against 1.1 s).
AUCTION = Kernel(_kernels, ((_phases, "_place_cells", 0.2), (_auction, "_bid_loop", 0.3),
                            (_auction, "_reverse_loop", 0.3)),
                 threshold=4e4, growth=2.0)
# Cells of a maximum-cardinality matching: scipy's Hopcroft-Karp needs 6 ms for 1.25e5
# cells of noise (0.08 s for 10^6) but, from its greedy start, is quadratic where
# augmenting paths are long (a class-cluster chain or cycle with its ids shuffled: 0.2 s at
# 1.25e5 cells, 0.55 s at 2.5e5, 10 s at 10^6); the compiled Karp-Sipser start and
# Hopcroft-Karp take 0.015, 0.05 and 0.4 s there (load 2-3) once loaded.
CARDINALITY = Kernel(_phases, MATCHING.compiles[:3], threshold=1e5, growth=2.0)
# Cells of one warm-started matching of a bootstrap replicate: it replaces the cold
# solver's, or scipy's, per replicate; the table's own prices come from the cold phases.
WARM = Kernel(_warm, (*MATCHING.compiles, (_auction, "_bid_loop", 0.3),
                      (_auction, "_reverse_loop", 0.3)),
              threshold=4e4, growth=2.0)


def matching_kernel(cells: float, graded: bool = False) -> Any:
    """The compiled sparse maximum-weight matching, or None to use scipy (``cells``: the
    number of cells of the assignment problem; ``graded``: weights that order each row,
    solved by the auction alone, :data:`AUCTION`)."""
    mod = wanted(AUCTION if graded else MATCHING, cells)
    if mod is None:
        return None
    return partial(mod.max_weight_matching, graded=True) if graded else \
        mod.max_weight_matching


def cardinality_kernel(cells: float) -> Any:
    """The compiled maximum-cardinality bipartite matching
    (:func:`clustermetrics.matching.phases.max_cardinality`), or None to use scipy's
    ``maximum_bipartite_matching`` (``cells``: the number of edges)."""
    mod = wanted(CARDINALITY, cells)
    return None if mod is None else mod.max_cardinality


def warm_matching_kernels(cells: float) -> ModuleType | None:
    """The compiled warm-started matching of bootstrap replicates
    (:mod:`clustermetrics.matching.warm_kernels`: ``reference_prices``, ``warm_matching``),
    or None (``cells``: the number of cells of one assignment problem)."""
    return wanted(WARM, cells)
