"""Progress on stderr for long work (experiment runs, bootstrap replicates).

tqdm draws the bar when it is installed (the ``experiments`` extra); a core-only install
gets a plain counter redrawn in place. Either shows only when stderr is a terminal, so
logs, pipes and tests stay clean.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

__all__ = ["progress_bar", "progress_callback", "slow_step_note"]


class _Silent:
    def update(self, n: int = 1) -> None:
        pass

    def set_postfix_str(self, text: str) -> None:
        pass

    def close(self) -> None:
        pass


class _Counter(_Silent):
    """``desc done/total`` on one stderr line, redrawn about a hundred times in all."""

    def __init__(self, total: int, desc: str):
        self.total, self.desc, self.done = total, desc, 0
        self._step = max(1, total // 100)

    def update(self, n: int = 1) -> None:
        before, self.done = self.done, self.done + n
        # redrawn when a step boundary is crossed (updates may come in blocks)
        if self.done // self._step > before // self._step or self.done >= self.total:
            print(f"\r{self.desc} {self.done}/{self.total}", end="", file=sys.stderr,
                  flush=True)

    def close(self) -> None:
        if self.done:
            print(file=sys.stderr, flush=True)


def progress_bar(total: int, desc: str, enabled: bool | None = None) -> Any:
    """A bar with ``update``/``set_postfix_str``/``close``; ``enabled=None`` means "stderr
    is a terminal"."""
    if enabled is None:
        enabled = sys.stderr.isatty()
    if not enabled:
        return _Silent()
    try:
        from tqdm import tqdm
    except ImportError:
        return _Counter(total, desc)
    return tqdm(total=total, desc=desc, file=sys.stderr, leave=False, dynamic_ncols=True)


@contextlib.contextmanager
def progress_callback(progress: Any, total: int, desc: str,
                      ) -> Iterator[Any]:
    """A ``callback(done, total)`` for work reported as it goes: ``progress`` itself when
    it is a callable; else a bar (``progress_bar``) shown when ``progress`` is True, or, for
    None, when stderr is a terminal; nothing for False. The bar is closed on leaving."""
    if callable(progress):
        yield progress
        return
    bar = progress_bar(total, desc, progress)
    shown = [0]

    def update(done: int, _total: int) -> None:
        bar.update(done - shown[0])
        shown[0] = done
    try:
        yield update
    finally:
        bar.close()


@contextlib.contextmanager
def slow_step_note(what: str, after: float = 2.0, enabled: bool | None = None) -> Iterator[None]:
    """Say on stderr that ``what`` is still running once it has taken ``after`` seconds,
    and how long it took when it ends (only then); ``enabled=None`` means "stderr is a
    terminal". Scores are silent while fast, so logs, pipes and tests stay clean."""
    if enabled is None:
        enabled = sys.stderr.isatty()
    if not enabled:
        yield
        return
    start = time.perf_counter()
    shown = threading.Event()

    def note() -> None:
        shown.set()
        print(f"clustermetrics: {what} still running ({after:.0f} s so far) ...",
              file=sys.stderr, flush=True)

    timer = threading.Timer(after, note)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        if shown.is_set():
            print(f"clustermetrics: {what} done in {time.perf_counter() - start:.1f} s",
                  file=sys.stderr, flush=True)
