"""Every figure, equation, table and code cell on every screen, checked on the built pages.

- **Dark mode** (1280 px): every figure of a page's article, as drawn on the dark page, is a
  dark image: its mean luminance (0 black … 1 white, Rec. 709 weights) is below
  ``DARK_LUMINANCE``. Measured before the book drew dark variants, its light figures on the
  dark page had a mean luminance of 0.8–0.95; the dark variants are 0.05–0.25.
- **Phones** (390 px): no figure sits in a box that scrolls sideways, and each is drawn at
  least ``MIN_SCALE`` of the size it was designed for at that width (the narrow drawing's,
  where the figure has one); no display equation or table is wider than the column; a code
  cell wider than its box shows that it scrolls.
- **Laptops** (1280 px): no chapter code cell is wider than its box.
"""

from __future__ import annotations

import io

import numpy as np
import pytest
from browser import PageVisit, site_pages
from PIL import Image

pytestmark = pytest.mark.build
# the English pages: a Chinese page shows the same figures, equations and code
PAGES = [p for p in site_pages() if not p.startswith("zh-cn/")]
DARK_LUMINANCE = 0.35
MIN_SCALE = 0.8
CHAPTERS = [p for p in PAGES if p.startswith("notebooks/")]

# The figures of the article: computed figures (light or dark drawing, whichever shows),
# hand-drawn ones, the landing page's cards. Lazy images are made to load first.
FIGURES_JS = """() => {
  const shown = (el) => el.getClientRects().length > 0
    && getComputedStyle(el).visibility !== "hidden";
  return [...document.querySelectorAll("article img")].filter(shown).map((img, i) => {
    img.dataset.attnbookIndex = i;
    return i;
  });
}"""

LOAD_ALL = """async () => {
  const images = [...document.querySelectorAll("article img")];
  images.forEach((img) => { img.loading = "eager"; });
  await Promise.all(images.map((img) => img.complete ? null
    : new Promise((r) => { img.onload = r; img.onerror = r; })));
}"""

PHONE_FIGURES_JS = """() => {
  const problems = [];
  const shown = (el) => el.getClientRects().length > 0;
  for (const img of document.querySelectorAll("article img")) {
    if (!shown(img)) continue;
    const name = img.alt || img.src.split("/").pop();
    for (let a = img.parentElement; a && a.tagName !== "ARTICLE"; a = a.parentElement) {
      const x = getComputedStyle(a).overflowX;
      if ((x === "auto" || x === "scroll") && a.scrollWidth > a.clientWidth + 1) {
        problems.push(`${name}: in a box that scrolls sideways`);
        break;
      }
    }
    const source = [...(img.closest("picture")?.querySelectorAll("source") ?? [])]
      .find((s) => img.currentSrc.endsWith(s.getAttribute("srcset").split("/").pop()));
    const designed = Number((source ?? img).getAttribute("width")) || img.naturalWidth;
    const drawn = img.getBoundingClientRect().width;
    if (designed && drawn < 0.8 * designed - 1) {
      problems.push(`${name}: drawn ${Math.round(drawn)} px of ${designed} px`);
    }
  }
  // the search page has no article: its column is the main content
  const column = (document.querySelector("article") ?? document.querySelector("main")
    ?? document.body).getBoundingClientRect();
  for (const eq of document.querySelectorAll("div.math mjx-container")) {
    if (eq.scrollWidth > eq.clientWidth + 1) {
      const what = eq.textContent.slice(0, 40);
      problems.push(`equation ${what}: ${eq.scrollWidth} px in ${eq.clientWidth}`);
    }
  }
  for (const table of document.querySelectorAll("article table")) {
    const box = table.getBoundingClientRect();
    if (shown(table) && box.width > column.width + 1) {
      const what = table.textContent.trim().slice(0, 40);
      problems.push(`table "${what}": ${Math.round(box.width)} px`);
    }
  }
  for (const pre of document.querySelectorAll("article div.cell_input pre")) {
    if (!shown(pre) || pre.scrollWidth <= pre.clientWidth + 1) continue;
    if (!pre.classList.contains("attnbook-scrolls")) {
      problems.push(`code "${pre.textContent.slice(0, 30)}" scrolls without a cue`);
    }
  }
  return problems;
}"""

WIDE_CODE_JS = """() => [...document.querySelectorAll("article div.cell_input pre")]
  .filter((pre) => pre.getClientRects().length && pre.scrollWidth > pre.clientWidth + 1)
  .map((pre) => pre.textContent.split("\\n").reduce((a, b) => (b.length > a.length ? b : a)))"""


def _luminance(png: bytes) -> float:
    rgb = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"), dtype=float) / 255
    return float((rgb @ np.array([0.2126, 0.7152, 0.0722])).mean())


@pytest.mark.parametrize("path", PAGES)
def test_figures_are_dark_on_the_dark_page(site, browser, path):
    visit = PageVisit(browser, site, path, theme="dark")
    page = visit.page
    try:
        page.evaluate(LOAD_ALL)
        bright = []
        for i in page.evaluate(FIGURES_JS):
            img = page.locator(f'article img[data-attnbook-index="{i}"]')
            if img.bounding_box()["width"] < 24:  # an icon, not a figure
                continue
            luminance = _luminance(img.screenshot())
            if luminance >= DARK_LUMINANCE:
                bright.append(f"{img.get_attribute('alt')!r}: {luminance:.2f}")
        assert not bright, f"bright figures on the dark page: {bright}"
    finally:
        visit.close()


@pytest.mark.parametrize("path", PAGES)
def test_figures_equations_tables_and_code_on_a_phone(site, browser, path):
    visit = PageVisit(browser, site, path, width=390)
    page = visit.page
    try:
        page.evaluate(LOAD_ALL)
        if page.locator("div.math").count():
            page.wait_for_function(
                "performance.getEntriesByName('attnbook:math-typeset').length > 0",
                timeout=20_000,
            )
        problems = page.evaluate(PHONE_FIGURES_JS)
        assert not problems, "\n".join(problems)
    finally:
        visit.close()


@pytest.mark.parametrize("path", CHAPTERS)
def test_code_fits_the_column_on_a_laptop(site, browser, path):
    visit = PageVisit(browser, site, path, width=1280)
    try:
        wide = visit.page.evaluate(WIDE_CODE_JS)
        assert not wide, f"{len(wide)} code cells wider than their box, e.g. {wide[:3]}"
    finally:
        visit.close()
