"""The book's two standard training runs, in one place for the chapters, the benchmark and
the shipped checkpoint: the date translator and the copy task. (The number-words
translation runs of the paper in miniature live in ``attnbook.miniature``.)
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Iterator, Sequence
from importlib import resources
from typing import NamedTuple

import torch
from torch import Tensor, nn

from attnbook.checks import check_int, describe
from attnbook.data import (
    COPY_VOCAB,
    DATE_VOCAB,
    copy_batch,
    date_batches,
    date_split,
    held_out_dates,
    unseen_years,
)
from attnbook.decode import greedy_decode, translate
from attnbook.model import Transformer, TransformerConfig, load_checkpoint
from attnbook.train import History, fit, seq2seq_batch_loss, warmup_linear_decay
from attnbook.utils import set_seed

DATE_CHECKPOINT = "dates_tiny.safetensors"


def train_date_model(
    steps: int = 750,
    batch_size: int = 64,
    peak_lr: float = 5e-3,
    warmup: int = 60,
    seed: int = 0,
    device: str | torch.device = "cpu",
    progress: bool = True,
    stop_after: int | None = None,
    **config_overrides,
) -> tuple[Transformer, History]:
    """Train ``TransformerConfig.tiny`` on the date task (train split of ``date_split(0)``).

    The defaults are the recipe of the shipped checkpoint (:func:`load_date_model`):
    750 steps of 64 fresh (date, format) draws, Adam with β = (0.9, 0.98), a linear
    warm-up over 60 steps to 5e-3, then a linear decay to 0. (With ten formats to read,
    the longest 28 characters, 600 steps left the longest inputs at about 98–99.5% exact
    match, depending on the run; 750 reach 99.5% or more in every format.)

    ``stop_after``: take only the first ``stop_after`` of the ``steps`` steps, with the
    learning rates of the whole run: the start of the same run, for example to watch it
    begin without waiting for the end.
    """
    if stop_after is not None:
        check_int("stop_after", stop_after)
        if stop_after > steps:
            raise ValueError(f"stop_after={stop_after} is more than steps={steps}")
    set_seed(seed)
    train_dates, _ = date_split(seed=0)
    config = TransformerConfig.tiny(len(DATE_VOCAB), **config_overrides)
    model = Transformer(config).to(device)
    history = fit(
        model,
        date_batches(train_dates, batch_size, seed),
        seq2seq_batch_loss(),
        steps if stop_after is None else stop_after,
        lambda s: warmup_linear_decay(s, peak_lr, warmup, steps),
        progress=progress,
        desc="dates",
    )
    return model, history


def date_accuracy(
    model: Transformer, examples: Sequence[tuple[str, str, str]]
) -> tuple[float, dict[str, float], list[str]]:
    """Exact-match accuracy overall and per input format, and the predictions (greedy)."""
    if isinstance(examples, str) or not isinstance(examples, Sequence) or not examples:
        raise TypeError(
            "examples must be a non-empty list of (source, ISO target, format) triples such as "
            f"held_out_dates() returns, got {describe(examples)}"
        )
    predictions = translate(model, [s for s, _, _ in examples], DATE_VOCAB)
    right, total = Counter(), Counter()
    for p, (_, y, fmt) in zip(predictions, examples):
        total[fmt] += 1
        right[fmt] += p == y
    per_format = {f: right[f] / total[f] for f in total}
    return sum(right.values()) / len(examples), per_format, predictions


class DateReport(NamedTuple):
    """Exact match of a date model on held-out examples, broken down (fractions in [0, 1])."""

    exact: float  # all examples
    per_format: dict[str, float]  # by input format
    unseen_years: float  # dates from years never seen in training
    seen_years: float  # held-out dates of years seen in training
    n_unseen: int  # how many examples fall in unseen years
    per_century: dict[str, float]  # "10xx" … "29xx"
    predictions: list[str]


def date_report(
    model: Transformer, examples: Sequence[tuple[str, str, str]] | None = None
) -> DateReport:
    """Exact match overall, per input format, on years never seen in training and on the
    others, and per century. ``examples`` default to ``held_out_dates(1000)``."""
    examples = held_out_dates(1000) if examples is None else examples
    exact, per_format, predictions = date_accuracy(model, examples)
    unseen = set(unseen_years(seed=0))
    right, total = Counter(), Counter()
    for p, (_, y, _) in zip(predictions, examples):
        year = dt.date.fromisoformat(y).year
        for key in ("unseen" if year in unseen else "seen", f"{year // 100}xx"):
            total[key] += 1
            right[key] += p == y
    rate = {k: right[k] / total[k] for k in total}
    return DateReport(
        exact,
        dict(sorted(per_format.items())),
        rate.get("unseen", float("nan")),
        rate.get("seen", float("nan")),
        total["unseen"],
        {k: rate[k] for k in sorted(rate) if k.endswith("xx")},
        predictions,
    )


def load_date_model(device: str | torch.device = "cpu") -> Transformer:
    """The date translator shipped with the package (trained by ``train_date_model()``)."""
    path = resources.files("attnbook.checkpoints").joinpath(DATE_CHECKPOINT)
    with resources.as_file(path) as file:
        model, _ = load_checkpoint(file, device=device)
    return model


def copy_batches(
    steps: int, batch_size: int = 64, T: int = 10, seed: int = 0
) -> Iterator[tuple[Tensor, Tensor]]:
    """``steps`` batches of :func:`~attnbook.data.sequences.copy_batch`, drawn at once from ``seed``
    (the same numbers as ``steps`` draws of ``batch_size`` rows one after the other)."""
    check_int("steps", steps)
    g = torch.Generator().manual_seed(check_int("seed", seed, minimum=0))
    src, tgt = copy_batch(steps * batch_size, T, generator=g)  # (steps·B, T), (steps·B, T + 2)
    return zip(src.split(batch_size), tgt.split(batch_size))


def train_copy_model(
    steps: int = 280,
    batch_size: int = 32,
    T: int = 10,
    seed: int = 0,
    progress: bool = True,
    peak_lr: float = 4e-3,
    warmup: int = 30,
    model: nn.Module | None = None,
) -> tuple[nn.Module, History]:
    """The classic copy task (vocabulary 11, length 10) on ``TransformerConfig.tiny``.

    Batches of 32: on a CPU a step of 64 sequences costs nearly twice one of 32, and 280
    steps of 32 copy all of :func:`copy_accuracy`'s 1000 new sequences, as 320 steps of 64
    do, in about half the time (``benchmarks/train_times.py``).

    ``model``: train this one instead of a new tiny Transformer seeded with ``seed``; it is
    called as a :class:`~attnbook.model.Transformer` is (``benchmarks/train_times.py`` runs
    the same recipe on PyTorch's own layers this way). Returns the model trained (the new
    Transformer, or ``model``) and its :class:`~attnbook.train.History`.
    """
    set_seed(seed)
    if model is None:
        model = Transformer(TransformerConfig.tiny(COPY_VOCAB))
    elif not isinstance(model, nn.Module):
        raise TypeError(f"model must be a torch.nn.Module, got {describe(model)}")
    history = fit(
        model,
        copy_batches(steps, batch_size, T, seed),
        seq2seq_batch_loss(),
        steps,
        lambda s: warmup_linear_decay(s, peak_lr, warmup, steps),
        progress=progress,
        desc="copy",
    )
    return model, history


def copy_accuracy(model: Transformer, n: int = 1000, T: int = 10, seed: int = 1) -> float:
    """Fraction of ``n`` fresh sequences copied exactly by greedy decoding."""
    src, _ = copy_batch(n, T, generator=torch.Generator().manual_seed(seed))
    out = greedy_decode(model, src, max_len=T + 1)
    return (out[:, :T] == src).all(dim=1).float().mean().item()
