"""What a score is: its registry entry, and the one public shape every score function has.

A family module writes each score as a function of a :class:`~clustermetrics.Contingency`
(plus its options) and decorates it with :func:`score`, which gives it the public,
scikit-learn-style signature ``f(labels_true, labels_pred=None, *, contingency=None,
**options)``, checks the options it declares, applies the one zero-denominator policy,
and writes the numpydoc ``Parameters`` and ``Returns`` sections once. Next to its
functions the module lists its :class:`MetricInfo` entries (``ENTRIES``); the registry
only collects them.
"""

from __future__ import annotations

import functools
import inspect
import math
import numbers
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Literal, NamedTuple, Protocol, TypeVar, cast

import numpy as np

from ..table import REAL_MASSES, Contingency, as_contingency

__all__ = ["PAIR", "INFO", "MATCH", "STATISTICS", "MetricInfo", "Choice", "Integer", "Real",
           "ScoreSpec", "Significance", "UndefinedMetricError",
           "ScoreUnavailable", "Undefined", "ScoreFunction", "Better",
           "deprecated_alias", "require_counts", "score"]

R = TypeVar("R")
R_co = TypeVar("R_co", covariant=True)

Better = Literal["higher", "lower"] | float  # MetricInfo.better


# units in the last place within which a value of many tables is snapped to its range's end
_SNAP_ULPS = 8


# The sufficient statistics a score may declare it reads (ScoreSpec.reads), besides the
# table's sizes (N, the numbers of classes, clusters and non-empty cells): the pair
# counts (yy, yn, ny, nn) and the entropies (MI, H(truth), H(prediction)).
STATISTICS = ("pairs", "information")


@dataclass(frozen=True, kw_only=True)
class ScoreSpec:
    """Everything a score can do besides being called: what :func:`score` declared.

    ``body`` is the function of a table (one :class:`~clustermetrics.Contingency`, or many
    at once: a :class:`~clustermetrics.table.stack.TableStack`, the cuts of a dendrogram).
    ``real``: what the score means on a table of real-valued masses, or None when it needs
    whole items (``needs`` says why). ``no_bootstrap``: why resampling items gives the
    score no valid interval, or None. ``finite_default``: the value a 0/0 gets under the
    default policy (None: the score's own convention). ``reads``: the sufficient
    statistics (of :data:`STATISTICS`) the body reads besides the table's sizes, ``()``
    for the sizes alone, or None when it reads the table itself (cells or margins).
    """

    body: Callable[..., Any]
    real: str | None
    needs: str
    no_bootstrap: str | None
    finite_default: float | None
    reads: tuple[str, ...] | None


class ScoreFunction(Protocol[R_co]):
    """The public shape of every score: ``f(labels_true, labels_pred=None, *,
    contingency=None, **options)``; ``spec`` is its declaration."""

    spec: ScoreSpec
    __name__: str

    def __call__(self, labels_true: Any = None, labels_pred: Any = None, *,
                 sample_weight: Any = None, contingency: Any = None,
                 **options: Any) -> R_co: ...


PAIR, INFO, MATCH = "pair counting", "information", "set matching"


class Significance(NamedTuple):
    """A score against its analytic null distribution (random labellings with the table's
    margins: the permutation model).

    ``z`` = (value - null_mean) / null_sd; ``pvalue`` the one-sided probability, under the
    null, of a value at least as good as the observed one (in the score's direction), from
    the normal approximation stated in ``method``. When the margins admit a single value of
    the score (null_sd = 0), z is 0.0 and the p-value 1.0.
    """

    z: float
    pvalue: float
    null_mean: float
    null_sd: float
    method: str


@dataclass(frozen=True, kw_only=True)
class MetricInfo:
    """One registered score.

    ``func`` is the public score function, called on a table with ``options`` (a variant
    of a score is its function with other options: NMI with ``average_method="max"``).
    ``better`` is ``"higher"``, ``"lower"``, or the value at which the score is best (the
    clustering ratio: 1.0). ``perfect`` is the value on identical labellings, or None when
    it depends on the data (MI = H). ``detail``, when set, returns a richer result (the
    recovery matching) whose ``rate`` is the score; ``evaluate`` keeps it in
    ``Report.details``. ``label_invariant`` is False for scores whose tie-breaking follows
    label order (the paper's greedy recovery rate). ``significance``, when set, gives the
    score's :class:`Significance` from its exact null moments (no sampling).
    """

    key: str
    name: str
    func: ScoreFunction[Any]
    family: str
    lower: float
    upper: float
    better: Better
    symmetric: bool
    adjusted: bool
    reference: str
    perfect: float | None = 1.0
    options: Mapping[str, Any] = field(default_factory=dict)
    detail: Callable[..., Any] | None = None
    label_invariant: bool = True
    significance: Callable[[Contingency], Significance] | None = None

    def compute(self, table: Contingency) -> tuple[float, Any]:
        """(value, detail-or-None) of this score for ``table``, kept in the score's range
        as :meth:`compute_many` keeps many tables' (a bootstrap replicate scored alone,
        whose pair counts leave out an item's pairs with its own copies, may fall past
        it)."""
        if self.detail is not None:
            if self.spec.real is None:  # the detail is a body: check here
                require_counts(table, self.func.__name__, self.spec.needs)
            result = self.detail(table, **self.options)
            return self._in_range(float(result.rate)), result
        return self._in_range(float(self.func(table, **self.options))), None

    def _in_range(self, value: float) -> float:
        return min(max(value, self.lower), self.upper)  # NaN stays NaN

    def compute_many(self, many: Any) -> Any:
        """This score of many tables at once: a float64 array, one value per table.

        ``many`` offers what the score function reads as arrays with one entry per
        table (a :class:`~clustermetrics.table.stack.TableStack` of bootstrap replicates,
        the cuts of a dendrogram), and records the tables where the score is a 0/0
        (``record_undefined``); those get the score's default zero-division value, as
        one table's :class:`Undefined` does. The first 0/0 a table meets wins, as the
        first raise does for one table."""
        default = self.spec.finite_default
        many.undefined = []
        shape = many.n_clusters.shape
        with np.errstate(all="ignore"):  # 0/0 entries are computed, then overwritten
            try:
                got = self.spec.body(many, **self.options)
                out = np.array(np.broadcast_to(np.asarray(got, dtype=np.float64), shape))
            except Undefined as undefined:  # every table is a 0/0
                return np.full(shape, undefined.value if default is None else default,
                               dtype=np.float64)
        done = np.zeros(shape, dtype=bool)
        for mask, value in many.undefined:
            now = mask & ~done
            out[now] = value[now] if default is None else default
            done |= now
        return _within_range(out, self.lower, self.upper)

    @property
    def spec(self) -> ScoreSpec:
        """The declaration of the score's function (:class:`ScoreSpec`)."""
        return self.func.spec

    @property
    def real_weights(self) -> str | None:
        """What the score means on a table of real-valued masses (real ``sample_weight``),
        or None when it needs whole items and refuses such a table."""
        return self.spec.real

    @property
    def no_bootstrap(self) -> str | None:
        """Why the score has no bootstrap interval (its replicates do not estimate its
        sampling distribution), or None when it has one. ``evaluate`` refuses such a
        score named with ``ci`` and leaves it out of the intervals of every score."""
        return self.spec.no_bootstrap

    @property
    def range(self) -> tuple[float, float]:
        return (self.lower, self.upper)

    @property
    def higher_is_better(self) -> bool:
        return self.better == "higher"

    @property
    def optimum(self) -> float | None:
        """The value the score is best at, when it is neither higher nor lower is better."""
        return None if isinstance(self.better, str) else float(self.better)

    def is_better(self, a: float, b: float) -> bool:
        """Is ``a`` strictly better than ``b`` for this score?"""
        if self.better == "higher":
            return a > b
        if self.better == "lower":
            return a < b
        return abs(a - self.better) < abs(b - self.better)


def _within_range(values: np.ndarray, lower: float, upper: float) -> np.ndarray:
    """Many tables' values, computed in float64 arrays (one table's are exact quotients of
    exact sums), kept in the score's range [lower, upper]: a value within a few units in
    the last place of an end of the range is that end (a replicate of a perfect match
    scores its perfect value, not one rounding below or above it), and none lies outside
    it (a bootstrap replicate's pair counts leave out the pairs of an item with its own
    copies, which can put a pair score past its range: its interval stays in the range)."""
    for end in (lower, upper):
        if math.isfinite(end):
            near = np.abs(values - end) <= _SNAP_ULPS * np.spacing(max(abs(end), 1.0))
            values[near] = end
    return np.clip(values, lower, upper, out=values)


# --------------------------------------------------------------------------- options
@dataclass(frozen=True)
class Choice:
    """An option taking one of a few values."""

    values: tuple[Any, ...]
    doc: str

    def check(self, name: str, value: Any) -> Any:
        if value not in self.values or isinstance(value, bool) != any(
                isinstance(v, bool) for v in self.values if v == value):
            raise ValueError(f"{name} must be one of {', '.join(map(repr, self.values))}, "
                             f"got {value!r}")
        return value

    def describe(self) -> str:
        return "{" + ", ".join(map(repr, self.values)) + "}"


@dataclass(frozen=True)
class Real:
    """A finite real option in [low, high] (either end may be None: unbounded)."""

    doc: str
    low: float | None = None
    high: float | None = None

    def check(self, name: str, value: Any) -> Any:
        ok = isinstance(value, numbers.Real) and not isinstance(value, bool) and \
            math.isfinite(value) and (self.low is None or float(value) >= self.low) and \
            (self.high is None or float(value) <= self.high)
        if not ok:
            bounds = (f">= {self.low}" if self.high is None else
                      f"between {self.low} and {self.high}" if self.low is not None
                      else f"<= {self.high}")
            raise ValueError(f"{name} must be a finite number {bounds}, got {value!r}")
        return value

    def describe(self) -> str:
        return "float"


@dataclass(frozen=True)
class Integer:
    """An integer option >= ``low``; ``none_ok``: None is allowed too (no limit)."""

    doc: str
    low: int = 0
    none_ok: bool = False

    def check(self, name: str, value: Any) -> Any:
        if value is None and self.none_ok:
            return value
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) \
                or value < self.low:
            extra = " or None" if self.none_ok else ""
            raise ValueError(f"{name} must be an integer >= {self.low}{extra}, got {value!r}")
        return int(value)

    def describe(self) -> str:
        return "int or None" if self.none_ok else "int"


# --------------------------------------------------------------------------- undefined
class ScoreUnavailable(ValueError):
    """A score cannot be computed on this table within its method's limits (cost or size);
    the message says why and what to pass instead. ``evaluate`` of every registered score
    leaves such a score out with a warning; asked for by name, it is an error.
    ``needs_counts``: the reason why a score needs whole items, when that is why it
    refuses (a table of real masses; :func:`require_counts`), else None."""

    needs_counts: str | None = None


def require_counts(table: Contingency, what: str, why: str) -> None:
    """:class:`ScoreUnavailable` when ``table`` holds real-valued masses (real
    ``sample_weight``): ``what`` needs whole items, for the reason ``why``."""
    try:
        table.require_counts(what, why, ScoreUnavailable)
    except ScoreUnavailable as exc:
        exc.needs_counts = why
        raise


class UndefinedMetricError(ValueError, ZeroDivisionError):
    """A score's denominator is zero and ``force_finite=False`` asked not to replace it."""


class Undefined(Exception):
    """Raised by a score's body when its value is a 0/0: ``value`` is the score's documented
    convention there, ``why`` the reason (for :class:`UndefinedMetricError`)."""

    def __init__(self, value: float, why: str):
        super().__init__(why)
        self.value, self.why = value, why


_ZERO_DIVISION_OPTIONS = {
    "force_finite": "bool, default=True\n"
                    "        Where the score's denominator is zero, return a finite value "
                    "(``finite_value``,\n        or the score's own convention, stated above) "
                    "instead of raising\n        :class:`~clustermetrics.UndefinedMetricError`.",
    "finite_value": "float or None, default={default}\n"
                    "        The value returned for a zero denominator with "
                    "``force_finite=True``\n        (None: the score's convention).",
}


def score(*, options: Mapping[str, Choice | Real | Integer] | None = None,
          zero_division: float | None | bool = False,
          returns: str = "float",
          real: str | None = None, needs: str = "its definition counts whole items",
          no_bootstrap: str | None = None, reads: tuple[str, ...] | None = None,
          ) -> Callable[[Callable[..., R]], ScoreFunction[R]]:
    """Turn ``body(table, **options)`` into a public score.

    ``real``: None when the score needs whole items: a table of real-valued masses (from
    non-integral ``sample_weight``) is then refused with :class:`ScoreUnavailable`, giving
    ``needs`` as the reason; else what the score means on real masses (the body handles
    float64 counts; it may still refuse some options with :func:`require_counts`).

    ``no_bootstrap``: None when resampling items gives the score a valid bootstrap
    interval; else why it does not (shown to users: the interval would be a wrong
    number, so it is refused or left out rather than shown).

    ``reads``: the sufficient statistics ``body`` reads besides the table's sizes (of
    :data:`STATISTICS`: ``("pairs",)``, ``("information",)``; ``()``: the sizes alone),
    or None (the default) when it reads the table's cells or margins. A score that
    declares them is computed from them alone, at every cut of a dendrogram
    (:func:`~clustermetrics.score_hierarchy`).

    ``options`` declares each keyword option of ``body`` with its check and description.
    ``zero_division``: False when the score has no 0/0 case; else the score raises
    :class:`Undefined` there, and the public function gains ``force_finite`` and
    ``finite_value`` (whose default is this value; True: None, the convention).
    """
    declared = dict(options or {})
    if reads is not None and not set(reads) <= set(STATISTICS):
        raise TypeError(f"reads must name statistics of {STATISTICS}, got {reads!r}")

    def decorate(body: Callable[..., R]) -> ScoreFunction[R]:
        params = inspect.signature(body).parameters
        defaults = {k: p.default for k, p in params.items() if k != "table"}
        if set(defaults) != set(declared):
            raise TypeError(f"{body.__name__}: options {sorted(defaults)} are not the "
                            f"declared {sorted(declared)}")
        finite_default = None if zero_division is True else zero_division

        @functools.wraps(body)
        def public(labels_true: Any = None, labels_pred: Any = None, *,
                   sample_weight: Any = None, contingency: Any = None,
                   **kwargs: Any) -> Any:
            table = _table(labels_true, labels_pred, contingency, sample_weight)
            force_finite = kwargs.pop("force_finite", True) if zero_division is not False \
                else True
            finite_value = kwargs.pop("finite_value", finite_default) \
                if zero_division is not False else None
            unknown = set(kwargs) - set(declared)
            if unknown:
                raise TypeError(f"{body.__name__}() got an unexpected keyword argument "
                                f"{sorted(unknown)[0]!r}")
            values = {k: declared[k].check(k, kwargs.get(k, defaults[k])) for k in declared}
            if real is None:
                require_counts(table, body.__name__, needs)
            if zero_division is False:
                return _plain(body(table, **values), body.__name__)
            if not isinstance(force_finite, bool):
                raise ValueError(f"force_finite must be True or False, got {force_finite!r}")
            if finite_value is not None:
                Real("finite value").check("finite_value", finite_value)
            try:
                return _plain(body(table, **values), body.__name__)
            except Undefined as undefined:
                if not force_finite:
                    raise UndefinedMetricError(
                        f"{undefined.why} (set force_finite=True to return "
                        f"{'finite_value' if finite_value is not None else 'its convention'})"
                    ) from None
                return float(undefined.value if finite_value is None else finite_value)

        made: Any = public
        made.__signature__ = _signature(declared, defaults, zero_division, finite_default)
        made.__doc__ = _document(body.__doc__ or "", declared, defaults, zero_division,
                                 finite_default, returns)
        made.spec = ScoreSpec(body=body, real=real, needs=needs, no_bootstrap=no_bootstrap,
                              finite_default=finite_default,
                              reads=None if reads is None else tuple(reads))
        return cast("ScoreFunction[R]", made)
    return decorate


def _plain(value: Any, name: str) -> Any:
    """A score's value as a Python float: an exact rational result (pair masses of
    real-valued tables) rounded once, a numpy scalar (a formula written for one table or
    many) converted. A rational beyond float64's range (masses spanning hundreds of
    orders of magnitude make, e.g., the Southwood index a / (b + c) that large) is
    refused with :class:`ScoreUnavailable`: no float is within any bound of it."""
    if isinstance(value, Fraction):
        try:
            return float(value)
        except OverflowError:
            digits = round((abs(value.numerator).bit_length() -
                            value.denominator.bit_length()) * math.log10(2))
            raise ScoreUnavailable(
                f"{name} is about {'-' if value < 0 else ''}1e{digits}, beyond float64's "
                f"range: {REAL_MASSES} spanning too many orders of magnitude; rescale "
                "them or drop the negligible ones") from None
    return value.item() if isinstance(value, np.generic) else value


def _table(labels_true: Any, labels_pred: Any, contingency: Any,
           sample_weight: Any = None) -> Contingency:
    """The table of a call: a Contingency (first argument or ``contingency=``), a count
    matrix as ``contingency=`` (scikit-learn's form), or two label sequences (weighted by
    ``sample_weight``)."""
    if contingency is not None and sample_weight is not None:
        raise ValueError("sample_weight applies to labels, not to contingency=: a table's "
                         "counts already weigh its cells")
    if contingency is not None:  # as scikit-learn: the labels are then not read
        return contingency if isinstance(contingency, Contingency) \
            else Contingency.from_matrix(contingency)
    if labels_true is None:
        raise ValueError("labels_true is required (or a table as contingency=)")
    return as_contingency(labels_true, labels_pred, sample_weight)


def _signature(declared: Mapping[str, Choice | Real | Integer], defaults: Mapping[str, Any],
               zero_division: float | None | bool, finite_default: float | None | bool,
               ) -> inspect.Signature:
    kw = inspect.Parameter.KEYWORD_ONLY
    params = [inspect.Parameter("labels_true", inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                default=None),
              inspect.Parameter("labels_pred", inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                default=None),
              inspect.Parameter("sample_weight", kw, default=None),
              inspect.Parameter("contingency", kw, default=None)]
    params += [inspect.Parameter(k, kw, default=defaults[k]) for k in declared]
    if zero_division is not False:
        params += [inspect.Parameter("force_finite", kw, default=True),
                   inspect.Parameter("finite_value", kw, default=finite_default)]
    return inspect.Signature(params)


_LABELS_DOC = """\
labels_true : array-like of shape (n_samples,) or Contingency
    True class labels, or a contingency table (then ``labels_pred`` must be None).
labels_pred : array-like of shape (n_samples,), optional
    Predicted cluster labels.
sample_weight : array-like of shape (n_samples,) of non-negative numbers, optional
    How much each item counts. An integer weight is exact repetition (so pairs between
    copies of one item count too); weight 0 leaves the item out. Real weights give a
    table of summed masses: each score family's reading of them is in the user guide
    (the table, real-valued weights); scores that need whole items refuse them.
contingency : Contingency or array-like of shape (n_classes, n_clusters), optional
    The table instead of the labels: a :class:`~clustermetrics.Contingency` or a count
    matrix (rows = true classes). As scikit-learn's ``contingency=``, it wins: the label
    arguments are then not read."""


def _document(doc: str, declared: Mapping[str, Choice | Real | Integer],
              defaults: Mapping[str, Any], zero_division: float | None | bool,
              finite_default: float | None | bool, returns: str) -> str:
    """The body's docstring with the numpydoc Parameters and Returns sections inserted
    before its first other section (Examples, References, Notes, See Also)."""
    lines = [_LABELS_DOC]
    for name, spec in declared.items():
        lines.append(f"{name} : {spec.describe()}, default={defaults[name]!r}\n"
                     f"    {spec.doc}")
    if zero_division is not False:
        lines.append(f"force_finite : {_ZERO_DIVISION_OPTIONS['force_finite']}"
                     .replace("\n        ", "\n    "))
        lines.append(f"finite_value : "
                     f"{_ZERO_DIVISION_OPTIONS['finite_value'].format(default=finite_default)}"
                     .replace("\n        ", "\n    "))
    block = "Parameters\n----------\n" + "\n".join(lines) + \
        f"\n\nReturns\n-------\nscore : {returns}\n"
    text = _without_sections(inspect.cleandoc(doc), ("Parameters", "Returns"))
    for header in ("Examples\n--------", "References\n----------", "Notes\n-----",
                   "See Also\n--------"):
        at = text.find(header)
        if at >= 0:
            return text[:at] + block + "\n" + text[at:]
    return text + "\n\n" + block


def _without_sections(text: str, names: tuple[str, ...]) -> str:
    """``text`` without the numpydoc sections ``names`` (written by hand before the
    decorator wrote them)."""
    lines, out, skipping = text.split("\n"), [], False
    for i, line in enumerate(lines):
        underline = i + 1 < len(lines) and set(lines[i + 1].strip()) == {"-"}
        if underline and line.strip():
            skipping = line.strip() in names
        if not skipping:
            out.append(line)
    return "\n".join(out).rstrip() + "\n"


# the release that removes the deprecated aliases (listed in the API reference)
ALIASES_REMOVED_IN = "0.3"


def deprecated_alias(old: str, new: Callable[..., Any], **fixed: Any) -> Callable[..., Any]:
    """``old``, a name kept so code written for it runs: it warns (FutureWarning) and
    calls ``new`` with ``fixed`` options, until :data:`ALIASES_REMOVED_IN`."""
    hint = new.__name__ + (f"(..., {', '.join(f'{k}={v!r}' for k, v in fixed.items())})"
                           if fixed else "")

    @functools.wraps(new)
    def alias(*args: Any, **kwargs: Any) -> Any:
        warnings.warn(f"{old} is deprecated and will be removed in {ALIASES_REMOVED_IN}; "
                      f"use {hint}",
                      FutureWarning, stacklevel=2)
        return new(*args, **fixed, **kwargs)

    made: Any = alias
    made.__name__ = made.__qualname__ = old
    made.replacement, made.fixed = new, dict(fixed)
    signature = inspect.signature(new)  # without the options the old name fixes
    made.__signature__ = signature.replace(parameters=[
        p for name, p in signature.parameters.items() if name not in fixed])
    made.__doc__ = f"Deprecated: use :func:`{hint}`."
    return made
