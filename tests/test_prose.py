"""The chapters as a learner reads them, checked on the built pages.

- **A core path:** each chapter's header states the reading time of its core path and of its
  optional parts; the core path takes at most 25 minutes (chapter 1 at most 15), the whole
  book's at most 3.5 hours (counted as ``site/reading_time.py`` counts).
- **Numbers that serve the argument:** a paragraph of the core path pastes at most three
  computed numbers; no number in the prose is written in e-notation (``2.2e-04``, ``3·10⁻⁶``).
- **No bookkeeping on the page:** no phrase about how the page was built or tested, no
  benchmark paths; in visible code no bare ``assert`` (a check a reader should see prints
  "✓ checked: …"), no progress-bar switches or warning captures, at most one seeding line.
"""

from __future__ import annotations

import functools
import re
import sys
from pathlib import Path

import pytest
from browser import SITE
from bs4 import BeautifulSoup

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "site"))
from reading_time import FURTHER, reading_time  # noqa: E402

pytestmark = pytest.mark.build
CHAPTERS = sorted(p.stem for p in (ROOT / "notebooks").glob("*.ipynb"))
CORE_MIN, FIRST_CORE_MIN, BOOK_CORE_MIN = 25, 15, 210
MAX_NUMBERS = 3
E_NOTATION = re.compile(r"\d(?:\.\d+)?\s?[eE][-+−]?\d|\d\s?[·×x]\s?10[⁻⁺]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+")
BOOKKEEPING_PROSE = [
    "the machine that built this page",
    "the machine that built the page",
    "the test suite",
    "benchmarks/",
    "this page's build",
]
BOOKKEEPING_CODE = {
    "a bare assert": re.compile(r"^\s*assert\b"),
    "a progress-bar switch": re.compile(r"disable\s*=\s*not|SHOW_PROGRESS"),
    "a warning capture": re.compile(r"catch_warnings"),
}
SEEDING = re.compile(r"set_seed\(|manual_seed\(")


@functools.cache
def _html(name: str) -> str:
    path = SITE / "notebooks" / f"{name}.html"
    if not path.is_file():
        pytest.fail(f"{path} is missing: run `make book` first")
    return path.read_text(encoding="utf-8")


def _page(name: str) -> BeautifulSoup:
    """The chapter's page, parsed afresh (a test may take parts of it out)."""
    return BeautifulSoup(_html(name), "html.parser")


@functools.cache
def _reading_time(name: str):
    return reading_time(_html(name))


def _in_further(node) -> bool:
    return any(FURTHER in (p.get("class") or []) for p in node.parents)


def _visible_code(page: BeautifulSoup) -> list[str]:
    lines = []
    for cell in page.select("article div.cell_input"):
        if not any(p.name == "details" for p in cell.parents):
            lines += cell.get_text().splitlines()
    return lines


def _prose(page: BeautifulSoup) -> list:
    """Paragraphs and list items of the article, without code, math and outputs."""
    article = page.select_one("article")
    for node in article.select("div.cell, div.math, span.math, pre, code, .cell_output"):
        node.decompose()
    return article.select("p, li")


@pytest.mark.parametrize("name", CHAPTERS)
def test_header_states_both_reading_times(name):
    page = _page(name)
    line = page.select_one("article h1 + p.attnbook-reading-time")
    assert line is not None, "no reading time under the chapter's title"
    t = _reading_time(name)
    assert f"Core path {t.core_minutes} min" in line.get_text()
    budget = FIRST_CORE_MIN if name == CHAPTERS[0] else CORE_MIN
    assert t.core <= budget, f"core path {t.core:.1f} min, budget {budget}"
    assert page.select(f".{FURTHER}"), "no optional part marked on the page"


def test_the_books_core_path_fits_an_afternoon():
    total = sum(_reading_time(name).core for name in CHAPTERS)
    assert total <= BOOK_CORE_MIN, f"{total / 60:.2f} h"


@pytest.mark.parametrize("name", CHAPTERS)
def test_core_paragraphs_paste_at_most_three_numbers(name):
    crowded = []
    for para in _prose(_page(name)):
        if _in_further(para) or para.find_parent("table"):
            continue
        pasted = [s for s in para.select("span.pasted-text") if re.search(r"\d", s.get_text())]
        if para.name == "p" and len(pasted) > MAX_NUMBERS:
            crowded.append(f"{len(pasted)}: {para.get_text()[:90]!r}")
    assert not crowded, "core paragraphs with more than three numbers:\n" + "\n".join(crowded)


@pytest.mark.parametrize("name", CHAPTERS)
def test_no_e_notation_in_prose(name):
    found = [
        m.group(0) + f" in {p.get_text()[:60]!r}"
        for p in _prose(_page(name))
        for m in E_NOTATION.finditer(p.get_text())
    ]
    assert not found, found


@pytest.mark.parametrize("name", CHAPTERS)
def test_no_bookkeeping_in_sight(name):
    page = _page(name)
    text = " ".join(p.get_text(" ") for p in page.select("article p, article li"))
    said = [phrase for phrase in BOOKKEEPING_PROSE if phrase in text.lower()]
    assert not said, f"bookkeeping in the prose: {said}"
    code = _visible_code(page)
    shown = {
        what: [ln.strip() for ln in code if rx.search(ln)][:3]
        for what, rx in BOOKKEEPING_CODE.items()
        if any(rx.search(ln) for ln in code)
    }
    assert not shown, f"bookkeeping in visible code: {shown}"
    seeding = [ln.strip() for ln in code if SEEDING.search(ln)]
    assert len(seeding) <= 1, f"{len(seeding)} visible seeding lines: {seeding[:4]}"
