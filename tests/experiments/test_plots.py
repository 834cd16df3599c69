"""Every figure the reports draw is readable: generated inputs for every figure function
(one point, integer ranges, huge and tiny magnitudes, negative unbounded scores, many
series), each drawn and checked for what a reader needs: plain tick labels, at least two
labelled ticks per axis, integer ticks on axes of counts, legends clear of the data, tick
labels clear of each other, no panel where one series flattens another, and PNGs drawn at
twice their shown size."""

from __future__ import annotations

import contextlib
import importlib.util
import math
import struct
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import clustermetrics as cm
from clustermetrics.experiments import html, plots
from clustermetrics.experiments.chance import ChanceCurves, ChanceSetup
from clustermetrics.experiments.coverage import CoverageRow
from clustermetrics.experiments.timing import PAPER_ALGORITHM1_SECONDS, Timing
from clustermetrics.hierarchy.cuts import BestCut

ROOT = Path(__file__).resolve().parents[2]
KEYS = list(cm.METRICS)
# x labels of the axes that count things: their ticks must be whole numbers
COUNT_LABELS = ("n (", "k (", "k", "number of clusters", "sample size n")


# ------------------------------------------------------------------ drawing and checks
@contextlib.contextmanager
def _captured():
    """Figures the plots build, laid out and drawn as their PNG would be, instead of it."""
    figures = []

    def capture(fig):
        plots._legible(fig)  # the layout step of plots._png
        fig.canvas.draw()
        figures.append(fig)
        return b"\x89PNG stub"

    real, plots._png = plots._png, capture
    try:
        yield figures
    finally:
        plots._png = real


def _draw(kind, *args):
    with _captured() as figures:
        plots.FIGURES[kind](*args)
    (fig,) = figures
    return fig


def _shown(ax):
    return ax.axison and ax.get_visible()


def _labelled(axis, minor=False):
    """(location, text, label) of the visible, non-empty tick labels within the view."""
    lo, hi = sorted(axis.get_view_interval())
    ticks = axis.get_minor_ticks() if minor else axis.get_major_ticks()
    locs = axis.get_minorticklocs() if minor else axis.get_majorticklocs()
    out = []
    slack = 1e-9 * abs(hi - lo)
    for tick, loc in zip(ticks, locs, strict=False):
        for label in (tick.label1, tick.label2):  # left/bottom or right/top (a colorbar)
            if label.get_visible() and label.get_text() and lo - slack <= loc <= hi + slack:
                out.append((float(loc), label.get_text(), label))
    return out


def _axes_of(axis):
    ax = axis.axes
    return ax.get_shared_x_axes() if axis is ax.xaxis else ax.get_shared_y_axes()


def _check_ticks(fig):
    renderer = fig.canvas.get_renderer()
    for ax in fig.axes:
        if not _shown(ax):
            continue
        for axis in (ax.xaxis, ax.yaxis):
            texts = [t.get_text() for minor in (False, True)
                     for t in (axis.get_ticklabels(minor=minor))]
            assert not any("$" in t or "\\mathdefault" in t for t in texts), texts
            major = _labelled(axis)
            labels = [lab for minor in (False, True) for _, _, lab in _labelled(axis, minor)]
            boxes = [lab.get_window_extent(renderer) for lab in labels]
            for i, a in enumerate(boxes):  # one axis's labels never run into each other
                for b in boxes[i + 1:]:
                    inter = a.intersection(a, b)
                    assert inter is None or inter.width < 0.5 or inter.height < 0.5, \
                        [lab.get_text() for lab in labels]
            if len(axis.get_majorticklocs()) == 0 or ax.images:
                continue  # no ticks by design (a projection), or categories (a heatmap)
            # an axis shared with a labelled neighbour (a shared y) reads from it
            siblings = [s for s in _axes_of(axis).get_siblings(ax) if _shown(s)]
            counted = max(len(_labelled(s.xaxis if axis is ax.xaxis else s.yaxis))
                          for s in siblings)
            assert counted >= 2, (ax.get_title(), axis.axis_name, [m[1] for m in major])
            if axis is ax.xaxis and ax.get_xlabel().startswith(COUNT_LABELS):
                assert all(loc == round(loc) for loc, _, _ in major), major


def _data_lines(ax):
    return [line for line in ax.get_lines()
            if line.get_transform() == ax.transData and len(line.get_xydata())]


def _check_legends(fig):
    """No legend's box holds a plotted point or marker, nor crosses a drawn line."""
    from matplotlib.path import Path as MplPath

    renderer = fig.canvas.get_renderer()
    legends = [ax.get_legend() for ax in fig.axes if ax.get_legend() is not None]
    legends += list(fig.legends)
    for legend in legends:
        box = legend.get_window_extent(renderer)
        for ax in fig.axes:
            inside = ax.get_window_extent(renderer)
            for line in _data_lines(ax):
                xy = ax.transData.transform(np.asarray(line.get_xydata(), dtype=float))
                xy = xy[np.isfinite(xy).all(axis=1)]
                keep = (xy[:, 0] >= inside.x0) & (xy[:, 0] <= inside.x1) & \
                    (xy[:, 1] >= inside.y0) & (xy[:, 1] <= inside.y1)
                pad = line.get_markersize() * fig.dpi / 72 / 2 \
                    if line.get_marker() not in (None, "None", "", " ") else 0
                g = box.padded(pad)
                hit = (xy[keep, 0] >= g.x0) & (xy[keep, 0] <= g.x1) & \
                    (xy[keep, 1] >= g.y0) & (xy[keep, 1] <= g.y1)
                assert not hit.any(), (legend.get_texts()[0].get_text(), ax.get_title())
                if line.get_linestyle() not in ("None", "", " ") and len(xy) > 1:
                    assert not MplPath(xy).intersects_bbox(box, filled=False), \
                        (ax.get_title(), line.get_label())


def _check_panels(fig):
    """Within one linear panel, the scores' magnitudes (their largest absolute value, 1
    at least) are within SCALE_RATIO of each other: no score in [0, 1] beside McNemar's
    +-87. A score's lines carry its key as their gid."""
    for ax in fig.axes:
        if not _shown(ax) or ax.get_yscale() != "linear":
            continue
        sizes: dict[str, float] = {}
        for line in _data_lines(ax):
            y = np.asarray(line.get_ydata(), dtype=float)
            y = y[np.isfinite(y)]
            if line.get_gid() in cm.METRICS and y.size:
                sizes[line.get_gid()] = max(sizes.get(line.get_gid(), 1.0),
                                            float(np.abs(y).max()))
        if sizes:
            assert max(sizes.values()) <= plots.SCALE_RATIO * min(sizes.values()), \
                (ax.get_title(), sizes)


def _check(fig):
    _check_ticks(fig)
    _check_legends(fig)
    _check_panels(fig)


# ------------------------------------------------------------------ generated inputs
names = st.lists(st.sampled_from(["kmeans", "gmm", "agglomerative", "spectral", "dbscan",
                                  "hdbscan", "birch", "optics"]),
                 min_size=1, max_size=8, unique=True)
count_sets = st.one_of(
    st.integers(1, 200).map(lambda n: [n]),  # one point
    st.tuples(st.integers(1, 50), st.integers(2, 12)).map(
        lambda t: list(range(t[0], t[0] + t[1]))),  # an integer range
    st.lists(st.integers(1, 100_000), min_size=2, max_size=8, unique=True).map(sorted))


def _series(draw, key, n):
    """Values of ``key`` at ``n`` points within its registered range: bounded scores in
    their range, unbounded ones at any magnitude from 1e-3 to 1e5, negative where the
    range allows."""
    e = cm.METRICS[key]
    lower = e.lower if math.isfinite(e.lower) else -1.0
    if math.isfinite(e.upper):
        lo, hi = lower, e.upper
    else:
        top = 10.0 ** draw(st.floats(-3, 5))
        lo, hi = (-top if e.lower < 0 else max(0.0, e.lower)), top
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    return rng.uniform(lo, hi, n)


@st.composite
def recovery_inputs(draw):
    algorithms, ns = draw(names), draw(count_sets)
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    rates = {a: {n: list(rng.uniform(0, 1, 3)) for n in ns} for a in algorithms}
    pseudo = {a: {n: list(rng.uniform(0.5, 1, 3)) for n in ns} for a in algorithms}
    return rates, pseudo


@st.composite
def timing_inputs(draw):
    small_ns, large_ns = draw(count_sets), draw(count_sets)
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    low = draw(st.floats(-7, 2))

    def seconds(k):
        return list(10.0 ** rng.uniform(low, low + draw(st.floats(0, 6)), k))

    small = [Timing(n, m, s, 0.5) for m in ("bruteforce", "exact", "greedy")
             for n, s in zip(small_ns, seconds(len(small_ns)), strict=True)]
    large = [Timing(n, m, s, 0.5) for m in ("exact", "greedy")
             for n, s in zip(large_ns, seconds(len(large_ns)), strict=True)]
    return small, large, draw(st.sampled_from([{}, PAPER_ALGORITHM1_SECONDS]))


@st.composite
def chance_inputs(draw):
    curves = []
    keys = draw(st.lists(st.sampled_from(KEYS), min_size=1, max_size=25, unique=True))
    for i in range(draw(st.integers(1, 2))):
        ks = np.array(draw(count_sets))
        ks = ks[ks >= 2] if (ks >= 2).any() else np.array([2])
        mean = {k: _series(draw, k, ks.shape[0]) for k in keys}
        setup = ChanceSetup(f"s{i}", f"setup {i}", 100, None, int(ks.max()))
        curves.append(ChanceCurves(setup, ks, mean, {k: 0 * v for k, v in mean.items()}, 3))
    return (curves,)


@st.composite
def coverage_inputs(draw):
    shapes = draw(st.lists(st.sampled_from(["8x10", "30x40", "4x4"]), min_size=1,
                           max_size=2, unique=True))
    keys = draw(st.lists(st.sampled_from(KEYS), min_size=1, max_size=4, unique=True))
    methods = draw(st.lists(st.sampled_from(["percentile", "basic", "normal", "bca"]),
                            min_size=1, max_size=4, unique=True))
    sizes = draw(count_sets)
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    rows = [CoverageRow(s, n, k, m, 0.5, float(rng.uniform(0, 1)), 0.1, 0.0, 0.9, 1.0, 50,
                        100)
            for s in shapes for n in sizes for k in keys for m in methods]
    return rows, draw(st.sampled_from([0.8, 0.9, 0.95]))


@st.composite
def heatmap_inputs(draw):
    n = draw(st.integers(1, 300))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    t = rng.integers(0, draw(st.integers(1, 30)), n)
    p = rng.integers(0, draw(st.integers(1, 30)), n)
    return cm.Contingency.from_labels(t, p), "title"


@st.composite
def projection_inputs(draw):
    n, d = draw(st.integers(3, 200)), draw(st.integers(2, 5))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    y = rng.integers(0, 3, n)
    labelings = {f"run {i}": rng.integers(-1, 4, n) for i in range(draw(st.integers(1, 4)))}
    return rng.normal(size=(n, d)), y, labelings


@st.composite
def hierarchy_inputs(draw):
    n = draw(st.integers(1, 400))
    keys = draw(st.lists(st.sampled_from(KEYS), min_size=1, max_size=30, unique=True))
    ks = np.arange(1, n + 1)
    values = {k: _series(draw, k, n) for k in keys}
    for k in keys[::3]:  # some scores known at a few cuts only
        values[k][np.arange(n) % 7 != 0] = np.nan
    best = {}
    for k, v in values.items():
        i = int(np.nanargmax(v))
        best[k] = BestCut(int(ks[i]), float(v[i]))
    true_k = draw(st.integers(1, n))
    return ks, values, best, true_k, "title"


INPUTS = {"recovery": recovery_inputs(), "timing": timing_inputs(), "chance": chance_inputs(),
          "coverage": coverage_inputs(), "heatmap": heatmap_inputs(),
          "projection": projection_inputs(), "hierarchy": hierarchy_inputs()}


def test_every_figure_kind_has_generated_inputs():
    assert set(INPUTS) == set(plots.FIGURES)


@pytest.mark.parametrize("kind", sorted(INPUTS))
def test_every_figure_is_readable(kind):
    # each example draws a figure: no shrinking (minutes), the failing input is printed
    @settings(max_examples=10, deadline=None, derandomize=True,
              phases=[Phase.explicit, Phase.generate],
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(INPUTS[kind])
    def check(args):
        fig = _draw(kind, *args)
        _check(fig)
    check()


# ------------------------------------------------------------------ the classes of defect
def _mcnemar_panel_inputs():
    ks = np.arange(1, 151)
    values = {"ari": np.linspace(0, 0.8, 150), "southwood": np.linspace(0.5, 2.3, 150),
              "kendall_tau": np.linspace(-0.4, 0.9, 150),
              "mcnemar": np.linspace(-87, 87, 150)}
    best = {k: BestCut(150, float(v[-1])) for k, v in values.items()}
    return ks, values, best, 3, "t"


def test_checks_fail_on_the_defects_they_guard():
    """The checks catch the reported defects when the rules are bypassed: raw mathtext
    log labels, fractional n, a legend on the lines, McNemar beside Kendall's tau."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    def fig_with(setup):
        fig = Figure(figsize=(4, 3), dpi=100)
        FigureCanvasAgg(fig)
        ax = fig.subplots()
        setup(ax)
        fig.canvas.draw()
        return fig

    import matplotlib

    with matplotlib.rc_context({"text.parse_math": False}):
        raw = fig_with(lambda ax: (ax.plot([1, 1000], [1, 2]), ax.set_xscale("log")))
    with pytest.raises(AssertionError):
        _check_ticks(raw)
    fractional = fig_with(lambda ax: (ax.plot([2, 3], [0, 1]), ax.set_xlabel("n (true)")))
    with pytest.raises(AssertionError):
        _check_ticks(fractional)
    covered = fig_with(lambda ax: (ax.plot(np.linspace(0, 1, 50), np.linspace(0, 1, 50),
                                           label="x"), ax.legend(loc="center")))
    with pytest.raises(AssertionError):
        _check_legends(covered)
    flat = fig_with(lambda ax: (ax.plot([0, 1], [0, 0.9], gid="ari"),
                                ax.plot([0, 1], [-87, 87], gid="mcnemar")))
    with pytest.raises(AssertionError):
        _check_panels(flat)


@pytest.mark.parametrize("width", [1.5, 2.5, 4.0])
def test_crowded_tick_labels_are_thinned_until_none_touch(width):
    """Five-digit labels at matplotlib's usual tick count run into each other on a narrow
    axis: the check sees it, and _legible (the layout step of every PNG) clears it."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.ticker import FixedLocator

    fig = Figure(figsize=(width, 2), dpi=100, layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.subplots()
    ax.plot([10_000, 16_000], [0, 1])
    ax.xaxis.set_major_locator(FixedLocator(np.arange(10_000, 16_001, 500)))
    fig.canvas.draw()
    with pytest.raises(AssertionError):
        _check_ticks(fig)
    plots._legible(fig)
    fig.canvas.draw()
    _check_ticks(fig)


def test_mcnemar_gets_its_own_panel():
    fig = _draw("hierarchy", *_mcnemar_panel_inputs())
    panels = [sorted(ax.get_legend_handles_labels()[1]) for ax in fig.axes if _shown(ax)]
    assert ["mcnemar"] in panels and ["kendall_tau", "southwood"] in panels, panels
    _check(fig)


@given(st.dictionaries(st.sampled_from(KEYS),
                       st.lists(st.floats(-1e6, 1e6), min_size=1, max_size=5),
                       min_size=1, max_size=20))
def test_scale_groups_keep_magnitudes_within_the_ratio(values):
    keys = list(values)
    groups = plots.scale_groups(keys, values)
    assert sorted(k for g in groups for k in g) == sorted(keys)  # every key, once
    for g in groups:
        sizes = [max(1.0, max(abs(x) for x in values[k])) for k in g]
        assert max(sizes) <= plots.SCALE_RATIO * min(sizes)
        assert g == [k for k in keys if k in g]  # in the caller's order


@pytest.mark.parametrize("x", [0.0, 1e-12, 3e-5, 0.001, 0.25, 7.0, 300.0, 99_999.0, 1e6,
                               2.5e9, -4e-7, -12.0])
def test_tick_text_reads_back_as_the_number(x):
    text = plots.tick_text(x).replace("\N{MINUS SIGN}", "-")
    if "10" in text and any(c in text for c in "⁰¹²³⁴⁵⁶⁷⁸⁹"):
        head, _, power = text.partition("10")
        digits = power.translate(str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789"))
        mantissa = head.rstrip("×") or "1"
        value = float(mantissa.replace("-", "") or 1) * 10.0 ** int(digits)
        value = -value if text.startswith("-") else value
    else:
        value = float(text)
    assert value == pytest.approx(x, rel=1e-3)
    assert "$" not in text and "e" not in text


# ------------------------------------------------------------------ crisp at 2x
def _png_size(png):
    return struct.unpack(">II", png[16:24])


@pytest.mark.parametrize("kind", sorted(INPUTS))
def test_png_is_drawn_at_twice_its_shown_size(kind):
    args = _fixed_inputs(kind)
    sizes = []
    real = plots._png

    def measure(fig):
        sizes.append(fig.get_size_inches() * 100)  # CSS pixels at 100 dpi
        return real(fig)

    plots._png = measure
    try:
        png = plots.FIGURES[kind](*args)
    finally:
        plots._png = real
    (css,) = sizes
    width, height = _png_size(png)
    assert width >= 2 * css[0] - 1 and height >= 2 * css[1] - 1, (width, height, css)
    page = html.render_page("t", [html.Section("s", [html.Image("x", png)])])
    assert f'width="{round(css[0])}" height="{round(css[1])}"' in page  # shown at 1x


def _fixed_inputs(kind):
    """One input of each kind, the same every run."""
    rng = np.random.default_rng(0)
    ks = np.arange(2, 8)
    keys = ["ari", "nmi", "mi", "mcnemar"]
    return {
        "recovery": ({"a": {n: [0.5] for n in ks}}, {"a": {n: [0.9] for n in ks}}),
        "timing": ([Timing(n, "exact", 1e-4 * n, 1) for n in ks],
                   [Timing(n, "greedy", 1e-5 * n, 1) for n in (10, 100, 1000)], {}),
        "chance": ([ChanceCurves(ChanceSetup("e", "e", 100, None, 7), ks,
                                 {k: rng.random(6) for k in keys},
                                 {k: rng.random(6) for k in keys}, 3)],),
        "coverage": ([CoverageRow("s", n, "ari", "bca", 0.5, 0.9, 0.1, 0, 0.9, 1, 50, 100)
                      for n in (100, 1000)], 0.9),
        "heatmap": (cm.Contingency.from_labels([0, 0, 1, 1], [0, 1, 1, 1]), "t"),
        "projection": (rng.normal(size=(20, 3)), rng.integers(0, 2, 20),
                       {"a": rng.integers(0, 2, 20)}),
        "hierarchy": _mcnemar_panel_inputs(),
    }[kind]


def test_a_png_without_a_resolution_is_shown_as_it_is():
    assert html.css_size(b"\x89PNG stub") is None
    page = html.render_page("t", [html.Section("s", [html.Image("x", b"\x89PNG stub")])])
    assert "width=" not in page


# ------------------------------------------------------------------ the gallery
def _hooks():
    spec = importlib.util.spec_from_file_location("docs_hooks", ROOT / "tools" / "docs_hooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_figures_registry_names_every_plot_function():
    functions = {name for name, f in vars(plots).items()
                 if name.endswith("_plot") and callable(f) and not name.startswith("_")}
    assert {f.__name__ for f in plots.FIGURES.values()} == functions


def test_gallery_shows_every_figure_kind(monkeypatch):
    hooks = _hooks()
    page = hooks.gallery_page()
    for kind in plots.FIGURES:
        assert f"(gallery/{kind}.png)" in page, kind
    assert "<!-- gallery -->" in (ROOT / "docs" / "gallery.md").read_text()
    # a figure kind the gallery does not know fails the build
    monkeypatch.setitem(plots.FIGURES, "new_kind", plots.recovery_plot)
    with pytest.raises(ValueError, match="new_kind"):
        hooks.gallery_page()
