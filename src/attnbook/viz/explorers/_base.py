"""What every explorer shares: its ES module and stylesheet, and compact numbers."""

from __future__ import annotations

from pathlib import Path

import torch

JS = Path(__file__).resolve().parent.parent / "js"


def module_source(name: str) -> str:
    """The ES module ``js/<name>.js`` that draws one explorer."""
    return (JS / f"{name}.js").read_text(encoding="utf-8")


def stylesheet() -> str:
    """The shared ``.attnbook-explorer`` styles."""
    return (JS / "explorer.css").read_text(encoding="utf-8")


def rounded(t: torch.Tensor, digits: int = 5) -> list:
    """A tensor as nested lists of floats, rounded so the saved page stays small."""
    return torch.round(t.detach().double().cpu(), decimals=digits).tolist()
