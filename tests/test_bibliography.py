"""Every work the book names by author and year is cited, and every citation resolves.

The text of the chapters (Markdown cells) and of the book's pages (``book/*.md``) is read
paragraph by paragraph (a Markdown cell counts as one paragraph). A paragraph that names a
work the way papers are named in prose,

- ``Name et al. (2019)``, ``Name et al., 2019``, ``(Name et al., 2020)``, ``Name et al. 2022``,
- ``Name and Name (2017)``, ``Name & Name, 2017``, ``Name, Name & Name (2015)``,
- ``Name (2016)``, ``(Name, 2016)``, ``Name, 2016``,
- a typed reference-list entry ``- Name, I., … (2019). *Title*``,

must cite that work with a ``{cite}`` role (``{cite:p}``, ``{cite:t}``, …) in the same
paragraph: one of the keys it cites must have that first author's surname and that year
in ``book/references.bib``. And every key any ``{cite}`` role names must be in
``references.bib``.

Code, math, roles and link targets are not read. ``NOT_NAMES`` lists capitalised words
that take the place of a surname in these patterns without being one; ``EXCEPTIONS``
lists the mentions left uncited on purpose, each with its reason.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
BIB = ROOT / "book" / "references.bib"
CHAPTERS = sorted((ROOT / "notebooks").glob("*.ipynb"))
PAGES = sorted((ROOT / "book").glob("*.md"))

# Words that can stand where a surname stands in the patterns below but are not authors.
NOT_NAMES = {
    "January", "February", "March", "April", "May", "June", "July", "August",
    "September", "October", "November", "December", "Jan", "Feb", "Mar", "Apr", "Jun",
    "Jul", "Aug", "Sep", "Sept", "Oct", "Nov", "Dec", "Table", "Figure", "Section",
    "Chapter", "Eq", "Equation", "Version", "Python", "Colab", "Since", "In", "From",
    "Until", "Before", "After", "And", "The",
}  # fmt: skip

# (file name, the mention as the text writes it): a work named and left uncited, and why.
EXCEPTIONS: dict[tuple[str, str], str] = {}

# Chapters whose text still names works without citing them when this test was written;
# they are being fixed. Remove a chapter from this set once it passes: the test then
# guards it like every other file.
NOT_YET_FIXED: set[str] = set()  # every page cites the works it names

SURNAME = r"(?:[dD]e |[vV]an (?:der? )?|[vV]on )?[A-Z][a-zà-öø-ÿ'’]+(?:-[A-Z][a-zà-öø-ÿ'’]+)?"
YEAR = r"(?P<year>(?:19|20)\d\d)[a-z]?"
MENTIONS = [
    # Name et al. (2019) · Name et al., 2019 · Name et al. 2019
    re.compile(rf"\b(?P<name>{SURNAME})\s+et\s+al\.?,?\s*(?P<open>\()?{YEAR}\b(?(open)\)?)"),
    # Name and Name (2017) · Name & Name, 2017 · Name, Name & Name (2015)
    re.compile(
        rf"\b(?P<name>{SURNAME})(?:,\s+{SURNAME})*,?\s+(?:and|&)\s+{SURNAME},?\s*(?P<open>\()?{YEAR}\b(?(open)\)?)"
    ),
    # Name (2016) · (Name, 2016)
    re.compile(rf"(?<![\w.-])(?P<name>{SURNAME})\s+\({YEAR}\)"),
    re.compile(rf"\((?P<name>{SURNAME}),\s+{YEAR}\)"),
    re.compile(rf"(?<![\w.-])(?P<name>{SURNAME}),\s+{YEAR}\b"),  # Name, 2016
    # a typed reference-list entry: "- Name, I., …(2019)."
    re.compile(rf"^\s*[-*]\s+(?P<name>{SURNAME}),\s+[A-Z]\..*?\({YEAR}\)", re.MULTILINE),
]
CITE = re.compile(r"\{cite(?::[a-z]+)?\}`([^`]*)`")
# what is not prose: fenced code (not directives), math, roles, inline code, link targets
FENCE = re.compile(r"^(```+|~~~+)(?!\s*\{)[^\n]*\n.*?^\1\s*$", re.MULTILINE | re.DOTALL)
NOT_PROSE = [
    re.compile(r"\$\$.*?\$\$", re.DOTALL),
    re.compile(r"(?<!\\)\$[^$\n]+\$"),
    re.compile(r"\{[\w:+.-]+\}`[^`]*`"),
    re.compile(r"`[^`\n]*`"),
    re.compile(r"\]\([^)]*\)"),
    re.compile(r"https?://\S+"),
    re.compile(r"<!--.*?-->", re.DOTALL),
]


def _ascii(text: str) -> str:
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()


def _surname(person) -> str:
    """The last name of a pybtex Person, without LaTeX or accents: M{\\"u}ller -> muller."""
    last = " ".join(person.prelast_names + person.last_names)
    last = re.sub(r"\\[a-zA-Z]+\s*|\\.|[{}]", "", last)  # {\"u} -> u, {\L} -> L
    return _ascii(last.split()[-1])


def _bibliography() -> dict[str, tuple[str, str]]:
    """Every key of references.bib -> (first author's surname, year)."""
    from pybtex.database import parse_file

    data = parse_file(str(BIB))
    works = {}
    for key, entry in data.entries.items():
        people = entry.persons.get("author") or entry.persons.get("editor") or []
        surname = _surname(people[0]) if people else ""
        works[key] = (surname, entry.fields.get("year", ""))
    return works


WORKS = _bibliography()


def _paragraphs(path: Path) -> list[str]:
    if path.suffix == ".ipynb":
        nb = nbformat.read(path, as_version=4)
        return [c.source for c in nb.cells if c.cell_type == "markdown"]
    text = FENCE.sub("", path.read_text(encoding="utf-8"))
    return [p for p in re.split(r"\n\s*\n", text) if p.strip()]


def _keys(paragraph: str) -> list[str]:
    return [k.strip() for m in CITE.findall(paragraph) for k in m.split(",") if k.strip()]


def _prose(paragraph: str) -> str:
    text = FENCE.sub("", paragraph)
    for pattern in NOT_PROSE:
        text = pattern.sub(" ", text)
    return text


def mentions(paragraph: str) -> list[tuple[str, str, str]]:
    """``(name, year, as written)`` for each author-year naming of a work in ``paragraph``."""
    text = _prose(paragraph)
    found: list[tuple[int, int, tuple[str, str, str]]] = []
    for pattern in MENTIONS:  # several authors first: "Dean (2015)" in "Hinton, … & Dean (2015)"
        for m in pattern.finditer(text):
            name = m.group("name")
            start, end = m.start("name"), m.end()
            if name.split()[-1] in NOT_NAMES or any(a < end and start < b for a, b, _ in found):
                continue
            found.append(
                (start, end, (name, m.group("year"), " ".join(m.group(0).split()).strip()))
            )
    return [mention for *_, mention in sorted(found)]


def uncited(path: Path) -> list[str]:
    """The mentions in ``path`` whose work no ``{cite}`` of the same paragraph cites."""
    problems = []
    for paragraph in _paragraphs(path):
        cited = {WORKS[k] for k in _keys(paragraph) if k in WORKS}
        for name, year, written in mentions(paragraph):
            surname = _ascii(name.split()[-1])
            if (surname, year) in cited or (path.name, written) in EXCEPTIONS:
                continue
            problems.append(written)
    return problems


def unknown_keys(path: Path) -> list[str]:
    return [k for p in _paragraphs(path) for k in _keys(p) if k not in WORKS]


FILES = CHAPTERS + PAGES


def _checked(path: Path):
    if path.name in NOT_YET_FIXED:
        reason = f"{path.name} is listed in NOT_YET_FIXED"
        return pytest.param(path, marks=pytest.mark.xfail(reason=reason, strict=False))
    return path


@pytest.mark.parametrize("path", [_checked(p) for p in FILES], ids=lambda p: p.name)
def test_named_works_are_cited(path):
    problems = uncited(path)
    assert not problems, (
        f"{path.name} names works without citing them in the same paragraph "
        f"(add {{cite:t}}`key` or {{cite:p}}`key`): {problems}"
    )


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_cited_keys_are_in_the_bibliography(path):
    missing = unknown_keys(path)
    assert not missing, f"{path.name} cites keys missing from book/references.bib: {missing}"


def test_exceptions_are_still_needed():
    """An exception whose mention is gone (or now cited) is removed from the list."""
    for (name, written), reason in EXCEPTIONS.items():
        assert reason, f"exception {written!r} in {name} gives no reason"
        path = next(p for p in FILES if p.name == name)
        found = [w for p in _paragraphs(path) for *_, w in mentions(p)]
        assert written in found, f"{written!r} is no longer in {name}: remove the exception"


# The checker itself: what it must flag, and what it must leave alone.
@pytest.mark.parametrize(
    "text",
    [
        "As Kaplan et al. (2020) showed, loss falls.",
        "a power law (Kaplan et al., 2020)",
        "the WiC benchmark (Pilehvar & Camacho-Collados, 2019)",
        "Press and Wolf (2017) tie the weights.",
        "Hinton, Vinyals & Dean (2015) distil.",
        "an Elman network (Elman, 1990)",
        "Ethayarajh (2019) measured the cone.",
        "the network of Elman, 1990, is recurrent",
        "as Müller et al. 2019 found",
        "- Vig, J. (2019). *A Multiscale Visualization of Attention.* ACL.",
    ],
)
def test_checker_flags_uncited_mentions(text):
    assert mentions(text), text


@pytest.mark.parametrize(
    "text",
    [
        "the paper's Table 2 (2017 numbers)",
        "8 January 2026, Nov 2026, published in June, 2017",
        "BERT (2019) and GPT-2 (2019)",
        "the code `Kaplan et al. (2020)` and math $Name (2016)$",
        "{cite:t}`kaplan2020scaling` showed it",
        "a scale of 1,000 (2020)",
    ],
)
def test_checker_leaves_other_text_alone(text):
    assert mentions(text) == [], text


def test_a_citation_in_the_same_paragraph_satisfies_the_mention(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(
        "Kaplan et al. (2020) {cite:p}`kaplan2020scaling` showed it.\n\n"
        "Kaplan et al. (2020) showed it.\n\n"
        "Müller et al. (2019) {cite:p}`muller2019when` and Kaplan et al. (2020) "
        "{cite:p}`hoffmann2022training`.\n",
        encoding="utf-8",
    )
    assert uncited(page) == ["Kaplan et al. (2020)", "Kaplan et al. (2020)"]
    page.write_text("A {cite:p}`nobody2099missing` citation.\n", encoding="utf-8")
    assert unknown_keys(page) == ["nobody2099missing"]
