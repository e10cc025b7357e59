"""Every explorer in headless Chromium, with no book build.

Each explorer is built in Python (``explorer_cases``), and a tiny page imports its
bundled ``_esm`` with its ``_css`` and a minimal model (get, set, on, off, save_changes:
what the site's renderer and anywidget provide). At 1280 px, at 390 px (a phone) and in
dark mode the page must: render; redraw on every slider (mouse and ArrowRight) and picker;
keep keys pressed on its controls to itself; fit the screen; give its drawing a text
alternative that changes on redraw; announce the value each slider shows; log no error.

Set ATTNBOOK_SHOTS=<folder> to also save a screenshot of each explorer in each mode and
per explorer its slowest control's median redraw time and its text alternative
(``redraw_ms.json``) there.
"""

from __future__ import annotations

import json
import os
import statistics
from pathlib import Path

import pytest
from explorer_cases import CASES

MODES = {  # viewport width, theme
    "wide": (1280, "light"),
    "phone": (390, "light"),
    "dark": (390, "dark"),
}
SHOTS = os.environ.get("ATTNBOOK_SHOTS")

PAGE = """<!doctype html>
<html lang="en"{theme}>
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{name}</title>
<link rel="icon" href="data:,">
<style>
body {{ margin: 0; padding: 16px; font: 16px/1.5 sans-serif; }}
html[data-theme="dark"] body {{ background: #121416; color: #ced6dd; }}
</style>
<style>{css}</style>
</head>
<body>
<main id="host"></main>
<script type="module">
import widget from "./{name}.js";
const state = await (await fetch("./{name}.json")).json();
const handlers = {{}};
window.saved = 0;
window.leaked = [];
const model = {{
  get: (key) => state[key],
  set(key, value) {{
    const old = state[key];
    state[key] = value;
    if (JSON.stringify(old) !== JSON.stringify(value)) {{
      for (const callback of handlers["change:" + key] ?? []) callback();
    }}
  }},
  on: (event, callback) => (handlers[event] ??= []).push(callback),
  off: (event, callback) => {{
    handlers[event] = (handlers[event] ?? []).filter((c) => c !== callback);
  }},
  save_changes: () => window.saved++,
}};
window.model = model;
for (const type of ["keydown", "keyup", "keypress"]) {{
  document.addEventListener(type, (e) => window.leaked.push(type + " " + e.key));
}}
window.cleanup = widget.render({{ model, el: document.getElementById("host") }});
window.rendered = true;
</script>
</body>
</html>
"""

# How long a redraw takes: the input event, its handler, style and layout (forced by asking
# for a size), then the paint of the next frame (from that frame's requestAnimationFrame
# to the task after it). Their sum is the redraw's cost within a frame, without the wait
# for the frame itself.
TIME_REDRAW = """async ([index, value]) => {
  const control = document.querySelectorAll(".attnbook-explorer :is(input, select)")[index];
  const svg = document.querySelector(".attnbook-explorer svg");
  const t0 = performance.now();
  control.value = value;
  const type = control.tagName === "SELECT" ? "change" : "input";
  control.dispatchEvent(new Event(type, { bubbles: true }));
  svg.getBoundingClientRect();
  document.body.offsetHeight;
  const work = performance.now() - t0;
  const paint = await new Promise((resolve) => requestAnimationFrame(() => {
    const t1 = performance.now();
    setTimeout(() => resolve(performance.now() - t1), 0);
  }));
  return { work, frame: work + paint };
}"""

# Anything wider than the viewport, text smaller than 11 px as shown, text outside its SVG.
LAYOUT_PROBLEMS = """() => {
  const problems = [];
  const width = document.documentElement.clientWidth;
  if (document.documentElement.scrollWidth > width) {
    problems.push(`page scrolls sideways: ${document.documentElement.scrollWidth} > ${width}`);
  }
  const root = document.querySelector(".attnbook-explorer");
  for (const node of root.querySelectorAll("*")) {
    const box = node.getBoundingClientRect();
    if (box.width && box.right > width + 0.5) {
      problems.push(`${node.tagName} ends at ${box.right.toFixed(1)} px`);
    }
  }
  const svg = root.querySelector("svg");
  const frame = svg.getBoundingClientRect();
  const scale = svg.getScreenCTM().a;
  for (const text of svg.querySelectorAll("text")) {
    if (!text.textContent) continue;
    const shown = parseFloat(getComputedStyle(text).fontSize) * scale;
    if (shown < 11) problems.push(`"${text.textContent}" shown at ${shown.toFixed(1)} px`);
    const box = text.getBoundingClientRect();
    const outside = box.left < frame.left - 1 || box.right > frame.right + 1
      || box.top < frame.top - 1 || box.bottom > frame.bottom + 1;
    if (outside) problems.push(`"${text.textContent}" is cut off by the drawing's edge`);
  }
  return problems;
}"""


@pytest.fixture(scope="module")
def harness(tmp_path_factory, serve):
    """The pages, one per explorer, served on 127.0.0.1."""
    folder = tmp_path_factory.mktemp("explorers")
    for name, make in CASES.items():
        widget = make()
        state = {k: v for k, v in widget.get_state().items() if k not in ("_esm", "_css")}
        (folder / f"{name}.js").write_text(widget._esm, encoding="utf-8")
        (folder / f"{name}.json").write_text(json.dumps(state), encoding="utf-8")
        for theme in ("light", "dark"):
            attr = ' data-theme="dark"' if theme == "dark" else ""
            html = PAGE.format(name=name, css=widget._css, theme=attr)
            (folder / f"{name}-{theme}.html").write_text(html, encoding="utf-8")
    return serve(folder)


@pytest.fixture(scope="module")
def timings():
    slowest: dict[str, dict] = {}
    yield slowest
    if SHOTS and slowest:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        report = json.dumps(slowest, indent=1, ensure_ascii=False)
        (Path(SHOTS) / "redraw_ms.json").write_text(report, encoding="utf-8")


def _open(browser, harness: str, name: str, mode: str):
    width, theme = MODES[mode]
    page = browser.new_page(viewport={"width": width, "height": 900})
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda e: errors.append(f"pageerror: {e}"))
    page.goto(f"{harness}/{name}-{theme}.html")
    page.wait_for_function("window.rendered === true", timeout=10_000)
    return page, errors


def _drawing(page) -> tuple[str, str]:
    svg = page.locator(".attnbook-explorer svg").first
    return svg.inner_html(), svg.get_attribute("aria-label") or ""


def _slowest(slowest: dict, page, index: int, values: list[str]) -> dict:
    """The larger of ``slowest`` and the median redraw time of control ``index`` over ``values``."""
    times = [page.evaluate(TIME_REDRAW, [index, value]) for value in values]
    median = {k: statistics.median(t[k] for t in times) for k in slowest}
    return {k: max(slowest[k], median[k]) for k in slowest}


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("name", list(CASES))
def test_explorer_in_the_browser(browser, harness, timings, name, mode):
    page, errors = _open(browser, harness, name, mode)
    try:
        root = page.locator(".attnbook-explorer")
        assert root.count() == 1 and root.locator("svg").count() == 1
        assert root.get_attribute("data-lm-suppress-shortcuts") is not None
        assert page.locator(".attnbook-explorer svg > *").count() > 3, "nothing drawn"
        dark = "ae-dark" in (root.get_attribute("class") or "")
        assert dark == (MODES[mode][1] == "dark")
        background = root.evaluate("e => getComputedStyle(e).backgroundColor")
        assert (background == "rgb(255, 255, 255)") != dark, background

        inner, text = _drawing(page)
        assert len(text) > 40, f"no real text alternative: {text!r}"
        timings.setdefault(name, {})["text alternative"] = text
        assert page.locator(".attnbook-explorer svg").get_attribute("role") == "img"

        controls = root.locator("input, select").all()
        sliders = [c for c in controls if c.get_attribute("type") == "range"]
        pickers = [c for c in controls if c not in sliders and c.is_visible()]
        assert sliders or pickers
        for control in sliders + pickers:
            assert control.evaluate("e => e.labels.length") == 1, "a control without a label"

        slowest = {"work": 0.0, "frame": 0.0}
        for slider in sliders:
            assert slider.get_attribute("aria-valuetext"), "slider announces a bare position"
            low, high = slider.get_attribute("min"), slider.get_attribute("max")
            # the mouse (or a finger): drag to one end, then the other
            for value in (low, high):
                before = _drawing(page)
                slider.fill(value)
                after = _drawing(page)
                if before[0] == after[0]:  # already there
                    continue
                assert after[1] != before[1], "the text alternative did not follow the redraw"
            # the keyboard: from the low end, ArrowRight moves one step and redraws
            slider.fill(low)
            before, valuetext = _drawing(page), slider.get_attribute("aria-valuetext")
            slider.focus()
            page.keyboard.press("ArrowRight")
            assert float(slider.input_value()) > float(low), "ArrowRight did not move the slider"
            assert _drawing(page)[0] != before[0], "no redraw after ArrowRight"
            assert slider.get_attribute("aria-valuetext") != valuetext
            page.keyboard.press("d")
            page.keyboard.press("d")
            slowest = _slowest(slowest, page, controls.index(slider), [low, high] * 4)

        for picker in pickers:
            options = picker.locator("option").all()
            start = picker.input_value()
            for option in options + [o for o in options if o.get_attribute("value") == start]:
                value = option.get_attribute("value")
                if value == picker.input_value():
                    continue
                before = _drawing(page)
                picker.select_option(value)
                assert _drawing(page)[0] != before[0], "no redraw after the picker changed"
            picker.select_option(options[0].get_attribute("value"))
            picker.focus()
            before = _drawing(page)
            page.keyboard.press("ArrowDown")
            assert picker.input_value() == options[1].get_attribute("value")
            assert _drawing(page)[0] != before[0], "no redraw after ArrowDown on the picker"
            values = [o.get_attribute("value") for o in options[:2]] * 4
            slowest = _slowest(slowest, page, controls.index(picker), values)

        assert page.evaluate("window.leaked") == [], "keys escaped the explorer"
        assert page.evaluate("window.saved") > 0, "the model was never told"
        if mode != "wide":
            problems = page.evaluate(LAYOUT_PROBLEMS)
            assert problems == [], problems
        if SHOTS:
            Path(SHOTS).mkdir(parents=True, exist_ok=True)
            for slider in sliders:  # back to a middle position for the picture
                lo, hi = float(slider.get_attribute("min")), float(slider.get_attribute("max"))
                slider.fill(str(lo + (hi - lo) // 2 if lo.is_integer() else (lo + hi) / 2))
            root.screenshot(path=f"{SHOTS}/{name}-{mode}.png")
        timings[name][mode] = {k: round(v, 1) for k, v in slowest.items()}
        assert errors == [], errors
    finally:
        page.close()


def test_explorers_follow_the_theme(browser, harness):
    """The book's toggle (data-theme on <html>), JupyterLab's (<body>), the system setting."""
    page, errors = _open(browser, harness, "pe_heatmap", "wide")
    try:
        root = page.locator(".attnbook-explorer")
        light = _drawing(page)[0]
        page.evaluate("document.documentElement.dataset.theme = 'dark'")
        page.wait_for_function("document.querySelector('.attnbook-explorer.ae-dark')")
        assert _drawing(page)[0] != light, "the heat map kept its light colours"
        page.evaluate("document.documentElement.removeAttribute('data-theme')")
        page.evaluate("document.body.setAttribute('data-jp-theme-light', 'true')")
        page.wait_for_function("!document.querySelector('.attnbook-explorer.ae-dark')")
        assert _drawing(page)[0] == light
        page.evaluate("document.body.removeAttribute('data-jp-theme-light')")
        page.emulate_media(color_scheme="dark")
        page.wait_for_function("document.querySelector('.attnbook-explorer.ae-dark')")
        assert "ae-dark" in root.get_attribute("class")
        assert errors == []
    finally:
        page.close()


@pytest.mark.parametrize(
    ("name", "trait", "value", "control", "shown"),
    [
        ("attention", "query", 4, 0, "4"),
        ("schedule", "d_model", 1024, 0, "5"),  # d_model is picked by its index in d_models
        ("cross_attention", "head", 2, 2, "3"),  # option 3: head 3 (index 2)
    ],
)
def test_explorers_follow_their_traits(browser, harness, name, trait, value, control, shown):
    """A change made on the Python side (the kernel) moves the control and redraws."""
    page, errors = _open(browser, harness, name, "wide")
    try:
        before = _drawing(page)
        saved = page.evaluate("window.saved")
        page.evaluate(f"window.model.set({json.dumps(trait)}, {json.dumps(value)})")
        controls = page.locator(".attnbook-explorer :is(input, select)").all()
        assert controls[control].input_value() == shown
        assert _drawing(page) != before
        assert page.evaluate("window.saved") == saved  # nothing echoed back to the kernel
        page.evaluate("window.cleanup()")
        assert page.locator(".attnbook-explorer").count() == 0
        assert errors == []
    finally:
        page.close()
