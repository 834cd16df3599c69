"""Scores as scikit-learn scorers, to tune clusterers against a known truth.

``scorer("recovery_rate")`` is a callable ``(estimator, X, y) -> float`` that
``GridSearchCV``, ``RandomizedSearchCV``, ``cross_validate`` and ``check_scoring`` take as
``scoring=``. scikit-learn maximises scores, so, as its ``make_scorer(...,
greater_is_better=False)`` does, a score where lower is better is negated, and a score best
at a value (the clustering ratio, best at 1) gives minus the distance to it.
"""

from __future__ import annotations

from typing import Any

from ..scores.registry import METRICS, resolve_metrics
from .evaluate import check_options, evaluate

__all__ = ["ClusterScorer", "scorer", "predicted_labels"]

SKLEARN_HINT = "pip install 'clustermetrics[sklearn]'"


def scorer(metric: str, *, noise_label: Any = -1, noise: str | None = None) -> ClusterScorer:
    """A scikit-learn scorer for one registered score (a key, name or function name).

    The scorer predicts the labels of ``X`` (:func:`predicted_labels`), scores them
    against ``y`` with :func:`clustermetrics.evaluate`, and returns the value with
    scikit-learn's sign: as is where higher is better, negated where lower is better
    (``clustering_error``, ``vi``: as ``make_scorer(..., greater_is_better=False)``), and
    ``-abs(value - best)`` for a score best at a value (``clustering_ratio``).

    Parameters
    ----------
    metric : str
        One registered score.
    noise_label : default -1
        The predicted label that marks noise points: scikit-learn's DBSCAN, HDBSCAN and
        OPTICS label them -1, and none of its clusterers uses -1 otherwise. Handled as
        :func:`clustermetrics.evaluate` handles it; None scores -1 as a cluster.
    noise : {"singletons", "exclude"} or None
        As in :func:`clustermetrics.evaluate` (None: "singletons").

    Examples
    --------
    >>> from sklearn.cluster import KMeans
    >>> from sklearn.datasets import make_blobs
    >>> from sklearn.model_selection import GridSearchCV
    >>> X, y = make_blobs(300, centers=4, random_state=0)
    >>> search = GridSearchCV(KMeans(n_init=3, random_state=0), {"n_clusters": [2, 4, 6]},
    ...                       scoring=scorer("ari"), cv=3).fit(X, y)
    >>> search.best_params_
    {'n_clusters': 4}
    """
    keys = resolve_metrics(metric)
    if len(keys) != 1:
        raise ValueError(f"metric must name one score, got {metric!r}")
    check_options(noise_label=noise_label, noise=noise)
    return ClusterScorer(keys[0], noise_label, noise)


class ClusterScorer:
    """The callable :func:`scorer` returns: ``scorer(estimator, X, y) -> float``, with
    ``sign`` +1 (higher is better), -1 (lower is better) or 0 (best at ``METRICS[key]
    .better``: minus the distance to it)."""

    def __init__(self, key: str, noise_label: Any = -1, noise: str | None = None):
        self.key = key
        self.noise_label = noise_label
        self.noise = noise
        better = METRICS[key].better
        self.sign = 1 if better == "higher" else -1 if better == "lower" else 0

    def score(self, labels_true: Any, labels_pred: Any, sample_weight: Any = None) -> float:
        """The signed score of two labelings (what :meth:`__call__` returns);
        ``sample_weight`` as in :func:`clustermetrics.evaluate`: real weights give a table
        of real masses, on which a score that needs whole items is refused, as is
        ``noise="singletons"`` when a noise point is present (``noise="exclude"`` works)."""
        value = evaluate(labels_true, labels_pred, [self.key], noise_label=self.noise_label,
                         noise=self.noise if self.noise_label is not None else None,
                         sample_weight=sample_weight)[self.key]
        if self.sign == 0:
            return -abs(value - float(METRICS[self.key].better))
        return self.sign * value

    def __call__(self, estimator: Any, X: Any, y: Any = None,
                 sample_weight: Any = None) -> float:
        if y is None:
            raise ValueError(f"scorer({self.key!r}) compares with the true labels: pass y "
                             "to fit / cross_validate")
        return self.score(y, predicted_labels(estimator, X), sample_weight=sample_weight)

    # scikit-learn's metadata routing (SLEP006): with
    # ``sklearn.set_config(enable_metadata_routing=True)``, ``cross_validate`` and the
    # searches pass ``params={"sample_weight": w}`` (the test fold's part) to a scorer
    # that requested it with ``set_score_request(sample_weight=True)``, as its own
    # ``make_scorer`` scorers do.
    def set_score_request(self, *, sample_weight: bool | str | None = None) -> ClusterScorer:
        """Ask scikit-learn's metadata routing for ``sample_weight`` (True), refuse it
        (False), or leave it unrequested (None: an error if it is passed); a str is an
        alias. Only available with metadata routing enabled, as for scikit-learn's own
        scorers."""
        sklearn = _sklearn()
        if not sklearn.get_config().get("enable_metadata_routing", False):
            raise RuntimeError("set_score_request is only available when metadata routing "
                               "is enabled: sklearn.set_config(enable_metadata_routing=True)")
        if not (sample_weight is None or isinstance(sample_weight, (bool, str))):
            raise ValueError("sample_weight must be True, False, None or an alias (str), "
                             f"got {sample_weight!r}")
        self._sample_weight_request = sample_weight
        return self

    def get_metadata_routing(self) -> Any:
        """The scorer's metadata request, for scikit-learn's routing."""
        _sklearn()
        from sklearn.utils.metadata_routing import MetadataRequest

        request = MetadataRequest(owner=self)
        request.score.add_request(param="sample_weight",
                                  alias=getattr(self, "_sample_weight_request", None))
        return request

    def _accept_sample_weight(self) -> bool:
        # scikit-learn's multi-metric scorer asks this without metadata routing
        return True

    def __repr__(self) -> str:
        return (f"scorer({self.key!r}, noise_label={self.noise_label!r}, "
                f"noise={self.noise!r})")


def _sklearn() -> Any:
    try:
        import sklearn
    except ImportError as exc:
        raise ImportError(f"metadata routing needs scikit-learn: {SKLEARN_HINT}") from exc
    return sklearn


def predicted_labels(estimator: Any, X: Any) -> Any:
    """The cluster labels a fitted ``estimator`` gives ``X``: ``predict(X)`` when it
    predicts (KMeans, GaussianMixture, Birch, a Pipeline ending in one); otherwise the
    clusterer is transductive (DBSCAN, HDBSCAN, AgglomerativeClustering): a clone of it is
    fitted on ``X`` itself with ``fit_predict`` (or ``fit``, then ``labels_``), so the
    estimator passed in is left as it was. On the data it was fitted on (``cv=[(all,
    all)]``) that gives its own ``labels_`` for the deterministic clusterers."""
    if hasattr(estimator, "predict"):
        return estimator.predict(X)
    try:
        from sklearn.base import clone
    except ImportError as exc:  # pragma: no cover - scikit-learn made the estimator
        raise ImportError(f"scorers need scikit-learn: {SKLEARN_HINT}") from exc
    fresh = clone(estimator)
    if hasattr(fresh, "fit_predict"):
        return fresh.fit_predict(X)
    fitted = fresh.fit(X)
    final = fitted[-1] if hasattr(fitted, "steps") else fitted
    labels = getattr(final, "labels_", None)
    if labels is None:
        raise TypeError(f"{type(estimator).__name__} has neither predict, fit_predict nor "
                        "labels_: it is not a clusterer")
    return labels
