"""What every browser check shares: Debian's Chromium and its flags, a static server, one
recorded page visit, and the layout probes run in pages.

Used by ``conftest.py`` (the session's one Chromium and server) and by the benchmarks
(``benchmarks/page_weight.py`` and the scripts that import it), so tests and benchmarks
start the same browser the same way. Not a test module: pytest collects nothing here.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import os
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parent.parent
#: The built book the site checks open (``make book``; ``$ATTNBOOK_SITE`` for another build).
SITE = Path(os.environ.get("ATTNBOOK_SITE", ROOT / "_build" / "html"))
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
# Quiet on a closed network: no background requests, no update checks, no QUIC.
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def site_pages(site: Path = SITE) -> list[str]:
    """The built site's pages (paths relative to it), or [] before `make book`."""
    if not (site / "index.html").is_file():
        return []
    skip = {"_static", "_sources", "_images", "reports", "_panels_static"}
    return sorted(
        str(p.relative_to(site))
        for p in site.rglob("*.html")
        if not skip.intersection(p.relative_to(site).parts)
    )


def missing() -> str | None:
    """Why no browser can start here, or None."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright for Python is not installed (requirements.txt installs it)"
    if not Path(CHROMIUM).exists():
        return "chromium is not installed: `make browser` installs Debian's package"
    return None


def launch(playwright):
    """Headless Chromium with the flags above, from a started ``sync_playwright()``."""
    return playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:  # keep pytest's output readable
        pass


@contextlib.contextmanager
def serve(folder: Path | str) -> Iterator[str]:
    """Serve ``folder`` on 127.0.0.1 (a free port) while the block runs; yields its URL."""
    handler = functools.partial(_Quiet, directory=str(folder))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


class PageVisit:
    """One page load with its console errors and network traffic recorded."""

    def __init__(
        self, browser, base: str, path: str, width: int = 1280, theme: str | None = None
    ) -> None:
        self.host = urlparse(base).netloc
        self.errors: list[str] = []
        self.failed: list[str] = []
        self.foreign: list[str] = []
        self.scripts: list[str] = []
        self.page = browser.new_page(viewport={"width": width, "height": 900})
        if theme:  # the theme's own switch, stored before its script reads it
            self.page.add_init_script(
                f"localStorage.setItem('mode', '{theme}'); localStorage.setItem('theme', '{theme}')"
            )
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

    def close(self) -> None:
        self.page.close()


# Elements wider than the screen, unless inside a box that scrolls sideways (code blocks,
# tables, bertviz's model view): clipped content counts as too wide, as it is cut off.
# Visually hidden text for screen readers (clipped to 1 px) is left out.
TOO_WIDE_JS = r"""
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

# An alt text that is a file name or path, or a hash, says nothing about the image.
TEXT_ALTERNATIVES_JS = r"""
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
    // a decorative mark hidden from screen readers beside its words (a legend's swatch)
    if (d.closest("[aria-hidden='true']")) continue;
    const root = d.closest(".attnbook-explorer, .attnbook-bertviz");
    if (!named(d) && !named(root)) {
      drawings.push(`${d.tagName.toLowerCase()} in .${root ? [...root.classList].join(".") : "?"}`
        + ` in #${where(d)}`);
    }
  }
  return { images, drawings };
}
"""
