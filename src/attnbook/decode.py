"""Generating a target sequence from a trained encoder–decoder: greedy and beam search (§6.1).

Both decode incrementally by default: each step runs the decoder on the newest position
only and reuses the keys and values of the earlier ones (:class:`~attnbook.model.KVCache`).
``use_cache=False`` recomputes the whole prefix at every step instead; the outputs are the
same. ``return_attention=True`` also returns the attention maps of the decoded sequence,
row i holding what step i attended to.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
import torch.nn.functional as F
from torch import Tensor

from attnbook.checks import check_float, check_ids, check_int, check_texts, describe
from attnbook.data.vocab import BOS_ID, EOS_ID, Vocabulary, pad_batch
from attnbook.model import Attention, KVCache, Transformer


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


Rows = tuple[list[Tensor], list[Tensor]]  # one step's attention rows, per decoder layer


def _next_logits(
    model: Transformer,
    ys: Tensor,
    memory: Tensor,
    src: Tensor,
    cache: KVCache | None,
    need_weights: bool,
) -> tuple[Tensor, KVCache | None, Rows]:
    """Logits ``(k, V)`` of the token after ``ys`` ``(k, t)``, the grown cache, and the
    attention rows of position t − 1: ``[(k, h, 1, t)] * N`` and ``[(k, h, 1, S)] * N``."""
    if cache is not None:  # the newest position only, against the cached keys and values
        logits, cache, self_ws, cross_ws = model.decode_step(ys[:, -1:], cache, need_weights)
        return logits, cache, (self_ws, cross_ws)
    k = ys.size(0)  # the whole prefix again
    logits, self_ws, cross_ws = model.decode(
        ys, memory.expand(k, -1, -1), src.expand(k, -1), need_weights
    )
    rows = ([w[:, :, -1:] for w in self_ws], [w[:, :, -1:] for w in cross_ws])
    return logits[:, -1], None, rows


def _stack_rows(encoder: list[Tensor], steps: list[Rows]) -> Attention:
    """The rows of every step, stacked into the maps of a teacher-forced pass:
    decoder ``[(k, h, T, T)] * N`` (zero above the diagonal) and cross ``[(k, h, T, S)] * N``."""
    T = len(steps)
    decoder, cross = [], []
    for layer in range(len(steps[0][0])):
        rows = [step[0][layer] for step in steps]  # [(k, h, 1, t)] for t = 1 … T
        decoder.append(torch.cat([F.pad(r, (0, T - r.size(-1))) for r in rows], dim=2))
        cross.append(torch.cat([step[1][layer] for step in steps], dim=2))
    return Attention(encoder, decoder, cross)


@torch.no_grad()
def greedy_decode(
    model: Transformer,
    src: Tensor,
    max_len: int,
    bos_id: int = BOS_ID,
    eos_id: int = EOS_ID,
    *,
    use_cache: bool = True,
    return_attention: bool = False,
) -> Tensor | tuple[Tensor, Attention]:
    """Pick the most likely next token, one position at a time.

    Returns ``(B, T ≤ max_len)`` ids without ``<bos>``; finished rows are padded.
    ``use_cache=False`` recomputes the whole prefix at every step (same ids, slower).
    ``return_attention=True`` returns ``(ids, attention)``: an
    :class:`~attnbook.model.Attention` whose encoder maps are ``[(B, h, S, S)] * N`` and
    whose decoder and cross maps ``[(B, h, T, T or S)] * N`` hold in row i what step i
    attended to (the maps of a teacher-forced pass over ``<bos>`` and the ids).
    """
    _check_decoding(model, src, max_len, bos_id, eos_id)
    for name, flag in (("use_cache", use_cache), ("return_attention", return_attention)):
        if not isinstance(flag, bool):
            raise TypeError(f"{name} must be True or False, got {describe(flag)}")
    memory, encoder = model.encode(src, need_weights=return_attention)
    cache = model.start_cache(memory, src) if use_cache else None
    ys = torch.full((src.size(0), 1), bos_id, dtype=torch.long, device=src.device)
    done = torch.zeros(src.size(0), dtype=torch.bool, device=src.device)
    steps: list[Rows] = []
    for _ in range(max_len):
        logits, cache, rows = _next_logits(model, ys, memory, src, cache, return_attention)
        steps.append(rows)
        nxt = logits.argmax(-1).masked_fill(done, model.config.pad_id)  # (B,)
        ys = torch.cat([ys, nxt[:, None]], dim=1)
        done |= nxt == eos_id
        if done.all():
            break
    if return_attention:
        return ys[:, 1:], _stack_rows(encoder, steps)
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
    *,
    use_cache: bool = True,
    return_attention: bool = False,
) -> tuple[list[int], float] | tuple[list[int], float, Attention]:
    """Keep the ``beam_size`` best partial targets of one source ``(1, S)``.

    Hypotheses are ranked by log P(Y | X) / lp(Y). Returns the best ids (without
    ``<bos>``, ending in ``<eos>`` unless ``max_len`` was reached) and its log-probability.
    Each step extends every live hypothesis by its newest token, with its rows of the
    key/value cache (``use_cache=False`` recomputes every prefix instead; same result).
    ``return_attention=True`` adds the attention maps of the best hypothesis, as
    :func:`greedy_decode` returns them (batch size 1).
    """
    _check_decoding(model, src, max_len, bos_id, eos_id)
    if src.size(0) != 1:
        raise ValueError(
            f"beam_search decodes one source at a time, got src of shape {tuple(src.shape)}"
        )
    check_int("beam_size", beam_size)
    check_float("alpha", alpha, 0.0)
    for name, flag in (("use_cache", use_cache), ("return_attention", return_attention)):
        if not isinstance(flag, bool):
            raise TypeError(f"{name} must be True or False, got {describe(flag)}")
    memory, encoder = model.encode(src, need_weights=return_attention)
    cache = model.start_cache(memory, src) if use_cache else None
    beams = [([bos_id], 0.0, ())]  # (ids, log-probability, attention rows of each step)
    finished: list[tuple[list[int], float, tuple[Rows, ...]]] = []
    for _ in range(max_len):
        ys = torch.tensor([ids for ids, _, _ in beams], device=src.device)  # (k, t)
        logits, cache, (self_ws, cross_ws) = _next_logits(
            model, ys, memory, src, cache, return_attention
        )
        logp = torch.log_softmax(logits.double(), dim=-1)  # (k, V)
        total = torch.tensor([lp for _, lp, _ in beams], dtype=torch.double, device=src.device)
        scores, flat = (total[:, None] + logp).flatten().topk(min(beam_size, logp.numel()))
        V = logp.size(-1)
        old, beams, origins = beams, [], []
        for score, index in zip(scores.tolist(), flat.tolist()):
            origin = index // V  # the hypothesis this one extends
            ids = [*ys[origin].tolist(), index % V]
            step = (
                [w[origin : origin + 1] for w in self_ws],
                [w[origin : origin + 1] for w in cross_ws],
            )
            (finished if ids[-1] == eos_id else beams).append((ids, score, (*old[origin][2], step)))
            if ids[-1] != eos_id:
                origins.append(origin)
        if cache is not None and beams:  # each live hypothesis keeps the rows it extends
            cache = cache.select(torch.tensor(origins, device=src.device))
        if not beams or (
            len(finished) >= beam_size
            and max(f[1] / length_penalty(len(f[0]) - 1, alpha) for f in finished)
            >= max(b[1] for b in beams) / length_penalty(max_len, alpha)
        ):
            break
    candidates = finished or beams
    best_ids, best_lp, best_rows = max(
        candidates, key=lambda c: c[1] / length_penalty(len(c[0]) - 1, alpha)
    )
    if return_attention:
        return best_ids[1:], best_lp, _stack_rows(encoder, list(best_rows))
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
    use_cache: bool = True,
) -> list[str]:
    """Decode each string of the list ``texts``; returns one output string per input.

    ``use_cache=False`` recomputes the whole prefix at every step instead of keeping keys
    and values (the same outputs): for a decoder whose self-attention function needs the
    full square of positions, such as a sliding window.

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
        out = greedy_decode(
            model, src, max(limits), vocab.bos_id, vocab.eos_id, use_cache=use_cache
        )
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
            use_cache=use_cache,
        )
        results.append(vocab.decode(best))
    return results
