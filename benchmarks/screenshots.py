"""Screenshots of every chapter as a reader sees it, and a count of what should not be there.

Serves the built site (default ``_build/html``) on 127.0.0.1 and opens every chapter in
headless Chromium three ways: 1280 px wide in the light theme, 390 px wide (a phone) and
1280 px in the dark theme. Each view is saved as a full-page PNG in ``_build/screenshots/``
(not committed: look at them). On each page it counts:

- progress bars: tqdm bars (text or widget) visible on the page;
- glue lines: lines calling ``glue(`` in code a reader sees without unfolding it;
- build paths: outputs that print a path of the machine that built the site;
- too wide at 390 px: elements wider than the phone's screen (as ``tests/test_site.py``);
- unnamed drawings: explorer or bertviz drawings without a text alternative;
- file-name alt texts: images whose alt text is a file name, or missing.

Writes the counts to ``benchmarks/results/reader_view.md`` (or ``--out``). Not a test:
``tests/test_site.py`` fails on the last three. Usage::

    .venv/bin/python benchmarks/screenshots.py [--site _build/html] [--out FILE]
"""

from __future__ import annotations

import argparse
import functools
import http.server
import sys
import threading
from pathlib import Path

from page_weight import CHROMIUM, FLAGS, ROOT, pages

sys.path.insert(0, str(ROOT / "tests"))
from browser import TEXT_ALTERNATIVES_JS, TOO_WIDE_JS  # noqa: E402 (the tests' page probes)

VIEWS = {"1280": (1280, "light"), "390": (390, "light"), "dark": (1280, "dark")}

# Runs in the page: what a reader sees that is bookkeeping rather than teaching.
READER_JS = r"""
() => {
  const shown = (el) => el.getClientRects().length > 0
    && getComputedStyle(el).visibility !== "hidden" && !el.closest("details:not([open])");
  const outputs = [...document.querySelectorAll("article .cell_output, article .output")]
    .filter(shown);
  const bar = /\d+%\|[^|]*\|\s*\d+\/\d+/;
  const bars = outputs.filter((o) => bar.test(o.textContent)).length
    + [...document.querySelectorAll("article .widget-hprogress, article progress")]
      .filter(shown).length;
  const glue = [...document.querySelectorAll("article .cell_input pre")].filter(shown)
    .flatMap((pre) => pre.textContent.split("\n")).filter((l) => /\bglue\(/.test(l)).length;
  const path = /(\/tmp\/|\/home\/|\/work\/|site-packages|\/usr\/lib\/python)/;
  const paths = outputs.filter((o) => path.test(o.textContent)).length;
  return { bars, glue, paths };
}
"""


def serve(site: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args) -> None:
            pass

    httpd = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(Quiet, directory=str(site))
    )
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}"


def open_page(browser, url: str, width: int, scheme: str):
    """``url`` loaded at ``width`` px in the light or dark theme, its drawings done."""
    page = browser.new_page(viewport={"width": width, "height": 900}, color_scheme=scheme)
    page.add_init_script(f"localStorage.setItem('mode', '{scheme}');")  # the theme's switch
    page.goto(url, wait_until="load")
    page.wait_for_load_state("networkidle")
    if page.locator(".attnbook-explorer").count():
        page.wait_for_selector(".attnbook-explorer svg, .attnbook-explorer canvas", timeout=30_000)
    for view in page.locator("div[id^='bertviz-']").all():
        view.locator("svg").first.wait_for(timeout=20_000)
    # off-screen cells are skipped until scrolled near (site.css): a full-page picture
    # shows them all, as a reader scrolling through sees them
    page.add_style_tag(content=".bd-content div.cell { content-visibility: visible !important; }")
    # and every lazily loaded figure, which a reader's scrolling would fetch
    page.evaluate("for (const i of document.querySelectorAll('img')) i.loading = 'eager';")
    page.wait_for_function("[...document.images].every((i) => i.complete)", timeout=30_000)
    page.wait_for_timeout(300)
    return page


def visit(browser, base: str, path: str, shots: Path) -> dict:
    row: dict = {"page": path}
    for name, (width, scheme) in VIEWS.items():
        page = open_page(browser, f"{base}/{path}", width, scheme)
        try:
            if name == "1280":
                row.update(page.evaluate(READER_JS))
                alternatives = page.evaluate(TEXT_ALTERNATIVES_JS)
                row["drawings"] = len(alternatives["drawings"])
                row["images"] = len(alternatives["images"])
            if name == "390":
                row["wide"] = len(page.evaluate(TOO_WIDE_JS)["wide"])
            stem = path.replace("/", "_").removesuffix(".html")
            page.screenshot(path=str(shots / f"{stem}-{name}.png"), full_page=True)
        finally:
            page.close()
    return row


def table(rows: list[dict]) -> str:
    columns = [
        ("bars", "progress bars"),
        ("glue", "glue lines"),
        ("paths", "build paths"),
        ("wide", "too wide at 390 px"),
        ("drawings", "unnamed drawings"),
        ("images", "file-name alt texts"),
    ]
    lines = [
        "# What a reader sees",
        "",
        "Written by `benchmarks/screenshots.py` from the built site: every chapter at 1280 px, "
        "at 390 px and in the dark theme (screenshots in `_build/screenshots/`). Counts of "
        "what should not be on a page.",
        "",
        "| page | " + " | ".join(title for _, title in columns) + " |",
        "|---|" + "---:|" * len(columns),
    ]
    for row in rows:
        lines.append(f"| {row['page']} | " + " | ".join(str(row[k]) for k, _ in columns) + " |")
    totals = " | ".join(str(sum(row[k] for row in rows)) for k, _ in columns)
    lines.append(f"| **all chapters** | {totals} |")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--site", type=Path, default=ROOT / "_build" / "html")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks/results/reader_view.md")
    args = parser.parse_args()
    chapters = [p for p in pages(args.site) if p.startswith("notebooks/")]
    if not chapters:
        print(f"no chapters in {args.site}: run `make book` first", file=sys.stderr)
        return 1
    shots = args.site.parent / "screenshots"
    shots.mkdir(parents=True, exist_ok=True)
    from playwright.sync_api import sync_playwright

    httpd, base = serve(args.site)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
            rows = [visit(browser, base, path, shots) for path in chapters]
            browser.close()
    finally:
        httpd.shutdown()
    args.out.write_text(table(rows), encoding="utf-8")
    print(args.out.read_text(encoding="utf-8"))
    print(f"screenshots: {shots}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
