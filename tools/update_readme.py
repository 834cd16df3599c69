"""Rewrite the README's metric table from the registry: `python tools/update_readme.py`."""

import re
from pathlib import Path

from clustermetrics.registry import markdown_table

README = Path(__file__).resolve().parents[1] / "README.md"
MARKERS = r"(<!-- metrics-table:start -->\n).*?(<!-- metrics-table:end -->)"

text = README.read_text()
README.write_text(re.sub(MARKERS, lambda m: m.group(1) + markdown_table() + "\n" + m.group(2),
                         text, flags=re.S))
print(f"updated {README}")
