"""The compiled paths of the scores (numba), declared for
:mod:`clustermetrics.compute.dispatch`, which runs each only where the work repays loading
or compiling it; else the callers take their numpy paths (the same exact quantities)."""

from __future__ import annotations

from types import ModuleType
from typing import Any

from ..compute.dispatch import Kernel, pays_by_work, wanted

__all__ = ["emi_kernel", "sampling_kernel_pays", "sampling_stats_kernel",
           "smi_variance_kernel", "smi_variances_kernel"]


# The kernel modules import numba at their top: imported here, in functions, only where a
# kernel pays (numba's import and set-up cost ~0.4 s, see clustermetrics.compute.dispatch).
def _emi() -> ModuleType:
    from . import _emi_kernels
    return _emi_kernels


def _sampling() -> ModuleType:
    from . import _sampling_kernels
    return _sampling_kernels


def _smi() -> ModuleType:
    from . import _smi_kernels
    return _smi_kernels


# Window cells of the expected-MI sum: numpy needs ~25 ns per cell.
EMI = Kernel(_emi, ((_emi, "_pair_values", 0.6),), threshold=3e7, growth=1.0)
# Items counted into random tables (N per table): the numpy path sorts the cell keys
# (~20-50 ns an item at N = 1e6 beyond the shuffle), the compiled count ~5 ns.
SAMPLING = Kernel(_sampling, ((_sampling, "_pairing_stats", 0.4),), threshold=2e7,
                  growth=1.0)
# The uncompiled exact SMI variance's estimated time (the numpy expansion of
# scores._smi_vectorised), in units of ~100 ns (scores._smi_cost.EXACT_TERM_COST, a term of
# the nested sums): 5e6 are ~0.5 s, about numba's set-up. Compiling the expansion cold took 7.9 s of
# CPU at load ~3 where the row-conditioning pass it replaced took 4.35 s (listed at 2.5
# for an idle machine): ~4.5 s idle. The stack's pass compiles the same callees (~0.5 s
# more when it comes first).
SMI = Kernel(_smi, ((_smi, "expansion_moments", 4.5),), threshold=5e6, growth=1.0)
# the same for the tables of a stack together (bootstrap replicates sharing their laws)
SMI_MANY = Kernel(_smi, ((_smi, "expansion_variances", 5.0),), threshold=5e6, growth=1.0)


def emi_kernel(cells: float) -> Any:
    """The compiled terms of the expected-MI sum, one per pair of margins, or None to use
    numpy (``cells``: estimated work)."""
    mod = wanted(EMI, cells)
    return None if mod is None else mod.pair_values


def sampling_stats_kernel(items: float) -> Any:
    """The compiled statistics of a random pairing
    (:func:`clustermetrics.scores._sampling_kernels.pairing_stats`), or None to use numpy."""
    mod = wanted(SAMPLING, items)
    return None if mod is None else mod.pairing_stats


def sampling_kernel_pays(items: float) -> bool:
    """Whether the compiled count of random tables pays for this work, by the work alone
    (:func:`clustermetrics.compute.dispatch.pays_by_work`): SMI's choice of sampler reads
    it, so its draws do not depend on what ran before in the process."""
    return pays_by_work(SAMPLING, items)


def smi_variance_kernel(terms: float) -> Any:
    """The compiled exact variance of the SMI
    (:func:`clustermetrics.scores._smi_kernels.expansion_moments`), or None to run it
    uncompiled (``terms``: the uncompiled run's estimated time, in units of a term of the
    nested sums, ~100 ns)."""
    mod = wanted(SMI, terms)
    return None if mod is None else mod.expansion_moments


def smi_variances_kernel(terms: float) -> Any:
    """The compiled exact variances of the SMI of many tables at once
    (:func:`clustermetrics.scores._smi_kernels.expansion_variances`), or None to run them
    uncompiled (``terms``: the uncompiled pass's estimated time, in units of a term of the
    nested sums, ~100 ns)."""
    mod = wanted(SMI_MANY, terms)
    return None if mod is None else mod.expansion_variances
