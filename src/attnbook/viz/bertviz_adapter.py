"""The one door to bertviz: the package's attention weights in, one HTML output back.

bertviz's own output loads require.js, d3 and jQuery from a public CDN, draws the
model view on black at a fixed 970 px, and rebuilds every line of the head view
when the layer changes. The HTML returned here:

- looks first for the book site's self-hosted libraries (the folder named by the
  page's ``<meta name="attnbook-vendor">`` tag) and uses the CDN only where there is
  none, as in Colab or JupyterLab;
- follows the page's light or dark theme (and redraws when it changes), and fits
  its column: the model view is drawn at the column's width (not below 480 px, and
  then it scrolls inside its own box);
- labels its pickers and hides a picker with a single option; gives a legend for the
  head colours, with one button per head (keyboard and touch reach them too), and a
  text summary of the weights as the drawing's text alternative: one per attention
  type (and, in the head view, per layer), the one that describes the drawing shown
  swapped in when a picker changes;
- lets the keyboard reach what the mouse does: the model view's thumbnails are
  buttons (Enter or Space opens one large, as a click does), and the head view's
  tokens show their lines when focused, as under the mouse;
- draws each attention type (and, in the head view, each layer) once and keeps it, each
  on a compositing layer of its own: a picker shows another drawing by changing two
  opacities, without restyling, laying out or repainting any line.

Weights are rounded to 3 decimals, which keeps the saved page small.

These changes are patches to the text of bertviz's output, written for one bertviz
(``BERTVIZ_VERSION``, the version pyproject.toml pins): a patch whose text is not found
exactly once raises ``BertvizPatchError``, naming it, rather than being skipped.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError, version

import torch
from IPython.display import HTML

_CDN = "https://cdnjs.cloudflare.com/ajax/libs/"
_CDN_REQUIRE = _CDN + "require.js/2.3.6/require.min.js"
_CDN_D3 = _CDN + "d3/5.7.0/d3.min"
_CDN_JQUERY = _CDN + "jquery/2.0.0/jquery.min"

# d3.schemeCategory10: the colours bertviz gives heads (head view) and layers (model view)
HEAD_COLOURS = (
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
)
DECIMALS = 3

# The bertviz whose text the patches below replace (pinned in pyproject.toml)
BERTVIZ_VERSION = "1.4.1"

# Patches are (name, exact text, replacement), applied in turn to one part of bertviz's
# output; each text must be found exactly once (_apply), never skipped.
# bertviz's own require.js and require.config (CDN libraries): the loader chooses them
_REQUIRE_TAG = ("require.js loaded by the loader", f'<script src="{_CDN_REQUIRE}"></script>', "")
_REQUIRE_CONFIG = (
    "libraries configured by the loader",
    """require.config({
  paths: {
      d3: 'https://cdnjs.cloudflare.com/ajax/libs/d3/5.7.0/d3.min',
    jquery: 'https://cdnjs.cloudflare.com/ajax/libs/jquery/2.0.0/jquery.min',
  }
});""",
    "",
)
# bertviz fills its params into this comment too (as into "const params = PYTHON_PARAMS;"),
# which doubles the page weight of every view
_PARAMS_COMMENT = "// HACK: PYTHON_PARAMS is a template marker that is replaced by actual params."


class BertvizPatchError(RuntimeError):
    """A patch's text is not in bertviz's output exactly once: the installed bertviz is not
    the version the patches were written for (``BERTVIZ_VERSION``)."""


def _draw_others_when_idle(indent: str, render: str) -> str:
    """JS that draws every attention type but the shown one when the page is idle, then
    shows that one again (``render``: the view's drawing function; ``indent``: its block's)."""
    block = f"""if (config.attention.length > 1) {{
    (window.requestIdleCallback || setTimeout)(function () {{
        const shown = config.filter;
        for (let f = 0; f < config.attention.length; f++) {{
            if (String(f) === String(shown)) continue;
            config.filter = String(f);
            {render}();
        }}
        config.filter = shown;
        {render}();
    }});
}}"""
    return "\n".join(indent + line for line in block.splitlines())


# Patches to the view scripts (head_view.js, model_view.js, their params filled in)
HEAD_VIEW_PATCHES = (
    (
        "opacities set per head, not looked up per line",
        """        svg.select("#attention")
            .selectAll("line")
            .attr("stroke-opacity", function (d) {
                const headIndex = +this.parentNode.parentNode.getAttribute("head-index");
                // If head is selected
                if (config.headVis[headIndex]) {
                    // Set opacity to attention weight divided by number of active heads
                    return d / activeHeads()
                } else {
                    return 0.0;
                }
            })""",
        """        // only lines whose opacity changes visibly are touched: style work is the cost
        const nActive = activeHeads();
        svg.select("#attention").selectAll(".headAttention").each(function (_, headIndex) {
            const shown = config.headVis[headIndex];
            for (const line of this.getElementsByTagName("line")) {
                const opacity = shown ? line.__data__ / nActive : 0;
                if (line.__opacity === undefined || Math.abs(line.__opacity - opacity) > 0.002) {
                    line.__opacity = opacity;
                    line.setAttribute("stroke-opacity", opacity);
                }
            }
        });""",
    ),
    (
        "no console output",
        """    console.log("d3 version", d3.version)""",
        "",
    ),
    (
        "layers counted from 1 in the layer picker",
        """            layerEl.append($("<option />").val(layer).text(layer));""",
        """            // the option's value stays the layer's index; the reader counts from 1
            layerEl.append($("<option />").val(layer).text(layer + 1));""",
    ),
    (
        "tokens reachable by keyboard",
        """        });
    }

    function renderAttention(svg, attention) {""",
        """        });

        // A token the keyboard focuses shows its lines as under the mouse; leaving it
        // does what the mouse leaving the tokens does (that handler expects them as this)
        tokenContainer.attr("tabindex", 0)
            .on("focus", tokenContainer.on("mouseover"))
            .on("blur", () => textContainer.on("mouseleave").call(textContainer.node()));
    }

    function renderAttention(svg, attention) {""",
    ),
    (
        "attention types and layers drawn once, kept and shown again",
        """        // Clear vis
        $(`#${config.rootDivId} #vis`).empty();""",
        """        // Every attention type and layer is drawn once and kept, in one box as tall
        // as the tallest: switching shows another drawing. Each drawing has a
        // compositing layer of its own and a kept one is made transparent: switching
        // changes two opacities, which restyles, lays out and repaints none of the lines.
        const vis = document.querySelector(`#${config.rootDivId} #vis`);
        if (!vis.style.height) {
            const rows = config.attention.map(
                a => Math.max(a.left_text.length, a.right_text.length));
            vis.style.position = "relative";
            vis.style.height = Math.max(...rows) * BOXHEIGHT + TEXT_TOP + "px";
        }
        const key = `${config.filter}-${config.layer_seq}`;
        vis.querySelectorAll(":scope > svg[data-shown]")
            .forEach(old => attnbookShowDrawing(old, false));
        if (kept.has(key)) {
            const shown = attnbookShowDrawing(kept.get(key), true);
            updateAttention(d3.select(shown));  // the heads picked while it was hidden
            refreshCheckboxes();
            return;
        }""",
    ),
    (
        "each drawing knows its attention type and layer",
        """            .append('svg')
            .attr("width", "100%")""",
        """            .append('svg')
            .attr("data-filter", config.filter)
            .attr("data-layer", config.layer_seq)
            .attr("data-shown", "")
            .each(function () { kept.set(key, this); })
            .style("will-change", "opacity")
            .style("z-index", "1")
            .style("position", "absolute")
            .style("top", "0")
            .style("left", "0")
            .style("height", "100%")  // the whole box: the mouse reaches no hidden drawing
            .attr("width", "100%")""",
    ),
    (
        "the other attention types and layers drawn when the page is idle",
        """    let config = {};
    initialize();
    renderVis();""",
        """    let config = {};
    const kept = new Map();  // "type-layer" -> its drawing, shown or not
    initialize();
    renderVis();
    // Draw the others when the page is idle (every layer unless that is many lines; then
    // a layer is drawn when it is first picked), then show the first again.
    (window.requestIdleCallback || setTimeout)(function () {
        const shown = [config.filter, config.layer, config.layer_seq];
        const lines = config.attention.reduce((n, a) =>
            n + a.attn.length * a.attn[0].length * a.left_text.length * a.right_text.length, 0);
        const layers = lines <= 20000 ? config.layers.map((_, i) => i) : [config.layer_seq];
        for (let f = 0; f < config.attention.length; f++) {
            for (const l of layers) {
                if (kept.has(`${f}-${l}`)) continue;
                [config.filter, config.layer, config.layer_seq] = [String(f), config.layers[l], l];
                renderVis();
            }
        }
        [config.filter, config.layer, config.layer_seq] = shown;
        renderVis();
    });

    function refreshCheckboxes() {
        const groups = document.querySelectorAll(`#${config.rootDivId} #vis svg[data-shown] > g`);
        const boxes = groups[groups.length - 1].querySelectorAll("rect");
        boxes.forEach((rect, i) => rect.setAttribute(
            "fill", config.headVis[i] ? headColors(i) : lighten(headColors(i))));
    }""",
    ),
)
MODEL_VIEW_PATCHES = (
    (
        "thumbnails draw no line of weight 0 (it is fully transparent): one per nonzero weight",
        """                .data(function (d) { // Loop over all target tokens
                    return d;
                })
                .enter() // When entering""",
        """                // a line of weight 0 (after rounding) is fully transparent: not drawn
                .data(function (d) {
                    return d.map((w, j) => [w, j]).filter(([w]) => w > 0);
                })
                .enter() // When entering""",
    ),
    (
        "a thumbnail line's row is its weight's column",
        """                .attr("y2", function (d, targetIndex) {
                    return y1 + (targetIndex + .5) * config.thumbnailBoxHeight;""",
        """                .attr("y2", function (d) {
                    return y1 + (d[1] + .5) * config.thumbnailBoxHeight;""",
    ),
    (
        "a thumbnail line's opacity is its weight",
        """                .attr("stroke", getLayerColor(layerIndex))
                .attr("stroke-opacity", function (d) {
                    return d;
                });

            var clickRegion""",
        """                .attr("stroke", getLayerColor(layerIndex))
                .attr("stroke-opacity", function (d) {
                    return d[0];
                });

            var clickRegion""",
    ),
    (
        "drawn at the column's width",
        "const DIV_WIDTH = 970;",
        "const DIV_WIDTH = Math.max(480, Math.min(970, attnbookWidth(params.root_div_id)));",
    ),
    ("no console output", """            console.log("x", x, y)""", ""),
    (
        "heads counted from 1 above the thumbnails",
        """                    .text(config.heads[i])""",
        """                    .text(config.heads[i] + 1)  // the reader counts from 1""",
    ),
    (
        "layers counted from 1 beside the thumbnails",
        """                    .text(config.layers[i])""",
        """                    .text(config.layers[i] + 1)  // the reader counts from 1""",
    ),
    (
        "layer and head counted from 1 above a thumbnail shown large",
        """.text('Layer ' + config.layers[layerIndex] + ", Head " + config.heads[headIndex])""",
        """.text('Layer ' + (config.layers[layerIndex] + 1)
                      + ", Head " + (config.heads[headIndex] + 1))""",
    ),
    (
        "thumbnails reachable by keyboard",
        """            clickRegion.on("mouseover", function (d) {
                d3.select(this).style("cursor", "pointer");
            });""",
        """            clickRegion.on("mouseover", function (d) {
                d3.select(this).style("cursor", "pointer");
            });
            // The keyboard focuses the visible square: the click region above it is
            // transparent, and so would be its focus ring. Enter or Space clicks it.
            attnBackground
                .attr("tabindex", 0)
                .attr("role", "button")
                .attr("aria-pressed", "false")
                .attr("aria-label",
                      `Layer ${config.layers[layerIndex] + 1}, head ${config.heads[headIndex] + 1}`)
                .on("keydown", function () {
                    if (d3.event.key !== "Enter" && d3.event.key !== " ") return;
                    d3.event.preventDefault();  // Space would scroll the page
                    clickRegion.node().dispatchEvent(new MouseEvent("click", {bubbles: true}));
                });""",
    ),
    ("theme from the page", '"display_mode": "light"', '"display_mode": attnbookTheme()'),
    (
        "attention types drawn once, kept and shown again",
        """            vis.empty();
            vis.attr("height", config.divHeight);
            config.svg = d3.select(`#${config.rootDivId} #vis`)
                .append('svg')""",
        """            // Every attention type is drawn once and kept, in one box as tall as the
            // tallest: switching shows another drawing (no new drawing, no reflow below).
            // Each drawing has a compositing layer of its own, and a kept one is made
            // transparent: switching changes two opacities, which restyles, lays out and
            // repaints none of the lines. The one shown lies above the others; the others
            // are hidden from assistive technology and their thumbnails leave the tab order.
            function showDrawing(svg, shown) {
                attnbookShowDrawing(svg.node(), shown);
                // the whole box: the mouse reaches no hidden drawing below a shorter one
                if (shown) svg.style("height", config.tallest + "px");
                return svg;
            }
            if (config.svg) {
                config.svg.selectAll(".detail").remove();
                config.svg.selectAll(".attn_background")
                    .attr("fill", getBackgroundColor()).attr("stroke-opacity", 0);
                config.detail_layer = null;
                config.detail_head = null;
                kept.set(config.svg.attr("data-filter"), showDrawing(config.svg, false));
            }
            if (!(config.tallest >= config.divHeight)) {  // kept here: no style read back
                config.tallest = Math.max(config.tallest || 0, config.divHeight);
                vis.css({position: "relative", "min-height": config.tallest + "px"});
            }
            if (kept.has(String(config.filter))) {
                config.svg = showDrawing(kept.get(String(config.filter)), true);
                return;
            }
            config.svg = d3.select(`#${config.rootDivId} #vis`)
                .append('svg')
                .attr("data-filter", config.filter)
                .style("will-change", "opacity")
                .style("z-index", 1)
                .style("height", config.tallest + "px")
                .style("position", "absolute")
                .style("top", "0")
                .style("left", "0")""",
    ),
    (
        "kept drawings",
        "        const config = {};",
        "        const config = {};\n        const kept = new Map();  // attention type -> drawing",
    ),
    (
        "the other attention types drawn when the page is idle",
        """        initialize();
        render();""",
        """        initialize();
        render();
"""
        + _draw_others_when_idle("        ", "render"),
    ),
)

_STYLE = """
.attnbook-bertviz { margin: 0.5rem 0; font-size: 0.875rem; }
.attnbook-bertviz .attnbook-bertviz-box { max-width: 100%; overflow-x: auto; }
.attnbook-bertviz svg text[fill="black"], .attnbook-bertviz svg text:not([fill]) {
  fill: currentColor;
}
.attnbook-bertviz label { margin-right: 1em; }
.attnbook-bertviz select { font: inherit; color: inherit; background: transparent; }
.attnbook-bertviz .attnbook-bertviz-legend { margin: 0.25rem 0; line-height: 2; }
.attnbook-bertviz .attnbook-bertviz-legend button {
  font: inherit; color: inherit; background: transparent; cursor: pointer;
  border: 1px solid currentColor; border-radius: 4px; padding: 0 0.4em; margin: 0 0.25em 0 0;
  min-height: 1.75rem;
}
.attnbook-bertviz .attnbook-bertviz-legend button[aria-pressed="false"] { opacity: 0.45; }
.attnbook-bertviz .attnbook-bertviz-swatch {
  display: inline-block; width: 0.8em; height: 0.8em; margin-right: 0.3em;
  vertical-align: -0.05em; border-radius: 2px;
}
/* CSS wins over bertviz's stroke attributes: the focused thumbnail is framed */
.attnbook-bertviz .attn_background:focus-visible {
  outline: none; stroke: currentColor; stroke-opacity: 1; stroke-width: 3px;
}
.attnbook-bertviz .attnbook-visually-hidden {
  position: absolute; width: 1px; height: 1px; overflow: hidden;
  clip: rect(0 0 0 0); white-space: nowrap;
}
"""

# Runs in the browser: pick the site's libraries when the page has them, follow its
# theme, wire the legend buttons to bertviz's head squares and the model view's
# thumbnails to their pressed state, and show the summary of what the pickers draw.
_LOADER = """
(function () {
  var root = document.getElementById("%(id)s");
  var frame = root.closest(".attnbook-bertviz");
  var template = root.innerHTML;
  var meta = document.querySelector('meta[name="attnbook-vendor"]');
  var base = meta ? new URL(meta.content, document.baseURI).href : null;
  var paths = base ? {d3: base + "d3.min", jquery: base + "jquery.min"}
                   : {d3: "%(d3)s", jquery: "%(jquery)s"};
  function attnbookTheme() {
    var html = document.documentElement, body = document.body;
    var dark = html.dataset.theme === "dark" ||
      (body && body.dataset.jpThemeLight === "false");
    return dark ? "dark" : "light";
  }
  // A drawing of a view shown, or kept out of sight: transparent, below the one shown,
  // hidden from assistive technology, its thumbnails or tokens out of the tab order.
  function attnbookShowDrawing(svg, shown) {
    svg.toggleAttribute("data-shown", shown);
    svg.style.opacity = shown ? "" : "0";
    svg.style.zIndex = shown ? "1" : "";
    if (shown) svg.removeAttribute("aria-hidden");
    else svg.setAttribute("aria-hidden", "true");
    svg.querySelectorAll("[tabindex]").forEach(function (el) { el.tabIndex = shown ? 0 : -1; });
    return svg;
  }
  function attnbookWidth(id) {
    var el = document.getElementById(id);
    return (el && el.clientWidth) || 970;
  }
  function headSquares() {
    var shown = root.querySelector("svg[data-shown]") || root.querySelector("svg");
    var groups = shown ? shown.querySelectorAll(":scope > g") : [];
    return groups.length ? groups[groups.length - 1].querySelectorAll("rect") : [];
  }
  function syncLegend() {
    var squares = headSquares();
    frame.querySelectorAll("button[data-head]").forEach(function (button) {
      var square = squares[+button.dataset.head];
      if (square) {
        var on = square.getAttribute("fill") === button.dataset.colour;
        button.setAttribute("aria-pressed", String(on));
      }
    });
  }
  // a thumbnail is pressed while it is shown large: bertviz frames it then
  function syncThumbnails() {
    root.querySelectorAll(".attn_background[role=button]").forEach(function (square) {
      var open = square.getAttribute("stroke-opacity") !== "0";
      square.setAttribute("aria-pressed", String(open));
    });
  }
  // The text alternative is the summary of the attention type (and layer) picked; every
  // one is in the page, keyed "type" or "type-layer", the others hidden.
  function syncSummary() {
    var filter = root.querySelector("#filter"), layer = root.querySelector("#layer");
    var key = (filter ? filter.value : "0") + (layer && layer.value ? "-" + layer.value : "");
    var summaries = frame.querySelectorAll("p[data-summary]");
    var match = Array.prototype.find.call(summaries, function (p) {
      return p.dataset.summary === key;
    });
    if (!match) return;  // a picker not filled yet
    summaries.forEach(function (p) { p.hidden = p !== match; });
    frame.setAttribute("aria-describedby", match.id);
  }
  root.addEventListener("change", syncSummary);
  frame.querySelectorAll("button[data-head]").forEach(function (button) {
    button.addEventListener("click", function () {
      var square = headSquares()[+button.dataset.head];
      if (square) square.dispatchEvent(new MouseEvent("click", {bubbles: true}));
      syncLegend();
    });
  });
  // the squares are redrawn with the view, and bertviz's own clicks change them too
  new MutationObserver(function () { syncLegend(); syncThumbnails(); }).observe(root, {
    childList: true, subtree: true, attributes: true, attributeFilter: ["fill"]
  });
  var theme = attnbookTheme();
  function draw() {
    require.config({paths: paths});
    %(body)s
  }
  function redrawOnThemeChange() {
    new MutationObserver(function () {
      if (attnbookTheme() === theme) return;
      theme = attnbookTheme();
      root.innerHTML = template;
      syncSummary();  // the pickers are back at their first option
      draw();
    }).observe(document.documentElement, {attributes: true, attributeFilter: ["data-theme"]});
  }
  function load() {
    if (%(themed)s) redrawOnThemeChange();
    if (window.requirejs) { draw(); return; }
    var s = document.createElement("script");
    s.src = base ? base + "require.js" : "%(require)s";
    s.onload = draw;
    document.head.appendChild(s);
  }
  // require.js must come after the page's own scripts, some of which are UMD bundles
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", load);
  else load();
})();
"""


def _as_layers(attention: Sequence[torch.Tensor] | torch.Tensor, name: str) -> list[torch.Tensor]:
    """Per-layer weights, each ``(1, h, T_q, T_k)`` as bertviz expects, rounded."""
    layers = list(attention.unbind(0)) if isinstance(attention, torch.Tensor) else list(attention)
    if not layers:
        raise ValueError(f"{name}: no layers given")
    out = []
    for i, w in enumerate(layers):
        w = torch.as_tensor(w).detach().double().cpu()  # double: 0.123 stays "0.123" in JSON
        if w.dim() == 3:
            w = w.unsqueeze(0)
        if w.dim() != 4 or w.size(0) != 1:
            raise ValueError(
                f"{name}[{i}] must be (h, T_q, T_k) or (1, h, T_q, T_k), got {tuple(w.shape)}"
            )
        out.append(torch.round(w, decimals=DECIMALS))
    return out


def _installed_bertviz() -> str:
    try:
        return version("bertviz")
    except PackageNotFoundError:
        return "(version unknown)"


def _apply(text: str, patches: Sequence[tuple[str, str, str]], part: str) -> str:
    """``text``, the part of bertviz's output named ``part``, with each patch (name, exact
    text, replacement) applied in turn; raises BertvizPatchError unless each patch's text
    is found exactly once."""
    for name, old, new in patches:
        found = text.count(old)
        if found != 1:
            raise BertvizPatchError(
                f"bertviz patch {name!r} does not apply to {part}: its text is found {found} "
                f"times, not once. bertviz {_installed_bertviz()} is installed; the patches "
                f"are for bertviz {BERTVIZ_VERSION} (pip install bertviz=={BERTVIZ_VERSION})."
            )
        text = text.replace(old, new)
    return text


def _markup_patches(view: str, n_types: int, n_layers: int) -> list[tuple[str, str, str]]:
    """Patches to bertviz's HTML before its script, for the pickers it has: a layer picker
    (head view), an attention picker (more than one attention type)."""
    patches = [_REQUIRE_TAG]
    if view == "head":
        hidden = " hidden" if n_layers == 1 else ""
        patches.append(
            (
                "layer picker labelled",
                'Layer: <select id="layer"></select>',
                f'<label{hidden}>Layer <select id="layer"></select></label>',
            )
        )
    if n_types > 1:
        patches += [
            (
                "attention picker labelled",
                'Attention: <select id="filter">',
                '<label>Attention <select id="filter">',
            ),
            (
                "attention picker's label closed",
                "</select>\n            </span>",
                "</select></label>\n            </span>",
            ),
        ]
    return patches


def _params(raw: str) -> tuple[str, dict]:
    """The parameters bertviz draws from (``const params = {…};`` in its script), as it
    wrote them and parsed: the weights and tokens of each attention type after its own
    filtering and prettifying."""
    start = raw.index("const params = ") + len("const params = ")
    params, end = json.JSONDecoder().raw_decode(raw, start)
    return raw[start:end], params


def _heads_sentence(w: torch.Tensor, k_tokens: list[str], heads: Sequence) -> str:
    """For each head of one layer ``w`` (h, T_q, T_k): the key token it weights most, on
    average over the queries."""
    parts = []
    for head, row in zip(heads, w.mean(dim=1), strict=True):  # (T_k,): weight each key receives
        k = int(row.argmax())
        parts.append(f"head {head + 1}: {k_tokens[k]!r} ({row[k]:.2f})")
    return "; ".join(parts)


def _summary(data: dict, name: str | None, layers: list, heads: list, shown: list) -> str:
    """One attention type's weights in words: one sentence per layer in ``shown``, one clause
    per head (layers and heads counted from 1, as the views show them)."""
    attn = torch.tensor(data["attn"], dtype=torch.float64)  # (L, h, T_q, T_k)
    q_tokens, k_tokens = data["left_text"], data["right_text"]
    opening = (
        f"{attn.size(0)} layer(s) of {attn.size(1)} heads over {len(q_tokens)} query and "
        f"{len(k_tokens)} key tokens ({' '.join(q_tokens)})."
    )
    sentences = [
        f"{'In' if i else 'Key with the most attention on average in'} layer {layer + 1}: "
        f"{_heads_sentence(attn[layers.index(layer)], k_tokens, heads)}."
        for i, layer in enumerate(shown)
    ]
    return (f"{name} attention: " if name else "") + " ".join([opening, *sentences])


def _summaries(view: str, params: dict) -> dict[str, str]:
    """Every summary a reader's picks can call for, keyed as the loader looks them up:
    "type" in the model view (which draws every layer), "type-layer" in the head view
    (type: the attention picker's value, layer: the layer picker's)."""
    types = params["attention"]
    layers = params.get("include_layers") or list(range(len(types[0]["attn"])))
    heads = params.get("include_heads") or list(range(len(types[0]["attn"][0])))
    out = {}
    for f, data in enumerate(types):
        name = data["name"] if len(types) > 1 else None  # the picker's option, if any
        if view == "model":
            out[str(f)] = _summary(data, name, layers, heads, layers)
        else:
            for layer in layers:
                out[f"{f}-{layer}"] = _summary(data, name, layers, heads, [layer])
    return out


def _first_drawn(view: str, params: dict) -> str:
    """The key of the summary of what bertviz draws first."""
    key = str(params.get("default_filter", "0"))
    if view == "model":
        return key
    layer = params.get("layer")
    return f"{key}-{params['include_layers'][0] if layer is None else layer}"


def _summary_markup(view: str, params: dict) -> tuple[str, str]:
    """Every summary as a paragraph, all hidden but the first drawn (a screen reader reads
    one text alternative); returns that one's id and the markup."""
    first, prefix = _first_drawn(view, params), f"{params['root_div_id']}-summary-"
    paragraphs = "".join(
        f'<p id="{prefix}{key}" data-summary="{key}" class="attnbook-visually-hidden"'
        f"{'' if key == first else ' hidden'}>{html.escape(text)}</p>"
        for key, text in _summaries(view, params).items()
    )
    return prefix + first, paragraphs


def _numbers(indices: Sequence[int]) -> str:
    """Indices counted from 1, as a reader reads them: "1–4", or "2, 5" when not a run."""
    shown = [i + 1 for i in indices]
    if len(shown) > 2 and shown == list(range(shown[0], shown[-1] + 1)):
        return f"{shown[0]}–{shown[-1]}"
    return ", ".join(map(str, shown))


def _legend(view: str, params: dict) -> str:
    """What the view's rows, columns and colours are; layers and heads counted from 1."""
    attn = params["attention"][0]["attn"]  # (L, h, T_q, T_k)
    n_layers, n_heads = len(attn), len(attn[0])
    if view == "model":
        layers = params.get("include_layers") or list(range(n_layers))
        heads = params.get("include_heads") or list(range(n_heads))
        one_row = len(layers) == 1
        rows = f"one row: layer {layers[0] + 1}" if one_row else f"rows: layers {_numbers(layers)}"
        columns = f"head {heads[0] + 1}" if len(heads) == 1 else f"heads {_numbers(heads)}"
        return (
            f"{rows.capitalize()}; columns: {columns}. Each thumbnail joins every "
            "token (left) to the tokens it attends to (right), darker for more weight; click "
            "one (or press Enter on it) to see it large with its tokens."
        )
    buttons = "".join(
        f'<button type="button" data-head="{i}" data-colour="{HEAD_COLOURS[i % 10]}" '
        f'aria-pressed="true" aria-label="head {i + 1}"><span class="attnbook-bertviz-swatch" '
        f'style="background:{HEAD_COLOURS[i % 10]}"></span>{i + 1}</button>'
        for i in range(n_heads)
    )
    return (
        "One colour per head; lines join each token (left) to the tokens it attends to "
        f"(right), darker for more weight. Heads shown: {buttons}"
    )


def _wrap(raw: str, view: str, patches) -> HTML:
    """Rewrite bertviz's HTML: site libraries, theme, fit, labels, legend, summaries."""
    params_json, params = _params(raw)
    tag = '<script type="text/javascript">'
    start, end = raw.index(tag), raw.rindex("</script>")
    n_types, n_layers = len(params["attention"]), len(params["attention"][0]["attn"])
    markup_patches = _markup_patches(view, n_types, n_layers)
    markup = _apply(raw[:start], markup_patches, f"{view}_view.py's HTML")
    params_comment = _PARAMS_COMMENT.replace("PYTHON_PARAMS", params_json)
    script_patches = (_REQUIRE_CONFIG, ("params not repeated in a comment", params_comment, ""))
    body = _apply(raw[start + len(tag) : end], (*script_patches, *patches), f"{view}_view.js")
    vis_id = re.search(r'id="(bertviz-[0-9a-f]+)"', raw)[1]
    loader = _LOADER % {
        "id": vis_id,
        "d3": _CDN_D3,
        "jquery": _CDN_JQUERY,
        "require": _CDN_REQUIRE,
        "themed": "true" if view == "model" else "false",
        "body": body,
    }
    title = "Attention weights, " + ("every layer and head" if view == "model" else "by head")
    summary_id, summaries = _summary_markup(view, params)
    return HTML(
        f'<figure class="attnbook-bertviz" data-view="{view}" aria-label="{html.escape(title)}" '
        f'aria-describedby="{summary_id}"><style>{_STYLE}</style>'
        f'<p class="attnbook-bertviz-legend">{_legend(view, params)}</p>'
        f"{summaries}"
        f'<div class="attnbook-bertviz-box">{markup}</div>'
        f'<script type="text/javascript">{loader}</script></figure>'
    )


def _prepare(kwargs: dict) -> dict:
    for key in ("attention", "encoder_attention", "decoder_attention", "cross_attention"):
        if kwargs.get(key) is not None:
            kwargs[key] = _as_layers(kwargs[key], key)
    return kwargs


def _first_view(kwargs: dict) -> tuple[list[torch.Tensor], list[str], list[str]]:
    """The weights and tokens checked against each other: self-attention, else the first
    given."""
    if kwargs.get("attention") is not None:
        tokens = list(kwargs["tokens"] or [])
        return kwargs["attention"], tokens, tokens
    enc, dec = list(kwargs.get("encoder_tokens") or []), list(kwargs.get("decoder_tokens") or [])
    for key, q, k in (
        ("encoder_attention", enc, enc),
        ("decoder_attention", dec, dec),
        ("cross_attention", dec, enc),
    ):
        if kwargs.get(key) is not None:
            return kwargs[key], q, k
    raise ValueError("give attention (with tokens) or encoder/decoder/cross attention")


def _check_tokens(layers: list[torch.Tensor], q_tokens: list[str], k_tokens: list[str]) -> None:
    T_q, T_k = layers[0].shape[-2:]
    if (len(q_tokens), len(k_tokens)) != (T_q, T_k):
        raise ValueError(
            f"weights are (…, {T_q}, {T_k}) but there are {len(q_tokens)} query and "
            f"{len(k_tokens)} key tokens"
        )


def head_view(attention=None, tokens=None, **kwargs) -> HTML:
    """bertviz's head view of per-layer weights ``[(1, h, T_q, T_k), …]``.

    Accepts bertviz's keyword arguments (``encoder_attention``, ``cross_attention``,
    ``encoder_tokens``, ``decoder_tokens``, ``layer``, ``heads``…).
    """
    from bertviz import head_view as _head_view

    kwargs = _prepare({"attention": attention, "tokens": tokens, **kwargs})
    layers, q_tokens, k_tokens = _first_view(kwargs)
    _check_tokens(layers, q_tokens, k_tokens)
    raw = _head_view(html_action="return", **kwargs).data
    return _wrap(raw, "head", HEAD_VIEW_PATCHES)


def model_view(attention=None, tokens=None, **kwargs) -> HTML:
    """bertviz's model view (every layer × every head) of per-layer weights."""
    from bertviz import model_view as _model_view

    kwargs = _prepare({"attention": attention, "tokens": tokens, **kwargs})
    layers, q_tokens, k_tokens = _first_view(kwargs)
    _check_tokens(layers, q_tokens, k_tokens)
    kwargs.setdefault("display_mode", "light")
    raw = _model_view(html_action="return", **kwargs).data
    return _wrap(raw, "model", MODEL_VIEW_PATCHES)
