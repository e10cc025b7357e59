"""Time each chapter's execution and a cold build of the whole book.

Usage: `make benchmark` (or `.venv/bin/python benchmarks/build_times.py [--no-build]`).
Writes benchmarks/results/build_times.md: each chapter's time and its slowest cells. Targets:
each chapter <= 60 s on a 2-core CPU with 2 threads, as the build runs it (a free Colab
runtime has 2 cores), all chapters <= 500 s, a cold build of the book <= 10 min.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

import nbformat
import torch
from nbclient import NotebookClient
from tqdm import tqdm

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "benchmarks" / "results" / "build_times.md"
CHAPTER_BUDGET_S, CHAPTERS_BUDGET_S, BUILD_BUDGET_S = 60, 500, 600
SLOWEST_CELLS = 3


def _cell_seconds(cell) -> float:
    timing = cell.metadata.get("execution", {})
    start, end = timing.get("iopub.execute_input"), timing.get("shell.execute_reply")
    if not (start and end):
        return 0.0
    parse = lambda s: datetime.fromisoformat(s.replace("Z", "+00:00"))  # noqa: E731
    return (parse(end) - parse(start)).total_seconds()


def time_notebook(path: Path) -> tuple[float, list[tuple[float, int, str]]]:
    """Wall time to execute one notebook top to bottom in a fresh kernel (as the build does),
    and its slowest code cells as (seconds, index among code cells, first line)."""
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb,
        timeout=600,
        kernel_name="python3",
        record_timing=True,
        resources={"metadata": {"path": str(path.parent)}},
    )
    start = time.perf_counter()
    client.execute()
    elapsed = time.perf_counter() - start
    code = [c for c in nb.cells if c.cell_type == "code"]
    cells = [
        (_cell_seconds(c), i, next((ln for ln in c.source.splitlines() if ln.strip()), ""))
        for i, c in enumerate(code)
    ]
    return elapsed, sorted(cells, reverse=True)[:SLOWEST_CELLS]


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
    parser.add_argument("chapters", nargs="*", help="only these notebooks (default: all)")
    args = parser.parse_args()
    notebooks = [Path(p).resolve() for p in args.chapters] or sorted(
        (ROOT / "notebooks").glob("*.ipynb")
    )
    # the kernels run as the build runs them (the Makefile's BUILD_ENV): no progress bars,
    # every figure also drawn for the dark theme and for phones
    os.environ.update(TQDM_DISABLE="1", ATTNBOOK_FIGURE_VARIANTS="1")
    times, slowest = {}, {}
    for path in tqdm(notebooks, desc="executing chapters"):
        times[path.name], slowest[path.name] = time_notebook(path)
    lines = [
        "# Build times",
        "",
        f"Measured by `benchmarks/build_times.py` on {platform.machine()}, "
        f"{os.cpu_count()} CPU cores, Python {platform.python_version()}, "
        f"torch {torch.__version__}, {torch.get_num_threads()} threads. Each chapter runs "
        "in a fresh kernel as the build runs it: no progress bars, every figure also drawn "
        "for the dark theme and for phones (a reader's notebook draws each figure once).",
        "",
        f"| chapter | execution (s) | within {CHAPTER_BUDGET_S} s | slowest cells (s, code cell) |",
        "|---|---:|:---:|---|",
    ]
    for name, t in times.items():
        cells = "; ".join(f"{s:.1f} (#{i} `{first[:40]}`)" for s, i, first in slowest[name])
        within = "yes" if t <= CHAPTER_BUDGET_S else "**no**"
        lines.append(f"| `{name}` | {t:.1f} | {within} | {cells.replace('|', '∣')} |")
    total = sum(times.values())
    within = "yes" if total <= CHAPTERS_BUDGET_S else "**no**"
    lines.append(f"| all {len(times)} | {total:.1f} | {within} (budget {CHAPTERS_BUDGET_S} s) | |")
    ok = all(t <= CHAPTER_BUDGET_S for t in times.values()) and total <= CHAPTERS_BUDGET_S
    if not (args.no_build or args.chapters):
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
    if args.chapters:  # a partial run: printed, not written over the table of all chapters
        print("\n".join(lines))
        return 0 if ok else 1
    OUT.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(OUT.read_text(encoding="utf-8"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
