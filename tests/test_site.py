"""The built site in a real browser (Debian's Chromium driven by Playwright).

Every page is served on 127.0.0.1 and opened headless. On every page: no console
errors or warnings, no failed requests, no request to any other host. Where a page has
math, MathJax has rendered it; every bertviz view has drawn its SVG; every explorer
redraws when its sliders move; every icon the theme shows is drawn. On a 390 px phone no
element is wider than the screen and the page does not scroll sideways; every image has
a meaningful alt text and every explorer or bertviz drawing a text alternative. A page
without explorers loads no widget code. Run after `make book` (``make test`` does both).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from browser import TEXT_ALTERNATIVES_JS, TOO_WIDE_JS, PageVisit, site_pages

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.build


PAGES = site_pages()


@pytest.mark.parametrize("path", PAGES)
def test_page_loads_cleanly(site, browser, path):
    visit = PageVisit(browser, site, path)
    page = visit.page
    try:
        html = page.content()
        if "math notranslate" in html or 'class="math' in html:
            page.wait_for_selector("mjx-container", state="attached", timeout=20_000)
            assert page.locator("mjx-container").count() > 0, "math not rendered by MathJax"
            assert page.locator("mjx-merror").count() == 0, "MathJax reported a TeX error"
        else:
            mathjax = [u for u in visit.scripts if "mathjax" in u.lower()]
            assert mathjax == [], f"MathJax on a page without math: {mathjax}"
        for view in page.locator("div[id^='bertviz-']").all():
            view.locator("svg").first.wait_for(timeout=20_000)
            assert view.locator("svg text").count() > 0, "bertviz view drew no tokens"
        _check_explorers(page)
        _check_icons(page)
        page.wait_for_timeout(300)  # let late console messages arrive
        assert visit.foreign == [], f"requests to other hosts: {visit.foreign}"
        assert visit.failed == [], f"failed requests: {visit.failed}"
        assert visit.errors == [], f"console errors: {visit.errors}"
        if "application/vnd.jupyter.widget-state+json" not in html:
            widget_code = [u for u in visit.scripts if "widget" in u or "anywidget" in u]
            assert widget_code == [], f"widget code on a page without explorers: {widget_code}"
    finally:
        page.close()


def _check_icons(page) -> None:
    """Every Font Awesome icon the theme shows is drawn (by the site's CSS masks)."""
    missing = page.evaluate(
        """() => [...document.querySelectorAll("i[class*='fa-'], span[class*='fa-']")]
          .filter((el) => el.getClientRects().length > 0)
          .filter((el) => {
            const s = getComputedStyle(el);
            return (s.maskImage || s.webkitMaskImage || "none") === "none"
              || el.getBoundingClientRect().width === 0;
          })
          .map((el) => el.className)"""
    )
    assert missing == [], f"icons not drawn: {missing}"


@pytest.mark.parametrize("path", PAGES)
def test_page_on_a_phone(site, browser, path):
    """At 390 px no element is wider than the screen and the page does not scroll sideways;
    every image has a meaningful alt text and every explorer or bertviz drawing a name.

    A drawing is named by its own ``aria-label``, ``aria-labelledby``,
    ``aria-describedby`` or SVG ``<title>``, or by the same on its explorer's root
    (``.attnbook-explorer``) or bertviz frame (``.attnbook-bertviz``). Images in the
    article need a non-empty alt; theme images outside it may be decorative (``alt=""``).
    """
    visit = PageVisit(browser, site, path, width=390)
    page = visit.page
    try:
        _wait_for_drawings(page)
        result = page.evaluate(TOO_WIDE_JS)
        assert result["wide"] == [], f"wider than a 390 px screen: {result['wide']}"
        assert result["scrollWidth"] <= result["clientWidth"], (
            f"the page scrolls sideways: {result['scrollWidth']} px wide at 390 px"
        )
        result = page.evaluate(TEXT_ALTERNATIVES_JS)
        assert result["images"] == [], f"images without a meaningful alt: {result['images']}"
        assert result["drawings"] == [], (
            f"drawings without a text alternative: {result['drawings']}"
        )
    finally:
        page.close()


def _wait_for_drawings(page) -> None:
    """Explorers and bertviz views draw after the load event."""
    html = page.content()
    if "application/vnd.jupyter.widget-state+json" in html:
        page.wait_for_selector(".attnbook-explorer svg, .attnbook-explorer canvas", timeout=30_000)
    for view in page.locator("div[id^='bertviz-']").all():
        view.locator("svg").first.wait_for(timeout=20_000)


def _check_explorers(page) -> None:
    """Every explorer redraws after each of its sliders and pickers changes."""
    if "application/vnd.jupyter.widget-state+json" not in page.content():
        return
    page.wait_for_selector(".attnbook-explorer svg", timeout=30_000)
    explorers = page.locator(".attnbook-explorer").all()
    assert explorers, "the page has widget state but no explorer rendered"
    for explorer in explorers:
        load = explorer.locator("button.attnbook-translator-load")  # a model run on request
        if load.count():
            load.click()
            explorer.locator("input[type=range]:enabled").first.wait_for(timeout=20_000)
        for slider in explorer.locator("input[type=range]").all():
            before = explorer.locator("svg").first.inner_html()
            low, high = float(slider.get_attribute("min")), float(slider.get_attribute("max"))
            current = float(slider.input_value())
            target = low if current - low > high - current else high
            slider.fill(str(target))  # sets the value and fires `input`
            after = explorer.locator("svg").first.inner_html()
            assert after != before, "explorer did not redraw after its slider moved"
        for picker in explorer.locator("select").all():
            options = picker.locator("option").all()
            if len(options) < 2:
                continue
            before = explorer.locator("svg").first.inner_html()
            current = picker.input_value()
            other = next(
                o.get_attribute("value") for o in options if o.get_attribute("value") != current
            )
            picker.select_option(other)
            after = explorer.locator("svg").first.inner_html()
            assert after != before, "explorer did not redraw after its picker changed"


def test_every_page_checked():
    """The page list is not empty and contains every chapter of the table of contents."""
    chapters = sorted(p.stem for p in (ROOT / "notebooks").glob("*.ipynb"))
    built = {Path(p).stem for p in PAGES}
    if "ATTNBOOK_SITE" in os.environ:  # a partial build of some chapters
        chapters = [c for c in chapters if c in built]
    assert chapters and set(chapters) <= built, f"chapters missing from the site: {chapters}"
