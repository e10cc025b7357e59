"""The explorer of the chapter on scaling: why divide q·k by √d_k."""

from __future__ import annotations

import torch
import traitlets

from attnbook.scaling import SCALINGS
from attnbook.viz.explorers._base import Explorer, rounded


class ScalingExplorer(Explorer):
    """Pick d_k and a scaling; see the logits scale·q·kⱼ, softmax weights, entropy and gradients.

    Python hands over one query ``q`` (d_max components) and T keys ``k``
    (T × d_max), e.g. standard normal. The browser keeps their first d_k
    components and recomputes sⱼ = scale · q·kⱼ, p = softmax(s), H(p),
    ‖diag(p) − p pᵀ‖_F and ‖∂p/∂q‖_F for scale = 1, 1/√d_k or 1/d_k.
    """

    _module = "scaling_explorer"

    q = traitlets.List(traitlets.Float()).tag(sync=True)
    k = traitlets.List(traitlets.List(traitlets.Float())).tag(sync=True)
    d_k = traitlets.Int(64).tag(sync=True)
    scaling = traitlets.Unicode("none").tag(sync=True)

    def __init__(
        self,
        q: torch.Tensor,
        k: torch.Tensor,
        d_k: int = 64,
        scaling: str = "none",
        digits: int = 2,
        **kwargs,
    ) -> None:
        if q.dim() != 1 or k.dim() != 2 or k.size(1) != q.size(0):
            raise ValueError(
                f"q must be (d_max,) and k (T, d_max); got {tuple(q.shape)} and {tuple(k.shape)}"
            )
        if k.size(0) < 2:
            raise ValueError(f"need at least 2 keys, got {k.size(0)}")
        if not isinstance(d_k, int) or not 1 <= d_k <= q.size(0):
            raise ValueError(f"d_k must be an int in 1..{q.size(0)}, got {d_k!r}")
        if scaling not in SCALINGS:
            raise ValueError(f"scaling must be one of {sorted(SCALINGS)}, got {scaling!r}")
        super().__init__(
            q=rounded(q, digits),
            k=rounded(k, digits),
            d_k=d_k,
            scaling=scaling,
            **kwargs,
        )
