"""How closely do our scikit-learn scores agree with scikit-learn 1.9.1, and who is right?

Run: ``.venv/bin/python tests/support/sklearn_agreement_study.py`` (about 10 minutes). For
label pairs of every shape of ``label_shapes`` at N = 1 .. 10^5 (the shapes with ~N classes and ~N
clusters up to N = 3000: scikit-learn's E[MI] loops over all their pairs) it computes each
score with clustermetrics, with scikit-learn and with the 40-digit reference of
``decimal_reference``, and prints per score family and range of N: how often the two
differ, the largest |ours - scikit-learn|, the largest error of each side, which side is
closer where they differ (at all, and by more than 1e-14), and the differences and errors
scaled as docs/guide/scikit-learn.md states them:

* pair counting (ARI, RI, FMI): in units in the last place of the value;
* information (MI, NMI, homogeneity, completeness, V-measure): times the entropy the score
  divides by (1 for MI), over eps log N, since the rounding of MI and of the entropies is
  ~eps log N nats and a ratio divides it by its denominator;
* AMI: times mean(H) - E[MI] (its denominator), the difference over eps N^2 and our error
  over eps.

``test_sklearn_agreement.py`` tests the bounds docs/guide/scikit-learn.md states from this output.
"""

from __future__ import annotations

import math
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import decimal_reference as ref  # noqa: E402
from label_shapes import QUADRATIC, SHAPES  # noqa: E402

AVERAGES = ("arithmetic", "geometric", "min", "max")
BUCKETS = ((1, 79), (80, 999), (1000, 9999), (10_000, 100_000))
EPS = 2.0 ** -52
PAIRS = ("ari", "ri", "fmi")


def cases(seed=0):
    rng = np.random.default_rng(seed)
    names = sorted(SHAPES)
    for n in range(1, 80):
        for _ in range(6):
            shape = names[rng.integers(len(names))]
            k = int(rng.integers(1, n + 1))
            yield shape, SHAPES[shape](rng, n, k)
    for n in (100, 150, 200, 300, 500, 700, 1000, 2000, 3000, 5000,
              10_000, 20_000, 50_000, 100_000):
        root = round(math.sqrt(n))
        for shape in names:
            if shape in QUADRATIC and n > 3000:
                continue
            ks = {"strays": (1, 3), "near_singletons": (1, n // 100 + 1, n // 10),
                  "pairs_vs_near_singletons": (1, n // 10)}.get(shape, (2, 10, root))
            for k in ks:
                yield shape, SHAPES[shape](rng, n, k)


def zero_over_zero(t, p, average):
    """AMI's numerator and denominator are both 0 in theory: a side of singletons makes
    MI = E[MI] = the other side's entropy, which the mean picks ("min", or both sides)."""
    singles = [len(set(x.tolist())) == len(x) for x in (t, p)]
    return any(singles) and (average == "min" or all(singles))


def scores(lib, t, p):
    """name -> value for every score of the comparison (lib: clustermetrics or sklearn)."""
    out = {}
    for avg in AVERAGES:
        out[f"ami_{avg}"] = lib.adjusted_mutual_info_score(t, p, average_method=avg)
        out[f"nmi_{avg}"] = lib.normalized_mutual_info_score(t, p, average_method=avg)
    out["homogeneity"], out["completeness"], out["v_measure"] = \
        lib.homogeneity_completeness_v_measure(t, p)
    out["mi"] = lib.mutual_info_score(t, p)
    out["ari"] = lib.adjusted_rand_score(t, p)
    out["fmi"] = lib.fowlkes_mallows_score(t, p)
    out["ri"] = lib.rand_score(t, p)
    return out


def exact(t, p):
    """name -> (exact value, what the score divides by) from the 40-digit reference."""
    table = ref.Table.of(t.tolist(), p.tolist())
    h_true, h_pred = ref.entropy(table.a.values()), ref.entropy(table.b.values())
    emi = ref.expected_mutual_info(table)
    out = {}
    for avg in AVERAGES:
        mean = ref.average(h_true, h_pred, avg)
        out[f"ami_{avg}"] = ref.adjusted_mutual_info(table, avg), mean - emi
        out[f"nmi_{avg}"] = ref.normalized_mutual_info(table, avg), mean
    h, c, v = ref.homogeneity_completeness_v(table)
    out["homogeneity"], out["completeness"] = (h, h_true), (c, h_pred)
    out["v_measure"] = v, (h_true + h_pred) / 2
    out["mi"] = ref.mutual_info(table), 1
    out["ari"], out["fmi"] = (ref.adjusted_rand(table), None), (ref.fowlkes_mallows(table), None)
    out["ri"] = ref.rand(table), None
    return out


def family(name, t, p):
    if name.startswith("ami"):
        return "ami (0/0)" if zero_over_zero(t, p, name[4:]) else "ami"
    return "nmi" if name.startswith("nmi") else name


def scaled(fam, n, value, diff, err_ours, divisor):
    """(difference, our error) in the units docs/guide/scikit-learn.md states them in."""
    if fam in PAIRS:
        ulp = math.ulp(value) or 1.0
        return diff / ulp, err_ours / ulp
    if fam == "ami":
        return diff * float(divisor) / (EPS * n * n), err_ours * float(divisor) / EPS
    if fam == "ami (0/0)":
        return 0.0, err_ours / EPS
    unit = EPS * math.log(n) / (float(divisor) if divisor else 1.0)
    return tuple(x / unit if x else 0.0 for x in (diff, err_ours))


def main():
    import sklearn
    from sklearn import metrics as skm

    import clustermetrics as cm

    print(f"scikit-learn {sklearn.__version__}, clustermetrics {cm.__version__}")
    # (family, bucket) -> [values, differing, max |ours - sk|, max err ours, max err sk,
    #   ours closer, sk closer, max scaled difference, max scaled error of ours,
    #   differing by more than 1e-14, of which ours closer]
    stats = defaultdict(lambda: [0, 0, 0.0, 0.0, 0.0, 0, 0, 0.0, 0.0, 0, 0])
    worst = {}
    n_cases = 0
    for shape, (t, p) in cases():
        n_cases += 1
        n = len(t)
        ours, theirs, truth = scores(cm, t, p), scores(skm, t, p), exact(t, p)
        bucket = next(b for b in BUCKETS if b[0] <= n <= b[1])
        singletons = len(set(t.tolist())) == n == len(set(p.tolist()))
        for name in ours:
            if name == "fmi" and singletons:
                continue  # the documented deviation: ours 1.0, scikit-learn 0.0
            value, divisor = truth[name]
            fam = family(name, t, p)
            diff = abs(ours[name] - theirs[name])
            err_ours, err_sk = ref.error(ours[name], value), ref.error(theirs[name], value)
            s = stats[fam, bucket]
            s[0] += 1
            s[1] += diff > 0
            s[2] = max(s[2], diff)
            s[3], s[4] = max(s[3], err_ours), max(s[4], err_sk)
            s[5] += diff > 0 and err_ours < err_sk
            s[6] += diff > 0 and err_sk < err_ours
            sd, se = scaled(fam, n, ours[name], diff, err_ours, divisor)
            s[7], s[8] = max(s[7], sd), max(s[8], se)
            s[9] += diff > 1e-14
            s[10] += diff > 1e-14 and err_ours < err_sk
            if diff > worst.get(fam, (0,))[0]:
                worst[fam] = (diff, n, shape, name, err_ours, err_sk)
    print(f"{n_cases} label pairs\n")
    print(f"{'family':12} {'N':>13} {'values':>6} {'differ':>6} {'max|ours-sk|':>12} "
          f"{'err ours':>8} {'err sk':>8} {'ours closer':>11} {'sk closer':>9} "
          f"{'scaled diff':>11} {'scaled err':>10} {'>1e-14':>6} {'ours':>5}")
    for (fam, (lo, hi)), s in sorted(stats.items()):
        print(f"{fam:12} {f'{lo}..{hi}':>13} {s[0]:6d} {s[1] / s[0]:6.0%} {s[2]:12.1e} "
              f"{s[3]:8.1e} {s[4]:8.1e} {s[5]:11d} {s[6]:9d} {s[7]:11.2f} {s[8]:10.2e} "
              f"{s[9]:6d} {s[10]:5d}")
    print("\nlargest difference per family (|ours - sk|, N, shape, score, err ours, err sk):")
    for fam, w in sorted(worst.items()):
        print(f"  {fam:12} {w[0]:.2e}  N={w[1]}  {w[2]}  {w[3]}  {w[4]:.1e}  {w[5]:.1e}")


if __name__ == "__main__":
    main()
