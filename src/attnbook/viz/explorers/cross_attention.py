"""The cross-attention explorer of the encoder–decoder chapter."""

from __future__ import annotations

from collections.abc import Sequence

import torch
import traitlets

from attnbook.viz.explorers._base import Explorer, rounded


class CrossAttentionExplorer(Explorer):
    """Pick an example, a layer and a head: see which source characters each output attends to.

    ``weights[e]`` is example e's cross-attention, ``(N, h, T_out, T_src)``, precomputed
    from a trained model; the browser draws the chosen slice (or the mean over heads).
    """

    _module = "cross_attention_explorer"

    sources = traitlets.List(traitlets.List(traitlets.Unicode())).tag(sync=True)
    outputs = traitlets.List(traitlets.List(traitlets.Unicode())).tag(sync=True)
    weights = traitlets.List().tag(sync=True)  # [example][layer][head][out][src]
    example = traitlets.Int(0).tag(sync=True)
    layer = traitlets.Int(0).tag(sync=True)
    head = traitlets.Int(-1).tag(sync=True)  # -1: mean over heads

    def __init__(
        self,
        sources: Sequence[Sequence[str]],
        outputs: Sequence[Sequence[str]],
        weights: Sequence[torch.Tensor],
        layer: int | None = None,
        **kwargs,
    ) -> None:
        if not (len(sources) == len(outputs) == len(weights)) or not sources:
            raise ValueError(
                f"need as many sources, outputs and weights (≥ 1), got "
                f"{len(sources)}, {len(outputs)}, {len(weights)}"
            )
        for e, (s, o, w) in enumerate(zip(sources, outputs, weights)):
            if w.dim() != 4 or w.shape[-2:] != (len(o), len(s)):
                raise ValueError(
                    f"example {e}: weights must be (N, h, {len(o)}, {len(s)}) for "
                    f"{len(o)} output and {len(s)} source tokens, got {tuple(w.shape)}"
                )
        N = weights[0].size(0)
        super().__init__(
            sources=[list(s) for s in sources],
            outputs=[list(o) for o in outputs],
            weights=[rounded(w, 3) for w in weights],
            layer=N - 1 if layer is None else layer,
            **kwargs,
        )
