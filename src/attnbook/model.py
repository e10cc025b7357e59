"""The Transformer encoder–decoder of §3 of the paper, built from the book's pieces.

Every forward pass returns its attention weights as values (never stored on a module):
``Attention(encoder=[...], decoder=[...], cross=[...])``, one ``(B, h, T_q, T_k)``
tensor per layer, ready for ``attnbook.viz.model_view``.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import torch
from torch import Tensor, nn

from attnbook.attention import MultiHeadAttention, causal_mask
from attnbook.positional import LearnedPositionalEncoding, SinusoidalPositionalEncoding


@dataclass(frozen=True)
class TransformerConfig:
    """Hyper-parameters, named as in the paper (Table 3)."""

    src_vocab: int
    tgt_vocab: int
    N: int = 6  # layers in the encoder and in the decoder
    d_model: int = 512
    d_ff: int = 2048
    h: int = 8
    dropout: float = 0.1  # P_drop
    max_len: int = 512
    share_embeddings: bool = False  # one matrix for source, target and output (§3.4)
    norm_first: bool = False  # False: the paper's post-LN, LayerNorm(x + Sublayer(x))
    positional: str = "sinusoidal"  # or "learned" (Table 3, row E)
    pad_id: int = 0

    def __post_init__(self) -> None:
        for name in ("src_vocab", "tgt_vocab", "N", "d_model", "d_ff", "h", "max_len"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be positive, got {getattr(self, name)}")
        if self.d_model % self.h:
            raise ValueError(f"d_model={self.d_model} is not divisible by h={self.h}")
        if not 0.0 <= self.dropout < 1.0:
            raise ValueError(f"dropout must be in [0, 1), got {self.dropout}")
        if self.share_embeddings and self.src_vocab != self.tgt_vocab:
            raise ValueError(
                "share_embeddings needs one shared vocabulary: "
                f"src_vocab={self.src_vocab} != tgt_vocab={self.tgt_vocab}"
            )
        if self.positional not in ("sinusoidal", "learned"):
            raise ValueError(
                f"positional must be 'sinusoidal' or 'learned', got {self.positional!r}"
            )

    @property
    def d_k(self) -> int:
        return self.d_model // self.h

    @classmethod
    def base(cls, vocab: int = 37000, **overrides) -> TransformerConfig:
        """The paper's base model (N=6, d_model=512, d_ff=2048, h=8, P_drop=0.1)."""
        fields = dict(src_vocab=vocab, tgt_vocab=vocab, share_embeddings=True)
        return cls(**{**fields, **overrides})

    @classmethod
    def big(cls, vocab: int = 37000, **overrides) -> TransformerConfig:
        """The paper's big model (N=6, d_model=1024, d_ff=4096, h=16, P_drop=0.3)."""
        fields = dict(
            src_vocab=vocab,
            tgt_vocab=vocab,
            share_embeddings=True,
            d_model=1024,
            d_ff=4096,
            h=16,
            dropout=0.3,
        )
        return cls(**{**fields, **overrides})

    @classmethod
    def tiny(cls, src_vocab: int, tgt_vocab: int | None = None, **overrides) -> TransformerConfig:
        """A CPU-sized model for the book's toy tasks (N=2, d_model=64, d_ff=256, h=4)."""
        fields = dict(
            src_vocab=src_vocab,
            tgt_vocab=tgt_vocab or src_vocab,
            N=2,
            d_model=64,
            d_ff=256,
            h=4,
            dropout=0.0,
            max_len=64,
        )
        return cls(**{**fields, **overrides})


class Attention(NamedTuple):
    """Per-layer attention weights, each ``(B, h, T_q, T_k)``."""

    encoder: list[Tensor]
    decoder: list[Tensor]
    cross: list[Tensor]


class FeedForward(nn.Module):
    """FFN(x) = max(0, x W_1 + b_1) W_2 + b_2 — Eq. (2), §3.3, applied at each position."""

    def __init__(self, d_model: int, d_ff: int, dropout: float = 0.0) -> None:
        super().__init__()
        self.W_1 = nn.Linear(d_model, d_ff)
        self.W_2 = nn.Linear(d_ff, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: Tensor) -> Tensor:
        return self.W_2(self.dropout(torch.relu(self.W_1(x))))  # (B, T, d_model)


class Residual(nn.Module):
    """LayerNorm(x + Dropout(Sublayer(x))) (post-LN, §3.1, §5.4), or pre-LN
    x + Dropout(Sublayer(LayerNorm(x))) when ``norm_first``."""

    def __init__(self, d_model: int, dropout: float, norm_first: bool) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)
        self.norm_first = norm_first

    def forward(self, x: Tensor, sublayer) -> tuple[Tensor, Tensor | None]:
        if self.norm_first:
            out, weights = sublayer(self.norm(x))
            return x + self.dropout(out), weights
        out, weights = sublayer(x)
        return self.norm(x + self.dropout(out)), weights


def _no_weights(f):
    return lambda x: (f(x), None)


class EncoderLayer(nn.Module):
    """Self-attention, then the FFN, each wrapped in a residual connection and LayerNorm."""

    def __init__(self, c: TransformerConfig) -> None:
        super().__init__()
        self.self_attn = MultiHeadAttention(c.d_model, c.h, dropout=c.dropout)
        self.ffn = FeedForward(c.d_model, c.d_ff, c.dropout)
        self.sublayer1 = Residual(c.d_model, c.dropout, c.norm_first)
        self.sublayer2 = Residual(c.d_model, c.dropout, c.norm_first)

    def forward(self, x: Tensor, src_mask: Tensor | None) -> tuple[Tensor, Tensor]:
        x, weights = self.sublayer1(x, lambda x: self.self_attn(x, x, x, src_mask))
        x, _ = self.sublayer2(x, _no_weights(self.ffn))
        return x, weights  # (B, S, d_model), (B, h, S, S)


class DecoderLayer(nn.Module):
    """Masked self-attention, cross-attention over the encoder output, then the FFN."""

    def __init__(self, c: TransformerConfig) -> None:
        super().__init__()
        self.self_attn = MultiHeadAttention(c.d_model, c.h, dropout=c.dropout)
        self.cross_attn = MultiHeadAttention(c.d_model, c.h, dropout=c.dropout)
        self.ffn = FeedForward(c.d_model, c.d_ff, c.dropout)
        self.sublayer1 = Residual(c.d_model, c.dropout, c.norm_first)
        self.sublayer2 = Residual(c.d_model, c.dropout, c.norm_first)
        self.sublayer3 = Residual(c.d_model, c.dropout, c.norm_first)

    def forward(
        self, y: Tensor, memory: Tensor, tgt_mask: Tensor | None, src_mask: Tensor | None
    ) -> tuple[Tensor, Tensor, Tensor]:
        y, self_w = self.sublayer1(y, lambda y: self.self_attn(y, y, y, tgt_mask))
        # queries from the decoder, keys and values from the encoder (§3.2.3)
        y, cross_w = self.sublayer2(y, lambda y: self.cross_attn(y, memory, memory, src_mask))
        y, _ = self.sublayer3(y, _no_weights(self.ffn))
        return y, self_w, cross_w  # (B, T, d_model), (B, h, T, T), (B, h, T, S)


class Embedding(nn.Module):
    """Token embedding scaled by √d_model (§3.4), plus positions, then dropout (§5.4)."""

    def __init__(self, vocab: int, c: TransformerConfig) -> None:
        super().__init__()
        self.tokens = nn.Embedding(vocab, c.d_model)
        positional = (
            SinusoidalPositionalEncoding
            if c.positional == "sinusoidal"
            else (LearnedPositionalEncoding)
        )
        self.positions = positional(c.d_model, c.max_len)
        self.dropout = nn.Dropout(c.dropout)
        self.scale = math.sqrt(c.d_model)

    def forward(self, ids: Tensor) -> Tensor:
        return self.dropout(self.positions(self.tokens(ids) * self.scale))  # (B, T, d_model)


class Transformer(nn.Module):
    """Encoder–decoder Transformer (Figure 1 of the paper)."""

    def __init__(self, config: TransformerConfig) -> None:
        super().__init__()
        c = self.config = config
        self.src_embed = Embedding(c.src_vocab, c)
        self.tgt_embed = Embedding(c.tgt_vocab, c)
        self.encoder = nn.ModuleList(EncoderLayer(c) for _ in range(c.N))
        self.decoder = nn.ModuleList(DecoderLayer(c) for _ in range(c.N))
        # pre-LN stacks end with a LayerNorm; post-LN layers already end with one
        self.encoder_norm = nn.LayerNorm(c.d_model) if c.norm_first else nn.Identity()
        self.decoder_norm = nn.LayerNorm(c.d_model) if c.norm_first else nn.Identity()
        self.generator = nn.Linear(c.d_model, c.tgt_vocab)  # pre-softmax projection
        self._init_parameters()
        if c.share_embeddings:  # §3.4: one matrix for both embeddings and the output
            self.tgt_embed.tokens.weight = self.src_embed.tokens.weight
            self.generator.weight = self.src_embed.tokens.weight

    def _init_parameters(self) -> None:
        for p in self.parameters():
            if p.dim() > 1:
                nn.init.xavier_uniform_(p)

    # masks: bool, True = may attend
    def src_mask(self, src: Tensor) -> Tensor:
        return (src != self.config.pad_id)[:, None, :]  # (B, 1, S)

    def tgt_mask(self, tgt: Tensor) -> Tensor:
        T = tgt.size(1)
        pad = (tgt != self.config.pad_id)[:, None, :]  # (B, 1, T)
        return pad & causal_mask(T, device=tgt.device)  # (B, T, T)

    def _check_ids(self, ids: Tensor, vocab: int, name: str) -> None:
        if ids.dim() != 2 or ids.dtype != torch.long:
            raise ValueError(
                f"{name} must be a (B, T) long tensor of ids, got {tuple(ids.shape)} {ids.dtype}"
            )
        if ids.size(1) > self.config.max_len:
            raise ValueError(f"{name} has length {ids.size(1)} > max_len={self.config.max_len}")
        if ids.numel() and (ids.min() < 0 or ids.max() >= vocab):
            raise ValueError(f"{name} ids must lie in [0, {vocab}), got [{ids.min()}, {ids.max()}]")

    def encode(self, src: Tensor) -> tuple[Tensor, list[Tensor]]:
        """Encoder output ``memory`` ``(B, S, d_model)`` and its per-layer self-attention."""
        self._check_ids(src, self.config.src_vocab, "src")
        x, mask, weights = self.src_embed(src), self.src_mask(src), []
        for layer in self.encoder:
            x, w = layer(x, mask)
            weights.append(w)
        return self.encoder_norm(x), weights

    def decode(
        self, tgt: Tensor, memory: Tensor, src: Tensor
    ) -> tuple[Tensor, list[Tensor], list[Tensor]]:
        """Logits ``(B, T, tgt_vocab)`` for the next token at every target position."""
        self._check_ids(tgt, self.config.tgt_vocab, "tgt")
        y, tgt_mask, src_mask = self.tgt_embed(tgt), self.tgt_mask(tgt), self.src_mask(src)
        self_ws, cross_ws = [], []
        for layer in self.decoder:
            y, self_w, cross_w = layer(y, memory, tgt_mask, src_mask)
            self_ws.append(self_w)
            cross_ws.append(cross_w)
        return self.generator(self.decoder_norm(y)), self_ws, cross_ws

    def forward(self, src: Tensor, tgt: Tensor) -> tuple[Tensor, Attention]:
        """Teacher forcing: ``tgt`` is the target shifted right (starts with ``<bos>``).

        Returns the logits ``(B, T, tgt_vocab)`` and every attention map.
        """
        memory, enc_ws = self.encode(src)
        logits, dec_ws, cross_ws = self.decode(tgt, memory, src)
        return logits, Attention(enc_ws, dec_ws, cross_ws)


def count_parameters(model: nn.Module) -> int:
    """Trainable parameters, each shared tensor counted once."""
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


def save_checkpoint(
    model: Transformer, path: str | Path, dtype: torch.dtype | None = None, **metadata: str
) -> None:
    """Weights as safetensors (never pickle), the config as JSON metadata.

    ``dtype=torch.float16`` halves the file; :func:`load_checkpoint` gives float32 back.
    """
    from safetensors.torch import save_model

    meta = {"config": json.dumps(dataclasses.asdict(model.config)), **metadata}
    save_model(copy.deepcopy(model).to(dtype) if dtype else model, str(path), metadata=meta)


def load_checkpoint(
    path: str | Path, device: str | torch.device = "cpu"
) -> tuple[Transformer, dict]:
    """The model saved by :func:`save_checkpoint` (in eval mode) and its metadata."""
    from safetensors import safe_open
    from safetensors.torch import load_model

    with safe_open(str(path), framework="pt") as f:
        metadata = dict(f.metadata() or {})
    if "config" not in metadata:
        raise ValueError(f"{path} has no 'config' metadata: not an attnbook checkpoint")
    model = Transformer(TransformerConfig(**json.loads(metadata.pop("config"))))
    load_model(model, str(path), device=str(device))
    names = model.state_dict().keys()  # safetensors also records which tensors were shared
    return model.to(device).eval(), {k: v for k, v in metadata.items() if k not in names}
