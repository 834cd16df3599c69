"""Strict JSON for every JSON output (reports, diagnostics, experiments).

The text is RFC 8259 JSON: ``json.loads(text, parse_constant=...)`` never meets ``NaN``
or ``Infinity``. Two rules, one for each kind of value:

* **numbers** (scores, interval bounds, spreads, times): finite floats as numbers, a
  non-finite float (an undefined interval, say) as ``null``;
* **labels** (classes, clusters, noise labels): ``str`` and ``bool`` as themselves, integers
  (numpy's included) as JSON integers, written exactly at any size, finite floats as
  numbers (Python's shortest round-trip form, so they read back to the same double), and
  every other value -- a non-finite float, a tuple, a noise singleton (``noise(-1)#3``),
  a date, a ``Decimal``, ``bytes`` -- as its ``str()``, the text the table shows.

Objects the encoder does not know (neither number, label, mapping nor sequence) are
written as their ``str()`` as well, so a JSON output never fails on a value's type.
"""

from __future__ import annotations

import json
import math
import numbers
from collections.abc import Mapping
from typing import Any

__all__ = ["json_label", "json_data", "dumps"]


def json_label(value: Any) -> Any:
    """A label as JSON data (see the module docstring).

    >>> import datetime, decimal
    >>> [json_label(v) for v in ["a", 3, 2.5, float("inf"), (-1, 0), decimal.Decimal("1.5"),
    ...                          datetime.date(2020, 1, 2), b"x", True]]
    ['a', 3, 2.5, 'inf', '(-1, 0)', '1.5', '2020-01-02', "b'x'", True]
    """
    if isinstance(value, (str, bool)):
        return value
    if hasattr(value, "dtype") and hasattr(value, "item") and value.dtype.kind in "biuf":
        value = value.item()  # numpy scalar of a plain number type
    if isinstance(value, (bool, int)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    return str(value)


def json_data(value: Any) -> Any:
    """``value`` as JSON data: mappings (keys as text), named tuples (as objects), lists
    and tuples (as arrays), numbers (non-finite as None), strings and bools; anything else
    as its ``str()``. Labels must already have gone through :func:`json_label`."""
    if value is None or isinstance(value, (str, bool)):
        return value
    if hasattr(value, "_asdict"):
        value = value._asdict()
    elif hasattr(value, "__dataclass_fields__"):
        value = {f: getattr(value, f) for f in value.__dataclass_fields__}
    if isinstance(value, Mapping):
        return {str(k): json_data(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_data(v) for v in value]
    if hasattr(value, "dtype") and hasattr(value, "item"):
        if value.dtype.kind in "biuf":
            value = value.item()
        elif getattr(value, "ndim", 0) > 0:
            return [json_data(v) for v in value.tolist()]
    if isinstance(value, (bool, int)):
        return value
    if isinstance(value, numbers.Real):
        value = float(value)
        return value if math.isfinite(value) else None
    return str(value)


def dumps(value: Any, indent: int | None = 2) -> str:
    """Strict JSON text of :func:`json_data` of ``value`` (``allow_nan=False``)."""
    return json.dumps(json_data(value), indent=indent, allow_nan=False)
