"""The docs and help texts say what the code does: lists of what the code accepts are
generated from its registries, quoted files exist, links go to the page their text names,
the score reference pairs each score with its own peers, and every page has one title."""

import importlib.util
import json
import re
from pathlib import Path

import pytest
import yaml

from clustermetrics import METRICS
from clustermetrics.cli.commands import SUMMARIES
from clustermetrics.cli.main import build_parser
from clustermetrics.cli.output import FORMATS
from clustermetrics.experiments.algorithms import ALGORITHMS
from clustermetrics.experiments.coverage import SHAPES
from clustermetrics.experiments.datasets import DATASETS
from clustermetrics.inference.bootstrap import METHODS
from clustermetrics.io.formats import FORMATS as FILE_FORMATS

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md", *sorted(DOCS.rglob("*.md")), ROOT / "benchmarks" / "README.md"]

#: What the code accepts, by what a list of it is called.
REGISTRIES = {"algorithms": list(ALGORITHMS), "datasets": list(DATASETS),
              "shapes": list(SHAPES), "interval methods": list(METHODS),
              "scores": list(METRICS)}


def _hooks():
    spec = importlib.util.spec_from_file_location("docs_hooks", ROOT / "tools" / "docs_hooks.py")
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)
    return hooks


HOOKS = _hooks()


def _named(text: str, names: list[str]) -> set[str]:
    return {n for n in names if re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])", text)}


def _help_texts() -> list[tuple[str, str]]:
    """(command, text) of every command's description and every option's help."""
    parser = build_parser()
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    return [(name, text) for name, command in sub.choices.items()
            for text in [command.description or "", *(a.help or "" for a in command._actions)]]


def test_help_texts_that_list_names_list_every_one():
    """A help text naming three or more algorithms (datasets, shapes, interval methods,
    scores) lists what the option accepts: all of them. A default is a chosen few, so the
    text after "default" is left out."""
    for command, text in _help_texts():
        listed = re.sub(r"default[^)]*", "", text)
        for kind, names in REGISTRIES.items():
            found = _named(listed, names)
            if len(found) >= 3:
                assert found == set(names), (command, kind, set(names) - found, text)


def test_the_check_of_help_lists_can_fail():
    names = REGISTRIES["algorithms"]
    assert 3 <= len(_named(", ".join(names[:-1]), names)) < len(names)


@pytest.mark.parametrize("generate, names", [
    (HOOKS.algorithms, list(ALGORITHMS)), (HOOKS.datasets, list(DATASETS)),
    (HOOKS.commands, list(SUMMARIES)), (HOOKS.file_formats, [f.name for f in FILE_FORMATS])])
def test_generated_lists_name_all_the_code_accepts(generate, names):
    assert _named(generate(), names) == set(names)


def test_pages_that_list_algorithms_datasets_and_commands_generate_them():
    experiments = (DOCS / "guide" / "experiments.md").read_text()
    assert "<!-- algorithms -->" in experiments and "<!-- datasets -->" in experiments
    assert "<!-- commands -->" in (DOCS / "guide" / "cli.md").read_text()
    assert "<!-- formats -->" in (DOCS / "guide" / "cli.md").read_text()
    assert "<!-- file-formats -->" in (DOCS / "guide" / "cli.md").read_text()
    assert all(marker in HOOKS.GENERATED for marker in
               ("<!-- algorithms -->", "<!-- datasets -->", "<!-- commands -->",
                "<!-- formats -->", "<!-- file-formats -->"))
    assert _named(HOOKS.formats(), list(FORMATS)) == set(FORMATS)


def test_no_page_or_help_counts_what_a_registry_holds():
    """"8 algorithms" goes stale when the ninth is registered: say "every algorithm".
    ("Two commands" are the quick start's make demo and make test, which test_readme.py
    pins.)"""
    count = re.compile(r"\b(?!two commands)(?:\d+|two|three|four|five|six|seven|eight|nine"
                       r"|ten|eleven|twelve) (?:clustering )?(?:algorithms|commands|datasets)\b",
                       re.I)
    for path in PAGES:
        assert count.findall(path.read_text()) == [], path
    for command, text in _help_texts():
        assert count.findall(text) == [], command


# ------------------------------------------------------------------ quoted files and links
_EXTENSIONS = r"\.(?:py|md|csv|tsv|json|png|txt|ipynb|toml|yml|yaml|npy|html|sh)"
#: Paths of other projects quoted as such (scikit-learn's own test file).
_FOREIGN = ("sklearn/",)


def _ignored_dirs() -> tuple[str, ...]:
    """Git-ignored folders: where commands write their output (reports/, build/)."""
    lines = (ROOT / ".gitignore").read_text().splitlines()
    return tuple(line for line in lines if line.endswith("/") and "*" not in line)


def _texts():
    for path in PAGES:
        yield path, path.read_text()
    for notebook in sorted((ROOT / "examples").glob("*.ipynb")):
        cells = json.loads(notebook.read_text())["cells"]
        yield notebook, "\n".join("".join(c["source"]) for c in cells)


def _quoted_paths(text: str) -> list[str]:
    """Backticked paths (with a folder) of files, and repository paths in plain text."""
    quoted = re.findall(rf"`([^`\s]+/[^`\s]*{_EXTENSIONS})(?:[#:][^`]*)?`", text)
    plain = re.findall(rf"(?<![\w/`.-])((?:src|tests|tools|benchmarks|examples|docs)/"
                       rf"[\w/.-]*{_EXTENSIONS})\b", text)
    return quoted + plain


def test_every_quoted_file_exists():
    """A file a page quotes exists: relative to the repository, the page, docs/ or the
    package (architecture.md says `scores/spec.py`); placeholders (`DIR/index.html`,
    `cli/<command>.py`) and files commands write into ignored folders are not files."""
    bases = [ROOT, DOCS, ROOT / "src" / "clustermetrics", ROOT / "src"]
    missing = []
    for path, text in _texts():
        for quoted in _quoted_paths(text):
            if (quoted.startswith(_FOREIGN + _ignored_dirs()) or "<" in quoted
                    or any(part.isupper() for part in quoted.split("/")[:-1])):
                continue
            if not any((base / quoted).exists() for base in [*bases, path.parent]):
                missing.append(f"{path.relative_to(ROOT)}: {quoted}")
    assert missing == []


def test_the_check_of_quoted_files_can_fail():
    assert _quoted_paths("drawn by `docs/hooks.py`, see tests/project/nowhere.py") == [
        "docs/hooks.py", "tests/project/nowhere.py"]


def _titles() -> dict[str, set[str]]:
    """Lower-case title -> pages: the nav's titles and each page's H1."""
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text().split("\nhooks:")[0])
    titles: dict[str, set[str]] = {}

    def walk(items):
        for item in items:
            for title, value in item.items():
                if isinstance(value, str):
                    titles.setdefault(title.lower(), set()).add(value)
                else:
                    walk(value)
    walk(config["nav"])
    for page in DOCS.rglob("*.md"):
        first = page.read_text().split("\n", 1)[0]
        if first.startswith("# "):
            titles.setdefault(first[2:].strip().lower(), set()).add(
                page.relative_to(DOCS).as_posix())
    return titles


def _misdirected(page: Path, text: str, titles: dict[str, set[str]]) -> list[str]:
    out = []
    for label, target in re.findall(r"(?<!!)\[([^\]]+)\]\(([^)\s#]+)[^)]*\)", text):
        if target.startswith(("http:", "https:", "mailto:")):
            continue
        name = label.lower().strip("` ")
        wanted = set().union(*(pages for title, pages in titles.items()
                               if title == name or title.startswith(name + " ")))
        resolved = (page.parent / target).resolve()
        if wanted and not any(resolved == (DOCS / w).resolve() for w in wanted):
            out.append(f"{page.relative_to(ROOT)}: [{label}]({target})")
    return out


def test_links_named_for_a_page_go_to_that_page():
    """[Noise](...) goes to the page titled "Noise points", not to another one."""
    titles = _titles()
    wrong = [bad for page in DOCS.rglob("*.md")
             for bad in _misdirected(page, page.read_text(), titles)]
    assert wrong == []
    assert _misdirected(DOCS / "guide" / "experiments.md", "[Noise](diagnostics.md)", titles)


# ------------------------------------------------------------------ score reference
def _property_rows(page: str, key: str) -> dict[str, str]:
    entry = page.split(f"## `{key}`: ", 1)[1].split("\n## ", 1)[0]
    return {m[0]: m[1] for m in re.findall(r"^\| ([^|]+) \| (.*) \|$", entry, re.M)}


def test_score_reference_tables_have_a_header():
    page = HOOKS.score_reference()
    assert "| | |" not in page
    assert page.count("| property | value |") == len(METRICS)


def test_peer_equivalents_are_each_scores_own():
    """A row of docs/peers.md mapping several peer scores to several of ours gives each
    its own: the Rand index is not the adjusted one."""
    page = HOOKS.score_reference()
    ri = _property_rows(page, "ri")["peer equivalents"]
    assert "rand_score" in ri and "adjusted" not in ri.lower() and "adjrand" not in ri
    for key, entry in METRICS.items():
        peers = _property_rows(page, key)["peer equivalents"]
        if not entry.adjusted and not key.startswith(("ami", "ari")):
            assert not re.search(r"adj(?:usted)?_?rand", peers, re.I), (key, peers)
    assert HOOKS._pairs("RaS `rand_score` / ARS `adjusted_rand_score`", "`ri` / `ari`") == [
        ("ri", "RaS `rand_score`"), ("ari", "ARS `adjusted_rand_score`")]
    assert HOOKS._pairs("`f(method=...)`", "`a`, `b`") == [("a", "`f(method=...)`"),
                                                           ("b", "`f(method=...)`")]
    with pytest.raises(ValueError, match="same order"):
        HOOKS._pairs("`x`, `y`, `z`", "`a`, `b`")


# ------------------------------------------------------------------ one title a page
def _h1s(markdown: str) -> list[str]:
    lines, fence = [], False
    for line in markdown.splitlines():
        if re.match(r"\s*(```|~~~)", line):
            fence = not fence
        elif not fence and line.startswith("# "):
            lines.append(line)
    return lines


def test_every_page_has_one_title_once_generated():
    """Included records lose their own H1 (the benchmarks page includes
    benchmarks/README.md); snippets would bring theirs in, so pages use the hooks."""
    for page in DOCS.rglob("*.md"):
        text = HOOKS.on_page_markdown(page.read_text(), None, None, None)
        assert "--8<--" not in text, page
        assert len(_h1s(text)) == 1, (page, _h1s(text))
    assert len(_h1s((ROOT / "benchmarks" / "README.md").read_text())) == 1


# ------------------------------------------------------------------ the default interval
def _methods_called_default(text: str) -> list[str]:
    """Interval methods a text calls the default, or says `ci=` gives."""
    found = re.findall(r'"(\w+)"`?\s*\((?:the )?default', text)
    found += re.findall(r'default[^.;\n]{0,12}?"(\w+)"', text)
    found += re.findall(r"`ci=` (?:adds|gives) (\w+) intervals", text)
    return [m for m in found if m in METHODS]


def test_pages_and_the_tour_name_the_default_interval_method_the_code_uses():
    """`ci=` gives "normal" intervals unless told (the tour said percentile)."""
    from clustermetrics.inference.bootstrap import DEFAULT_METHOD

    for path, text in _texts():
        assert set(_methods_called_default(text)) <= {DEFAULT_METHOD}, path
    tour = dict(_texts())[ROOT / "examples" / "tour.ipynb"]
    assert _methods_called_default(tour) == [DEFAULT_METHOD]
    assert _methods_called_default("`ci=` adds percentile intervals") == ["percentile"]


def test_no_page_times_the_demo():
    """`make demo`'s duration depends on the machine and grows with the algorithms (a
    page said "< 2 min"; it took 247 s): benchmarks/README.md records no figure for it,
    so pages quote none (runs of other settings, with their setup, are records)."""
    timed = re.compile(r"make demo[^.\n]{0,120}?"
                       r"(?:<\s*)?\d+(?:\.\d+)? ?(?:s|sec|min|minutes|seconds)\b")
    for path, text in _texts():
        assert timed.findall(" ".join(text.split())) == [], path
    assert timed.findall("what `make demo` runs (< 2 min on 2 cores)")
