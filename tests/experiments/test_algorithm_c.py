"""The paper's algorithm C (mean shift, then MATLAB clusterdata's single linkage) and the
K / C tables of the demo in the paper's layout."""

import numpy as np
from scipy.cluster.hierarchy import fcluster, linkage

import clustermetrics as cm
from clustermetrics.experiments import algorithms
from clustermetrics.experiments.recovery_study import PAPER_ROWS, paper_kc_tables, recovery_study


def test_c_groups_the_modes_by_single_linkage_maxclust():
    rng = np.random.default_rng(0)
    centres = np.array([[0, 0], [10, 0], [0, 10]])
    y = np.repeat([0, 1, 2], 300)
    X = centres[y] + rng.normal(scale=0.8, size=(900, 2))
    fitted = algorithms.run_algorithm("meanshift_hierarchical", X, 3, seed=4)
    assert cm.adjusted_rand_score(y, fitted.labels) == 1.0
    # the same as clusterdata(modes, 'MaxClust', k) then nearest mode, computed here
    modes = algorithms._mean_shift_modes(X, 3, 4)
    groups = fcluster(linkage(modes, "single", "euclidean"), 3, "maxclust")
    nearest = ((X[:, None, :] - modes[None]) ** 2).sum(-1).argmin(1)
    assert cm.adjusted_rand_score(groups[nearest], fitted.labels) == 1.0


def test_k_and_c_side_by_side_with_the_papers_rows():
    study = recovery_study([5, 6], n_per_cluster=40,
                           algorithms="meanshift_kmeans,meanshift_hierarchical", seeds=[0, 1])
    text = paper_kc_tables(study)
    assert text.count("  ours  ") == 4 and text.count("  paper  ") == 4
    for table in PAPER_ROWS:
        for n in (5, 6):
            for cell in table[n]:
                assert cell in text
    # the paper's printed rows (Li & Klette, Tables 1 and 2): a few values checked
    assert PAPER_ROWS[0][10] == ("(44.4, 0.4, 44.9, 285.1, 90)",
                                 "(24.7, 1.2e-3, 24.7, 256.5, 40)")
    assert PAPER_ROWS[1][7][1] == "(39.2, 7.6e-4, 39.2, 0.3, 85.7)"
    for run in study.runs[0]:  # greedy (k1) first, exact (k2) third, pseudo last
        g, e, p = (f"{100 * run.rate(m):.1f}".removesuffix(".0")
                   for m in ("greedy", "exact", "pseudo"))
        assert any(line.startswith(f"({g}, ") and f", {e}, " in line and line.endswith(f"{p})")
                   for line in text.replace(")  ", ")\n").replace("  (", "\n(").splitlines())
    assert paper_kc_tables(recovery_study([2], n_per_cluster=20, algorithms="kmeans",
                                          seeds=[0])) == ""
