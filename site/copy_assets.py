"""Copy the browser libraries the site serves itself from node_modules into site/static.

Run after `npm ci` (the Makefile does both). The destination, site/static/attnbook-vendor,
is a Sphinx static folder: the built pages load MathJax, require.js, the ipywidgets HTML
manager, the anywidget front end, d3 and jQuery from `_static/attnbook-vendor/`.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NODE = ROOT / "node_modules"
DEST = ROOT / "site" / "static" / "attnbook-vendor"

# destination (relative to DEST) -> source (relative to node_modules)
FILES = {
    "require.js": "requirejs/require.js",
    "d3.min.js": "d3/dist/d3.min.js",
    "jquery.min.js": "jquery/dist/jquery.min.js",
    "anywidget/index.js": "anywidget/dist/index.js",
}
FOLDERS = {
    "mathjax": "mathjax/es5",
    "html-manager": "@jupyter-widgets/html-manager/dist",
}


def main() -> int:
    if not NODE.is_dir():
        print("node_modules is missing: run `npm ci` first", file=sys.stderr)
        return 1
    if DEST.exists():
        shutil.rmtree(DEST)
    for dest, src in FILES.items():
        (DEST / dest).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(NODE / src, DEST / dest)
    for dest, src in FOLDERS.items():
        shutil.copytree(NODE / src, DEST / dest, ignore=shutil.ignore_patterns("*.map", "*.ts"))
    (DEST / "require-config.js").write_text(REQUIRE_CONFIG, encoding="utf-8")
    n = sum(1 for p in DEST.rglob("*") if p.is_file())
    print(f"copied {n} files into {DEST.relative_to(ROOT)}")
    return 0


# Loaded right after require.js on pages with widgets: widget front ends come from the site.
REQUIRE_CONFIG = """\
(function () {
  var me = document.currentScript ? document.currentScript.src : "";
  var base = me.replace(/require-config\\.js.*$/, "");
  requirejs.config({
    paths: {
      anywidget: base + "anywidget/index",
      // the widget manager finds its fonts and chunks next to its own module URL
      "@jupyter-widgets/html-manager/dist": base + "html-manager",
    },
  });
})();
"""

if __name__ == "__main__":
    sys.exit(main())
