"""Experiments built on the library: compare clustering algorithms on data with a known
ground truth, reproduce Li & Klette's recovery-rate study, the scikit-learn chance-level
study, and draw them as tables, plots and an HTML report.

These are users of the core, not part of it: nothing here is imported by
``import clustermetrics``. Running algorithms needs the ``experiments`` extra
(scikit-learn, tqdm), plotting the ``plot`` extra (matplotlib).
"""
