"""Positional encodings — §3.5 of the paper, and the rotation that grew out of it.

Self-attention is permutation-equivariant: it sees a set, not a sequence. The paper
adds a position signal to the token embeddings (§3.5):

    PE(pos, 2i)   = sin(pos / 10000^(2i/d_model))
    PE(pos, 2i+1) = cos(pos / 10000^(2i/d_model))

Two layouts of the same numbers are in use. ``"interleaved"`` is the paper's
(sin in the even dimensions, cos in the odd ones); ``"concatenated"`` puts all the
sines first and all the cosines after them, as tensor2tensor's
``get_timing_signal_1d``, fairseq and many tutorials do. One is a fixed permutation
of the other's columns.

Angles are computed in float64 and the table is then cast, so ``pos · ω_i`` stays
accurate for long tables even in float32.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn

from attnbook.checks import check_float, check_int, check_tensor

LAYOUTS = ("interleaved", "concatenated")


def _check_positive(name: str, value: int) -> None:
    check_int(name, value)


def _check_d_model(d_model: int) -> None:
    _check_positive("d_model", d_model)
    if d_model % 2 != 0:
        raise ValueError(
            f"d_model={d_model} is odd: sinusoidal encodings pair a sine with a cosine "
            "for every frequency, so d_model must be even"
        )


def _check_layout(layout: str) -> None:
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {LAYOUTS}, got {layout!r}")


def _check_base(base: float) -> None:
    check_float("base", base, 1.0, low_open=True)


def frequencies(d_model: int, base: float = 10000.0) -> Tensor:
    """ω_i = 1 / base^(2i/d_model) for i = 0 … d_model/2 − 1 — the angular speeds of §3.5.

    Returns a float64 tensor of shape ``(d_model/2,)``; ω_0 = 1 radian per position.
    """
    _check_d_model(d_model)
    _check_base(base)
    two_i = torch.arange(0, d_model, 2, dtype=torch.float64)  # (d_model/2,): 0, 2, 4, …
    return base ** (-two_i / d_model)  # (d_model/2,)


def wavelengths(d_model: int, base: float = 10000.0) -> Tensor:
    """λ_i = 2π / ω_i = 2π · base^(2i/d_model): how many positions one period of pair i spans.

    A geometric progression with ratio base^(2/d_model), from 2π up to
    2π · base^(1 − 2/d_model) (the paper rounds the last one to 10000 · 2π). float64.
    """
    return 2 * math.pi / frequencies(d_model, base)  # (d_model/2,)


def _interleave(sin: Tensor, cos: Tensor, layout: str) -> Tensor:
    """Put (…, d/2) sines and cosines into (…, d) columns in the chosen layout."""
    if layout == "concatenated":
        return torch.cat([sin, cos], dim=-1)  # (…, d): sin half, then cos half
    return torch.stack([sin, cos], dim=-1).flatten(-2)  # (…, d): sin, cos, sin, cos, …


def sinusoidal_encoding(
    max_len: int,
    d_model: int,
    layout: str = "interleaved",
    *,
    base: float = 10000.0,
    dtype: torch.dtype = torch.float32,
    device: torch.device | str | None = None,
) -> Tensor:
    """The ``(max_len, d_model)`` table PE of §3.5; row ``pos`` is the encoding of position pos.

    PE[pos, 2i] = sin(pos · ω_i), PE[pos, 2i+1] = cos(pos · ω_i), ω_i = 1/base^(2i/d_model)
    (``layout="interleaved"``, the paper's). ``layout="concatenated"`` returns
    ``[sin(pos·ω_0), …, sin(pos·ω_{d/2−1}), cos(pos·ω_0), …, cos(pos·ω_{d/2−1})]``.
    """
    _check_positive("max_len", max_len)
    _check_d_model(d_model)
    _check_layout(layout)
    pos = torch.arange(max_len, dtype=torch.float64)  # (max_len,)
    angles = pos[:, None] * frequencies(d_model, base)[None, :]  # (max_len, d_model/2)
    table = _interleave(torch.sin(angles), torch.cos(angles), layout)  # (max_len, d_model)
    return table.to(dtype).to(device)  # cast on the CPU first: MPS has no float64


def rotation_matrix(
    k: int,
    d_model: int,
    layout: str = "interleaved",
    *,
    base: float = 10000.0,
    dtype: torch.dtype = torch.float32,
) -> Tensor:
    """M_k with PE(pos + k) = M_k · PE(pos) for every pos — the relative-position claim of §3.5.

    By the angle-addition formulas, each (sin, cos) pair of frequency ω_i turns by k·ω_i:

        [sin((pos+k)ω)]   [ cos kω   sin kω] [sin(pos ω)]
        [cos((pos+k)ω)] = [−sin kω   cos kω] [cos(pos ω)]

    so M_k is block-diagonal with these 2×2 rotations (in the interleaved layout; the
    concatenated layout permutes rows and columns alike). It depends on k, never on pos.
    ``k`` may be negative: M_{−k} = M_kᵀ = M_k⁻¹. Returns ``(d_model, d_model)``; for the
    row-per-position table that reads ``PE[pos + k] = PE[pos] @ M_k.T``.
    """
    check_int("k", k, minimum=None)
    _check_d_model(d_model)
    _check_layout(layout)
    half = d_model // 2
    theta = k * frequencies(d_model, base)  # (d_model/2,): the angle each pair turns by
    c, s = torch.cos(theta), torch.sin(theta)
    i = torch.arange(half)
    if layout == "interleaved":
        sin_idx, cos_idx = 2 * i, 2 * i + 1  # pair i lives in dimensions 2i, 2i+1
    else:
        sin_idx, cos_idx = i, i + half  # pair i lives in dimensions i, i + d/2
    M = torch.zeros(d_model, d_model, dtype=torch.float64)
    M[sin_idx, sin_idx] = c
    M[sin_idx, cos_idx] = s
    M[cos_idx, sin_idx] = -s
    M[cos_idx, cos_idx] = c
    return M.to(dtype)


def apply_rope(
    x: Tensor,
    positions: Tensor | None = None,
    layout: str = "interleaved",
    *,
    base: float = 10000.0,
) -> Tensor:
    """Rotary position embedding (RoPE; Su et al. 2021, RoFormer, Eq. 34).

    Instead of *adding* PE to the input, rotate each 2-D pair of a query or key
    vector by the angle pos · ω_i:

        (x_{2i}, x_{2i+1}) ↦ (x_{2i} cos pos·ω_i − x_{2i+1} sin pos·ω_i,
                              x_{2i} sin pos·ω_i + x_{2i+1} cos pos·ω_i)

    Then ⟨RoPE(q, m), RoPE(k, n)⟩ = ⟨q, R_{n−m} k⟩ depends on the positions only through
    n − m. In the book's notation the rotation at position p is M_pᵀ (= M_{−p}), since
    PE pairs are ordered (sin, cos). ``layout="concatenated"`` pairs dimension i with
    i + d/2 (the "rotate_half" form of GPT-NeoX and Hugging Face LLaMA).

    Args:
        x: queries or keys, shape ``(..., T, d)`` with d even.
        positions: integer positions, shape ``(T,)``; default ``0 … T−1``.

    Returns:
        the rotated tensor, same shape and dtype as ``x``.
    """
    check_tensor("x", x, kind="float", hint="(..., T, d)")
    if x.dim() < 2:
        raise ValueError(f"x must have shape (..., T, d), got {tuple(x.shape)}")
    T, d = x.shape[-2], x.shape[-1]
    _check_d_model(d)
    _check_layout(layout)
    positions = torch.arange(T) if positions is None else torch.as_tensor(positions)
    if positions.shape != (T,):
        raise ValueError(
            f"positions must have shape (T,) = ({T},) to match x {tuple(x.shape)}, "
            f"got {tuple(positions.shape)}"
        )
    omega = frequencies(d, base)  # (d/2,), float64 on the CPU (MPS has no float64)
    angles = positions.cpu().to(torch.float64)[:, None] * omega[None, :]  # (T, d/2)
    cos = torch.cos(angles).to(x.dtype).to(x.device)  # (T, d/2)
    sin = torch.sin(angles).to(x.dtype).to(x.device)
    if layout == "interleaved":
        x1, x2 = x[..., 0::2], x[..., 1::2]  # (..., T, d/2) each
    else:
        x1, x2 = x[..., : d // 2], x[..., d // 2 :]
    y1 = x1 * cos - x2 * sin  # (..., T, d/2)
    y2 = x1 * sin + x2 * cos
    return _interleave(y1, y2, layout)  # (..., T, d)


def _check_input(x: Tensor, d_model: int, max_len: int) -> int:
    check_tensor("x", x, kind="float", hint=f"(B, T, d_model={d_model})")
    if x.dim() < 2 or x.size(-1) != d_model:
        raise ValueError(
            f"x must have shape (B, T, d_model={d_model}) (or (T, d_model)), got {tuple(x.shape)}"
        )
    T = x.size(-2)
    if T > max_len:
        raise ValueError(
            f"sequence length T={T} exceeds max_len={max_len} of this positional encoding; "
            f"build it with max_len >= {T}"
        )
    return T


class SinusoidalPositionalEncoding(nn.Module):
    """x + PE[:T] with the fixed sinusoidal table of §3.5 (no parameters).

    The table is a non-persistent buffer: it moves with ``.to(device)`` but is not
    saved in the ``state_dict`` (it is recomputed from ``d_model`` and ``max_len``).
    Dropout on the sum (§5.4) is the caller's business.
    """

    def __init__(self, d_model: int, max_len: int = 512, layout: str = "interleaved") -> None:
        super().__init__()
        self.d_model, self.max_len, self.layout = d_model, max_len, layout
        table = sinusoidal_encoding(max_len, d_model, layout)  # (max_len, d_model)
        self.register_buffer("pe", table, persistent=False)

    def forward(self, x: Tensor) -> Tensor:
        """``x``: ``(B, T, d_model)`` → ``x + PE[:T]``, same shape."""
        T = _check_input(x, self.d_model, self.max_len)
        return x + self.pe[:T].to(x.dtype)  # (B, T, d_model)

    def extra_repr(self) -> str:
        return f"d_model={self.d_model}, max_len={self.max_len}, layout={self.layout!r}"


class LearnedPositionalEncoding(nn.Module):
    """x + P[:T] with a learned table P, one vector per position (Gehring et al. 2017).

    Table 3, row (E) of the paper: "nearly identical results" to the sinusoids. An
    ``nn.Embedding`` of ``max_len`` positions: positions never seen in training keep
    their random initial vectors, and positions ≥ ``max_len`` do not exist.
    """

    def __init__(self, d_model: int, max_len: int = 512) -> None:
        super().__init__()
        _check_positive("d_model", d_model)  # no sin/cos pairs here: odd sizes are fine
        _check_positive("max_len", max_len)
        self.d_model, self.max_len = d_model, max_len
        self.embedding = nn.Embedding(max_len, d_model)  # (max_len, d_model) parameters

    def forward(self, x: Tensor) -> Tensor:
        """``x``: ``(B, T, d_model)`` → ``x + P[:T]``, same shape."""
        T = _check_input(x, self.d_model, self.max_len)
        positions = torch.arange(T, device=x.device)  # (T,)
        return x + self.embedding(positions).to(x.dtype)  # (B, T, d_model)

    def extra_repr(self) -> str:
        return f"d_model={self.d_model}, max_len={self.max_len}"
