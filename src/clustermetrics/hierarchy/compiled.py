"""The compiled path of the hierarchies (numba), declared for
:mod:`clustermetrics.compute.dispatch`, which runs it only where the tree repays loading or
compiling it; else the merge loop runs in Python (:mod:`.merge_loop`)."""

from __future__ import annotations

from types import ModuleType
from typing import Any

from ..compute.dispatch import Kernel, wanted

__all__ = ["hierarchy_kernel"]


def _merges() -> ModuleType:
    # imports numba at its top: imported here only where the kernel pays
    from . import merge_kernels
    return merge_kernels


# Points of a dendrogram: the Python merge loop needs ~2 us per moved cell (N log2 N / 2
# of them at most).
HIERARCHY = Kernel(_merges, ((_merges, "_merge_levels", 0.9),), threshold=2e4, growth=1.0)


def hierarchy_kernel(points: float) -> Any:
    """The compiled per-merge loop of :mod:`clustermetrics.hierarchy.cuts`, or None to run
    it in Python (``points``: the number of leaves)."""
    mod = wanted(HIERARCHY, points)
    return None if mod is None else mod.merge_levels
