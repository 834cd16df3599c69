"""Every command of docs/getting-started.md works as shown: each `clustermetrics` line runs
(the long study on a small size), shown output is the output, the extras and make targets
it names exist. Its Python example is a doctest (pytest's --doctest-glob=*.md)."""

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

import clustermetrics

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "getting-started.md"
# The study as shown takes minutes: the test runs it on its smallest size.
QUICK = {"demo": ["--n-min", "2", "--n-max", "3", "--n-per-cluster", "40", "--seeds", "0",
                  "--bruteforce-max", "3", "--timing-max", "100"]}


def _blocks(language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", PAGE.read_text(), re.S | re.M)


def _commands(prefix: str) -> list[list[str]]:
    return [shlex.split(line, comments=True) for block in _blocks("bash")
            for line in block.splitlines() if line.startswith(prefix + " ")]


def _run(argv: list[str], cwd: Path) -> subprocess.CompletedProcess:
    # the package under test, wherever the command runs (a relative PYTHONPATH would not)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(Path(clustermetrics.__file__).parents[1]), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-m", "clustermetrics", *argv[1:]], cwd=cwd,
                          env=env, capture_output=True, text=True, timeout=300)


@pytest.fixture
def checkout(tmp_path):
    """A folder that looks like the repository's root to the commands (its examples/),
    where they write their reports."""
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    return tmp_path


def test_the_page_shows_the_main_job():
    shown = {argv[1] for argv in _commands("clustermetrics")}
    assert {"score", "compare", "demo"} <= shown
    assert "--dataset" in next(a for a in _commands("clustermetrics") if a[1] == "compare")


# the study and the comparison take 8-13 s even small: marked slow (make test-quick)
@pytest.mark.parametrize("argv", [
    pytest.param(a, id=a[1], marks=[pytest.mark.slow] if a[1] in ("demo", "compare") else [])
    for a in _commands("clustermetrics")])
def test_every_command_runs(argv, checkout):
    done = _run(argv + QUICK.get(argv[1], []), checkout)
    assert done.returncode == 0, done.stderr
    report = next((argv[i + 1] for i, a in enumerate(argv) if a == "--report"), None)
    if report is not None:  # the page says to open it
        assert (checkout / report / "index.html").is_file()
        assert f"`{report}/index.html`" in PAGE.read_text()


def test_shown_output_is_the_output(checkout):
    shown = [b for b in _blocks("text") if b.startswith("$ clustermetrics ")]
    assert shown
    for block in shown:
        command, _, output = block.partition("\n")
        done = _run(shlex.split(command[2:]), checkout)
        assert done.returncode == 0, done.stderr
        assert done.stdout == output


def test_installs_and_make_targets_exist():
    section = (ROOT / "pyproject.toml").read_text().split(
        "[project.optional-dependencies]", 1)[1].split("\n[", 1)[0]
    extras = re.findall(r"^([\w-]+) = \[", section, re.M)
    assert "experiments" in extras
    for argv in _commands("pip"):
        for requirement in argv[2:]:
            named = re.fullmatch(r"clustermetrics(?:\[([\w,]+)\])?", requirement)
            assert named, requirement
            assert set(filter(None, (named[1] or "").split(","))) <= set(extras), requirement
    makefile = (ROOT / "Makefile").read_text()
    for argv in _commands("make"):
        assert re.search(rf"^{argv[1]}:", makefile, re.M), argv
