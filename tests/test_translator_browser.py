"""The translator explorer in headless Chromium, on harness pages that need no book build.

The harness is laid out as the site serves it (``_static/attnbook-vendor/``, and
``_static/attnbook-models/`` written by the site's own extension, ``site/attnbook_models.py``):

- ``site.html``: the widget as a chapter page holds it, its saved state without the weights
  bytes (the site's build drops them), drawn by a renderer like the site's; the page fetches
  the weights;
- ``notebook.html``: the widget with its weights bytes and no site around it (Colab,
  JupyterLab);
- ``landing.html``: two ``<div class="attnbook-translator" data-model="dates">`` placeholders on
  a page without any widget state, and the module script the extension adds;
- ``site-zh.html``, ``landing-click-zh.html``: the same pages in Chinese (``lang="zh-CN"``).

Dates typed into the page must translate as the Python model translates them (greedy and
beam search), in every format the package reads and names in any letter case; while a date
is being typed the panel keeps its height and shows no error (the last translation stays),
and bad input is named as soon as no key can make it a date; the formats are examples to
press; a Chinese page speaks Chinese; a phone fits it and works it by touch; no console
errors, no request to another host, the weights fetched once per page. When the book
has been built (``make book``), the pages of the built site that carry the translator are
checked the same way; otherwise that test is skipped.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlparse

import pytest
from browser import SITE

from attnbook import web
from attnbook.data import DATE_FORMATS, DATE_VOCAB, MAX_DATE_LEN, held_out_dates

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "site"))
import attnbook_models  # noqa: E402 (the site's extension, imported from site/)

SHOTS = os.environ.get("ATTNBOOK_SHOTS")
SOURCE = 'input[name="source"]'
OUTPUT = 'output[name="translation"]'

HEAD = """<!doctype html>
<html lang="{lang}"{theme}>
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
{meta}
<title>translator</title>
<link rel="icon" href="data:,">
<style>
body {{ margin: 0; padding: 16px; font: 16px/1.5 sans-serif; }}
html[data-theme="dark"] body {{ background: #121416; color: #ced6dd; }}
</style>
<link rel="stylesheet" href="_static/attnbook-models/translator.css">
</head>
"""
META = '<meta name="attnbook-vendor" content="_static/attnbook-vendor/">'

# A widget page: its saved state drawn with a minimal model (what the site's renderer and
# anywidget provide); `bytes` puts the weights back as a DataView, as a front end hands them.
WIDGET_PAGE = """<body>
<main id="host"></main>
<script type="module">
import widget from "./_static/attnbook-models/translator.js";
const state = await (await fetch("./state.json")).json();
if ({bytes}) {{
  const data = await (await fetch("./notebook-weights.bin")).arrayBuffer();
  state.weights = new DataView(data);
}}
const handlers = {{}};
const model = {{
  get: (key) => state[key],
  set(key, value) {{
    const old = state[key];
    state[key] = value;
    if (old !== value) for (const f of handlers["change:" + key] ?? []) f();
  }},
  on: (event, f) => (handlers[event] ??= []).push(f),
  off: (event, f) => {{ handlers[event] = (handlers[event] ?? []).filter((g) => g !== f); }},
  save_changes: () => {{ window.saved = (window.saved ?? 0) + 1; }},
}};
window.model = model;
window.cleanup = widget.render({{ model, el: document.getElementById("host") }});
</script>
</body>
</html>
"""

CLICK_PAGE = """<body>
<h1>Attention, Explained</h1>
<div class="attnbook-translator" data-model="dates" data-load="click">Needs JavaScript.</div>
<script type="module">{script}</script>
</body>
</html>
"""

LANDING_PAGE = """<body>
<h1>Attention, Explained</h1>
<div class="attnbook-translator" data-model="dates">The live translator needs JavaScript.</div>
<p>Some text between the two.</p>
<div class="attnbook-translator" data-model="dates" data-source="Nov 3, 1999"></div>
<div class="attnbook-translator" data-model="nosuchmodel"></div>
<script type="module">{script}</script>
</body>
</html>
"""

# Time and check one input event: set the text, fire `input`, read the translation right away
# (no debounce: it must be there when the event handler returns).
TYPE_AND_READ = """([text]) => {
  const input = document.querySelector('input[name="source"]');
  input.value = text;
  input.dispatchEvent(new Event("input", { bubbles: true }));
  return document.querySelector('output[name="translation"]').textContent;
}"""


@pytest.fixture(scope="module")
def harness(tmp_path_factory, serve):
    from attnbook.viz import TranslatorExplorer

    folder = tmp_path_factory.mktemp("translator")
    static = folder / "_static"
    (static / "attnbook-vendor").mkdir(parents=True)
    attnbook_models.write_site_models(static)
    widget = TranslatorExplorer.for_date_model()
    state = widget.get_state()
    (folder / "notebook-weights.bin").write_bytes(state["weights"])
    # the chapter page's saved state, as the site's build leaves it: no weights bytes
    buffers = [{"path": ["weights"], "encoding": "base64", "data": "(the weights)"}]
    saved = {"state": {"w": {"model_module": "anywidget", "state": state, "buffers": buffers}}}
    assert attnbook_models.strip_served_weights(saved, attnbook_models.served_weights()) == ["w"]
    assert "weights" not in state and saved["state"]["w"]["buffers"] == []
    keep = {k: v for k, v in state.items() if k not in ("_esm", "_css")}
    (folder / "state.json").write_text(json.dumps(keep), encoding="utf-8")
    for theme in ("light", "dark"):
        attr = ' data-theme="dark"' if theme == "dark" else ""
        site = HEAD.format(lang="en", theme=attr, meta=META) + WIDGET_PAGE.format(bytes="false")
        (folder / f"site-{theme}.html").write_text(site, encoding="utf-8")
    site = HEAD.format(lang="zh-CN", theme="", meta=META) + WIDGET_PAGE.format(bytes="false")
    (folder / "site-zh.html").write_text(site, encoding="utf-8")
    notebook = HEAD.format(lang="en", theme="", meta="") + WIDGET_PAGE.format(bytes="true")
    (folder / "notebook.html").write_text(notebook, encoding="utf-8")
    script = attnbook_models.placeholder_script("_static/attnbook-models/translator.js")
    landing = HEAD.format(lang="en", theme="", meta=META) + LANDING_PAGE.format(script=script)
    (folder / "landing.html").write_text(landing, encoding="utf-8")
    script = attnbook_models.placeholder_script("_static/attnbook-models/translator.js", 444)
    for lang, name in (("en", "landing-click.html"), ("zh-CN", "landing-click-zh.html")):
        click = HEAD.format(lang=lang, theme="", meta=META) + CLICK_PAGE.format(script=script)
        (folder / name).write_text(click, encoding="utf-8")
    return serve(folder)


@pytest.fixture(scope="module")
def python_model():
    from attnbook.recipes import load_date_model

    return load_date_model()


def dates(n: int = 12, seed: int = 31) -> list[str]:
    return [s for s, _, _ in held_out_dates(n, seed=seed)]


class Visit:
    """A page with its console problems and requests recorded."""

    def __init__(self, browser, url: str, **context) -> None:
        self.host = urlparse(url).netloc
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.context = browser.new_context(**context)
        self.page = self.context.new_page()
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda e: self.errors.append(f"pageerror: {e}"))
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.goto(url)

    def _console(self, message) -> None:
        if message.type in ("error", "warning"):
            self.errors.append(f"{message.type}: {message.text}")

    def ready(self, root: str = "") -> None:
        """Ask for the model where the page waits for the reader (its button), then wait until
        it has loaded (the message line no longer says so)."""
        self.page.locator(f"{root} .attnbook-explorer".strip()).first.wait_for()
        button = self.page.locator(f"{root} .attnbook-explorer button.attnbook-translator-load")
        if button.count():
            button.first.click()
        self.page.wait_for_function(
            """(root) => {
              const box = document.querySelector(`${root} .attnbook-explorer .ae-message`);
              return box && !box.textContent.startsWith("Loading");
            }""",
            arg=root,
            timeout=20_000,
        )

    def foreign(self) -> list[str]:
        return [u for u in self.requests if urlparse(u).netloc not in ("", self.host)]

    def close(self) -> None:
        self.context.close()


def _typed(page, text: str, root: str = "") -> str:
    box = page.locator(f"{root} {SOURCE}".strip()).first
    box.fill("")
    box.press_sequentially(text)  # one input event per character, as a reader types
    return page.locator(f"{root} {OUTPUT}".strip()).first.text_content()


# ---------------------------------------------------------------- the site's page


def test_typed_dates_translate_as_in_python(browser, harness, python_model):
    from attnbook.decode import translate

    texts = dates()
    expected = translate(python_model, texts, DATE_VOCAB)
    visit = Visit(browser, f"{harness}/site-light.html")
    try:
        visit.ready()
        page = visit.page
        root = page.locator(".attnbook-translator")
        assert root.count() == 1 and "attnbook-explorer" in root.get_attribute("class")
        assert page.locator(f".attnbook-translator {SOURCE}").get_attribute("type") == "text"
        assert page.locator(".attnbook-translator .ae-source label").text_content() == "Type a date"
        assert (
            page.locator(OUTPUT).text_content()
            == translate(python_model, ["29 November 2026"], DATE_VOCAB)[0]
        )  # the first source, translated as soon as the model is in
        shown = [_typed(page, text) for text in texts]
        assert shown == expected
        # no debounce: the translation is in the page when the input event's handler returns
        assert [page.evaluate(TYPE_AND_READ, [t]) for t in texts[:4]] == expected[:4]
        assert page.evaluate("window.model.get('translation')") == expected[3]
        assert page.evaluate("window.model.get('source')") == texts[3]
        weights = [u for u in visit.requests if u.endswith("/weights.bin")]
        assert len(weights) == 1, weights  # fetched once
        assert visit.foreign() == [] and visit.errors == []
    finally:
        visit.close()


def test_beam_search_and_greedy_are_both_shown(browser, harness, python_model):
    from attnbook.decode import translate

    texts = dates(10, seed=32)
    beam = translate(python_model, texts, DATE_VOCAB, beam_size=4)
    greedy = translate(python_model, texts, DATE_VOCAB)
    visit = Visit(browser, f"{harness}/site-light.html")
    try:
        visit.ready()
        page = visit.page
        page.locator(".attnbook-translator select").first.select_option("1")  # beam search
        assert page.evaluate("window.model.get('decoding')") == "beam"
        assert [_typed(page, t) for t in texts] == beam
        rows = page.locator(".ae-compare .ae-row")
        page.wait_for_function("!document.querySelector('.ae-compare').textContent.includes('…')")
        assert rows.nth(0).locator(".ae-text").text_content() == greedy[-1]
        assert rows.nth(1).locator(".ae-text").text_content() == beam[-1]
        assert "ae-chosen" in rows.nth(1).get_attribute("class")
        for i in range(2):
            assert rows.nth(i).locator(".ae-logp").text_content().startswith("log P = −")
        assert visit.errors == []
    finally:
        visit.close()


def test_bad_input_is_named_in_the_page(browser, harness):
    visit = Visit(browser, f"{harness}/site-light.html")
    try:
        visit.ready()
        page = visit.page
        message = page.locator(".attnbook-translator .ae-message")
        assert _typed(page, "29 Novembér 2026") == ""
        assert message.text_content() == "'é' is not in the model's vocabulary."
        assert "ae-problem" in message.get_attribute("class")
        assert _typed(page, "ßé 2026") == ""
        assert message.text_content() == "'ß' and 'é' are not in the model's vocabulary."
        long = "Wednesday, 29 November 2026 and more"
        assert len(long) > MAX_DATE_LEN and _typed(page, long) == ""
        assert f"at most {MAX_DATE_LEN}" in message.text_content()
        assert _typed(page, "") == ""
        assert message.text_content() == "Type a date such as '29 November 2026'."
        assert page.locator(".attnbook-translator svg rect.ae-fill").count() == 0  # no map
        assert _typed(page, "1 May 2000") == "2000-05-01" and message.text_content() == ""
        assert visit.errors == []
    finally:
        visit.close()


def _sentence(message: str) -> str:
    """The package's message as the page shows it: a capital first letter, a full stop."""
    text = message[:1].upper() + message[1:]
    return text if text.endswith((".", "!", "?")) else text + "."


def test_unsupported_dates_are_refused_as_the_package_refuses_them(browser, harness):
    """Where the package checks dates (``parse_date``), the page says what it says."""
    from attnbook import web

    rule = web.date_input_rule()
    if rule is None:
        pytest.skip("the package checks dates only by character and length")
    from attnbook.data.dates import parse_date

    first, last = rule["first_year"], rule["last_year"]
    refused = [f"29 November {first - 1}", f"Nov 3, {last + 1}", "31 April 2001", "13/01/99"]
    visit = Visit(browser, f"{harness}/site-light.html")
    try:
        visit.ready()
        page = visit.page
        message = page.locator(".attnbook-translator .ae-message")
        for text in refused:
            with pytest.raises(ValueError) as error:
                parse_date(text)
            assert _typed(page, text) == "", text
            assert message.text_content() == _sentence(str(error.value))
            assert "ae-problem" in message.get_attribute("class")
        # a weekday that does not match: translated, and the package's note shown
        text = "Monday, 1 Jan 2023"
        note = parse_date(text).note
        assert note and _typed(page, text) != ""
        assert message.text_content() == _sentence(note)
        assert "ae-problem" not in message.get_attribute("class")
        assert visit.errors == []
    finally:
        visit.close()


# Every form the issue names, each format as its name writes it, names in other letter cases
FORMS = [
    "29 Nov 2026",
    "29 november 2026",
    "2026-11-29",
    "Thursday, 29 November 2026",
    "29 NOVEMBER 1850",
    "nov 3, 1999",
    "sunday, 12 jul 2098",
    "1999-12-31",
    "Wednesday, 27 September 2000",
    *DATE_FORMATS,
]


def test_every_form_translates_as_in_python(browser, harness, python_model):
    """Each form the package reads, typed key by key, gives the package's translation."""
    from attnbook.decode import translate

    texts = FORMS + [s for s, _, fmt in held_out_dates(60, seed=38) if fmt in NEW_FORMATS][:9]
    expected = translate(python_model, texts, DATE_VOCAB)
    visit = Visit(browser, f"{harness}/site-light.html")
    try:
        visit.ready()
        page = visit.page
        message = page.locator(".attnbook-translator .ae-message")
        shown, problems = [], []
        for text in texts:
            shown.append(_typed(page, text))
            if "ae-problem" in message.get_attribute("class"):
                problems.append((text, message.text_content()))
        assert shown == expected and problems == []
        assert visit.errors == []
    finally:
        visit.close()


NEW_FORMATS = ("29 Nov 2026", "2026-11-29", "Sunday, 29 November 2026")
PANEL_PROBE = """() => {
  const root = document.querySelector(".attnbook-explorer.attnbook-translator");
  const message = root.querySelector(".ae-message");
  return {
    height: root.getBoundingClientRect().height,
    message: message.textContent,
    problem: message.classList.contains("ae-problem"),
    output: root.querySelector('output[name="translation"]').textContent,
    cells: root.querySelectorAll("svg rect[fill]").length,
  };
}"""


@pytest.mark.parametrize("width", [1280, 390])
def test_typing_key_by_key_keeps_the_panel_still(browser, harness, width):
    """From an empty box to a whole date, key by key, in several formats: the panel's height
    never changes; no error shows while the text may still become a date, a quiet "Keep
    typing…" does; the last translation and its map stay until the next one."""
    from attnbook.data import date_prefix_status

    texts = [
        "29 November 1850",
        "Thursday, 29 November 2026",
        "2026-11-29",
        "11/29/26",
        "nov 3, 1999",
    ]
    visit = Visit(browser, f"{harness}/site-light.html", viewport={"width": width, "height": 900})
    try:
        visit.ready()
        page = visit.page
        box = page.locator(SOURCE)
        heights = set()
        for text in texts:
            box.fill("")
            heights.add(page.evaluate(PANEL_PROBE)["height"])
            for i in range(1, len(text) + 1):
                page.keyboard.type(text[i - 1])
                probe = page.evaluate(PANEL_PROBE)
                heights.add(probe["height"])
                status = date_prefix_status(text[:i])
                assert not probe["problem"], (text[:i], probe["message"])
                if status == "incomplete":
                    assert probe["message"] == "Keep typing…", text[:i]
                else:
                    assert status == "date" and probe["output"], text[:i]
        assert len(heights) == 1, heights
        # the last translation and its map stay while the next date is typed over it
        assert _typed(page, "29 November 1850") == "1850-11-29"
        cells = page.evaluate(PANEL_PROBE)["cells"]
        for _ in range(4):
            box.press("Backspace")
            probe = page.evaluate(PANEL_PROBE)
            assert probe["output"] == "1850-11-29" and probe["cells"] == cells
            assert probe["message"] == "Keep typing…" and probe["height"] in heights
        assert "ae-stale" in page.locator(OUTPUT).get_attribute("class")
        page.keyboard.type("2026")
        assert page.locator(OUTPUT).text_content() == "2026-11-29"
        assert "ae-stale" not in page.locator(OUTPUT).get_attribute("class")
        assert page.evaluate("window.model.get('translation')") == "2026-11-29"
        # an error as soon as no key can make the text a date, and only then
        typed = "29 Novembre 2026"
        box.fill("")
        for i in range(1, len(typed) + 1):
            page.keyboard.type(typed[i - 1])
            probe = page.evaluate(PANEL_PROBE)
            assert probe["problem"] == (date_prefix_status(typed[:i]) == "invalid"), typed[:i]
        assert probe["message"] == "'Novembre' is not a month; the months are " + (
            "January, February, March, April, May, June, July, August, September, October, "
            "November and December."
        )
        assert visit.errors == []
    finally:
        visit.close()


def test_the_formats_are_examples_to_press(browser, harness, python_model):
    """One example per format; pressing one puts it in the box and translates it."""
    from attnbook.decode import translate

    visit = Visit(browser, f"{harness}/site-light.html")
    try:
        visit.ready()
        page = visit.page
        chips = page.locator(".attnbook-translator .ae-examples button")
        assert [c.text_content() for c in chips.all()] == list(DATE_FORMATS)
        group = page.locator(".attnbook-translator .ae-examples")
        assert group.get_attribute("role") == "group" and group.get_attribute("aria-label")
        _typed(page, "29 Nov")  # a date on its way: pressing an example replaces it
        expected = translate(python_model, list(DATE_FORMATS), DATE_VOCAB)
        for chip, text, iso in zip(chips.all(), DATE_FORMATS, expected):
            chip.click()
            assert page.locator(SOURCE).input_value() == text
            assert page.locator(OUTPUT).text_content() == iso
            assert page.evaluate("window.model.get('source')") == text
        message = page.locator(".attnbook-translator .ae-message")
        _typed(page, "29 November, 2026")  # in no format: the message points to the examples
        assert message.text_content() == (
            "Not a date format the model reads; write it like one of the examples below."
        )
        assert visit.errors == []
    finally:
        visit.close()


def _zh(key: str, **params) -> str:
    """The Chinese string ``translator.<key>`` of the translator's table, its {names} filled."""
    from attnbook.viz.explorers.translator import translator_strings

    text = translator_strings()["zh"][f"translator.{key}"]
    for name, value in params.items():
        text = text.replace("{" + name + "}", str(value))
    return text


def test_a_chinese_page_speaks_chinese(browser, harness, python_model):
    """On a page whose language is zh-CN every label, button, legend, accessible name and
    message is the Chinese table's (the dates themselves are what the model reads)."""
    from attnbook.decode import translate

    manifest, _ = web.pack_date_model()
    kb = round(manifest["weights"]["bytes"] / 1024)
    visit = Visit(browser, f"{harness}/site-zh.html")
    try:
        page = visit.page
        button = page.locator(".attnbook-explorer button.attnbook-translator-load")
        button.wait_for()
        assert button.text_content() == _zh("button", kb=kb)
        visit.ready()
        root = page.locator(".attnbook-translator")
        assert root.locator(".ae-source label").text_content() == _zh("input.date")
        labels = [x.text_content() for x in root.locator(".ae-controls label").all()]
        assert labels == [_zh("decoding"), _zh("layer"), _zh("head"), _zh("step")]
        options = root.locator("select").first.locator("option").all_text_contents()
        assert options == [_zh("decoding.greedy"), _zh("decoding.beam", k=4)]
        heads = root.locator("select").nth(2).locator("option").all_text_contents()
        assert heads[:2] == [_zh("head.mean"), _zh("head.option", k=1)]
        assert root.locator(".ae-examples").get_attribute("aria-label") == _zh("examples.label")
        svg = root.locator("svg.ae-drawing")
        # the map is drawn after the first translation, which a busy machine delays
        page.wait_for_function(
            "() => document.querySelector('.attnbook-translator svg.ae-drawing text.ae-title')"
            "?.textContent.length > 0",
            timeout=30_000,
        )
        assert svg.locator("text.ae-title").text_content().startswith("交叉注意力，第 2 层")
        assert _zh("key.high") in svg.text_content() and _zh("axis.output") in svg.text_content()
        assert "交叉注意力热图" in svg.get_attribute("aria-label")
        assert root.locator(".ae-note").text_content().startswith("第 11 步写出 “⏎”")
        step = root.locator('input[type="range"]')
        assert step.get_attribute("aria-valuetext") == "第 11 步，共 11 步，写出 “⏎”"
        message = root.locator(".ae-message")
        assert _typed(page, "29 Nov") == ""
        assert message.text_content() == _zh("typing")
        assert (
            _typed(page, "29 nov 2026") == translate(python_model, ["29 Nov 2026"], DATE_VOCAB)[0]
        )
        _typed(page, "29 Novembre 2026")
        assert message.text_content().startswith("“Novembre”不是月份；月份写作 January、")
        assert message.text_content().endswith("和December。")
        _typed(page, "31 April 2026")
        assert message.text_content() == "没有 31 日：2026 年 4 月只有 30 天。"
        _typed(page, "Thursday, 29 November 2026")
        assert message.text_content() == "2026-11-29 是星期日，不是星期四。"
        _typed(page, "29 Novembér")
        assert message.text_content() == "“é”不在模型的词表中。"
        _typed(page, "")
        assert message.text_content() == "请输入日期，例如“29 November 2026”。"
        assert visit.errors == []
    finally:
        visit.close()
    visit = Visit(browser, f"{harness}/landing-click-zh.html")
    try:
        button = visit.page.locator("button.attnbook-translator-load")
        button.wait_for()
        assert button.text_content() == _zh("button", kb=444)
    finally:
        visit.close()


def test_step_layer_and_head_redraw_the_map(browser, harness):
    visit = Visit(browser, f"{harness}/site-light.html")
    try:
        visit.ready()
        page = visit.page
        svg = page.locator(".attnbook-translator svg")
        step = page.locator('.attnbook-translator input[type="range"]')
        assert step.get_attribute("max") == "11" and step.input_value() == "11"  # 10 + ⏎
        before, label = svg.inner_html(), svg.get_attribute("aria-label")
        step.fill("3")
        assert svg.inner_html() != before and svg.get_attribute("aria-label") != label
        assert "step 3 of 11 writes ‘2’" in svg.text_content()  # "2026-…": the third is "2"
        assert step.get_attribute("aria-valuetext") == "step 3 of 11, writes ‘2’"
        assert page.locator(".attnbook-translator svg rect.ae-panel").count() == 8 * 16
        note = page.locator(".attnbook-translator .ae-note").text_content()
        assert note.startswith("Step 3 writes ‘2’ with P = ")
        assert "·10" not in note and "e-" not in note  # plain decimals
        for picker in page.locator(".attnbook-translator select").all():
            before, current = svg.inner_html(), picker.input_value()
            values = [o.get_attribute("value") for o in picker.locator("option").all()]
            picker.select_option(next(v for v in values if v != current))
            assert svg.inner_html() != before
        assert page.evaluate("[window.model.get('layer'), window.model.get('head')]") == [0, 0]
        assert page.evaluate("window.model.get('decoding')") == "beam"
        _typed(page, "3 May 2001")
        assert step.input_value() == step.get_attribute("max")  # a new source: the last step
        assert visit.errors == []
    finally:
        visit.close()


def test_keys_stay_in_the_explorer(browser, harness):
    """Typing in the box must not reach the notebook around it (JupyterLab's D D, ...)."""
    visit = Visit(browser, f"{harness}/site-light.html")
    try:
        visit.ready()
        page = visit.page
        page.evaluate(
            "window.leaked = []; for (const t of ['keydown', 'keyup', 'keypress'])"
            " document.addEventListener(t, (e) => window.leaked.push(e.key));"
        )
        page.locator(SOURCE).fill("")
        page.locator(SOURCE).press_sequentially("12/25/01")
        page.keyboard.press("d")
        page.keyboard.press("d")
        assert page.evaluate("window.leaked") == []
        assert page.locator(SOURCE).input_value() == "12/25/01dd"  # the keys typed, nothing else
        assert visit.errors == []
    finally:
        visit.close()


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_phone_fits_and_works_by_touch(browser, harness, theme):
    visit = Visit(
        browser,
        f"{harness}/site-{theme}.html",
        viewport={"width": 390, "height": 844},
        has_touch=True,
        is_mobile=True,
        device_scale_factor=2,
    )
    try:
        visit.ready()
        page = visit.page
        _typed(page, "Sunday, 29 Nov 2026")
        width = page.evaluate("document.documentElement.clientWidth")
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        for box in page.locator(".attnbook-translator *").all():
            rect = box.bounding_box()
            if rect and rect["width"]:
                assert rect["x"] + rect["width"] <= width + 0.5, box.evaluate("e => e.outerHTML")
        root = page.locator(".attnbook-translator")
        assert ("ae-dark" in root.get_attribute("class")) == (theme == "dark")
        # a finger on the step slider's track, near its start, replays the first steps
        step = page.locator('.attnbook-translator input[type="range"]')
        step.scroll_into_view_if_needed()
        box = step.bounding_box()
        before = page.locator(".attnbook-translator svg").inner_html()
        page.touchscreen.tap(box["x"] + 4, box["y"] + box["height"] / 2)
        assert int(step.input_value()) < int(step.get_attribute("max"))
        assert page.locator(".attnbook-translator svg").inner_html() != before
        page.locator(SOURCE).tap()
        page.keyboard.press("End")
        page.keyboard.press("Backspace")
        page.keyboard.type("5")  # "Sunday, 29 Nov 2025", edited by touch and keyboard
        assert page.locator(SOURCE).input_value() == "Sunday, 29 Nov 2025"
        assert page.locator(OUTPUT).text_content() != ""
        if SHOTS:
            Path(SHOTS).mkdir(parents=True, exist_ok=True)
            root.screenshot(path=f"{SHOTS}/translator-phone-{theme}.png")
        assert visit.errors == []
    finally:
        visit.close()


def test_wide_page_screenshot_and_text_alternative(browser, harness):
    visit = Visit(browser, f"{harness}/site-light.html", viewport={"width": 1280, "height": 900})
    try:
        visit.ready()
        page = visit.page
        svg = page.locator(".attnbook-translator svg")
        assert svg.get_attribute("role") == "img"
        text = svg.get_attribute("aria-label")
        assert '"29 November 2026" into "2026-11-29"' in text
        for control in page.locator(".attnbook-translator :is(input, select)").all():
            assert control.evaluate("e => e.labels.length") == 1, "a control without a label"
        if SHOTS:
            Path(SHOTS).mkdir(parents=True, exist_ok=True)
            page.locator(".attnbook-translator").screenshot(path=f"{SHOTS}/translator-wide.png")
        assert visit.errors == []
    finally:
        visit.close()


# ---------------------------------------------------------------- notebook and landing page


def test_notebook_widget_uses_its_own_weights(browser, harness, python_model):
    from attnbook.decode import translate

    visit = Visit(browser, f"{harness}/notebook.html")
    try:
        visit.ready()
        texts = dates(10, seed=33)
        assert [_typed(visit.page, t) for t in texts] == translate(python_model, texts, DATE_VOCAB)
        assert not [u for u in visit.requests if "attnbook-models/dates" in u]
        assert visit.errors == []
    finally:
        visit.close()


def test_landing_page_placeholders(browser, harness, python_model):
    from attnbook.decode import translate

    visit = Visit(browser, f"{harness}/landing.html")
    try:
        page = visit.page
        page.wait_for_function("document.querySelectorAll('.attnbook-explorer').length === 2")
        visit.ready()
        first, second = page.locator(".attnbook-explorer.attnbook-translator").all()
        page.wait_for_function(
            "[...document.querySelectorAll('output[name=translation]')].every(o => o.textContent)"
        )
        assert first.locator(OUTPUT).text_content() == "2026-11-29"
        assert second.locator(SOURCE).input_value() == "Nov 3, 1999"
        assert second.locator(OUTPUT).text_content() == "1999-11-03"
        texts = dates(10, seed=34)
        shown = []
        for text in texts:
            first.locator(SOURCE).fill("")
            first.locator(SOURCE).press_sequentially(text)
            shown.append(first.locator(OUTPUT).text_content())
        assert shown == translate(python_model, texts, DATE_VOCAB)
        broken = page.locator('[data-model="nosuchmodel"]')
        assert broken.text_content().startswith("The live translator could not start:")
        weights = [u for u in visit.requests if u.endswith("/weights.bin")]
        assert len(weights) == 1, weights  # two translators, one fetch
        assert visit.foreign() == []
        # the placeholder naming no model answers HTTP 404, which Chromium logs itself
        assert [e for e in visit.errors if "404" not in e] == []
    finally:
        visit.close()


def test_placeholder_on_request_loads_nothing_until_pressed(browser, harness, python_model):
    """data-load="click" (the landing page): a button naming the download; the module and the
    weights are fetched only when it is pressed, and then the translator works."""
    from attnbook.decode import translate

    visit = Visit(browser, f"{harness}/landing-click.html")
    try:
        page = visit.page
        button = page.locator("button.attnbook-translator-load")
        button.wait_for()
        assert button.text_content() == "Run the model in this page (444 KB)"
        assert page.locator(".attnbook-translator").text_content() == button.text_content()
        page.wait_for_timeout(300)
        fetched = [u for u in visit.requests if "attnbook-models" in u and not u.endswith(".css")]
        assert fetched == [], fetched  # neither the module, nor the manifest, nor the weights
        button.click()
        page.wait_for_function("document.querySelector('output[name=translation]')?.textContent")
        visit.ready()
        texts = dates(5, seed=35)
        shown = []
        for text in texts:
            page.locator(SOURCE).fill("")
            page.locator(SOURCE).press_sequentially(text)
            shown.append(page.locator(OUTPUT).text_content())
        assert shown == translate(python_model, texts, DATE_VOCAB)
        assert page.locator("button.attnbook-translator-load").count() == 0
        assert visit.foreign() == [] and visit.errors == []
    finally:
        visit.close()


@pytest.mark.parametrize("how", ["press", "type"])
def test_chapter_widget_on_the_site_waits_for_the_reader(browser, harness, python_model, how):
    """The chapter's widget on the site (weights served, not carried): its button names the
    download and no weights are fetched until the reader presses it or types in the box."""
    from attnbook.decode import translate

    visit = Visit(browser, f"{harness}/site-light.html")
    try:
        page = visit.page
        button = page.locator(".attnbook-explorer button.attnbook-translator-load")
        button.wait_for()
        manifest, _ = web.pack_date_model()
        kb = round(manifest["weights"]["bytes"] / 1024)
        assert button.text_content() == f"Run the model in this page ({kb} KB)"
        page.wait_for_load_state("networkidle")
        assert not [u for u in visit.requests if u.endswith("/weights.bin")]
        assert page.locator(OUTPUT).text_content() == ""
        text = dates(1, seed=37)[0]
        if how == "press":
            button.click()
            visit.ready()
        page.locator(SOURCE).fill("")  # "type": this first input asks for the model
        page.locator(SOURCE).press_sequentially(text)
        page.wait_for_function(
            "(t) => document.querySelector('output[name=translation]').textContent === t",
            arg=translate(python_model, [text], DATE_VOCAB)[0],
            timeout=20_000,
        )
        assert button.count() == 0
        assert len([u for u in visit.requests if u.endswith("/weights.bin")]) == 1
        assert visit.foreign() == [] and visit.errors == []
    finally:
        visit.close()


# ------------------------------------------------------- a book built with the site's extensions

MINI_CONFIG = """title: "Translator pages"
author: "test"
only_build_toc_files: true
execute:
  execute_notebooks: force
  timeout: 300
  allow_errors: false
sphinx:
  local_extensions:
    attnbook_site: {site}/
    attnbook_models: {site}/
  config:
    html_static_path: ["{site}/static", "{site}/assets"]
    html_extra_path: ["{site}/extra"]  # /favicon.ico, which Chromium asks the root for
    nb_ipywidgets_js:
      attnbook/widgets.js: {{type: module}}
    html_context:
      default_mode: light
"""


@pytest.fixture(scope="module")
def small_book(tmp_path_factory, serve):
    """A two-page book built like the site: a notebook showing ``for_date_model()`` (executed
    by the build, its widget state saved) and a Markdown page with a placeholder."""
    import nbformat

    if not (ROOT / "site" / "static" / "attnbook-vendor").is_dir():
        pytest.skip("the site's vendored assets are missing (`make assets`)")
    book = tmp_path_factory.mktemp("book")
    (book / "_config.yml").write_text(MINI_CONFIG.format(site=ROOT / "site"), encoding="utf-8")
    (book / "_toc.yml").write_text(
        "format: jb-book\nroot: intro\nchapters:\n  - file: chapter\n", encoding="utf-8"
    )
    (book / "intro.md").write_text(
        '# Landing\n\n<div class="attnbook-translator" data-model="dates"></div>\n',
        encoding="utf-8",
    )
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_markdown_cell("# A chapter"),
        nbformat.v4.new_code_cell(
            "from attnbook.viz import TranslatorExplorer\nTranslatorExplorer.for_date_model()"
        ),
    ]
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3"}
    nbformat.write(notebook, book / "chapter.ipynb")
    build = subprocess.run(
        [str(Path(sys.executable).parent / "jupyter-book"), "build", str(book), "-W", "-n",
         "--keep-going"],
        capture_output=True,
        text=True,
    )  # fmt: skip
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    site = book / "_build" / "html"
    return site, serve(site)


@pytest.mark.parametrize("page", ["chapter.html", "intro.html"])
def test_a_built_book_serves_the_translator(browser, small_book, python_model, page):
    from attnbook.decode import translate

    site, url = small_book
    static = site / "_static" / "attnbook-models"
    assert {p.name for p in (static / "dates").iterdir()} == {"manifest.json", "weights.bin"}
    html = (site / page).read_text(encoding="utf-8")
    assert len(html) < 200_000, f"{page}: {len(html)} bytes: weights inlined?"
    texts = dates(10, seed=36)
    visit = Visit(browser, f"{url}/{page}")
    try:
        visit.ready()
        root = visit.page.locator(".attnbook-explorer.attnbook-translator")
        assert root.count() == 1
        shown = []
        for text in texts:
            root.locator(SOURCE).fill("")
            root.locator(SOURCE).press_sequentially(text)
            shown.append(root.locator(OUTPUT).text_content())
        assert shown == translate(python_model, texts, DATE_VOCAB)
        weights = [u for u in visit.requests if u.endswith("/weights.bin")]
        assert len(weights) == 1, weights
        assert visit.foreign() == [] and visit.errors == []
    finally:
        visit.close()


# ---------------------------------------------------------------- the built site


def _built_pages() -> list[str]:
    """Pages that carry the translator: a saved widget naming the site's weights, or a
    Markdown placeholder (pages that only mention it, such as the API page, are not)."""
    if not (SITE / "_static" / "attnbook-models" / "dates" / "manifest.json").is_file():
        return []
    return sorted(
        str(p.relative_to(SITE))
        for p in SITE.rglob("*.html")
        if "_static" not in p.parts
        and (
            "attnbook-models/dates/weights.bin" in (text := p.read_text(encoding="utf-8"))
            or attnbook_models._PLACEHOLDER.search(text)
        )
    )


@pytest.mark.build
def test_built_site_pages_with_the_translator(browser, site, python_model):
    from attnbook.decode import translate

    pages = _built_pages()
    assert pages, "no page of the built site carries the translator"
    texts = dates(10, seed=35)
    expected = translate(python_model, texts, DATE_VOCAB)
    for path in pages:
        html = (SITE / path).read_text(encoding="utf-8")
        # the weights are fetched from the site, never inlined in the page's widget state
        assert not re.search(r'"path":\s*\["weights"\]', html), f"{path}: weights inlined"
        visit = Visit(browser, f"{site}/{path}")
        try:
            # every page waits for the reader to ask for the model: its button names the
            # download, and nothing of the model's weights is fetched before it is pressed
            load = visit.page.locator("button.attnbook-translator-load").first
            load.wait_for()
            label = (
                r"在本页运行模型（\d+ KB）"
                if path.startswith("zh-cn/")
                else r"Run the model in this page \(\d+ KB\)"
            )
            assert re.fullmatch(label, load.text_content()), (path, load.text_content())
            visit.page.wait_for_load_state("networkidle")
            assert not [u for u in visit.requests if u.endswith("/weights.bin")], path
            load.click()
            visit.ready()
            root = visit.page.locator(".attnbook-explorer.attnbook-translator").first
            shown = []
            for text in texts:
                root.locator(SOURCE).fill("")
                root.locator(SOURCE).press_sequentially(text)
                shown.append(root.locator(OUTPUT).text_content())
            assert shown == expected, path
            weights = [u for u in visit.requests if u.endswith("/weights.bin")]
            assert len(weights) == 1, (path, weights)
            assert visit.foreign() == [] and visit.errors == [], path
        finally:
            visit.close()
