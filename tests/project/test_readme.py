"""The documentation stays true: the metric table is the registry's, the quick start is two
commands, and no page names a score count that would go stale."""

import re
from pathlib import Path

from clustermetrics.scores.registry import markdown_table

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
SCORES_PAGE = DOCS / "guide" / "scores.md"


def test_metric_table_matches_registry():
    text = SCORES_PAGE.read_text()
    block = re.search(r"<!-- metrics-table:start -->\n(.*?)\n?<!-- metrics-table:end -->",
                      text, re.S)
    assert block, "metrics-table markers missing"
    assert block.group(1).strip() == markdown_table().strip()


def test_quick_start_has_exactly_demo_and_test():
    for path, heading in ((README, "## Quick start"), (DOCS / "getting-started.md",
                                                       "## Two commands")):
        section = path.read_text().split(heading, 1)[1].split("\n## ", 1)[0]
        commands = re.findall(r"^make \w+", section, re.M)
        assert commands == ["make demo", "make test"], path


def test_prose_names_no_score_count_that_would_go_stale():
    """Adding a score must not make the docs wrong: they say "every registered score";
    a count appears only with a measurement, marked as the count of that time."""
    for path in [README, *DOCS.rglob("*.md")]:
        counts = re.findall(
            r"\b(?:all|the) \d+ (?:registered )?scores\b(?! \(as registered then\))",
            path.read_text())
        assert counts == [], path


def test_every_registered_score_is_in_the_score_reference():
    """The reference page is generated at build time; its generator covers the registry."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("docs_hooks", ROOT / "tools" / "docs_hooks.py")
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)
    page = hooks.score_reference()
    from clustermetrics import METRICS

    for key, entry in METRICS.items():
        assert f"## `{key}`: {entry.name} {{#{key}}}" in page


BENCHMARKS_README = ROOT / "benchmarks" / "README.md"
_ROW = re.compile(r"^\[(\d)\] (.+?)\s{2,}(-?[\d.]+)(x|s) <= ", re.M)


def _recorded_defaults() -> list[tuple[str, str, float]]:
    """(target, case, value) of the rows bench_defaults.py printed, as recorded in
    benchmarks/README.md's section on the plain install."""
    section = BENCHMARKS_README.read_text().split(
        "## The plain install and the first calls", 1)[1].split("\n## ", 1)[0]
    return [(m[0], m[1], float(m[2])) for m in _ROW.findall(section)]


def _figure(value: float) -> str:
    return f"{value:,.0f}×" if value >= 100 else f"{value:.1f}×"


def test_headline_figures_of_the_plain_install_are_the_recorded_ones():
    """The README's headline on the plain install quotes benchmarks/README.md's record of
    bench_defaults.py: each figure the worst recorded row of its kind."""
    rows = _recorded_defaults()

    def worst(target: str, case: str) -> float:
        values = [v for t, c, v in rows if t == target and case in c]
        assert values, (target, case)
        return max(values)
    headline = README.read_text().split("## Headline numbers", 1)[1].split("\n## ", 1)[0]
    bullet = re.search(r"<!-- bench-defaults:start -->\n(.*?)<!-- bench-defaults:end -->",
                       headline, re.S)
    assert bullet, "bench-defaults markers missing in the README's headline numbers"
    text = " ".join(bullet.group(1).split())
    assert "pip install clustermetrics" in text
    for target, case in (("1", "README example, best of repeats"),
                         ("1", "evaluate(ci=0.95), N = 1e3"),
                         ("1", "README example, first call"),
                         ("2", "from labels, small N"),
                         ("4", "evaluate (every score)")):
        assert _figure(worst(target, case)) in text, (case, _figure(worst(target, case)))
