"""Numbers in words, English → German (or Chinese): a translation task where
cross-attention must reorder.

English writes tens before units ("forty-seven"); German writes units first and joins
everything below a million into one word ("siebenundvierzig",
"dreihundertsiebenundvierzigtausendzweihunderteins"); Chinese groups digits by ten
thousand (万) instead of by thousand (347,201 is "三十四万七千二百零一"). Numbers run
from 1 to 999,999.

The data are a small parallel corpus, as in low-resource translation: the 99 numbers
below 100 (the building blocks) and equally many distinct numbers of 3, 4, 5 and 6
digits (300 pairs by default). Test numbers come from a part of 1–999,999 that training
never draws from, so the model must compose translations of numbers it has not seen.
With fresh training pairs at every step a tiny model reaches 99.7% (the mapping is very
regular); on 300 pairs it is data, not steps, that limits it, and design choices show.
"""

from __future__ import annotations

from typing import NamedTuple

import torch
from torch import Tensor

from attnbook.checks import check_float, check_generator, check_int, check_tensor

LARGEST = 999_999

EN_UNITS = "zero one two three four five six seven eight nine".split()
EN_TEENS = "ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen".split()
EN_TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()

DE_UNITS = "null eins zwei drei vier fünf sechs sieben acht neun".split()
DE_TEENS = "zehn elf zwölf dreizehn vierzehn fünfzehn sechzehn siebzehn achtzehn neunzehn".split()
DE_TENS = "_ _ zwanzig dreißig vierzig fünfzig sechzig siebzig achtzig neunzig".split()

ZH_DIGITS = "零一二三四五六七八九"


def _check_number(n: object) -> int:
    check_int("n", n)
    if n > LARGEST:
        raise ValueError(f"n must be an int in 1–{LARGEST:,}, got {n:,}")
    return n


# ---------------------------------------------------------------- English


def _english_below_1000(n: int) -> list[str]:
    hundreds, rest = divmod(n, 100)
    words = [EN_UNITS[hundreds], "hundred"] if hundreds else []
    if 10 <= rest < 20:
        words.append(EN_TEENS[rest - 10])
    elif rest >= 20:
        tens, units = divmod(rest, 10)
        words.append(EN_TENS[tens] + (f"-{EN_UNITS[units]}" if units else ""))
    elif rest:
        words.append(EN_UNITS[rest])
    return words


def english(n: int) -> str:
    """American English, no "and": 347201 → "three hundred forty-seven thousand two hundred one"."""
    thousands, rest = divmod(_check_number(n), 1000)
    words = [*_english_below_1000(thousands), "thousand"] if thousands else []
    return " ".join(words + _english_below_1000(rest))


# ---------------------------------------------------------------- German


def _german_below_100(n: int, final: bool) -> str:
    if n < 10:
        return "eins" if n == 1 and final else ("ein" if n == 1 else DE_UNITS[n])
    if n < 20:
        return DE_TEENS[n - 10]
    tens, units = divmod(n, 10)
    if not units:
        return DE_TENS[tens]
    return f"{'ein' if units == 1 else DE_UNITS[units]}und{DE_TENS[tens]}"  # units first


def _german_below_1000(n: int, final: bool) -> str:
    hundreds, rest = divmod(n, 100)
    out = f"{'ein' if hundreds == 1 else DE_UNITS[hundreds]}hundert" if hundreds else ""
    return out + (_german_below_100(rest, final) if rest else "")


def german(n: int) -> str:
    """One word below a million: 347201 → "dreihundertsiebenundvierzigtausendzweihunderteins".

    Conventions: "einhundert" and "eintausend" (not "hundert", "tausend"); a final 1 is
    "eins" ("hunderteins"), a 1 before "und", "hundert" or "tausend" is "ein".
    """
    thousands, rest = divmod(_check_number(n), 1000)
    out = f"{_german_below_1000(thousands, final=False)}tausend" if thousands else ""
    return out + (_german_below_1000(rest, final=True) if rest else "")


# ---------------------------------------------------------------- Chinese


def _chinese_below_10000(n: int, leading: bool) -> str:
    """Digits with 千 百 十; one 零 for each run of zeros before a non-zero digit."""
    out, zero = "", False
    for power, unit in ((1000, "千"), (100, "百"), (10, "十"), (1, "")):
        digit = n // power % 10
        if digit == 0:
            zero = bool(out) or not leading
            continue
        if zero:
            out += "零"
        zero = False
        if not (power == 10 and digit == 1 and not out and leading):  # 十一, not 一十一
            out += ZH_DIGITS[digit]
        out += unit
    return out


def chinese(n: int) -> str:
    """Grouped by 万 (10⁴): 347201 → "三十四万七千二百零一", 100001 → "十万零一"."""
    wan, rest = divmod(_check_number(n), 10_000)
    if not wan:
        return _chinese_below_10000(rest, leading=True)
    head = _chinese_below_10000(wan, leading=True) + "万"
    if not rest:
        return head
    body = _chinese_below_10000(rest, leading=False)
    return head + body if rest >= 1000 or body.startswith("零") else head + "零" + body


NUMBER_LANGUAGES = {"en": english, "de": german, "zh": chinese}


# ---------------------------------------------------------------- split and corpus


class NumberSplit(NamedTuple):
    """Disjoint sets of numbers, each a sorted ``(n,)`` long tensor."""

    train: Tensor
    valid: Tensor
    test: Tensor


def number_split(seed: int = 0, held_out: float = 0.05) -> NumberSplit:
    """1–999,999 split by a seeded permutation: ``held_out`` of every digit count 3–6 for
    validation, as much for test; the numbers below 100 (the building blocks) always train."""
    check_int("seed", seed, minimum=0)
    check_float("held_out", held_out, 0.0, 0.5, low_open=True, high_open=True)
    g = torch.Generator().manual_seed(seed)
    train, valid, test = [torch.arange(1, 100)], [], []
    for digits in range(3, 7):
        block = torch.arange(10 ** (digits - 1), 10**digits)
        block = block[torch.randperm(len(block), generator=g)]
        k = int(len(block) * held_out)
        valid.append(block[:k])
        test.append(block[k : 2 * k])
        train.append(block[2 * k :])
    return NumberSplit(*(torch.cat(p).sort().values for p in (train, valid, test)))


def _digits(numbers: Tensor) -> Tensor:
    return numbers.to(torch.float64).log10().floor().long() + 1  # (n,) digit counts


def sample_numbers(pool: Tensor, n: int, generator: torch.Generator) -> Tensor:
    """``n`` numbers from ``pool`` ``(P,)``: a digit count uniformly among those ``pool``
    holds, then a number uniformly among its numbers of that many digits."""
    check_tensor("pool", pool, 1, "long", "(P,)")
    check_int("n", n)
    check_generator("generator", generator)
    digits = _digits(pool)  # (P,)
    present = digits.unique()  # (D,)
    which = present[torch.randint(0, len(present), (n,), generator=generator)]  # (n,)
    out = torch.empty(n, dtype=torch.long)
    for d in present.tolist():  # one step per digit count
        rows = (which == d).nonzero().flatten()
        members = pool[digits == d]
        out[rows] = members[torch.randint(0, len(members), (len(rows),), generator=generator)]
    return out


def corpus_numbers(pool: Tensor, n: int, generator: torch.Generator) -> Tensor:
    """``n`` distinct numbers, in random order: every number of ``pool`` below 100, then
    the same count of numbers with 3, 4, 5 and 6 digits (the rest of ``n``, split evenly)."""
    check_tensor("pool", pool, 1, "long", "(P,)")
    check_int("n", n)
    check_generator("generator", generator)
    small = pool[pool < 100]
    k, extra = divmod(n - len(small), 4)
    if k < 1:
        raise ValueError(
            f"n must exceed the {len(small)} numbers below 100 by at least 4, got n={n}"
        )
    digits = _digits(pool)
    parts = [small]
    for i, d in enumerate(range(3, 7)):
        members = pool[digits == d]
        parts.append(members[torch.randperm(len(members), generator=generator)[: k + (i < extra)]])
    out = torch.cat(parts)
    return out[torch.randperm(len(out), generator=generator)]


class NumberPairs(NamedTuple):
    """Parallel lists: each number, its source text, its target text."""

    number: list[int]
    source: list[str]
    target: list[str]


def number_pairs(
    numbers: Tensor | list[int], source: str = "en", target: str = "de"
) -> NumberPairs:
    """Source and target text of each number (languages: ``"en"``, ``"de"``, ``"zh"``)."""
    for name, lang in (("source", source), ("target", target)):
        if lang not in NUMBER_LANGUAGES:
            raise ValueError(f"{name} must be one of {sorted(NUMBER_LANGUAGES)}, got {lang!r}")
    ns = numbers.tolist() if isinstance(numbers, Tensor) else list(numbers)
    src, tgt = NUMBER_LANGUAGES[source], NUMBER_LANGUAGES[target]
    return NumberPairs(ns, [src(n) for n in ns], [tgt(n) for n in ns])


def number_corpus(n: int = 300, seed: int = 0, target: str = "de") -> NumberPairs:
    """The training corpus: :func:`corpus_numbers` of the training split, drawn with ``seed``."""
    check_int("seed", seed, minimum=0)
    numbers = corpus_numbers(number_split().train, n, torch.Generator().manual_seed(seed))
    return number_pairs(numbers, target=target)


def number_test_set(n: int = 1000, seed: int = 321, target: str = "de") -> NumberPairs:
    """``n`` test pairs of numbers training never sees (3–6 digits, uniformly)."""
    check_int("seed", seed, minimum=0)
    numbers = sample_numbers(number_split().test, n, torch.Generator().manual_seed(seed))
    return number_pairs(numbers, target=target)
