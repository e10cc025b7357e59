"""Every explorer in headless Chromium, with no book build.

Each explorer is built in Python (``explorer_cases``), and a tiny page imports its
bundled ``_esm`` with its ``_css`` and a minimal model (get, set, on, off, save_changes:
what the site's renderer and anywidget provide). At 1280 px, at 390 px (a phone), in dark
mode and on a Chinese page (390 px) the page must: render; say what to try and what to look
for; redraw on every slider (mouse and ArrowRight), picker, word button and toggle (mouse and
keys); keep keys pressed on its controls to itself; fit the screen; name in its legend every
colour its drawing uses; count heads and layers from 1; give its drawing a text alternative
that changes on redraw; announce the value each slider shows; log no error; and on the
Chinese page show and say no English word but the chapter's own data and the paper's symbols.

Set ATTNBOOK_SHOTS=<folder> to also save a screenshot of each explorer in each mode and
per explorer its slowest control's median redraw time and its text alternative
(``redraw_ms.json``) there.
"""

from __future__ import annotations

import json
import os
import re
import statistics
from pathlib import Path

import pytest
from explorer_cases import CASES, attention_inputs
from test_explorers import _words

from attnbook import viz

MODES = {  # viewport width, theme, the page's language
    "wide": (1280, "light", "en"),
    "phone": (390, "light", "en"),
    "dark": (390, "dark", "en"),
    "chinese": (390, "light", "zh-CN"),
}
SHOTS = os.environ.get("ATTNBOOK_SHOTS")
# traits whose values the explorer translates (they name options, not the chapter's data)
TRANSLATED = {"layout_name", "layout_params", "scaling", "table_layout", "task", "language"}

PAGE = """<!doctype html>
<html lang="{lang}"{theme}>
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


# The colours of the colour language (base.js COLOUR, SERIES) that the drawing shows and that
# its legend names; whether the drawing has colours of a scale (pixel images but a picture
# shown as it is, cells filled with a colour of their own) and whether the legend has a ramp
# or a swatch for them.
LEGEND = """() => {
  const root = document.querySelector(".attnbook-explorer");
  const shown = (el) => !el.closest("[visibility='hidden']")
    && getComputedStyle(el).visibility !== "hidden" && getComputedStyle(el).display !== "none";
  const role = (el) => [...el.classList].filter((c) => /^ae-(c\\d|off)$/.test(c));
  const roles = (scope) => [...new Set([...scope.querySelectorAll(".ae-fill, .ae-stroke")]
    .filter(shown).flatMap(role))].sort();
  const drawing = root.querySelector("svg.ae-drawing");
  const legend = root.querySelector(".ae-legend");
  const scaled = [...drawing.querySelectorAll("image:not(.ae-picture), rect[fill^='rgb']")]
    .some(shown);
  const swatches = [...legend.querySelectorAll(".ae-mark")].filter((m) =>
    !m.querySelector(".ae-fill, .ae-stroke")).length;
  return {
    drawn: roles(drawing),
    named: roles(legend),
    scaled,
    swatches,
    keys: [...legend.querySelectorAll(".ae-key")].map((k) => k.textContent.trim()),
  };
}"""

# Every text a reader sees or hears: the explorer's text, its options, its accessible names
# and values.
SHOWN_TEXT = """() => {
  const root = document.querySelector(".attnbook-explorer");
  const texts = [];
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) texts.push(walker.currentNode.textContent);
  for (const el of root.querySelectorAll("*")) {
    for (const name of ["aria-label", "aria-valuetext", "title", "placeholder"]) {
      if (el.getAttribute(name)) texts.push(el.getAttribute(name));
    }
  }
  return texts.join("\\n");
}"""

# The text of every control about heads or layers: options, toggles, the slider's values.
HEADS_AND_LAYERS = """() => {
  const out = [];
  for (const c of document.querySelectorAll(".attnbook-explorer .ae-control")) {
    const name = (c.querySelector("label, .ae-group-label")?.textContent || "").toLowerCase();
    if (!/head|layer|头|层/.test(name)) continue;
    out.push(...[...c.querySelectorAll("option, .ae-toggle label")].map((o) => o.textContent));
    const range = c.querySelector("input[type=range]");
    if (range) {
      range.value = range.min;
      range.dispatchEvent(new Event("input", { bubbles: true }));
      out.push(range.getAttribute("aria-valuetext"));
    }
  }
  return out;
}"""


def _data_words(widget) -> set[str]:
    """The English words of the chapter's data an explorer shows as given (tokens, labels,
    layer names), which a Chinese page shows too."""
    state = widget.get_state()
    words: set[str] = set()

    def walk(value) -> None:
        if isinstance(value, str):
            words.update(_words(value))
        elif isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, (list, tuple)):
            if value and all(isinstance(v, str) and len(v) <= 1 for v in value):
                words.update(_words("".join(value)))  # a text given character by character
            for v in value:
                walk(v)

    for key, value in state.items():
        if not key.startswith("_") and key not in TRANSLATED and key not in {"layout", "tooltip"}:
            walk(value)
    return words


def _write(folder: Path, name: str, widget) -> None:
    """The pages of one explorer: its module, its state, a page per theme and language."""
    state = {k: v for k, v in widget.get_state().items() if k not in ("_esm", "_css")}
    (folder / f"{name}.js").write_text(widget._esm, encoding="utf-8")
    (folder / f"{name}.json").write_text(json.dumps(state), encoding="utf-8")
    for _, theme, lang in MODES.values():
        attr = ' data-theme="dark"' if theme == "dark" else ""
        html = PAGE.format(name=name, css=widget._css, theme=attr, lang=lang)
        (folder / f"{name}-{theme}-{lang}.html").write_text(html, encoding="utf-8")


@pytest.fixture(scope="module")
def harness(tmp_path_factory, serve):
    """The pages, one per explorer, served on 127.0.0.1; and one of chapter 2's explorer
    with a task and a language of the chapter's choosing."""
    folder = tmp_path_factory.mktemp("explorers")
    for name, make in CASES.items():
        _write(folder, name, make())
    own = viz.AttentionExplorer(*attention_inputs(), task="Find the word “mat”.", language="zh")
    _write(folder, "attention_own", own)
    both = {"en": "Find the word “mat”.", "zh": "找到“mat”这个词。"}  # one task line per language
    _write(folder, "attention_both", viz.AttentionExplorer(*attention_inputs(), task=both))
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
    width, theme, lang = MODES[mode]
    page = browser.new_page(viewport={"width": width, "height": 900})
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda e: errors.append(f"pageerror: {e}"))
    page.goto(f"{harness}/{name}-{theme}-{lang}.html")
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


def _buttons(page) -> None:
    """Each word button redraws when pressed by the mouse, Enter or Space, and shows it."""
    buttons = page.locator(".attnbook-explorer .ae-button").all()
    for button in buttons[1:] + buttons[:1]:
        if button.get_attribute("aria-pressed") == "true":
            continue
        before = _drawing(page)
        button.click()
        assert button.get_attribute("aria-pressed") == "true"
        assert sum(b.get_attribute("aria-pressed") == "true" for b in buttons) == 1
        assert _drawing(page)[0] != before[0], "no redraw after a word button"
        assert _drawing(page)[1] != before[1], "the text alternative did not follow the redraw"
    for key, button in (("Enter", buttons[1]), (" ", buttons[2 % len(buttons)])):
        button.focus()
        before = _drawing(page)
        page.keyboard.press(key)
        assert button.get_attribute("aria-pressed") == "true", f"{key!r} did not press the word"
        assert _drawing(page)[0] != before[0], f"no redraw after {key!r} on a word"


def _toggles(page) -> None:
    """Each toggle redraws when switched by the mouse or Space; the last one on stays on."""
    boxes = page.locator(".attnbook-explorer .ae-toggle input[type=checkbox]").all()
    for box in boxes:
        before = _drawing(page)
        checked = box.is_checked()
        box.click()
        if checked and not any(b.is_checked() for b in boxes if b != box):
            assert box.is_checked(), "the last head kept was switched off"
            continue
        assert box.is_checked() != checked
        assert _drawing(page)[0] != before[0], "no redraw after a toggle"
    boxes[0].focus()
    before, checked = _drawing(page), boxes[0].is_checked()
    page.keyboard.press(" ")
    if boxes[0].is_checked() != checked:
        assert _drawing(page)[0] != before[0], "no redraw after Space on a toggle"
    for box in boxes:  # all on, then all off but the last: it stays on
        if not box.is_checked():
            box.click()
    for box in boxes:
        if box.is_checked():
            box.click()
    assert [b.is_checked() for b in boxes].count(True) == 1


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("name", list(CASES))
def test_explorer_in_the_browser(browser, harness, timings, name, mode):
    page, errors = _open(browser, harness, name, mode)
    chinese = MODES[mode][2].startswith("zh")
    try:
        root = page.locator(".attnbook-explorer")
        assert root.count() == 1 and root.locator("svg.ae-drawing").count() == 1
        assert root.get_attribute("data-lm-suppress-shortcuts") is not None
        assert page.locator(".attnbook-explorer svg > *").count() > 3, "nothing drawn"
        dark = "ae-dark" in (root.get_attribute("class") or "")
        assert dark == (MODES[mode][1] == "dark")
        background = root.evaluate("e => getComputedStyle(e).backgroundColor")
        assert (background == "rgb(255, 255, 255)") != dark, background

        task = root.locator(".ae-task")
        assert task.is_visible() and len(task.inner_text()) > (20 if chinese else 60), "no task"
        legend = page.evaluate(LEGEND)
        assert legend["keys"] and all(legend["keys"]), "no legend"
        assert set(legend["drawn"]) <= set(legend["named"]), f"colours not in the legend: {legend}"
        assert not legend["scaled"] or legend["swatches"], f"a scale not in the legend: {legend}"

        inner, text = _drawing(page)
        assert len(text) > (25 if chinese else 40), f"no real text alternative: {text!r}"
        timings.setdefault(name, {})["text alternative"] = text
        assert page.locator(".attnbook-explorer svg.ae-drawing").get_attribute("role") == "img"

        controls = root.locator("input, select").all()
        sliders = [c for c in controls if c.get_attribute("type") == "range"]
        boxes = [c for c in controls if c.get_attribute("type") == "checkbox"]
        pickers = [c for c in controls if c not in sliders + boxes and c.is_visible()]
        buttons = root.locator(".ae-button").all()
        assert sliders or pickers or buttons or boxes
        for control in sliders + pickers + boxes:
            assert control.evaluate("e => e.labels.length") == 1, "a control without a label"
        for group in root.locator("[role=group]").all():
            label = page.locator(f"#{group.get_attribute('aria-labelledby')}")
            assert label.inner_text().strip(), "a group of controls without a name"
        heads_and_layers = page.evaluate(HEADS_AND_LAYERS)
        numbered_0 = re.compile(r"^(heads? |头 |第 )?0(\D|$)", re.I)
        assert not [t for t in heads_and_layers if numbered_0.match(t)], heads_and_layers

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

        if buttons:
            _buttons(page)
        if boxes:
            _toggles(page)

        assert page.evaluate("window.leaked") == [], "keys escaped the explorer"
        assert page.evaluate("window.saved") > 0, "the model was never told"
        if mode != "wide":
            problems = page.evaluate(LAYOUT_PROBLEMS)
            assert problems == [], problems
        shown = page.evaluate(SHOWN_TEXT)
        assert not re.search(r"\{\w+\}", shown), "a placeholder left unfilled"
        if chinese:
            english = _words(shown) - _data_words(CASES[name]())
            assert not english, f"English on a Chinese page: {sorted(english)}"
        else:
            assert not re.search(r"\b(head|layer)s? 0\b", shown, re.I), "counted from 0"
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
        ("attention", "temperature", 10.0, 0, "1"),  # the slider holds log10 τ
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


def test_chapter_2_query_is_picked_by_a_word(browser, harness):
    """The words of the sentence are the query's buttons (no slider): a click on one, on its
    label in the drawing, or Enter on it makes it the query; the kernel's query follows."""
    page, errors = _open(browser, harness, "attention", "wide")
    try:
        root = page.locator(".attnbook-explorer")
        assert root.locator("input[type=range]").count() == 1  # τ only
        words = root.locator(".ae-buttons .ae-button")
        assert words.all_inner_texts() == ["the", "cat", "sat", "on", "the", "mat"]
        pressed = "[...document.querySelectorAll('.ae-button')].map((b) => b.ariaPressed)"
        assert page.evaluate(pressed) == ["false", "true", "false", "false", "false", "false"]
        assert "“cat”" in _drawing(page)[1]
        root.locator("svg.ae-drawing text", has_text="mat").first.click()  # the word in the drawing
        assert page.evaluate(pressed)[5] == "true" and "“mat”" in _drawing(page)[1]
        assert page.evaluate("window.model.get('query')") == 5
        words.nth(2).focus()
        page.keyboard.press("Enter")
        assert page.evaluate("window.model.get('query')") == 2 and "“sat”" in _drawing(page)[1]
        before, saved = _drawing(page), page.evaluate("window.saved")
        page.evaluate("window.model.set('query', 4)")  # from the kernel
        assert page.evaluate(pressed)[4] == "true" and _drawing(page) != before
        assert page.evaluate("window.saved") == saved
        legend = root.locator(".ae-legend").inner_text()
        assert "the query" in legend and "the largest weight" in legend
        assert errors == []
    finally:
        page.close()


def test_chapter_4_heads_are_switched_one_by_one(browser, harness):
    """One toggle per head, named from 1; each switches its head and redraws; the kernel's
    bit mask follows them and they follow it; the last head kept stays kept."""
    page, errors = _open(browser, harness, "heads", "wide")
    try:
        root = page.locator(".attnbook-explorer")
        assert root.locator("select").count() == 0  # no picker of subsets
        labels = root.locator(".ae-toggle label").all_inner_texts()
        assert labels == ["head 1", "head 2", "head 3", "head 4"]
        boxes = root.locator(".ae-toggle input").all()
        state = lambda: [b.is_checked() for b in boxes]  # noqa: E731
        assert state() == [True, False, False, False]  # heads=1: head 1 kept
        assert "keeping head 1," in root.locator(".ae-note").inner_text()
        boxes[2].click()
        assert page.evaluate("window.model.get('heads')") == 0b101
        assert "heads 1 + 3" in root.locator(".ae-note").inner_text()
        boxes[0].click()
        boxes[2].click()  # the last one kept: it stays
        assert state() == [False, False, True, False]
        assert page.evaluate("window.model.get('heads')") == 0b100
        before = _drawing(page)
        page.evaluate("window.model.set('heads', 15)")  # from the kernel: all heads
        assert state() == [True] * 4 and _drawing(page) != before
        assert "all 4 heads" in _drawing(page)[1]
        names = page.locator("svg.ae-drawing text").all_text_contents()
        assert "head 1" in names and "head 0" not in names
        assert errors == []
    finally:
        page.close()


def test_chinese_page_counts_heads_from_one(browser, harness):
    page, errors = _open(browser, harness, "heads", "chinese")
    try:
        root = page.locator(".attnbook-explorer")
        heads = root.locator(".ae-toggle label").all_inner_texts()
        assert heads == ["头 1", "头 2", "头 3", "头 4"]
        assert root.locator(".ae-task").inner_text().startswith("逐个开关注意力头")
        assert "。" in _drawing(page)[1]
        assert errors == []
    finally:
        page.close()


def test_a_chapters_task_and_language_win(browser, harness):
    """A chapter's own task line replaces the explorer's; its language ("zh" here, on an
    English page) picks the words."""
    page, errors = _open(browser, harness, "attention_own", "wide")
    try:
        root = page.locator(".attnbook-explorer")
        assert root.locator(".ae-task").inner_text() == "Find the word “mat”."
        assert root.locator(".ae-group-label").inner_text() == "查询"
        assert _drawing(page)[1].startswith("条形：")
        assert errors == []
    finally:
        page.close()


@pytest.mark.parametrize(
    ("mode", "task"), [("wide", "Find the word “mat”."), ("chinese", "找到“mat”这个词。")]
)
def test_a_chapters_task_in_each_language(browser, harness, mode, task):
    """A task line given per language: the page's language picks it."""
    page, errors = _open(browser, harness, "attention_both", mode)
    try:
        assert page.locator(".attnbook-explorer .ae-task").inner_text() == task
        assert errors == []
    finally:
        page.close()
