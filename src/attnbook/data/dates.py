"""The date task, generated from a seed: dates that generalise.

It translates human-written dates ("29 November 2026", "Nov 29, 2026", "11/29/26",
"Sunday, 29 Nov 2026", "2026年11月29日", …) into ISO 8601 ("2026-11-29"), at the character
level.

**Supported range.** Every date from 1000-01-01 to 2999-12-31 (Python's ``datetime``
calendar: the Gregorian calendar, extended back before 1582), in seven formats. The
two-digit format ``11/29/26`` covers 1950–2049 only, with the pivot 50: ``50``–``99``
are 1950–1999, ``00``–``49`` are 2000–2049. Two thousand years are far more than a small
model can memorise, so the only way to get them right is to copy the year's digits.

**Split.** One whole year out of every block of 20 (100 years, drawn with the seed) is
never seen in training, in any format; 5% of the dates of the other years are held out
too. No held-out date occurs in training. :func:`held_out_dates` draws test examples
from both kinds, so accuracy can be reported on years the model never saw.

**Validation.** :func:`parse_date` reads a string with one regular expression per format,
then checks its fields against the supported range: a five-digit year, month 13, day 32
or year 850 is a ``ValueError`` saying what is wrong, before any model is asked.
"""

from __future__ import annotations

import datetime as dt
import random
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from torch import Tensor

from attnbook.checks import check_float, check_int, describe
from attnbook.data.vocab import Vocabulary

FIRST_YEAR, LAST_YEAR = 1000, 2999  # four-digit years the model reads
PIVOT = 50  # two-digit years: PIVOT–99 → 19xx, 00–(PIVOT − 1) → 20xx
TWO_DIGIT_FORMAT = "11/29/26"
TWO_DIGIT_YEARS = (1900 + PIVOT, 2000 + PIVOT - 1)  # (1950, 2049)
FIRST_DATE, LAST_DATE = dt.date(FIRST_YEAR, 1, 1), dt.date(LAST_YEAR, 12, 31)
UNSEEN_BLOCK = 20  # one unseen year per block of this many years

MONTHS = [dt.date(2000, m, 1).strftime("%B") for m in range(1, 13)]  # January … December
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]

DATE_FORMATS: dict[str, Callable[[dt.date], str]] = {
    "29 November 2026": lambda d: f"{d.day} {MONTHS[d.month - 1]} {d.year}",
    "Nov 29, 2026": lambda d: f"{MONTHS[d.month - 1][:3]} {d.day}, {d.year}",
    "November 29, 2026": lambda d: f"{MONTHS[d.month - 1]} {d.day}, {d.year}",
    TWO_DIGIT_FORMAT: lambda d: f"{d.month:02d}/{d.day:02d}/{d.year % 100:02d}",
    "29.11.2026": lambda d: f"{d.day:02d}.{d.month:02d}.{d.year}",
    "Sunday, 29 Nov 2026": lambda d: (
        f"{WEEKDAYS[d.weekday()]}, {d.day} {MONTHS[d.month - 1][:3]} {d.year}"
    ),
    "2026年11月29日": lambda d: f"{d.year}年{d.month}月{d.day}日",
}

_DATE_CHARS = "".join(
    sorted(set("0123456789-/., 年月日") | set("".join(MONTHS)) | set("".join(WEEKDAYS)))
)
#: the longest source any format writes ("Wednesday, 27 Sep 2000")
MAX_DATE_LEN = max(len(f(dt.date(2000, 9, 27))) for f in DATE_FORMATS.values())


def year_range(fmt: str) -> tuple[int, int]:
    """First and last year the format ``fmt`` can write."""
    if fmt not in DATE_FORMATS:
        raise ValueError(f"unknown date format {fmt!r}; known: {list(DATE_FORMATS)}")
    return TWO_DIGIT_YEARS if fmt == TWO_DIGIT_FORMAT else (FIRST_YEAR, LAST_YEAR)


def iso(d: dt.date) -> str:
    """``YYYY-MM-DD``."""
    return d.isoformat()


# ---------------------------------------------------------------- validation


class ParsedDate(NamedTuple):
    """A date string the model may be asked about: what it says, in which format."""

    text: str  # the input without surrounding white space
    fmt: str  # the name of its format in DATE_FORMATS
    date: dt.date
    note: str | None  # a weekday that does not match the date (the model ignores it)


_NUM = r"(?P<{}>\d+)"
_PATTERNS = {
    "29 November 2026": rf"{_NUM.format('day')} (?P<month_name>[A-Za-z]+) {_NUM.format('year')}",
    "Nov 29, 2026": rf"(?P<mon>[A-Za-z]{{3}}) {_NUM.format('day')}, {_NUM.format('year')}",
    "November 29, 2026": (
        rf"(?P<month_name>[A-Za-z]{{4,}}) {_NUM.format('day')}, {_NUM.format('year')}"
    ),
    TWO_DIGIT_FORMAT: rf"{_NUM.format('month')}/{_NUM.format('day')}/{_NUM.format('yy')}",
    "29.11.2026": rf"{_NUM.format('day')}\.{_NUM.format('month')}\.{_NUM.format('year')}",
    "Sunday, 29 Nov 2026": (
        rf"(?P<weekday>[A-Za-z]+), {_NUM.format('day')} (?P<mon>[A-Za-z]{{3}}) "
        rf"{_NUM.format('year')}"
    ),
    "2026年11月29日": rf"{_NUM.format('year')}年{_NUM.format('month')}月{_NUM.format('day')}日",
}
_REGEXES = {fmt: re.compile(p) for fmt, p in _PATTERNS.items()}
_TWO_DIGIT_FIELDS = (TWO_DIGIT_FORMAT, "29.11.2026")  # formats that write 01, 02, …


def _year(fields: dict[str, str]) -> int:
    if "yy" in fields:
        yy = fields["yy"]
        if len(yy) != 2:
            raise ValueError(
                f"the {TWO_DIGIT_FORMAT!r} format takes a two-digit year, got {yy!r} "
                "(write four-digit years in another format)"
            )
        return (1900 if int(yy) >= PIVOT else 2000) + int(yy)
    year = fields["year"]
    if len(year) != 4 or not FIRST_YEAR <= int(year) <= LAST_YEAR:
        raise ValueError(
            f"year {year} is outside the supported range: the model reads four-digit years "
            f"{FIRST_YEAR}–{LAST_YEAR}"
        )
    return int(year)


def _month(fields: dict[str, str]) -> int:
    if "month" in fields:
        month = int(fields["month"])
        if not 1 <= month <= 12:
            raise ValueError(f"month {fields['month']} does not exist (months are 1–12)")
        return month
    name = fields.get("month_name") or fields["mon"]
    names = MONTHS if "month_name" in fields else [m[:3] for m in MONTHS]
    if name not in names:
        raise ValueError(f"{name!r} is not a month; expected one of {names}")
    return names.index(name) + 1


def _check_digits(fmt: str, fields: dict[str, str]) -> None:
    """Two digits for month and day in the numeric formats, no leading zero elsewhere."""
    for name in ("day", "month"):
        value = fields.get(name)
        if value is None:
            continue
        if fmt in _TWO_DIGIT_FIELDS and len(value) != 2:
            raise ValueError(f"the {fmt!r} format writes the {name} with two digits, got {value!r}")
        if fmt not in _TWO_DIGIT_FIELDS and (len(value) > 2 or value.startswith("0")):
            raise ValueError(
                f"the {fmt!r} format writes the {name} as 1–2 digits with no leading zero, "
                f"got {value!r}"
            )


def _days_in_month(year: int, month: int) -> int:
    following = dt.date(year + 1, 1, 1) if month == 12 else dt.date(year, month + 1, 1)
    return (following - dt.timedelta(days=1)).day


def parse_date(text: str) -> ParsedDate:
    """What the date string ``text`` says, or a ``ValueError`` saying why the model cannot
    read it: not one of the seven formats, or a field outside the supported range (a year
    outside 1000–2999, month 13, day 32, 29 February of a common year).

    A weekday that does not match the date is not an error (the model ignores weekdays):
    it comes back in ``note``. Surrounding white space is ignored.
    """
    if not isinstance(text, str):
        raise TypeError(f"a date input must be a string, got {describe(text)}")
    stripped = text.strip()
    if not stripped:
        raise ValueError("empty input: type a date such as '29 November 2026'")
    for fmt, regex in _REGEXES.items():
        match = regex.fullmatch(stripped)
        if match is None:
            continue
        fields = {k: v for k, v in match.groupdict().items() if v is not None}
        year, month = _year(fields), _month(fields)
        day, last = int(fields["day"]), _days_in_month(year, month)
        if not 1 <= day <= last:
            raise ValueError(
                f"day {fields['day']} does not exist: {MONTHS[month - 1]} {year} has {last} days"
            )
        _check_digits(fmt, fields)
        date, note = dt.date(year, month, day), None
        if "weekday" in fields:
            if fields["weekday"] not in WEEKDAYS:
                raise ValueError(
                    f"{fields['weekday']!r} is not a weekday; expected one of {WEEKDAYS}"
                )
            actual = WEEKDAYS[date.weekday()]
            if fields["weekday"] != actual:
                note = f"{date.isoformat()} is a {actual}, not a {fields['weekday']}"
        return ParsedDate(stripped, fmt, date, note)
    if len(stripped) > MAX_DATE_LEN:
        raise ValueError(
            f"input of {len(stripped)} characters is longer than any date the model reads "
            f"(at most {MAX_DATE_LEN})"
        )
    raise ValueError(f"not a date format the model reads; the formats are {list(DATE_FORMATS)}")


def check_date_input(text: str, vocab: Vocabulary | None = None) -> list[int]:
    """The character ids of the date string ``text`` (white space stripped), or a
    ``ValueError`` saying why the model cannot read it (see :func:`parse_date`)."""
    parsed = parse_date(text)
    return Vocabulary.encode(DATE_VOCAB if vocab is None else vocab, parsed.text)


@dataclass(frozen=True)
class DateVocabulary(Vocabulary):
    """The date task's characters. A source text must be a date the model supports:
    ``encode_source`` (what :func:`~attnbook.decode.translate` calls) checks it."""

    def encode_source(self, text: str) -> list[int]:
        return check_date_input(text, self)


DATE_VOCAB = DateVocabulary(_DATE_CHARS)


# ---------------------------------------------------------------- the split


def unseen_years(seed: int = 0) -> list[int]:
    """The years :func:`date_split` keeps out of training: one from every block of
    ``UNSEEN_BLOCK`` years (1000–1019, 1020–1039, …), drawn with ``seed``."""
    check_int("seed", seed, minimum=0)
    rng = random.Random(seed)
    starts = range(FIRST_YEAR, LAST_YEAR + 1, UNSEEN_BLOCK)
    return [start + rng.randrange(UNSEEN_BLOCK) for start in starts]


def date_split(seed: int = 0, held_out: float = 0.05) -> tuple[list[dt.date], list[dt.date]]:
    """(train, held-out) dates of 1000–2999: every date of :func:`unseen_years` and a
    fraction ``held_out`` of the other dates are held out; each list in calendar order."""
    check_int("seed", seed, minimum=0)
    check_float("held_out", held_out, 0.0, 1.0, low_open=True, high_open=True)
    days = np.arange(FIRST_DATE, LAST_DATE + dt.timedelta(days=1), dtype="datetime64[D]")
    years = days.astype("datetime64[Y]").astype(np.int64) + 1970  # (730485,)
    coin = np.random.default_rng(seed).random(len(days)) < held_out  # (730485,)
    held = np.isin(years, unseen_years(seed)) | coin
    return days[~held].tolist(), days[held].tolist()  # datetime64[D] → datetime.date


# ---------------------------------------------------------------- examples


class _DatePool:
    """The dates each format can write, ready for drawing examples."""

    def __init__(self, dates: Sequence[dt.date], formats: Sequence[str] | str | None) -> None:
        if isinstance(dates, (str, dt.date)) or not isinstance(dates, Sequence) or not dates:
            raise TypeError(
                f"dates must be a non-empty list of datetime.date, got {describe(dates)}"
            )
        if not isinstance(dates[0], dt.date):
            raise TypeError(f"dates must hold datetime.date values, got {describe(dates[0])}")
        explicit = formats is not None
        formats = [formats] if isinstance(formats, str) else list(formats or DATE_FORMATS)
        bad = [f for f in formats if f not in DATE_FORMATS]
        if bad:
            raise ValueError(f"unknown date formats {bad}; known: {list(DATE_FORMATS)}")
        self.dates = dates
        self.pools: dict[str, Sequence[dt.date]] = {}
        for fmt in formats:
            first, last = year_range(fmt)
            pool = dates
            if (first, last) != (FIRST_YEAR, LAST_YEAR):
                pool = [d for d in dates if first <= d.year <= last]
            if pool:
                self.pools[fmt] = pool
            elif explicit:
                raise ValueError(
                    f"the format {fmt!r} writes the years {first}–{last} only, and none of the "
                    f"{len(dates)} dates lies there"
                )
        if not self.pools:
            raise ValueError("none of the dates can be written in the formats asked for")
        self.formats = list(self.pools)

    def draw(self, n: int, rng: random.Random) -> list[tuple[str, str, str]]:
        """``n`` (source, ISO, format): a format uniformly, then a date it can write."""
        out = []
        for _ in range(n):
            fmt = rng.choice(self.formats)
            d = rng.choice(self.pools[fmt])
            out.append((DATE_FORMATS[fmt](d), iso(d), fmt))
        return out


def date_examples(
    dates: Sequence[dt.date], n: int, seed: int, formats: Sequence[str] | str | None = None
) -> list[tuple[str, str, str]]:
    """``n`` (source, ISO target, format name) triples drawn from ``dates`` with ``seed``.

    Each draws a format uniformly, then a date uniformly among those in ``dates`` the
    format can write (the two-digit format: 1950–2049 only).
    """
    pool = _DatePool(dates, formats)
    check_int("n", n)
    check_int("seed", seed, minimum=0)
    return pool.draw(n, random.Random(seed))


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
    src = vocab.encode_batch([s for s, *_ in pairs])  # (B, S)
    tgt = vocab.encode_batch([t for _, t, *_ in pairs], bos=True, eos=True)  # (B, T)
    return src, tgt


def date_batches(
    dates: Sequence[dt.date], batch_size: int, seed: int
) -> Iterator[tuple[Tensor, Tensor]]:
    """Endless ``(src, tgt)`` batches of fresh (date, format) draws from ``dates``, drawn as
    :func:`date_examples` draws them."""
    pool = _DatePool(dates, None)
    check_int("batch_size", batch_size)
    rng = random.Random(check_int("seed", seed, minimum=0))
    while True:
        yield encode_pairs([(s, t) for s, t, _ in pool.draw(batch_size, rng)])


def held_out_dates(n: int = 1000, seed: int = 123) -> list[tuple[str, str, str]]:
    """``n`` (source, ISO, format) examples whose dates never occur in training, drawn
    from the held-out dates of ``date_split(0)``: about half from years never seen."""
    _, held = date_split(seed=0)
    return date_examples(held, n, seed=seed)
