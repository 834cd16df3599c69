"""The arrays the compiled kernels take, made by numpy (imports no numba: callers on the
numpy path use it too)."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["one_type"]


def one_type(array: Any, dtype: Any) -> np.ndarray:
    """``array`` as the C-contiguous, writable ``dtype`` array the kernels take, copied only
    where it is not one already: numba compiles a version of a kernel for every dtype,
    layout and read-only flag it is called with (seconds each on a fresh install)."""
    return np.require(array, dtype, ["C", "W"])
