"""cm.scorer in scikit-learn's model selection: the value equals evaluate on the labels
the estimator gives the scored fold (predict, or fit_predict of a clone for transductive
clusterers), with scikit-learn's sign; noise points as evaluate handles them."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.cluster import DBSCAN, HDBSCAN, AgglomerativeClustering, KMeans
from sklearn.datasets import make_blobs
from sklearn.model_selection import GridSearchCV, KFold, cross_validate
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import clustermetrics as cm
from clustermetrics import METRICS, evaluate

X, Y = make_blobs(120, centers=3, cluster_std=1.5, random_state=1)
FOLDS = list(KFold(3, shuffle=True, random_state=0).split(X))


def _signed(key, value):
    better = METRICS[key].better
    return value if better == "higher" else -value if better == "lower" else \
        -abs(value - better)


@pytest.mark.parametrize("key", ["recovery_rate", "clustering_error",
                                 "clustering_ratio"])
@pytest.mark.parametrize("make", [
    lambda: KMeans(3, n_init=2, random_state=0),
    lambda: make_pipeline(StandardScaler(), KMeans(3, n_init=2, random_state=0)),
    lambda: HDBSCAN(min_cluster_size=5, copy=True),
    lambda: make_pipeline(StandardScaler(), DBSCAN(eps=0.3)),
    lambda: AgglomerativeClustering(3),
])
def test_cross_validate_equals_evaluate(key, make):
    got = cross_validate(make(), X, Y, scoring=cm.scorer(key), cv=FOLDS)["test_score"]
    for (train, test), value in zip(FOLDS, got, strict=True):
        est = make().fit(X[train])
        labels = est.predict(X[test]) if hasattr(est, "predict") else \
            clone(make()).fit_predict(X[test])
        want = evaluate(Y[test], labels, [key], noise_label=-1)[key]
        assert value == _signed(key, want)


def test_noise_as_evaluate_and_as_a_cluster():
    hdb = HDBSCAN(min_cluster_size=3, copy=True).fit(X)
    labels = hdb.labels_
    assert (labels == -1).any()
    all_rows = [(np.arange(len(X)), np.arange(len(X)))]
    for noise_label, noise in [(-1, None), (-1, "exclude"), (None, None)]:
        s = cm.scorer("ari", noise_label=noise_label, noise=noise)
        got = cross_validate(HDBSCAN(min_cluster_size=3, copy=True), X, Y, scoring=s,
                             cv=all_rows)["test_score"][0]
        kwargs = {} if noise_label is None else dict(noise_label=-1, noise=noise)
        assert got == evaluate(Y, labels, "ari", **kwargs)["ari"]


def test_grid_search_tunes_hdbscan_against_the_truth():
    all_rows = [(np.arange(len(X)), np.arange(len(X)))]
    grid = {"min_cluster_size": [3, 10, 30]}
    search = GridSearchCV(HDBSCAN(copy=True), grid, scoring=cm.scorer("recovery_rate"), cv=all_rows)
    search.fit(X, Y)
    direct = {m: evaluate(Y, HDBSCAN(min_cluster_size=m, copy=True).fit_predict(X), "recovery_rate",
                          noise_label=-1)["recovery_rate"] for m in grid["min_cluster_size"]}
    assert search.cv_results_["mean_test_score"].tolist() == list(direct.values())
    assert search.best_params_["min_cluster_size"] == max(direct, key=direct.get)


def test_the_estimator_passed_in_is_not_refitted():
    hdb = HDBSCAN(min_cluster_size=5, copy=True).fit(X)
    before = hdb.labels_.copy()
    cm.scorer("ari")(hdb, X[:50], Y[:50])
    assert np.array_equal(hdb.labels_, before)


@pytest.mark.parametrize("call, message", [
    (lambda: cm.scorer("no_such_score"), "unknown metric"),
    (lambda: cm.scorer("ari,nmi"), "one score"),
    (lambda: cm.scorer("ari", noise="exclude", noise_label=None), "noise_label"),
    (lambda: cm.scorer("ari")(KMeans(2, n_init=1).fit(X), X), "pass y"),
])
def test_refused(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_sample_weight_reaches_the_scorer_through_metadata_routing():
    """cross_validate routes each test fold's weights to a scorer that asked for them;
    the fold scores equal evaluate of the fold's labels repeated by their weights."""
    import sklearn
    from sklearn.cluster import KMeans
    from sklearn.datasets import make_blobs
    from sklearn.model_selection import KFold, cross_validate

    from clustermetrics import evaluate

    scorer = cm.scorer
    X, y = make_blobs(150, centers=3, cluster_std=3.0, random_state=1)
    w = np.random.default_rng(1).integers(0, 4, 150)
    cv = KFold(3)
    with sklearn.config_context(enable_metadata_routing=True):
        km = KMeans(3, n_init=2, random_state=0).set_fit_request(sample_weight=False)
        both = {"ari": scorer("ari").set_score_request(sample_weight=True),
                "vi": scorer("vi").set_score_request(sample_weight=True)}
        got = cross_validate(km, X, y, scoring=both, cv=cv, params={"sample_weight": w})
        with pytest.raises(Exception, match="sample_weight"):  # asked for by no one
            cross_validate(km, X, y, scoring=scorer("ari"), cv=cv,
                           params={"sample_weight": w})
    for i, (train, test) in enumerate(cv.split(X)):
        pred = KMeans(3, n_init=2, random_state=0).fit(X[train]).predict(X[test])
        reps = np.repeat(np.arange(test.shape[0]), w[test])
        want = evaluate(y[test][reps], pred[reps], ["ari", "vi"])
        assert got["test_ari"][i] == pytest.approx(want["ari"], abs=1e-12)
        assert got["test_vi"][i] == pytest.approx(-want["vi"], abs=1e-12)


def test_sample_weight_without_routing():
    import sklearn
    from sklearn.cluster import KMeans
    from sklearn.datasets import make_blobs
    from sklearn.metrics import check_scoring

    from clustermetrics import evaluate

    scorer = cm.scorer
    X, y = make_blobs(90, centers=3, random_state=2)
    w = np.random.default_rng(2).integers(1, 5, 90)
    km = KMeans(3, n_init=2, random_state=0).fit(X)
    reps = np.repeat(np.arange(90), w)
    want = evaluate(y[reps], km.predict(X)[reps], ["nmi"])["nmi"]
    assert scorer("nmi")(km, X, y, sample_weight=w) == pytest.approx(want, abs=1e-12)
    # scikit-learn's multi-metric scorer hands sample_weight to the scorers that take it
    multi = check_scoring(km, scoring={"nmi": scorer("nmi")})
    assert multi(km, X, y, sample_weight=w)["nmi"] == pytest.approx(want, abs=1e-12)
    with sklearn.config_context(enable_metadata_routing=False):
        with pytest.raises(RuntimeError, match="enable_metadata_routing=True"):
            scorer("nmi").set_score_request(sample_weight=True)


def test_real_sample_weight_follows_evaluates_rules():
    """Real weights: the scorer's value is evaluate's on the table of real masses, through
    routing too; a score that needs whole items, and noise split into singletons, are
    refused naming sample_weight; noise excluded works."""
    import sklearn

    X, y = make_blobs(90, centers=3, cluster_std=2.0, random_state=2)
    w = np.random.default_rng(3).random(90) * 3 + 0.01
    km = KMeans(3, n_init=2, random_state=0).fit(X)
    for key, sign in (("nmi", 1), ("purity", 1), ("vi", -1), ("ari", 1)):
        want = evaluate(y, km.predict(X), key, sample_weight=w)[key]
        assert cm.scorer(key)(km, X, y, sample_weight=w) == sign * want
    with pytest.raises(cm.ScoreUnavailable, match="the table holds real-valued masses"):
        cm.scorer("ami")(km, X, y, sample_weight=w)
    db = DBSCAN(eps=1.0, min_samples=5)
    assert (db.fit_predict(X) == -1).any()
    with pytest.raises(ValueError, match='noise="singletons".*sample_weight'):
        cm.scorer("nmi")(db, X, y, sample_weight=w)
    pred = clone(db).fit_predict(X)
    keep = pred != -1
    want = evaluate(y[keep], pred[keep], "nmi", sample_weight=w[keep])["nmi"]
    assert cm.scorer("nmi", noise="exclude")(db, X, y, sample_weight=w) == \
        pytest.approx(want, rel=1e-12)
    cv = KFold(3)
    with sklearn.config_context(enable_metadata_routing=True):
        km = KMeans(3, n_init=2, random_state=0).set_fit_request(sample_weight=False)
        got = cross_validate(km, X, y, scoring=cm.scorer("nmi").set_score_request(
            sample_weight=True), cv=cv, params={"sample_weight": w})
    for i, (train, test) in enumerate(cv.split(X)):
        pred = KMeans(3, n_init=2, random_state=0).fit(X[train]).predict(X[test])
        want = evaluate(y[test], pred, "nmi", sample_weight=w[test])["nmi"]
        assert got["test_score"][i] == pytest.approx(want, abs=1e-12)
