"""A progress bar over the runs: tqdm on stderr when it is a terminal, else nothing."""

from __future__ import annotations

import sys
from typing import Any


class _Silent:
    def update(self, n: int = 1) -> None:
        pass

    def set_postfix_str(self, text: str) -> None:
        pass

    def close(self) -> None:
        pass


def progress_bar(total: int, desc: str, enabled: bool | None = None) -> Any:
    """A bar with ``update``/``set_postfix_str``/``close``; ``enabled=None`` means "stderr
    is a terminal". Without tqdm (a core-only install) there is simply no bar."""
    if enabled is None:
        enabled = sys.stderr.isatty()
    if not enabled:
        return _Silent()
    try:
        from tqdm import tqdm
    except ImportError:
        return _Silent()
    return tqdm(total=total, desc=desc, file=sys.stderr, leave=False, dynamic_ncols=True)
