"""How the numba kernels are compiled: :func:`kernel` (numba's ``njit`` with an on-disk
cache that a read-only installation cannot break) and :func:`one_type` (the cast of an
argument to the one type each kernel is compiled for).

numba keeps a cached function's machine code next to its source (``__pycache__``) where
that is writable, else in the user's cache directory (``$XDG_CACHE_HOME/numba``, or
``~/.cache/numba``), or where ``NUMBA_CACHE_DIR`` says; a read-only site-packages is
therefore fine (tests/compute/test_kernel_compile.py). Where none of these is writable (a
read-only image whose home directory is read-only too) numba refuses to define a cached
function at all. The kernels then keep their code in a directory of this user's own under
the temporary directory, created private (mode 0o700) and used only while it is (not
one that another user could have planted code in), and where even that cannot be had,
they compile in every process. No numba setting changes: the user's own functions are
cached as numba decides.

Compiling takes seconds, once: while a compile of these kernels has run for
``NOTE_AFTER`` seconds, a one-line note says so on stderr, once per process, and only
where stderr is a terminal (not in a pipe, a log, or a notebook cell).
"""

from __future__ import annotations

import os
import stat
import sys
import tempfile
import threading
from collections.abc import Callable
from typing import Any

import numba
from numba.core import caching, compiler, event

__all__ = ["kernel", "KernelPipeline", "NOTE", "NOTE_AFTER"]

NOTE = ("clustermetrics: note: compiling numba kernels on first use (seconds, once: "
        "cached afterwards) ...")
NOTE_AFTER = 1.0


def kernel(func: Callable[..., Any] | None = None, *, inner: bool = False,
           **options: Any) -> Any:
    """``numba.njit(cache=True, nogil=True, **options)``, cached in a private temporary
    directory where numba finds no place for the cache (see the module docstring),
    compiled by :class:`KernelPipeline` where numba offers its passes.

    numba builds no C entry point (a wrapper for C callers, which none of ours has).
    ``inner=True``: a function that only other kernels call. numba then builds no entry
    point for Python callers either, a tenth of a small function's compile time: a call
    from Python would crash the interpreter, so tests/compute/test_kernel_compile.py checks that
    every use of one is inside a kernel. numba's inlining (``inline="always"``) is not
    offered: it types the inlined code again at every call (the hierarchy's helpers
    compiled ~0.3 s slower inlined), and LLVM inlines small kernels all the same."""
    if "inline" in options:
        raise TypeError("kernel: no inline option (the kernel pipeline does not inline; "
                        "use inner=True)")
    options.update(no_cfunc_wrapper=True)
    if KernelPipeline is not None:
        options.update(pipeline_class=KernelPipeline)
    if inner:
        options.update(no_cpython_wrapper=True)

    def decorate(f: Callable[..., Any]) -> Any:
        try:
            return numba.njit(cache=True, nogil=True, **options)(f)
        except RuntimeError:  # numba: "cannot cache function ...: no locator available"
            dispatcher = numba.njit(nogil=True, **options)(f)
            cache = _private_cache(f)
            if cache is not None:
                dispatcher._cache = cache  # what numba's Dispatcher.enable_caching sets
            return dispatcher
    return decorate if func is None else decorate(func)


def private_cache_root() -> str:
    """The directory of the fallback cache: this user's own under the temporary one."""
    user = os.getuid() if hasattr(os, "getuid") else "user"
    return os.path.join(tempfile.gettempdir(), f"clustermetrics-numba-cache-{user}")


def _ensure_private(root: str) -> None:
    """Create ``root`` (mode 0o700) or accept it only if it is a directory of ours that
    no one else can write: loading a cached kernel runs its code. Raises OSError."""
    os.makedirs(root, mode=0o700, exist_ok=True)
    st = os.lstat(root)
    if not stat.S_ISDIR(st.st_mode):
        raise OSError(f"{root} is not a directory")
    if hasattr(os, "getuid") and (st.st_uid != os.getuid() or st.st_mode & 0o022):
        raise OSError(f"{root} is not private to this user")


def _private_cache(f: Callable[..., Any]) -> Any:
    if _PrivateCache is None:
        return None
    try:
        return _PrivateCache(f)
    except RuntimeError:  # the private directory cannot be had either
        return None


try:  # numba's cache internals (stable since 0.5x); without them, no fallback cache
    class _PrivateLocator(caching._SourceFileBackedLocatorMixin,  # type: ignore[name-defined,misc]
                          caching._CacheLocator):  # type: ignore[name-defined,misc]
        """numba's cache locator for :func:`private_cache_root`."""

        def __init__(self, py_func: Any, py_file: str):
            self._py_file = py_file
            self._lineno = py_func.__code__.co_firstlineno
            self._cache_path = os.path.join(private_cache_root(),
                                            self.get_suitable_cache_subpath(py_file))

        def get_cache_path(self) -> str:
            return self._cache_path

        def ensure_cache_path(self) -> None:
            _ensure_private(private_cache_root())
            super().ensure_cache_path()

    class _PrivateImpl(caching.CompileResultCacheImpl):  # type: ignore[misc]
        _locator_classes = [_PrivateLocator]

    class _PrivateCache(caching.FunctionCache):  # type: ignore[misc]
        _impl_class = _PrivateImpl
except AttributeError:
    _PrivateCache = None  # type: ignore[assignment,misc]


try:  # numba's compiler passes (numba.core.untyped_passes and typed_passes, 0.5x-0.68)
    from numba.core import typed_passes, untyped_passes
    from numba.core.compiler_machinery import PassManager

    _PASSES = (
        (untyped_passes.IRProcessing, "processing IR"),
        (untyped_passes.RewriteDynamicRaises, "rewrite dynamic raises"),
        (untyped_passes.ReconstructSSA, "ssa"),
        (typed_passes.NopythonTypeInference, "nopython frontend"),
        (typed_passes.PreLowerStripPhis, "remove phis nodes"),
        (typed_passes.IRLegalization, "ensure IR is legal prior to lowering"),
        (typed_passes.AnnotateTypes, "annotate types"),
        (typed_passes.NativeLowering, "native lowering"),
        (typed_passes.NoPythonBackend, "nopython mode backend"),
    )

    class KernelPipeline(compiler.CompilerBase):  # type: ignore[misc]
        """numba's nopython pipeline (``DefaultPassBuilder.define_nopython_pipeline``)
        without the passes for what the kernels do not use: with-contexts, closures and
        comprehensions, ``literally`` and ``literal_unroll``, functions and overloads to
        inline (:func:`kernel` takes no ``inline``), branches on constants, and the
        rewrites of array expressions, constant indices and semantic constants
        (optimisations for code the kernels do not have). Code that needs one of them
        fails to compile here rather than compiling otherwise (tests/compute/test_kernel_compile.py
        compiles every kernel). The passes left type, lower
        and optimise as numba's own do, in about a tenth less time (numba 0.68)."""

        def define_pipelines(self) -> list[Any]:
            manager = PassManager("clustermetrics kernel")
            if self.state.func_ir is None:
                manager.add_pass(untyped_passes.TranslateByteCode, "analyzing bytecode")
                manager.add_pass(untyped_passes.FixupArgs, "fix up args")
            for cls, description in _PASSES:
                manager.add_pass(cls, description)
            manager.finalize()
            return [manager]
except (ImportError, AttributeError):
    KernelPipeline = None  # type: ignore[assignment,misc]


class _CompileNote(event.Listener):  # type: ignore[misc]
    """Shows :data:`NOTE` once, on a terminal, when a compile of these kernels is running
    :data:`NOTE_AFTER` seconds after the first one of a run of compiles began."""

    def __init__(self) -> None:
        self.depth = 0  # nested compiles of ours under way (numba compiles one at a time)
        self.armed: threading.Timer | None = None
        self.shown = False

    def on_start(self, ev: Any) -> None:
        if _ours(ev):
            self.depth += 1
            if not self.shown and self.armed is None:
                self.armed = threading.Timer(NOTE_AFTER, self._show)
                self.armed.daemon = True
                self.armed.start()

    def on_end(self, ev: Any) -> None:
        if _ours(ev):
            self.depth -= 1

    def _show(self) -> None:
        self.armed = None
        if self.depth > 0 and not self.shown and _terminal():
            self.shown = True
            print(NOTE, file=sys.stderr, flush=True)


def _ours(ev: Any) -> bool:
    return getattr(ev.data["dispatcher"].py_func, "__module__", "").startswith(
        "clustermetrics.")


def _terminal() -> bool:
    try:
        return bool(sys.stderr.isatty())
    except (AttributeError, ValueError):  # no stderr, or a closed one
        return False


event.register("numba:compile", _CompileNote())
