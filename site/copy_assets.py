"""Copy the browser libraries the site serves itself from node_modules into site/static.

Run after `npm ci` (the Makefile does both). The destination, site/static/attnbook-vendor,
is a Sphinx static folder (not committed): the built pages load MathJax (only pages with
math), require.js, d3 and jQuery (only bertviz views) from `_static/attnbook-vendor/`.

It also writes `icons.css`: the few Font Awesome icons the theme shows, as CSS masks
made from the SVGs of the pinned `@fortawesome/fontawesome-free` package, so no page
loads Font Awesome's 1.4 MB script or its web fonts.
"""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path
from urllib.parse import quote

import yaml

ROOT = Path(__file__).resolve().parent.parent
NODE = ROOT / "node_modules"
DEST = ROOT / "site" / "static" / "attnbook-vendor"
FONTAWESOME = NODE / "@fortawesome" / "fontawesome-free"

# destination (relative to DEST) -> source (relative to node_modules)
FILES = {
    "require.js": "requirejs/require.js",
    "d3.min.js": "d3/dist/d3.min.js",
    "jquery.min.js": "jquery/dist/jquery.min.js",
}
# MathJax 3 as separate components (configured in _config.yml): the loader, the core, TeX
# input with the extensions it may load, HTML output and its fonts, and the hidden MathML
# that screen readers read. The combined tex-chtml.js also holds the context menu (108 KB
# gzip of its 264 KB), which the book does not load.
MATHJAX = (
    "startup.js",
    "core.js",
    "input/tex-base.js",
    "input/tex/extensions",
    "output/chtml.js",
    "output/chtml/fonts/tex.js",
    "output/chtml/fonts/woff-v2",
    "a11y/assistive-mml.js",
)

# Every icon the theme (pydata-sphinx-theme, sphinx-book-theme) can show, by Font Awesome
# family and canonical name; the CSS also answers to each icon's aliases (home, search...).
ICONS = {
    "solid": [
        "angle-down",
        "angle-left",
        "angle-right",
        "arrow-up",
        "arrow-up-right-from-square",
        "bars",
        "bell",
        "chevron-down",
        "circle-exclamation",
        "circle-half-stroke",
        "circle-info",
        "circle-xmark",
        "code",
        "compress",
        "download",
        "expand",
        "file",
        "file-lines",
        "file-pdf",
        "house",
        "lightbulb",
        "list",
        "magnifying-glass",
        "magnifying-glass-minus",
        "moon",
        "outdent",
        "pencil",
        "play",
        "rocket",
        "share",
        "sun",
        "triangle-exclamation",
        "xmark",
    ],
    "brands": ["github", "gitlab", "bitbucket"],
}
ICON_CLASSES = (".fa-solid", ".fas", ".fa-brands", ".fab")

# The theme's CSS also draws icons from the icon font in ::before/::after (admonition
# titles, external and download links...): the same masks replace those glyphs.
PSEUDO_ICONS = {
    ".admonition>.admonition-title::after, div.admonition>.admonition-title::after": "bell",
    ".admonition.note>.admonition-title::after, div.admonition.note>.admonition-title::after": (
        "circle-info"
    ),
    ".admonition:is(.attention,.important)>.admonition-title::after,"
    " div.admonition:is(.attention,.important)>.admonition-title::after": "circle-exclamation",
    ".admonition:is(.caution,.warning,.danger)>.admonition-title::after,"
    " div.admonition:is(.caution,.warning,.danger)>.admonition-title::after": (
        "triangle-exclamation"
    ),
    ".admonition.error>.admonition-title::after, div.admonition.error>.admonition-title::after": (
        "circle-xmark"
    ),
    ".admonition:is(.hint,.tip)>.admonition-title::after,"
    " div.admonition:is(.hint,.tip)>.admonition-title::after": "lightbulb",
    ".admonition.seealso>.admonition-title::after,"
    " div.admonition.seealso>.admonition-title::after": "share",
    ".admonition.admonition-todo>.admonition-title::after,"
    " div.admonition.admonition-todo>.admonition-title::after": "pencil",
    ".nav-link.nav-external::after, nav.bd-links li>a.reference.external::after": (
        "arrow-up-right-from-square"
    ),
    "a.reference.download::before": "download",
    "div#searchbox p.highlight-link a::before": "magnifying-glass-minus",
    "span.versionmodified::before": "circle-exclamation",
    "ul.bd-breadcrumbs li.breadcrumb-item:not(.breadcrumb-home)::before": "angle-right",
    ".bd-sidebar-secondary.hide:not(:hover) .onthispage::after": "angle-down",
}


def _mask(value: str) -> str:
    return f"-webkit-mask-image: {value}; mask-image: {value};"


def icons_css() -> str:
    """CSS that draws each icon of ICONS as a mask over the text colour."""
    meta = yaml.safe_load((FONTAWESOME / "metadata" / "icons.yml").read_text(encoding="utf-8"))
    version = yaml.safe_load((FONTAWESOME / "package.json").read_text(encoding="utf-8"))["version"]
    classes = ",".join(ICON_CLASSES)
    pseudo = ", ".join(PSEUDO_ICONS)
    variables, rules = [], []
    for family, names in ICONS.items():
        for name in names:
            svg = (FONTAWESOME / "svgs" / family / f"{name}.svg").read_text(encoding="utf-8")
            svg = re.sub(r"<!--.*?-->", "", svg).strip()
            _, _, w, h = (float(v) for v in re.search(r'viewBox="([^"]+)"', svg)[1].split())
            uri = "data:image/svg+xml," + quote(svg, safe=" /=:;,'\"").replace('"', "'")
            variables.append(f'  --attnbook-icon-{name}: url("{uri}");')
            aliases = [name, *((meta.get(name, {}).get("aliases") or {}).get("names") or [])]
            selector = ",".join(f".fa-{a}" for a in aliases)
            rules.append(
                f"{selector} {{ --attnbook-icon: var(--attnbook-icon-{name});"
                f" --attnbook-icon-width: {w / h:.3f}em; }}"
            )
    lines = [
        f"/* Icons: Font Awesome Free {version} by @fontawesome, https://fontawesome.com",
        "   License: CC BY 4.0 (https://creativecommons.org/licenses/by/4.0/), see",
        "   https://fontawesome.com/license/free. Generated by site/copy_assets.py. */",
        ":root {",
        *variables,
        "}",
        # no glyph from the theme's icon font (so the font is never downloaded) ...
        f":is({classes})::before {{ content: none !important; }}",
        # ... the SVG as a mask painted in the text colour instead
        f":where({classes}) {{ display: inline-block; height: 1em;"
        " width: var(--attnbook-icon-width, 1em); vertical-align: -0.125em;"
        " background-color: currentColor; font-style: normal;"
        " -webkit-mask: var(--attnbook-icon) no-repeat center / contain;"
        " mask: var(--attnbook-icon) no-repeat center / contain; }",
        *rules,
        f"{pseudo} {{ content: '' !important; font: inherit !important;"
        " display: inline-block; width: 1em; height: 1em; vertical-align: -0.125em;"
        " background-color: currentColor; -webkit-mask: no-repeat center / contain;"
        " mask: no-repeat center / contain; }",
        *(
            f"{sel} {{ {_mask(f'var(--attnbook-icon-{icon})')} }}"
            for sel, icon in PSEUDO_ICONS.items()
        ),
    ]
    return "\n".join(lines) + "\n"


def main() -> int:
    if not NODE.is_dir():
        print("node_modules is missing: run `npm ci` first", file=sys.stderr)
        return 1
    if DEST.exists():
        shutil.rmtree(DEST)
    for dest, src in FILES.items():
        (DEST / dest).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(NODE / src, DEST / dest)
    for part in MATHJAX:
        src, dest = NODE / "mathjax" / "es5" / part, DEST / "mathjax" / part
        if src.is_dir():
            shutil.copytree(src, dest, ignore=shutil.ignore_patterns("*.map", "*.ts"))
        else:
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dest)
    (DEST / "icons.css").write_text(icons_css(), encoding="utf-8")
    n = sum(1 for p in DEST.rglob("*") if p.is_file())
    print(f"copied {n} files into {DEST.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
