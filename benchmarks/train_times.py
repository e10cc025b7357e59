"""Time the book's two standard training runs and (with --save) write the shipped checkpoint.

Usage: `.venv/bin/python benchmarks/train_times.py [--save]`.
Writes benchmarks/results/train_times.md. Targets (2 CPU cores): the date model reaches
>= 99% exact match on 1000 held-out dates in <= 30 s; the copy task reaches 100% greedy
accuracy in <= 10 s.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from importlib import resources
from pathlib import Path

import torch

from attnbook.model import count_parameters, save_checkpoint
from attnbook.recipes import (
    DATE_CHECKPOINT,
    copy_accuracy,
    date_accuracy,
    held_out_dates,
    train_copy_model,
    train_date_model,
)

OUT = Path(__file__).resolve().parent / "results" / "train_times.md"


def steps_per_second(threads: int, steps: int = 60) -> float:
    """Training speed of the date model with ``threads`` intra-op threads."""
    torch.set_num_threads(threads)
    start = time.perf_counter()
    train_date_model(steps=steps, warmup=10, progress=False)
    return steps / (time.perf_counter() - start)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--save", action="store_true", help="write the shipped checkpoint")
    args = parser.parse_args()
    cores = os.cpu_count() or 1
    speed = {n: steps_per_second(n) for n in sorted({1, min(2, cores), cores})}
    torch.set_num_threads(min(2, cores))  # PyTorch's default on a 2-core machine

    start = time.perf_counter()
    dates, history = train_date_model(progress=False)
    date_s = time.perf_counter() - start
    acc, per_format, _ = date_accuracy(dates, held_out_dates())

    start = time.perf_counter()
    copy, copy_history = train_copy_model(progress=False)
    copy_s = time.perf_counter() - start
    copy_acc = copy_accuracy(copy)

    lines = [
        "# Training times",
        "",
        f"Measured by `benchmarks/train_times.py` on {platform.machine()}, "
        f"{os.cpu_count()} CPU cores, torch {torch.__version__} "
        f"({torch.get_num_threads()} threads).",
        "",
        "| run | parameters | steps | training (s) | accuracy | target |",
        "|---|---:|---:|---:|---:|---|",
        f"| dates (1000 held-out dates, exact match) | {count_parameters(dates):,} | "
        f"{len(history['loss'])} | {date_s:.1f} | {acc:.1%} | >= 99% in <= 30 s |",
        f"| copy (vocabulary 11, length 10, greedy) | {count_parameters(copy):,} | "
        f"{len(copy_history['loss'])} | {copy_s:.1f} | {copy_acc:.1%} | 100% in <= 10 s |",
        "",
        "Date accuracy per input format: "
        + ", ".join(f"`{f}` {a:.1%}" for f, a in sorted(per_format.items())),
        "",
        "Date-model training speed by number of intra-op threads: "
        + ", ".join(f"{n} thread{'s' * (n > 1)}: {v:.1f} steps/s" for n, v in speed.items()),
    ]
    OUT.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(OUT.read_text(encoding="utf-8"))
    if args.save:
        target = resources.files("attnbook.checkpoints").joinpath(DATE_CHECKPOINT)
        save_checkpoint(dates, str(target), dtype=torch.float16, task="dates")
        print(f"saved {target} ({Path(str(target)).stat().st_size / 1024:.0f} KB)")
    return 0 if acc >= 0.99 and copy_acc == 1.0 else 1


if __name__ == "__main__":
    sys.exit(main())
