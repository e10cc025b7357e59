"""Toy sequence-to-sequence tasks, generated from a seed: dates and copying.

The date task translates human-written dates ("29 November 2026", "Nov 29, 2026",
"11/29/26", "Sunday, 29 Nov 2026", "2026年11月29日", …) into ISO ("2026-11-29"), at the
character level. Train and held-out sets are split *by date*: no held-out date
appears in training, in any format.
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch
from torch import Tensor

PAD, BOS, EOS = "<pad>", "<bos>", "<eos>"
SPECIALS = (PAD, BOS, EOS)


@dataclass(frozen=True)
class Vocabulary:
    """A character vocabulary; ids 0, 1, 2 are ``<pad>``, ``<bos>``, ``<eos>``."""

    chars: str

    def __post_init__(self) -> None:
        if len(set(self.chars)) != len(self.chars):
            raise ValueError("vocabulary characters must be unique")

    @property
    def itos(self) -> list[str]:
        return [*SPECIALS, *self.chars]

    @property
    def stoi(self) -> dict[str, int]:
        return {s: i for i, s in enumerate(self.itos)}

    def __len__(self) -> int:
        return len(SPECIALS) + len(self.chars)

    @property
    def pad_id(self) -> int:
        return 0

    @property
    def bos_id(self) -> int:
        return 1

    @property
    def eos_id(self) -> int:
        return 2

    def encode(self, text: str, bos: bool = False, eos: bool = False) -> list[int]:
        """Character ids of ``text``; an unknown character is a ValueError naming it."""
        stoi = self.stoi
        unknown = sorted({c for c in text if c not in stoi or c in SPECIALS})
        if unknown:
            raise ValueError(
                f"characters not in the vocabulary: {unknown!r} (in {text!r}); "
                f"known: {self.chars!r}"
            )
        ids = [stoi[c] for c in text]
        return [self.bos_id] * bos + ids + [self.eos_id] * eos

    def decode(self, ids: Sequence[int] | Tensor) -> str:
        """Text of ``ids``, stopping at ``<eos>`` and skipping ``<pad>``/``<bos>``."""
        out = []
        for i in torch.as_tensor(ids).tolist():
            if i == self.eos_id:
                break
            if i >= len(SPECIALS):
                out.append(self.chars[i - len(SPECIALS)])
        return "".join(out)


def pad_batch(sequences: Sequence[Sequence[int]], pad_id: int = 0) -> Tensor:
    """``(B, T_max)`` long tensor, each sequence right-padded with ``pad_id``."""
    if not sequences:
        raise ValueError("pad_batch needs at least one sequence")
    T = max(len(s) for s in sequences)
    out = torch.full((len(sequences), T), pad_id, dtype=torch.long)
    for b, s in enumerate(sequences):
        out[b, : len(s)] = torch.as_tensor(s, dtype=torch.long)
    return out


# ---------------------------------------------------------------- dates

MONTHS = [dt.date(2000, m, 1).strftime("%B") for m in range(1, 13)]  # January … December
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]

DATE_FORMATS: dict[str, Callable[[dt.date], str]] = {
    "29 November 2026": lambda d: f"{d.day} {MONTHS[d.month - 1]} {d.year}",
    "Nov 29, 2026": lambda d: f"{MONTHS[d.month - 1][:3]} {d.day}, {d.year}",
    "November 29, 2026": lambda d: f"{MONTHS[d.month - 1]} {d.day}, {d.year}",
    "11/29/26": lambda d: f"{d.month:02d}/{d.day:02d}/{d.year % 100:02d}",
    "29.11.2026": lambda d: f"{d.day:02d}.{d.month:02d}.{d.year}",
    "Sunday, 29 Nov 2026": lambda d: (
        f"{WEEKDAYS[d.weekday()]}, {d.day} {MONTHS[d.month - 1][:3]} {d.year}"
    ),
    "2026年11月29日": lambda d: f"{d.year}年{d.month}月{d.day}日",
}
FIRST_DATE, LAST_DATE = dt.date(1950, 1, 1), dt.date(2049, 12, 31)  # two-digit years: 50–49

_DATE_CHARS = "".join(
    sorted(set("0123456789-/., 年月日") | set("".join(MONTHS)) | set("".join(WEEKDAYS)))
)
DATE_VOCAB = Vocabulary(_DATE_CHARS)
MAX_DATE_LEN = 32  # longest source string the date model accepts, in characters


def iso(d: dt.date) -> str:
    return d.isoformat()


def date_split(seed: int = 0, held_out: float = 0.1) -> tuple[list[dt.date], list[dt.date]]:
    """All dates of 1950–2049, shuffled with ``seed`` and split into (train, held-out)."""
    if not 0.0 < held_out < 1.0:
        raise ValueError(f"held_out must be a fraction in (0, 1), got {held_out}")
    n = (LAST_DATE - FIRST_DATE).days + 1
    days = [FIRST_DATE + dt.timedelta(days=i) for i in range(n)]
    random.Random(seed).shuffle(days)
    k = int(n * held_out)
    return days[k:], days[:k]


def date_examples(
    dates: Sequence[dt.date], n: int, seed: int, formats: Sequence[str] | None = None
) -> list[tuple[str, str, str]]:
    """``n`` (source, ISO target, format name) triples drawn from ``dates`` with ``seed``."""
    formats = list(DATE_FORMATS) if formats is None else list(formats)
    bad = [f for f in formats if f not in DATE_FORMATS]
    if bad:
        raise ValueError(f"unknown date formats {bad}; known: {list(DATE_FORMATS)}")
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        d, f = rng.choice(dates), rng.choice(formats)
        out.append((DATE_FORMATS[f](d), iso(d), f))
    return out


def encode_pairs(
    pairs: Sequence[tuple[str, str]], vocab: Vocabulary = DATE_VOCAB
) -> tuple[Tensor, Tensor]:
    """Sources ``(B, S)`` and targets ``(B, T)``; targets are ``<bos> … <eos>``."""
    src = pad_batch([vocab.encode(s) for s, _ in pairs], vocab.pad_id)
    tgt = pad_batch([vocab.encode(t, bos=True, eos=True) for _, t in pairs], vocab.pad_id)
    return src, tgt


def check_date_input(text: str, vocab: Vocabulary = DATE_VOCAB) -> list[int]:
    """The ids of a date string the model can read, or a ValueError saying why not."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError("empty input: type a date such as '29 November 2026'")
    if len(text) > MAX_DATE_LEN:
        raise ValueError(
            f"input of {len(text)} characters is longer than the {MAX_DATE_LEN} the model "
            "was trained on"
        )
    return vocab.encode(text)


# ---------------------------------------------------------------- copying

COPY_VOCAB = 11  # ids 0 = <pad>, 1 = <bos>, 2 = <eos>, 3…10 the symbols


def copy_batch(
    B: int, T: int = 10, generator: torch.Generator | None = None
) -> tuple[Tensor, Tensor]:
    """The classic copy task: a random source ``(B, T)`` and its target ``<bos> src <eos>``."""
    if B < 1 or T < 1:
        raise ValueError(f"copy_batch needs B, T >= 1, got B={B}, T={T}")
    src = torch.randint(3, COPY_VOCAB, (B, T), generator=generator)
    bos = torch.full((B, 1), 1, dtype=torch.long)
    eos = torch.full((B, 1), 2, dtype=torch.long)
    return src, torch.cat([bos, src, eos], dim=1)
