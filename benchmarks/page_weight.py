"""Page weight, load time and redraw time of every page of the built site.

Serves the built site (default ``_build/html``) on 127.0.0.1, opens every page in a
fresh headless Chromium context (a cold cache) and records:

- requests: every network request the page makes until the network is idle, after
  scrolling to the end so that every lazily loaded figure is fetched (the explorers'
  modules, imported from ``blob:`` URLs made in the page, are not requests);
- raw bytes: the bytes of every response as served from disk (not counting what a reader
  asks for later: a translator's model, fetched when its button is pressed);
- gzip bytes: what a static host that gzips text sends (HTML, CSS, JS, JSON, SVG and
  other text types compressed with gzip level 6; images and fonts as they are);
- load ms: the page's load event (Navigation Timing), localhost, cold cache;
- math ms: on pages with math, when MathJax has typeset it (the mark
  ``attnbook:math-typeset`` left by ``site/assets/attnbook/mathjax.js``, which starts MathJax
  after the load event);
- redraw ms: the slowest redraw over every explorer control, and over every bertviz
  picker, on the page: each value a slider or picker can take (at most 6 per slider) is set
  and its ``input``/``change`` events fired, five times over; the time counted is the
  script, style and layout work that follows, both synchronous and in the next animation
  frame (the wait for the frame itself is not counted), with the control scrolled into
  view as a reader's would be; the median of the five passes
  for each value, so that another process on the machine does not decide the result. A
  translator's model is loaded (its button pressed) before its controls are timed.

Writes the table to ``benchmarks/results/page_weight.md`` (or ``--out``). Not a test:
``tests/test_site.py`` checks correctness. Usage::

    .venv/bin/python benchmarks/page_weight.py [--site _build/html] [--out FILE]
"""

from __future__ import annotations

import argparse
import functools
import gzip
import http.server
import os
import statistics
import sys
import threading
from pathlib import Path
from urllib.parse import unquote, urlparse

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from browser import CHROMIUM, FLAGS  # noqa: E402 (the tests' browser set-up, in one place)

TEXT_SUFFIXES = {".html", ".css", ".js", ".mjs", ".json", ".svg", ".txt", ".map", ".xml", ".ico"}
SKIP = {"_static", "_sources", "_images", "reports", "_panels_static"}

# Runs in the page: time the slowest redraw over every control of every explorer and
# bertviz view. Busy time = synchronous handler work with a forced layout, plus the
# work done in the next animation frame before this frame callback ends.
REDRAW_JS = """
async () => {
  const ROUNDS = 5;
  const groups = {
    explorer: [...document.querySelectorAll(
      ".attnbook-explorer input[type=range], .attnbook-explorer select")],
    bertviz: [...document.querySelectorAll("div[id^='bertviz-'] select")],
  };
  const frame = () => new Promise((resolve) => requestAnimationFrame((ts) => {
    void document.body.offsetHeight;
    resolve(performance.now() - ts);
  }));
  function values(el) {
    if (el.tagName === "SELECT") return [...el.options].map((o) => o.value);
    const lo = +el.min, hi = +el.max, step = el.step === "any" ? 0 : +(el.step || 1);
    const n = step ? Math.min(5, Math.round((hi - lo) / step)) : 5;
    const out = [];
    for (let i = 0; i <= n; i++) {
      const v = lo + ((hi - lo) * i) / Math.max(n, 1);
      out.push(String(step ? lo + Math.round((v - lo) / step) * step : v));
    }
    return out;
  }
  async function redraw(el, v) {
    await frame();
    const t0 = performance.now();
    el.value = v;
    el.dispatchEvent(new Event("input", { bubbles: true }));
    el.dispatchEvent(new Event("change", { bubbles: true }));
    void document.body.offsetHeight;
    const sync = performance.now() - t0;
    return sync + (await frame());
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const result = { controls: 0 };
  for (const [name, controls] of Object.entries(groups)) {
    let slowest = null;
    for (const el of controls) {
      el.scrollIntoView({ block: "center" }); // a reader moves a control they see
      await frame();
      await frame();
      const original = el.value;
      const sequence = [...values(el), original].filter((v, i, a) => i === 0 || v !== a[i - 1]);
      const times = new Map();  // value -> its redraw times, over ROUNDS passes
      for (let round = 0; round < ROUNDS; round++) {
        for (const v of sequence) {
          if (v === el.value) continue;
          if (!times.has(v)) times.set(v, []);
          times.get(v).push(await redraw(el, v));
        }
      }
      for (const t of times.values()) slowest = Math.max(slowest ?? 0, median(t));
    }
    result[name] = slowest;
    result.controls += controls.length;
  }
  return result;
}
"""


class _Handler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass

    def handle(self) -> None:
        try:
            super().handle()
        except (BrokenPipeError, ConnectionResetError):  # the browser moved on
            pass


def pages(site: Path) -> list[str]:
    return sorted(
        str(p.relative_to(site))
        for p in site.rglob("*.html")
        if not SKIP.intersection(p.relative_to(site).parts)
    )


def served_bytes(site: Path, url: str) -> tuple[int, int]:
    """(raw, gzip) bytes of the file a site URL names."""
    path = site / unquote(urlparse(url).path).lstrip("/")
    if path.is_dir():
        path = path / "index.html"
    data = path.read_bytes()
    if path.suffix.lower() in TEXT_SUFFIXES:
        return len(data), len(gzip.compress(data, compresslevel=6, mtime=0))
    return len(data), len(data)


def measure(browser, base: str, site: Path, page_path: str) -> dict:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    urls: list[str] = []
    page.on("request", lambda r: urls.append(r.url))
    page.goto(f"{base}/{page_path}", wait_until="load")
    page.wait_for_load_state("networkidle")
    load_ms = page.evaluate(
        "() => { const n = performance.getEntriesByType('navigation')[0];"
        " return n.loadEventStart - n.startTime; }"
    )
    # figures load lazily: scroll to the end so that every one of them is counted
    height = page.evaluate("document.documentElement.scrollHeight")
    for y in range(0, height + 900, 900):
        page.evaluate(f"window.scrollTo(0, {y})")
        page.wait_for_timeout(50)
    page.wait_for_load_state("networkidle")
    page.evaluate("window.scrollTo(0, 0)")
    # explorers, bertviz views and MathJax finish drawing after the load event
    page.wait_for_timeout(1000)
    math_ms = None
    if page.locator("script[src*='mathjax']").count():
        page.wait_for_function(
            "performance.getEntriesByName('attnbook:math-typeset').length > 0", timeout=30_000
        )
        math_ms = page.evaluate(
            "performance.getEntriesByName('attnbook:math-typeset')[0].startTime"
        )
    loaded = list(urls)  # the page as it loads; what a reader asks for later is not counted
    # a translator waits for the reader to ask for its model: ask, so that its redraws are timed
    for button in page.locator(".attnbook-explorer button.attnbook-translator-load").all():
        button.click()
        page.wait_for_function(
            "() => [...document.querySelectorAll('.attnbook-translator .ae-message')]"
            ".every((m) => !m.textContent.startsWith('Loading'))"
        )
        page.wait_for_timeout(300)
    redraw = page.evaluate(REDRAW_JS)
    context.close()
    host = urlparse(base).netloc
    network = [u for u in loaded if urlparse(u).scheme in ("http", "https", "ws", "wss")]
    local = [u for u in network if urlparse(u).netloc == host]
    sizes = [served_bytes(site, u) for u in local]
    return {
        "page": page_path,
        "requests": len(network),
        "foreign": len(network) - len(local),
        "raw": sum(r for r, _ in sizes),
        "gzip": sum(g for _, g in sizes),
        "load_ms": load_ms,
        "math_ms": math_ms,
        "controls": redraw["controls"],
        "explorer_ms": redraw["explorer"],
        "bertviz_ms": redraw["bertviz"],
    }


def _shown(site: Path) -> str:
    try:
        return str(site.relative_to(ROOT))
    except ValueError:
        return site.name


def table(rows: list[dict], site: Path, load: tuple[float, float], note: str = "") -> str:
    kb = 1024
    lines = [
        "# Page weight, load time and redraw time",
        "",
        f"Written by `benchmarks/page_weight.py` from the built site in `{_shown(site)}`: every "
        "page opened cold (a fresh browser context) in headless Chromium on 127.0.0.1, "
        f"{os.cpu_count()} CPU cores, load average {load[0]:.1f} at the start and "
        f"{load[1]:.1f} at the end. Sizes are the sum over every request until the network is "
        "idle, lazily loaded figures included; gzip is what a static host that compresses text "
        "sends. Math: when MathJax, started after the load event, has typeset the page's math. "
        "Redraw: slowest explorer or bertviz control on the page (script, style and "
        "layout work from the input event to the next frame, median of five passes, in ms).",
        *(["", note] if note else []),
        "",
        "| page | requests | raw KB | gzip KB | load ms | math ms | controls "
        "| explorer redraw ms | bertviz redraw ms |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        explorer, bertviz = (
            "–" if r[k] is None else f"{r[k]:.1f}" for k in ("explorer_ms", "bertviz_ms")
        )
        math = "–" if r["math_ms"] is None else f"{r['math_ms']:.0f}"
        lines.append(
            f"| {r['page']} | {r['requests']} | {r['raw'] / kb:.0f} | {r['gzip'] / kb:.0f} "
            f"| {r['load_ms']:.0f} | {math} "
            f"| {r['controls']} | {explorer} | {bertviz} |"
        )
    chapters = [r for r in rows if r["page"].startswith("notebooks/")]
    prose = [r for r in rows if not r["page"].startswith("notebooks/")]
    lines.append("")
    for name, group in (("chapters", chapters), ("other pages", prose)):
        if group:
            heaviest = max(group, key=lambda r: r["gzip"])
            lines.append(
                f"- {name}: heaviest {heaviest['page']} at {heaviest['gzip'] / kb:.0f} KB gzip "
                f"({heaviest['requests']} requests); median "
                f"{statistics.median(r['gzip'] for r in group) / kb:.0f} KB gzip."
            )
    lines.append(f"- slowest load event: {max(r['load_ms'] for r in rows):.0f} ms.")
    maths = [r["math_ms"] for r in rows if r["math_ms"] is not None]
    if maths:
        lines.append(f"- math typeset on every page with math by {max(maths):.0f} ms.")
    for kind in ("explorer", "bertviz"):
        redraws = [r[f"{kind}_ms"] for r in rows if r[f"{kind}_ms"] is not None]
        if redraws:
            lines.append(f"- slowest {kind} redraw on any page: {max(redraws):.1f} ms.")
    lines.append(f"- requests to other hosts: {sum(r['foreign'] for r in rows)}.")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, default=ROOT / "_build" / "html")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks/results/page_weight.md")
    parser.add_argument("--note", default="", help="a sentence for the table's header")
    parser.add_argument("pages", nargs="*", help="only these pages (paths relative to the site)")
    args = parser.parse_args()
    site = args.site.resolve()
    if not (site / "index.html").is_file():
        parser.error(f"no built site in {site}: run `make book` first")

    from playwright.sync_api import sync_playwright

    handler = functools.partial(_Handler, directory=str(site))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{httpd.server_address[1]}"
    load_start = os.getloadavg()[0]
    rows = []
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
            for page_path in args.pages or pages(site):
                row = measure(browser, base, site, page_path)
                redraws = (
                    "–" if row[k] is None else f"{row[k]:.1f}"
                    for k in ("explorer_ms", "bertviz_ms")
                )
                print(
                    f"{row['page']:45s} {row['requests']:3d} req {row['gzip'] / 1024:7.0f} KB gz "
                    f"{row['load_ms']:6.0f} ms load  redraw (explorer, bertviz) ms: "
                    + ", ".join(redraws),
                    flush=True,
                )
                rows.append(row)
            browser.close()
    finally:
        httpd.shutdown()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    load = (load_start, os.getloadavg()[0])
    args.out.write_text(table(rows, site, load, args.note), encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
