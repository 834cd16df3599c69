"""Data with a known ground truth for the experiments: a simulator, toy sets and user files.

:func:`stellar_halo` simulates the kind of data of Li & Klette's Section 5: the stars of
satellite galaxies disrupted in the Milky Way, in energy / angular-momentum space (module
:mod:`.halo`; needs galpy, the ``halo`` extra). :func:`overlapping_clusters` is a cheap
**stand-in** for it that does not model galaxies; it reproduces what makes that data hard
to cluster (their Figures 3-4): many clusters, heavily overlapping, non-spherical, of
unequal spread. :func:`load_dataset` gives both and scikit-learn's toy sets by name;
:func:`read_dataset` reads a user's table file (CSV, Parquet...) of features plus a label
column.

Only numpy is needed at import; galpy, scikit-learn, pandas, pyarrow or duckdb are
imported when a function needs them.
"""

from __future__ import annotations

import math
import numbers
import os
from collections.abc import Mapping, Sequence
from typing import NamedTuple

import numpy as np

from ..io.formats import format_of
from ..render.text import find_column, named_twice, one_role
from ..scores.spec import deprecated_alias
from .halo import stellar_halo

__all__ = ["Dataset", "overlapping_clusters", "stellar_halo", "load_dataset", "read_dataset",
           "read_table", "DATASETS", "SIMULATED"]

DATASETS = ("overlapping", "halo", "iris", "wine", "digits", "blobs")
#: The simulated datasets, whose first n clusters are the data of n clusters.
SIMULATED = ("overlapping", "halo")


class Dataset(NamedTuple):
    """Features ``X`` (n_samples x n_features, float64) with true labels ``y``."""

    name: str
    X: np.ndarray
    y: np.ndarray
    description: str


def overlapping_clusters(n_clusters: int, n_per_cluster: int, dim: int = 3,
                         overlap: float = 1.0, seed: int | None = 0
                         ) -> tuple[np.ndarray, np.ndarray]:
    """Heavily overlapping, non-spherical clusters of unequal spread (a stand-in).

    Each cluster is a Gaussian cloud with its own random axis lengths (anisotropy up to
    about 6:1), its own overall spread (a factor between 0.5 and 2), bent into a banana
    along its longest axis, then rotated at random. The centres are drawn around the
    origin at a distance scale of ``2.5 / overlap`` times the typical spread, so
    ``overlap=1`` (the default) packs them so that neighbouring clouds overlap heavily,
    ``overlap -> 0`` separates them, and larger values pile them up further. The same
    ``seed`` gives the same data; ``overlap`` only rescales the centres, so for a fixed
    seed the clusters' shapes do not change with it.

    This stands in for the 3-D energy / angular-momentum galaxy halos of Li & Klette
    (PSIVT 2009, Section 5 and Figures 3-4), which are not available offline.

    Parameters
    ----------
    n_clusters : number of clusters (>= 1).
    n_per_cluster : points in each cluster (>= 1).
    dim : number of features (>= 2; the banana bend needs two axes).
    overlap : > 0; larger means closer centres and more overlap.
    seed : seed of a numpy ``Generator``; None for fresh randomness.

    Returns
    -------
    X : ndarray (n_clusters * n_per_cluster, dim), float64, rows shuffled.
    y : ndarray of int64 in 0 .. n_clusters - 1, the cluster each row was drawn from.

    Examples
    --------
    >>> X, y = overlapping_clusters(4, 50, seed=1)
    >>> X.shape, sorted(set(y.tolist())), int((y == 2).sum())
    ((200, 3), [0, 1, 2, 3], 50)
    >>> bool((overlapping_clusters(4, 50, seed=1)[0] == X).all())
    True
    """
    n_clusters = _positive_int("n_clusters", n_clusters)
    n_per_cluster = _positive_int("n_per_cluster", n_per_cluster)
    dim = _positive_int("dim", dim)
    if dim < 2:
        raise ValueError(f"dim must be at least 2, got {dim}")
    if isinstance(overlap, bool) or not isinstance(overlap, numbers.Real) \
            or not math.isfinite(overlap) or overlap <= 0:
        raise ValueError(f"overlap must be a positive finite number, got {overlap!r}")
    rng = np.random.default_rng(seed)
    # Shapes first, centres last: the shapes then do not depend on `overlap`.
    clouds = [_cloud(rng, n_per_cluster, dim) for _ in range(n_clusters)]
    centres = rng.normal(size=(n_clusters, dim)) * (2.5 / overlap)
    X = np.concatenate([c + centre for c, centre in zip(clouds, centres, strict=True)])
    y = np.repeat(np.arange(n_clusters, dtype=np.int64), n_per_cluster)
    order = rng.permutation(X.shape[0])
    return X[order], y[order]


def _cloud(rng: np.random.Generator, n: int, dim: int) -> np.ndarray:
    """One centred cluster: anisotropic Gaussian, bent into a banana, randomly rotated."""
    spread = rng.uniform(0.5, 2.0)
    axes = np.sort(np.exp(rng.uniform(-0.9, 0.9, size=dim)))[::-1] * spread
    z = rng.normal(size=(n, dim)) * axes
    # Bend the second axis with the square of the first: a curved, not elliptical, cloud.
    bend = rng.uniform(-0.35, 0.35) / axes[0]
    z[:, 1] += bend * (z[:, 0] ** 2 - axes[0] ** 2)
    rotation, _ = np.linalg.qr(rng.normal(size=(dim, dim)))
    return z @ rotation.T


def load_dataset(name: str, *, n_clusters: int = 5, n_per_cluster: int = 400,
                 overlap: float = 1.0, seed: int = 0) -> Dataset:
    """A dataset by name: ``overlapping`` (the stand-in simulator), ``halo`` (the
    simulated stellar halo of :func:`stellar_halo`, ``n_clusters`` satellites of
    ``n_per_cluster`` stars, scaled as in the paper; needs the ``halo`` extra) or
    scikit-learn's iris, wine, digits or blobs (``n_clusters`` blobs of ``n_per_cluster``
    points; needs the ``experiments`` extra).

    Examples
    --------
    >>> d = load_dataset("overlapping", n_clusters=3, n_per_cluster=10)
    >>> d.name, d.X.shape, d.y.shape
    ('overlapping-3', (30, 3), (30,))
    """
    if name == "overlapping":
        X, y = overlapping_clusters(n_clusters, n_per_cluster, overlap=overlap, seed=seed)
        return Dataset(f"overlapping-{n_clusters}", X, y,
                       f"{n_clusters} simulated overlapping clusters of {n_per_cluster} "
                       f"points (overlap {overlap:g}, seed {seed})")
    if name == "halo":
        X, y = stellar_halo(n_clusters, n_per_cluster, seed, normalize=True)
        return Dataset(f"halo-{n_clusters}", X, y, halo_description(n_clusters, n_per_cluster,
                                                                    seed))
    if name not in DATASETS:
        raise ValueError(f"unknown dataset {name!r}; choose from {', '.join(DATASETS)}")
    skd = _sklearn_datasets()
    if name == "blobs":
        X, y = skd.make_blobs(n_samples=n_clusters * n_per_cluster, centers=n_clusters,
                              random_state=seed)
        return Dataset("blobs", X.astype(np.float64), y.astype(np.int64),
                       f"scikit-learn make_blobs: {n_clusters} blobs of {n_per_cluster} "
                       f"points (seed {seed})")
    bunch = getattr(skd, f"load_{name}")()
    return Dataset(name, np.asarray(bunch.data, dtype=np.float64),
                   np.asarray(bunch.target, dtype=np.int64), f"scikit-learn toy set {name}")


def halo_description(n: int, n_per_cluster: int, seed: int, first: bool = False) -> str:
    """How a :func:`stellar_halo` dataset is described in tables and reports."""
    which = f"the first {n}" if first else f"{n}"
    return (f"{which} satellite galaxies of a simulated stellar halo ({n_per_cluster:,} "
            f"stars each, seed {seed}) in (E/20, L_z/11, L_perp/11)")


def _sklearn_datasets():
    try:
        import sklearn.datasets as skd
    except ImportError as exc:
        raise ImportError("scikit-learn is needed for this dataset: "
                          "pip install 'clustermetrics[experiments]'") from exc
    return skd


# --------------------------------------------------------------------- user files
def read_dataset(path: str | os.PathLike, label_col: str, *,
                 feature_cols: Sequence[str] | None = None, sep: str | None = None,
                 names: Mapping[str, str] | None = None) -> Dataset:
    """Features and true labels from a table file of any format the readers know (the
    user guide's "How files are read").

    ``label_col`` holds the ground truth (read as text from CSV, as stored from a format
    of typed columns);
    every other column (or only ``feature_cols``) is a feature and must be numeric. A
    column asked for must be named once in the file (other names may repeat), and the
    label column is not a feature. Raises ``ValueError`` naming the missing column (and
    listing the columns), the first non-numeric feature column (with an example value),
    or a missing value; ``sep`` with a file that is not text is an error too. ``names`` respells
    parameters in messages (``{"sep": "--sep", "label_col": "--label-col"}``).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "d.csv"
    >>> _ = f.write_text("x,y,species\\n1,2,a\\n3,4.5,b\\n")
    >>> d = read_dataset(f, "species")
    >>> d.X.tolist(), d.y.tolist()
    ([[1.0, 2.0], [3.0, 4.5]], ['a', 'b'])
    """
    path = os.fspath(path)
    spell = {"label_col": "label_col", "feature_cols": "feature_cols", **(names or {})}
    if not os.path.exists(path):
        raise ValueError(f"{path}: no such file")
    kind = format_of(path)
    kind.check_sep(sep, path, (names or {}).get("sep", "sep"))
    header, columns = kind.reader.frame(path, sep)
    label_at = find_column(path, header, label_col, spell["label_col"])
    if feature_cols is None:
        features = [i for i in range(len(header)) if i != label_at]
    else:
        named_twice(feature_cols, spell["feature_cols"])
        one_role({spell["label_col"]: [label_col], spell["feature_cols"]: feature_cols})
        features = [find_column(path, header, c, spell["feature_cols"])
                    for c in feature_cols]
    if not features:
        raise ValueError(f"{path} has no feature columns besides {label_col!r}")
    X = np.column_stack([_numeric(path, header[i], columns[i], spell["feature_cols"])
                         for i in features])
    y = _labels(path, label_col, columns[label_at])
    name = os.path.basename(path)
    # the description follows the name in reports (user text, escaped where it is shown):
    # the file only where the name is not it
    where = "" if path == name else f" (file {path})"
    return Dataset(name, X, y, f"{X.shape[0]} rows, {X.shape[1]} features, labels in "
                               f"column '{label_col}'{where}")


def _numeric(path: str, name: str, values: list, option: str = "feature_cols") -> np.ndarray:
    out = np.empty(len(values), dtype=np.float64)
    for i, v in enumerate(values):
        if v is None or (isinstance(v, str) and not v.strip()):
            raise ValueError(f"{path}: feature column {name!r} has a missing value "
                             f"(row {i + 1})")
        try:
            if isinstance(v, bool):
                raise TypeError
            out[i] = float(v)
        except (TypeError, ValueError):
            raise ValueError(f"{path}: feature column {name!r} is not numeric "
                             f"(row {i + 1}: {v!r}); choose the feature columns "
                             f"({option}) or drop it") from None
    if not np.isfinite(out).all():
        raise ValueError(f"{path}: feature column {name!r} has NaN or infinite values")
    return out


def _labels(path: str, name: str, values: list) -> np.ndarray:
    blank = sum(v is None or (isinstance(v, str) and not v.strip()) for v in values)
    if blank:
        raise ValueError(f"{path}: label column {name!r} has {blank} missing value(s)")
    arr = np.empty(len(values), dtype=object)
    arr[:] = values
    return arr


def _positive_int(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


# its name before 0.2, when clustermetrics.read_table (a contingency table from a file of
# labels) did not exist
read_table = deprecated_alias("read_table", read_dataset)
