"""The simulated stellar halo as Li & Klette show theirs (Figures 3 and 4: 2-D projections
of the first 5 and 10 clusters), and the numbers the README quotes about it.

    python tools/halo_figure.py [--n-per-satellite 10000] [--out docs/stellar_halo.png]

Prints, for n = 5 ... 10 satellites, the fraction of stars that the nearest-satellite-mean
rule assigns to their own satellite (in the paper's scaled coordinates), and each of the
first 10 satellites' spread in E, L_z and L_perp. Needs the halo and plot extras.
"""

import argparse

import numpy as np

from clustermetrics.datasets import stellar_halo
from clustermetrics.experiments.halo import PAPER_SCALE, satellite_parameters


def nearest_mean_accuracy(X: np.ndarray, y: np.ndarray) -> float:
    """Fraction of points closer to their own class mean than to any other."""
    classes = np.unique(y)
    means = np.stack([X[y == c].mean(axis=0) for c in classes])
    d2 = ((X[:, None, :] - means[None, :, :]) ** 2).sum(axis=2)
    return float((classes[d2.argmin(axis=1)] == y).mean())


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n-per-satellite", type=int, default=10_000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default="docs/guide/stellar_halo.png")
    args = p.parse_args()
    X, y = stellar_halo(10, args.n_per_satellite, args.seed, progress=None)
    Xn = X / np.asarray(PAPER_SCALE)

    print("n  nearest-satellite-mean rule: stars assigned to their own satellite")
    for n in range(5, 11):
        keep = y < n
        print(f"{n:2d}  {100 * nearest_mean_accuracy(Xn[keep], y[keep]):.1f} %")

    print("\nsatellite  mass [Msun]  r0 [kpc]  t [Gyr]  mean E  sd E [km^2/s^2]  "
          "mean L_z  sd L_z  mean L_perp  sd L_perp [kpc km/s]")
    for i in range(10):
        s = X[y == i]
        q = satellite_parameters(i, args.seed)
        print(f"{i:9d}  {q['mass']:.1e}  {np.linalg.norm(q['position']):8.1f}  "
              f"{q['time']:7.1f}  {s[:, 0].mean():7.0f}  {s[:, 0].std():6.0f}  "
              f"{s[:, 1].mean():8.0f}  {s[:, 1].std():6.0f}  {s[:, 2].mean():11.0f}  "
              f"{s[:, 2].std():9.0f}")
    span = X.max(axis=0) - X.min(axis=0)
    sd = np.stack([X[y == i].std(axis=0) for i in range(10)])
    print("\nmedian sd / range of the 10 satellites: " + ", ".join(
        f"{c} {v:.3f}" for c, v in zip(("E", "L_z", "L_perp"), np.median(sd, 0) / span,
                                       strict=True)))

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 2, figsize=(8, 7), sharey=True)
    colours = plt.get_cmap("tab10").colors
    for row, n in zip(axes, (5, 10), strict=True):
        for ax, col, name in zip(row, (1, 2), ("L_z / 11", "L_perp / 11"), strict=True):
            for i in range(n):
                s = Xn[y == i]
                ax.scatter(s[:, col], s[:, 0], s=0.3, alpha=0.25, color=colours[i],
                           rasterized=True, linewidths=0)
            ax.set_xlabel(f"{name}  [10^3 kpc km/s]")
            ax.set_title(f"first {n} satellites ({args.n_per_satellite:,} stars each)",
                         fontsize=9)
        row[0].set_ylabel("E / 20  [10^4 km^2/s^2]")
    fig.suptitle("Simulated stellar halo: satellites disrupted in MWPotential2014", fontsize=10)
    fig.tight_layout()
    fig.savefig(args.out, dpi=72)
    print(f"\nwrote {args.out}")


if __name__ == "__main__":
    main()
