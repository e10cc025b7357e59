"""The built site in a real browser (Debian's Chromium driven by Playwright).

Every page is served on 127.0.0.1 and opened headless. On every page: no console
errors, no failed requests, no request to any other host. Where a page has math,
MathJax has rendered it; every bertviz view has drawn its SVG; every explorer
redraws when its sliders move. Run after `make book` (``make test`` does both).
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

    def __init__(self, browser, base: str, path: str) -> None:
        self.host = urlparse(base).netloc
        self.errors: list[str] = []
        self.failed: list[str] = []
        self.foreign: list[str] = []
        self.page = browser.new_page(viewport={"width": 1280, "height": 900})
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda e: self.errors.append(f"pageerror: {e}"))
        self.page.on("requestfailed", lambda r: self.failed.append(f"{r.url} ({r.failure})"))
        self.page.on("response", self._response)
        self.page.on("request", self._request)
        self.page.goto(f"{base}/{path}", wait_until="load")
        self.page.wait_for_load_state("networkidle")

    def _console(self, msg) -> None:
        if msg.type == "error":
            self.errors.append(msg.text)

    def _request(self, request) -> None:
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
        for view in page.locator("div[id^='bertviz-']").all():
            view.locator("svg").first.wait_for(timeout=20_000)
            assert view.locator("svg text").count() > 0, "bertviz view drew no tokens"
        _check_explorers(page)
        page.wait_for_timeout(300)  # let late console messages arrive
        assert visit.foreign == [], f"requests to other hosts: {visit.foreign}"
        assert visit.failed == [], f"failed requests: {visit.failed}"
        assert visit.errors == [], f"console errors: {visit.errors}"
    finally:
        page.close()


def _check_explorers(page) -> None:
    """Every explorer redraws after each of its sliders and pickers changes."""
    if "application/vnd.jupyter.widget-state+json" not in page.content():
        return
    page.wait_for_selector(".attnbook-explorer svg", timeout=30_000)
    explorers = page.locator(".attnbook-explorer").all()
    assert explorers, "the page has widget state but no explorer rendered"
    for explorer in explorers:
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
