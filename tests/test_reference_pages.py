"""The numbers typed on the reference pages, checked against what they are computed from.

A Markdown page cannot paste computed values, so the cheat sheet's derived numbers are
recomputed here from the paper's formulas.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
CHEATSHEET = (ROOT / "book" / "cheatsheet.md").read_text(encoding="utf-8")
PAGES = ["cheatsheet", "glossary", "how_to_read", "misconceptions", "bibliography"]
SCI = re.compile(r"(\d+(?:\.\d+)?) \\times 10\^\{(-?\d+)\}")  # "6.99 \times 10^{-4}"


def _row(table_text: str, first_cell: str) -> list[str]:
    """The cells of the table row whose first cell starts with ``first_cell``."""
    for line in table_text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and cells[0].startswith(first_cell):
            return cells
    raise AssertionError(f"no table row starting with {first_cell!r}")


def _numbers(text: str) -> list[float]:
    return [float(m) * 10 ** int(e) for m, e in SCI.findall(text)]


def _lrate(step: int, d_model: int, warmup: int) -> float:
    """Eq. (3) of the paper (§5.3)."""
    return d_model**-0.5 * min(step**-0.5, step * warmup**-1.5)


def test_peak_learning_rate_is_the_formula_at_the_end_of_warm_up():
    warmup = 4000
    typed = _numbers(_row(CHEATSHEET, "peak learning rate")[1])
    assert len(typed) == 2, typed
    for value, d_model in zip(typed, (512, 1024)):
        peak = max(_lrate(s, d_model, warmup) for s in range(1, 3 * warmup))
        assert peak == _lrate(warmup, d_model, warmup) == (d_model * warmup) ** -0.5
        assert f"{value:.2e}" == f"{peak:.2e}", (value, peak)


def test_vocabulary_size_is_V_as_in_the_chapters():
    smoothing = _row(CHEATSHEET, "label smoothing")[1]
    assert r"\epsilon/V" in smoothing and "/K" not in smoothing


def test_clone_command_uses_the_configured_repository():
    url = yaml.safe_load((ROOT / "_config.yml").read_text())["repository"]["url"]
    page = (ROOT / "book" / "how_to_read.md").read_text(encoding="utf-8")
    assert f"git clone {url} " in page
    assert "<this repository>" not in page


def test_chapters_are_linked_by_name_not_by_a_typed_number():
    """Chapter numbers change when chapters are added; a {doc} link shows the title."""
    typed = re.compile(r"\{doc\}`\s*\d+\s*<|\b[Cc]hapter \d+\b")
    for name in PAGES:
        page = (ROOT / "book" / f"{name}.md").read_text(encoding="utf-8")
        assert not typed.findall(page), (name, typed.findall(page))
    assert CHEATSHEET.count("{doc}`../notebooks/") >= 9


def _plain(number: str) -> float:
    """``"3.3 \\times 10^{18}"``, ``"27.3"``, ``"100K"`` or ``"65M"`` as a number."""
    sci = _numbers(number)
    if sci:
        return sci[0]
    scale = {"K": 1e3, "M": 1e6}.get(number[-1], 1)
    return float(number.rstrip("KM")) * scale


def test_tables_2_and_3_as_the_package_records_them():
    """The paper's numbers on the cheat sheet are the ones chapter 8 sets its miniature beside."""
    from attnbook.miniature import (
        P100_FLOPS,
        PAPER_BASE,
        PAPER_BIG,
        PAPER_CHECKPOINTS_AVERAGED,
        PAPER_MAX_LEN_OFFSET,
        PAPER_TRAINING,
    )

    for model in ("base", "big"):
        row = _row(CHEATSHEET, f"Table 2, {model} model")[1]
        paper = PAPER_TRAINING[model]
        bleu = re.findall(r"BLEU (\d+\.\d) \(EN–DE\), (\d+\.\d) \(EN–FR\)", row)
        assert bleu == [(f"{paper['bleu_de']}", f"{paper['bleu_fr']}")], row
        flops = _numbers(row)
        assert flops == [paper["flops"]], row
        steps = re.search(r"(\d+K) steps on (\d+) P100", row)
        assert _plain(steps[1]) == paper["steps"] and int(steps[2]) == paper["gpus"], row
        hours = re.search(r"in (\d+(?:\.\d+)?) (hours|days)", row)
        assert float(hours[1]) * (24 if hours[2] == "days" else 1) == paper["hours"], row
    for model, paper in (("base", PAPER_BASE), ("big", PAPER_BIG)):
        row = _row(CHEATSHEET, f"Table 3, {model}")[1]
        found = re.search(r"perplexity (\d+\.\d+), BLEU (\d+\.\d) \(dev\), (\d+)M parameters", row)
        assert found, row
        assert (float(found[1]), float(found[2]), int(found[3])) == (
            paper.ppl,
            paper.bleu,
            paper.params_millions,
        )
    assert "9.5 TFLOPS" in _row(CHEATSHEET, "training cost")[1] and P100_FLOPS == 9.5e12
    decoding = _row(CHEATSHEET, "decoding")[1]
    assert f"input length + {PAPER_MAX_LEN_OFFSET}" in decoding
    averaged = PAPER_CHECKPOINTS_AVERAGED
    assert f"last {averaged['base']} (base) or {averaged['big']} (big)" in decoding
