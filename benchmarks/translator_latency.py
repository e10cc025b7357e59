"""The translator explorer's speed in headless Chromium, its payload, and the Python model's
speed on the CPU for comparison.

A harness laid out as the book site serves it (``_static/attnbook-models/`` written by the
site's own extension) is served on 127.0.0.1 and opened in headless Chromium, with two pages:
the site's chapter page (the widget's saved state without the weights bytes, so the page
fetches them) and a notebook's (the widget carries its weights, as in Colab and JupyterLab).
It records, on each page:

- payload: the files a page with the translator loads for it (the model's manifest and
  weights, the explorer's module, which a chapter page holds in its widget state, and its
  stylesheet), raw and gzip (level 6, what a static host sends);
- load: from navigation start to the first translation in the page (a cold browser context
  each time: fetch the weights, check their sha256, read them, translate), median of runs;
- input → translation: a held-out date set into the text box and its ``input`` event fired;
  "shown" is the time until the event's handler has put the translation in the page (the
  encoder, the decoding, the heat map); "frame" adds style, layout and the paint of the next
  frame. Greedy decoding over some dates, then beam search (beam 4) over others: every date is
  new to the page (the page keeps the translations of texts it has read, so a date read again
  would cost only the drawing);
- Python: ``attnbook.translate`` of one date on the CPU (greedy, then beam 4), PyTorch with
  one thread, the same dates;
- parity: the largest difference between the page's logits and PyTorch's on the same
  weights, over 200 inputs (held-out dates and random strings), greedy steps and beam steps.

Writes ``benchmarks/results/translator_latency.md`` (or ``--out``). Not a test: the
translator's tests check correctness. Usage::

    .venv/bin/python benchmarks/translator_latency.py [--dates 40] [--loads 10]
"""

from __future__ import annotations

import argparse
import functools
import gzip
import http.server
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "site"))
import attnbook_models  # noqa: E402 (the site's extension, from site/)
from page_weight import CHROMIUM, FLAGS  # noqa: E402 (benchmarks/: one browser set-up)

from attnbook import translate, web  # noqa: E402
from attnbook.data import DATE_VOCAB, MAX_DATE_LEN, held_out_dates  # noqa: E402
from attnbook.recipes import load_date_model  # noqa: E402
from attnbook.viz import TranslatorExplorer  # noqa: E402
from attnbook.viz.explorers._base import JS  # noqa: E402

PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="attnbook-vendor" content="_static/attnbook-vendor/">
<title>translator</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="_static/attnbook-models/translator.css">
</head>
<body>
<main id="host"></main>
<script type="module">
import widget from "./_static/attnbook-models/translator.js";
const state = await (await fetch("./state.json")).json();
const handlers = {};
const model = {
  get: (key) => state[key],
  set(key, value) {
    const old = state[key];
    state[key] = value;
    if (old !== value) for (const f of handlers["change:" + key] ?? []) f();
  },
  on: (event, f) => (handlers[event] ??= []).push(f),
  off: (event, f) => { handlers[event] = (handlers[event] ?? []).filter((g) => g !== f); },
  save_changes() {},
};
if (state.weights_bytes) {
  const data = await (await fetch("./notebook-weights.bin")).arrayBuffer();
  state.weights = new DataView(data);
}
widget.render({ model, el: document.getElementById("host") });
</script>
</body>
</html>
"""

# Runs before the page's scripts: the time (ms since navigation start) of the first translation.
FIRST_TRANSLATION = """
new MutationObserver((_, observer) => {
  const out = document.querySelector('output[name="translation"]');
  if (out && out.textContent) {
    window.firstTranslation = performance.now();
    observer.disconnect();
  }
}).observe(document, { subtree: true, childList: true, characterData: true });
"""

# One input event, timed. The frame callback is asked for before the event, so that its
# timer runs before the explorer's own after-paint work (the other decoding).
TIME_INPUT = """async ([text]) => {
  const idle = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  await idle();
  await idle();
  const input = document.querySelector('input[name="source"]');
  const out = document.querySelector('output[name="translation"]');
  const t0 = performance.now();
  const painted = new Promise((resolve) => requestAnimationFrame(() => {
    const t1 = performance.now();
    setTimeout(() => resolve(performance.now() - t1), 0);
  }));
  input.value = text;
  input.dispatchEvent(new Event("input", { bubbles: true }));
  const shownText = out.textContent;
  const shown = performance.now() - t0;
  void document.body.offsetHeight;
  const layout = performance.now() - t0;
  const paint = await painted;
  return { shown, frame: layout + paint, text: shownText };
}"""


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


def harness(folder: Path) -> None:
    static = folder / "_static"
    (static / "attnbook-vendor").mkdir(parents=True)
    attnbook_models.write_site_models(static)
    state = TranslatorExplorer.for_date_model().get_state()
    saved = {"state": {"w": {"model_module": "anywidget", "state": state, "buffers": []}}}
    attnbook_models.strip_served_weights(saved, attnbook_models.served_weights())
    keep = {k: v for k, v in state.items() if k not in ("_esm", "_css", "weights")}
    # on the site the model waits for the reader's press; here it loads at once, so that the
    # time to the first translation is the press-to-translation time a reader waits
    keep["load"] = "now"
    (folder / "state.json").write_text(json.dumps(keep), encoding="utf-8")
    (folder / "site.html").write_text(PAGE, encoding="utf-8")
    # a notebook's widget: the same state with its weights bytes (a front end's DataView)
    (folder / "notebook-weights.bin").write_bytes(TranslatorExplorer.for_date_model().weights)
    notebook = {**keep, "weights_url": "", "weights_bytes": True}
    (folder / "notebook-state.json").write_text(json.dumps(notebook), encoding="utf-8")
    (folder / "notebook.html").write_text(
        PAGE.replace("./state.json", "./notebook-state.json"), encoding="utf-8"
    )


def payload(static: Path) -> list[tuple[str, int, int]]:
    models = static / web.SITE_MODELS
    files = [
        models / web.DATE_MODEL / web.MANIFEST,
        models / web.DATE_MODEL / web.WEIGHTS,
        models / "translator.js",
        models / "translator.css",
    ]
    rows = []
    for f in files:
        data = f.read_bytes()
        rows.append((str(f.relative_to(static)), len(data), len(gzip.compress(data, 6))))
    return rows


def browser_times(url: str, texts: dict[str, list[str]], warm_up: list[str], loads: int) -> dict:
    """On the page at ``url``: ``loads`` cold loads, then each decoding over its own texts
    (``texts["greedy"]``, ``texts["beam"]``), after ``warm_up`` texts in that decoding."""
    from playwright.sync_api import sync_playwright

    out: dict = {"load": [], "greedy": [], "beam": [], "version": ""}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        out["version"] = browser.version
        for _ in range(loads):
            context = browser.new_context()
            context.add_init_script(FIRST_TRANSLATION)
            page = context.new_page()
            page.goto(url)
            page.wait_for_function("window.firstTranslation !== undefined", timeout=30_000)
            out["load"].append(page.evaluate("window.firstTranslation"))
            context.close()
        page = browser.new_page()
        page.goto(url)
        page.wait_for_function("window.document.querySelector('output')?.textContent")
        for mode in ("greedy", "beam"):
            page.locator(".attnbook-translator select").first.select_option(
                index=0 if mode == "greedy" else 1
            )
            for text in warm_up:  # warm up the engine (texts of their own: none is read twice)
                page.evaluate(TIME_INPUT, [text])
            out[mode] = [page.evaluate(TIME_INPUT, [text]) for text in texts[mode]]
        browser.close()
    return out


def python_times(texts: dict[str, list[str]]) -> dict:
    model = load_date_model()
    times: dict = {"greedy": [], "beam": [], "outputs": {}}
    for mode, beam in (("greedy", None), ("beam", 4)):
        translate(model, texts[mode][:5], DATE_VOCAB, beam_size=beam)  # warm up
        outputs = []
        for text in texts[mode]:
            t0 = time.perf_counter()
            (result,) = translate(model, [text], DATE_VOCAB, beam_size=beam)
            times[mode].append(1000 * (time.perf_counter() - t0))
            outputs.append(result)
        times["outputs"][mode] = outputs
    return times


def parity(folder: Path) -> dict:
    """Largest |logit_JS − logit_PyTorch| over 200 inputs, greedy and beam steps."""
    model = web.load(folder).model
    rng = random.Random(7)
    texts = [s for s, _, _ in held_out_dates(150, seed=41)]
    while len(texts) < 200:  # random strings over the vocabulary (a blank one is no input)
        text = "".join(rng.choices(DATE_VOCAB.chars, k=rng.randint(1, MAX_DATE_LEN)))
        texts += [text] if text.strip() else []
    request = {
        "module": str(JS / "transformer.js"),
        "manifest": str(folder / web.MANIFEST),
        "cases": [{"text": t} for t in texts],
        "max_len": 12,
        "beam_size": 4,
        "alpha": 0.6,
    }
    runner = ROOT / "tests" / "js" / "translator.mjs"
    out = subprocess.run(
        ["node", str(runner)], input=json.dumps(request), capture_output=True, text=True, check=True
    )
    worst, steps = 0.0, 0
    results = json.loads(out.stdout)
    for js in results:
        for kind in ("greedy", "beam"):
            ids = js[kind]["ids"]
            prefix = [DATE_VOCAB.bos_id, *ids[:-1]]
            with torch.no_grad():
                logits, _ = model(torch.tensor([js["ids"]]), torch.tensor([prefix]))
            diff = torch.tensor(js[kind]["logits"], dtype=torch.double) - logits[0].double()
            worst = max(worst, diff.abs().max().item())
            steps += len(ids)
    return {"inputs": len(results), "steps": steps, "worst": worst}


def median(values: list[float]) -> float:
    return statistics.median(values)


def p90(values: list[float]) -> float:
    return statistics.quantiles(values, n=10)[-1] if len(values) > 1 else values[0]


def table(rows: list[list[str]], header: list[str]) -> str:
    lines = [
        "| " + " | ".join(header) + " |",
        "|" + "|".join(["---"] + ["---:"] * (len(header) - 1)) + "|",
    ]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


PAGES = {"site": "the site's chapter page", "notebook": "a notebook's widget"}
BUDGETS = {"greedy": 10, "beam": 40}  # ms from the input event to the translation shown


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dates", type=int, default=40, help="held-out dates typed per mode")
    parser.add_argument("--loads", type=int, default=10, help="cold page loads")
    parser.add_argument(
        "--out", type=Path, default=ROOT / "benchmarks/results/translator_latency.md"
    )
    args = parser.parse_args()
    torch.set_num_threads(1)
    load_start = os.getloadavg()[0]
    n = args.dates
    drawn = [s for s, _, _ in held_out_dates(2 * n + 5, seed=40)]
    warm_up, texts = drawn[:5], {"greedy": drawn[5 : 5 + n], "beam": drawn[5 + n :]}
    page = {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        harness(folder)
        sizes = payload(folder / "_static")
        httpd = http.server.ThreadingHTTPServer(
            ("127.0.0.1", 0), functools.partial(_Quiet, directory=str(folder))
        )
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        try:
            for name in PAGES:
                url = f"http://127.0.0.1:{httpd.server_address[1]}/{name}.html"
                page[name] = browser_times(url, texts, warm_up, args.loads)
        finally:
            httpd.shutdown()
        py = python_times(texts)
        agree = {
            (name, mode): sum(r["text"] == o for r, o in zip(page[name][mode], py["outputs"][mode]))
            for name in PAGES
            for mode in ("greedy", "beam")
        }
        exact = parity(folder / "_static" / web.SITE_MODELS / web.DATE_MODEL)
    load_end = os.getloadavg()[0]

    raw, packed = sum(s[1] for s in sizes), sum(s[2] for s in sizes)
    size_rows = [[f"`{name}`", f"{r / 1000:.1f}", f"{g / 1000:.1f}"] for name, r, g in sizes]
    size_rows.append(["**total**", f"**{raw / 1000:.1f}**", f"**{packed / 1000:.1f}**"])
    speed_rows = []
    for name, where in PAGES.items():
        for mode, decoding in (("greedy", "greedy"), ("beam", "beam search (4)")):
            shown = [r["shown"] for r in page[name][mode]]
            frame = [r["frame"] for r in page[name][mode]]
            speed_rows.append(
                [where, decoding, f"{median(shown):.1f}", f"{p90(shown):.1f}",
                 f"{median(frame):.1f}", f"{BUDGETS[mode]}", f"{median(py[mode]):.1f}",
                 f"{agree[name, mode]}/{n}"]
            )  # fmt: skip
    header = [
        "page", "decoding", "shown (median)", "shown (p90)", "frame (median)", "budget",
        "Python `translate` (median)", "page = Python",
    ]  # fmt: skip
    load_lines = "\n".join(
        f"- {where}: median {median(page[name]['load']):.0f} ms, slowest "
        f"{max(page[name]['load']):.0f} ms"
        for name, where in PAGES.items()
    )
    text = f"""# The translator in the browser: latency, payload, parity

Written by `benchmarks/translator_latency.py`: the shipped date model in headless Chromium
{page["site"]["version"]} on 127.0.0.1 (a harness laid out as the book site: the chapter page
fetches the weights, the notebook's widget carries them), {os.cpu_count()} CPU cores shared with
other work, load average {load_start:.1f} at the start and {load_end:.1f} at the end; Python
{platform.python_version()}, PyTorch {torch.__version__} on the CPU with 1 thread. Times in ms,
over {n} held-out dates per decoding, each new to the page (medians, and the 90th percentile).

## Input event to translation

{table(speed_rows, header)}

"shown": the input event's handler has put the translation (and the heat map) in the page;
"frame": plus style, layout and the paint of the next frame. The other decoding of the
comparison line runs after that paint and is not counted.

## Page load to first translation

Over {args.loads} cold loads each (the chapter page fetches the weights and checks their
sha256; both read them and translate the first date; budget 1000 ms):

{load_lines}

## Payload

{table(size_rows, ["file (under `_static/`)", "raw KB", "gzip KB"])}

On a chapter page the module arrives inside the page's saved widget state rather than as a file
(the same bytes); the weights are fetched once per page. Budget: 600 KB gzip.

## Parity

Largest |logit difference| between the page's forward pass and PyTorch's on the same weights:
{exact["worst"]:.2e}, over {exact["inputs"]} inputs (150 held-out dates, 50 random strings over the
vocabulary) and {exact["steps"]} decoding steps (greedy and beam search).
"""
    args.out.write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
