"""The key–value retrieval task of the scaling chapter: find the pair whose key is asked."""

from __future__ import annotations

from typing import NamedTuple

import torch
from torch import Tensor

from attnbook.checks import check_generator, check_int


class RetrievalBatch(NamedTuple):
    """A batch of the key–value retrieval task."""

    keys: Tensor  # (B, T) key ids, distinct within each sequence
    values: Tensor  # (B, T) value ids, one per key
    query: Tensor  # (B,) one of the sequence's keys
    target: Tensor  # (B,) the value stored under that key
    position: Tensor  # (B,) where the queried key sits: the key attention should find


def retrieval_batch(
    B: int,
    T: int = 16,
    n_keys: int = 32,
    n_values: int = 16,
    generator: torch.Generator | None = None,
    device: torch.device | str | None = None,
) -> RetrievalBatch:
    """Key–value retrieval: T (key, value) pairs and a query key; answer its value.

    Keys are indices 0 … n_keys − 1 and values 0 … n_values − 1 (two tables of their own,
    no special tokens). One attention layer solves the task exactly by putting all its
    weight on the pair whose key equals the query, so it rewards a sharp, content-based
    attention pattern. Chance accuracy is 1/n_values.
    """
    for name, value in (("B", B), ("T", T), ("n_keys", n_keys), ("n_values", n_values)):
        check_int(name, value)
    check_generator("generator", generator)
    if T > n_keys:
        raise ValueError(f"T={T} distinct keys need n_keys ≥ T, got n_keys={n_keys}")
    keys = torch.rand(B, n_keys, generator=generator).argsort(dim=-1)[:, :T]  # (B, T)
    values = torch.randint(n_values, (B, T), generator=generator)  # (B, T)
    position = torch.randint(T, (B,), generator=generator)  # (B,)
    rows = torch.arange(B)
    batch = RetrievalBatch(keys, values, keys[rows, position], values[rows, position], position)
    return RetrievalBatch(*(t.to(device) for t in batch))
