"""How long a chapter takes to read, counted from its built page: the core path and the
optional parts ("going further") apart.

The rule: prose at 200 words a minute, visible code at 10 lines a minute. Prose is the
article's text outside code cells and their outputs (headings, paragraphs, lists, tables,
captions, admonitions); a display equation counts as 10 words, inline math as one. Visible
code is the source of code cells shown on the page (a cell whose source is collapsed, as
exercise solutions are, is not counted). Explorers, figures and outputs are not counted:
they invite the reader to stay longer, at the reader's pace.

Optional is what sits inside an element with the class ``attnbook-further``: a section
labelled ``(further-…)=`` in the chapter, a collapsed aside (a dropdown admonition), a code
cell tagged ``further`` (``site/attnbook_site.py`` adds the class to all three).

Used by the site's build (the header of each chapter states both times) and by
``benchmarks/reading_time.py``.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from bs4 import BeautifulSoup, Tag

WORDS_PER_MINUTE = 200
CODE_LINES_PER_MINUTE = 10
DISPLAY_MATH_WORDS = 10
FURTHER = "attnbook-further"
_WORD = re.compile(r"[\w\u4e00-\u9fff]+")  # a Chinese character counts as a word
_SKIP = "script, style, .headerlink, .attnbook-reading-time, .cell_output, mjx-container"


@dataclass(frozen=True)
class ReadingTime:
    """Minutes to read the core path and the optional parts, and what was counted."""

    core: float
    further: float
    core_words: int
    core_code_lines: int
    further_words: int
    further_code_lines: int

    @property
    def core_minutes(self) -> int:
        return rounded(self.core)

    @property
    def further_minutes(self) -> int:
        return rounded(self.further)


def rounded(minutes: float) -> int:
    """Minutes as a reader is told them: whole minutes, at least 1 for any text."""
    return max(1, math.ceil(minutes)) if minutes > 0 else 0


def _is_further(node: Tag) -> bool:
    return any(FURTHER in (p.get("class") or []) for p in [node, *node.parents] if p)


def _hidden_code(node: Tag) -> bool:
    return any(p.name == "details" for p in node.parents)


def reading_time(html: str) -> ReadingTime:
    """The reading time of a built page (its ``<article>``)."""
    soup = BeautifulSoup(html, "html.parser")
    article = soup.select_one("article") or soup
    counts = {True: [0, 0], False: [0, 0]}  # further? -> [words, code lines]
    for code in article.select("div.cell_input"):
        if not _hidden_code(code):
            lines = [ln for ln in code.get_text().splitlines() if ln.strip()]
            counts[_is_further(code)][1] += len(lines)
        code.decompose()
    for math_block in article.select("div.math"):
        counts[_is_further(math_block)][0] += DISPLAY_MATH_WORDS
        math_block.decompose()
    for inline in article.select("span.math"):
        counts[_is_further(inline)][0] += 1
        inline.decompose()
    for node in article.select(_SKIP):
        node.decompose()
    for text in article.find_all(string=True):
        words = len(_WORD.findall(str(text)))
        if words:
            counts[_is_further(text.parent)][0] += words
    (core_words, core_lines), (further_words, further_lines) = counts[False], counts[True]

    def minutes(words: int, lines: int) -> float:
        return words / WORDS_PER_MINUTE + lines / CODE_LINES_PER_MINUTE

    return ReadingTime(
        core=minutes(core_words, core_lines),
        further=minutes(further_words, further_lines),
        core_words=core_words,
        core_code_lines=core_lines,
        further_words=further_words,
        further_code_lines=further_lines,
    )
