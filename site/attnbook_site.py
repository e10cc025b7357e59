"""The book site's own Sphinx extension: light pages, a quiet build, a few theme fixes.

- **Widgets:** a page keeps only its anywidget explorers. Outputs of any other widget
  (tqdm's progress bars from the build's training loops) are removed with their
  saved state, and a cell left with nothing to show is removed too. A page with no
  explorer left loads no widget code at all; one with explorers loads the small
  static renderer ``_static/attnbook/widgets.js`` (set as ``nb_ipywidgets_js``).
- **Figures:** load lazily; a figure without alt text gets its cell's caption
  (``mystnb.figure.caption``), else the title ``attnbook.viz.style`` stores in the
  PNG, instead of the image's file name. A figure the build drew for every screen
  (``attnbook.viz.variants``: light and dark, wide and narrow, as one HTML output) has
  its drawings written to ``_images/`` as files, so a page fetches only the one it shows.
- **Icons and search:** the theme's Font Awesome script is replaced by the CSS masks
  of ``attnbook-vendor/icons.css`` (see ``site/copy_assets.py`` and the template
  ``site/templates/static/webpack-macros.html``), and the theme stylesheet's icon-font
  code points are dropped from the built copy; only the search page loads the
  search index; search results quote the article, not the buttons above it.
- **Shell:** the landing page's title does not repeat the book's name (template
  ``site/templates/layout.html``); the top bar holds no second search box; a font stack
  names common CJK fonts (``attnbook/site.css``).
- Names the folder of the site's self-hosted browser libraries in a
  ``<meta name="attnbook-vendor">`` tag, so bertviz views (see
  ``attnbook.viz.bertviz_adapter``) load require.js, d3 and jQuery from the site.
- **Core path and going further:** a section labelled ``(further-…)=``, a code cell tagged
  ``further`` and a dropdown admonition (a collapsed aside) get the class
  ``attnbook-further``; each chapter's header then states how long its core path and its
  optional parts take to read (``site/reading_time.py``), and so do the landing page's
  cards (``<span class="attnbook-card-time" data-chapter="…">``).
- **Two languages:** the book is built twice, in English and in Simplified Chinese
  (``site/i18n.py``; the Chinese site sits at ``zh-cn/`` in the English one). Every page has
  a link to the same page in the other language in its header (template
  ``site/templates/attnbook-language.html``) and a ``<link rel="alternate" hreflang>``;
  ``<html lang>`` is a language tag (``zh-CN``, not Sphinx's ``zh_CN``); the site's own
  strings (the reading times) are marked with ``_()`` and translated by the catalogue
  ``locales/zh_CN/LC_MESSAGES/sphinx.po``, which also fills the theme's missing strings.
- Drops repeated ``<script>`` entries: sphinx-thebe (and sphinx-togglebutton)
  register their inline config scripts twice, which the browser reports as a
  redeclared ``const``.
"""

from __future__ import annotations

import base64
import gettext
import hashlib
import html
import json
import posixpath
import re
import shutil
from pathlib import Path

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.locale import get_translation

_ = get_translation("sphinx")  # in the Chinese build, the site's catalogue answers first

HERE = Path(__file__).resolve().parent
STATE_TYPE = "application/vnd.jupyter.widget-state+json"
VIEW_TYPE = "application/vnd.jupyter.widget-view+json"
_VIEW_SCRIPT = re.compile(
    r'<script type="application/vnd\.jupyter\.widget-view\+json">(.*?)</script>', re.S
)


def _config_inited(app: Sphinx, config: Config) -> None:
    # the theme's templates, minus the Font Awesome script and the search index
    config.templates_path = [str(HERE / "templates"), *config.templates_path]
    # one search entry point: the sidebar's field (and the article header's button on phones)
    config.html_theme_options.setdefault("navbar_persistent", [])
    # the link to the other language, left of the header's buttons
    config.html_theme_options.setdefault(
        "article_header_end", ["attnbook-language.html", "article-header-buttons.html"]
    )


# ---------------------------------------------------------------- widgets


def _widget_state(app: Sphinx, docname: str) -> dict | None:
    """The saved widget state myst-nb registered for a page, if any."""
    js_files = getattr(app.env, "nb_metadata", {}).get(docname, {}).get("js_files", {})
    kwargs = js_files.get("ipywidgets_state", (None, {}))[1]
    body = kwargs.get("body")
    return json.loads(body) if body else None


def _anywidget_ids(state: dict) -> set[str]:
    return {
        model_id
        for model_id, model in state.get("state", {}).items()
        if model.get("model_module") == "anywidget"
    }


def _prune_widget_outputs(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """Remove views of widgets that are not explorers (progress bars) from the page."""
    state = _widget_state(app, docname)
    if state is None:
        return
    keep = _anywidget_ids(state)
    for raw in list(doctree.findall(nodes.raw)):
        views = _VIEW_SCRIPT.findall(raw.astext())
        if not views:
            continue
        kept = [v for v in views if json.loads(v).get("model_id") in keep]
        if len(kept) == len(views):
            continue
        if kept:
            text = "".join(f'<script type="{VIEW_TYPE}">{v}</script>' for v in kept)
            raw.replace_self(nodes.raw("", text, format="html"))
        else:
            _remove_with_empty_parents(raw)


def _remove_with_empty_parents(node: nodes.Element) -> None:
    """Remove ``node``; then its output and cell containers if nothing is left in them."""
    parent = node.parent
    parent.remove(node)
    while parent is not None and isinstance(parent, nodes.container) and not parent.children:
        grandparent = parent.parent
        grandparent.remove(parent)
        parent = grandparent
    # a cell whose input is removed on the page and whose outputs are all gone
    if isinstance(parent, nodes.container) and "cell" in parent.get("classes", []):
        if not any("cell_output" in c.get("classes", []) for c in parent.children) and not any(
            "cell_input" in c.get("classes", []) for c in parent.children
        ):
            parent.parent.remove(parent)


def _widget_scripts(app: Sphinx, pagename: str, context: dict) -> None:
    """Keep only the explorers' state; no widget script on a page without explorers."""
    state = _widget_state(app, pagename)
    if state is None:
        return
    keep = _anywidget_ids(state)
    manager = {posixpath.join("_static", path) for path in app.config.nb_ipywidgets_js}
    scripts = []
    for script in context.get("script_files", []):
        attributes = getattr(script, "attributes", {})
        if attributes.get("type") == STATE_TYPE:
            if not keep:
                continue
            pruned = {**state, "state": {k: v for k, v in state["state"].items() if k in keep}}
            attributes = {**attributes, "body": json.dumps(pruned)}
            script = type(script)(script.filename, **attributes)
        elif not keep and getattr(script, "filename", None) in manager:
            continue
        scripts.append(script)
    context["script_files"] = scripts


# ---------------------------------------------------------------- figures


def _png_title(path: Path) -> str:
    """The ``Title`` text chunk of a PNG (written by ``attnbook.viz.style``), or ''."""
    from PIL import Image

    from attnbook.viz.style import plain_text

    try:
        with Image.open(path) as image:
            return plain_text(str(image.info.get("Title", "")).strip())
    except (OSError, ValueError):
        return ""


def _figures(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """Notebook figures load lazily and get alt text from their caption or title.

    Lazy loading (``loading="lazy"``) lets the page's load event come before the
    figures further down; the alt text replaces the file name docutils would write.
    """
    for image in doctree.findall(nodes.image):
        if image.get("uri", "").endswith((".png", ".jpg", ".jpeg", ".svg", ".gif")):
            image.setdefault("loading", "lazy")
        if image.get("alt"):
            continue
        figure = image.parent if isinstance(image.parent, nodes.figure) else None
        caption = next(iter(figure.findall(nodes.caption)), None) if figure else None
        alt = caption.astext().strip() if caption is not None else ""
        if not alt:
            uri = image.get("uri", "")
            source = Path(app.srcdir, uri.lstrip("/")) if uri else None
            alt = _png_title(source) if source and source.suffix == ".png" else ""
        if alt:
            image["alt"] = alt


_DATA_PNG = re.compile(r"data:image/png;base64,([A-Za-z0-9+/=]+)")
_ALT = re.compile(r'alt="[^"]*"')


def _figure_variants(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """Each drawing of a figure drawn for every screen becomes a file of ``_images/``,
    named by its content, and the figure's caption (if any) its alt text."""
    if app.builder.format != "html":
        return
    images = Path(app.outdir, "_images")
    here = posixpath.dirname(docname)
    for raw in list(doctree.findall(nodes.raw)):
        text = raw.astext()
        if 'class="attnbook-figure"' not in text:
            continue

        def to_file(match: re.Match) -> str:
            data = base64.b64decode(match.group(1))
            name = f"attnbook-{hashlib.sha1(data).hexdigest()[:20]}.png"
            images.mkdir(parents=True, exist_ok=True)
            if not (images / name).exists():
                (images / name).write_bytes(data)
            return posixpath.relpath(f"_images/{name}", here or ".")

        text = _DATA_PNG.sub(to_file, text)
        figure = next((a for a in _ancestors(raw) if isinstance(a, nodes.figure)), None)
        caption = next(iter(figure.findall(nodes.caption)), None) if figure else None
        if caption is not None and caption.astext().strip():
            alt = html.escape(caption.astext().strip(), quote=True)
            text = _ALT.sub(lambda _, alt=alt: f'alt="{alt}"', text)
        raw.replace_self(nodes.raw("", text, format="html"))


def _ancestors(node: nodes.Node):
    while node.parent is not None:
        node = node.parent
        yield node


# ---------------------------------------------------------------- core path and further

FURTHER = "attnbook-further"


def _mark_further(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """Optional parts get the class the reading time and the styles look for."""
    for section in doctree.findall(nodes.section):
        if any(i.startswith("further-") for i in section["ids"]):
            section["classes"].append(FURTHER)
    for node in doctree.findall(nodes.Element):
        classes = node.get("classes", [])
        if "tag_further" in classes or (
            isinstance(node, nodes.Admonition) and "dropdown" in classes
        ):
            classes.append(FURTHER)


_H1_END = re.compile(r"(<h1[^>]*>.*?</h1>)", re.S)
_CARD_TIME = re.compile(
    r'<span class="attnbook-card-time" data-chapter="([^"]+)">[^<]*</span>', re.S
)


def reading_time_text(core: int, further: int) -> str:
    """The reading times as the chapter's header states them, in the build's language."""
    # TRANSLATORS: a chapter's reading time, e.g. "Core path 25 min"
    text = _("Core path {minutes} min").format(minutes=core)
    if further:
        # TRANSLATORS: after the core path's time: " · going further 30 min"
        text += _(" · going further {minutes} min").format(minutes=further)
    return text


def _reading_times(app: Sphinx, exception: Exception | None) -> None:
    """Each chapter's reading time under its title, and on the landing page's cards."""
    if exception is not None or app.builder.format != "html":
        return
    from reading_time import reading_time  # site/, as this extension

    out = Path(app.outdir)
    times = {}
    for docname in sorted(app.env.found_docs):
        if not docname.startswith("notebooks/"):
            continue
        page = out / f"{docname}.html"
        if not page.is_file():
            continue
        html_text = page.read_text(encoding="utf-8")
        t = reading_time(html_text)
        times[docname.split("/", 1)[1]] = text = reading_time_text(
            t.core_minutes, t.further_minutes
        )
        line = f'<p class="attnbook-reading-time">{html.escape(text)}</p>'
        # under the article's title (the page starts with a copy of it printed on paper only)
        at = max(html_text.find("<article"), 0)
        body = _H1_END.sub(lambda m, s=line: m.group(1) + s, html_text[at:], count=1)
        page.write_text(html_text[:at] + body, "utf-8")
    for page in out.glob("**/*.html"):
        html_text = page.read_text(encoding="utf-8")
        if "attnbook-card-time" in html_text:
            filled = _CARD_TIME.sub(
                lambda m: (
                    f'<span class="attnbook-card-time" data-chapter="{m.group(1)}">'
                    f"{html.escape(times.get(m.group(1), ''))}</span>"
                ),
                html_text,
            )
            page.write_text(filled, encoding="utf-8")


# ---------------------------------------------------------------- the landing page's cards

_CARD_IMG = re.compile(
    r'<img ([^>]*)class="sd-card-img-top"([^>]*)src="([^"]*_images/)([^"/]+)\.png"'
)
CARDS = Path("book") / "images" / "cards"  # in the book's source folder
CARD_WIDTH, CARD_HEIGHT = 320, 200  # site/make_cards.py: 3.2 × 2.0 in at 100 px an inch


def _dark_cards(app: Sphinx, exception: Exception | None) -> None:
    """Each card's picture also in the dark theme's colours (``site/make_cards.py`` draws
    ``<chapter>_dark.png``), shown in its place when the page is dark."""
    if exception is not None or app.builder.format != "html":
        return
    out = Path(app.outdir)
    for page in out.glob("**/*.html"):
        text = page.read_text(encoding="utf-8")
        if "sd-card-img-top" not in text:
            continue

        def both(m: re.Match) -> str:
            before, after, folder, name = m.groups()
            dark = Path(app.srcdir) / CARDS / f"{name}_dark.png"
            if not dark.is_file():
                return m.group(0)
            shutil.copyfile(dark, out / "_images" / dark.name)
            size = f'width="{CARD_WIDTH}" height="{CARD_HEIGHT}" '  # as drawn, in CSS px
            return (
                f'<img {before}class="sd-card-img-top only-dark dark-light"{after}{size}'
                f'src="{folder}{name}_dark.png" /><img {before}'
                f'class="sd-card-img-top only-light"{after}{size}src="{folder}{name}.png"'
            )

        page.write_text(_CARD_IMG.sub(both, text), encoding="utf-8")


# ---------------------------------------------------------------- theme CSS

# pydata-sphinx-theme's stylesheet carries Font Awesome's code point for each of its
# ~2,000 icons (.fa-x:before{content:"\f..."}), a third of the file; the site draws its
# few icons with masks (icons.css), so those rules are dead weight on every page.
_ICON_GLYPH_RULE = re.compile(
    r'(?<=[}\n])(?:\.fa-[a-z0-9-]+:(?:before|after),?)+\{content:"[^"]*"\}'
)


def _slim_theme_css(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    css = Path(app.outdir, "_static", "styles", "pydata-sphinx-theme.css")
    if css.is_file():
        text = css.read_text(encoding="utf-8")
        css.write_text(_ICON_GLYPH_RULE.sub("", text), encoding="utf-8")


# ---------------------------------------------------------------- languages

#: The book's languages: Sphinx's language -> where its pages are in the site, the language
#: tag, and the switch that leads to it (its text and title in that language).
LANGUAGES = {
    "en": ("", "en", "English", "Read this page in English"),
    "zh_CN": ("zh-cn/", "zh-CN", "中文", "阅读本页的中文版"),
}


CATALOGUES = HERE.parent / "locales"


class _Words(gettext.NullTranslations):
    """Translations read from a catalogue, asked before the ones behind them."""

    def __init__(self, words: dict[str, str], behind: gettext.NullTranslations | None) -> None:
        super().__init__()
        self._words = words
        if behind is not None:
            self.add_fallback(behind)

    def gettext(self, message: str) -> str:
        return self._words.get(message) or super().gettext(message)

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        if n == 1 and singular in self._words:
            return self._words[singular]
        return super().ngettext(singular, plural, n)


def _site_catalogue(app: Sphinx) -> None:
    """The site's catalogue (``locales/<language>/LC_MESSAGES/sphinx.po``: the site's own
    strings and the theme's missing ones) in front of Sphinx's and the themes': for ``_()``
    in Python (Sphinx's and pydata-sphinx-theme's domain, sphinx-book-theme's) and in the
    templates (which got Sphinx's translator when the builder was made)."""
    po = CATALOGUES / (app.config.language or "en") / "LC_MESSAGES" / "sphinx.po"
    if not po.is_file():
        return
    from babel.messages.pofile import read_po
    from sphinx import locale

    with po.open("rb") as f:
        words = {m.id: m.string for m in read_po(f) if m.id and m.string and not m.fuzzy}
    for catalog in ("sphinx", "booktheme"):
        key = ("general", catalog)
        locale.translators[key] = _Words(words, locale.translators.get(key))
    app.translator = locale.translators[("general", "sphinx")]
    templates = getattr(app.builder, "templates", None)
    if templates is not None and hasattr(templates, "environment"):
        templates.environment.install_gettext_translations(app.translator)


def language_tag(language: str | None) -> str:
    """A BCP 47 tag for ``<html lang>``: ``zh-CN`` for Sphinx's ``zh_CN``."""
    language = language or "en"
    return LANGUAGES[language][1] if language in LANGUAGES else language.replace("_", "-")


def other_language_urls(language: str | None, pagename: str) -> list[dict]:
    """The same page in the book's other languages, as URLs relative to this page."""
    here = LANGUAGES.get(language or "en", LANGUAGES["en"])[0]
    up = "../" * pagename.count("/") + "../" * here.count("/")  # to the English site's root
    return [
        {"url": f"{up}{folder}{pagename}.html", "lang": tag, "text": text, "title": title}
        for code, (folder, tag, text, title) in LANGUAGES.items()
        if code != (language if language in LANGUAGES else "en")
    ]


def _language_switch(app: Sphinx, pagename: str, templatename: str, context: dict, doctree) -> None:
    others = other_language_urls(app.config.language, pagename)
    context["attnbook_languages"] = others
    context["language"] = language_tag(app.config.language)
    links = "".join(
        f'\n<link rel="alternate" hreflang="{o["lang"]}" href="{html.escape(o["url"])}">'
        for o in others
    )
    context["metatags"] = context.get("metatags", "") + links
    if context.get("theme_search_bar_text") == "Search this book...":  # jupyter-book's
        context["theme_search_bar_text"] = _("Search this book...")


# ---------------------------------------------------------------- page


def _math_scripts(app: Sphinx, pagename: str, context: dict) -> None:
    """No MathJax on a page without math of its own.

    Sphinx loads MathJax on a page whose toctree includes a page with math, so the landing
    page (whose toctree holds every chapter) would load it for nothing.
    """
    if app.env.get_domain("math").data["has_equations"].get(pagename, True):
        return
    mathjax = posixpath.basename(app.config.mathjax_path)
    context["script_files"] = [
        script
        for script in context.get("script_files", [])
        if posixpath.basename(getattr(script, "filename", "") or "") != mathjax
        and not (getattr(script, "attributes", {}).get("body") or "").startswith("window.MathJax")
    ]


def _page_context(app: Sphinx, pagename: str, templatename: str, context: dict, doctree) -> None:
    vendor = context["pathto"]("_static/attnbook-vendor/", 1)
    context["metatags"] = (
        context.get("metatags", "") + f'\n<meta name="attnbook-vendor" content="{vendor}">'
    )
    if pagename == "search":
        app.add_js_file("attnbook/search.js", defer="defer")
    _widget_scripts(app, pagename, context)
    _math_scripts(app, pagename, context)
    seen, unique = set(), []
    for script in context.get("script_files", []):
        # the same inline script may be registered with filename "" and with None
        filename = getattr(script, "filename", str(script)) or None
        key = (filename, tuple(sorted(getattr(script, "attributes", {}).items())))
        if key not in seen:
            seen.add(key)
            unique.append(script)
    context["script_files"] = unique


def setup(app: Sphinx) -> dict:
    app.connect("config-inited", _config_inited)
    app.connect("builder-inited", _site_catalogue)
    app.add_css_file("attnbook-vendor/icons.css")
    app.add_css_file("attnbook/site.css")
    app.add_js_file("attnbook/page.js", defer="defer")
    app.connect("doctree-resolved", _prune_widget_outputs)
    app.connect("doctree-resolved", _figures)
    app.connect("doctree-resolved", _figure_variants)
    app.connect("doctree-resolved", _mark_further)
    # before pydata-sphinx-theme (500) drops the header's templates that render empty
    app.connect("html-page-context", _language_switch, priority=400)
    # after myst-nb has added each page's widget scripts
    app.connect("html-page-context", _page_context, priority=900)
    app.connect("build-finished", _slim_theme_css)
    app.connect("build-finished", _reading_times)
    app.connect("build-finished", _dark_cards)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
