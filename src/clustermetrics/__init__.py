"""clustermetrics: exact external clustering scores from one sparse contingency table.

Every score takes ``(labels_true, labels_pred)`` or a :class:`Contingency`; ``evaluate``
computes any set of them from a single table.
"""

from .contingency import Contingency, as_contingency, contingency_matrix
from .metrics.information import (
    adjusted_mutual_info_score,
    completeness_score,
    entropy,
    expected_mutual_info_score,
    homogeneity_completeness_v_measure,
    homogeneity_score,
    mutual_info_score,
    normalized_mutual_info_score,
    v_measure_score,
)
from .metrics.marxer_purwins import (
    MarxerPurwins,
    marxer_purwins,
    marxer_purwins_f,
    marxer_purwins_precision,
    marxer_purwins_recall,
)
from .metrics.matching import (
    best_match_f_score,
    clustering_accuracy,
    clustering_error,
    clustering_ratio,
    inverse_purity_score,
    purity_score,
)
from .metrics.pairs import (
    PairCounts,
    UndefinedMetricError,
    adjusted_rand_score,
    fowlkes_mallows_score,
    pair_confusion_matrix,
    pair_counts,
    pair_f_score,
    pair_jaccard_score,
    pair_precision_score,
    pair_recall_score,
    rand_score,
)
from .metrics.recovery import Recovery, pseudo_recovery_rate, recovery, recovery_rate
from .registry import METRICS, MetricInfo
from .report import Report, evaluate

__version__ = "0.1.0"

__all__ = [
    "Contingency", "as_contingency", "contingency_matrix",
    "evaluate", "Report", "METRICS", "MetricInfo",
    "adjusted_rand_score", "rand_score", "fowlkes_mallows_score", "pair_confusion_matrix",
    "pair_counts", "PairCounts", "pair_precision_score", "pair_recall_score", "pair_f_score",
    "pair_jaccard_score", "UndefinedMetricError",
    "mutual_info_score", "normalized_mutual_info_score", "adjusted_mutual_info_score",
    "expected_mutual_info_score", "entropy", "homogeneity_score", "completeness_score",
    "v_measure_score", "homogeneity_completeness_v_measure",
    "recovery", "recovery_rate", "pseudo_recovery_rate", "Recovery",
    "marxer_purwins", "MarxerPurwins", "marxer_purwins_precision", "marxer_purwins_recall",
    "marxer_purwins_f",
    "purity_score", "inverse_purity_score", "best_match_f_score", "clustering_error",
    "clustering_accuracy", "clustering_ratio",
]
