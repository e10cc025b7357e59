"""Scaled dot-product attention and multi-head attention — §3.2 of the paper.

Masks are boolean with ``True`` where attention is *allowed*, the convention of
``torch.nn.functional.scaled_dot_product_attention``. Functions return what
they computed (output *and* weights); nothing is stored on a module.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from attnbook.checks import (
    check_float,
    check_int,
    check_mask,
    check_qkv,
    check_tensor,
    describe,
)


def masked_softmax(scores: Tensor, mask: Tensor | None = None, dim: int = -1) -> Tensor:
    """softmax over ``dim`` of the entries ``mask`` allows; masked entries get exactly 0.

        p_j = exp(s_j) / Σ_{k allowed} exp(s_k)   for allowed j,   p_j = 0 otherwise

    ``mask`` is bool, True = allowed, and broadcasts to ``scores``. A row with no allowed
    entry gets all zeros (not the NaN of 0/0). Every attention in the book normalises
    its scores with this function.
    """
    check_tensor("scores", scores, kind="float")
    if mask is None:
        return torch.softmax(scores, dim=dim)
    check_mask(mask, scores.shape)
    weights = torch.softmax(scores.masked_fill(~mask, float("-inf")), dim=dim)
    # exp(-inf) is already 0; this also turns all-masked rows' NaN into 0
    return weights.masked_fill(~mask, 0.0)


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
    check_qkv(q, k, v)
    d_k = q.size(-1)
    scale = 1.0 / math.sqrt(d_k) if scale is None else check_float("scale", scale)
    scores = q @ k.transpose(-2, -1) * scale  # (..., T_q, T_k)
    weights = masked_softmax(scores, mask)  # (..., T_q, T_k), rows sum to 1 (or 0)
    return weights @ v, weights  # (..., T_q, d_v), (..., T_q, T_k)


def causal_mask(T: int, device: torch.device | str | None = None) -> Tensor:
    """``(T, T)`` bool mask, True on and below the diagonal: position i sees j ≤ i (§3.2.3)."""
    check_int("T", T)
    return torch.ones(T, T, dtype=torch.bool, device=device).tril()


def padding_mask(lengths: Tensor | list[int], T: int | None = None) -> Tensor:
    """``(B, 1, T)`` bool mask, True on the first ``lengths[b]`` keys of each sequence.

    It broadcasts against ``(B, T_q, T)`` scores; :class:`MultiHeadAttention`
    adds the head axis itself.
    """
    if isinstance(lengths, Tensor):
        if lengths.is_floating_point() or lengths.dtype == torch.bool:
            raise TypeError(f"lengths must hold integers, got dtype {lengths.dtype}")
    elif not isinstance(lengths, (list, tuple)) or not all(
        isinstance(n, int) and not isinstance(n, bool) for n in lengths
    ):
        raise TypeError(f"lengths must be a list of ints or a 1-D tensor, got {describe(lengths)}")
    lengths = torch.as_tensor(lengths)
    if lengths.dim() != 1 or lengths.numel() == 0:
        raise ValueError(f"lengths must be a non-empty 1-D list, got shape {tuple(lengths.shape)}")
    if (lengths < 1).any():
        raise ValueError(f"every length must be at least 1, got {lengths.tolist()}")
    T = int(lengths.max()) if T is None else check_int("T", T)
    if int(lengths.max()) > T:
        raise ValueError(f"a length {int(lengths.max())} exceeds T={T}")
    positions = torch.arange(T, device=lengths.device)  # (T,)
    return (positions[None, :] < lengths[:, None])[:, None, :]  # (B, 1, T)


# (q, k, v, mask) -> (output, weights or None), on (B, h, T, d_k) tensors
AttentionFn = Callable[[Tensor, Tensor, Tensor, Tensor | None], tuple[Tensor, Tensor | None]]


class MultiHeadAttention(nn.Module):
    """MultiHead(Q, K, V) = Concat(head_1, …, head_h) W_O — §3.2.2.

    head_i = Attention(Q W_Q_i, K W_K_i, V W_V_i). The h heads' projections are
    stored side by side in one ``nn.Linear`` per matrix (``W_Q``, ``W_K``: d_model →
    h·d_k; ``W_V``: d_model → h·d_v; ``W_O``: h·d_v → d_model), which is the same as h
    separate d_model → d_k maps. The paper sets d_k = d_v = d_model / h (the default);
    Table 3, row (B) shrinks d_k alone, which ``d_k`` and ``d_v`` allow.

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
        d_k: int | None = None,
        d_v: int | None = None,
    ) -> None:
        super().__init__()
        check_int("d_model", d_model)
        check_int("h", h)
        for name, size in (("d_k", d_k), ("d_v", d_v)):
            if size is None and d_model % h != 0:
                raise ValueError(
                    f"d_model={d_model} is not divisible by h={h}: {name} = d_model / h "
                    f"(or pass {name})"
                )
            if size is not None:
                check_int(name, size)
        check_float("dropout", dropout, 0.0, 1.0, high_open=True)
        if attention is not None and not callable(attention):
            raise TypeError(f"attention must be a function (q, k, v, mask), got {attention!r}")
        self.d_model, self.h = d_model, h
        self.d_k = d_model // h if d_k is None else d_k
        self.d_v = d_model // h if d_v is None else d_v
        self.W_Q = nn.Linear(d_model, h * self.d_k, bias=bias)
        self.W_K = nn.Linear(d_model, h * self.d_k, bias=bias)
        self.W_V = nn.Linear(d_model, h * self.d_v, bias=bias)
        self.W_O = nn.Linear(h * self.d_v, d_model, bias=bias)
        self.dropout = nn.Dropout(dropout)
        self.attention = attention or scaled_dot_product_attention

    def _split_heads(self, x: Tensor) -> Tensor:
        B, T, width = x.shape  # width = h·d_k or h·d_v
        return x.view(B, T, self.h, width // self.h).transpose(1, 2)  # (B, h, T, d_k or d_v)

    def _check_inputs(self, query: Tensor, key: Tensor, value: Tensor, mask: Tensor | None) -> None:
        """The checks of :func:`~attnbook.checks.check_qkv`, in the caller's (B, T, d_model)."""
        for name, t in (("query", query), ("key", key), ("value", value)):
            check_tensor(name, t, hint=f"(B, T, d_model={self.d_model})")
            if t.dim() != 3 or t.size(-1) != self.d_model:
                raise ValueError(
                    f"{name} must have shape (B, T, d_model={self.d_model}), got {tuple(t.shape)}"
                )
            if not t.is_floating_point():
                raise TypeError(f"{name} must be a floating-point tensor, got {t.dtype}")
        if not query.dtype == key.dtype == value.dtype:
            raise TypeError(
                "query, key and value must share one dtype, got "
                f"{query.dtype}, {key.dtype}, {value.dtype}"
            )
        if not query.size(0) == key.size(0) == value.size(0):
            raise ValueError(
                "query, key and value must have the same batch size B: got "
                f"query {tuple(query.shape)}, key {tuple(key.shape)}, value {tuple(value.shape)}"
            )
        if key.size(1) != value.size(1):
            raise ValueError(
                f"key and value must have the same length T_k: key {tuple(key.shape)} "
                f"vs value {tuple(value.shape)}"
            )
        if query.size(1) == 0 or key.size(1) == 0:
            raise ValueError(f"empty sequence: query {tuple(query.shape)}, key {tuple(key.shape)}")
        if mask is not None:  # (T_q, T_k), (B, T_q, T_k) or (B, 1, T_k): one for all heads
            check_mask(mask, (query.size(0), query.size(1), key.size(1)))

    def forward(
        self,
        query: Tensor,
        key: Tensor,
        value: Tensor,
        mask: Tensor | None = None,
        need_weights: bool = True,
    ) -> tuple[Tensor, Tensor | None]:
        """Batch-first inputs ``(B, T, d_model)``; returns ``(output, weights)``.

        ``mask`` (bool, True = may attend) is ``(T_q, T_k)``, ``(B, T_q, T_k)`` or
        ``(B, 1, T_k)``; it is shared by all heads. ``weights`` are the per-head
        attention weights ``(B, h, T_q, T_k)`` before dropout.

        ``need_weights=False`` returns ``None`` for the weights; with the default
        attention function and no active dropout it then runs PyTorch's fused
        ``F.scaled_dot_product_attention``, the same function of the inputs without the
        weights as a tensor of their own (what training needs, and faster).
        """
        self._check_inputs(query, key, value, mask)
        # Q before K and V: the order in which autograd sums gradients into a shared input
        q = self._split_heads(self.W_Q(query))  # (B, h, T_q, d_k)
        k = self._split_heads(self.W_K(key))  # (B, h, T_k, d_k)
        v = self._split_heads(self.W_V(value))  # (B, h, T_k, d_v)
        return self._attend(q, k, v, mask, need_weights)

    def project_kv(self, key: Tensor, value: Tensor) -> tuple[Tensor, Tensor]:
        """K W_K and V W_V, split into heads: ``(B, h, T_k, d_k)`` and ``(B, h, T_k, d_v)``.

        What a decoder keeps between generation steps (its key/value cache): the keys and
        values of the positions already generated, and those of the encoder's memory.
        :meth:`attend` takes them back.
        """
        for name, t in (("key", key), ("value", value)):
            check_tensor(name, t, 3, "float", f"(B, T_k, d_model={self.d_model})")
            if t.size(-1) != self.d_model:
                raise ValueError(
                    f"{name} must have shape (B, T_k, d_model={self.d_model}), got {tuple(t.shape)}"
                )
        if key.shape[:2] != value.shape[:2]:
            raise ValueError(
                f"key and value must have the same (B, T_k): key {tuple(key.shape)} "
                f"vs value {tuple(value.shape)}"
            )
        k = self._split_heads(self.W_K(key))  # (B, h, T_k, d_k)
        v = self._split_heads(self.W_V(value))  # (B, h, T_k, d_v)
        return k, v

    def attend(
        self,
        query: Tensor,
        k: Tensor,
        v: Tensor,
        mask: Tensor | None = None,
        need_weights: bool = True,
    ) -> tuple[Tensor, Tensor | None]:
        """:meth:`forward` with keys and values already projected by :meth:`project_kv`.

        ``query`` ``(B, T_q, d_model)``; ``k`` ``(B, h, T_k, d_k)``; ``v`` ``(B, h, T_k, d_v)``;
        ``mask`` and the
        result as in :meth:`forward`. ``forward(query, key, value)`` equals
        ``attend(query, *project_kv(key, value))``.
        """
        check_tensor("query", query, 3, "float", f"(B, T_q, d_model={self.d_model})")
        check_tensor("k", k, 4, "float", f"(B, h={self.h}, T_k, d_k={self.d_k})")
        check_tensor("v", v, 4, "float", f"(B, h={self.h}, T_k, d_v={self.d_v})")
        B, T_q, d_model = query.shape
        if (
            d_model != self.d_model
            or T_q == 0
            or k.shape[:3] != v.shape[:3]
            or (k.size(0), k.size(1), k.size(3), v.size(3)) != (B, self.h, self.d_k, self.d_v)
            or k.size(2) == 0
        ):
            raise ValueError(
                f"attend needs query (B, T_q ≥ 1, d_model={self.d_model}), k (B, h={self.h}, "
                f"T_k ≥ 1, d_k={self.d_k}) and v (B, h={self.h}, T_k, d_v={self.d_v}), "
                f"got query {tuple(query.shape)}, "
                f"k {tuple(k.shape)}, v {tuple(v.shape)}"
            )
        if not query.dtype == k.dtype == v.dtype:
            raise TypeError(
                f"query, k and v must share one dtype, got {query.dtype}, {k.dtype}, {v.dtype}"
            )
        if mask is not None:
            check_mask(mask, (query.size(0), query.size(1), k.size(2)))
        q = self._split_heads(self.W_Q(query))  # (B, h, T_q, d_k)
        return self._attend(q, k, v, mask, need_weights)

    def _attend(
        self, q: Tensor, k: Tensor, v: Tensor, mask: Tensor | None, need_weights: bool
    ) -> tuple[Tensor, Tensor | None]:
        if mask is not None and mask.dim() == 3:
            mask = mask.unsqueeze(1)  # (B, 1, T_q or 1, T_k): same mask for every head
        dropping = self.training and self.dropout.p > 0
        if not need_weights and not dropping and self.attention is scaled_dot_product_attention:
            # fused kernel: same softmax(Q Kᵀ / √d_k) V; all-masked rows give 0 here too
            heads, weights = F.scaled_dot_product_attention(q, k, v, attn_mask=mask), None
        else:
            heads, weights = self.attention(q, k, v, mask)  # (B, h, T_q, d_v), (B, h, T_q, T_k)
            if dropping and weights is not None:
                heads = self.dropout(weights) @ v  # attention dropout, as in the reference code
        B, _, T_q, _ = heads.shape
        concat = heads.transpose(1, 2).reshape(B, T_q, self.h * self.d_v)  # (B, T_q, h·d_v)
        return self.W_O(concat), weights if need_weights else None  # (B, T_q, d_model)
