"""Replicates scored on several cores: bootstrap and paired replicates are independent, and
their heavy parts (numpy on whole arrays, the compiled matchings) release the GIL.

The random draws stay in the calling thread, in order, so every replicate, and so every
interval and p-value, is the same whatever the number of threads. Only the scoring of the
drawn counts runs in the pool, at most two replicates per thread in flight (a replicate
holds a few arrays of the table's size).

``CLUSTERMETRICS_THREADS`` (environment) or :func:`set_threads` sets the number of
threads: by default the cores this process may use, at most 4; 1 scores in the calling
thread.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextvars import copy_context
from typing import TypeVar

__all__ = ["MIN_CELLS", "replicate_threads", "scored_in_order", "set_threads"]

T = TypeVar("T")
R = TypeVar("R")

# Tables with fewer cells score a replicate in well under a millisecond: a pool's hand-offs
# would cost more than the second core saves.
MIN_CELLS = 4096
_MAX_DEFAULT = 4


def _default() -> int:
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return max(1, min(cores, _MAX_DEFAULT))


def _from_environment() -> int | None:
    value = os.environ.get("CLUSTERMETRICS_THREADS", "").strip()
    if not value:
        return None
    threads = int(value) if value.isascii() and value.isdigit() else 0
    if threads < 1:
        raise ValueError(f"CLUSTERMETRICS_THREADS must be a whole number of threads >= 1; "
                         f"got {value!r}")
    return threads


_threads: int | None = None


def set_threads(threads: int | None) -> int | None:
    """Score replicates on ``threads`` threads (None: the environment's
    ``CLUSTERMETRICS_THREADS``, else the default); returns the previous setting."""
    global _threads
    if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int)
                                or threads < 1):
        raise ValueError(f"threads must be a whole number >= 1 or None; got {threads!r}")
    old, _threads = _threads, threads
    return old


def replicate_threads(cells: int) -> int:
    """Threads to score the replicates of a table of ``cells`` non-zero cells (a bad
    ``CLUSTERMETRICS_THREADS`` is refused whatever the table)."""
    threads = _threads if _threads is not None else _from_environment() or _default()
    return 1 if cells < MIN_CELLS else threads


def scored_in_order(score: Callable[[T], R], inputs: Iterable[T], threads: int,
                    ) -> Iterator[R]:
    """``score(x)`` for each of ``inputs``, in their order; ``inputs`` is consumed in the
    calling thread (draw there), the scoring runs on ``threads`` threads but for the
    first input's (what a table caches for its replicates, e.g. the optimal prices of its
    matching, is then computed once, not by every thread at the start)."""
    inputs = iter(inputs)
    for x in inputs:  # the first in the calling thread: it fills the table's caches once
        yield score(x)
        if threads > 1:
            break
    if threads < 2:
        return
    pool = ThreadPoolExecutor(threads, thread_name_prefix="clustermetrics")
    pending: deque[Future[R]] = deque()
    try:
        for x in inputs:
            # in a copy of this context: what the caller set (compute.dispatch.repeated)
            # holds in the task, and what the task sets stays there
            pending.append(pool.submit(copy_context().run, score, x))
            if len(pending) >= 2 * threads:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
    finally:
        # stopped early (an error, Ctrl-C): drop what has not started and return at once;
        # the replicates being scored finish in the background
        pool.shutdown(wait=False, cancel_futures=True)
