"""The numbers typed on the reference pages, checked against what they are computed from.

A Markdown page cannot paste computed values, so the cheat sheet's derived numbers are
recomputed here from the paper's formulas.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
CHEATSHEET = (ROOT / "book" / "cheatsheet.md").read_text(encoding="utf-8")
PAGES = ["cheatsheet", "glossary", "how_to_read", "misconceptions", "bibliography"]
SCI = re.compile(r"(\d+(?:\.\d+)?) \\times 10\^\{(-?\d+)\}")  # "6.99 \times 10^{-4}"


def _row(table_text: str, first_cell: str) -> list[str]:
    """The cells of the table row whose first cell starts with ``first_cell``."""
    for line in table_text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and cells[0].startswith(first_cell):
            return cells
    raise AssertionError(f"no table row starting with {first_cell!r}")


def _numbers(text: str) -> list[float]:
    return [float(m) * 10 ** int(e) for m, e in SCI.findall(text)]


def _lrate(step: int, d_model: int, warmup: int) -> float:
    """Eq. (3) of the paper (§5.3)."""
    return d_model**-0.5 * min(step**-0.5, step * warmup**-1.5)


def test_peak_learning_rate_is_the_formula_at_the_end_of_warm_up():
    warmup = 4000
    typed = _numbers(_row(CHEATSHEET, "peak learning rate")[1])
    assert len(typed) == 2, typed
    for value, d_model in zip(typed, (512, 1024)):
        peak = max(_lrate(s, d_model, warmup) for s in range(1, 3 * warmup))
        assert peak == _lrate(warmup, d_model, warmup) == (d_model * warmup) ** -0.5
        assert f"{value:.2e}" == f"{peak:.2e}", (value, peak)


def test_vocabulary_size_is_V_as_in_the_chapters():
    smoothing = _row(CHEATSHEET, "label smoothing")[1]
    assert r"\epsilon/V" in smoothing and "/K" not in smoothing


def test_clone_command_uses_the_configured_repository():
    url = yaml.safe_load((ROOT / "_config.yml").read_text())["repository"]["url"]
    page = (ROOT / "book" / "how_to_read.md").read_text(encoding="utf-8")
    assert f"git clone {url} " in page
    assert "<this repository>" not in page


def test_chapters_are_linked_by_name_not_by_a_typed_number():
    """Chapter numbers change when chapters are added; a {doc} link shows the title."""
    typed = re.compile(r"\{doc\}`\s*\d+\s*<|\b[Cc]hapter \d+\b")
    for name in PAGES:
        page = (ROOT / "book" / f"{name}.md").read_text(encoding="utf-8")
        assert not typed.findall(page), (name, typed.findall(page))
    assert CHEATSHEET.count("{doc}`../notebooks/") >= 9
