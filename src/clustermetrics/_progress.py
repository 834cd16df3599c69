"""Progress on stderr for long work (experiment runs, bootstrap replicates).

tqdm draws the bar when it is installed (the ``experiments`` extra); a core-only install
gets a plain counter redrawn in place. Either shows only when stderr is a terminal, so
logs, pipes and tests stay clean.
"""

from __future__ import annotations

import sys
from typing import Any

__all__ = ["progress_bar"]


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
        self.done += n
        if self.done % self._step == 0 or self.done >= self.total:
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
