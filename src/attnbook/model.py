"""The Transformer encoder–decoder of §3 of the paper, built from the book's pieces.

Every forward pass returns its attention weights as values (never stored on a module):
``Attention(encoder=[...], decoder=[...], cross=[...])``, one ``(B, h, T_q, T_k)``
tensor per layer, ready for ``attnbook.viz.model_view``. Training passes
``need_weights=False`` and gets empty lists (and PyTorch's fused attention) instead.

Generation one token at a time reuses the keys and values of the positions already
decoded (:class:`KVCache`, :meth:`Transformer.start_cache`, :meth:`Transformer.decode_step`):
the cache is a value handed in and returned, never state left on a module.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import torch
from torch import Tensor, nn

from attnbook.attention import MultiHeadAttention, causal_mask
from attnbook.checks import check_float, check_ids, check_int, check_tensor, describe
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
    residual: bool = True  # False drops the "x +" of every sub-layer (an ablation, not the paper)
    layer_norm: bool = True  # False drops every LayerNorm (an ablation, not the paper)
    positional: str = "sinusoidal"  # or "learned" (Table 3, row E)
    pad_id: int = 0
    # per-head sizes of queries and keys (d_k) and of values (d_v); None: d_model / h, the
    # paper's choice (Table 3, row B shrinks d_k). A copy made with dataclasses.replace
    # keeps them: pass d_k=None, d_v=None to tie them to its own d_model / h.
    d_k: int | None = None
    d_v: int | None = None

    def __post_init__(self) -> None:
        for name in ("src_vocab", "tgt_vocab", "N", "d_model", "d_ff", "h", "max_len"):
            check_int(name, getattr(self, name))
        for name in ("d_k", "d_v"):
            if getattr(self, name) is None:
                if self.d_model % self.h:
                    raise ValueError(
                        f"d_model={self.d_model} is not divisible by h={self.h}: "
                        f"{name} = d_model / h (or give {name})"
                    )
                object.__setattr__(self, name, self.d_model // self.h)  # frozen: set once here
            check_int(name, getattr(self, name))
        check_float("dropout", self.dropout, 0.0, 1.0, high_open=True)
        for name in ("share_embeddings", "norm_first", "residual", "layer_norm"):
            if not isinstance(getattr(self, name), bool):
                raise TypeError(
                    f"{name} must be True or False, got {describe(getattr(self, name))}"
                )
        if self.share_embeddings and self.src_vocab != self.tgt_vocab:
            raise ValueError(
                "share_embeddings needs one shared vocabulary: "
                f"src_vocab={self.src_vocab} != tgt_vocab={self.tgt_vocab}"
            )
        if self.positional not in ("sinusoidal", "learned"):
            raise ValueError(
                f"positional must be 'sinusoidal' or 'learned', got {self.positional!r}"
            )
        check_int("pad_id", self.pad_id, minimum=0)
        if self.pad_id >= min(self.src_vocab, self.tgt_vocab):
            raise ValueError(
                f"pad_id={self.pad_id} lies outside the vocabulary: src_vocab={self.src_vocab}, "
                f"tgt_vocab={self.tgt_vocab} (ids 0 … vocab − 1)"
            )

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
            tgt_vocab=src_vocab if tgt_vocab is None else tgt_vocab,
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


def init_parameters(model: nn.Module) -> nn.Module:
    """Glorot (Xavier) uniform initialisation of every weight matrix of ``model``, in place.

    W ~ U(−a, a) with a = √(6 / (fan_in + fan_out)) (Glorot & Bengio, 2010), the choice of
    the paper's reference code; vectors (biases, LayerNorm gains) keep PyTorch's defaults.
    Returns ``model``.
    """
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be a torch.nn.Module, got {describe(model)}")
    for p in model.parameters():
        if p.dim() > 1:
            nn.init.xavier_uniform_(p)
    return model


class FeedForward(nn.Module):
    """FFN(x) = max(0, x W_1 + b_1) W_2 + b_2 — Eq. (2), §3.3, applied at each position."""

    def __init__(self, d_model: int, d_ff: int, dropout: float = 0.0) -> None:
        super().__init__()
        check_int("d_model", d_model)
        check_int("d_ff", d_ff)
        check_float("dropout", dropout, 0.0, 1.0, high_open=True)
        self.W_1 = nn.Linear(d_model, d_ff)
        self.W_2 = nn.Linear(d_ff, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: Tensor) -> Tensor:
        return self.W_2(self.dropout(torch.relu(self.W_1(x))))  # (B, T, d_model)


class Residual(nn.Module):
    """LayerNorm(x + Dropout(Sublayer(x))) (post-LN, §3.1, §5.4), or pre-LN
    x + Dropout(Sublayer(LayerNorm(x))) when ``norm_first``.

    ``residual=False`` leaves out the ``x +`` and ``layer_norm=False`` the LayerNorm: the
    ablations of the encoder–decoder chapter (the paper has both). ``sublayer(x)`` returns
    ``(output, extra)``; ``extra`` (attention weights, a cache) is handed back untouched.
    """

    def __init__(
        self,
        d_model: int,
        dropout: float,
        norm_first: bool,
        residual: bool = True,
        layer_norm: bool = True,
    ) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(d_model) if layer_norm else nn.Identity()
        self.dropout = nn.Dropout(dropout)
        self.norm_first = norm_first
        self.residual = residual

    def forward(self, x: Tensor, sublayer) -> tuple[Tensor, object]:
        if self.norm_first:
            out, extra = sublayer(self.norm(x))
            out = self.dropout(out)
            return (x + out if self.residual else out), extra
        out, extra = sublayer(x)
        out = self.dropout(out)
        return self.norm(x + out if self.residual else out), extra

    def extra_repr(self) -> str:
        return f"norm_first={self.norm_first}, residual={self.residual}"


def _attention(c: TransformerConfig) -> MultiHeadAttention:
    return MultiHeadAttention(c.d_model, c.h, dropout=c.dropout, d_k=c.d_k, d_v=c.d_v)


def _no_weights(f):
    return lambda x: (f(x), None)


def _residuals(c: TransformerConfig, n: int) -> list[Residual]:
    return [
        Residual(c.d_model, c.dropout, c.norm_first, c.residual, c.layer_norm) for _ in range(n)
    ]


class LayerCache(NamedTuple):
    """What one decoder layer keeps between generation steps, each ``(B, h, ·, d_k)``."""

    k: Tensor  # (B, h, t, d_k): self-attention keys of the t target positions so far
    v: Tensor  # (B, h, t, d_k): their values
    memory_k: Tensor  # (B, h, S, d_k): cross-attention keys, from the memory, computed once
    memory_v: Tensor  # (B, h, S, d_k): cross-attention values


class KVCache(NamedTuple):
    """The key/value cache of incremental decoding: one :class:`LayerCache` per decoder
    layer, which target positions so far are not padding, and the source's padding mask.

    Made by :meth:`Transformer.start_cache`, grown by :meth:`Transformer.decode_step`.
    """

    layers: list[LayerCache]
    tgt_keep: Tensor  # (B, t) bool: True where the target token is not padding
    src_mask: Tensor  # (B, 1, S) bool: True on real source tokens

    @property
    def length(self) -> int:
        """t, the number of target positions cached."""
        return self.tgt_keep.size(1)

    def numel(self) -> tuple[int, int]:
        """Numbers held: ``(self-attention K and V, cross-attention K and V)``.

        Per sequence, 2·N·t·d_model for the first and 2·N·S·d_model for the second.
        """
        own = sum(c.k.numel() + c.v.numel() for c in self.layers)
        memory = sum(c.memory_k.numel() + c.memory_v.numel() for c in self.layers)
        return own, memory

    def select(self, index: Tensor) -> KVCache:
        """The cache of the rows ``index`` ``(k,)``, in that order (a beam search keeps the
        rows of the hypotheses it extends)."""
        check_tensor("index", index, 1, "long", "(k,)")
        rows = [LayerCache(*(t.index_select(0, index) for t in c)) for c in self.layers]
        return KVCache(rows, self.tgt_keep[index], self.src_mask[index])


class EncoderLayer(nn.Module):
    """Self-attention, then the FFN, each wrapped in a residual connection and LayerNorm."""

    def __init__(self, c: TransformerConfig) -> None:
        super().__init__()
        self.self_attn = _attention(c)
        self.ffn = FeedForward(c.d_model, c.d_ff, c.dropout)
        self.sublayer1, self.sublayer2 = _residuals(c, 2)

    def forward(
        self, x: Tensor, src_mask: Tensor | None, need_weights: bool = True
    ) -> tuple[Tensor, Tensor | None]:
        x, weights = self.sublayer1(
            x, lambda x: self.self_attn(x, x, x, src_mask, need_weights=need_weights)
        )
        x, _ = self.sublayer2(x, _no_weights(self.ffn))
        return x, weights  # (B, S, d_model), (B, h, S, S) or None


class DecoderLayer(nn.Module):
    """Masked self-attention, cross-attention over the encoder output, then the FFN."""

    def __init__(self, c: TransformerConfig) -> None:
        super().__init__()
        self.self_attn = _attention(c)
        self.cross_attn = _attention(c)
        self.ffn = FeedForward(c.d_model, c.d_ff, c.dropout)
        self.sublayer1, self.sublayer2, self.sublayer3 = _residuals(c, 3)

    def forward(
        self,
        y: Tensor,
        memory: Tensor,
        tgt_mask: Tensor | None,
        src_mask: Tensor | None,
        need_weights: bool = True,
    ) -> tuple[Tensor, Tensor | None, Tensor | None]:
        y, self_w = self.sublayer1(
            y, lambda y: self.self_attn(y, y, y, tgt_mask, need_weights=need_weights)
        )
        # queries from the decoder, keys and values from the encoder (§3.2.3)
        y, cross_w = self.sublayer2(
            y, lambda y: self.cross_attn(y, memory, memory, src_mask, need_weights=need_weights)
        )
        y, _ = self.sublayer3(y, _no_weights(self.ffn))
        return y, self_w, cross_w  # (B, T, d_model), (B, h, T, T), (B, h, T, S)

    def start_cache(self, memory: Tensor) -> LayerCache:
        """An empty :class:`LayerCache` with the cross-attention keys and values of ``memory``."""
        memory_k, memory_v = self.cross_attn.project_kv(memory, memory)  # (B, h, S, d_k or d_v)
        B, h = memory_k.shape[:2]
        # no target position yet: (B, h, 0, d_k) and (B, h, 0, d_v)
        empty_k = memory_k.new_zeros(B, h, 0, self.self_attn.d_k)
        empty_v = memory_v.new_zeros(B, h, 0, self.self_attn.d_v)
        return LayerCache(empty_k, empty_v, memory_k, memory_v)

    def step(
        self,
        y: Tensor,
        cache: LayerCache,
        tgt_keep: Tensor,
        src_mask: Tensor,
        need_weights: bool = False,
    ) -> tuple[Tensor, LayerCache, Tensor | None, Tensor | None]:
        """``forward`` for one new position ``y`` ``(B, 1, d_model)``.

        Its key and value join the cache; the query attends to every cached position
        (``tgt_keep`` ``(B, 1, t + 1)``, False on padding) and to the cached memory. Returns
        the output, the grown cache, and the new attention rows ``(B, h, 1, t + 1)`` and
        ``(B, h, 1, S)`` (None unless ``need_weights``).
        """

        def self_attention(z: Tensor) -> tuple[Tensor, tuple]:
            k, v = self.self_attn.project_kv(
                z, z
            )  # (B, h, 1, d_k), (B, h, 1, d_v): the new position
            k = torch.cat([cache.k, k], dim=2)  # (B, h, t + 1, d_k)
            v = torch.cat([cache.v, v], dim=2)  # (B, h, t + 1, d_v)
            out, w = self.self_attn.attend(z, k, v, tgt_keep, need_weights)
            return out, (w, k, v)

        y, (self_w, k, v) = self.sublayer1(y, self_attention)
        y, cross_w = self.sublayer2(
            y,
            lambda y: self.cross_attn.attend(
                y, cache.memory_k, cache.memory_v, src_mask, need_weights
            ),
        )
        y, _ = self.sublayer3(y, _no_weights(self.ffn))
        return y, cache._replace(k=k, v=v), self_w, cross_w


class _Stack(nn.Module):
    """N layers and, in a pre-LN stack, one final LayerNorm (post-LN layers end with one).

    ``stack[i]`` is layer i; iterating over the stack gives its layers.
    """

    def __init__(self, layers: list[nn.Module], c: TransformerConfig) -> None:
        super().__init__()
        self.layers = nn.ModuleList(layers)
        self.norm = nn.LayerNorm(c.d_model) if c.norm_first and c.layer_norm else nn.Identity()

    def __len__(self) -> int:
        return len(self.layers)

    def __iter__(self):
        return iter(self.layers)

    def __getitem__(self, i: int) -> nn.Module:
        return self.layers[i]


class Encoder(_Stack):
    """The encoder of §3.1: N identical :class:`EncoderLayer` s over the embedded source."""

    def __init__(self, c: TransformerConfig) -> None:
        super().__init__([EncoderLayer(c) for _ in range(c.N)], c)

    def forward(
        self, x: Tensor, mask: Tensor | None = None, need_weights: bool = True
    ) -> tuple[Tensor, list[Tensor]]:
        """``x`` ``(B, S, d_model)`` → ``(memory (B, S, d_model), [(B, h, S, S)] * N)``
        (an empty list with ``need_weights=False``)."""
        weights = []
        for layer in self.layers:
            x, w = layer(x, mask, need_weights)
            if need_weights:
                weights.append(w)
        return self.norm(x), weights


class Decoder(_Stack):
    """The decoder of §3.1: N identical :class:`DecoderLayer` s, reading the encoder's memory."""

    def __init__(self, c: TransformerConfig) -> None:
        super().__init__([DecoderLayer(c) for _ in range(c.N)], c)

    def forward(
        self,
        y: Tensor,
        memory: Tensor,
        tgt_mask: Tensor | None,
        src_mask: Tensor | None,
        need_weights: bool = True,
    ) -> tuple[Tensor, list[Tensor], list[Tensor]]:
        """``y`` ``(B, T, d_model)`` → ``(y, self-attention weights, cross-attention weights)``,
        each list ``[(B, h, T, T or S)] * N`` (empty with ``need_weights=False``)."""
        self_ws, cross_ws = [], []
        for layer in self.layers:
            y, self_w, cross_w = layer(y, memory, tgt_mask, src_mask, need_weights)
            if need_weights:
                self_ws.append(self_w)
                cross_ws.append(cross_w)
        return self.norm(y), self_ws, cross_ws

    def step(
        self, y: Tensor, cache: KVCache, need_weights: bool = False
    ) -> tuple[Tensor, KVCache, list[Tensor], list[Tensor]]:
        """``forward`` for one new position ``y`` ``(B, 1, d_model)``, every layer reading
        and growing its :class:`LayerCache`; ``cache.tgt_keep`` already includes the new
        position. Returns ``(y, cache, self-attention rows, cross-attention rows)``."""
        keep = cache.tgt_keep[:, None, :]  # (B, 1, t + 1)
        layers, self_ws, cross_ws = [], [], []
        for layer, layer_cache in zip(self.layers, cache.layers):
            y, layer_cache, self_w, cross_w = layer.step(
                y, layer_cache, keep, cache.src_mask, need_weights
            )
            layers.append(layer_cache)
            if need_weights:
                self_ws.append(self_w)
                cross_ws.append(cross_w)
        return self.norm(y), cache._replace(layers=layers), self_ws, cross_ws


class Embedding(nn.Module):
    """Token embedding scaled by √d_model (§3.4), plus positions, then dropout (§5.4)."""

    def __init__(self, vocab: int, c: TransformerConfig) -> None:
        super().__init__()
        self.tokens = nn.Embedding(check_int("vocab", vocab), c.d_model)
        positional = (
            SinusoidalPositionalEncoding
            if c.positional == "sinusoidal"
            else LearnedPositionalEncoding
        )
        self.positions = positional(c.d_model, c.max_len)
        self.dropout = nn.Dropout(c.dropout)
        self.scale = math.sqrt(c.d_model)

    def forward(self, ids: Tensor, offset: int = 0) -> Tensor:
        """``ids`` ``(B, T)`` at positions ``offset`` … ``offset + T − 1`` → ``(B, T, d_model)``."""
        x = self.tokens(ids) * self.scale  # (B, T, d_model)
        if offset:  # positions offset … offset + T − 1: the last T rows of a longer table
            T, d_model = x.shape[1:]
            pe = self.positions(x.new_zeros(1, offset + T, d_model))[:, offset:]  # (1, T, d)
            return self.dropout(x + pe)
        return self.dropout(self.positions(x))  # (B, T, d_model)


class Transformer(nn.Module):
    """Encoder–decoder Transformer (Figure 1 of the paper)."""

    def __init__(self, config: TransformerConfig) -> None:
        super().__init__()
        if not isinstance(config, TransformerConfig):
            raise TypeError(f"config must be a TransformerConfig, got {describe(config)}")
        c = self.config = config
        self.src_embed = Embedding(c.src_vocab, c)
        self.tgt_embed = Embedding(c.tgt_vocab, c)
        self.encoder = Encoder(c)
        self.decoder = Decoder(c)
        self.generator = nn.Linear(c.d_model, c.tgt_vocab)  # pre-softmax projection
        init_parameters(self)
        if c.share_embeddings:  # §3.4: one matrix for both embeddings and the output
            self.tgt_embed.tokens.weight = self.src_embed.tokens.weight
            self.generator.weight = self.src_embed.tokens.weight

    # masks: bool, True = may attend
    def src_mask(self, src: Tensor) -> Tensor:
        return (src != self.config.pad_id)[:, None, :]  # (B, 1, S)

    def tgt_mask(self, tgt: Tensor) -> Tensor:
        T = tgt.size(1)
        pad = (tgt != self.config.pad_id)[:, None, :]  # (B, 1, T)
        return pad & causal_mask(T, device=tgt.device)  # (B, T, T)

    def _check_ids(self, ids: Tensor, vocab: int, name: str) -> None:
        check_ids(name, ids, vocab)
        if ids.size(1) > self.config.max_len:
            raise ValueError(
                f"{name} of shape {tuple(ids.shape)} is longer than max_len={self.config.max_len}"
            )
        if ids.size(1) == 0:
            raise ValueError(f"{name} is empty: shape {tuple(ids.shape)}")

    def encode(self, src: Tensor, need_weights: bool = True) -> tuple[Tensor, list[Tensor]]:
        """Encoder output ``memory`` ``(B, S, d_model)`` and its per-layer self-attention."""
        self._check_ids(src, self.config.src_vocab, "src")
        return self._encode(src, need_weights)

    def decode(
        self, tgt: Tensor, memory: Tensor, src: Tensor, need_weights: bool = True
    ) -> tuple[Tensor, list[Tensor], list[Tensor]]:
        """Logits ``(B, T, tgt_vocab)`` for the next token at every target position."""
        self._check_ids(tgt, self.config.tgt_vocab, "tgt")
        check_tensor("memory", memory, 3, "float", f"(B, S, d_model={self.config.d_model})")
        if memory.shape[:2] != src.shape or tgt.size(0) != src.size(0):
            raise ValueError(
                f"tgt {tuple(tgt.shape)}, memory {tuple(memory.shape)} and src {tuple(src.shape)} "
                "must share the batch size B, and memory must have one row per source position"
            )
        return self._decode(tgt, memory, src, need_weights)

    def start_cache(self, memory: Tensor, src: Tensor) -> KVCache:
        """An empty :class:`KVCache` for decoding from ``memory`` ``(B, S, d_model)`` of ``src``
        ``(B, S)``: the cross-attention keys and values of every decoder layer, computed once
        (they depend on the source only), and no target position yet."""
        check_ids("src", src, self.config.src_vocab)
        check_tensor("memory", memory, 3, "float", f"(B, S, d_model={self.config.d_model})")
        if memory.shape[:2] != src.shape or memory.size(2) != self.config.d_model:
            raise ValueError(
                f"memory {tuple(memory.shape)} must be (B, S, d_model={self.config.d_model}) "
                f"for src {tuple(src.shape)}"
            )
        layers = [layer.start_cache(memory) for layer in self.decoder]
        keep = src.new_zeros(src.size(0), 0, dtype=torch.bool)  # (B, 0)
        return KVCache(layers, keep, self.src_mask(src))

    def decode_step(
        self, token: Tensor, cache: KVCache, need_weights: bool = False
    ) -> tuple[Tensor, KVCache, list[Tensor], list[Tensor]]:
        """Incremental decoding: the logits ``(B, tgt_vocab)`` of the token that follows
        ``token`` ``(B, 1)``, the newest target token, at position ``cache.length``.

        Only the new position goes through the decoder: its keys and values join
        ``cache``, which holds those of every earlier position (the causal mask of
        §3.2.3 is what makes them reusable: no earlier position ever sees a later one).
        The logits equal the last row of :meth:`decode` on the whole prefix. Returns
        ``(logits, grown cache, self-attention rows, cross-attention rows)``, the rows
        ``[(B, h, 1, t + 1)] * N`` and ``[(B, h, 1, S)] * N`` (empty lists unless
        ``need_weights``).
        """
        if not isinstance(cache, KVCache):
            raise TypeError(f"cache must be a KVCache from start_cache, got {describe(cache)}")
        check_ids("token", token, self.config.tgt_vocab)
        B = cache.tgt_keep.size(0)
        if token.shape != (B, 1):
            raise ValueError(
                f"token must have shape (B={B}, 1), one new token per cached row, "
                f"got {tuple(token.shape)}"
            )
        if cache.length >= self.config.max_len:
            raise ValueError(
                f"the cache holds {cache.length} positions: max_len={self.config.max_len} reached"
            )
        keep = torch.cat([cache.tgt_keep, token != self.config.pad_id], dim=1)  # (B, t + 1)
        y = self.tgt_embed(token, offset=cache.length)  # (B, 1, d_model)
        y, cache, self_ws, cross_ws = self.decoder.step(
            y, cache._replace(tgt_keep=keep), need_weights
        )
        return self.generator(y[:, 0]), cache, self_ws, cross_ws  # (B, tgt_vocab)

    def forward(
        self, src: Tensor, tgt: Tensor, need_weights: bool = True
    ) -> tuple[Tensor, Attention]:
        """Teacher forcing: ``tgt`` is the target shifted right (starts with ``<bos>``).

        Returns the logits ``(B, T, tgt_vocab)`` and every attention map (empty lists with
        ``need_weights=False``, which also lets each layer use PyTorch's fused attention).
        """
        self._check_ids(src, self.config.src_vocab, "src")
        self._check_ids(tgt, self.config.tgt_vocab, "tgt")
        if src.size(0) != tgt.size(0):
            raise ValueError(
                f"src and tgt must have the same batch size B, got {tuple(src.shape)} "
                f"and {tuple(tgt.shape)}"
            )
        memory, enc_ws = self._encode(src, need_weights)
        logits, dec_ws, cross_ws = self._decode(tgt, memory, src, need_weights)
        return logits, Attention(enc_ws, dec_ws, cross_ws)

    # the computations, on inputs already checked
    def _encode(self, src: Tensor, need_weights: bool) -> tuple[Tensor, list[Tensor]]:
        return self.encoder(self.src_embed(src), self.src_mask(src), need_weights)

    def _decode(
        self, tgt: Tensor, memory: Tensor, src: Tensor, need_weights: bool
    ) -> tuple[Tensor, list[Tensor], list[Tensor]]:
        y, self_ws, cross_ws = self.decoder(
            self.tgt_embed(tgt), memory, self.tgt_mask(tgt), self.src_mask(src), need_weights
        )
        return self.generator(y), self_ws, cross_ws


def count_parameters(model: nn.Module) -> int:
    """Trainable parameters, each shared tensor counted once."""
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be a torch.nn.Module, got {describe(model)}")
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


# ---------------------------------------------------------------- checkpoints


class CheckpointError(ValueError):
    """A file that is not a checkpoint :func:`load_checkpoint` can read, and why."""


def save_checkpoint(
    model: Transformer, path: str | Path, dtype: torch.dtype | None = None, **metadata: str
) -> None:
    """Weights as safetensors (never pickle), the config as JSON metadata.

    ``dtype=torch.float16`` halves the file; :func:`load_checkpoint` gives float32 back.
    """
    from safetensors.torch import save_model

    if not isinstance(model, Transformer):
        raise TypeError(f"model must be a Transformer, got {describe(model)}")
    if not isinstance(path, (str, Path)):
        raise TypeError(f"path must be a str or a pathlib.Path, got {describe(path)}")
    bad = {k: v for k, v in metadata.items() if not isinstance(v, str)}
    if bad:
        raise TypeError(f"metadata values must be strings, got {bad}")
    meta = {"config": json.dumps(dataclasses.asdict(model.config)), **metadata}
    save_model(copy.deepcopy(model).to(dtype) if dtype else model, str(path), metadata=meta)


# names of checkpoints written before Encoder and Decoder were modules of their own
_LEGACY_NAMES = [
    (re.compile(r"^(encoder|decoder)\.(\d+)\."), r"\1.layers.\2."),
    (re.compile(r"^(encoder|decoder)_norm\."), r"\1.norm."),
]


def _current_name(name: str) -> str:
    for pattern, replacement in _LEGACY_NAMES:
        name = pattern.sub(replacement, name)
    return name


def _read_safetensors(path: Path) -> tuple[dict[str, Tensor], dict[str, str]]:
    """Tensors and metadata of a safetensors file, or a :class:`CheckpointError` saying why not."""
    from safetensors import SafetensorError
    from safetensors.torch import load

    if not path.exists():
        raise CheckpointError(f"no checkpoint at {str(path)!r}: the file does not exist")
    if path.is_dir():
        raise CheckpointError(f"{str(path)!r} is a directory, not a checkpoint file")
    data = path.read_bytes()
    if not data:
        raise CheckpointError(f"{str(path)!r} is empty (0 bytes): not a checkpoint")
    looks_safetensors = data[8:9] == b"{"  # 8 bytes of header length, then a JSON header
    if not looks_safetensors and (data[:1] == b"\x80" or data[:2] == b"PK"):
        raise CheckpointError(
            f"{str(path)!r} looks like a pickle or torch.save file; attnbook checkpoints are "
            "safetensors (never pickle, which can run code when loaded): write them with "
            "save_checkpoint"
        )
    try:
        tensors = load(data)
        header_size = int.from_bytes(data[:8], "little")
        header = json.loads(data[8 : 8 + header_size])
    except (SafetensorError, ValueError, UnicodeDecodeError) as error:
        raise CheckpointError(
            f"{str(path)!r} ({len(data)} bytes) is not a complete safetensors file: {error}"
        ) from None
    return tensors, dict(header.get("__metadata__") or {})


def load_checkpoint(
    path: str | Path, device: str | torch.device = "cpu"
) -> tuple[Transformer, dict]:
    """The model saved by :func:`save_checkpoint` (in eval mode) and its metadata.

    A path that is missing, a directory, or a file that is not such a checkpoint (empty,
    truncated, a pickle, another safetensors file, config metadata that is not JSON) raises
    :class:`CheckpointError` (a ``ValueError``) saying which.
    """
    if not isinstance(path, (str, Path)):
        raise TypeError(f"path must be a str or a pathlib.Path, got {describe(path)}")
    path = Path(path)
    tensors, metadata = _read_safetensors(path)
    if "config" not in metadata:
        raise CheckpointError(f"{str(path)!r} has no 'config' metadata: not an attnbook checkpoint")
    try:
        fields = json.loads(metadata.pop("config"))
    except json.JSONDecodeError as error:
        raise CheckpointError(
            f"{str(path)!r}: its 'config' metadata is not JSON ({error})"
        ) from None
    try:
        model = Transformer(TransformerConfig(**fields))
    except (TypeError, ValueError) as error:
        raise CheckpointError(
            f"{str(path)!r}: its 'config' metadata is not a TransformerConfig ({error})"
        ) from None
    state = {_current_name(name): t for name, t in tensors.items()}
    expected = model.state_dict()
    # safetensors stores each shared tensor once: fill in the names it left out
    for name in expected:
        if name not in state:
            ptr = expected[name].data_ptr()
            twin = next(
                (n for n, t in expected.items() if n in state and t.data_ptr() == ptr), None
            )
            if twin is not None:
                state[name] = state[twin]
    missing = sorted(set(expected) - set(state))
    unexpected = sorted(set(state) - set(expected))
    wrong = [n for n in expected if n in state and state[n].shape != expected[n].shape]
    if missing or unexpected or wrong:
        raise CheckpointError(
            f"{str(path)!r}: its tensors do not fit its config (missing {missing[:3]}, "
            f"unexpected {unexpected[:3]}, wrong shape {wrong[:3]})"
        )
    model.load_state_dict({n: t.to(expected[n].dtype) for n, t in state.items()})
    # safetensors also records which tensors were shared, under their names: leave those out
    extra = {k: v for k, v in metadata.items() if _current_name(k) not in expected}
    return model.to(device).eval(), extra
