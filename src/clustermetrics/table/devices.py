"""Arrays of libraries other than numpy (CuPy, PyTorch, JAX, any array-API array): how
they are recognised, and how they come to the host. Only numpy here, so that every
reader of labels below the table can accept them (``validation.py`` copies them to the
host; ``device_labels.py`` counts them where they live instead)."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["is_device_array", "to_host"]

# Libraries whose arrays may lack ``__array_namespace__`` (PyTorch's tensors, CuPy before
# v14) and that array-api-compat wraps in a namespace
_LIBRARIES = frozenset({"cupy", "torch", "jax", "jaxlib"})


def is_device_array(values: Any) -> bool:
    """Whether ``values`` is an array of a library other than numpy: asked without
    importing anything, so that numpy input and sequences cost nothing more."""
    if values is None or isinstance(values, (np.ndarray, np.generic, list, tuple, str,
                                             bytes, range)):
        return False
    kind = type(values)
    return kind.__module__.partition(".")[0] in _LIBRARIES or \
        hasattr(kind, "__array_namespace__")


def to_host(values: Any) -> np.ndarray:
    """A device array as numpy: CuPy's ``get``, PyTorch's ``cpu``, else DLPack (any array
    on the CPU) or the array protocol (JAX copies from its device)."""
    lib = type(values).__module__.partition(".")[0]
    if lib == "cupy":
        return np.asarray(values.get())
    if lib == "torch":
        return np.asarray(values.detach().cpu().numpy())
    try:
        return np.asarray(np.from_dlpack(values))
    except (TypeError, RuntimeError, BufferError, ValueError, AttributeError):
        return np.asarray(values)
