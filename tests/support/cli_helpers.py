"""Shared by the command-line tests: run main() in-process and read label files."""

from pathlib import Path

from clustermetrics.cli import main


def run(capsys, *argv):
    """(exit status, stdout, stderr) of ``clustermetrics ARGV`` run in this process."""
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def labels(path):
    """The non-blank lines of a label file."""
    return [line for line in Path(path).read_text().splitlines() if line]
