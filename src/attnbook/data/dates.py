"""The date task, generated from a seed.

It translates human-written dates ("29 November 2026", "Nov 29, 2026",
"11/29/26", "Sunday, 29 Nov 2026", "2026年11月29日", …) into ISO ("2026-11-29"), at the
character level. Train and held-out sets are split *by date*: no held-out date
appears in training, in any format.
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Callable, Iterator, Sequence

from torch import Tensor

from attnbook.checks import check_float, check_int, describe
from attnbook.data.vocab import Vocabulary, pad_batch

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
    check_int("seed", seed, minimum=0)
    check_float("held_out", held_out, 0.0, 1.0, low_open=True, high_open=True)
    n = (LAST_DATE - FIRST_DATE).days + 1
    days = [FIRST_DATE + dt.timedelta(days=i) for i in range(n)]
    random.Random(seed).shuffle(days)
    k = int(n * held_out)
    return days[k:], days[:k]


def date_examples(
    dates: Sequence[dt.date], n: int, seed: int, formats: Sequence[str] | None = None
) -> list[tuple[str, str, str]]:
    """``n`` (source, ISO target, format name) triples drawn from ``dates`` with ``seed``."""
    if isinstance(dates, (str, dt.date)) or not isinstance(dates, Sequence) or not dates:
        raise TypeError(f"dates must be a non-empty list of datetime.date, got {describe(dates)}")
    if not isinstance(dates[0], dt.date):
        raise TypeError(f"dates must hold datetime.date values, got {describe(dates[0])}")
    check_int("n", n)
    check_int("seed", seed, minimum=0)
    if isinstance(formats, str):
        formats = [formats]
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
    if isinstance(pairs, (str, tuple)) or not isinstance(pairs, Sequence) or not pairs:
        raise TypeError(
            "pairs must be a non-empty list of (source, target) string pairs, "
            f"got {describe(pairs)}"
        )
    for i, pair in enumerate(pairs):
        if not isinstance(pair, (tuple, list)) or len(pair) < 2:
            raise TypeError(f"pairs[{i}] must be a (source, target) pair, got {describe(pair)}")
    src = pad_batch([vocab.encode(s) for s, _ in pairs], vocab.pad_id)
    tgt = pad_batch([vocab.encode(t, bos=True, eos=True) for _, t in pairs], vocab.pad_id)
    return src, tgt


def check_date_input(text: str, vocab: Vocabulary = DATE_VOCAB) -> list[int]:
    """The ids of a date string the model can read, or an error saying why not."""
    if not isinstance(text, str):
        raise TypeError(f"a date input must be a string, got {describe(text)}")
    if not text.strip():
        raise ValueError("empty input: type a date such as '29 November 2026'")
    if len(text) > MAX_DATE_LEN:
        raise ValueError(
            f"input of {len(text)} characters is longer than the {MAX_DATE_LEN} the model "
            "was trained on"
        )
    return vocab.encode(text)


def date_batches(
    dates: Sequence[dt.date], batch_size: int, seed: int
) -> Iterator[tuple[Tensor, Tensor]]:
    """Endless ``(src, tgt)`` batches of fresh (date, format) draws from ``dates``."""
    check_int("batch_size", batch_size)
    check_int("seed", seed, minimum=0)
    rng = random.Random(seed)
    while True:
        examples = date_examples(dates, batch_size, seed=rng.randrange(2**31))
        yield encode_pairs([(s, t) for s, t, _ in examples])


def held_out_dates(n: int = 1000, seed: int = 123) -> list[tuple[str, str, str]]:
    """``n`` (source, ISO, format) examples whose dates never occur in training."""
    _, held = date_split(seed=0)
    return date_examples(held, n, seed=seed)
