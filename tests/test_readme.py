"""The README stays true: its metric table is the registry's, its quick start two commands."""

import re
from pathlib import Path

from clustermetrics.registry import markdown_table

README = Path(__file__).resolve().parents[1] / "README.md"


def test_metric_table_matches_registry():
    text = README.read_text()
    block = re.search(r"<!-- metrics-table:start -->\n(.*?)\n?<!-- metrics-table:end -->",
                      text, re.S)
    assert block, "metrics-table markers missing"
    assert block.group(1).strip() == markdown_table().strip()


def test_quick_start_has_exactly_demo_and_test():
    text = README.read_text()
    section = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    commands = re.findall(r"^make \w+", section, re.M)
    assert commands == ["make demo", "make test"]


def test_prose_names_no_score_count_that_would_go_stale():
    """Adding a score must not make the README wrong: it says "every registered score";
    a count appears only with a measurement, marked as the count of that time."""
    text = README.read_text()
    counts = re.findall(r"\b(?:all|the) \d+ (?:registered )?scores\b(?! \(as registered then\))",
                        text)
    assert counts == []
