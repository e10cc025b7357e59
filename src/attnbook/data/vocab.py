"""The one special-token convention of the book's tasks, and character vocabularies.

Every task whose sequences use special tokens numbers them the same way: ``<pad>`` = 0,
``<bos>`` = 1, ``<eos>`` = 2, then the task's own specials (``<mask>``, ``?``, …), then its
ordinary symbols. Target positions with nothing to predict hold :data:`IGNORE_INDEX`, which
``F.cross_entropy`` skips. (Tasks with no special tokens at all, such as the cipher's
digits or the retrieval task's key and value indices, number their symbols from 0.)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor

from attnbook.checks import check_int, check_tensor, check_texts, describe

PAD, BOS, EOS = "<pad>", "<bos>", "<eos>"
SPECIALS = (PAD, BOS, EOS)
PAD_ID, BOS_ID, EOS_ID = 0, 1, 2
#: The target id of positions with nothing to predict. No vocabulary uses it, and it is
#: the default ``ignore_index`` of ``F.cross_entropy``.
IGNORE_INDEX = -100


@dataclass(frozen=True)
class Vocabulary:
    """A character vocabulary; ids 0, 1, 2 are ``<pad>``, ``<bos>``, ``<eos>``."""

    chars: str

    def __post_init__(self) -> None:
        if not isinstance(self.chars, str):
            raise TypeError(f"chars must be a string of characters, got {describe(self.chars)}")
        if len(set(self.chars)) != len(self.chars):
            raise ValueError("vocabulary characters must be unique")

    @property
    def itos(self) -> list[str]:
        return [*SPECIALS, *self.chars]

    @property
    def stoi(self) -> dict[str, int]:
        return {s: i for i, s in enumerate(self.itos)}

    def __len__(self) -> int:
        return len(SPECIALS) + len(self.chars)

    @property
    def pad_id(self) -> int:
        return PAD_ID

    @property
    def bos_id(self) -> int:
        return BOS_ID

    @property
    def eos_id(self) -> int:
        return EOS_ID

    def encode(self, text: str, bos: bool = False, eos: bool = False) -> list[int]:
        """Character ids of ``text``; an unknown character is a ValueError naming it."""
        if not isinstance(text, str):
            raise TypeError(f"text must be a string, got {describe(text)}")
        stoi = self.stoi
        unknown = sorted({c for c in text if c not in stoi or c in SPECIALS})
        if unknown:
            raise ValueError(
                f"characters not in the vocabulary: {unknown!r} (in {text!r}); "
                f"known: {self.chars!r}"
            )
        ids = [stoi[c] for c in text]
        return [BOS_ID] * bos + ids + [EOS_ID] * eos

    def encode_source(self, text: str) -> list[int]:
        """The ids of a source text a model reads (what :func:`~attnbook.decode.translate`
        calls): an empty text or an unknown character is a ValueError."""
        if isinstance(text, str) and not text:
            raise ValueError("empty input: nothing to translate")
        return self.encode(text)

    def encode_batch(self, texts: Sequence[str], bos: bool = False, eos: bool = False) -> Tensor:
        """``(n, T_max)`` ids of ``texts``, right-padded with ``<pad>``, in one vectorised
        pass: all texts as one array of code points, mapped through the sorted alphabet."""
        texts = check_texts("texts", texts)
        if not texts:
            raise ValueError("texts must hold at least one string")
        lengths = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))  # (n,)
        codes = np.frombuffer("".join(texts).encode("utf-32-le"), dtype=np.uint32)  # (Σ len,)
        alphabet = np.frombuffer(self.chars.encode("utf-32-le"), dtype=np.uint32)  # (|chars|,)
        order = np.argsort(alphabet)
        where = np.minimum(np.searchsorted(alphabet[order], codes), len(alphabet) - 1)
        known = alphabet[order][where] == codes  # (Σ len,)
        if not known.all():
            unknown = sorted({chr(c) for c in codes[~known].tolist()})
            raise ValueError(
                f"characters not in the vocabulary: {unknown!r}; known: {self.chars!r}"
            )
        T = int(lengths.max()) + bos + eos
        out = np.full((len(texts), T), PAD_ID, dtype=np.int64)
        column = np.arange(T)[None, :]  # (1, T)
        inside = (column >= bos) & (column < (lengths + bos)[:, None])  # (n, T): text positions
        out[inside] = order[where] + len(SPECIALS)  # row by row, in reading order
        if bos:
            out[:, 0] = BOS_ID
        if eos:
            out[np.arange(len(texts)), lengths + bos] = EOS_ID
        return torch.from_numpy(out)

    def decode_batch(self, ids: Tensor) -> list[str]:
        """:meth:`decode` of each row of ``ids`` ``(n, T)``."""
        check_tensor("ids", ids, 2, hint="(n, T)")
        return [self.decode(row) for row in ids]

    def decode(self, ids: Sequence[int] | Tensor) -> str:
        """Text of ``ids``, stopping at ``<eos>`` and skipping ``<pad>``/``<bos>``."""
        ids = torch.as_tensor(ids)
        if ids.dim() != 1 or ids.is_floating_point():
            raise ValueError(f"ids must be one sequence of integer ids, got {describe(ids)}")
        out = []
        for i in ids.tolist():
            if i == EOS_ID:
                break
            if not 0 <= i < len(self):
                raise ValueError(f"id {i} lies outside the vocabulary [0, {len(self)})")
            if i >= len(SPECIALS):
                out.append(self.chars[i - len(SPECIALS)])
        return "".join(out)


def pad_batch(sequences: Sequence[Sequence[int]], pad_id: int = PAD_ID) -> Tensor:
    """``(B, T_max)`` long tensor, each sequence right-padded with ``pad_id``."""
    if isinstance(sequences, (str, Tensor)) or not isinstance(sequences, Sequence):
        raise TypeError(f"sequences must be a list of id lists, got {describe(sequences)}")
    if not sequences:
        raise ValueError("pad_batch needs at least one sequence")
    check_int("pad_id", pad_id, minimum=0)
    T = max(len(s) for s in sequences)
    out = torch.full((len(sequences), T), pad_id, dtype=torch.long)
    for b, s in enumerate(sequences):
        out[b, : len(s)] = torch.as_tensor(s, dtype=torch.long)
    return out
