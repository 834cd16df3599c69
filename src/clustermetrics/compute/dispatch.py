"""When compiled kernels (numba) run: loaded only when they pay.

numba is a dependency, but ``import clustermetrics`` never imports it. Making a kernel
ready in a process costs: importing numba and setting it up, ~0.4 s once per process
(``_SETUP_SECONDS``); then per compiled function a few milliseconds to load its machine
code from numba's on-disk cache, or, where the cache does not hold it yet (a fresh
install, an upgrade), 0.4-2 s to compile it, once (:mod:`clustermetrics.compute.jit`: where the
cache lives; a note on a terminal while a compile runs). A kernel runs when that cost is
nil (ready in this process, or numba set up and the cache holding it), or when the work
at hand reaches its threshold for the cost: the work from which the numpy path, on its
slowest shapes, takes as long as numba's set-up (``threshold``, measured), scaled to
other costs as the numpy path's time grows (as work ** ``growth``). The work counted is
this call's (times its repeats, :func:`repeated`) plus what the numpy path has done in the
kernel's place before in this process on calls of the user's own (outside
:func:`repeated`), so that a user's loop of small calls compiles once
their numpy time reaches the compile's (the ski-rental rule: at worst about twice the
time of the better choice made in hindsight). So a compile is paid only by work that
repays it, and where the cache is warm nothing changes from the thresholds measured for
numba's load. Otherwise the numpy path runs. Both paths compute the same exact
quantities (tests compare them).

Each layer declares its compiled paths as :class:`Kernel` objects next to the code that
calls them (:mod:`clustermetrics.matching.compiled`, :mod:`clustermetrics.scores.compiled`,
:mod:`clustermetrics.hierarchy.compiled`), each with a function that imports its module;
this module decides, for the work at hand, whether to call it.

``CLUSTERMETRICS_KERNELS`` (environment) or :func:`set_kernels` chooses: ``"auto"``
(default), ``"numba"`` (always) or ``"numpy"`` (never).
"""

from __future__ import annotations

import importlib.util
import os
import pickle
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from types import ModuleType

__all__ = ["Kernel", "set_kernels", "kernels_mode", "compiled_available", "pays_by_work",
           "repeated", "repeats", "wanted"]

_MODES = ("auto", "numba", "numpy")
# Importing numba and setting it up, once per process: 0.13 s of CPU to import, 0.17 s to
# set up and load the first cached function (benchmarks/bench_compile.py: a new process
# on a warm cache, 0.35-0.45 s of wall time in all); each further cached function 3-6 ms.
_SETUP_SECONDS = 0.4

# a function importing a kernel module: an explicit import, in a function so that numba
# (which the kernel modules import at their top) loads only when a kernel pays
Loader = Callable[[], ModuleType]


@dataclass(frozen=True)
class Kernel:
    """A compiled path: ``load`` imports its module; ``compiles`` lists the compiled
    functions it calls, as (loader of their module, name, seconds to compile it once numba
    is set up, on an idle 2-core machine: measured with benchmarks/bench_compile.py);
    ``threshold``, the work from which loading it from a warm cache pays in a fresh
    process; and ``growth``, the exponent of the numpy path's time in the work."""

    load: Loader
    compiles: tuple[tuple[Loader, str, float], ...]
    threshold: float
    growth: float

    def threshold_at(self, cost: float) -> float:
        """The work from which making the kernel ready for ``cost`` seconds pays."""
        return self.threshold * (cost / _SETUP_SECONDS) ** (1.0 / self.growth)


_mode = os.environ.get("CLUSTERMETRICS_KERNELS", "auto")
# loader -> the loaded module, or False where numba is unavailable
_loaded: dict[Loader, ModuleType | bool] = {}
# (loader, function) of the compiled functions handed out in this process: compiled or
# loaded, they cost nothing more
_ready: set[tuple[Loader, str]] = set()
# whether numba is installed, once looked up (see `compiled_available`)
_numba_found: bool | None = None
# how many times the work at hand is about to be done (see `repeated`): a context
# variable, so that the replicate threads (compute.threads runs each task in a copy of the
# submitting context) neither see nor undo each other's scaling
_repeats: ContextVar[int] = ContextVar("clustermetrics_repeats", default=1)
# per kernel (its compiled functions), the work its numpy path has done in this process
# in its place: a loop of calls each too small to repay a compile repays it together
_spent: dict[tuple[tuple[Loader, str, float], ...], float] = {}


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


def pays_by_work(kernel: Kernel, work: float) -> bool:
    """Whether ``kernel`` pays for this work, judged by the work alone (as in a process
    where numba is not loaded yet and its cache holds the kernel); imports nothing. A
    choice that changes a result (SMI's sampler, hence its draws) reads it, so that the
    result does not depend on what ran before in the process or on numba's cache."""
    if _mode == "numpy":
        return False
    if _mode == "auto" and work * _repeats.get() < kernel.threshold:
        return False
    return _available(kernel.load)


@contextmanager
def repeated(times: float) -> Iterator[None]:
    """Inside it, the work asked of a kernel counts ``times`` over: a loop that repeats one
    computation (bootstrap replicates, permutation draws) loads the compiled kernels when
    their load repays over all the repeats, not only when one repeat does. A ``times``
    below 1 scales the repeats down (never below 1): inside a loop, the share of its
    iterations that will compute this work (the rest found computed already)."""
    old = _repeats.get()
    token = _repeats.set(max(1, round(old * times)) if times < 1 else old * max(1, int(times)))
    try:
        yield
    finally:
        _repeats.reset(token)


def repeats() -> int:
    """How many times the work at hand is about to be done (1 outside :func:`repeated`)."""
    return _repeats.get()


def _load(load: Loader) -> ModuleType | None:
    if load not in _loaded:
        try:
            _loaded[load] = load()
        except ImportError:
            _loaded[load] = False
    return _loaded[load] or None


def _available(load: Loader) -> bool:
    if load in _loaded:
        return bool(_loaded[load])
    return importlib.util.find_spec("numba") is not None


def _pending(kernel: Kernel) -> list[tuple[Loader, str, float]]:
    """The compiled functions of ``kernel`` not yet ready in this process."""
    return [c for c in kernel.compiles if c[:2] not in _ready]


def _cost(kernel: Kernel, module: ModuleType | None) -> float:
    """Seconds to make ``kernel`` ready: numba's set-up unless done, then the compile of
    each pending function that ``module`` (imported) shows the cache does not hold (none
    without ``module``); loading a cached one counts as nothing (milliseconds)."""
    setup = 0.0 if _ready else _SETUP_SECONDS
    if module is None:
        return setup
    return setup + sum(seconds for load, name, seconds in _pending(kernel)
                       if not _cached(load, name))


def _cached(load: Loader, name: str) -> bool:
    """Whether numba's on-disk cache holds a compiled version of the function ``name`` of
    the module ``load`` imports, as numba reads it (its index, checked against the
    source); False where it cannot tell."""
    loaded = _load(load)
    try:
        index = getattr(loaded, name)._cache._cache_file._load_index()
    except (AttributeError, OSError, EOFError, pickle.UnpicklingError, ValueError):
        return False  # no cache, a damaged index, or not the index numba 0.60-0.68 keep
    return bool(index)


def _rent(kernel: Kernel, spent: float, work: float) -> None:
    """Count ``work`` done on the numpy path in ``kernel``'s place, for a call of the user's
    own (outside :func:`repeated`): a loop inside the library (bootstrap replicates) has
    counted its repeats already, and its work estimates, made for the slowest shapes, would
    add up to a compile in the middle of a user's next small call."""
    if _repeats.get() == 1:
        _spent[kernel.compiles] = spent + work


def wanted(kernel: Kernel, work: float) -> ModuleType | None:
    """The module of ``kernel`` if it runs for ``work`` (see the module docstring), else
    None: the caller then takes its numpy (or scipy, or plain Python) path."""
    if _mode not in _MODES:  # only the environment can set it so
        raise ValueError(f"CLUSTERMETRICS_KERNELS must be one of {', '.join(_MODES)}; "
                         f"got {_mode!r}")
    if _mode == "numpy":
        return None
    pending = _pending(kernel)
    if _mode == "auto" and pending:
        # the work about to be done, and what the numpy path did before in its place:
        # numpy's time so far is the rent, the kernel's cost the price
        spent = _spent.get(kernel.compiles, 0.0)
        total = work * _repeats.get() + spent
        cheapest = _cost(kernel, None)
        if cheapest and total < kernel.threshold_at(cheapest):
            _rent(kernel, spent, work)
            return None  # cheaper in numpy than even loading it: numba stays unimported
        module = _load(kernel.load)
        cost = _cost(kernel, module)
        if module is None or (cost and total < kernel.threshold_at(cost)):
            _rent(kernel, spent, work)
            return None  # cheaper in numpy than compiling it
    module = _load(kernel.load)
    if module is not None:
        _ready.update(c[:2] for c in pending)
    return module
