"""Batches from a fixed parallel corpus held as two padded id matrices.

A batch is an index into the corpus, trimmed to its longest row: a few tensor operations,
no per-token Python. Optionally batches are grouped by length, as the paper did ("sentence
pairs were batched together by approximate sequence length", §5.1), which wastes less
compute on padding.

On the book's toy tasks grouping costs accuracy: a group of similar length is a group of
similar examples (numbers with the same count of digits, dates in one format), so each
step's gradient is biased; 600 steps of such batches end several points lower than random
batches. The paper's batches held about 25,000 tokens drawn from millions of sentences,
where this does not arise. The default is therefore ``pool=1``, plain random batches.
"""

from __future__ import annotations

from collections.abc import Iterator

import torch
from torch import Tensor

from attnbook.checks import check_generator, check_int, check_tensor
from attnbook.data.vocab import PAD_ID


def lengths_of(ids: Tensor, pad_id: int = PAD_ID) -> Tensor:
    """``(n,)`` number of non-padding ids in each row of ``ids`` ``(n, T)``."""
    check_tensor("ids", ids, 2, "long", "(n, T)")
    return (ids != pad_id).sum(dim=1)


def trim(ids: Tensor, pad_id: int = PAD_ID) -> Tensor:
    """``ids`` ``(n, T)`` without the columns that are padding in every row."""
    return ids[:, : int(lengths_of(ids, pad_id).max())]


def corpus_batches(
    src: Tensor,
    tgt: Tensor,
    batch_size: int,
    generator: torch.Generator,
    pool: int = 1,
) -> Iterator[tuple[Tensor, Tensor]]:
    """Endless ``(src, tgt)`` batches from a corpus ``src`` ``(n, S)``, ``tgt`` ``(n, T)``.

    Each epoch shuffles the corpus and cuts it into batches of ``batch_size`` pairs (a last
    incomplete batch is dropped), each trimmed to its longest source and target. With
    ``pool > 1``, each run of ``pool`` batches is first sorted by length (source, then
    target), so that a batch holds pairs of similar length; the batches are then shuffled.
    """
    check_tensor("src", src, 2, "long", "(n, S)")
    check_tensor("tgt", tgt, 2, "long", "(n, T)")
    check_int("batch_size", batch_size)
    check_int("pool", pool)
    check_generator("generator", generator)
    n = src.size(0)
    if tgt.size(0) != n or n < batch_size:
        raise ValueError(
            f"need src (n, S) and tgt (n, T) with the same n >= batch_size, got src "
            f"{tuple(src.shape)}, tgt {tuple(tgt.shape)}, batch_size={batch_size}"
        )
    key = lengths_of(src) * (tgt.size(1) + 1) + lengths_of(tgt)  # (n,): source, then target
    while True:
        perm = torch.randperm(n, generator=generator)[: n - n % batch_size]  # (m·batch_size,)
        if pool > 1:
            chunks = perm.split(batch_size * pool)  # one sort per pool of batches
            perm = torch.cat([c[torch.argsort(key[c], stable=True)] for c in chunks])
        batches = perm.view(-1, batch_size)  # (m, batch_size)
        if pool > 1:
            batches = batches[torch.randperm(len(batches), generator=generator)]
        for rows in batches:
            yield trim(src[rows]), trim(tgt[rows])
