"""The demo report, a compare report and every page of the documentation site, opened in
headless Chromium 1280 px wide: the page body never scrolls sideways, every image loads,
the console logs no error, and a click on a numeric column's header sorts a report's table.

One browser per pytest worker; the reports and the site are built once for the whole run,
by the first worker that needs them (``_built_once``). ``make test`` installs Chromium and
its driver (the ``browser`` target) and builds the site into build/site just before pytest;
it names that build in ``CLUSTERMETRICS_DOCS_SITE`` so that it is not built twice.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import http.server
import io
import math
import os
import shutil
import subprocess
import sys
import threading
from collections import Counter
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

from clustermetrics.cli import main

ROOT = Path(__file__).resolve().parents[2]
WIDTH, HEIGHT = 1280, 900
#: the built site ``make test`` hands over (see the module docstring)
SITE_ENV = "CLUSTERMETRICS_DOCS_SITE"

#: Each report at about its cheapest: the demo as tests/cli/test_cli_experiments.py's
#: test_demo_tiny runs it; every algorithm on two small datasets, with the paired section
#: (--paired costs little; --curves would triple the run, so its sections are not opened).
REPORTS = {
    "demo": ["demo", "--n-min", "2", "--n-max", "3", "--n-per-cluster", "20",
             "--algorithms", "kmeans", "--bruteforce-max", "5", "--timing-max", "40"],
    "compare": ["compare", "--dataset", "iris,wine", "--paired", "ari"],
}

# The outermost elements that stick out on the right, leaving out those that scroll inside
# a container of their own (an ancestor whose overflow-x is not visible).
OVERFLOW_JS = """
const root = document.documentElement, limit = root.clientWidth;
if (root.scrollWidth <= limit) return null;
const name = el => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '')
    + (typeof el.className === 'string' && el.className.trim()
       ? '.' + el.className.trim().split(/\\s+/).join('.') : '');
const right = el => el.getBoundingClientRect().right + window.scrollX;
const scrolls = el => {
  for (let a = el.parentElement; a && a !== document.body; a = a.parentElement)
    if (getComputedStyle(a).overflowX !== 'visible') return true;
  return false;
};
// the heading the element sits under, to find it on a long page
const under = el => {
  const before = Array.from(document.querySelectorAll('h1, h2, h3, h4')).filter(
      h => h.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING);
  const last = before[before.length - 1];  // its text ends in the permalink's pilcrow
  return last ? ' under "' + last.textContent.replace('¶', '').trim() + '"' : '';
};
const found = [];
for (const el of document.body.querySelectorAll('*')) {
  if (right(el) <= limit || scrolls(el)) continue;
  const parent = el.parentElement;
  if (parent !== document.body && right(parent) > limit) continue;
  found.push([el.getBoundingClientRect().width, name(el) + under(el)]);
}
found.sort((a, b) => b[0] - a[0]);
return {scrollWidth: root.scrollWidth, clientWidth: limit,
        elements: found.slice(0, 5).map(([w, n]) => n + ' (' + Math.round(w) + ' px wide)')};
"""

# Lazy images are asked for now, and every image is waited for until it loads or fails.
IMAGES_JS = """
const done = arguments[arguments.length - 1];
const images = Array.from(document.images);
images.forEach(i => { if (i.loading === 'lazy') i.loading = 'eager'; });
Promise.all(images.map(i => i.complete ? null : new Promise(settle => {
  i.addEventListener('load', settle); i.addEventListener('error', settle); })))
  .then(() => done(images.filter(i => !(i.complete && i.naturalWidth > 0))
    .map(i => 'img' + (i.alt ? ' alt="' + i.alt + '"' : '') + ' src=' + i.getAttribute('src'))));
"""

# The header cells and body rows of a table; a cell's row identity is its text and its
# data-value, so that a sort that loses, duplicates or edits a row shows.
TABLE_JS = """
const table = arguments[0], col = arguments[1];
const head = table.tHead ? table.tHead.rows[table.tHead.rows.length - 1] : table.rows[0];
const rows = Array.from(table.tBodies).flatMap(b => Array.from(b.rows)).filter(r => r !== head);
const cell = (r, c) => r.cells[c];
return {
  headers: Array.from(head.cells).map(c => c.textContent.trim()),
  numeric: Array.from(head.cells).map((_, c) => rows.length > 0
      && rows.every(r => cell(r, c) && cell(r, c).hasAttribute('data-value')))
      .flatMap((yes, c) => yes ? [c] : []),
  th: col === null ? null : head.cells[col],
  aria: col === null ? null : head.cells[col].getAttribute('aria-sort'),
  values: col === null ? [] : rows.map(r => cell(r, col).getAttribute('data-value')),
  rows: rows.map(r => JSON.stringify(Array.from(r.cells).map(
      c => [c.textContent.trim(), c.getAttribute('data-value')]))),
  label: table.id || (table.caption ? table.caption.textContent.trim() : ''),
};
"""


def _chromium() -> tuple[str | None, str]:
    """The browser (None: the driver's own default) and its driver on PATH; the driver is
    never downloaded (Selenium Manager would try, and CI has no network for it)."""
    driver = shutil.which("chromedriver")
    if driver is None:
        pytest.fail("chromedriver is not on PATH: `make test` installs Debian's chromium and "
                    "chromium-driver (the Makefile's browser target)")
    names = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
    return next(filter(None, map(shutil.which, names)), None), driver


@pytest.fixture(scope="session")
def browser():
    binary, driver = _chromium()
    options = webdriver.ChromeOptions()
    # --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                f"--window-size={WIDTH},{HEIGHT}"):
        options.add_argument(arg)
    if binary is not None:
        options.binary_location = binary
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    chrome = webdriver.Chrome(service=Service(driver), options=options)
    chrome.set_script_timeout(30)
    try:
        yield chrome
    finally:
        chrome.quit()


def _built_once(tmp_path_factory, name: str, build) -> Path:
    """``build(folder)`` run once for the whole test run. pytest-xdist's workers share the
    parent of their temporary folders (``xdist_group`` cannot keep the tests on one worker:
    with pytest 9.2 it no longer groups), so the first worker to take the lock builds and the
    others wait for it, then use what it built."""
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent
    folder, done = root / name, root / f"{name}.built"
    with open(root / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():  # a failed build is tried again, and fails again, elsewhere
            shutil.rmtree(folder, ignore_errors=True)
            build(folder)
            done.touch()
    return folder


def _write_report(kind: str, folder: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([*REPORTS[kind], "--quiet", "--report", str(folder)])
    assert code == 0, err.getvalue()


@pytest.fixture(scope="session", params=list(REPORTS))
def report(request, tmp_path_factory) -> tuple[str, Path]:
    """(kind, its index.html), each report built once for both tests that open it."""
    kind = request.param
    folder = _built_once(tmp_path_factory, f"{kind}-report",
                         functools.partial(_write_report, kind))
    return kind, folder / "index.html"


def _build_site(folder: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet",
                           "--site-dir", str(folder)], cwd=ROOT, capture_output=True,
                          text=True, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert proc.returncode == 0, proc.stderr[-3000:]


@pytest.fixture(scope="session")
def docs_site(tmp_path_factory) -> Path:
    """The built documentation site: make test's build, else a strict build of our own."""
    given = os.environ.get(SITE_ENV)
    if not given:
        return _built_once(tmp_path_factory, "site", _build_site)
    site = ROOT / given
    assert (site / "index.html").is_file(), f"{SITE_ENV}={given}: no built site there"
    return site


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # the tests' output is pytest's, not a request log
        pass


@pytest.fixture(scope="session")
def site_url(docs_site):
    """The site over HTTP, as it is published: from file:// its search index (a web worker)
    would not load, and every page would log that as an error."""
    handler = functools.partial(_QuietHandler, directory=str(docs_site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def _console_errors(chrome) -> list[str]:
    return [e["message"] for e in chrome.get_log("browser") if e["level"] == "SEVERE"]


def page_problems(chrome, url: str, name: str) -> list[str]:
    """What is wrong with the page at ``url``, one line each, each naming the page."""
    _console_errors(chrome)  # drop what the previous page logged
    chrome.get(url)
    problems = []
    overflow = chrome.execute_script(OVERFLOW_JS)
    if overflow is not None:
        problems.append(
            f"{name}: the page is {overflow['scrollWidth']} px wide in a "
            f"{overflow['clientWidth']} px viewport; widest: "
            + ("; ".join(overflow["elements"]) or "no single element (margins?)"))
    problems += [f"{name}: image did not load: {img[:200]}"
                 for img in chrome.execute_async_script(IMAGES_JS)]
    problems += [f"{name}: console error: {msg}" for msg in _console_errors(chrome)]
    return problems


def test_report_fits_loads_its_images_and_logs_no_error(browser, report):
    kind, page = report
    problems = page_problems(browser, page.as_uri(), f"{kind} report")
    assert not problems, "\n".join(problems)


@pytest.mark.slow  # a strict site build (unless make test's is given) and ~30 pages
def test_every_docs_page_fits_loads_its_images_and_logs_no_error(browser, docs_site, site_url):
    pages = sorted(p.relative_to(docs_site).as_posix() for p in docs_site.rglob("*.html"))
    assert "index.html" in pages and len(pages) > 10, pages
    problems = [line for page in pages
                for line in page_problems(browser, f"{site_url}/{page}", f"docs {page}")]
    assert not problems, "\n".join(problems)


def _numbers(values: list[str], where: str) -> list[float]:
    try:
        numbers = [float(v) for v in values]
    except ValueError as e:
        pytest.fail(f"{where}: a data-value is not a number ({e})")
    return [v for v in numbers if not math.isnan(v)]  # where NaN sorts is the table's choice


def _check_sorts(chrome, table, col: int, where: str) -> None:
    before = chrome.execute_script(TABLE_JS, table, col)
    where = f"{where}, column {before['headers'][col]!r}"
    for direction, in_order in (("ascending", lambda a, b: a <= b),
                                ("descending", lambda a, b: a >= b)):
        before["th"].click()
        after = chrome.execute_script(TABLE_JS, table, col)
        values = _numbers(after["values"], where)
        assert all(map(in_order, values, values[1:])), (
            f"{where}: not {direction} after a click: {after['values']}")
        assert after["aria"] == direction, (
            f"{where}: aria-sort is {after['aria']!r} after the {direction} click")
        assert Counter(after["rows"]) == Counter(before["rows"]), (
            f"{where}: the {direction} sort changed the rows, not only their order")


def test_report_tables_sort_by_a_click_on_a_numeric_header(browser, report):
    kind, page = report
    browser.get(page.as_uri())
    # a table folded away is opened first, as a reader would before clicking
    browser.execute_script("document.querySelectorAll('details').forEach(d => d.open = true)")
    _console_errors(browser)
    tables = browser.find_elements(By.CSS_SELECTOR, "table.sortable")
    assert tables, f"{kind} report: no table.sortable"
    checked = 0
    for i, table in enumerate(tables):
        info = browser.execute_script(TABLE_JS, table, None)
        where = f"{kind} report, sortable table {i}" + (f" {info['label']!r}" if info["label"]
                                                        else "")
        # its first and last numeric columns (counts come first, scores last): each
        # column is five round trips to the browser, and a report has about a hundred
        for col in sorted(set(info["numeric"][:1] + info["numeric"][-1:])):
            _check_sorts(browser, table, col, where)
            checked += 1
    assert checked, f"{kind} report: no sortable table has a column of numeric data-value cells"
    errors = _console_errors(browser)
    assert not errors, f"{kind} report: console errors while sorting: {errors}"


# ------------------------------------------------- the checks themselves, on pages made to fail
PAGE = """<!doctype html><html><head><meta charset="utf-8"></head><body>
<h2>Wide things</h2>{body}</body></html>"""

# A sorter written here to the reports' contract (numbers from data-value, aria-sort on the
# header), so that the sort check is seen to pass a correct one and fail each broken variant.
SORTER = """<table class="sortable"><thead><tr><th>name</th><th>n</th></tr></thead><tbody>
<tr><td>a</td><td data-value="9">9</td></tr><tr><td>b</td><td data-value="10">10</td></tr>
<tr><td>c</td><td data-value="-1.5">-1.5</td></tr><tr><td>d</td><td data-value="9">9.0</td></tr>
</tbody></table><script>
document.querySelectorAll('table.sortable th').forEach((th, col) => th.onclick = () => {
  const body = th.closest('table').tBodies[0];
  const up = th.getAttribute('aria-sort') !== 'ascending';
  const key = r => KEY;
  const order = (a, b) => (key(a) < key(b) ? -1 : key(a) > key(b)) * (up ? 1 : -1);
  const rows = Array.from(body.rows).sort(order);
  rows.forEach(r => body.appendChild(r));
  EXTRA;
  th.setAttribute('aria-sort', ARIA);
});
</script>"""
NUMBER = "parseFloat(r.cells[col].dataset.value)"


def _open(tmp_path, body: str) -> str:
    page = tmp_path / "page.html"
    page.write_text(PAGE.format(body=body))
    return page.as_uri()


def test_the_page_checks_name_the_page_and_what_is_wrong(browser, tmp_path):
    contained = ('<div style="overflow-x: auto"><table id="inside" style="width: 3000px">'
                 "<tr><td>x</td></tr></table></div>")
    assert page_problems(browser, _open(tmp_path, contained), "fine") == []
    broken = (contained + '<pre id="wide" class="a b" style="width: 2000px">x</pre>'
              '<img alt="plot" src="missing.png"><script>console.error("boom")</script>')
    problems = page_problems(browser, _open(tmp_path, broken), "broken page")
    assert all(p.startswith("broken page: ") for p in problems), problems
    text = "\n".join(problems)
    assert 'widest: pre#wide.a.b under "Wide things" (2000 px wide)' in text, text
    assert "inside" not in text  # the table scrolls inside its own box
    assert 'image did not load: img alt="plot" src=missing.png' in text, text
    # the missing image is also a failed request in the console; the script's error is its own
    assert "console error: " in text and '"boom"' in text, text


ARIA = "up ? 'ascending' : 'descending'"


@pytest.mark.parametrize(("key", "aria", "extra", "wrong"), [
    (NUMBER, ARIA, "", None),
    ("r.cells[col].textContent", ARIA, "", "not ascending"),  # "10" < "9" as text
    (NUMBER, "'ascending'", "", "aria-sort is 'ascending' after the descending click"),
    (NUMBER, ARIA, "rows[0].after(rows[0].cloneNode(true))", "changed the rows"),
    (NUMBER, ARIA, "rows[1].cells[0].textContent = 'z'", "changed the rows"),
], ids=["correct", "by-text", "aria-sort-stuck", "row-duplicated", "row-edited"])
def test_the_sort_check_fails_a_broken_sorter(browser, tmp_path, key, aria, extra, wrong):
    sorter = SORTER.replace("KEY", key).replace("ARIA", aria).replace("EXTRA", extra)
    browser.get(_open(tmp_path, sorter))
    table = browser.find_element(By.CSS_SELECTOR, "table.sortable")
    if wrong is None:
        _check_sorts(browser, table, 1, "made")
    else:
        with pytest.raises(AssertionError, match=wrong):
            _check_sorts(browser, table, 1, "made")
