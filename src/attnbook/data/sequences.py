"""Small sequence tasks: copying and reversing, recalling a symbol, the k-back task, the
shift cipher. Each draws its data from a ``torch.Generator`` and returns long tensors.

Copy, reverse and recall follow the book's token convention (``<pad>`` 0, ``<bos>`` 1,
``<eos>`` 2, task specials, then symbols); the k-back and cipher tasks have no special
tokens and number their digits from 0. Positions with no answer hold ``IGNORE_INDEX``.
"""

from __future__ import annotations

from typing import NamedTuple

import torch
from torch import Tensor

from attnbook.checks import check_generator, check_int
from attnbook.data.vocab import BOS_ID, EOS_ID, IGNORE_INDEX, SPECIALS

# ---------------------------------------------------------------- copying and reversing

COPY_SYMBOLS = 8  # the classic copy task's symbols, ids 3 … 10
COPY_VOCAB = len(SPECIALS) + COPY_SYMBOLS  # 11: <pad>, <bos>, <eos> and the 8 symbols


def copy_batch(
    B: int,
    T: int = 10,
    generator: torch.Generator | None = None,
    n_symbols: int = COPY_SYMBOLS,
    reverse: bool = False,
) -> tuple[Tensor, Tensor]:
    """The classic copy task: a random source ``(B, T)`` and its target ``<bos> src <eos>``
    ``(B, T + 2)``; with ``reverse``, the target holds the source backwards.

    Symbols have ids 3 … 2 + ``n_symbols`` (the vocabulary has 3 + ``n_symbols`` ids).
    """
    check_int("B", B)
    check_int("T", T)
    check_int("n_symbols", n_symbols)
    check_generator("generator", generator)
    first = len(SPECIALS)
    src = torch.randint(first, first + n_symbols, (B, T), generator=generator)  # (B, T)
    bos = torch.full((B, 1), BOS_ID, dtype=torch.long)
    eos = torch.full((B, 1), EOS_ID, dtype=torch.long)
    body = src.flip(1) if reverse else src
    return src, torch.cat([bos, body, eos], dim=1)  # (B, T), (B, T + 2)


# ---------------------------------------------------------------- recall

#: The id of the recall task's own special, the ``?`` that asks for the first symbol (3).
QUERY_ID = len(SPECIALS)


def recall_vocab_size(K: int) -> int:
    """Ids of the recall task with K symbols: 3 specials, ``?`` and the symbols 4 … K + 3."""
    return QUERY_ID + 1 + check_int("K", K)


def recall_batch(
    B: int, n: int, K: int = 8, generator: torch.Generator | None = None
) -> tuple[Tensor, Tensor]:
    """Recall the first symbol after ``n`` distractors.

    Each sequence is ``[s, d_1, …, d_n, ?]`` with s and the d's drawn uniformly from the
    K symbols (ids 4 … K + 3) and ``?`` the id :data:`QUERY_ID`; the target is s.
    Returns ``x`` ``(B, n + 2)`` and ``y`` ``(B,)``. Chance accuracy is 1/K.
    """
    check_int("B", B)
    check_int("n", n, minimum=0)
    check_int("K", K, minimum=2)
    check_generator("generator", generator)
    first = QUERY_ID + 1
    symbols = torch.randint(first, first + K, (B, n + 1), generator=generator)  # (B, n + 1)
    query = torch.full((B, 1), QUERY_ID, dtype=torch.long)
    return torch.cat([symbols, query], dim=1), symbols[:, 0].clone()


# ---------------------------------------------------------------- k back


def k_back_batch(
    B: int, T: int, k: int = 3, n_symbols: int = 10, generator: torch.Generator | None = None
) -> tuple[Tensor, Tensor]:
    """Random digits ``(B, T)`` in 0 … n_symbols − 1; the target at position t is the digit
    at t − k (``IGNORE_INDEX`` for t < k). A task about positions: only *where* a token
    is tells which one to copy."""
    check_int("B", B)
    check_int("T", T)
    check_int("k", k)
    check_int("n_symbols", n_symbols, minimum=2)
    check_generator("generator", generator)
    if k >= T:
        raise ValueError(f"k={k} leaves no target in a sequence of T={T}: need k < T")
    ids = torch.randint(0, n_symbols, (B, T), generator=generator)  # (B, T)
    target = torch.full_like(ids, IGNORE_INDEX)
    target[:, k:] = ids[:, :-k]
    return ids, target


# ---------------------------------------------------------------- the shift cipher


class CipherBatch(NamedTuple):
    """One batch of the shift-cipher task, every tensor ``(B, T)`` of ``long``."""

    tokens: Tensor  # digits 0 … K−1
    marked: Tensor  # 1 at the key's position, 0 elsewhere
    targets: Tensor  # (tokens[i−1] − key) mod K, or IGNORE_INDEX where there is no answer


def cipher_batch(
    batch_size: int,
    T: int = 16,
    K: int = 16,
    key_span: int = 3,
    generator: torch.Generator | None = None,
    device: torch.device | str | None = None,
) -> CipherBatch:
    """The shift-cipher task: decode each digit with a key marked near the start.

    A sequence holds T random digits in 0 … K−1. One of the first ``key_span``
    positions, m, is *marked*: its digit is the key. The answer at position i is

        y_i = (x_{i−1} − x_m) mod K   for i ≥ m + 2 (IGNORE_INDEX before),

    so every answer needs two tokens at once: the previous one (a relation by
    position) and the marked one (a relation by content, up to T−2 positions away).
    """
    check_int("batch_size", batch_size)
    check_int("T", T)
    check_int("K", K, minimum=2)
    check_int("key_span", key_span)
    check_generator("generator", generator)
    if T < key_span + 2:
        raise ValueError(
            f"T={T} leaves no answer: it must be at least key_span + 2 = {key_span + 2}"
        )
    tokens = torch.randint(0, K, (batch_size, T), generator=generator)  # (B, T)
    m = torch.randint(0, key_span, (batch_size,), generator=generator)  # (B,) key positions
    rows = torch.arange(batch_size)
    key = tokens[rows, m]  # (B,)
    marked = torch.zeros_like(tokens)
    marked[rows, m] = 1
    previous = tokens.roll(1, dims=1)  # previous[:, i] = tokens[:, i − 1] (wraps at i = 0)
    answer = (previous - key[:, None]) % K  # (B, T)
    has_answer = torch.arange(T)[None, :] >= m[:, None] + 2  # (B, T)
    targets = torch.where(has_answer, answer, torch.full_like(answer, IGNORE_INDEX))
    return CipherBatch(tokens.to(device), marked.to(device), targets.to(device))
