"""A simulated stellar halo: satellite galaxies disrupted in the Milky Way, seen in the
integrals of motion (the kind of data of Li & Klette's Section 5).

Li & Klette cluster the stars of 33 satellites accreted and phase-mixed in a simulated
Milky Way, 10,000 stars each, in energy and two angular-momentum components, the space of
Helmi & de Zeeuw (2000, MNRAS 319, 657). :func:`stellar_halo` makes data of that kind by
a test-particle simulation with galpy (Bovy 2015, ApJS 216, 29):

- **Galaxy**: galpy's ``MWPotential2014`` (bulge, Miyamoto-Nagai disc, NFW dark halo;
  static, axisymmetric). E is measured from the potential at infinity (galpy's bulge
  potential tends to a constant there, which is subtracted).
- **Satellites** are Plummer spheres: mass ``log10(M / Msun) ~ U(8, 9.5)``, scale radius
  ``b = 0.5 kpc (M / 10^8 Msun)^(1/3)`` (central velocity dispersions of 12 to 38 km/s,
  dwarf galaxies with their dark matter), their stars drawn from the isotropic Plummer
  distribution function (galpy's ``isotropicPlummerdf``) out to the satellite's tidal
  radius in the Galaxy (galpy's ``rtide``; stars beyond it are not bound to it).
- **Orbits** like accreted debris: the satellite's centre starts at a galactocentric
  radius ``r0`` between 5 and 40 kpc drawn as a halo tracer with density ``~ r^-3.5``
  (so more satellites deep in the halo), in an isotropic random direction, moving in an
  isotropic random direction (any inclination, prograde or retrograde) at ``f`` times the
  circular speed there, ``f ~ U(0.3, 1)``: energies, eccentricities and inclinations span
  the bound inner halo.
- **Disruption**: the stars are released at once ``t ~ U(2, 4)`` Gyr ago and move as
  test particles in the Galaxy until today: the satellite's self-gravity is left out
  (instantaneous disruption). They spread along the orbit and phase-mix; the distribution
  of L_perp of each satellite stops changing after about 2 Gyr (its 10/50/90 % quantiles
  stay within the noise from 2 to 8 Gyr), which is why longer runs are not needed.

**What is integrated, and what is not.** In a static axisymmetric potential E and L_z
are conserved along every orbit, so they are computed exactly from the release state,
with no integration. L_perp = sqrt(L_x^2 + L_y^2) is not conserved (the disc torques the
orbital plane); it is taken from each star's orbit integrated to today with galpy's C
Dormand-Prince 5(4) integrator (``dopr54_c``, relative tolerance 1e-6: L_perp within
about 2 kpc km/s of a 1e-10 integration in the median, 50 at the 99th percentile, against
a satellite's spread of 100 to 700) in the same potential with its two spherical
components tabulated on a fine radial grid (galpy's ``interpSphericalPotential``, forces
within 1e-9 of the exact ones, twice as fast). That integration is the only slow step,
about 0.7 ms of CPU per star (214 s of CPU for 33 x 10,000 stars), so each
satellite's stars are cached on disk (:func:`cache_dir`).

Columns: E [km^2/s^2], L_z and L_perp [kpc km/s]. ``normalize=True`` applies the paper's
scale reduction (x / 20, y / 11, z / 11) to E in 10^4 km^2/s^2 and the angular momenta in
10^3 kpc km/s: the paper does not state its units; in these, a satellite's spread is
about as large a part of the whole range in each coordinate.
"""

from __future__ import annotations

import hashlib
import json
import numbers
import os
import tempfile
import warnings
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from ..compute.progress import progress_bar

__all__ = ["stellar_halo", "satellite_parameters", "cache_dir", "CACHE_ENV", "COLUMNS",
           "UNITS", "PAPER_SCALE"]

#: Environment variable naming the cache directory of :func:`stellar_halo`.
CACHE_ENV = "CLUSTERMETRICS_CACHE"
#: The columns of :func:`stellar_halo` and their units (before ``normalize``).
COLUMNS = ("E", "L_z", "L_perp")
UNITS = ("km^2/s^2", "kpc km/s", "kpc km/s")
#: ``normalize=True`` divides the columns by these: the paper's (20, 11, 11) applied to E
#: in 10^4 km^2/s^2 and the angular momenta in 10^3 kpc km/s.
PAPER_SCALE = (20e4, 11e3, 11e3)

# galpy's natural units (MWPotential2014's): lengths in RO kpc, velocities in VO km/s.
RO, VO = 8.0, 220.0
# Bump when the model or its numerics change: cached files of other versions are ignored.
MODEL_VERSION = 1
METHOD, RTOL, ATOL = "dopr54_c", 1e-6, 1e-8  # galpy's C Dormand-Prince 5(4)
LOG_MASS = (8.0, 9.5)  # log10(M / Msun)
RADIUS = (5.0, 40.0)  # kpc, release radius, density ~ r^-3.5
SPEED = (0.3, 1.0)  # of the circular speed
TIME = (2.0, 4.0)  # Gyr since release


def _galpy() -> SimpleNamespace:
    """galpy's parts used here, imported on first use (the ``halo`` extra)."""
    try:
        with warnings.catch_warnings():  # a note that an unused C module is absent
            warnings.simplefilter("ignore")
            import galpy
            from galpy.df import isotropicPlummerdf
            from galpy.orbit import Orbit
            from galpy.potential import (
                MWPotential2014,
                PlummerPotential,
                evaluatePotentials,
                interpSphericalPotential,
                rtide,
                vcirc,
            )
            from galpy.util import conversion, coords, galpyWarningVerbose
    except ImportError as exc:
        raise ImportError("the simulated stellar halo needs galpy: "
                          "pip install 'clustermetrics[halo]'") from exc
    return SimpleNamespace(
        version=galpy.__version__, Orbit=Orbit, MW=MWPotential2014, Plummer=PlummerPotential,
        plummer_df=isotropicPlummerdf, potential=evaluatePotentials,
        interp=interpSphericalPotential, rtide=rtide, vcirc=vcirc, coords=coords,
        verbose=galpyWarningVerbose, mass_unit=conversion.mass_in_msol(VO, RO),
        time_unit=conversion.time_in_Gyr(VO, RO))


def satellite_parameters(index: int, seed: int = 0) -> dict:
    """The drawn properties of satellite ``index`` (the same however many are made): mass
    [Msun], Plummer scale radius [kpc], release position [kpc] and velocity [km/s] in
    galactocentric Cartesian coordinates, and the time since release [Gyr].

    Examples
    --------
    >>> p = satellite_parameters(0)
    >>> sorted(p)
    ['mass', 'position', 'scale_radius', 'time', 'velocity']
    >>> bool(1e7 <= p["mass"] <= 1e9 and 5 <= float(np.linalg.norm(p["position"])) <= 40)
    True
    """
    g = _galpy()
    rng = np.random.default_rng([_seed(seed), _index(index), 0])
    mass = 10.0 ** rng.uniform(*LOG_MASS)
    lo, hi = RADIUS[0] ** -0.5, RADIUS[1] ** -0.5  # p(r) ~ r^2 r^-3.5: inverse CDF
    r0 = (lo - rng.uniform() * (lo - hi)) ** -2.0
    f = rng.uniform(*SPEED)
    t = rng.uniform(*TIME)
    where, heading = _unit_vectors(rng, 2)
    vc = float(g.vcirc(g.MW, r0 / RO, phi=0.0, use_physical=False)) * VO
    return {"mass": mass, "scale_radius": 0.5 * (mass / 1e8) ** (1.0 / 3.0),
            "position": r0 * where, "velocity": f * vc * heading, "time": t}


def _unit_vectors(rng: np.random.Generator, n: int) -> np.ndarray:
    v = rng.normal(size=(n, 3))
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def stellar_halo(n_satellites: int = 33, n_per_satellite: int = 10_000, seed: int = 0, *,
                 normalize: bool = False, cache: bool = True,
                 progress: bool | None = False) -> tuple[np.ndarray, np.ndarray]:
    """Stars of ``n_satellites`` satellite galaxies disrupted in a Milky-Way potential, in
    (E, L_z, L_perp) (Helmi & de Zeeuw 2000): the kind of data of Li & Klette's Section 5.

    Satellite ``i`` depends only on ``(seed, i, n_per_satellite)``, so the first n
    satellites of a larger halo are the halo of n satellites. The model is in this
    module's docstring. Needs the ``halo`` extra (galpy).

    Parameters
    ----------
    n_satellites : number of satellites (>= 1).
    n_per_satellite : stars per satellite (>= 1).
    seed : non-negative integer; the same seed gives the same stars.
    normalize : divide by the paper's scales, :data:`PAPER_SCALE`.
    cache : read and write each satellite's stars under :func:`cache_dir`; the orbit
        integration costs about 0.7 ms of CPU per star.
    progress : a bar over the satellites on stderr (None: when stderr is a terminal).

    Returns
    -------
    X : ndarray (n_satellites * n_per_satellite, 3), float64: E [km^2/s^2], L_z and
        L_perp [kpc km/s], or those divided by :data:`PAPER_SCALE`; rows grouped by
        satellite.
    y : ndarray of int64, the satellite of each row, 0 .. n_satellites - 1.

    Examples
    --------
    >>> X, y = stellar_halo(3, 20, cache=False)
    >>> X.shape, X.dtype, sorted(set(y.tolist()))
    ((60, 3), dtype('float64'), [0, 1, 2])
    >>> bool((X[:, 0] < 0).all() and (X[:, 2] >= 0).all())  # bound; L_perp is a length
    True
    """
    n_satellites = _positive_int("n_satellites", n_satellites)
    n_per_satellite = _positive_int("n_per_satellite", n_per_satellite)
    seed = _seed(seed)
    g = _galpy()
    bar = progress_bar(n_satellites, "stellar halo", progress)
    parts = []
    try:
        for i in range(n_satellites):
            parts.append(_satellite(g, seed, i, n_per_satellite, cache))
            bar.update()
    finally:
        bar.close()
    X = np.concatenate(parts)
    if normalize:
        X = X / np.asarray(PAPER_SCALE)
    return X, np.repeat(np.arange(n_satellites, dtype=np.int64), n_per_satellite)


def cache_dir() -> Path:
    """Where :func:`stellar_halo` keeps its results: ``$CLUSTERMETRICS_CACHE`` when set,
    else ``$XDG_CACHE_HOME/clustermetrics``, else ``~/.cache/clustermetrics``."""
    explicit = os.environ.get(CACHE_ENV)
    if explicit:
        return Path(explicit).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base).expanduser() / "clustermetrics"


def _satellite(g: SimpleNamespace, seed: int, index: int, n: int, cache: bool) -> np.ndarray:
    key = json.dumps({"model": MODEL_VERSION, "galpy": g.version, "method": METHOD,
                      "rtol": RTOL, "seed": seed, "satellite": index, "n": n}, sort_keys=True)
    path = cache_dir() / f"stellar_halo-{hashlib.sha256(key.encode()).hexdigest()[:24]}.npy"
    if cache:
        try:
            out = np.load(path, allow_pickle=False)
        except (OSError, ValueError):
            out = None
        if out is not None and out.shape == (n, 3) and out.dtype == np.float64:
            return out
    out = _simulate(g, seed, index, n)
    if cache:
        _save(path, out)
    return out


def _save(path: Path, array: np.ndarray) -> None:
    """Write through a temporary file renamed into place, so a reader never sees half a
    file; an unwritable cache only means integrating again next time."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".stellar_halo-", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as f:
                np.save(f, array, allow_pickle=False)
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError:
        pass


def _simulate(g: SimpleNamespace, seed: int, index: int, n: int) -> np.ndarray:
    """One satellite's stars: (E, L_z) at release, L_perp after integrating to today."""
    p = satellite_parameters(index, seed)
    rng = np.random.default_rng([seed, index, 1])
    dx, dv = _plummer(g, p, n, rng)
    x, v = p["position"] + dx, p["velocity"] + dv  # kpc, km/s
    E = energy(x, v, g)
    Lz = x[:, 0] * v[:, 1] - x[:, 1] * v[:, 0]
    x, v = _integrate(g, x, v, p["time"])
    L_perp = np.hypot(x[:, 1] * v[:, 2] - x[:, 2] * v[:, 1],
                      x[:, 2] * v[:, 0] - x[:, 0] * v[:, 2])
    return np.column_stack([E, Lz, L_perp]).astype(np.float64)


def _plummer(g: SimpleNamespace, p: dict, n: int, rng: np.random.Generator
             ) -> tuple[np.ndarray, np.ndarray]:
    """Positions [kpc] and velocities [km/s] of ``n`` stars of the satellite's Plummer
    sphere about its centre, within its tidal radius. galpy's sampler draws from numpy's
    global generator: it is seeded from ``rng`` here and put back as it was afterwards."""
    mass, b = p["mass"] / g.mass_unit, p["scale_radius"] / RO
    df = g.plummer_df(pot=g.Plummer(amp=mass, b=b))
    x0 = p["position"] / RO
    r_tide = float(g.rtide(g.MW, float(np.hypot(x0[0], x0[1])), float(x0[2]), M=mass))
    inside = r_tide**3 / (r_tide**2 + b**2) ** 1.5  # Plummer mass fraction within it
    xs, vs, have = [], [], 0
    state = np.random.get_state()  # noqa: NPY002 (galpy samples from the global one)
    try:
        np.random.seed(int(rng.integers(2**32)))  # noqa: NPY002
        while have < n:
            o = df.sample(n=int((n - have) / inside * 1.1) + 16)
            kw = {"use_physical": False}
            x = np.column_stack([o.x(**kw), o.y(**kw), o.z(**kw)])
            v = np.column_stack([o.vx(**kw), o.vy(**kw), o.vz(**kw)])
            keep = np.einsum("ij,ij->i", x, x) <= r_tide**2
            xs.append(x[keep])
            vs.append(v[keep])
            have += int(keep.sum())
    finally:
        np.random.set_state(state)  # noqa: NPY002
    return np.concatenate(xs)[:n] * RO, np.concatenate(vs)[:n] * VO


def energy(x: np.ndarray, v: np.ndarray, g: SimpleNamespace | None = None) -> np.ndarray:
    """E = Phi(x) + |v|^2 / 2 [km^2/s^2] in MWPotential2014, zero at infinity, for
    positions ``x`` [kpc] and velocities ``v`` [km/s] (arrays of shape (n, 3))."""
    g = g or _galpy()
    x, v = np.atleast_2d(x), np.atleast_2d(v)
    phi = g.potential(g.MW, np.hypot(x[:, 0], x[:, 1]) / RO, x[:, 2] / RO,
                      use_physical=False)
    at_infinity = g.potential(g.MW, 1e9, 0.0, use_physical=False)
    return (np.asarray(phi) - at_infinity) * VO**2 + 0.5 * np.einsum("ij,ij->i", v, v)


_TABULATED: list = []


def integration_potential(g: SimpleNamespace | None = None):
    """MWPotential2014 with its spherical bulge and dark halo tabulated (on 1601 radii
    from 1e-4 to 1000 natural units, 0.8 pc to 8 Mpc): the potential the orbits see."""
    if not _TABULATED:
        g = g or _galpy()
        bulge, disc, halo = g.MW
        spherical = g.interp(rforce=bulge + halo, rgrid=np.geomspace(1e-4, 1e3, 1601))
        _TABULATED[:] = [spherical + disc]
    return _TABULATED[0]


def _integrate(g: SimpleNamespace, x: np.ndarray, v: np.ndarray, t_gyr: float
               ) -> tuple[np.ndarray, np.ndarray]:
    """Positions [kpc] and velocities [km/s] after ``t_gyr`` in the integration potential."""
    X, Y, Z = (x / RO).T
    R, phi, z = g.coords.rect_to_cyl(X, Y, Z)
    vR, vT, vz = g.coords.rect_to_cyl_vec(*(v / VO).T, X, Y, Z)
    o = g.Orbit(np.column_stack([R, vR, vT, z, vz, phi]))
    t = t_gyr / g.time_unit
    with warnings.catch_warnings():  # galpy's verbose notes ("Using C implementation")
        warnings.simplefilter("ignore", g.verbose)
        o.integrate(np.array([0.0, t]), integration_potential(g), method=METHOD,
                    progressbar=False, rtol=RTOL, atol=ATOL, numcores=os.cpu_count() or 1)
    kw = {"use_physical": False}
    x = np.column_stack([o.x(t, **kw), o.y(t, **kw), o.z(t, **kw)]) * RO
    v = np.column_stack([o.vx(t, **kw), o.vy(t, **kw), o.vz(t, **kw)]) * VO
    return x, v


def _positive_int(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def _index(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
        raise ValueError(f"index must be a non-negative integer, got {value!r}")
    return int(value)


def _seed(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
        raise ValueError(f"seed must be a non-negative integer, got {value!r}")
    return int(value)
