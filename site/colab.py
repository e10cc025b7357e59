"""Each chapter's Colab install cell, derived from the repository named in _config.yml.

`python site/colab.py` (or `make sync-colab`) rewrites the first code cell of every
notebook so that it installs the package from that repository and branch; the
notebook tests check that every chapter agrees with _config.yml.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
import yaml

ROOT = Path(__file__).resolve().parent.parent
TAG = "remove-cell"  # hidden on the site; Colab shows and runs it


def requirement(config_path: Path = ROOT / "_config.yml") -> str:
    """The PEP 508 direct reference to the package in the book's repository."""
    repo = yaml.safe_load(config_path.read_text(encoding="utf-8"))["repository"]
    return f"attnbook @ git+{repo['url'].rstrip('/')}@{repo['branch']}"


def install_cell_source(req: str) -> str:
    """The install cell, formatted as ruff formats it."""
    args = ["sys.executable", '"-m"', '"pip"', '"install"', '"-q"', f'"{req}"']
    lines = "".join(f"            {a},\n" for a in args)
    return (
        "# Colab only: install this book's package (never torch: Colab's own stays).\n"
        "import subprocess\n"
        "import sys\n"
        "\n"
        'if "google.colab" in sys.modules:\n'
        "    subprocess.run(\n"
        "        [\n"
        f"{lines}"
        "        ],\n"
        "        check=True,\n"
        "    )"
    )


def sync(notebook: Path, req: str) -> bool:
    """Make the notebook's first code cell the install cell; True if it changed."""
    nb = nbformat.read(notebook, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    cell = nbformat.v4.new_code_cell(install_cell_source(req), metadata={"tags": [TAG]})
    if code and "google.colab" in code[0].source:
        if code[0].source == cell.source and TAG in code[0].metadata.get("tags", []):
            return False
        code[0].source, code[0].metadata["tags"] = cell.source, [TAG]
    else:
        cell.id = "colab-install"
        nb.cells.insert(1 if nb.cells and nb.cells[0].cell_type == "markdown" else 0, cell)
    nbformat.write(nb, notebook)
    return True


if __name__ == "__main__":
    req = requirement()
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        print(f"{path.name}: {'updated' if sync(path, req) else 'up to date'}")
    sys.exit(0)
