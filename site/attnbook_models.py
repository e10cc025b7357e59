"""The models that run in the reader's browser, served by the book's site (a Sphinx extension).

- **Files:** after the build, the shipped date model's export (:mod:`attnbook.web`: a
  manifest and one binary of weights) is written to ``_static/attnbook-models/dates/``, and
  the translator explorer's ES module and stylesheet to ``_static/attnbook-models/``
  (``translator.js``, ``translator.css``). They are generated from the package on every build,
  never committed.
- **Widget pages:** a chapter's saved widget state holds each explorer's traits. A
  :class:`~attnbook.viz.TranslatorExplorer` carries its weights (what Colab and JupyterLab
  need); when it also names the site's copy of those same weights (``weights_url``, with the
  same sha256), the bytes are dropped from the page's state and the page fetches the file
  instead: a few kilobytes of state per page, the weights fetched once.
- **Markdown pages:** a page containing ``<div class="attnbook-translator"
  data-model="dates"></div>`` gets the stylesheet and a module script that draws the same
  explorer into it (``mountPlaceholders`` of ``translator.js``).
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.util import logging

from attnbook import web

logger = logging.getLogger(__name__)
STATE_TYPE = "application/vnd.jupyter.widget-state+json"
_PLACEHOLDER = re.compile(r"<div\b[^>]*\battnbook-translator\b[^>]*\bdata-model=")


@cache
def served_weights() -> dict[str, str]:
    """The weights files the site serves, relative to ``_static/``, and their sha256."""
    manifest, _ = web.pack_date_model()
    url = web.site_path(web.DATE_MODEL) + manifest["weights"]["file"]
    return {url: manifest["weights"]["sha256"]}


def write_site_models(static: str | Path) -> list[Path]:
    """Write the models and the translator's module and stylesheet under ``static``."""
    from attnbook.viz import TranslatorExplorer

    folder = Path(static) / web.SITE_MODELS
    manifest = web.export_date_model(folder / web.DATE_MODEL)
    module, css = folder / "translator.js", folder / "translator.css"
    module.write_text(TranslatorExplorer._esm, encoding="utf-8")
    css.write_text(TranslatorExplorer._css, encoding="utf-8")
    return [manifest, manifest.parent / web.WEIGHTS, module, css]


def strip_served_weights(state: dict, served: dict[str, str]) -> list[str]:
    """Drop, in place, the ``weights`` buffer of every widget whose ``weights_url`` the site
    serves with the same sha256; returns the ids of the widgets stripped."""
    stripped = []
    for model_id, widget in state.get("state", {}).items():
        traits = widget.get("state", {})
        url = traits.get("weights_url")
        sha = (traits.get("manifest") or {}).get("weights", {}).get("sha256")
        if widget.get("model_module") != "anywidget" or not url:
            continue
        if served.get(url) != sha:
            logger.info(
                f"widget {model_id}: its weights are not the site's {url}; kept in the page"
            )
            continue
        buffers = widget.get("buffers") or []
        kept = [b for b in buffers if b.get("path") != ["weights"]]
        if len(kept) != len(buffers) or traits.get("weights"):
            widget["buffers"] = kept
            traits.pop("weights", None)
            stripped.append(model_id)
    return stripped


def _strip_page(app: Sphinx, pagename: str, context: dict) -> None:
    """The page's saved widget state without the weights the site serves."""
    js_files = getattr(app.env, "nb_metadata", {}).get(pagename, {}).get("js_files", {})
    _, kwargs = js_files.get("ipywidgets_state", (None, {}))
    if not kwargs.get("body"):
        return
    state = json.loads(kwargs["body"])
    if not strip_served_weights(state, served_weights()):
        return
    body = json.dumps(state).replace("</script>", r"<\/script>")
    kwargs["body"] = body  # what later handlers (attnbook_site) read
    scripts = context.get("script_files", [])
    for i, script in enumerate(scripts):
        attributes = getattr(script, "attributes", {})
        if attributes.get("type") == STATE_TYPE:
            scripts[i] = type(script)(script.filename, **{**attributes, "body": body})


def placeholder_script(module_url: str, weights_kb: int | None = None) -> str:
    """The module script that draws the translator into a page's placeholders.

    A placeholder with ``data-load="click"`` (the landing page: a light page first) gets a
    button instead, naming the download; the translator's module and weights are fetched
    only when the reader presses it. Other placeholders are drawn at once. The button speaks
    the page's language, in the words of the translator's string tables.
    """
    from attnbook.viz.explorers.translator import translator_strings

    if not module_url.startswith((".", "/")):
        module_url = "./" + module_url  # a relative module specifier starts with ./ or ../
    key = "translator.button" if weights_kb else "translator.button.plain"
    words = {
        language: {
            "button": table[key].replace("{kb}", str(weights_kb)),
            "loading": table["translator.loading"],
        }
        for language, table in translator_strings().items()
    }
    return f"""const mount = () => import("{module_url}").then((m) => m.mountPlaceholders());
const all = "div.attnbook-translator[data-model]";
const words = {json.dumps(words, ensure_ascii=False)};
for (const el of document.querySelectorAll(`${{all}}[data-load="click"]`)) {{
  const say = words[/^zh\\b/i.test(el.closest("[lang]")?.lang || "") ? "zh" : "en"];
  const button = document.createElement("button");
  button.type = "button";
  button.className = "attnbook-translator-load";
  button.textContent = say.button;
  button.addEventListener("click", () => {{
    delete el.dataset.load;
    button.textContent = say.loading;
    button.disabled = true;
    mount();
  }}, {{ once: true }});
  el.replaceChildren(button);
}}
if (document.querySelector(`${{all}}:not([data-load="click"])`)) mount();"""


def _placeholders(app: Sphinx, context: dict) -> None:
    if not _PLACEHOLDER.search(context.get("body") or ""):
        return
    module = context["pathto"](f"_static/{web.SITE_MODELS}/translator.js", 1)
    app.add_css_file(f"{web.SITE_MODELS}/translator.css")
    manifest, _ = web.pack_date_model()
    weights_kb = round(manifest["weights"]["bytes"] / 1024)
    app.add_js_file(None, body=placeholder_script(module, weights_kb), type="module")


def _page_context(app: Sphinx, pagename: str, templatename: str, context: dict, doctree) -> None:
    if app.builder.format != "html":
        return
    _strip_page(app, pagename, context)
    _placeholders(app, context)


def _write(app: Sphinx, exception: Exception | None) -> None:
    if exception is None and app.builder.format == "html":
        write_site_models(Path(app.outdir) / "_static")


def setup(app: Sphinx) -> dict:
    # after myst-nb has added the page's widget state (500), before attnbook_site reads it (900)
    app.connect("html-page-context", _page_context, priority=850)
    app.connect("build-finished", _write)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
