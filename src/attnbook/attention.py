"""Scaled dot-product attention and multi-head attention — §3.2 of the paper.

Masks are boolean with ``True`` where attention is *allowed*, the convention of
``torch.nn.functional.scaled_dot_product_attention``. Functions return what
they computed (output *and* weights); nothing is stored on a module.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
from torch import Tensor, nn


def _check_qkv(q: Tensor, k: Tensor, v: Tensor) -> None:
    for name, t in (("query", q), ("key", k), ("value", v)):
        if not isinstance(t, Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
        if t.dim() < 2:
            raise ValueError(
                f"{name} must have shape (..., T, d) with at least 2 dimensions, "
                f"got {tuple(t.shape)}"
            )
    if q.size(-1) != k.size(-1):
        raise ValueError(
            f"query and key must share d_k (their last dimension): "
            f"query {tuple(q.shape)} vs key {tuple(k.shape)}"
        )
    if k.size(-2) != v.size(-2):
        raise ValueError(
            f"key and value must have the same length T_k: "
            f"key {tuple(k.shape)} vs value {tuple(v.shape)}"
        )
    if q.shape[:-2] != k.shape[:-2] or k.shape[:-2] != v.shape[:-2]:
        raise ValueError(
            f"query, key and value must have the same leading (batch, head) dimensions: "
            f"query {tuple(q.shape)}, key {tuple(k.shape)}, value {tuple(v.shape)}"
        )
    if q.size(-2) == 0 or k.size(-2) == 0:
        raise ValueError(
            f"empty sequence: query {tuple(q.shape)}, key {tuple(k.shape)} "
            "(T_q and T_k must be at least 1)"
        )


def _check_mask(mask: Tensor, scores_shape: torch.Size) -> None:
    if not isinstance(mask, Tensor) or mask.dtype != torch.bool:
        got = mask.dtype if isinstance(mask, Tensor) else type(mask).__name__
        raise ValueError(
            f"mask must be a bool tensor (True = may attend), got {got}; "
            "turn a 0/1 mask into one with mask.bool()"
        )
    try:
        shape = torch.broadcast_shapes(mask.shape, scores_shape)
    except RuntimeError:
        shape = None
    if shape != scores_shape:
        raise ValueError(
            f"mask of shape {tuple(mask.shape)} does not broadcast to the attention "
            f"scores' shape {tuple(scores_shape)} (…, T_q, T_k)"
        )


def scaled_dot_product_attention(
    q: Tensor,
    k: Tensor,
    v: Tensor,
    mask: Tensor | None = None,
    scale: float | None = None,
) -> tuple[Tensor, Tensor]:
    """Attention(Q, K, V) = softmax(Q Kᵀ / √d_k) V — Eq. (1), §3.2.1.

    Args:
        q: queries, shape ``(..., T_q, d_k)``.
        k: keys, shape ``(..., T_k, d_k)``.
        v: values, shape ``(..., T_k, d_v)``.
        mask: optional bool tensor broadcastable to ``(..., T_q, T_k)``; ``True``
            where query i may attend to key j. Masked keys get exactly 0 weight;
            a query whose keys are all masked gets all-zero weights (not NaN).
        scale: the factor applied to Q Kᵀ; ``None`` means 1/√d_k.

    Returns:
        ``(output, weights)`` with shapes ``(..., T_q, d_v)`` and ``(..., T_q, T_k)``.
    """
    _check_qkv(q, k, v)
    d_k = q.size(-1)
    if scale is None:
        scale = 1.0 / math.sqrt(d_k)
    scores = q @ k.transpose(-2, -1) * scale  # (..., T_q, T_k)
    if mask is not None:
        _check_mask(mask, scores.shape)
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)  # (..., T_q, T_k), rows sum to 1
    if mask is not None:
        # exp(-inf) is already 0; this also turns all-masked rows' NaN into 0
        weights = weights.masked_fill(~mask, 0.0)
    return weights @ v, weights  # (..., T_q, d_v), (..., T_q, T_k)


def causal_mask(T: int, device: torch.device | str | None = None) -> Tensor:
    """``(T, T)`` bool mask, True on and below the diagonal: position i sees j ≤ i (§3.2.3)."""
    if not isinstance(T, int) or T < 1:
        raise ValueError(f"causal_mask needs a positive length T, got {T!r}")
    return torch.ones(T, T, dtype=torch.bool, device=device).tril()


def padding_mask(lengths: Tensor | list[int], T: int | None = None) -> Tensor:
    """``(B, 1, T)`` bool mask, True on the first ``lengths[b]`` keys of each sequence.

    It broadcasts against ``(B, T_q, T)`` scores; :class:`MultiHeadAttention`
    adds the head axis itself.
    """
    lengths = torch.as_tensor(lengths)
    if lengths.dim() != 1 or lengths.numel() == 0:
        raise ValueError(f"lengths must be a non-empty 1-D list, got shape {tuple(lengths.shape)}")
    if (lengths < 1).any():
        raise ValueError(f"every length must be at least 1, got {lengths.tolist()}")
    T = int(lengths.max()) if T is None else T
    if int(lengths.max()) > T:
        raise ValueError(f"a length {int(lengths.max())} exceeds T={T}")
    positions = torch.arange(T, device=lengths.device)  # (T,)
    return (positions[None, :] < lengths[:, None])[:, None, :]  # (B, 1, T)


# (q, k, v, mask) -> (output, weights or None), on (B, h, T, d_k) tensors
AttentionFn = Callable[[Tensor, Tensor, Tensor, Tensor | None], tuple[Tensor, Tensor | None]]


class MultiHeadAttention(nn.Module):
    """MultiHead(Q, K, V) = Concat(head_1, …, head_h) W_O — §3.2.2.

    head_i = Attention(Q W_Q_i, K W_K_i, V W_V_i). The h heads' projections are
    stored side by side in one ``nn.Linear`` per matrix (``W_Q``, ``W_K``,
    ``W_V``: d_model → h·d_k), which is the same as h separate d_model → d_k maps.

    ``attention`` computes each head; by default :func:`scaled_dot_product_attention`.
    Any function with its signature ``(q, k, v, mask) -> (output, weights)`` can stand
    in (the efficient-attention chapter swaps in local and linear variants; those may
    return ``None`` for the weights).
    """

    def __init__(
        self,
        d_model: int,
        h: int,
        dropout: float = 0.0,
        bias: bool = True,
        attention: AttentionFn | None = None,
    ) -> None:
        super().__init__()
        if d_model < 1 or h < 1:
            raise ValueError(f"d_model and h must be positive, got d_model={d_model}, h={h}")
        if d_model % h != 0:
            raise ValueError(f"d_model={d_model} is not divisible by h={h}: d_k = d_model / h")
        if not 0.0 <= dropout < 1.0:
            raise ValueError(f"dropout must be in [0, 1), got {dropout}")
        self.d_model, self.h, self.d_k = d_model, h, d_model // h
        self.W_Q = nn.Linear(d_model, d_model, bias=bias)
        self.W_K = nn.Linear(d_model, d_model, bias=bias)
        self.W_V = nn.Linear(d_model, d_model, bias=bias)
        self.W_O = nn.Linear(d_model, d_model, bias=bias)
        self.dropout = nn.Dropout(dropout)
        self.attention = attention or scaled_dot_product_attention

    def _split_heads(self, x: Tensor) -> Tensor:
        B, T, _ = x.shape
        return x.view(B, T, self.h, self.d_k).transpose(1, 2)  # (B, h, T, d_k)

    def forward(
        self, query: Tensor, key: Tensor, value: Tensor, mask: Tensor | None = None
    ) -> tuple[Tensor, Tensor]:
        """Batch-first inputs ``(B, T, d_model)``; returns ``(output, weights)``.

        ``mask`` (bool, True = may attend) is ``(T_q, T_k)``, ``(B, T_q, T_k)`` or
        ``(B, 1, T_k)``; it is shared by all heads. ``weights`` are the per-head
        attention weights ``(B, h, T_q, T_k)`` before dropout.
        """
        for name, t in (("query", query), ("key", key), ("value", value)):
            if t.dim() != 3 or t.size(-1) != self.d_model:
                raise ValueError(
                    f"{name} must have shape (B, T, d_model={self.d_model}), got {tuple(t.shape)}"
                )
        if mask is not None and mask.dim() == 3:
            mask = mask.unsqueeze(1)  # (B, 1, T_q or 1, T_k): same mask for every head
        q = self._split_heads(self.W_Q(query))  # (B, h, T_q, d_k)
        k = self._split_heads(self.W_K(key))  # (B, h, T_k, d_k)
        v = self._split_heads(self.W_V(value))  # (B, h, T_k, d_k)
        heads, weights = self.attention(q, k, v, mask)  # (B, h, T_q, d_k), (B, h, T_q, T_k)
        if self.training and self.dropout.p > 0 and weights is not None:
            heads = self.dropout(weights) @ v  # attention dropout, as in the reference code
        B, _, T_q, _ = heads.shape
        concat = heads.transpose(1, 2).reshape(B, T_q, self.d_model)  # (B, T_q, h·d_k)
        return self.W_O(concat), weights  # (B, T_q, d_model), (B, h, T_q, T_k)
