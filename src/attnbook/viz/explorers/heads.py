"""The heads explorer of the multi-head attention chapter."""

from __future__ import annotations

from collections.abc import Sequence

import torch
import traitlets

from attnbook.viz.explorers._base import Explorer, rounded

MAX_HEADS = 6  # 2^h − 1 subsets of heads are listed in the picker


def subset_label(s: int, h: int) -> str:
    """The picker's name for the subset of heads whose bits are set in ``s``."""
    kept = [i for i in range(h) if s >> i & 1]
    if len(kept) == h and h > 1:
        return f"all {h} heads"
    return ("head " if len(kept) == 1 else "heads ") + "+".join(map(str, kept))


class HeadsExplorer(Explorer):
    """Pick a subset of heads and a query position; see each kept head's weights and their sum.

    Everything is precomputed from one sequence of a trained model: the weights
    ``(h, T, T)``, each head's contribution head_i W_O_i to the output ``(h, T, d_model)``
    and, for every non-empty subset of heads, the model's answers with only those
    heads kept. The browser adds up the kept heads' contributions and redraws.
    """

    _module = "heads_explorer"

    tokens = traitlets.List(traitlets.Unicode()).tag(sync=True)
    weights = traitlets.List().tag(sync=True)  # (h, T, T)
    contributions = traitlets.List().tag(sync=True)  # (h, T, d_model)
    predictions = traitlets.List(traitlets.List(traitlets.Unicode())).tag(sync=True)  # (2^h−1, T)
    targets = traitlets.List(traitlets.Unicode()).tag(sync=True)  # (T,), "" = no answer
    subsets = traitlets.List(traitlets.Unicode()).tag(sync=True)  # labels of the 2^h − 1 subsets
    query = traitlets.Int(0).tag(sync=True)
    heads = traitlets.Int(1).tag(sync=True)  # bit mask of the kept heads

    def __init__(
        self,
        tokens: Sequence[str],
        weights: torch.Tensor,
        contributions: torch.Tensor,
        predictions: Sequence[Sequence[str]],
        targets: Sequence[str],
        query: int = 0,
        heads: int | None = None,
        **kwargs,
    ) -> None:
        T = len(tokens)
        if weights.dim() != 3 or weights.shape[1:] != (T, T):
            raise ValueError(
                f"weights must be (h, T, T) for {T} tokens, got {tuple(weights.shape)}"
            )
        h = weights.size(0)
        if not 1 <= h <= MAX_HEADS:
            raise ValueError(
                f"the explorer lists 2^h − 1 subsets: h must be 1 … {MAX_HEADS}, got {h}"
            )
        if contributions.dim() != 3 or contributions.shape[:2] != (h, T):
            raise ValueError(
                f"contributions must be (h={h}, T={T}, d_model), got {tuple(contributions.shape)}"
            )
        n_subsets = 2**h - 1
        if len(predictions) != n_subsets or any(len(row) != T for row in predictions):
            raise ValueError(
                f"predictions must hold {n_subsets} rows (one per non-empty subset of {h} heads) "
                f"of {T} answers each"
            )
        if len(targets) != T:
            raise ValueError(f"{len(targets)} targets for {T} tokens")
        if not 0 <= query < T:
            raise ValueError(f"query must index a position in 0 … {T - 1}, got {query}")
        heads = n_subsets if heads is None else heads
        if not 1 <= heads <= n_subsets:
            raise ValueError(f"heads is a bit mask of kept heads in 1 … {n_subsets}, got {heads}")
        super().__init__(
            tokens=list(tokens),
            weights=rounded(weights, 4),
            contributions=rounded(contributions, 3),
            predictions=[[str(p) for p in row] for row in predictions],
            targets=[str(t) for t in targets],
            subsets=[subset_label(s, h) for s in range(1, n_subsets + 1)],
            query=query,
            heads=heads,
            **kwargs,
        )
