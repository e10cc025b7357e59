"""Time each chapter's execution and a cold build of the whole book.

Usage: `make benchmark` (or `.venv/bin/python benchmarks/build_times.py [--no-build]`).
Writes benchmarks/results/build_times.md. Targets: each chapter <= 120 s on a 2-core
CPU (a free Colab runtime has 2 cores), a cold build of the book <= 10 min.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat
import torch
from nbclient import NotebookClient
from tqdm import tqdm

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "benchmarks" / "results" / "build_times.md"
CHAPTER_BUDGET_S, BUILD_BUDGET_S = 120, 600


def time_notebook(path: Path) -> float:
    """Wall time to execute one notebook top to bottom in a fresh kernel (as the build does)."""
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    )
    start = time.perf_counter()
    client.execute()
    return time.perf_counter() - start


def time_cold_build() -> tuple[float, int]:
    """A full `jupyter-book build` with an empty execution cache, into a temporary folder."""
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [
            str(Path(sys.executable).parent / "jupyter-book"),
            "build",
            str(ROOT),
            "--path-output",
            tmp,
            "-W",
            "-n",
            "--keep-going",
            "-q",
        ]
        start = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        elapsed = time.perf_counter() - start
        html = Path(tmp) / "_build" / "html"
        skip = {"_static", "_sources", "_images", "reports"}
        pages = [p for p in html.rglob("*.html") if not skip & set(p.relative_to(html).parts)]
        return elapsed, len(pages)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--no-build", action="store_true", help="skip the cold book build")
    args = parser.parse_args()
    notebooks = sorted((ROOT / "notebooks").glob("*.ipynb"))
    times = {}
    for path in tqdm(notebooks, desc="executing chapters"):
        times[path.name] = time_notebook(path)
    lines = [
        "# Build times",
        "",
        f"Measured by `benchmarks/build_times.py` on {platform.machine()}, "
        f"{os.cpu_count()} CPU cores, Python {platform.python_version()}, "
        f"torch {torch.__version__}.",
        "",
        f"| chapter | execution (s) | within {CHAPTER_BUDGET_S} s |",
        "|---|---:|:---:|",
    ]
    lines += [
        f"| `{name}` | {t:.1f} | {'yes' if t <= CHAPTER_BUDGET_S else '**no**'} |"
        for name, t in times.items()
    ]
    ok = all(t <= CHAPTER_BUDGET_S for t in times.values())
    if not args.no_build:
        build_s, pages = time_cold_build()
        ok &= build_s <= BUILD_BUDGET_S
        lines += [
            "",
            f"Cold build of the whole book (`jupyter-book build -W -n --keep-going`, empty "
            f"execution cache): **{build_s:.0f} s** for {pages} pages "
            f"(budget {BUILD_BUDGET_S} s).",
        ]
    else:
        lines += ["", "The cold build of the whole book was not timed in this run (`--no-build`)."]
    OUT.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(OUT.read_text(encoding="utf-8"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
