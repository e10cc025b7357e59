"""Efficient attention: what full attention costs, and five ways around the n × n matrix.

Full attention (Eq. 1, §3.2.1) forms the ``(T_q, T_k)`` score matrix Q Kᵀ: time and
memory grow as n² in the sequence length n (§4, Table 1). This module counts that cost
(:mod:`attnbook.measure` times it) and implements the alternatives of the seed's "future
directions":

- **local** (sliding-window) attention, abs(i − j) ≤ w (Beltagy et al. 2020, Longformer);
- **block-sparse** attention on a layout of b × b blocks (Child et al. 2019, Sparse
  Transformers), both computed block by block, never as a masked n × n matrix;
- **LSH bucketing**, the idea of Reformer (Kitaev et al. 2020, §2): random rotations hash
  queries and keys so that similar vectors tend to share a bucket;
- **linear attention** with a feature map φ (Katharopoulos et al. 2020, §3.2):
  (φ(Q) φ(K)ᵀ) V = φ(Q) (φ(K)ᵀ V), cost O(n·m·d) instead of O(n²·d);
- **FAVOR+**, Performer's positive random features (Choromanski et al. 2021, Lemma 1):
  E[φ(q)ᵀ φ(k)] = exp(qᵀk), an unbiased estimate of the softmax kernel.

Every attention function has the signature of
:func:`attnbook.attention.scaled_dot_product_attention`,
``(q, k, v, mask=None, …) -> (output, weights or None)`` on ``(..., T, d_k)`` tensors,
so it can replace :attr:`attnbook.attention.MultiHeadAttention.attention`. They return
``None`` for the weights: the point is never to form them. Masks are bool, True = may
attend.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
import torch.nn.functional as F
from torch import Tensor

from attnbook.attention import masked_softmax
from attnbook.checks import check_int, check_mask, check_qkv, check_tensor

# ---------------------------------------------------------------- what full attention holds


def score_bytes(n_q: int, n_k: int, batch: int = 1, h: int = 1, dtype=torch.float32) -> int:
    """Bytes of one ``(batch, h, n_q, n_k)`` score matrix: what full attention must hold."""
    return batch * h * n_q * n_k * torch.empty((), dtype=dtype).element_size()


# ---------------------------------------------------------------- the patterns as masks


def _check_positive(**values: int) -> None:
    for name, value in values.items():
        check_int(name, value)


def sliding_window_mask(
    T: int, window: int, causal: bool = False, device: torch.device | str | None = None
) -> Tensor:
    """``(T, T)`` bool mask of local attention: True where abs(i − j) ≤ ``window``.

    With ``causal``, also j ≤ i.

    Query i sees 2w + 1 keys (w + 1 when causal), fewer at the edges. For drawing and
    for checking :func:`sliding_window_attention`, which never builds it.
    """
    _check_positive(T=T)
    check_int("window", window, minimum=0)
    i = torch.arange(T, device=device)
    offset = i[:, None] - i[None, :]  # (T, T): i − j
    allowed = offset.abs() <= window
    return allowed & (offset >= 0) if causal else allowed


def block_layout(
    n_blocks: int,
    local: int = 1,
    global_blocks: int = 0,
    stride: int = 0,
    causal: bool = False,
) -> Tensor:
    """``(n_blocks, n_blocks)`` bool layout: which key blocks J each query block I reads.

    - local: abs(I − J) ≤ ``local`` (0: the block diagonal only);
    - global: the first ``global_blocks`` blocks read everything and are read by
      everything (Longformer's global tokens, at block granularity);
    - strided: (I − J) divisible by ``stride`` (Child et al. 2019's strided pattern, at
      block granularity; 0 = none);
    - causal: J ≤ I.
    """
    _check_positive(n_blocks=n_blocks)
    for name, value in (("local", local), ("global_blocks", global_blocks), ("stride", stride)):
        check_int(name, value, minimum=0)
    I = torch.arange(n_blocks)
    offset = I[:, None] - I[None, :]  # (n_blocks, n_blocks): I − J
    layout = offset.abs() <= local
    layout |= (I[:, None] < global_blocks) | (I[None, :] < global_blocks)
    if stride:
        layout |= offset.remainder(stride) == 0
    return layout & (offset >= 0) if causal else layout


def block_sparse_mask(T: int, block: int, layout: Tensor, causal: bool = False) -> Tensor:
    """``(T, T)`` bool mask of a block layout: each True block becomes b × b Trues.

    ``causal`` also masks j > i inside the diagonal blocks. For drawing and for checking
    :func:`block_sparse_attention`, which never builds it.
    """
    _check_positive(T=T, block=block)
    _check_layout(layout, math.ceil(T / block))
    mask = layout.repeat_interleave(block, 0).repeat_interleave(block, 1)[:T, :T]
    return mask & torch.ones(T, T, dtype=torch.bool, device=mask.device).tril() if causal else mask


def _check_layout(layout: Tensor, n_blocks: int) -> None:
    check_tensor("layout", layout, 2, "bool", f"({n_blocks}, {n_blocks})")
    if layout.shape != (n_blocks, n_blocks):
        raise ValueError(
            f"layout must be ({n_blocks}, {n_blocks}) (ceil(T / block) blocks each way), "
            f"got {tuple(layout.shape)}"
        )


def sliding_window_scores(
    T: int, window: int, block: int | None = None, causal: bool = False
) -> int:
    """Score entries :func:`sliding_window_attention` computes: blocks × b × (b + 2w), or
    b × (b + w) per block when causal (padding included)."""
    _check_positive(T=T)
    b = block or max(window, 1)
    return math.ceil(T / b) * b * (b + window * (1 if causal else 2))


def block_sparse_scores(T: int, block: int, layout: Tensor, causal: bool = False) -> int:
    """Score entries :func:`block_sparse_attention` computes: b² per block it reads."""
    _check_positive(T=T, block=block)
    _check_layout(layout, math.ceil(T / block))
    if causal:
        layout = layout & torch.ones_like(layout).tril()
    return int(layout.sum()) * block * block


# ---------------------------------------------------------------- blockwise attention


def _pad_time(x: Tensor, T_padded: int) -> Tensor:
    """``(..., T, d)`` → ``(..., T_padded, d)`` with zero rows at the end."""
    return F.pad(x, (0, 0, 0, T_padded - x.size(-2)))


def _gather_mask(mask: Tensor, q_pos: Tensor, k_pos: Tensor, T: int) -> Tensor:
    """Entries ``mask[..., i, j]`` at the block positions ``q_pos[..., :, None]``,
    ``k_pos[..., None, :]``; positions outside 0..T−1 read index 0 (they are masked anyway)."""
    i = (
        q_pos.clamp(0, T - 1)[..., :, None]
        if mask.size(-2) > 1
        else torch.zeros_like(q_pos)[..., :, None]
    )
    j = (
        k_pos.clamp(0, T - 1)[..., None, :]
        if mask.size(-1) > 1
        else torch.zeros_like(k_pos)[..., None, :]
    )
    return mask[..., i, j]  # (..., n_blocks, b, width)


def _local_attention(
    q_blocks: Tensor, k_blocks: Tensor, v_blocks: Tensor, allowed: Tensor, scale: float
) -> Tensor:
    """softmax over each block's own keys: ``(..., n, b, d)`` queries against
    ``(..., n, width, d)`` keys; ``allowed`` broadcasts to ``(..., n, b, width)``."""
    scores = q_blocks @ k_blocks.transpose(-2, -1) * scale  # (..., n_blocks, b, width)
    weights = masked_softmax(scores, allowed)  # a query with no allowed key gets 0, not NaN
    return weights @ v_blocks  # (..., n_blocks, b, d_v)


def _self_attention_shapes(q: Tensor, k: Tensor, v: Tensor, mask: Tensor | None) -> int:
    check_qkv(q, k, v)
    T = q.size(-2)
    if k.size(-2) != T:
        raise ValueError(
            f"local and block-sparse attention are for self-attention (T_q == T_k): "
            f"query {tuple(q.shape)}, key {tuple(k.shape)}"
        )
    if mask is not None:
        check_mask(mask, torch.Size((*q.shape[:-1], T)))
    return T


def sliding_window_attention(
    q: Tensor,
    k: Tensor,
    v: Tensor,
    mask: Tensor | None = None,
    window: int = 4,
    block: int | None = None,
    causal: bool = False,
    scale: float | None = None,
) -> tuple[Tensor, None]:
    """Local attention: query i attends to keys j with abs(i − j) ≤ w (Beltagy et al. 2020).

    softmax over {j : abs(i − j) ≤ w, mask[i, j]} of q_i·k_j / √d_k, then Σ_j weights v_j.
    Computed blockwise: queries in blocks of b (default b = w), each block against the
    strip of keys [start − w, end + w), a ``(b, b + 2w)`` score block (``(b, b + w)`` when
    causal). Time and memory O(n·(b + 2w)·d) instead of O(n²·d); no n × n tensor exists.

    Args:
        q, k, v: ``(..., T, d_k)``, ``(..., T, d_k)``, ``(..., T, d_v)`` (self-attention).
        mask: optional bool mask broadcastable to ``(..., T, T)``, e.g. key padding
            ``(B, 1, 1, T)``; it is read only at the positions the strips cover.
        window: w >= 0. block: the query block size b (default w, at least 1).
        causal: also require j ≤ i (a decoder's self-attention).

    Returns:
        ``(output, None)``, output ``(..., T, d_v)``; a query with no allowed key gets 0.
    """
    T = _self_attention_shapes(q, k, v, mask)
    check_int("window", window, minimum=0)
    b = max(window, 1) if block is None else block
    _check_positive(block=b)
    scale = 1.0 / math.sqrt(q.size(-1)) if scale is None else scale
    n_blocks = math.ceil(T / b)
    left, right = window, 0 if causal else window
    width = b + left + right
    q_blocks = _pad_time(q, n_blocks * b).unflatten(-2, (n_blocks, b))  # (..., n, b, d_k)
    # keys and values padded by w on the left and w (or 0) on the right; unfold makes the
    # n overlapping strips of `width` rows, step b, as a view
    k_strips = F.pad(k, (0, 0, left, n_blocks * b - T + right)).unfold(-2, width, b)
    v_strips = F.pad(v, (0, 0, left, n_blocks * b - T + right)).unfold(-2, width, b)
    k_strips = k_strips.transpose(-2, -1)  # (..., n, width, d_k)
    v_strips = v_strips.transpose(-2, -1)  # (..., n, width, d_v)
    starts = torch.arange(n_blocks, device=q.device)[:, None] * b  # (n, 1)
    q_pos = starts + torch.arange(b, device=q.device)  # (n, b)
    k_pos = starts - left + torch.arange(width, device=q.device)  # (n, width)
    offset = q_pos[:, :, None] - k_pos[:, None, :]  # (n, b, width): i − j
    allowed = (offset.abs() <= window) & (k_pos[:, None, :] >= 0) & (k_pos[:, None, :] < T)
    if causal:
        allowed &= offset >= 0
    if mask is not None:
        allowed = allowed & _gather_mask(mask, q_pos, k_pos, T)
    out = _local_attention(q_blocks, k_strips, v_strips, allowed, scale)
    return out.flatten(-3, -2)[..., :T, :], None  # (..., T, d_v)


def block_sparse_attention(
    q: Tensor,
    k: Tensor,
    v: Tensor,
    mask: Tensor | None = None,
    block: int = 8,
    layout: Tensor | None = None,
    causal: bool = False,
    scale: float | None = None,
) -> tuple[Tensor, None]:
    """Block-sparse attention: query block I reads only the key blocks J with layout[I, J].

    Child et al. (2019): attention restricted to a sparse pattern, computed on the
    b × b blocks the pattern keeps. Each query block gathers its c key blocks (c: the
    most kept blocks in any row of ``layout``) and computes a ``(b, c·b)`` score block:
    O(n·c·b·d) instead of O(n²·d).

    Args:
        q, k, v: ``(..., T, d_k)``, ``(..., T, d_k)``, ``(..., T, d_v)`` (self-attention).
        mask: optional bool mask broadcastable to ``(..., T, T)`` (e.g. key padding).
        block: b. layout: ``(ceil(T/b), ceil(T/b))`` bool (default :func:`block_layout`
            with ``local=1``). causal: also require j ≤ i (blocks above the diagonal skipped).

    Returns:
        ``(output, None)``, output ``(..., T, d_v)``; a query with no allowed key gets 0.
    """
    T = _self_attention_shapes(q, k, v, mask)
    _check_positive(block=block)
    n_blocks = math.ceil(T / block)
    layout = block_layout(n_blocks, local=1) if layout is None else layout
    _check_layout(layout, n_blocks)
    layout = layout.to(q.device)
    if causal:
        layout = layout & torch.ones_like(layout).tril()
    scale = 1.0 / math.sqrt(q.size(-1)) if scale is None else scale
    counts = layout.sum(dim=1)  # (n,): key blocks per query block
    c = max(int(counts.max()), 1)
    # the True columns of each row first, in order (a stable sort of ~layout), padded to c
    key_block = torch.sort((~layout).to(torch.uint8), dim=1, stable=True).indices[:, :c]  # (n, c)
    kept = torch.arange(c, device=q.device) < counts[:, None]  # (n, c): real, not padding

    def gather(x: Tensor) -> Tensor:  # (..., T, d) → (..., n, c·b, d)
        blocks = _pad_time(x, n_blocks * block).unflatten(-2, (n_blocks, block))  # (..., n, b, d)
        return blocks[..., key_block, :, :].flatten(-3, -2)  # (..., n, c·b, d)

    q_blocks = _pad_time(q, n_blocks * block).unflatten(-2, (n_blocks, block))  # (..., n, b, d_k)
    within = torch.arange(block, device=q.device)
    q_pos = torch.arange(n_blocks, device=q.device)[:, None] * block + within  # (n, b)
    k_pos = (key_block[:, :, None] * block + within).flatten(1)  # (n, c·b)
    allowed = (kept.repeat_interleave(block, dim=1) & (k_pos < T))[:, None, :]  # (n, 1, c·b)
    if causal:
        allowed = allowed & (k_pos[:, None, :] <= q_pos[:, :, None])
    if mask is not None:
        allowed = allowed & _gather_mask(mask, q_pos, k_pos, T)
    out = _local_attention(q_blocks, gather(k), gather(v), allowed, scale)
    return out.flatten(-3, -2)[..., :T, :], None  # (..., T, d_v)


# ---------------------------------------------------------------- LSH bucketing (Reformer)


def random_rotations(
    d: int, n_buckets: int, n_hashes: int = 1, generator: torch.Generator | None = None
) -> Tensor:
    """``(n_hashes, d, n_buckets / 2)`` Gaussian matrices R, one per hash round (Reformer §2)."""
    _check_positive(d=d, n_buckets=n_buckets, n_hashes=n_hashes)
    if n_buckets % 2:
        raise ValueError(f"n_buckets must be even (buckets come in ±pairs), got {n_buckets}")
    return torch.randn(n_hashes, d, n_buckets // 2, generator=generator)


def lsh_buckets(x: Tensor, rotations: Tensor) -> Tensor:
    """h(x) = argmax([xR ; −xR]) — angular LSH, Reformer §2 (Andoni et al. 2015).

    Vectors at a small angle land in the same bucket with high probability.
    ``x``: ``(..., T, d)``; ``rotations``: ``(n_hashes, d, n_buckets / 2)``.
    Returns bucket ids ``(n_hashes, ..., T)`` in ``[0, n_buckets)``.
    """
    check_tensor("x", x, kind="float", hint="(..., T, d)")
    check_tensor("rotations", rotations, 3, "float", "(n_hashes, d, n_buckets / 2)")
    if x.dim() < 2 or x.size(-1) != rotations.size(1):
        raise ValueError(
            f"rotations must be (n_hashes, d={x.size(-1)}, n_buckets/2), "
            f"got {tuple(rotations.shape)}"
        )
    R = rotations.to(x.device, x.dtype)
    projected = torch.einsum("...td,rdb->r...tb", x, R)  # (n_hashes, ..., T, n_buckets/2)
    return torch.cat([projected, -projected], dim=-1).argmax(dim=-1)  # (n_hashes, ..., T)


def lsh_candidates(q: Tensor, k: Tensor, rotations: Tensor) -> Tensor:
    """``(..., T_q, T_k)`` bool: query i and key j share a bucket in at least one hash round.

    These are the keys LSH attention compares query i with. (Reformer sorts by bucket and
    attends within chunks, never building this matrix; here it is drawn and counted.)
    """
    q_buckets = lsh_buckets(q, rotations)  # (n_hashes, ..., T_q)
    k_buckets = lsh_buckets(k, rotations)  # (n_hashes, ..., T_k)
    same = q_buckets[..., :, None] == k_buckets[..., None, :]  # (n_hashes, ..., T_q, T_k)
    return same.any(dim=0)


# ---------------------------------------------------------------- linear attention


def elu_feature_map(x: Tensor) -> Tensor:
    """φ(x) = elu(x) + 1 > 0 — Katharopoulos et al. (2020), §3.2.1."""
    return F.elu(x) + 1.0


def _linear_attention_from_features(
    phi_q: Tensor, phi_k: Tensor, v: Tensor, mask: Tensor | None, causal: bool, eps: float
) -> Tensor:
    """V'_i = φ(q_i)ᵀ Σ_j φ(k_j) v_jᵀ / φ(q_i)ᵀ Σ_j φ(k_j), sums over j ≤ i when causal."""
    if mask is not None:
        phi_k = phi_k * mask.transpose(-2, -1).to(phi_k.dtype)  # masked keys contribute 0
    if not causal:
        KV = phi_k.transpose(-2, -1) @ v  # (..., m, d_v): Σ_j φ(k_j) v_jᵀ, once for all queries
        Z = phi_k.sum(dim=-2)  # (..., m): Σ_j φ(k_j)
        numerator = phi_q @ KV  # (..., T_q, d_v)
        denominator = phi_q @ Z.unsqueeze(-1)  # (..., T_q, 1)
    else:  # prefix sums over j ≤ i (Katharopoulos et al. §3.3): O(n·m·d_v) memory
        KV = torch.einsum("...tm,...td->...tmd", phi_k, v).cumsum(dim=-3)  # (..., T, m, d_v)
        Z = phi_k.cumsum(dim=-2)  # (..., T, m)
        numerator = torch.einsum("...tm,...tmd->...td", phi_q, KV)  # (..., T, d_v)
        denominator = (phi_q * Z).sum(dim=-1, keepdim=True)  # (..., T, 1)
    return numerator / denominator.clamp_min(eps)  # a query with no keys: 0 / eps = 0


def _check_linear_inputs(q: Tensor, k: Tensor, v: Tensor, mask: Tensor | None, causal: bool):
    check_qkv(q, k, v)
    if causal and q.size(-2) != k.size(-2):
        raise ValueError(f"causal attention needs T_q == T_k: {tuple(q.shape)}, {tuple(k.shape)}")
    if mask is not None:
        check_mask(mask, torch.Size((*q.shape[:-1], k.size(-2))))
        if mask.dim() < 2 or mask.size(-2) != 1:
            raise ValueError(
                "linear attention takes a key-padding mask (..., 1, T_k), "
                f"got {tuple(mask.shape)}: "
                "a general (T_q, T_k) mask would need the n × n matrix it avoids; "
                "for the causal pattern pass causal=True"
            )


def linear_attention(
    q: Tensor,
    k: Tensor,
    v: Tensor,
    mask: Tensor | None = None,
    feature_map: Callable[[Tensor], Tensor] = elu_feature_map,
    causal: bool = False,
    eps: float = 1e-6,
) -> tuple[Tensor, None]:
    """Linear attention — Katharopoulos et al. (2020), §3.2.

    Replace exp(q·k/√d_k) by a kernel φ(q)ᵀφ(k) with a positive feature map φ. Then
    (φ(Q) φ(K)ᵀ) V = φ(Q) (φ(K)ᵀ V): the m × d_v matrix φ(K)ᵀV is computed once, so
    time and memory are O(n·m·d), linear in n. It is a different attention, not an
    approximation of softmax attention (for that, see :func:`performer_attention`).

    ``mask`` may only be a key-padding mask ``(..., 1, T_k)``; ``causal=True`` gives the
    causal pattern by prefix sums. Returns ``(output, None)``, output ``(..., T_q, d_v)``.
    """
    _check_linear_inputs(q, k, v, mask, causal)
    return _linear_attention_from_features(
        feature_map(q), feature_map(k), v, mask, causal, eps
    ), None


# ---------------------------------------------------------------- Performer (FAVOR+)


def random_features(
    d: int,
    m: int,
    orthogonal: bool = True,
    generator: torch.Generator | None = None,
) -> Tensor:
    """``(m, d)`` random directions ω_1 … ω_m, each marginally N(0, I_d).

    ``orthogonal``: in blocks of d, the directions are exactly orthogonal (Q of a QR of a
    Gaussian matrix), with lengths drawn as the norms of Gaussian vectors — Performer's
    orthogonal random features, which lower the variance of the estimate.
    """
    _check_positive(d=d, m=m)
    if not orthogonal:
        return torch.randn(m, d, generator=generator)
    gaussian = torch.randn(math.ceil(m / d), d, d, generator=generator)
    Q, R = torch.linalg.qr(gaussian)  # each (d, d) block: orthonormal columns
    Q = Q * torch.sign(torch.diagonal(R, dim1=-2, dim2=-1))[:, None, :]  # Haar-distributed
    directions = Q.transpose(-2, -1).reshape(-1, d)[:m]  # (m, d), unit rows
    lengths = torch.randn(m, d, generator=generator).norm(dim=1, keepdim=True)  # χ_d
    return directions * lengths


def favor_features(x: Tensor, omega: Tensor, stabilize: str | None = None) -> Tensor:
    """φ(x) = exp(ωᵀx − ‖x‖²/2) / √m, positive — Performer Lemma 1: E[φ(q)ᵀφ(k)] = exp(qᵀk).

    ``x``: ``(..., T, d)``, ``omega``: ``(m, d)``; returns ``(..., T, m)``. ``stabilize``
    subtracts a maximum inside the exp before exponentiating: ``"row"`` per vector (a factor
    that cancels in attention's per-query normalisation), ``"all"`` one per leading slice
    (a factor common to all keys, which also cancels). ``None``: the exact estimator.
    """
    check_tensor("x", x, kind="float", hint="(..., T, d)")
    check_tensor("omega", omega, 2, "float", "(m, d)")
    if omega.size(1) != x.size(-1):
        raise ValueError(f"omega must be (m, d={x.size(-1)}), got {tuple(omega.shape)}")
    exponent = x @ omega.to(x.device, x.dtype).T - x.pow(2).sum(-1, keepdim=True) / 2  # (..., T, m)
    if stabilize == "row":
        exponent = exponent - exponent.amax(dim=-1, keepdim=True).detach()
    elif stabilize == "all":
        exponent = exponent - exponent.amax(dim=(-2, -1), keepdim=True).detach()
    elif stabilize is not None:
        raise ValueError(f"stabilize must be None, 'row' or 'all', got {stabilize!r}")
    return torch.exp(exponent) / math.sqrt(omega.size(0))


def performer_attention(
    q: Tensor,
    k: Tensor,
    v: Tensor,
    mask: Tensor | None = None,
    omega: Tensor | None = None,
    causal: bool = False,
    eps: float = 1e-6,
) -> tuple[Tensor, None]:
    """FAVOR+ (Choromanski et al. 2021): softmax attention through positive random features.

    exp(q·k/√d_k) = exp(q'·k') with q' = q/d_k^¼, k' = k/d_k^¼, and
    exp(q'·k') = E_ω[φ(q')ᵀφ(k')] (:func:`favor_features`). With the m features ``omega``
    (``(m, d_k)``, from :func:`random_features`) the kernel matrix is estimated without
    bias, then used as in :func:`linear_attention`: O(n·m·d) time and memory. The output,
    a ratio of two estimates, is not unbiased for finite m; it converges to softmax
    attention as m grows.

    ``mask``: key padding ``(..., 1, T_k)`` only; ``causal=True`` for the causal pattern.
    Returns ``(output, None)``.
    """
    _check_linear_inputs(q, k, v, mask, causal)
    if omega is None:
        raise ValueError("performer_attention needs omega: random_features(d_k, m) (m features)")
    scale = q.size(-1) ** -0.25
    phi_q = favor_features(q * scale, omega, stabilize="row")  # (..., T_q, m)
    phi_k = favor_features(k * scale, omega, stabilize="all")  # (..., T_k, m)
    return _linear_attention_from_features(phi_q, phi_k, v, mask, causal, eps), None
