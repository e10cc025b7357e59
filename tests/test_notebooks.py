"""Static checks of every chapter notebook (the build executes them)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import nbformat
import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "site"))
from colab import install_cell_source, requirement  # noqa: E402

NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
GLUE_REF = re.compile(r"\{glue(?::\w+)?\}`([A-Za-z_][A-Za-z0-9_]*)")
GLUE_DEF = re.compile(r"""\bglue\(\s*(f?)["']([^"']+)["']""")  # literal names or f-strings


def _read(path: Path) -> nbformat.NotebookNode:
    return nbformat.read(path, as_version=4)


def _code(nb) -> list:
    return [c for c in nb.cells if c.cell_type == "code"]


def test_there_are_chapters():
    assert NOTEBOOKS, "no notebooks found"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_named_in_reading_order(path):
    assert re.fullmatch(r"\d\d_[a-z0-9_]+\.ipynb", path.name)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_committed_without_outputs(path):
    nb = _read(path)
    dirty = [i for i, c in enumerate(_code(nb)) if c.outputs or c.execution_count]
    assert not dirty, f"code cells {dirty} carry outputs: run `make strip`"
    assert "widgets" not in nb.metadata


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_first_code_cell_installs_the_package_in_colab_only(path):
    first = _code(_read(path))[0]
    assert first.source == install_cell_source(requirement()), "run `make sync-colab`"
    assert "remove-cell" in first.metadata.get("tags", [])


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_never_installs_or_upgrades_torch(path):
    for cell in _code(_read(path)):
        for line in cell.source.splitlines():
            line = line.split("#")[0]  # comments may mention torch
            if re.search(r"pip|install", line):
                assert not re.search(r"\btorch\b", line), f"installs torch: {line}"
                assert not re.search(r"(^|\s)(-U|--upgrade)\b", line), f"upgrades: {line}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_setup_cell_seeds(path):
    setup = _code(_read(path))[1]
    assert "import attnbook" in setup.source and "set_seed(" in setup.source


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_glued_name_is_computed(path):
    nb = _read(path)
    used = {m for c in nb.cells if c.cell_type == "markdown" for m in GLUE_REF.findall(c.source)}
    patterns = [
        re.escape(name) if not f else re.sub(r"\\\{[^}]*\\\}", ".+", re.escape(name))
        for c in _code(nb)
        for f, name in GLUE_DEF.findall(c.source)
    ]
    missing = [u for u in used if not any(re.fullmatch(p, u) for p in patterns)]
    assert not missing, f"prose pastes names no cell glues: {sorted(missing)}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_exercises_with_hidden_solutions_and_references(path):
    cells = _read(path).cells
    heads = [i for i, c in enumerate(cells) if c.cell_type == "markdown"]
    exercises = next(i for i in heads if "## Exercises" in cells[i].source)
    hidden = [
        c
        for c in cells[exercises:]
        if c.cell_type == "code" and {"hide-cell", "hide-input"} & set(c.metadata.get("tags", []))
    ]
    assert hidden, "exercises need at least one hidden solution cell"
    assert any("## References" in cells[i].source for i in heads)


def test_every_chapter_is_in_the_table_of_contents():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))

    def files(node):
        if isinstance(node, dict):
            yield from ([node["file"]] if "file" in node else [])
            for value in node.values():
                yield from files(value)
        elif isinstance(node, list):
            for item in node:
                yield from files(item)

    listed = set(files(toc))
    assert {f"notebooks/{p.stem}" for p in NOTEBOOKS} <= listed
