"""examples/tour.ipynb runs top to bottom in a fresh kernel, and its reports render as
HTML (the notebook views)."""

from pathlib import Path

import nbformat
from nbclient import NotebookClient

TOUR = Path(__file__).resolve().parents[2] / "examples" / "tour.ipynb"


def test_tour_runs_headless():
    nb = nbformat.read(TOUR, as_version=4)
    NotebookClient(nb, timeout=120, kernel_name="python3",
                   resources={"metadata": {"path": str(TOUR.parent)}}).execute()
    html = [out["data"]["text/html"] for cell in nb.cells if cell.cell_type == "code"
            for out in cell.get("outputs", []) if "text/html" in out.get("data", {})]
    assert len(html) >= 4
    assert any("Adjusted Rand index" in h for h in html)
    errors = [out for cell in nb.cells if cell.cell_type == "code"
              for out in cell.get("outputs", []) if out.get("output_type") == "error"]
    assert not errors
