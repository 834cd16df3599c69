"""Check that an HTML report renders: headless Chromium screenshot plus a static check.

    python tools/check_report.py reports/demo [--screenshot shot.png] [--width 1300]

The static check (always): the page is complete, every PNG beside it is referenced and
embedded, and every embedded image decodes. The screenshot (when /usr/bin/chromium or
chromium on PATH exists): a full-height capture of the page, to look at. Exit status 0
when all checks pass, 1 otherwise.
"""

from __future__ import annotations

import argparse
import base64
import io
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--hide-scrollbars"]


def static_check(directory: Path) -> list[str]:
    """Problems found in ``directory/index.html`` (empty when fine)."""
    from matplotlib.image import imread

    page = (directory / "index.html").read_text(encoding="utf-8")
    problems = []
    if not page.rstrip().endswith("</html>"):
        problems.append("index.html is truncated")
    embedded = dict((name, data) for data, name in re.findall(
        r'<img src="data:image/png;base64,([^"]+)"[^>]*data-file="([^"]+)"', page))
    for png in sorted(directory.glob("*.png")):
        if png.name not in embedded:
            problems.append(f"{png.name} is not embedded in the page")
    for name, data in embedded.items():
        try:
            pixels = imread(io.BytesIO(base64.b64decode(data)), format="png")
        except Exception as exc:  # any decoding failure is a finding, not a crash
            problems.append(f"{name} does not decode: {exc}")
            continue
        print(f"  {name}: {pixels.shape[1]} x {pixels.shape[0]} px")
    print(f"  {len(embedded)} images, {len(re.findall('<section>', page))} sections")
    return problems


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser") or (
        "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)


def screenshot(page: Path, target: Path, width: int, height: int) -> bool:
    """Render ``page`` in headless Chromium into ``target``; True when a PNG came out."""
    exe = chromium()
    if exe is None:
        print("  no chromium found: screenshot skipped")
        return True
    with tempfile.TemporaryDirectory() as profile:
        cmd = [exe, *CHROMIUM_FLAGS, f"--user-data-dir={profile}",
               f"--screenshot={target.resolve()}", f"--window-size={width},{height}",
               page.resolve().as_uri()]
        subprocess.run(cmd, capture_output=True, timeout=120, check=False)
    ok = target.exists() and target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    print(f"  screenshot {'written to ' + str(target) if ok else 'FAILED'}")
    return ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", type=Path, help="the report directory (index.html)")
    parser.add_argument("--screenshot", type=Path, help="where to write the screenshot "
                        "(default: DIRECTORY/../<name>-screenshot.png)")
    parser.add_argument("--width", type=int, default=1300)
    parser.add_argument("--height", type=int, default=6000)
    args = parser.parse_args(argv)
    print(f"checking {args.directory / 'index.html'}")
    problems = static_check(args.directory)
    target = args.screenshot or args.directory.parent / f"{args.directory.name}-screenshot.png"
    if not screenshot(args.directory / "index.html", target, args.width, args.height):
        problems.append("chromium produced no screenshot")
    for p in problems:
        print(f"  PROBLEM: {p}")
    print("ok" if not problems else f"{len(problems)} problem(s)")
    return 0 if not problems else 1


if __name__ == "__main__":
    sys.exit(main())
