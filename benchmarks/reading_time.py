"""How long each chapter takes to read: its core path and its optional parts.

Counted from the built pages (`make book`) by the rule of ``site/reading_time.py``: prose at
200 words a minute, visible code at 10 lines a minute; optional is what the page marks
``attnbook-further`` (sections labelled ``further-…``, collapsed asides, cells tagged
``further``). Writes ``benchmarks/results/reading_time.md``. Targets: every core path at
most 25 minutes (chapter 1 at most 15), the whole book's core path at most 3.5 hours.

Usage: ``.venv/bin/python benchmarks/reading_time.py [--site _build/html]``
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "site"))
from reading_time import reading_time  # noqa: E402

OUT = ROOT / "benchmarks" / "results" / "reading_time.md"
CORE_BUDGET_MIN, FIRST_CHAPTER_BUDGET_MIN, BOOK_BUDGET_MIN = 25, 15, 210


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--site", type=Path, default=ROOT / "_build" / "html")
    args = parser.parse_args()
    pages = sorted((args.site / "notebooks").glob("*.html"))
    if not pages:
        raise SystemExit(f"no chapters in {args.site}: run `make book` first")
    lines = [
        "# Reading time",
        "",
        "Counted from the built pages by `benchmarks/reading_time.py` (prose at 200 words a "
        "minute, visible code at 10 lines a minute; explorers, figures and outputs not "
        "counted).",
        "",
        "| chapter | core path (min) | words | code lines | going further (min) "
        "| words | code lines | core within budget |",
        "|---|---:|---:|---:|---:|---:|---:|:---:|",
    ]
    ok, core_total, further_total = True, 0.0, 0.0
    for i, page in enumerate(pages):
        t = reading_time(page.read_text(encoding="utf-8"))
        budget = FIRST_CHAPTER_BUDGET_MIN if i == 0 else CORE_BUDGET_MIN
        within = t.core <= budget
        ok &= within
        core_total += t.core
        further_total += t.further
        lines.append(
            f"| `{page.stem}` | {t.core:.1f} | {t.core_words} | {t.core_code_lines} "
            f"| {t.further:.1f} | {t.further_words} | {t.further_code_lines} "
            f"| {'yes' if within else '**no**'} (≤ {budget}) |"
        )
    ok &= core_total <= BOOK_BUDGET_MIN
    lines += [
        "",
        f"The whole book: core path **{core_total / 60:.1f} h** (budget "
        f"{BOOK_BUDGET_MIN / 60:.1f} h), going further {further_total / 60:.1f} h.",
    ]
    OUT.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(OUT.read_text(encoding="utf-8"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
