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

import functools
import http.server
import os
import shutil
import threading
from pathlib import Path
from urllib.parse import urlparse

import pytest

ROOT = Path(__file__).resolve().parent.parent
SITE = Path(os.environ.get("ATTNBOOK_SITE", ROOT / "_build" / "html"))
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
QUIET_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _pages() -> list[str]:
    if not (SITE / "index.html").is_file():
        return []
    skip = {"_static", "_sources", "_images", "reports", "_panels_static"}
    return sorted(
        str(p.relative_to(SITE))
        for p in SITE.rglob("*.html")
        if not skip.intersection(p.relative_to(SITE).parts)
    )


PAGES = _pages()


@pytest.fixture(scope="module")
def server():
    if not PAGES:
        pytest.fail("no built site in _build/html: run `make book` first")
    handler = functools.partial(_QuietHandler, directory=str(SITE))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:  # keep pytest's output readable
        pass


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        pytest.fail("chromium is not installed: `make browser` installs Debian's package")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=QUIET_FLAGS)
        yield b
        b.close()


class PageVisit:
    """One page load with its console errors and network traffic recorded."""

    def __init__(self, browser, base: str, path: str, width: int = 1280) -> None:
        self.host = urlparse(base).netloc
        self.errors: list[str] = []
        self.failed: list[str] = []
        self.foreign: list[str] = []
        self.scripts: list[str] = []
        self.page = browser.new_page(viewport={"width": width, "height": 900})
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda e: self.errors.append(f"pageerror: {e}"))
        self.page.on("requestfailed", lambda r: self.failed.append(f"{r.url} ({r.failure})"))
        self.page.on("response", self._response)
        self.page.on("request", self._request)
        self.page.goto(f"{base}/{path}", wait_until="load")
        self.page.wait_for_load_state("networkidle")

    def _console(self, msg) -> None:
        if msg.type in ("error", "warning"):
            self.errors.append(f"{msg.type}: {msg.text}")

    def _request(self, request) -> None:
        if request.resource_type == "script":
            self.scripts.append(request.url)
        url = urlparse(request.url)
        if url.scheme in ("http", "https", "ws", "wss") and url.netloc != self.host:
            self.foreign.append(request.url)

    def _response(self, response) -> None:
        if response.status >= 400:
            self.failed.append(f"{response.url} (HTTP {response.status})")


@pytest.mark.parametrize("path", PAGES)
def test_page_loads_cleanly(server, browser, path):
    visit = PageVisit(browser, server, path)
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


# Elements wider than the screen, unless inside a box that scrolls sideways (code blocks,
# tables, bertviz's model view): clipped content counts as too wide, as it is cut off.
# Visually hidden text for screen readers (clipped to 1 px) is left out.
_TOO_WIDE_JS = r"""
() => {
  const vw = document.documentElement.clientWidth;
  const inScrollBox = (el) => {
    for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
      const x = getComputedStyle(a).overflowX;
      if ((x === "auto" || x === "scroll") && a.getBoundingClientRect().right <= vw + 1) {
        return true;
      }
    }
    return false;
  };
  const clipped = (el) => {
    for (let a = el; a && a !== document.body; a = a.parentElement) {
      const c = getComputedStyle(a);
      if (c.clip !== "auto" || (c.clipPath !== "none" && c.position === "absolute")) return true;
    }
    return false;
  };
  const name = (el) => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "")
    + [...el.classList].map((c) => "." + c).join("");
  const wide = [];
  for (const el of document.body.querySelectorAll("*")) {
    if (wide.some((w) => w.contains(el))) continue;
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0 || (r.right <= vw + 1 && r.left >= -1)) continue;
    const s = getComputedStyle(el);
    if (s.visibility === "hidden" || s.position === "fixed") continue;
    if (el.closest("[hidden], dialog:not([open])") || clipped(el) || inScrollBox(el)) continue;
    wide.push(el);
  }
  return {
    scrollWidth: document.documentElement.scrollWidth,
    clientWidth: vw,
    wide: wide.map((el) => `${name(el)} (in ${name(el.parentElement)}, `
      + `${Math.round(el.getBoundingClientRect().width)} px)`),
  };
}
"""


@pytest.mark.parametrize("path", PAGES)
def test_page_fits_a_phone(server, browser, path):
    """At 390 px no element is wider than the screen and the page does not scroll sideways."""
    visit = PageVisit(browser, server, path, width=390)
    page = visit.page
    try:
        _wait_for_drawings(page)
        result = page.evaluate(_TOO_WIDE_JS)
        assert result["wide"] == [], f"wider than a 390 px screen: {result['wide']}"
        assert result["scrollWidth"] <= result["clientWidth"], (
            f"the page scrolls sideways: {result['scrollWidth']} px wide at 390 px"
        )
    finally:
        page.close()


# An alt text that is a file name or path, or a hash, says nothing about the image.
_TEXT_ALTERNATIVES_JS = r"""
() => {
  const isFileName = (alt) => /\.(png|jpe?g|gif|svg|webp|avif)$/i.test(alt)
    || /(^|\/)_(images|static)\//.test(alt) || /^[0-9a-f]{32,}$/i.test(alt);
  const textOf = (ids) => ids.split(/\s+/)
    .map((id) => document.getElementById(id)?.textContent.trim() || "").join(" ").trim();
  const named = (el) => {
    if (!el) return false;
    if ((el.getAttribute("aria-label") || "").trim()) return true;
    for (const attr of ["aria-labelledby", "aria-describedby"]) {
      const ids = el.getAttribute(attr);
      if (ids && textOf(ids)) return true;
    }
    const title = el.tagName.toLowerCase() === "svg" && el.querySelector(":scope > title");
    return Boolean(title && title.textContent.trim());
  };
  const where = (el) => el.closest("section[id], [id]")?.id || "";
  const images = [];
  for (const img of document.querySelectorAll("img")) {
    if (img.closest("[hidden], template")) continue;
    const alt = img.getAttribute("alt");
    const src = img.getAttribute("src") || "";
    const inArticle = Boolean(img.closest("article"));
    if (alt === null || (inArticle && !alt.trim()) || isFileName(alt.trim()) || alt === src) {
      images.push(`<img src="${src.split("/").pop()}" alt="${alt}"> in #${where(img)}`);
    }
  }
  const drawings = [];
  const selector = ".attnbook-explorer svg, .attnbook-explorer canvas, div[id^='bertviz-'] svg";
  for (const d of document.querySelectorAll(selector)) {
    if (d.parentElement.closest("svg")) continue;  // a drawing inside a drawing
    const root = d.closest(".attnbook-explorer, .attnbook-bertviz");
    if (!named(d) && !named(root)) {
      drawings.push(`${d.tagName.toLowerCase()} in .${root ? [...root.classList].join(".") : "?"}`
        + ` in #${where(d)}`);
    }
  }
  return { images, drawings };
}
"""


@pytest.mark.parametrize("path", PAGES)
def test_images_and_drawings_have_text_alternatives(server, browser, path):
    """Every image has a meaningful alt text; every explorer or bertviz drawing a name.

    A drawing is named by its own ``aria-label``, ``aria-labelledby``,
    ``aria-describedby`` or SVG ``<title>``, or by the same on its explorer's root
    (``.attnbook-explorer``) or bertviz frame (``.attnbook-bertviz``). Images in the
    article need a non-empty alt; theme images outside it may be decorative (``alt=""``).
    """
    visit = PageVisit(browser, server, path)
    page = visit.page
    try:
        _wait_for_drawings(page)
        result = page.evaluate(_TEXT_ALTERNATIVES_JS)
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
