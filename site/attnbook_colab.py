"""Sphinx extension: a chapter's launch and download buttons open the generated notebooks.

sphinx-book-theme builds the Colab and Binder links from `repository.url` and
`repository.branch`, which name the MyST sources. The notebooks readers should open are the
ones `notebooks_for_colab.py` generates: the publishing workflow pushes them to the branch
named by `launch_buttons.notebooks_branch` in `_config.yml` (same paths, `notebooks/NN.ipynb`),
and `make book` copies them beside each chapter's page in the built site. This extension,
run after the theme has made its buttons, points

- the Colab button at `<colab_url>/github/<owner>/<repo>/blob/<notebooks_branch>/<page>.ipynb`,
- the Binder button at `<binderhub_url>/v2/gh/<owner>/<repo>/<notebooks_branch>?urlpath=...`,
- the download button's `.ipynb` at `<page>.ipynb`, the generated notebook.

On the Chinese pages (the build whose `language` is `zh_CN`) the same buttons open the
Chinese notebooks, `zh-cn/<page>.ipynb` on that branch and beside the page.

Without `notebooks_branch` the launch buttons stay as the theme made them.
"""

from __future__ import annotations

import re
from pathlib import Path

from attnbook_site import LANGUAGES  # site/, as this extension
from sphinx.application import Sphinx
from sphinx.locale import get_translation

_ = get_translation("sphinx")

UI_PREFIX = {"classic": "tree", "jupyterlab": "lab/tree"}


def launch_urls(
    repository_url: str, branch: str, path: str, colab_url: str, binder_url: str, ui: str
) -> dict[str, str]:
    """The Colab and Binder links to `path` (relative to the repository) on `branch`."""
    m = re.fullmatch(r"https://github\.com/([^/]+)/([^/]+?)(?:\.git)?/?", repository_url)
    if not m:
        raise ValueError(f"launch buttons need a GitHub repository.url, got {repository_url!r}")
    if ui not in UI_PREFIX:
        raise ValueError(f"notebook_interface must be one of {sorted(UI_PREFIX)}, got {ui!r}")
    owner, repo = m.groups()
    urls = {}
    if colab_url:
        urls["Colab"] = f"{colab_url.rstrip('/')}/github/{owner}/{repo}/blob/{branch}/{path}"
    if binder_url:
        urls["Binder"] = (
            f"{binder_url.rstrip('/')}/v2/gh/{owner}/{repo}/{branch}?urlpath={UI_PREFIX[ui]}/{path}"
        )
    return urls


def _buttons(context: dict, label: str) -> list[dict]:
    for group in context.get("header_buttons", []):
        if group.get("label") == label:
            return group.get("buttons", [])
    return []


def _page_context(app: Sphinx, pagename: str, templatename: str, context: dict, doctree) -> None:
    if Path(app.env.doc2path(pagename)).suffix != ".ipynb":
        return
    options = app.config.html_theme_options
    launch = options.get("launch_buttons", {})
    branch = launch.get("notebooks_branch", "")
    folder = LANGUAGES.get(app.config.language or "en", LANGUAGES["en"])[0]
    if branch and options.get("repository_url"):
        urls = launch_urls(
            options["repository_url"],
            branch,
            f"{folder}{pagename}.ipynb",
            launch.get("colab_url", ""),
            launch.get("binderhub_url", ""),
            launch.get("notebook_interface", "classic"),
        )
        for button in _buttons(context, "launch-buttons"):
            if button.get("text") in urls:
                button["url"] = urls[button["text"]]
    for button in _buttons(context, "download-buttons"):
        if button.get("label") == "download-source-button" and button["url"].endswith(".ipynb"):
            button["url"] = context["pathto"](f"{pagename}.ipynb", 1)
            button["tooltip"] = _("Download the notebook (for Colab or Jupyter)")


def setup(app: Sphinx) -> dict:
    # after sphinx-book-theme's header buttons (priority 501)
    app.connect("html-page-context", _page_context, priority=600)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
