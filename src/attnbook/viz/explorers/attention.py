"""The attention explorer of the scaled dot-product attention chapter."""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch
import traitlets

from attnbook.viz.explorers._base import Explorer, rounded


class AttentionExplorer(Explorer):
    """Click a word to make it the query, move the temperature τ; see softmax(q·kⱼ / (√d_k·τ))
    and the output.

    The scaled scores Q Kᵀ/√d_k and the values V are computed here once; the browser
    recomputes the weights and the output Σⱼ wⱼ vⱼ when the reader picks another word (the
    sentence's words are buttons; ``query`` is the index of the one pressed) or moves τ.
    """

    _module = "attention_explorer"

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
            scores=rounded(scores),
            values=rounded(v),
            query=query,
            temperature=float(temperature),
            **kwargs,
        )
