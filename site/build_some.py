"""Build the site with only some chapters (and the landing page), to look at them quickly.

Usage: ``.venv/bin/python site/build_some.py 02_attention 06_encoder_decoder [--out DIR]``

Writes a table of contents with the landing page and the named chapters only and builds it
as ``make book`` does (the same environment: no progress bars, figures drawn for every
screen) into ``DIR/_build/html`` (default ``_build/some``), with its own execution cache, so
it can run beside a full build. The pages' tests run on it with
``ATTNBOOK_SITE=DIR/_build/html .venv/bin/pytest -m build tests/test_site.py …``
(cross-references to chapters left out are warnings, so the build is not run with ``-W``).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("chapters", nargs="+", help="notebook names, e.g. 02_attention")
    parser.add_argument("--out", type=Path, default=ROOT / "_build" / "some")
    args = parser.parse_args()
    for name in args.chapters:
        if not (ROOT / "notebooks" / f"{name}.ipynb").is_file():
            raise SystemExit(f"no chapter notebooks/{name}.ipynb")
    toc = "format: jb-book\nroot: book/intro\nchapters:\n" + "".join(
        f"  - file: notebooks/{name}\n" for name in args.chapters
    )
    env = {**os.environ, "TQDM_DISABLE": "1", "ATTNBOOK_FIGURE_VARIANTS": "1"}
    with tempfile.NamedTemporaryFile("w", suffix=".yml", delete=False) as f:
        f.write(toc)
    args.out.mkdir(parents=True, exist_ok=True)
    jb = Path(sys.executable).parent / "jupyter-book"
    command = [str(jb), "build", str(ROOT), "--toc", f.name, "--path-output", str(args.out)]
    result = subprocess.run(command, env=env)
    os.unlink(f.name)
    print(f"built {args.out / '_build' / 'html'}")
    return result.returncode


if __name__ == "__main__":
    sys.exit(main())
