"""The simulated stellar halo (clustermetrics.datasets.stellar_halo): shapes, determinism,
the cache, the physics it rests on (E and L_z conserved in the chosen potential), its
drawn parameters, and the error when galpy (the ``halo`` extra) is missing."""

import builtins
import json

import numpy as np
import pytest
from cli_helpers import run as cli_run
from galpy.orbit import Orbit  # galpy is in the test extra
from galpy.potential import (
    MWPotential2014,
    evaluatePotentials,
    evaluateRforces,
    evaluatezforces,
    vcirc,
)

from clustermetrics.datasets import load_dataset, stellar_halo
from clustermetrics.experiments import halo
from clustermetrics.experiments.recovery_study import recovery_study

pytestmark = pytest.mark.filterwarnings("ignore:Using C implementation")
N = 12  # stars per satellite: each costs about a millisecond to integrate


@pytest.fixture(autouse=True)
def _cache(tmp_path, monkeypatch):
    """Every test gets its own empty cache directory."""
    monkeypatch.setenv(halo.CACHE_ENV, str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_shapes_dtypes_and_grouping():
    X, y = stellar_halo(3, N, cache=False)
    assert X.shape == (3 * N, 3) and X.dtype == np.float64
    assert y.dtype == np.int64 and y.tolist() == [i for i in range(3) for _ in range(N)]
    assert np.isfinite(X).all()
    assert (X[:, 0] < 0).all()  # bound, E measured from the potential at infinity
    assert (X[:, 2] >= 0).all()  # L_perp is a length
    Xn, yn = stellar_halo(3, N, normalize=True, cache=False)
    assert np.array_equal(yn, y)
    np.testing.assert_array_equal(Xn, X / np.array(halo.PAPER_SCALE))


def test_deterministic_per_seed_and_first_n_satellites_are_the_smaller_halo():
    X1, _ = stellar_halo(3, N, seed=4, cache=False)
    X2, _ = stellar_halo(3, N, seed=4, cache=False)
    assert np.array_equal(X1, X2)
    X3, _ = stellar_halo(2, N, seed=4, cache=False)
    assert np.array_equal(X3, X1[:2 * N])
    other, _ = stellar_halo(3, N, seed=5, cache=False)
    assert not np.allclose(other, X1)
    # galpy's sampler draws from numpy's global generator: it is left as it was
    state = np.random.get_state()[1].copy()  # noqa: NPY002
    stellar_halo(1, N, seed=6, cache=False)
    assert np.array_equal(np.random.get_state()[1], state)  # noqa: NPY002


def test_cache_is_written_read_and_survives_a_broken_file(_cache, monkeypatch):
    X, _ = stellar_halo(2, N, seed=1)
    files = sorted(_cache.glob("stellar_halo-*.npy"))
    assert len(files) == 2
    calls = []
    real = halo._simulate
    monkeypatch.setattr(halo, "_simulate", lambda *a: calls.append(a) or real(*a))
    again, _ = stellar_halo(2, N, seed=1)
    assert calls == [] and np.array_equal(again, X)  # read back, not recomputed
    files[0].write_bytes(b"not an array")
    again, _ = stellar_halo(2, N, seed=1)
    assert len(calls) == 1 and np.array_equal(again, X)  # recomputed, the same stars
    stellar_halo(2, N, seed=1, cache=False)
    assert len(calls) == 3  # cache=False neither reads nor writes
    assert not list(_cache.glob("*.tmp"))


def test_cache_dir_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv(halo.CACHE_ENV, str(tmp_path / "mine"))
    assert halo.cache_dir() == tmp_path / "mine"
    monkeypatch.delenv(halo.CACHE_ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert halo.cache_dir() == tmp_path / "xdg" / "clustermetrics"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert halo.cache_dir() == tmp_path / "home" / ".cache" / "clustermetrics"


def test_unwritable_cache_only_costs_the_integration(monkeypatch, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv(halo.CACHE_ENV, str(blocker / "below"))  # a file is in the way
    X, y = stellar_halo(1, N)
    assert X.shape == (N, 3)


@pytest.mark.parametrize("kwargs,match", [
    ({"n_satellites": 0}, "n_satellites must be a positive integer"),
    ({"n_satellites": True}, "n_satellites must be a positive integer"),
    ({"n_per_satellite": 2.5}, "n_per_satellite must be a positive integer"),
    ({"seed": -1}, "seed must be a non-negative integer"),
    ({"seed": "1"}, "seed must be a non-negative integer"),
])
def test_bad_arguments_name_the_parameter(kwargs, match):
    with pytest.raises(ValueError, match=match):
        stellar_halo(**{"n_satellites": 1, "n_per_satellite": 1, **kwargs})


def test_satellites_follow_the_stated_distributions():
    ps = [halo.satellite_parameters(i, seed=3) for i in range(200)]
    mass = np.array([p["mass"] for p in ps])
    r0 = np.array([np.linalg.norm(p["position"]) for p in ps])
    speed = np.array([np.linalg.norm(p["velocity"]) for p in ps])
    vc = np.array([float(vcirc(MWPotential2014, r / 8.0)) * 220.0 for r in r0])
    assert (10**8 <= mass).all() and (mass <= 10**9.5).all()
    assert (5 <= r0).all() and (r0 <= 40).all()
    assert np.median(r0) < 15  # density ~ r^-3.5 between 5 and 40 kpc: median ~12.6
    assert (0.3 * vc <= speed * (1 + 1e-12)).all() and (speed <= vc * (1 + 1e-12)).all()
    times = np.array([p["time"] for p in ps])
    assert (2 <= times).all() and (times <= 4).all()
    b = np.array([p["scale_radius"] for p in ps])
    np.testing.assert_allclose(b, 0.5 * (mass / 1e8) ** (1 / 3))
    # prograde and retrograde, all inclinations
    L = np.cross([p["position"] for p in ps], [p["velocity"] for p in ps])
    cos_i = L[:, 2] / np.linalg.norm(L, axis=1)
    assert cos_i.min() < -0.8 and cos_i.max() > 0.8


# ----------------------------------------------------------------- the physics
def _orbit(vxvv, years, **kw):
    o = Orbit(vxvv)
    ts = np.linspace(0.0, years / halo._galpy().time_unit, 801)
    o.integrate(ts, halo.integration_potential(), progressbar=False, **kw)
    return o, ts


@pytest.mark.parametrize("vxvv", [[10 / 8, 0.3, 0.4, 3 / 8, 0.5, 0.2],  # inclined, eccentric
                                  [5 / 8, 0.1, -0.2, 1 / 8, 0.9, 1.0],  # retrograde, inner
                                  [30 / 8, 0.0, 0.3, 10 / 8, 0.2, 0.0]])  # outer halo
def test_energy_and_lz_are_conserved_along_an_orbit(vxvv):
    """E and L_z are integrals in the chosen (static, axisymmetric) potential: a tight
    integration keeps them to 1e-8; the generator's own settings (dopr54, rtol 1e-6) to
    1e-3 (E) and 1e-4 (L_z) over 4 Gyr (the generator takes both from the release state,
    so this drift never reaches its output). L_perp is not conserved: it changes by far
    more."""
    pot = halo.integration_potential()
    o, ts = _orbit(vxvv, 4.0, method="dop853_c", rtol=1e-11, atol=1e-13)
    E, Lz = o.E(ts, pot=pot), o.Lz(ts)
    assert np.abs(E / E[0] - 1).max() < 1e-8 and np.abs(Lz / Lz[0] - 1).max() < 1e-8
    L = np.stack([o.L(t) for t in ts[::20]])
    L_perp = np.hypot(L[:, 0], L[:, 1])
    assert L_perp.max() - L_perp.min() > 0.01 * L_perp.mean()
    o, ts = _orbit(vxvv, 4.0, method=halo.METHOD, rtol=halo.RTOL, atol=halo.ATOL)
    E, Lz = o.E(ts, pot=pot), o.Lz(ts)
    assert np.abs(E / E[0] - 1).max() < 1e-3 and np.abs(Lz / Lz[0] - 1).max() < 1e-4


def test_the_tabulated_potential_is_mwpotential2014():
    """Forces within 1e-8 (relative) of galpy's MWPotential2014, potential within 1e-8 of
    its natural unit (220 km/s)^2, from 80 pc to 20 natural units (160 kpc)."""
    R = np.geomspace(0.01, 20.0, 200)
    z = np.linspace(-3.0, 3.0, 200)
    pot = halo.integration_potential()
    for f in (evaluateRforces, evaluatezforces):
        np.testing.assert_allclose(f(pot, R, z), f(MWPotential2014, R, z), rtol=1e-8,
                                   atol=1e-10)
    np.testing.assert_allclose(evaluatePotentials(pot, R, z),
                               evaluatePotentials(MWPotential2014, R, z), rtol=1e-8,
                               atol=1e-8)  # 5e-4 km^2/s^2


def test_integrals_match_the_final_state_of_an_independent_integration():
    """E and L_z (taken at release) equal the final state's in the exact potential, and
    L_perp the final state's of a tight integration, star by star."""
    seed, index, n = 2, 1, 8
    X, _ = stellar_halo(index + 1, n, seed=seed, cache=False)
    X = X[index * n:]
    g = halo._galpy()
    p = halo.satellite_parameters(index, seed)
    dx, dv = halo._plummer(g, p, n, np.random.default_rng([seed, index, 1]))
    x, v = (p["position"] + dx) / 8.0, (p["velocity"] + dv) / 220.0
    R, phi = np.hypot(x[:, 0], x[:, 1]), np.arctan2(x[:, 1], x[:, 0])
    vR = (x[:, 0] * v[:, 0] + x[:, 1] * v[:, 1]) / R
    vT = (x[:, 0] * v[:, 1] - x[:, 1] * v[:, 0]) / R
    o = Orbit(np.column_stack([R, vR, vT, x[:, 2], v[:, 2], phi]))
    t = p["time"] / g.time_unit
    o.integrate(np.array([0.0, t]), MWPotential2014, method="dop853_c", rtol=1e-10,
                atol=1e-12, progressbar=False)
    zero = evaluatePotentials(MWPotential2014, 1e9, 0.0)
    E = (o.E(t, pot=MWPotential2014) - zero) * 220.0**2
    L = o.L(t) * 8.0 * 220.0
    np.testing.assert_allclose(X[:, 0], E, rtol=1e-6)
    np.testing.assert_allclose(X[:, 1], L[:, 2], rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(X[:, 2], np.hypot(L[:, 0], L[:, 1]), atol=60.0)


def test_satellites_stay_within_their_tidal_radius_at_release():
    g = halo._galpy()
    p = halo.satellite_parameters(0, 0)
    dx, _ = halo._plummer(g, p, 500, np.random.default_rng(0))
    r_tide = float(g.rtide(MWPotential2014, np.hypot(*p["position"][:2]) / 8,
                           p["position"][2] / 8, M=p["mass"] / g.mass_unit)) * 8
    r = np.linalg.norm(dx, axis=1)
    assert r.max() <= r_tide and np.median(r) < r_tide


# ----------------------------------------------------------------- the extra
def _without_galpy(monkeypatch):
    real = builtins.__import__

    def fake(name, *args, **kwargs):
        if name == "galpy" or name.startswith("galpy."):
            raise ImportError(f"No module named {name!r}")
        return real(name, *args, **kwargs)
    monkeypatch.setattr(builtins, "__import__", fake)


def test_missing_galpy_names_the_extra(monkeypatch):
    _without_galpy(monkeypatch)
    for call in (lambda: stellar_halo(1, 1), lambda: load_dataset("halo"),
                 lambda: halo.satellite_parameters(0)):
        with pytest.raises(ImportError, match=r"pip install 'clustermetrics\[halo\]'"):
            call()


def test_missing_galpy_is_one_line_on_the_command_line(monkeypatch, capsys):
    _without_galpy(monkeypatch)
    for argv in (["compare", "--dataset", "halo", "--algorithms", "kmeans"],
                 ["demo", "--data", "halo", "--algorithms", "kmeans"]):
        code, out, err = cli_run(capsys, *argv)
        assert code == 2 and out == ""
        assert err.count("\n") == 1 and "pip install 'clustermetrics[halo]'" in err, err


# ----------------------------------------------------------------- where it is used
def test_load_dataset_and_recovery_study_use_the_paper_scaling():
    d = load_dataset("halo", n_clusters=2, n_per_cluster=N, seed=1)
    X, y = stellar_halo(2, N, seed=1, normalize=True)
    assert d.name == "halo-2" and np.array_equal(d.X, X) and np.array_equal(d.y, y)
    s = recovery_study([2, 3], n_per_cluster=N, algorithms="kmeans", seeds=[0], data="halo",
                       data_seed=1)
    X3, y3 = stellar_halo(3, N, seed=1, normalize=True)
    assert np.array_equal(s.datasets[2].X, X3[y3 < 2]) and s.datasets[3].name == "halo-3"
    assert s.settings()["data"] == "halo"
    with pytest.raises(ValueError, match="data must be one of overlapping, halo"):
        recovery_study([2], n_per_cluster=N, algorithms="kmeans", seeds=[0], data="iris")


def test_cli_compare_and_demo_offer_halo(capsys):
    code, out, _ = cli_run(capsys, "compare", "--help")
    assert code == 0 and "halo" in out
    code, out, err = cli_run(capsys, "compare", "--dataset", "halo", "--n-clusters", "2",
                             "--n-per-cluster", str(N), "--algorithms", "kmeans",
                             "--format", "json")
    assert code == 0, err
    assert [r["dataset"] for r in json.loads(out)] == ["halo-2"]
    code, out, err = cli_run(capsys, "demo", "--data", "halo", "--n-min", "2", "--n-max",
                             "2", "--n-per-cluster", str(N), "--algorithms", "kmeans",
                             "--seeds", "0", "--bruteforce-max", "2", "--timing-max", "10")
    assert code == 0, err
    assert "simulated stellar halo" in out
    code, out, err = cli_run(capsys, "demo", "--data", "halo", "--overlap", "2")
    assert code == 2 and "--overlap applies to --data overlapping" in err
