"""Independent references shared by the tests: O(N^2) pair enumeration."""

import itertools


def enumerate_pairs(t, p):
    """(TP, FN, FP, TN) over unordered item pairs, by looking at every pair."""
    tp = fn = fp = tn = 0
    for i, j in itertools.combinations(range(len(t)), 2):
        same_t, same_p = t[i] == t[j], p[i] == p[j]
        tp += same_t and same_p
        fn += same_t and not same_p
        fp += same_p and not same_t
        tn += not same_t and not same_p
    return tp, fn, fp, tn
