"""How long `make test` takes, stage by stage.

`make test` writes each stage's start and end to ``_build/test-times.log`` and ends with
``test_times.py --log _build/test-times.log``, which prints the table. ``--fresh`` clones this
repository into a temporary folder, runs `make test` there cold (no venv, no npm packages,
no build) and writes the table to ``benchmarks/results/test_times.md``. Target: 25 min on
this 2-core machine (CI stops at 90).
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

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "benchmarks" / "results" / "test_times.md"
BUDGET_MIN = 25
NAMES = {  # make's target -> what the stage does
    ".venv/.installed": "venv: pip installs requirements.txt",
    "node_modules/.package-lock.json": "npm ci (beside the venv)",
    "book": "book: execute the 11 chapters, build the site, write the notebooks",
    "lint": "lint: ruff, ESLint, Prettier",
    "unit": "unit: package, notebook sources, explorers and translator in Chromium",
    "_build/colab-env/.created": "colab-env: the Colab stand-in's venv",
    "site-test": "site-test: built pages in Chromium, the generated notebooks' checks",
    "screens-test": "screens-test: every page's figures and screens, the translator's pages",
    "lab-test": "lab-test: the explorers' gallery and every chapter in JupyterLab",
    "colab-test": "colab-test: every chapter run in the Colab stand-in",
}


def read_log(path: Path) -> tuple[float, float, list[tuple[str, float, float]]]:
    """(start, end, [(stage, start, end)]) from make's stamps."""
    starts, stages, begin, finish = {}, [], None, None
    for line in path.read_text(encoding="utf-8").splitlines():
        stamp, name, what = line.split()
        t = float(stamp)
        if name == "test":
            begin, finish = (t, finish) if what == "start" else (begin, t)
        elif what == "start":
            starts[name] = t
        elif name in starts:
            stages.append((name, starts.pop(name), t))
    if begin is None:
        raise SystemExit(f"{path}: no `test start` line")
    finish = finish or max((end for _, _, end in stages), default=begin)
    return begin, finish, sorted(stages, key=lambda s: s[1])


def table(path: Path) -> str:
    begin, finish, stages = read_log(path)
    lines = [
        "| stage | starts at (min) | ends at (min) | wall time (min) |",
        "|---|---:|---:|---:|",
    ]
    for name, start, end in stages:
        lines.append(
            f"| {NAMES.get(name, name)} | {(start - begin) / 60:.1f} | {(end - begin) / 60:.1f} "
            f"| {(end - start) / 60:.1f} |"
        )
    total = (finish - begin) / 60
    verdict = "within" if total <= BUDGET_MIN else "**over**"
    lines += ["", f"Total: **{total:.1f} min** ({verdict} the {BUDGET_MIN} min target)."]
    return "\n".join(lines)


def fresh(into: Path | None = None) -> int:
    """`make test` on a fresh clone, in a temporary folder or in ``into`` (kept afterwards,
    with its build and its tests' times, for a look at what the run made)."""
    with tempfile.TemporaryDirectory() as tmp:
        clone = into or Path(tmp) / "clone"
        if clone.exists():
            raise SystemExit(f"{clone} exists: give a new folder")
        subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
        commit = subprocess.run(
            ["git", "-C", str(clone), "rev-parse", "--short", "HEAD"],
            capture_output=True, text=True, check=True,
        ).stdout.strip()  # fmt: skip
        start = time.perf_counter()
        run = subprocess.run(["make", "test"], cwd=clone, env={**os.environ})
        wall = (time.perf_counter() - start) / 60
        log = clone / "_build" / "test-times.log"
        text = [
            "# `make test` times",
            "",
            f"One cold run of `make test` on a fresh clone of commit {commit} (no venv, npm "
            f"packages or build; Chromium and fonts already installed from Debian), by "
            f"`benchmarks/test_times.py --fresh` on {platform.machine()}, {os.cpu_count()} CPU "
            f"cores, Python {platform.python_version()}; exit status {run.returncode}, "
            f"{wall:.1f} min in all.",
            "",
            "Stages side by side, three at a time (make -j3, one PyTorch thread each): the "
            "build beside lint, the package tests and the Colab stand-in (its install, then "
            "every chapter run in it); then the site's checks (in two halves) beside the "
            "JupyterLab checks.",
            "",
            table(log),
        ]
        OUT.write_text("\n".join(text) + "\n", encoding="utf-8")
        print(OUT.read_text(encoding="utf-8"))
        return run.returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--log", type=Path, help="print the stages of this make test log")
    group.add_argument("--fresh", action="store_true", help="time make test on a fresh clone")
    parser.add_argument("--into", type=Path, help="--fresh: clone into this new folder, kept")
    args = parser.parse_args()
    if args.fresh:
        return fresh(args.into)
    print(table(args.log))
    return 0


if __name__ == "__main__":
    sys.exit(main())
