"""Rewrite the metric table of docs/guide/scores.md from the registry:
`python tools/update_readme.py` (`make readme`)."""

import re
from pathlib import Path

from clustermetrics.scores.registry import markdown_table

PAGE = Path(__file__).resolve().parents[1] / "docs" / "guide" / "scores.md"
MARKERS = r"(<!-- metrics-table:start -->\n).*?(<!-- metrics-table:end -->)"

text = PAGE.read_text()
PAGE.write_text(re.sub(MARKERS, lambda m: m.group(1) + markdown_table() + "\n" + m.group(2),
                       text, flags=re.S))
print(f"updated {PAGE}")
