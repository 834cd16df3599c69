"""What a cover score is: its registry entry.

Cover scores compare two covers (clusterings in which an item may be in several
communities or in none), not two label sequences, so they read a
:class:`~clustermetrics.table.cover.CoverPair` instead of a contingency table and have a
registry of their own (:data:`~clustermetrics.scores.registry.COVER_METRICS`), which the
label scores' registry-wide tests do not read. Each public cover score has the shape
``f(true_cover, pred_cover=None, *, items="union", **options)``: either side a list of
communities, a membership matrix or a :class:`~clustermetrics.Cover`, or one
``CoverPair`` built once and scored many times.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from textwrap import indent
from typing import Any, TypeVar

from ..table.cover import CoverPair
from .spec import Better, Real

__all__ = ["COVER", "CoverMetricInfo", "cover_parameters", "check_finite_options"]

COVER = "cover"
F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True, kw_only=True)
class CoverMetricInfo:
    """One registered cover score.

    ``func`` is the public score function, called on a :class:`CoverPair` with
    ``options`` (a variant is its function with other options). ``symmetric``: swapping
    the two covers leaves the value unchanged (under the default item set, the union).
    ``perfect``: the value of two identical covers in which no community holds another
    or every item; ``perfect_always`` False when such communities may change it (a
    convention of the score's published definition, stated in its docstring).
    ``crisp``: the key of the label score (in ``METRICS``) this one equals when both
    covers are partitions given as covers, or None when it has no crisp counterpart."""

    key: str
    name: str
    func: Callable[..., float]
    lower: float
    upper: float
    better: Better
    symmetric: bool
    reference: str
    perfect: float = 1.0
    perfect_always: bool = True
    options: Mapping[str, Any] = field(default_factory=dict)
    crisp: str | None = None
    family: str = COVER

    def compute(self, pair: CoverPair) -> float:
        """This score of a pair of covers, with the entry's options."""
        return float(self.func(pair, **self.options))


def check_finite_options(force_finite: Any, finite_value: Any) -> None:
    """Refuse, by name, a ``force_finite`` that is not a bool (``"no"`` would read as
    true) and a ``finite_value`` that is not a finite real (``nan`` would come back as
    the score): the checks the label scores' ``@score`` makes, once for every cover
    score with a 0/0 case."""
    if not isinstance(force_finite, bool):
        raise ValueError(f"force_finite must be True or False, got {force_finite!r}")
    Real("finite value").check("finite_value", finite_value)


# the parameters every cover score takes, written once into each docstring
_COVERS = """true_cover, pred_cover : list of communities, membership matrix, Cover or CoverPair
    Each a cover: a list (or mapping) of communities, each an iterable of item ids;
    an items x communities 0/1 matrix; or a :class:`~clustermetrics.Cover`. A
    :class:`~clustermetrics.CoverPair` as ``true_cover`` (``pred_cover`` None)
    holds both."""
_ITEMS = """items : {'union', 'true'} or collection, default='union'
    The items counted: every item of either cover, the true cover's, or the ids
    given."""


def cover_parameters(func: F) -> F:
    """``func`` with its docstring's lines ``{covers}`` and ``{items}`` written out: the
    parameters every cover score shares, in numpydoc."""
    doc = func.__doc__ or ""
    for mark, text in (("{covers}", _COVERS), ("{items}", _ITEMS)):
        doc = doc.replace(f"    {mark}\n", indent(text, "    ") + "\n")
    func.__doc__ = doc
    return func

