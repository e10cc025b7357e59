"""The date task, generated from a seed: dates that generalise.

It translates human-written dates ("29 November 2026", "Nov 29, 2026", "11/29/26",
"Sunday, 29 Nov 2026", "2026年11月29日", "2026-11-29", …) into ISO 8601 ("2026-11-29"), at
the character level.

**Supported range.** Every date from 1000-01-01 to 2999-12-31 (Python's ``datetime``
calendar: the Gregorian calendar, extended back before 1582), in ten formats. The
two-digit format ``11/29/26`` covers 1950–2049 only, with the pivot 50: ``50``–``99``
are 1950–1999, ``00``–``49`` are 2000–2049. Two thousand years are far more than a small
model can memorise, so the only way to get them right is to copy the year's digits.

**Formats.** Each format is one layout (:data:`DATE_LAYOUTS`): its fields (day, month,
year, month and weekday names) and the text between them. From it come the function
that writes a date in the format (:data:`DATE_FORMATS`), the pattern that reads one
(:func:`parse_date`) and the test whether a text could still become one
(:func:`date_prefix_status`). Month and weekday names are read in any letter case and
written as the formats write them ("29 NOV 2026" is read as "29 Nov 2026"), so the model
only ever sees the forms it was trained on.

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
from functools import cache
from typing import Literal, NamedTuple

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

#: The fields of a date format, each with the pattern :func:`parse_date` reads it with. The
#: patterns are wider than the values allowed (``\d+`` for a day), so that a wrong value
#: gets its own message ("day 32 does not exist") rather than "not a date format". Names
#: are matched in any letter case; a three-letter name is a ``mon`` (so "May" is one).
DATE_FIELDS = {
    "day": r"\d+",
    "month": r"\d+",
    "year": r"\d+",
    "yy": r"\d+",  # the two-digit year of TWO_DIGIT_FORMAT
    "month_name": r"[A-Za-z]{4,}",  # January … December, May excepted
    "mon": r"[A-Za-z]{3}",  # Jan … Dec
    "weekday": r"[A-Za-z]+",  # Monday … Sunday
}
#: Each format's fields (keys of DATE_FIELDS) and the text between them, the format named by
#: how it writes 2026-11-29. Tried in this order; the first whose pattern matches reads the
#: input.
DATE_LAYOUTS: dict[str, tuple[str, ...]] = {
    "29 November 2026": ("day", " ", "month_name", " ", "year"),
    "Nov 29, 2026": ("mon", " ", "day", ", ", "year"),
    "November 29, 2026": ("month_name", " ", "day", ", ", "year"),
    TWO_DIGIT_FORMAT: ("month", "/", "day", "/", "yy"),
    "29.11.2026": ("day", ".", "month", ".", "year"),
    "Sunday, 29 Nov 2026": ("weekday", ", ", "day", " ", "mon", " ", "year"),
    "2026年11月29日": ("year", "年", "month", "月", "day", "日"),
    "29 Nov 2026": ("day", " ", "mon", " ", "year"),
    "2026-11-29": ("year", "-", "month", "-", "day"),
    "Sunday, 29 November 2026": ("weekday", ", ", "day", " ", "month_name", " ", "year"),
}
#: Formats that write day and month with two digits (01, 02, …); the others write 1–2
#: digits with no leading zero.
TWO_DIGIT_FIELDS = (TWO_DIGIT_FORMAT, "29.11.2026", "2026-11-29")


def _field_text(fmt: str, field: str, d: dt.date) -> str:
    """How the format ``fmt`` writes the field ``field`` of the date ``d``."""
    two = fmt in TWO_DIGIT_FIELDS
    return {
        "day": f"{d.day:02d}" if two else str(d.day),
        "month": f"{d.month:02d}" if two else str(d.month),
        "year": str(d.year),
        "yy": f"{d.year % 100:02d}",
        "month_name": MONTHS[d.month - 1],
        "mon": MONTHS[d.month - 1][:3],
        "weekday": WEEKDAYS[d.weekday()],
    }[field]


def _writer(fmt: str) -> Callable[[dt.date], str]:
    layout = DATE_LAYOUTS[fmt]

    def write(d: dt.date) -> str:
        return "".join(_field_text(fmt, t, d) if t in DATE_FIELDS else t for t in layout)

    write.__name__ = write.__qualname__ = f"write {fmt!r}"
    return write


#: The function that writes a date in each format, by the format's name.
DATE_FORMATS: dict[str, Callable[[dt.date], str]] = {fmt: _writer(fmt) for fmt in DATE_LAYOUTS}

_DATE_CHARS = "".join(
    sorted(set("0123456789-/., 年月日") | set("".join(MONTHS)) | set("".join(WEEKDAYS)))
)
#: the longest source any format writes ("Wednesday, 27 September 2000")
MAX_DATE_LEN = max(len(f(dt.date(2000, 9, 27))) for f in DATE_FORMATS.values())


def year_range(fmt: str) -> tuple[int, int]:
    """First and last year the format ``fmt`` can write."""
    if fmt not in DATE_FORMATS:
        raise ValueError(f"unknown date format {fmt!r}; known: {_words(DATE_FORMATS, 'and')}")
    return TWO_DIGIT_YEARS if fmt == TWO_DIGIT_FORMAT else (FIRST_YEAR, LAST_YEAR)


def iso(d: dt.date) -> str:
    """``YYYY-MM-DD``."""
    return d.isoformat()


def _words(items, last: str = "and", quoted: bool = True) -> str:
    """'a', 'b' and 'c': a list in plain words (the page's string table words it alike)."""
    items = [repr(x) if quoted else str(x) for x in items]
    return items[0] if len(items) < 2 else f"{', '.join(items[:-1])} {last} {items[-1]}"


# ---------------------------------------------------------------- validation


class ParsedDate(NamedTuple):
    """A date string the model may be asked about: what it says, in which format."""

    text: str  # the input without surrounding white space, names in the format's letter case
    fmt: str  # the name of its format in DATE_FORMATS
    date: dt.date
    note: str | None  # a weekday that does not match the date (the model ignores it)


def _pattern(layout: tuple[str, ...]) -> str:
    return "".join(
        f"(?P<{t}>{DATE_FIELDS[t]})" if t in DATE_FIELDS else re.escape(t) for t in layout
    )


# re.ASCII: \d is 0–9 only, as in the page's JavaScript
_REGEXES = {fmt: re.compile(_pattern(layout), re.ASCII) for fmt, layout in DATE_LAYOUTS.items()}
_NAMES = {  # the names of a field, by their lower-case spelling: (value, name as written)
    "month_name": {m.lower(): (i + 1, m) for i, m in enumerate(MONTHS)},
    "mon": {m[:3].lower(): (i + 1, m[:3]) for i, m in enumerate(MONTHS)},
    "weekday": {w.lower(): (i, w) for i, w in enumerate(WEEKDAYS)},
}


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
    field = "month_name" if "month_name" in fields else "mon"
    name = fields[field]
    if name.lower() not in _NAMES[field]:
        names = [written for _, written in _NAMES[field].values()]
        raise ValueError(f"{name!r} is not a month; the months are {_words(names, quoted=False)}")
    return _NAMES[field][name.lower()][0]


def _check_digits(fmt: str, fields: dict[str, str]) -> None:
    """Two digits for month and day in the numeric formats, no leading zero elsewhere."""
    for name in ("day", "month"):
        value = fields.get(name)
        if value is None:
            continue
        if fmt in TWO_DIGIT_FIELDS and len(value) != 2:
            raise ValueError(f"the {fmt!r} format writes the {name} with two digits, got {value!r}")
        if fmt not in TWO_DIGIT_FIELDS and (len(value) > 2 or value.startswith("0")):
            raise ValueError(
                f"the {fmt!r} format writes the {name} as 1–2 digits with no leading zero, "
                f"got {value!r}"
            )


def _days_in_month(year: int, month: int) -> int:
    following = dt.date(year + 1, 1, 1) if month == 12 else dt.date(year, month + 1, 1)
    return (following - dt.timedelta(days=1)).day


def _normalised(layout: tuple[str, ...], fields: dict[str, str]) -> str:
    """The text of ``fields`` in ``layout``, each name spelt as the formats write it."""
    out = []
    for t in layout:
        value = fields.get(t, t)
        out.append(_NAMES[t][value.lower()][1] if t in _NAMES else value)
    return "".join(out)


def parse_date(text: str) -> ParsedDate:
    """What the date string ``text`` says, or a ``ValueError`` saying why the model cannot
    read it: not one of the formats of :data:`DATE_FORMATS`, or a field outside the
    supported range (a year outside 1000–2999, month 13, day 32, 29 February of a common
    year).

    Surrounding white space is ignored, and month and weekday names are read in any
    letter case: ``text`` of the result is the input as the format writes it ("29 nov
    2026" → "29 Nov 2026"), which is what the model is given. A weekday that does not match
    the date is not an error (the model ignores weekdays): it comes back in ``note``.
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
            given = _NAMES["weekday"].get(fields["weekday"].lower())
            if given is None:
                raise ValueError(
                    f"{fields['weekday']!r} is not a weekday; the weekdays are "
                    f"{_words(WEEKDAYS, quoted=False)}"
                )
            actual = WEEKDAYS[date.weekday()]
            if given[1] != actual:
                note = f"{date.isoformat()} is a {actual}, not a {given[1]}"
        return ParsedDate(_normalised(DATE_LAYOUTS[fmt], fields), fmt, date, note)
    if len(stripped) > MAX_DATE_LEN:
        raise ValueError(
            f"input of {len(stripped)} characters is longer than any date the model reads "
            f"(at most {MAX_DATE_LEN})"
        )
    raise ValueError(
        "not a date format the model reads; it reads dates written like "
        f"{_words(DATE_FORMATS, 'or')}"
    )


# ---------------------------------------------------------------- typing, key by key


class _FieldIndex(NamedTuple):
    """The texts a format may hold in one field (lower case), for reading a text key by key:
    ``full``: a whole text → the value it gives; ``started``: a start of one (shorter) → the
    values it may still give; ``lengths``: the lengths of the whole texts. ``fixes`` names
    what the values are ("day", "month", "year"), or is "" (a weekday fixes nothing)."""

    fixes: str
    full: dict[str, int]
    started: dict[str, frozenset[int]]
    lengths: tuple[int, ...]


@cache
def _field_index(fmt: str, field: str) -> _FieldIndex:
    two = fmt in TWO_DIGIT_FIELDS
    if field in ("day", "month"):
        top = 31 if field == "day" else 12
        texts = {(f"{v:02d}" if two else str(v)): v for v in range(1, top + 1)}
    elif field == "year":
        texts = {str(y): y for y in range(FIRST_YEAR, LAST_YEAR + 1)}
    elif field == "yy":
        first, last = TWO_DIGIT_YEARS
        texts = {f"{y % 100:02d}": y for y in range(first, last + 1)}
    else:
        pattern = re.compile(DATE_FIELDS[field], re.ASCII)
        texts = {k: v for k, (v, written) in _NAMES[field].items() if pattern.fullmatch(written)}
    started: dict[str, set[int]] = {}
    for text, value in texts.items():
        for n in range(1, len(text)):
            started.setdefault(text[:n], set()).add(value)
    fixes = {"yy": "year", "month_name": "month", "mon": "month", "weekday": ""}.get(field, field)
    lengths = tuple(sorted({len(t) for t in texts}))
    return _FieldIndex(fixes, texts, {k: frozenset(v) for k, v in started.items()}, lengths)


def _is_leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def _possible(fmt: str, fixed: dict[str, set[int]]) -> bool:
    """Whether some date the format writes has its day, month and year in ``fixed``
    (a field not in ``fixed`` may be anything)."""
    first, last = year_range(fmt)
    leap = any(_is_leap(y) for y in fixed.get("year", range(first, last + 1)))
    least_day = min(fixed.get("day", {1}))
    for month in fixed.get("month", range(1, 13)):
        days = 29 if month == 2 and leap else _days_in_month(2001, month)
        if least_day <= days:
            return True
    return False


def _could_become(fmt: str, text: str) -> bool:
    """Whether the lower-case ``text`` is the start of some date the format ``fmt`` writes
    (a weekday may be any weekday: a wrong one is only a note)."""
    layout = DATE_LAYOUTS[fmt]

    def walk(i: int, pos: int, fixed: dict[str, set[int]]) -> bool:
        rest = text[pos:]
        if not rest:
            return _possible(fmt, fixed)
        if i == len(layout):
            return False  # longer than the format
        token = layout[i]
        if token not in DATE_FIELDS:  # the text between fields
            if rest.startswith(token):
                return walk(i + 1, pos + len(token), fixed)
            return token.startswith(rest) and _possible(fmt, fixed)
        index = _field_index(fmt, token)

        def narrowed(values: frozenset[int] | set[int]) -> dict[str, set[int]]:
            return {**fixed, index.fixes: values} if index.fixes else fixed

        for n in index.lengths:  # the text holds the whole field ...
            value = index.full.get(rest[:n]) if len(rest) >= n else None
            if value is not None and walk(i + 1, pos + n, narrowed({value})):
                return True
        values = index.started.get(rest)  # ... or stops inside it
        return values is not None and _possible(fmt, narrowed(values))

    return walk(0, 0, {})


DateStatus = Literal["date", "incomplete", "invalid"]


def date_prefix_status(text: str) -> DateStatus:
    """How far the date string ``text`` is from one the model reads, for a reader typing it
    key by key: ``"date"`` when :func:`parse_date` reads it; ``"incomplete"`` when it does
    not but some date the model reads starts with it, so more keys may make it one ("29
    Nov", "29 November 18", "11/2", an empty text); ``"invalid"`` when no key can ("29
    Novembre", "31 April", "13/", "29 November 3", a character no format writes).

    As :func:`parse_date`: surrounding white space is ignored and names are read in any
    letter case ("29 nov 2" is incomplete); a weekday that may not match the date still
    counts ("Monday, 29 Nov 2026" is a date).
    """
    try:
        parse_date(text)
        return "date"
    except ValueError:
        pass
    stripped = text.strip().lower()
    if len(stripped) <= MAX_DATE_LEN and any(_could_become(f, stripped) for f in DATE_LAYOUTS):
        return "incomplete"
    return "invalid"


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


_EPOCH = dt.date(1970, 1, 1).toordinal()
_MONTH_LEN = np.array([len(m) for m in MONTHS])
_WEEKDAY_LEN = np.array([len(w) for w in WEEKDAYS])


def _written_lengths(fmt: str, pool: Sequence[dt.date]) -> np.ndarray:
    """How many characters the format ``fmt`` writes for each date of ``pool``: (n,)."""
    ordinals = np.fromiter((d.toordinal() for d in pool), np.int64, count=len(pool))
    days = (ordinals - _EPOCH).astype("datetime64[D]")  # (n,)
    months = days.astype("datetime64[M]")
    month = months.astype(np.int64) % 12  # 0 … 11
    day = (days - months).astype(np.int64) + 1  # 1 … 31
    weekday = (days.astype(np.int64) + 3) % 7  # Monday = 0 (1970-01-01 was a Thursday)
    two = fmt in TWO_DIGIT_FIELDS
    length = {
        "day": lambda: 2 if two else 1 + (day >= 10),
        "month": lambda: 2 if two else 1 + (month >= 9),
        "year": lambda: 4,
        "yy": lambda: 2,
        "month_name": lambda: _MONTH_LEN[month],
        "mon": lambda: 3,
        "weekday": lambda: _WEEKDAY_LEN[weekday],
    }
    total = np.zeros(len(pool), np.int64)
    for t in DATE_LAYOUTS[fmt]:
        total += length[t]() if t in DATE_FIELDS else len(t)
    return total


class _DatePool:
    """The dates each format can write, by how long the format writes them, ready for
    drawing examples."""

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
        # per format, the indices into its pool of the dates of each length (None: all)
        self.lengths: dict[str, list[np.ndarray | None]] = {}
        for fmt in formats:
            first, last = year_range(fmt)
            pool = dates
            if (first, last) != (FIRST_YEAR, LAST_YEAR):
                pool = [d for d in dates if first <= d.year <= last]
            if pool:
                self.pools[fmt] = pool
                lengths = _written_lengths(fmt, pool)
                groups = [np.flatnonzero(lengths == n).astype(np.int32) for n in np.unique(lengths)]
                self.lengths[fmt] = [None] if len(groups) == 1 else groups
            elif explicit:
                raise ValueError(
                    f"the format {fmt!r} writes the years {first}–{last} only, and none of the "
                    f"{len(dates)} dates lies there"
                )
        if not self.pools:
            raise ValueError("none of the dates can be written in the formats asked for")
        self.formats = list(self.pools)

    def draw(self, n: int, rng: random.Random) -> list[tuple[str, str, str]]:
        """``n`` (source, ISO, format): a format uniformly, then one of the lengths it writes
        uniformly, then a date it writes that long."""
        out = []
        for _ in range(n):
            fmt = rng.choice(self.formats)
            pool, group = self.pools[fmt], rng.choice(self.lengths[fmt])
            d = rng.choice(pool) if group is None else pool[group[rng.randrange(len(group))]]
            out.append((DATE_FORMATS[fmt](d), iso(d), fmt))
        return out


def date_examples(
    dates: Sequence[dt.date], n: int, seed: int, formats: Sequence[str] | str | None = None
) -> list[tuple[str, str, str]]:
    """``n`` (source, ISO target, format name) triples drawn from ``dates`` with ``seed``.

    Each draws a format uniformly, then one of the lengths the format writes the dates of
    ``dates`` in, uniformly, then a date of ``dates`` the format writes that long, uniformly
    (the two-digit format: 1950–2049 only). The lengths are drawn alike so that the longest
    dates, rare in the calendar ("Wednesday, 27 September 2000": a Wednesday in September
    with a two-digit day), are drawn as often as the others: a model learns to read every
    position of its input.
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
