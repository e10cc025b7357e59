"""How many steps the copy task needs: the copy recipe (``train_copy_model``: 32 sequences a
step, warm-up over 30 steps, then a linear decay) run for fewer steps than its 280 and at
other peak learning rates, in three seeds each.

Usage: `.venv/bin/python benchmarks/copy_steps.py [--threads 2]`.
Writes benchmarks/results/copy_steps.md: for every run, the exact-match rate of greedy
copies of ``copy_accuracy``'s 1000 new sequences, and the median training time of the runs
of each length (the machine may be shared). The target of ``train_times.py``, 100% in
<= 3 s, needs a run of few enough steps to fit in 3 s that still copies every sequence.
"""

from __future__ import annotations

import argparse
import itertools
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import torch

from attnbook.recipes import copy_accuracy, train_copy_model

OUT = Path(__file__).resolve().parent / "results" / "copy_steps.md"
STEPS = (180, 220, 280)  # 280: the recipe's own
PEAK_LRS = (3e-3, 4e-3, 6e-3)  # 4e-3: the recipe's own
SEEDS = (0, 1, 2)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--threads", type=int, default=min(2, os.cpu_count() or 1))
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    accuracy: dict[tuple[int, float], list[float]] = {}
    seconds: dict[int, list[float]] = {steps: [] for steps in STEPS}
    for steps, peak_lr in itertools.product(STEPS, PEAK_LRS):
        for seed in SEEDS:
            start = time.perf_counter()
            model, _ = train_copy_model(steps, peak_lr=peak_lr, seed=seed, progress=False)
            seconds[steps].append(time.perf_counter() - start)
            accuracy.setdefault((steps, peak_lr), []).append(copy_accuracy(model))
        print(steps, peak_lr, accuracy[steps, peak_lr], flush=True)
    lines = [
        "# Copy task: steps and accuracy",
        "",
        f"Measured by `benchmarks/copy_steps.py` on {platform.machine()}, {os.cpu_count()} CPU "
        f"cores, torch {torch.__version__} ({args.threads} thread"
        f"{'s' if args.threads > 1 else ''}). `train_copy_model` with 32 sequences a step and "
        "a warm-up over 30 steps; greedy exact match on `copy_accuracy`'s 1000 new sequences "
        "in seeds " + ", ".join(str(s) for s in SEEDS) + ".",
        "",
        "| steps | peak learning rate | exact match, per seed | all 100%? | training (s, median) |",
        "|---:|---:|---|:---:|---:|",
        *(
            f"| {steps} | {peak_lr:g} | "
            + ", ".join(f"{a:.1%}" for a in accuracy[steps, peak_lr])
            + f" | {'yes' if min(accuracy[steps, peak_lr]) == 1.0 else 'no'} | "
            f"{statistics.median(seconds[steps]):.1f} |"
            for steps, peak_lr in itertools.product(STEPS, PEAK_LRS)
        ),
    ]
    OUT.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(OUT.read_text(encoding="utf-8"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
