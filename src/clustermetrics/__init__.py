"""clustermetrics: exact external clustering scores from one sparse contingency table.

Every score takes ``(labels_true, labels_pred)``, a :class:`Contingency`, or
``contingency=``; ``evaluate`` computes any set of them from a single table. The registry
(:data:`METRICS`) describes every score once. :func:`read_table` reads the table of a
file.
"""

from typing import TYPE_CHECKING, Any

from ._version import __version__ as __version__
from .evaluation.dataframes import evaluate_frame
from .evaluation.diagnostics import Diagnostics, diagnose
from .evaluation.evaluate import evaluate
from .evaluation.model_selection import scorer
from .evaluation.paired import compare_clusterings, paired_comparison
from .evaluation.paired_results import PairedComparison
from .evaluation.report import MultiReport, Report
from .hierarchy.cuts import HierarchyScores, score_hierarchy, updatable_metrics
from .inference.noise import with_noise
from .inference.permutation import PermutationTest, permutation_test
from .scores.bcubed import (
    bcubed_f,
    bcubed_f_class_weighted,
    bcubed_f_score,
    bcubed_precision,
    bcubed_precision_class_weighted,
    bcubed_precision_score,
    bcubed_recall,
    bcubed_recall_class_weighted,
    bcubed_recall_score,
)
from .scores.community_matching import community_f1_score, nf1_score
from .scores.cover_element_centric import cover_element_centric_similarity_score
from .scores.cover_pairs import (
    extended_bcubed_f_score,
    extended_bcubed_precision_score,
    extended_bcubed_recall_score,
    omega_score,
)
from .scores.element_centric import element_centric_similarity, element_centric_similarity_score
from .scores.fuzzy import (
    MEMBERSHIP_METRICS,
    adjusted_fuzzy_rand_score,
    campello_adjusted_rand_score,
    campello_rand_score,
    frobenius_adjusted_rand_score,
    frobenius_rand_score,
    fuzzy_rand_score,
)
from .scores.information import (
    adjusted_mutual_info_score,
    ami_geometric_score,
    ami_max_score,
    ami_min_score,
    chi2_score,
    cluster_entropy,
    cluster_entropy_error,
    completeness_score,
    entropy,
    expected_mutual_info_score,
    homogeneity_completeness_v_measure,
    homogeneity_score,
    mutual_info_score,
    nmi_geometric_score,
    nmi_joint_score,
    nmi_max_score,
    nmi_min_score,
    normalized_information_distance,
    normalized_mutual_info_score,
    normalized_variation_of_information,
    normalized_variation_of_information_distance,
    v_measure_score,
    variation_of_information,
    variation_of_information_distance,
)
from .scores.marxer_purwins import (
    MarxerPurwins,
    marxer_purwins,
    marxer_purwins_f,
    marxer_purwins_f_score,
    marxer_purwins_precision,
    marxer_purwins_precision_score,
    marxer_purwins_recall,
    marxer_purwins_recall_score,
)
from .scores.overlapping_information import overlapping_nmi_score
from .scores.pair_chance import modified_adjusted_rand_score, rand_moments, standardized_rand_score
from .scores.pair_counting import (
    adjusted_fowlkes_mallows_score,
    adjusted_rand_score,
    czekanowski_dice_score,
    fowlkes_mallows_score,
    g_plus_distance,
    g_plus_score,
    gamma_score,
    kendall_tau_score,
    kulczynski_score,
    mcnemar_score,
    pair_f_score,
    pair_jaccard_score,
    pair_precision_score,
    pair_recall_score,
    phi_score,
    rand_score,
    rogers_tanimoto_score,
    russel_rao_score,
    sokal_sneath1_score,
    sokal_sneath2_score,
    southwood_score,
)
from .scores.pair_table import PairCounts, pair_confusion_matrix, pair_counts
from .scores.recovery import (
    Recovery,
    pseudo_recovery_rate,
    pseudo_recovery_rate_score,
    recovery,
    recovery_rate,
    recovery_rate_score,
)
from .scores.reduced_information import (
    normalized_reduced_mutual_info_score,
    reduced_mutual_info_score,
)
from .scores.registry import COVER_METRICS, METRICS, MetricInfo
from .scores.set_matching import (
    best_match_f_score,
    clustering_accuracy,
    clustering_accuracy_score,
    clustering_error,
    clustering_ratio,
    exact_match_f_score,
    exact_match_precision,
    exact_match_precision_score,
    exact_match_recall,
    exact_match_recall_score,
    geometric_accuracy,
    geometric_accuracy_score,
    inverse_purity_score,
    normalized_clustering_accuracy,
    normalized_clustering_accuracy_score,
    normalized_pivoted_accuracy,
    normalized_pivoted_accuracy_score,
    pair_sets_index,
    pair_sets_index_score,
    purity_f_score,
    purity_score,
    set_matching_f_inverse_score,
    set_matching_f_score,
)
from .scores.spec import ScoreUnavailable, UndefinedMetricError
from .scores.standardized_information import (
    StandardizedMI,
    standardized_mutual_info,
    standardized_mutual_info_score,
)
from .table import Contingency, as_contingency, contingency_matrix
from .table.cover import Cover, CoverPair

if TYPE_CHECKING:
    from .io.covers import read_cover as read_cover
    from .io.engines import read_table as read_table

__all__ = [
    "Contingency", "as_contingency", "contingency_matrix", "evaluate", "Report", "MultiReport",
    "evaluate_frame", "scorer",
    "paired_comparison", "compare_clusterings", "PairedComparison", "METRICS", "MetricInfo",
    "diagnose",
    "Diagnostics", "with_noise", "bcubed_precision_score", "bcubed_recall_score",
    "bcubed_f_score", "bcubed_precision", "bcubed_recall", "bcubed_f",
    "bcubed_precision_class_weighted", "bcubed_recall_class_weighted",
    "bcubed_f_class_weighted", "element_centric_similarity_score",
    "MEMBERSHIP_METRICS", "fuzzy_rand_score", "adjusted_fuzzy_rand_score",
    "campello_rand_score", "campello_adjusted_rand_score", "frobenius_rand_score",
    "frobenius_adjusted_rand_score",
    "element_centric_similarity", "entropy", "mutual_info_score",
    "normalized_mutual_info_score", "adjusted_mutual_info_score", "expected_mutual_info_score",
    "homogeneity_completeness_v_measure", "homogeneity_score", "completeness_score",
    "v_measure_score", "variation_of_information_distance",
    "normalized_variation_of_information_distance", "normalized_information_distance",
    "cluster_entropy_error", "chi2_score", "variation_of_information",
    "normalized_variation_of_information", "cluster_entropy", "nmi_joint_score",
    "nmi_geometric_score", "nmi_min_score", "nmi_max_score", "ami_geometric_score",
    "ami_min_score", "ami_max_score", "MarxerPurwins", "marxer_purwins",
    "marxer_purwins_precision_score", "marxer_purwins_recall_score", "marxer_purwins_f_score",
    "marxer_purwins_precision", "marxer_purwins_recall", "marxer_purwins_f", "PairCounts",
    "pair_counts", "pair_confusion_matrix", "rand_score", "adjusted_rand_score",
    "fowlkes_mallows_score", "pair_precision_score", "pair_recall_score", "pair_f_score",
    "pair_jaccard_score", "czekanowski_dice_score", "kulczynski_score", "mcnemar_score",
    "phi_score", "rogers_tanimoto_score", "russel_rao_score", "sokal_sneath1_score",
    "sokal_sneath2_score", "southwood_score", "kendall_tau_score", "gamma_score",
    "g_plus_distance", "g_plus_score", "adjusted_fowlkes_mallows_score",
    "modified_adjusted_rand_score", "Recovery", "recovery", "recovery_rate_score",
    "pseudo_recovery_rate_score", "recovery_rate", "pseudo_recovery_rate", "purity_score",
    "inverse_purity_score", "purity_f_score", "best_match_f_score", "set_matching_f_score",
    "clustering_error", "clustering_accuracy_score", "clustering_ratio",
    "normalized_clustering_accuracy_score", "normalized_pivoted_accuracy_score",
    "pair_sets_index_score", "geometric_accuracy_score", "exact_match_precision_score",
    "exact_match_recall_score", "exact_match_f_score", "clustering_accuracy",
    "normalized_clustering_accuracy", "normalized_pivoted_accuracy", "pair_sets_index",
    "set_matching_f_inverse_score", "geometric_accuracy", "exact_match_precision",
    "exact_match_recall", "UndefinedMetricError", "ScoreUnavailable",
    "standardized_mutual_info_score", "standardized_mutual_info", "StandardizedMI",
    "reduced_mutual_info_score", "normalized_reduced_mutual_info_score",
    "standardized_rand_score", "rand_moments", "permutation_test", "PermutationTest",
    "score_hierarchy", "HierarchyScores", "updatable_metrics", "read_table",
    "Cover", "CoverPair", "COVER_METRICS", "overlapping_nmi_score", "community_f1_score",
    "nf1_score", "read_cover", "omega_score", "extended_bcubed_precision_score",
    "extended_bcubed_recall_score", "extended_bcubed_f_score",
    "cover_element_centric_similarity_score",
]


def __getattr__(name: str) -> Any:
    # the file sources load on first use, not with the package: their modules (and the
    # standard library's they need) would add a tenth to the import time
    if name == "read_table":
        from .io.engines import read_table

        return read_table
    if name == "read_cover":
        from .io.covers import read_cover

        return read_cover
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
