"""A small Sphinx extension for the book's site.

- Names the folder of the site's self-hosted browser libraries in a
  ``<meta name="attnbook-vendor">`` tag, so bertviz views (see
  ``attnbook.viz.bertviz_adapter``) load require.js, d3 and jQuery from the site.
- Drops repeated ``<script>`` entries: sphinx-thebe (and sphinx-togglebutton)
  register their inline config scripts twice, which the browser reports as a
  redeclared ``const``.
"""

from __future__ import annotations

from sphinx.application import Sphinx


def _page_context(app: Sphinx, pagename: str, templatename: str, context: dict, doctree) -> None:
    vendor = context["pathto"]("_static/attnbook-vendor/", 1)
    context["metatags"] = (
        context.get("metatags", "") + f'\n<meta name="attnbook-vendor" content="{vendor}">'
    )
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
    # after myst-nb has added each page's widget scripts
    app.connect("html-page-context", _page_context, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
