"""The explorer of the deployment chapter: rounding weights to b bits, one scale per row."""

from __future__ import annotations

import torch
import traitlets

from attnbook.viz.explorers._base import Explorer, rounded


class QuantizationExplorer(Explorer):
    """Pick a layer, a row and a number of bits b; see the row's weights on the b-bit grid.

    Python hands over a few rows of float weights for each layer and the accuracy of the
    whole model quantized to each b. The browser recomputes, for the chosen row w,
    s = max_j abs(w_j) / (2^(b-1) − 1) and ŵ_j = round(w_j / s) · s (symmetric, per channel).
    """

    _module = "compress_explorer"

    layers = traitlets.List(traitlets.Unicode()).tag(sync=True)
    rows = traitlets.List(traitlets.List(traitlets.List(traitlets.Float()))).tag(sync=True)
    accuracy_bits = traitlets.List(traitlets.Int()).tag(sync=True)
    accuracy = traitlets.List(traitlets.Float()).tag(sync=True)
    layer = traitlets.Unicode().tag(sync=True)
    row = traitlets.Int(0).tag(sync=True)
    bits = traitlets.Int(8).tag(sync=True)

    def __init__(
        self,
        rows: dict[str, torch.Tensor],
        accuracy: dict[int, float],
        bits: int = 8,
        digits: int = 4,
        **kwargs,
    ) -> None:
        if not rows:
            raise ValueError("rows must name at least one layer")
        n_rows = {name: W.size(0) if W.dim() == 2 else -1 for name, W in rows.items()}
        if any(n < 1 for n in n_rows.values()) or len(set(n_rows.values())) != 1:
            raise ValueError(
                f"each layer needs a 2-D (rows, d_in) tensor with the same number of rows, "
                f"got { ({k: tuple(W.shape) for k, W in rows.items()}) }"
            )
        bad = [b for b in accuracy if not isinstance(b, int) or not 2 <= b <= 8]
        if bad or not accuracy:
            raise ValueError(f"accuracy needs int keys (bits) in 2..8, got {sorted(accuracy)}")
        if bits not in accuracy:
            raise ValueError(f"bits={bits} has no accuracy; known: {sorted(accuracy)}")
        keys = sorted(accuracy)
        super().__init__(
            layers=list(rows),
            rows=[rounded(W, digits) for W in rows.values()],
            accuracy_bits=keys,
            accuracy=[round(float(accuracy[b]), 4) for b in keys],
            layer=next(iter(rows)),
            row=0,
            bits=bits,
            **kwargs,
        )
