"""Every difference between scikit-learn's own cluster-metric tests and what we run, in one place.

scikit-learn 1.9.1's ``sklearn/metrics/cluster/tests/test_supervised.py`` and
``test_common.py`` run against clustermetrics (see ``sklearn_rewrite``). Every metric they
import from ``sklearn.metrics``, ``sklearn.metrics.cluster`` or
``sklearn.metrics.cluster._supervised`` becomes ours when clustermetrics exports the same
name; the few other names are listed below with the reason. ``DEVIATIONS`` maps scikit-learn
test ids (``file::function`` for every parametrisation, or ``file::function[id]``) to the
deviation, documented in docs/guide/scikit-learn.md ("Deviations from scikit-learn
1.9"): a deviation with
``replace`` rewrites the named statements of that test so that they assert OUR documented
behaviour (the rest of the test runs as written); one without is deselected.
"""

from __future__ import annotations

from dataclasses import dataclass

import clustermetrics as cm

# The documented bullet of each deviation starts with this text (test_sklearn_harness checks).
EMPTY_INPUT = "Empty input raises `ValueError` (scikit-learn returns 1.0)."
MESSAGES = ("Error messages are our own wording: the same `ValueError` names the argument "
            "and the problem (different lengths, 2-D input) in other words than scikit-learn's.")
ENTROPY = ("`entropy` is a supported public function, so it does not emit scikit-learn 1.9's "
           "deprecation `FutureWarning`.")
ARRAY_API = ("No array API dispatch: labels of any library are read through numpy, "
             "`sklearn.set_config(array_api_dispatch=True)` changes nothing.")
PRIVATE = ("scikit-learn's private helpers `_generalized_average` and `check_clusterings` are "
           "not part of clustermetrics; in particular float labels that look continuous get "
           "no warning (any hashable value is a label).")
UNSUPERVISED = ("The internal scores `silhouette_score`, `calinski_harabasz_score` and "
                "`davies_bouldin_score` are out of scope (clustermetrics compares a clustering "
                "with a ground truth).")
EMI_NAME = ("scikit-learn's `expected_mutual_information(contingency, n_samples)` is "
            "`expected_mutual_info_score(labels_true, labels_pred)` here (it also takes a "
            "`Contingency`).")


@dataclass(frozen=True)
class Deviation:
    reason: str
    # (scikit-learn's statement, our replacement): each must occur once in the test function
    replace: tuple[tuple[str, str], ...] = ()


_SUP, _COMMON = "test_supervised.py", "test_common.py"
_EMPTY_RAISES = 'with pytest.raises(ValueError, match="labels_true is empty"): '

DEVIATIONS: dict[str, Deviation] = {
    f"{_SUP}::test_error_messages_on_wrong_input": Deviation(MESSAGES, replace=(
        (r'expected = r"Found input variables with inconsistent numbers of samples: \[2, 3\]"',
         r'expected = r"labels_true and labels_pred have different lengths: 2 and 3"'),
        (r'expected = r"labels_true must be 1D: shape is \(2"',
         r'expected = r"labels_true must be 1-D, got an array of shape \(2, 2\)"'),
        (r'expected = r"labels_pred must be 1D: shape is \(2"',
         r'expected = r"labels_pred must be 1-D, got an array of shape \(2, 2\)"'),
    )),
    f"{_SUP}::test_perfect_matches": Deviation(EMPTY_INPUT, replace=(
        ("assert score_func([], []) == pytest.approx(1.0)",
         _EMPTY_RAISES + "score_func([], [])"),
    )),
    f"{_SUP}::test_perfect_matches_with_changing_means": Deviation(EMPTY_INPUT, replace=(
        ("assert score_func([], [], average_method=average_method) == pytest.approx(1.0)",
         _EMPTY_RAISES + "score_func([], [], average_method=average_method)"),
    )),
    f"{_SUP}::test_entropy": Deviation(EMPTY_INPUT, replace=(
        ("assert_almost_equal(_entropy([]), 1)",
         'with pytest.raises(ValueError, match="labels is empty"): _entropy([])'),
    )),
    f"{_SUP}::test_public_entropy_deprecation": Deviation(ENTROPY),
    f"{_SUP}::test_entropy_array_api": Deviation(ARRAY_API),
    f"{_SUP}::test_generalized_average": Deviation(PRIVATE),
    f"{_SUP}::test_check_clustering_error": Deviation(PRIVATE),
    f"{_COMMON}::test_array_api_compliance": Deviation(ARRAY_API),
    # the parametrisations of the common tests over the internal scores
    **{f"{_COMMON}::{test}[{metric}]": Deviation(UNSUPERVISED)
       for test in ("test_permute_labels", "test_format_invariance",
                    "test_returned_value_consistency")
       for metric in ("silhouette_score", "silhouette_manhattan", "calinski_harabasz_score",
                      "davies_bouldin_score")},
    **{f"{_COMMON}::test_inf_nan_input[{params}]": Deviation(UNSUPERVISED)
       for params in ("silhouette_score-silhouette_score", "silhouette_manhattan-metric_func10",
                      "calinski_harabasz_score-calinski_harabasz_score",
                      "davies_bouldin_score-davies_bouldin_score")},
}

# Names the tests import from scikit-learn's metric modules that stay scikit-learn's own.
KEPT: dict[str, str] = {
    "_generalized_average": PRIVATE,
    "check_clusterings": PRIVATE,
    "silhouette_score": UNSUPERVISED,
    "calinski_harabasz_score": UNSUPERVISED,
    "davies_bouldin_score": UNSUPERVISED,
}

# scikit-learn's private name for the function clustermetrics exports as the value.
ALIASES: dict[str, str] = {"_entropy": "entropy"}


def expected_mutual_information(contingency, n_samples):
    """scikit-learn's signature, computed by clustermetrics (see EMI_NAME)."""
    table = cm.Contingency.from_matrix(contingency)
    if table.n_samples != n_samples:
        raise ValueError(f"n_samples is {n_samples} but the table holds {table.n_samples}")
    return cm.expected_mutual_info_score(table)


# Names clustermetrics does not export, bound to an adapter over its own function.
ADAPTERS = {"expected_mutual_information": (expected_mutual_information, EMI_NAME)}


def adjusted_rand_score(labels_true, labels_pred):
    """A deliberately wrong ARI (the Rand index, no chance adjustment) that the harness's
    self-test substitutes to show that scikit-learn's tests catch it."""
    return cm.rand_score(labels_true, labels_pred)


MUTANTS = {"adjusted_rand_score": adjusted_rand_score}
