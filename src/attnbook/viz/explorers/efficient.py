"""The sparsity explorer of the efficient-attention chapter."""

from __future__ import annotations

import traitlets

from attnbook.viz.explorers._base import Explorer

#: The block layouts the explorer offers, as keyword arguments of
#: :func:`attnbook.efficient.block_layout` (the browser implements the same function). The
#: reader sees each name in the page's language (js/strings.js, "sparsity.layout.…").
LAYOUTS: dict[str, dict[str, int]] = {
    "block diagonal": {"local": 0},
    "local band": {"local": 1},
    "local + global": {"local": 1, "global_blocks": 1},
    "local + strided": {"local": 1, "stride": 4},
}


class SparsityExplorer(Explorer):
    """Window size w, block size b, a block layout: which of the n × n scores are computed.

    Left, sliding-window attention (abs(i − j) ≤ w) as
    :func:`attnbook.efficient.sliding_window_attention` computes it: query blocks of b rows
    against key strips of b + 2w columns. Right, block-sparse attention on the chosen layout
    of b × b blocks. Each cell is *used* (in the pattern), *computed and discarded* (inside
    a computed block but masked), or *skipped*. Everything is computed in the browser from
    the four numbers below; nothing but them is stored in the page.
    """

    _module = "sparsity_explorer"

    n = traitlets.Int(64).tag(sync=True)
    window = traitlets.Int(4).tag(sync=True)
    block = traitlets.Int(8).tag(sync=True)
    # not "layout": every DOM widget already has a ``layout`` trait (its CSS Layout widget)
    layout_name = traitlets.Unicode("local band").tag(sync=True)
    causal = traitlets.Bool(False).tag(sync=True)
    layout_params = traitlets.Dict().tag(sync=True)

    def __init__(
        self,
        n: int = 64,
        window: int = 4,
        block: int = 8,
        layout: str = "local band",
        causal: bool = False,
        **kwargs,
    ) -> None:
        if not isinstance(n, int) or not 8 <= n <= 128:
            raise ValueError(f"n must be an int in 8..128 (cells to draw), got {n!r}")
        if not isinstance(window, int) or not 0 <= window <= n // 2:
            raise ValueError(f"window must be an int in 0..{n // 2}, got {window!r}")
        if not isinstance(block, int) or not 1 <= block <= n // 2:
            raise ValueError(f"block must be an int in 1..{n // 2}, got {block!r}")
        if layout not in LAYOUTS:
            raise ValueError(f"layout must be one of {list(LAYOUTS)}, got {layout!r}")
        super().__init__(
            n=n,
            window=window,
            block=block,
            layout_name=layout,
            causal=bool(causal),
            layout_params=LAYOUTS,
            **kwargs,
        )
