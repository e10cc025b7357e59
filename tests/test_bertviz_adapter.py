"""attnbook.viz.bertviz_adapter: what the HTML it returns holds, and a small view of each
kind in headless Chromium (keyboard use, the text alternative following the pickers). The
checks on the built pages are in test_site.py."""

from __future__ import annotations

import json
import re
import shutil
from importlib.metadata import version
from pathlib import Path

import pytest
import torch

from attnbook.viz import bertviz_adapter, head_view, model_view
from attnbook.viz.bertviz_adapter import BERTVIZ_VERSION

ROOT = Path(__file__).resolve().parent.parent
VENDOR = ROOT / "site" / "static" / "attnbook-vendor"
LIBRARIES = ("require.js", "d3.min.js", "jquery.min.js")


def _layers(L=2, h=3, T=4, seed=0):
    g = torch.Generator().manual_seed(seed)
    return [torch.softmax(torch.randn(1, h, T, T, generator=g), -1) for _ in range(L)]


def _params(html: str) -> dict:
    params = re.search(r"const params = (\{.*?\});", html)[1]
    return json.loads(params.replace("attnbookTheme()", '"light"'))


@pytest.mark.parametrize("view", [head_view, model_view])
def test_params_once_and_rounded(view):
    layers = _layers()
    html = view(layers, list("abcd")).data
    assert html.count('"left_text"') == 1  # bertviz's params-in-a-comment copy is gone
    attn = torch.tensor(_params(html)["attention"][0]["attn"], dtype=torch.float64)
    expected = torch.round(torch.cat(layers).double(), decimals=3)
    torch.testing.assert_close(attn, expected, rtol=0, atol=1e-12)


def test_head_view_patches_apply_to_the_pinned_bertviz():
    from attnbook.viz.bertviz_adapter import HEAD_VIEW_PATCHES

    html = head_view(_layers(), list("abcd")).data
    for name, _, new in HEAD_VIEW_PATCHES:
        assert new in html, f"not applied: {name}"
    assert "line.__opacity" in html  # opacities set in one pass, only where they change
    assert 'console.log("d3 version"' not in html
    assert 'tokenContainer.attr("tabindex", 0)' in html  # tokens take the keyboard's focus


def test_model_view_follows_the_page_theme_and_column():
    from attnbook.viz.bertviz_adapter import MODEL_VIEW_PATCHES

    html = model_view(_layers(), list("abcd")).data
    for name, _, new in MODEL_VIEW_PATCHES:
        assert new in html, f"not applied: {name}"
    assert '"display_mode": attnbookTheme()' in html
    assert "const DIV_WIDTH = Math.max(480, Math.min(970, attnbookWidth(" in html
    assert 'console.log("x"' not in html
    assert '.attr("role", "button")' in html  # thumbnails are buttons
    assert 'd3.event.key !== "Enter" && d3.event.key !== " "' in html
    assert 'class="attnbook-bertviz-box"' in html  # scrolls inside its own box when narrow


def test_layer_picker_labelled_and_hidden_with_one_layer():
    one = head_view(_layers(L=1), list("abcd")).data
    two = head_view(_layers(L=2), list("abcd")).data
    assert '<label hidden>Layer <select id="layer"></select></label>' in one
    assert '<label>Layer <select id="layer"></select></label>' in two


def test_legend_has_one_button_per_head_in_bertviz_colours():
    html = head_view(_layers(h=3), list("abcd")).data
    buttons = re.findall(
        r'<button type="button" data-head="(\d+)" data-colour="(#[0-9a-f]{6})" '
        r'aria-pressed="true" aria-label="([^"]+)"><span [^>]*></span>(\d+)</button>',
        html,
    )
    assert buttons == [  # bertviz's head index, its colour, and the head counted from 1
        ("0", "#1f77b4", "head 1", "1"),
        ("1", "#ff7f0e", "head 2", "2"),
        ("2", "#2ca02c", "head 3", "3"),
    ]


def test_layers_and_heads_counted_from_1():
    """The head view's layer picker, the model view's rows, columns, thumbnails and large
    view, the legends: every layer and head a reader sees counts from 1 (the pickers'
    values stay bertviz's indices)."""
    head = head_view(_layers(L=3), list("abcd")).data
    assert ".val(layer).text(layer + 1)" in head
    model = model_view(_layers(L=2, h=3), list("abcd")).data
    assert ".text(config.heads[i] + 1)" in model and ".text(config.layers[i] + 1)" in model
    assert "'Layer ' + (config.layers[layerIndex] + 1)" in model
    assert "${config.layers[layerIndex] + 1}, head ${config.heads[headIndex] + 1}" in model
    legend = re.search(r'<p class="attnbook-bertviz-legend">(.*?)</p>', model)[1]
    assert legend.startswith("Rows: layers 1, 2; columns: heads 1–3.")
    one = model_view(_layers(L=1, h=2), list("abcd")).data
    assert "One row: layer 1; columns: heads 1, 2." in one
    chosen = model_view(
        _layers(L=4, h=4), list("abcd"), include_layers=[1, 3], include_heads=[0, 1, 2]
    ).data
    assert "Rows: layers 2, 4; columns: heads 1–3." in chosen


def test_summary_names_the_key_each_head_attends_to():
    T = 4
    w = torch.zeros(1, 2, T, T)
    w[0, 0, :, 2] = 1.0  # head 0: every query on token "c"
    w[0, 1] = torch.eye(T)  # head 1: each token on itself (0.25 on average for each)
    html = head_view([w], list("abcd")).data
    summary = re.search(r'class="attnbook-visually-hidden">(.*?)</p>', html)[1]
    assert "layer 1: head 1: &#x27;c&#x27; (1.00)" in summary  # counted from 1
    assert "head 2: &#x27;a&#x27; (0.25)" in summary
    figure = re.search(r"<figure [^>]*>", html)[0]
    assert "aria-label=" in figure and "aria-describedby=" in figure


def _summaries(html: str) -> dict[str, tuple[str, bool]]:
    """The summaries in the page: key -> (text, hidden)."""
    found = re.findall(r'<p id="[^"]+" data-summary="([^"]+)" [^>]*?( hidden)?>(.*?)</p>', html)
    return {key: (text, bool(hidden)) for key, hidden, text in found}


def _described(html: str) -> str:
    """The key of the summary the figure is described by."""
    summary_id = re.search(r'<figure [^>]*aria-describedby="([^"]+)"', html)[1]
    return re.search(rf'<p id="{summary_id}" data-summary="([^"]+)"', html)[1]


def test_head_view_has_a_summary_per_attention_type_and_layer():
    T = 4
    first, second = torch.zeros(1, 1, T, T), torch.zeros(1, 1, T, T)
    first[0, 0, :, 1] = 1.0  # layer 0: every query on "b"
    second[0, 0, :, 3] = 1.0  # layer 1: every query on "d"
    html = head_view(
        encoder_attention=[first, second],
        cross_attention=[torch.full((1, 1, 2, T), 0.25)] * 2,
        encoder_tokens=list("abcd"),
        decoder_tokens=list("xy"),
    ).data
    summaries = _summaries(html)
    assert list(summaries) == ["0-0", "0-1", "1-0", "1-1"]
    assert [key for key, (_, hidden) in summaries.items() if not hidden] == ["0-0"]
    assert _described(html) == "0-0"
    assert "in layer 1: head 1: &#x27;b&#x27; (1.00)." in summaries["0-0"][0]
    assert "in layer 2: head 1: &#x27;d&#x27; (1.00)." in summaries["0-1"][0]
    assert summaries["0-1"][0].startswith("Encoder attention: 2 layer(s)")
    assert summaries["1-1"][0].startswith("Cross attention: 2 layer(s) of 1 heads over 2 query")


def test_head_view_describes_the_layer_it_opens_on():
    html = head_view(_layers(L=3), list("abcd"), layer=2).data
    assert _described(html) == "0-2"
    assert [key for key, (_, hidden) in _summaries(html).items() if not hidden] == ["0-2"]


def test_model_view_summary_describes_every_layer_of_each_attention_type():
    html = model_view(
        encoder_attention=_layers(L=3, h=2, T=3),
        decoder_attention=_layers(L=3, h=2, T=2, seed=1),
        encoder_tokens=list("abc"),
        decoder_tokens=list("xy"),
    ).data
    summaries = _summaries(html)
    assert list(summaries) == ["0", "1"] and _described(html) == "0"
    for text, _ in summaries.values():
        assert text.count(" layer 1: head 1: ") == 1
        assert text.count(" layer 3: head 1: ") == 1 and "; head 2: " in text
        assert " layer 0" not in text and "head 0" not in text


def test_cross_attention_summary_uses_decoder_queries_and_encoder_keys():
    cross = [torch.softmax(torch.randn(2, 2, 3), -1)]
    html = head_view(
        cross_attention=cross, encoder_tokens=list("xyz"), decoder_tokens=["A", "B"]
    ).data
    assert "2 query and 3 key tokens" in html


def test_token_count_must_match_the_weights():
    with pytest.raises(ValueError, match="3 query and 3 key tokens"):
        head_view(_layers(T=4), list("abc"))


def test_every_patch_applies_exactly_once_to_the_pinned_bertviz(monkeypatch):
    """Each part of bertviz's output the adapter patches, replayed patch by patch: every
    patch's text is found exactly once, and the adapter returns the text so patched."""
    assert version("bertviz") == BERTVIZ_VERSION
    calls = []  # (text, patches, part, what _apply returned)
    apply = bertviz_adapter._apply

    def recording_apply(text, patches, part):
        patched = apply(text, patches, part)
        calls.append((text, list(patches), part, patched))
        return patched

    monkeypatch.setattr(bertviz_adapter, "_apply", recording_apply)
    two_types = {
        "encoder_attention": _layers(L=2, h=2, T=3),
        "cross_attention": [torch.full((1, 2, 2, 3), 1 / 3)] * 2,
        "encoder_tokens": list("abc"),
        "decoder_tokens": list("xy"),
    }
    head_view(_layers(L=1), list("abcd"))  # one attention type, one layer
    head_view(**two_types)
    model_view(_layers(L=1), list("abcd"))
    model_view(**two_types)

    applied = {}  # part -> names of the patches applied to it
    for text, patches, part, patched in calls:
        for name, old, new in patches:
            assert text.count(old) == 1, f"{name!r} found {text.count(old)} times in {part}"
            text = text.replace(old, new)
            applied.setdefault(part, set()).add(name)
        assert patched == text, part
    script = {"libraries configured by the loader", "params not repeated in a comment"}
    markup = {
        "require.js loaded by the loader",
        "attention picker labelled",
        "attention picker's label closed",
    }
    assert applied == {
        "head_view.js": script | {name for name, _, _ in bertviz_adapter.HEAD_VIEW_PATCHES},
        "model_view.js": script | {name for name, _, _ in bertviz_adapter.MODEL_VIEW_PATCHES},
        "head_view.py's HTML": markup | {"layer picker labelled"},
        "model_view.py's HTML": markup,
    }


@pytest.mark.parametrize("found", [0, 2])
def test_a_patch_whose_text_is_not_found_once_raises_naming_it(monkeypatch, found):
    """A bertviz whose head_view.js has lost (or doubled) the line a patch removes: the
    view raises, naming the patch, the file, and the installed and expected versions."""
    import bertviz

    console = '    console.log("d3 version", d3.version)'
    bertviz_head_view = bertviz.head_view

    def changed_head_view(**kwargs):
        out = bertviz_head_view(**kwargs)
        assert out.data.count(console) == 1
        out.data = out.data.replace(console, console * found)
        return out

    monkeypatch.setattr(bertviz, "head_view", changed_head_view)
    monkeypatch.setattr(bertviz_adapter, "version", lambda name: "1.5.0")
    with pytest.raises(RuntimeError) as raised:
        head_view(_layers(), list("abcd"))
    assert isinstance(raised.value, bertviz_adapter.BertvizPatchError)
    message = str(raised.value)
    assert "bertviz patch 'no console output' does not apply to head_view.js: " in message
    assert f"found {found} times, not once" in message
    assert f"bertviz 1.5.0 is installed; the patches are for bertviz {BERTVIZ_VERSION}" in message


def test_bertviz_pinned_exactly_to_the_version_the_patches_are_for():
    """The package's dependency (pyproject.toml) and the build's (requirements.txt)."""
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert re.findall(r'^\s*"(bertviz\b[^"]*)"', pyproject, re.M) == [f"bertviz=={BERTVIZ_VERSION}"]
    requirements = (ROOT / "requirements.txt").read_text(encoding="utf-8")
    assert re.findall(r"^bertviz\b.*$", requirements, re.M) == [f"bertviz=={BERTVIZ_VERSION}"]


# A page like the site's: the libraries from its own folder, none from a CDN.
PAGE = """<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="attnbook-vendor" content="vendor/"><title>view</title>
</head>
<body>{body}</body>
</html>
"""


@pytest.fixture
def open_view(browser, tmp_path):
    """Open a view's HTML as a page; yields a function of the HTML that returns the page,
    and checks afterwards that no page raised an error."""
    if not all((VENDOR / name).is_file() for name in LIBRARIES):
        pytest.fail("the site's vendored libraries are missing (`make assets`)")
    (tmp_path / "vendor").mkdir()
    for name in LIBRARIES:
        shutil.copy(VENDOR / name, tmp_path / "vendor" / name)
    pages, errors = [], []

    def open_(html: str):
        path = tmp_path / f"view{len(pages)}.html"
        path.write_text(PAGE.format(body=html), encoding="utf-8")
        page = browser.new_page(viewport={"width": 1000, "height": 900})
        page.on("pageerror", lambda e: errors.append(str(e)))
        pages.append(page)
        page.goto(path.as_uri())
        page.locator("div[id^='bertviz-'] svg text").first.wait_for(timeout=20_000)
        return page

    yield open_
    for page in pages:
        page.close()
    assert errors == []


# What a thumbnail's click does: the large view (its heading, how many parts) and the
# thumbnails' highlight and pressed state.
THUMBNAIL_STATE = """() => {
  const svg = document.querySelector("div[id^='bertviz-'] svg");
  const heading = svg.querySelector("text.detail");
  return {
    heading: heading ? heading.textContent : null,
    parts: svg.querySelectorAll(".detail").length,
    thumbnails: [...svg.querySelectorAll(".attn_background")].map((r) =>
      [r.id, r.getAttribute("fill"), r.getAttribute("stroke-opacity"),
       r.getAttribute("aria-pressed")]),
  };
}"""


def test_model_view_thumbnails_work_by_keyboard_as_by_mouse(open_view):
    page = open_view(model_view(_layers(L=2, h=2, T=3), list("abc")).data)
    page.locator(".attn_background").nth(3).wait_for()
    closed = page.evaluate(THUMBNAIL_STATE)
    assert closed["parts"] == 0
    axes = page.evaluate(
        """() => [...document.querySelectorAll("div[id^='bertviz-'] svg > text:not(.detail)")]
             .map((t) => t.textContent)"""
    )
    assert axes == ["Heads", "1", "2", "Layers", "1", "2"]  # counted from 1

    page.keyboard.press("Tab")  # the first thing on the page to take focus
    focused = page.evaluate(
        "() => ['id', 'role', 'aria-label'].map((a) => document.activeElement.getAttribute(a))"
    )
    assert focused == ["attn_background_0_0", "button", "Layer 1, head 1"]
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    by_key = page.evaluate(THUMBNAIL_STATE)
    assert by_key["heading"] == "Layer 1, Head 2" and by_key["parts"] > 0
    pressed = [t[0] for t in by_key["thumbnails"] if t[3] == "true"]
    assert pressed == ["attn_background_0_1"]
    page.keyboard.press(" ")  # closes it, as a second click does
    assert page.evaluate(THUMBNAIL_STATE) == closed

    page.locator("#attn_background_0_1").click(force=True)  # lands on its click region
    assert page.evaluate(THUMBNAIL_STATE) == by_key


# The summary the figure is described by, whether it is the only one shown, its text.
DESCRIBED = """() => {
  const figure = document.querySelector("figure.attnbook-bertviz");
  const p = document.getElementById(figure.getAttribute("aria-describedby"));
  const shown = document.querySelectorAll("p[data-summary]:not([hidden])");
  return [p.dataset.summary, shown.length === 1 && shown[0] === p, p.textContent];
}"""

# What the reader sees of the tokens' highlight: each token's background, and how many
# lines are visible.
TOKEN_STATE = """() => {
  const svg = document.querySelector("div[id^='bertviz-'] svg[data-shown]");
  const visible = [...svg.querySelectorAll("#attention line")]
    .filter((line) => getComputedStyle(line).visibility === "visible").length;
  const backgrounds = [...svg.querySelectorAll(".background")].map((r) => r.style.opacity);
  return { visible, backgrounds };
}"""


def test_head_view_text_follows_the_pickers_and_tokens_take_focus(open_view):
    page = open_view(
        head_view(
            encoder_attention=_layers(L=2, h=2, T=3),
            cross_attention=[torch.softmax(torch.randn(1, 2, 2, 3), -1) for _ in range(2)],
            encoder_tokens=list("abc"),
            decoder_tokens=list("xy"),
        ).data
    )
    # the other attention type and layer are drawn when the page is idle: wait for them
    page.wait_for_function("document.querySelectorAll('#vis > svg').length === 4")
    key, alone, first = page.evaluate(DESCRIBED)
    assert (key, alone) == ("0-0", True) and "in layer 1:" in first
    assert page.locator("#layer option").all_inner_texts() == ["1", "2"]  # values 0, 1
    page.select_option("#layer", index=1)
    key, alone, second = page.evaluate(DESCRIBED)
    assert (key, alone) == ("0-1", True) and "in layer 2:" in second
    page.select_option("#filter", "1")
    key, alone, third = page.evaluate(DESCRIBED)
    assert (key, alone) == ("1-1", True) and third.startswith("Cross attention:")

    tokens = page.locator("div[id^='bertviz-'] svg[data-shown] #left [tabindex='0']")
    assert tokens.count() == 2  # the decoder's tokens, the queries of cross-attention
    idle = page.evaluate(TOKEN_STATE)
    tokens.nth(1).focus()
    focused = page.evaluate(TOKEN_STATE)
    assert focused["backgrounds"][:2] == ["0", "1"] and focused["visible"] < idle["visible"]
    tokens.nth(1).blur()
    assert page.evaluate(TOKEN_STATE) == idle
    tokens.nth(1).hover()
    assert page.evaluate(TOKEN_STATE) == focused


def test_model_view_thumbnails_draw_every_nonzero_weight_and_no_zero(open_view):
    """Causal weights: the upper triangle is 0, drawn fully transparent by bertviz; the
    thumbnails draw one line per nonzero weight, at its row and column, with its opacity."""
    T = 4
    torch.manual_seed(0)
    causal = torch.randn(2, 1, 2, T, T).masked_fill(~torch.ones(T, T).tril().bool(), -torch.inf)
    layers = [w for w in causal.softmax(-1)]  # 2 layers of (1, h=2, T, T)
    page = open_view(model_view(layers, list("abcd")).data)
    page.locator(".attn_background").nth(3).wait_for()
    drawn = page.evaluate(
        """() => [...document.querySelectorAll("div[id^='bertviz-'] svg line")].map(
             (l) => +l.getAttribute("stroke-opacity"))"""
    )
    expected = [w for layer in layers for w in layer.round(decimals=3).flatten().tolist() if w > 0]
    assert len(drawn) == len(expected) == 2 * 2 * T * (T + 1) // 2
    assert sorted(drawn) == pytest.approx(sorted(expected), abs=1e-6)


# Per drawing of the model view: its attention type, whether it can be seen, whether
# assistive technology sees it, and which drawing the top of its first thumbnail hits.
DRAWINGS = """() => [...document.querySelectorAll("div[id^='bertviz-'] #vis > svg")].map((svg) => {
  const square = svg.querySelector(".attn_background").getBoundingClientRect();
  const hit = document.elementFromPoint(square.x + square.width / 2, square.y + 2);
  return {
    filter: svg.dataset.filter,
    seen: svg.querySelector("line").checkVisibility(
      { opacityProperty: true, visibilityProperty: true, contentVisibilityAuto: true }),
    ariaHidden: Boolean(svg.closest("[aria-hidden='true']")),
    hits: hit && hit.closest("svg") ? hit.closest("svg").dataset.filter : null,
  };
})"""

# The attention type of the drawing the mouse reaches at the foot of the model view's box.
FOOT = """() => {
  const box = document.querySelector("div[id^='bertviz-'] #vis").getBoundingClientRect();
  const svg = document.elementFromPoint(box.x + box.width / 2, box.bottom - 2).closest("svg");
  return svg ? svg.dataset.filter : null;
}"""


def test_model_view_shows_one_attention_type_and_clicks_reach_it(open_view):
    """Each attention type is drawn once and kept: switching shows one drawing, the others
    hidden (from the eye, assistive technology and the tab order), and a click lands on the
    one shown, whichever was drawn first."""
    g = torch.Generator().manual_seed(0)
    page = open_view(
        model_view(
            encoder_attention=[torch.softmax(torch.randn(1, 2, 2, 2, generator=g), -1)],
            decoder_attention=[torch.softmax(torch.randn(1, 2, 3, 3, generator=g), -1)],
            cross_attention=[torch.softmax(torch.randn(1, 2, 3, 2, generator=g), -1)],
            encoder_tokens=list("xy"),
            decoder_tokens=list("abc"),
        ).data
    )
    # the other attention types are drawn when the page is idle: wait for them
    page.wait_for_function("document.querySelectorAll('#vis > svg').length === 3")
    for shown in ("2", "0", "1"):
        page.select_option("#filter", shown)
        drawings = {d["filter"]: d for d in page.evaluate(DRAWINGS)}
        assert [f for f, d in drawings.items() if d["seen"]] == [shown], drawings
        assert [f for f, d in drawings.items() if not d["ariaHidden"]] == [shown], drawings
        assert drawings[shown]["hits"] == shown
        assert page.evaluate(FOOT) == shown  # the encoder's drawing, drawn first, is shorter
        tabbed = []  # the drawing of every thumbnail the Tab key reaches after the picker
        page.focus("#filter")
        for _ in range(4):
            page.keyboard.press("Tab")
            tabbed.append(page.evaluate("document.activeElement.closest('svg')?.dataset.filter"))
        assert tabbed[:2] == [shown, shown] and shown not in tabbed[2:]
        thumbnail = page.locator(f"svg[data-filter='{shown}'] .attn_background").nth(1)
        thumbnail.click(force=True)
        heading = page.locator(f"svg[data-filter='{shown}'] text.detail")
        assert heading.first.text_content() == "Layer 1, Head 2"
        thumbnail.click(force=True)  # closes it


# The head view's drawings: per drawing its type and layer, whether it can be seen and
# whether assistive technology sees it; per head of the one shown, its lines' opacity sum.
HEAD_DRAWINGS = """() => {
  const svgs = [...document.querySelectorAll("div[id^='bertviz-'] #vis > svg")];
  const shown = svgs.filter((svg) => svg.querySelector("line").checkVisibility(
    { opacityProperty: true, visibilityProperty: true }));
  return {
    seen: shown.map((svg) => `${svg.dataset.filter}-${svg.dataset.layer}`),
    exposed: svgs.filter((svg) => !svg.closest("[aria-hidden='true']"))
      .map((svg) => `${svg.dataset.filter}-${svg.dataset.layer}`),
    bottom: (() => {  // the drawing the mouse reaches at the foot of the box
      const box = document.querySelector("div[id^='bertviz-'] #vis").getBoundingClientRect();
      const svg = document.elementFromPoint(box.x + box.width / 2, box.bottom - 2).closest("svg");
      return svg ? `${svg.dataset.filter}-${svg.dataset.layer}` : null;
    })(),
    heads: shown.length !== 1 ? [] : [...shown[0].querySelectorAll(
      "#attention > .headAttention")].map((head) => [...head.querySelectorAll("line")]
      .reduce((sum, line) => sum + +line.getAttribute("stroke-opacity"), 0)),
  };
}"""


def test_head_view_layers_show_one_drawing_with_the_heads_picked(open_view):
    """Each layer is drawn once and kept: switching shows one drawing, the others hidden
    (from the eye, assistive technology and the tab order), and a head turned off while
    one layer is shown stays off in the next one shown."""
    page = open_view(
        head_view(
            encoder_attention=_layers(L=3, h=2, T=3),
            decoder_attention=_layers(L=3, h=2, T=2),
            encoder_tokens=list("abc"),
            decoder_tokens=list("xy"),
        ).data
    )
    page.wait_for_function("document.querySelectorAll('#vis > svg').length === 6")
    page.select_option("#filter", "1")  # the decoder: 2 tokens, a shorter drawing
    state = page.evaluate(HEAD_DRAWINGS)
    assert state["seen"] == state["exposed"] == [state["bottom"]] == ["1-0"]
    assert min(state["heads"]) > 0
    page.locator("button[data-head='0']").click()  # head 0 off, in layer 0's drawing
    for layer in ("2", "1"):
        page.select_option("#layer", index=int(layer))
        state = page.evaluate(HEAD_DRAWINGS)
        assert state["seen"] == state["exposed"] == [state["bottom"]] == [f"1-{layer}"]
        assert state["heads"][0] == 0 and state["heads"][1] > 0
        assert page.locator("button[data-head='0']").get_attribute("aria-pressed") == "false"
        page.focus("#layer")
        tabbed = []  # the drawing of everything the Tab key reaches after the picker
        for _ in range(10):
            page.keyboard.press("Tab")
            tabbed.append(page.evaluate("document.activeElement.closest('svg')?.dataset.layer"))
        drawn = [t for t in tabbed if t is not None]  # leaving out pickers and buttons
        assert drawn == [layer] * 4  # its 2 + 2 tokens, and none of another drawing


def test_head_view_with_many_lines_draws_a_layer_when_first_picked(open_view):
    """Above 20,000 lines in all, only the layer shown is drawn ahead: another is drawn when
    the reader first picks it, and kept from then on."""
    tokens = [f"t{i}" for i in range(25)]
    page = open_view(head_view(_layers(L=3, h=12, T=25), tokens).data)  # 22,500 lines
    page.wait_for_timeout(500)  # time for the idle drawing, were there one
    assert page.locator("#vis > svg").count() == 1
    for layer, drawings in (("2", 2), ("0", 2), ("1", 3)):
        page.select_option("#layer", index=int(layer))
        state = page.evaluate(HEAD_DRAWINGS)
        assert page.locator("#vis > svg").count() == drawings
        assert state["seen"] == state["exposed"] == [f"0-{layer}"] and min(state["heads"]) > 0
