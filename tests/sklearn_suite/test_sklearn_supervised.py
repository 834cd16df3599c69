"""scikit-learn 1.9.1's ``sklearn/metrics/cluster/tests/test_supervised.py``, run against
clustermetrics: its tests are read from the installed scikit-learn and exposed here (see
``sklearn_rewrite``; the documented deviations are in ``sklearn_deviations``)."""

from sklearn_rewrite import exposed_tests

globals().update(exposed_tests("test_supervised"))
