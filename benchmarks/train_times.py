"""Time the book's two standard training runs, several times, and (with --save) write the
shipped checkpoint.

Usage: `.venv/bin/python benchmarks/train_times.py [--runs 5] [--threads 2] [--save]`.
Writes benchmarks/results/train_times.md: the median, fastest and slowest of the runs (the
machine may be shared: the median is the number to quote). Targets (2 CPU cores, 2 threads):
the date model reaches >= 99% exact match on 1000 held-out dates in <= 30 s; the copy task
reaches 100% greedy accuracy in <= 3 s. The table also says where a copy step's time goes:
its matrix products and fused attention (``torch.profiler``), and the same run with half as
many sequences a step.

For scale, the copy task is also trained with PyTorch's own layers: the same model, weights,
batches, schedule and loop (``fit``), with its encoder and decoder stacks replaced by the
``nn.Transformer`` that :func:`attnbook.reference.to_torch` builds from them.
"""

from __future__ import annotations

import argparse
import inspect
import os
import platform
import statistics
import sys
import time
from importlib import resources
from pathlib import Path

import torch
from torch import Tensor, nn

from attnbook.data import COPY_VOCAB, held_out_dates
from attnbook.model import Transformer, TransformerConfig, count_parameters, save_checkpoint
from attnbook.recipes import (
    DATE_CHECKPOINT,
    copy_accuracy,
    date_accuracy,
    train_copy_model,
    train_date_model,
)
from attnbook.reference import to_torch
from attnbook.utils import set_seed

OUT = Path(__file__).resolve().parent / "results" / "train_times.md"


class TorchLayers(nn.Module):
    """``model`` with its encoder and decoder stacks run by PyTorch's ``nn.Transformer``,
    called as ``model`` is: ``(src, tgt, need_weights) -> (logits, no weights)``."""

    def __init__(self, model: Transformer) -> None:
        super().__init__()
        self.config = model.config
        self.src_embed, self.tgt_embed = model.src_embed, model.tgt_embed
        self.layers, self.generator = to_torch(model), model.generator

    def forward(self, src: Tensor, tgt: Tensor, need_weights: bool = False) -> tuple:
        T, pad = tgt.size(1), self.config.pad_id
        future = torch.ones(T, T, dtype=torch.bool).triu(1)  # True = masked, PyTorch's way
        y = self.layers(
            self.src_embed(src),
            self.tgt_embed(tgt),
            tgt_mask=future,
            src_key_padding_mask=src == pad,
            tgt_key_padding_mask=tgt == pad,
            memory_key_padding_mask=src == pad,
        )
        return self.generator(y), None  # (B, T, V)


def train_copy_with_torch_layers():
    """``train_copy_model``'s run (same initial weights, batches, schedule and loop) on
    :class:`TorchLayers`. Returns the model and its history."""
    set_seed(0)  # train_copy_model's default seed, before the model is made as there
    return train_copy_model(
        progress=False, model=TorchLayers(Transformer(TransformerConfig.tiny(COPY_VOCAB)))
    )


# The kernels that do a copy step's arithmetic: matrix products and PyTorch's fused attention
# (forward and backward); their names as the profiler reports them.
MATMUL_OPS = ("aten::mm", "aten::addmm", "aten::bmm")
ATTENTION_PREFIX = "aten::_scaled_dot_product_flash_attention_for_cpu"
PROFILED_STEPS = 60


def copy_step_kernels(batch_size: int, steps: int = PROFILED_STEPS) -> float:
    """Milliseconds a copy-task step of ``batch_size`` sequences spends in matrix products
    and fused attention (self time, forward and backward), from ``torch.profiler`` over
    ``steps`` steps of ``train_copy_model``'s run."""
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
        train_copy_model(steps=steps, batch_size=batch_size, progress=False)
    return sum(
        event.self_cpu_time_total / 1e3 / steps
        for event in prof.key_averages()
        if event.key in MATMUL_OPS or event.key.startswith(ATTENTION_PREFIX)
    )


def timed(train) -> tuple[float, float, object, object]:
    """Wall and CPU seconds of ``train()``, and what it returned."""
    wall, cpu = time.perf_counter(), time.process_time()
    model, history = train()
    return time.perf_counter() - wall, time.process_time() - cpu, model, history


def batch_size(train) -> int:
    """The batch size a recipe trains with by default."""
    return inspect.signature(train).parameters["batch_size"].default


def summary(seconds: list[float]) -> str:
    return f"{statistics.median(seconds):.1f} ({min(seconds):.1f}–{max(seconds):.1f})"


def copy_step_lines(
    step_ms: dict[int, float], kernel_ms: dict[int, float], steps: int
) -> list[str]:
    """Where a copy step's time goes, per batch size: ``step_ms`` a whole step,
    ``kernel_ms`` its matrix products and attention; and the least time the recipe's
    arithmetic alone would take for ``steps`` steps."""
    B = batch_size(train_copy_model)
    return [
        "Where a copy step goes (milliseconds a step: the median run over its "
        f"{steps} steps; matrix products and PyTorch's fused attention, forward and "
        f"backward, from `torch.profiler`, self time, mean of {PROFILED_STEPS} steps):",
        "",
        "| sequences a step | step | matrix products and attention | everything else |",
        "|---:|---:|---:|---:|",
        *(
            f"| {b} | {ms:.1f} | {kernel_ms[b]:.1f} | {ms - kernel_ms[b]:.1f} |"
            for b, ms in step_ms.items()
        ),
        "",
        "The arithmetic alone, with nothing else in a step, would take "
        f"{kernel_ms[B] * steps / 1e3:.1f} s for the recipe's {steps} steps of {B}.",
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5, help="runs of each training")
    parser.add_argument("--threads", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--save", action="store_true", help="write the shipped checkpoint")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    runs = {"dates": [], "copy": [], "torch": [], "copy_half": []}
    loads = []
    B = batch_size(train_copy_model)
    half = B // 2
    for _ in range(args.runs):  # interleaved, so that a busy spell hits both alike
        loads.append(os.getloadavg()[0])
        runs["dates"].append(timed(lambda: train_date_model(progress=False)))
        runs["copy"].append(timed(lambda: train_copy_model(progress=False)))
        runs["torch"].append(timed(train_copy_with_torch_layers))
        runs["copy_half"].append(timed(lambda: train_copy_model(batch_size=half, progress=False)))
    dates, date_history = runs["dates"][-1][2:]
    copy, copy_history = runs["copy"][-1][2:]
    torch_history = runs["torch"][-1][3]
    acc, per_format, _ = date_accuracy(dates, held_out_dates())
    copy_acc = copy_accuracy(copy)
    wall = {k: [r[0] for r in v] for k, v in runs.items()}
    cpu = {k: [r[1] for r in v] for k, v in runs.items()}
    step_ms = {  # a copy step, at the recipe's batch size and at half of it
        b: 1e3 * statistics.median(wall[k]) / copy_history.steps
        for b, k in ((B, "copy"), (half, "copy_half"))
    }
    kernel_ms = {b: copy_step_kernels(b) for b in step_ms}
    lines = [
        "# Training times",
        "",
        f"Measured by `benchmarks/train_times.py` on {platform.machine()}, "
        f"{os.cpu_count()} CPU cores, torch {torch.__version__} "
        f"({args.threads} thread{'s' if args.threads > 1 else ''}, "
        f"OMP_WAIT_POLICY={os.environ.get('OMP_WAIT_POLICY', 'unset')}), "
        f"{args.runs} runs of each, interleaved; 1-minute load average before the runs: "
        + ", ".join(f"{x:.1f}" for x in loads)
        + ". Seconds: median (fastest–slowest).",
        "",
        "| run | parameters | steps × batch | training, wall (s) | training, CPU (s) | accuracy "
        "| target |",
        "|---|---:|---:|---:|---:|---:|---|",
        f"| dates (1000 held-out dates, exact match) | {count_parameters(dates):,} | "
        f"{date_history.steps} × {batch_size(train_date_model)} | "
        f"{summary(wall['dates'])} | {summary(cpu['dates'])} | "
        f"{acc:.1%} | >= 99% in <= 30 s |",
        f"| copy (vocabulary 11, length 10, greedy) | {count_parameters(copy):,} | "
        f"{copy_history.steps} × {batch_size(train_copy_model)} | "
        f"{summary(wall['copy'])} | {summary(cpu['copy'])} | "
        f"{copy_acc:.1%} | >= 99.5% in <= 3 s |",
        "",
        "The copy task's run with PyTorch's layers (`nn.Transformer` built by "
        "`attnbook.reference.to_torch`, same weights, batches, schedule and loop): "
        f"{summary(wall['torch'])} s wall, {summary(cpu['torch'])} s CPU; final loss "
        f"(mean of the last 20 steps) {sum(torch_history.loss[-20:]) / 20:.4f}, against "
        f"{sum(copy_history.loss[-20:]) / 20:.4f} for the book's layers.",
        "",
        *copy_step_lines(step_ms, kernel_ms, copy_history.steps),
        "",
        "Date accuracy per input format: "
        + ", ".join(f"`{f}` {a:.1%}" for f, a in sorted(per_format.items())),
    ]
    OUT.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(OUT.read_text(encoding="utf-8"))
    if args.save:
        target = resources.files("attnbook.checkpoints").joinpath(DATE_CHECKPOINT)
        save_checkpoint(dates, str(target), dtype=torch.float16, task="dates")
        print(f"saved {target} ({Path(str(target)).stat().st_size / 1024:.0f} KB)")
    return 0 if acc >= 0.99 and copy_acc >= 0.995 else 1


if __name__ == "__main__":
    sys.exit(main())
