"""Explorers: anywidgets whose redrawing runs in the browser.

Python computes the few numbers the browser needs and puts them in synced
traits; each widget's small ES module (in ``js/``) draws and redraws from them.
The widget state is saved with the notebook, so the same explorer works on the
static book site (no kernel), in Colab and in JupyterLab.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import anywidget
import torch
import traitlets

_JS = Path(__file__).parent / "js"


def _rounded(t: torch.Tensor, digits: int = 5) -> list:
    """A tensor as nested lists of floats, rounded so the saved page stays small."""
    return torch.round(t.detach().double().cpu(), decimals=digits).tolist()


class AttentionExplorer(anywidget.AnyWidget):
    """Pick a query token and a temperature τ; see softmax(q·kⱼ / (√d_k·τ)) and the output.

    The scaled scores Q Kᵀ/√d_k and the values V are computed here once; the
    browser recomputes the weights and the output Σⱼ wⱼ vⱼ when a slider moves.
    """

    _esm = (_JS / "attention_explorer.js").read_text(encoding="utf-8")
    _css = (_JS / "explorer.css").read_text(encoding="utf-8")

    tokens = traitlets.List(traitlets.Unicode()).tag(sync=True)
    scores = traitlets.List(traitlets.List(traitlets.Float())).tag(sync=True)
    values = traitlets.List(traitlets.List(traitlets.Float())).tag(sync=True)
    query = traitlets.Int(0).tag(sync=True)
    temperature = traitlets.Float(1.0).tag(sync=True)

    def __init__(
        self,
        tokens: Sequence[str],
        q: torch.Tensor,
        k: torch.Tensor,
        v: torch.Tensor,
        query: int = 0,
        temperature: float = 1.0,
        **kwargs,
    ) -> None:
        T = len(tokens)
        if q.dim() != 2 or k.dim() != 2 or v.dim() != 2:
            raise ValueError(
                "q, k, v must be 2-D (T, d); got "
                f"{tuple(q.shape)}, {tuple(k.shape)}, {tuple(v.shape)}"
            )
        if not (q.size(0) == k.size(0) == v.size(0) == T):
            raise ValueError(
                f"{T} tokens but q, k, v have {q.size(0)}, {k.size(0)}, {v.size(0)} rows"
            )
        if q.size(1) != k.size(1):
            raise ValueError(f"q and k must share d_k: {tuple(q.shape)} vs {tuple(k.shape)}")
        if not 0 <= query < T:
            raise ValueError(f"query must index a token in 0..{T - 1}, got {query}")
        if temperature <= 0:
            raise ValueError(f"temperature must be positive, got {temperature}")
        scores = q @ k.T / math.sqrt(q.size(1))  # (T, T): Q Kᵀ / √d_k
        super().__init__(
            tokens=list(tokens),
            scores=_rounded(scores),
            values=_rounded(v),
            query=query,
            temperature=float(temperature),
            **kwargs,
        )
