"""Generating a target sequence from a trained encoder–decoder: greedy and beam search (§6.1)."""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor

from attnbook.checks import check_float, check_ids, check_int, check_texts, describe
from attnbook.data.vocab import BOS_ID, EOS_ID, Vocabulary, pad_batch
from attnbook.model import Transformer


def _check_decoding(model: Transformer, src: Tensor, max_len: int, bos_id: int, eos_id: int):
    if not isinstance(model, Transformer):
        raise TypeError(f"model must be a Transformer, got {describe(model)}")
    check_ids("src", src, model.config.src_vocab)
    if src.size(1) == 0:
        raise ValueError(f"src must be a non-empty (B, S) tensor of ids, got {tuple(src.shape)}")
    check_int("max_len", max_len)
    for name, value in (("bos_id", bos_id), ("eos_id", eos_id)):
        if check_int(name, value, minimum=0) >= model.config.tgt_vocab:
            raise ValueError(
                f"{name}={value} lies outside the target vocabulary [0, {model.config.tgt_vocab})"
            )
    if max_len > model.config.max_len:
        raise ValueError(
            f"max_len={max_len} is longer than the model's max_len={model.config.max_len}"
        )


@torch.no_grad()
def greedy_decode(
    model: Transformer, src: Tensor, max_len: int, bos_id: int = BOS_ID, eos_id: int = EOS_ID
) -> Tensor:
    """Pick the most likely next token, one position at a time.

    Returns ``(B, ≤ max_len)`` ids without ``<bos>``; finished rows are padded.
    """
    _check_decoding(model, src, max_len, bos_id, eos_id)
    memory, _ = model.encode(src, need_weights=False)
    ys = torch.full((src.size(0), 1), bos_id, dtype=torch.long, device=src.device)
    done = torch.zeros(src.size(0), dtype=torch.bool, device=src.device)
    for _ in range(max_len):
        logits, _, _ = model.decode(ys, memory, src, need_weights=False)  # (B, t, V)
        nxt = logits[:, -1].argmax(-1).masked_fill(done, model.config.pad_id)  # (B,)
        ys = torch.cat([ys, nxt[:, None]], dim=1)
        done |= nxt == eos_id
        if done.all():
            break
    return ys[:, 1:]


def length_penalty(length: int, alpha: float) -> float:
    """``lp(Y) = ((5 + len(Y)) / 6)^α`` (Wu et al., 2016), used with α = 0.6 in §6.1."""
    check_int("length", length, minimum=0)
    check_float("alpha", alpha, 0.0)
    return ((5 + length) / 6) ** alpha


@torch.no_grad()
def beam_search(
    model: Transformer,
    src: Tensor,
    max_len: int,
    beam_size: int = 4,
    alpha: float = 0.6,
    bos_id: int = BOS_ID,
    eos_id: int = EOS_ID,
) -> tuple[list[int], float]:
    """Keep the ``beam_size`` best partial targets of one source ``(1, S)``.

    Hypotheses are ranked by log P(Y | X) / lp(Y). Returns the best ids (without
    ``<bos>``, ending in ``<eos>`` unless ``max_len`` was reached) and its log-probability.
    """
    _check_decoding(model, src, max_len, bos_id, eos_id)
    if src.size(0) != 1:
        raise ValueError(
            f"beam_search decodes one source at a time, got src of shape {tuple(src.shape)}"
        )
    check_int("beam_size", beam_size)
    check_float("alpha", alpha, 0.0)
    memory, _ = model.encode(src, need_weights=False)
    beams = [([bos_id], 0.0)]  # (ids, log-probability)
    finished: list[tuple[list[int], float]] = []
    for _ in range(max_len):
        ys = torch.tensor([ids for ids, _ in beams], device=src.device)  # (k, t)
        k = ys.size(0)
        logits, _, _ = model.decode(
            ys, memory.expand(k, -1, -1), src.expand(k, -1), need_weights=False
        )
        logp = torch.log_softmax(logits[:, -1].double(), dim=-1)  # (k, V)
        total = torch.tensor([lp for _, lp in beams], dtype=torch.double, device=src.device)
        scores, flat = (total[:, None] + logp).flatten().topk(min(beam_size, logp.numel()))
        V = logp.size(-1)
        beams = []
        for score, index in zip(scores.tolist(), flat.tolist()):
            ids = [*ys[index // V].tolist(), index % V]
            (finished if ids[-1] == eos_id else beams).append((ids, score))
        if not beams or (
            len(finished) >= beam_size
            and max(f[1] / length_penalty(len(f[0]) - 1, alpha) for f in finished)
            >= max(b[1] for b in beams) / length_penalty(max_len, alpha)
        ):
            break
    candidates = finished or beams
    best_ids, best_lp = max(candidates, key=lambda c: c[1] / length_penalty(len(c[0]) - 1, alpha))
    return best_ids[1:], best_lp


def _check_vocab(vocab: object) -> None:
    needed = ("encode_source", "decode", "pad_id", "bos_id", "eos_id", "__len__")
    if isinstance(vocab, str) or not all(hasattr(vocab, name) for name in needed):
        raise TypeError(f"vocab must be a Vocabulary or a BPETokenizer, got {describe(vocab)}")


def translate(
    model: Transformer,
    texts: Sequence[str],
    vocab: Vocabulary,
    max_len: int = 12,
    beam_size: int | None = None,
    *,
    max_len_offset: int | None = None,
) -> list[str]:
    """Decode each string of the list ``texts``; returns one output string per input.

    ``vocab`` is the model's vocabulary: a :class:`~attnbook.data.vocab.Vocabulary` (the
    date task's ``DATE_VOCAB`` checks that each input is a supported date) or a
    :class:`~attnbook.tokenize.BPETokenizer`. Each output has at most ``max_len`` tokens;
    with ``max_len_offset`` it has at most (its input's length in tokens) +
    ``max_len_offset`` instead, capped at the model's ``max_len``: the paper decodes up to
    "input length + 50" (§6.1). ``beam_size`` switches from greedy decoding to beam search.

    ``texts`` must be a list (a single string is a TypeError: pass ``[text]``); bad input
    (not a string, unknown characters, empty, a date outside the supported range) is an
    error naming the input.
    """
    if not isinstance(model, Transformer):
        raise TypeError(f"model must be a Transformer, got {describe(model)}")
    texts = check_texts("texts", texts)
    _check_vocab(vocab)
    if len(vocab) > model.config.src_vocab:
        raise ValueError(
            f"vocab has {len(vocab)} symbols, more than the model's src_vocab="
            f"{model.config.src_vocab}: it is not the vocabulary the model was trained with"
        )
    check_int("max_len", max_len)
    if max_len_offset is not None:
        check_int("max_len_offset", max_len_offset, minimum=0)
    if beam_size is not None:
        check_int("beam_size", beam_size)
    if not texts:
        return []
    device = next(model.parameters()).device
    ids = []
    for i, text in enumerate(texts):
        try:
            ids.append(vocab.encode_source(text))
        except ValueError as e:
            raise ValueError(f"input {i} ({text!r}): {e}") from None
    if max_len_offset is None:
        limits = [max_len] * len(ids)
    else:  # input length + offset, as the paper's "input length + 50"
        limits = [min(len(seq) + max_len_offset, model.config.max_len) for seq in ids]
    model.eval()
    if beam_size is None:
        src = pad_batch(ids, vocab.pad_id).to(device)
        out = greedy_decode(model, src, max(limits), vocab.bos_id, vocab.eos_id)
        # greedy decoding is causal: cutting a row at its own limit is decoding it that far
        return [vocab.decode(row[:limit]) for row, limit in zip(out, limits)]
    results = []
    for seq, limit in zip(ids, limits):
        best, _ = beam_search(
            model,
            torch.tensor([seq], device=device),
            limit,
            beam_size,
            bos_id=vocab.bos_id,
            eos_id=vocab.eos_id,
        )
        results.append(vocab.decode(best))
    return results
