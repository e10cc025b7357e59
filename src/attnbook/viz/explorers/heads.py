"""The heads explorer of the multi-head attention chapter."""

from __future__ import annotations

from collections.abc import Sequence

import torch
import traitlets

from attnbook.viz.explorers._base import Explorer, rounded

MAX_HEADS = 6  # the page holds the answers of all 2^h − 1 sets of heads a reader can keep


def subset_label(s: int, h: int) -> str:
    """The set of heads whose bits are set in ``s``, named as the reader sees them: heads
    counted from 1 ("head 2", "heads 1+3", "all 4 heads"), as the explorer names them."""
    kept = [i + 1 for i in range(h) if s >> i & 1]
    if len(kept) == h and h > 1:
        return f"all {h} heads"
    return ("head " if len(kept) == 1 else "heads ") + "+".join(map(str, kept))


class HeadsExplorer(Explorer):
    """Switch heads on and off and pick a query position; see each kept head's weights and
    their sum.

    Everything is precomputed from one sequence of a trained model: the weights
    ``(h, T, T)``, each head's contribution head_i W_O_i to the output ``(h, T, d_model)``
    and, for every non-empty set of heads, the model's answers with only those heads
    kept. The browser shows one toggle per head (heads counted from 1), adds up the kept
    heads' contributions and redraws. ``heads`` is the bit mask of the kept heads (bit k:
    head k + 1 is kept); at least one head stays kept.
    """

    _module = "heads_explorer"

    tokens = traitlets.List(traitlets.Unicode()).tag(sync=True)
    weights = traitlets.List().tag(sync=True)  # (h, T, T)
    contributions = traitlets.List().tag(sync=True)  # (h, T, d_model)
    # (2^h − 1, T): row s − 1 holds the answers with the heads of bit mask s kept
    predictions = traitlets.List(traitlets.List(traitlets.Unicode())).tag(sync=True)
    targets = traitlets.List(traitlets.Unicode()).tag(sync=True)  # (T,), "" = no answer
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
                f"the explorer holds the answers of 2^h − 1 sets of heads: h must be "
                f"1 … {MAX_HEADS}, got {h}"
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
            query=query,
            heads=heads,
            **kwargs,
        )
