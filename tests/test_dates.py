"""The date task: a wide year range, a split with unseen years, validation of what a reader
types, and the shipped checkpoint."""

from __future__ import annotations

import datetime as dt
import random
import re
from collections import Counter

import pytest
import torch

from attnbook.data import (
    DATE_FORMATS,
    DATE_VOCAB,
    FIRST_YEAR,
    LAST_YEAR,
    MAX_DATE_LEN,
    TWO_DIGIT_FORMAT,
    check_date_input,
    date_batches,
    date_examples,
    date_prefix_status,
    date_split,
    encode_pairs,
    held_out_dates,
    parse_date,
    unseen_years,
)
from attnbook.decode import translate
from attnbook.model import Transformer, TransformerConfig


@pytest.fixture(scope="module")
def split():
    return date_split(seed=0)


def test_split_holds_out_whole_years_from_every_block(split):
    train, held = split
    assert not set(train) & set(held)
    assert len(train) + len(held) == (dt.date(3000, 1, 1) - dt.date(1000, 1, 1)).days
    assert train == sorted(train) and held == sorted(held)
    years = unseen_years(0)
    assert len(years) == 100 and [y // 20 for y in years] == list(range(50, 150))
    assert not {d.year for d in train} & set(years)
    per_year = Counter(d.year for d in held)
    assert all(per_year[y] in (365, 366) for y in years)  # whole years
    seen_held = [d for d in held if d.year not in set(years)]
    share = len(seen_held) / (len(seen_held) + len(train))
    assert 0.045 < share < 0.055  # 5% of the other years' dates
    assert unseen_years(1) != years and date_split(seed=0)[1][:50] == held[:50]


def test_formats_write_the_same_date_as_before():
    d = dt.date(2026, 11, 29)
    rendered = {name: f(d) for name, f in DATE_FORMATS.items()}
    assert rendered == {name: name for name in DATE_FORMATS}  # each format is named by 2026-11-29
    assert MAX_DATE_LEN == len("Wednesday, 27 September 2000")
    assert {"29 Nov 2026", "2026-11-29", "Sunday, 29 November 2026"} < set(DATE_FORMATS)


def test_examples_parse_back_to_their_date(split):
    _, held = split
    examples = date_examples(held, 3000, seed=3)
    assert examples == date_examples(held, 3000, seed=3)  # deterministic
    assert examples != date_examples(held, 3000, seed=4)
    formats = Counter(fmt for _, _, fmt in examples)
    assert set(formats) == set(DATE_FORMATS) and min(formats.values()) > 3000 / len(formats) - 60
    for source, target, fmt in examples:
        parsed = parse_date(source)
        assert (parsed.date.isoformat(), parsed.note, parsed.text) == (target, None, source)
        assert parsed.fmt == fmt or "May" in source  # "May" is read as a short month name
        assert len(source) <= MAX_DATE_LEN
    two_digit = [dt.date.fromisoformat(y).year for _, y, f in examples if f == TWO_DIGIT_FORMAT]
    assert 1950 <= min(two_digit) and max(two_digit) <= 2049
    years = [dt.date.fromisoformat(y).year for _, y, _ in examples]
    assert min(years) < 1020 and max(years) > 2980


def test_every_length_a_format_writes_is_drawn_alike(split):
    """A format's lengths are drawn uniformly, then a date of that length: the longest dates,
    rare in the calendar (a Wednesday in September, two-digit day), as often as the others."""
    train, _ = split
    fmt = "Sunday, 29 November 2026"
    lengths = Counter(len(s) for s, _, _ in date_examples(train, 11_000, seed=2, formats=fmt))
    assert sorted(lengths) == list(range(18, MAX_DATE_LEN + 1))  # "Friday, 1 May 2026" … 28
    assert max(lengths.values()) < 1.25 * min(lengths.values()), lengths


def test_held_out_examples_cover_the_range_and_unseen_years(split):
    train, _ = split
    test = held_out_dates(1000)
    years = [dt.date.fromisoformat(y).year for _, y, _ in test]
    assert {y // 100 for y in years} == set(range(10, 30))  # every century 1000–2999
    assert not {dt.date.fromisoformat(y) for _, y, _ in test} & set(train)
    unseen = sum(y in set(unseen_years(0)) for y in years)
    assert 350 < unseen < 650  # about half: whole unseen years and single held-out dates


def test_batches_are_vectorised_encodings_of_examples(split):
    train, _ = split
    src, tgt = next(date_batches(train, 16, seed=5))
    assert src.shape[0] == tgt.shape[0] == 16 and (tgt[:, 0] == DATE_VOCAB.bos_id).all()
    pairs = [(s, t) for s, t, _ in date_examples(train, 40, seed=6)]
    vectorised = encode_pairs(pairs)
    one_by_one = [
        torch.nn.utils.rnn.pad_sequence(
            [torch.tensor(DATE_VOCAB.encode(x, bos=i == 1, eos=i == 1)) for x in texts],
            batch_first=True,
        )
        for i, texts in enumerate(zip(*pairs))
    ]
    assert torch.equal(vectorised[0], one_by_one[0]) and torch.equal(vectorised[1], one_by_one[1])
    assert DATE_VOCAB.decode(vectorised[1][0, 1:]) == pairs[0][1]


def test_reader_examples_parse(split):
    assert parse_date("Jul 27, 2090").date == dt.date(2090, 7, 27)
    sunday = parse_date("Sunday, 12 Jul 2098")
    assert sunday.date == dt.date(2098, 7, 12) and "Saturday" in sunday.note  # a note, no error
    assert parse_date("29 November 1850").date == dt.date(1850, 11, 29)
    assert parse_date("11/29/26").date == dt.date(2026, 11, 29)  # pivot 50: 26 → 2026
    assert parse_date("11/29/50").date == dt.date(1950, 11, 29)
    assert parse_date("12/31/49").date == dt.date(2049, 12, 31)
    assert parse_date("  1 January 1000 ").text == "1 January 1000"
    assert parse_date("29 February 2024").date == dt.date(2024, 2, 29)
    assert parse_date("31.12.2999").date == dt.date(LAST_YEAR, 12, 31)
    assert parse_date("1 January 1000").date == dt.date(FIRST_YEAR, 1, 1)
    assert check_date_input(" 9 May 2020") == DATE_VOCAB.encode("9 May 2020")


BAD = {
    "29 November 12026": r"year 12026 is outside the supported range.*1000–2999",
    "29 November 999": r"year 999 is outside",
    "Nov 29, 0999": r"year 0999 is outside",
    "29 November 3000": r"year 3000 is outside",
    "13/29/26": r"month 13 does not exist",
    "2026年13月29日": r"month 13 does not exist",
    "29.00.2026": r"month 00 does not exist",
    "32 November 2026": r"day 32 does not exist: November 2026 has 30 days",
    "Nov 32, 2026": r"day 32 does not exist",
    "31 April 2026": r"day 31 does not exist: April 2026 has 30 days",
    "29 February 2027": r"day 29 does not exist: February 2027 has 28 days",
    "0 May 2020": r"day 0 does not exist",
    "09 November 2026": r"writes the day as 1–2 digits with no leading zero",
    "1/29/26": r"writes the month with two digits",
    "11/29/2026": r"takes a two-digit year",
    "29 Novembre 2026": r"'Novembre' is not a month",
    "Funday, 12 Jul 2098": r"'Funday' is not a weekday",
    "Nov 29 2026": r"not a date format the model reads",
    "29 November, 2026": r"not a date format",
    "2026-11-31": r"day 31 does not exist: November 2026 has 30 days",
    "2026-1-29": r"writes the month with two digits",
    "29 novembre 2026": r"'novembre' is not a month; the months are January, .* and December$",
    "29 Sept 2026": r"'Sept' is not a month; the months are January, .* and December$",
    "Foo 29, 2026": r"'Foo' is not a month; the months are Jan, Feb, .* and Dec$",
    "FUNDAY, 29 November 2026": r"'FUNDAY' is not a weekday; the weekdays are Monday, .* Sunday$",
    "": r"empty input",
    "   ": r"empty input",
    "29 November 2026 " * 3: r"longer than any date the model reads",
}


@pytest.mark.parametrize(("text", "message"), list(BAD.items()), ids=list(BAD))
def test_input_outside_the_supported_range_is_a_clear_error(text, message):
    with pytest.raises(ValueError, match=message) as error:
        parse_date(text)
    assert "[" not in str(error.value)  # plain words, no Python lists
    with pytest.raises(ValueError, match=message):
        check_date_input(text)


READ_ALIKE = {  # what a reader may type -> what the model is given
    "29 nov 2026": "29 Nov 2026",
    "29 NOVEMBER 2026": "29 November 2026",
    "nOv 29, 2026": "Nov 29, 2026",
    "thursday, 29 november 2026": "Thursday, 29 November 2026",
    "SUNDAY, 29 NOV 2026": "Sunday, 29 Nov 2026",
    " 2026-11-29 ": "2026-11-29",
}


def test_names_are_read_in_any_letter_case():
    """Month and weekday names in any letter case are read as the formats write them: the
    model is given the written form, so it translates both alike."""
    for typed, written in READ_ALIKE.items():
        parsed = parse_date(typed)
        assert parsed.text == written and parsed.date == dt.date(2026, 11, 29)
        assert check_date_input(typed) == DATE_VOCAB.encode(written)
    assert parse_date("thursday, 29 november 2026").note == "2026-11-29 is a Sunday, not a Thursday"
    assert parse_date("Sunday, 29 November 2026").fmt == "Sunday, 29 November 2026"


STATUS = {
    "": "incomplete",
    "2": "incomplete",
    "29 Nov": "incomplete",
    "29 nov 2": "incomplete",
    "29 November 18": "incomplete",
    "29 February 190": "incomplete",  # 1904 is a leap year
    "11/2": "incomplete",
    "2026-11-2": "incomplete",  # the ISO format writes two-digit days
    "Thu": "incomplete",
    "2026年11月": "incomplete",
    "29 Nov 2026": "date",
    "Thursday, 29 November 2026": "date",  # a wrong weekday is a note, not an error
    "29 Novembre": "invalid",
    "31 April": "invalid",
    "30 February": "invalid",
    "29 February 1900": "invalid",
    "29 February 19": "incomplete",
    "13/": "invalid",
    "29 November 3": "invalid",  # no year 3xxx
    "Nov 3, 30": "invalid",
    "29  Nov": "invalid",
    "x": "invalid",
    "29 Novembér": "invalid",
    "Wednesday, 29 November 2026 and more": "invalid",
}


@pytest.mark.parametrize(("text", "status"), list(STATUS.items()), ids=list(STATUS))
def test_prefix_status_of_what_a_reader_types(text, status):
    assert date_prefix_status(text) == status


def test_prefix_status_follows_the_keys():
    """Every start of every date is "incomplete" or "date"; an "incomplete" text has a next
    key that keeps it so or makes it a date (so, with the length limit, some keys complete
    it); no key after an "invalid" text helps. "date" is what parse_date reads."""
    keys = sorted(set(DATE_VOCAB.chars.lower()))
    sources = [s for s, _, _ in held_out_dates(40, seed=8)]
    starts = {s[:i] for s in sources for i in range(len(s) + 1)}
    starts |= {t.upper() for t in starts}
    assert {date_prefix_status(t) for t in starts} == {"incomplete", "date"}
    rng = random.Random(9)
    noise = ["".join(rng.choices(keys, k=rng.randint(1, 6))) for _ in range(30)]
    texts = sorted(starts)[::15] + noise
    seen = set()
    for text in texts:
        status = date_prefix_status(text)
        seen.add(status)
        following = {date_prefix_status(text + key) for key in keys}
        if status == "invalid":
            assert following == {"invalid"}, text
        elif status == "incomplete":
            assert following & {"incomplete", "date"}, text
        try:
            parse_date(text)
            assert status == "date", text
        except ValueError:
            assert status != "date", text
    assert seen == {"incomplete", "date", "invalid"}


def test_translate_refuses_before_the_model_answers():
    calls = []

    class Spy(Transformer):
        def encode(self, src, need_weights=True):
            calls.append(src)
            return super().encode(src, need_weights)

    model = Spy(TransformerConfig.tiny(len(DATE_VOCAB), N=1, d_model=16, d_ff=32, h=2))
    with pytest.raises(ValueError, match=r"input 1 \('Jul 27, 12090'\): year 12090 is outside"):
        translate(model, ["Jul 27, 2090", "Jul 27, 12090"], DATE_VOCAB)
    with pytest.raises(ValueError, match=r"month 13"):
        translate(model, ["13/01/26"], DATE_VOCAB, beam_size=2)
    assert not calls  # the model never ran
    assert len(translate(model, ["Jul 27, 2090"], DATE_VOCAB)) == 1 and len(calls) == 1
    with pytest.raises(TypeError, match="a date input must be a string"):
        parse_date(20261129)


def test_the_shipped_model_reads_every_year_and_format():
    """>= 99% exact match on 1000 held-out dates of 1000–2999: overall, on years never seen in
    training, on the others, and in every format; and the forms a reader types."""
    from attnbook.recipes import date_report, load_date_model

    model = load_date_model()
    report = date_report(model)  # 1000 held-out dates
    assert report.exact >= 0.99 and report.unseen_years >= 0.99 and report.seen_years >= 0.99
    assert report.n_unseen > 350 and set(report.per_format) == set(DATE_FORMATS)
    assert min(report.per_format.values()) >= 0.99, report.per_format
    assert len(report.per_century) == 20
    examples = {
        "Jul 27, 2090": "2090-07-27",
        "Sunday, 12 Jul 2098": "2098-07-12",
        "29 November 1850": "1850-11-29",
        "2026年11月29日": "2026-11-29",
        "11/29/26": "2026-11-29",
        "1 January 1000": "1000-01-01",
        "31.12.2999": "2999-12-31",
        "29 Nov 2026": "2026-11-29",
        "29 november 2026": "2026-11-29",
        "2026-11-29": "2026-11-29",
        "Thursday, 29 November 2026": "2026-11-29",
        "Wednesday, 27 September 2000": "2000-09-27",
        "1 may 1000": "1000-05-01",
    }
    assert translate(model, list(examples), DATE_VOCAB) == list(examples.values())
    assert re.fullmatch(r"\d{4}-\d\d-\d\d", report.predictions[0])
