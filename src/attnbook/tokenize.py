"""Byte-pair encoding (Sennrich et al., 2016) with Hugging Face ``tokenizers`` — §5.1.

The paper encodes its sentences "using byte-pair encoding, which has a shared
source-target vocabulary of about 37000 tokens". BPE starts from the characters and
repeatedly merges the most frequent pair of adjacent symbols into a new symbol, until
the vocabulary has ``vocab_size`` entries; a word is then cut into the longest pieces
the merges allow. Frequent words become one piece, rare ones several.

Text is first split at spaces, and each space is kept as "▁" at the start of the word
that follows (SentencePiece's convention), so decoding gives back the exact text.
Training runs offline on the texts it is given; nothing is downloaded. Ids 0, 1, 2 are
``<pad>``, ``<bos>``, ``<eos>``, as everywhere in the book, and :class:`BPETokenizer`
has the methods of :class:`~attnbook.data.vocab.Vocabulary`, so the same training,
decoding and scoring code runs on characters and on BPE pieces.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import torch
from torch import Tensor

from attnbook.checks import check_int, check_tensor, check_texts, describe
from attnbook.data.vocab import BOS_ID, EOS_ID, PAD_ID, SPECIALS

SPACE = "▁"  # U+2581: a space, kept at the start of the next piece


class BPETokenizer:
    """A trained byte-pair encoding; build one with :meth:`train` or :meth:`from_json`."""

    def __init__(self, tokenizer) -> None:
        from tokenizers import Tokenizer

        if not isinstance(tokenizer, Tokenizer):
            raise TypeError(f"tokenizer must be a tokenizers.Tokenizer, got {describe(tokenizer)}")
        ids = [tokenizer.token_to_id(s) for s in SPECIALS]
        if ids != [PAD_ID, BOS_ID, EOS_ID]:
            raise ValueError(f"the tokenizer's {SPECIALS} must have the ids 0, 1, 2, got {ids}")
        self.tokenizer = tokenizer
        vocab = tokenizer.get_vocab()
        # the characters it can encode: its one-character pieces, a space for "▁"
        self.alphabet = frozenset(t for t in vocab if len(t) == 1) | {" "}

    @classmethod
    def train(cls, texts: Sequence[str], vocab_size: int) -> BPETokenizer:
        """Learn merges on ``texts`` until the vocabulary has ``vocab_size`` symbols
        (3 specials, every character of ``texts``, ▁, then the merged pieces)."""
        from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

        texts = check_texts("texts", texts)
        check_int("vocab_size", vocab_size)
        if not texts or not any(texts):
            raise ValueError("texts must hold at least one non-empty string")
        alphabet = sorted(set("".join(texts)) - {" "} | {SPACE})
        if vocab_size < len(alphabet) + len(SPECIALS):
            raise ValueError(
                f"vocab_size={vocab_size} is smaller than the {len(alphabet)} characters of "
                f"texts plus {len(SPECIALS)} specials"
            )
        tokenizer = Tokenizer(models.BPE())
        tokenizer.pre_tokenizer = pre_tokenizers.Metaspace(
            replacement=SPACE, prepend_scheme="always"
        )
        tokenizer.decoder = decoders.Metaspace(replacement=SPACE, prepend_scheme="always")
        trainer = trainers.BpeTrainer(
            vocab_size=vocab_size,
            special_tokens=list(SPECIALS),
            initial_alphabet=alphabet,
            limit_alphabet=len(alphabet),
            show_progress=False,
        )
        tokenizer.train_from_iterator(texts, trainer=trainer)
        return cls(tokenizer)

    @classmethod
    def from_json(cls, text: str) -> BPETokenizer:
        """The tokenizer :meth:`to_json` wrote (Hugging Face's JSON format, never pickle)."""
        from tokenizers import Tokenizer

        if not isinstance(text, str):
            raise TypeError(f"text must be the JSON string of a tokenizer, got {describe(text)}")
        return cls(Tokenizer.from_str(text))

    def to_json(self) -> str:
        """The whole tokenizer (pieces, merges, pre-tokenizer) as Hugging Face's JSON."""
        return self.tokenizer.to_str()

    def save(self, path: str | Path) -> None:
        """Write :meth:`to_json` to ``path`` (UTF-8)."""
        Path(path).write_text(self.to_json(), encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path) -> BPETokenizer:
        """The tokenizer :meth:`save` wrote to ``path``."""
        return cls.from_json(Path(path).read_text(encoding="utf-8"))

    # -- the Vocabulary interface
    def __len__(self) -> int:
        return self.tokenizer.get_vocab_size()

    pad_id, bos_id, eos_id = PAD_ID, BOS_ID, EOS_ID

    @property
    def itos(self) -> list[str]:
        """Every piece, by id."""
        return [self.tokenizer.id_to_token(i) for i in range(len(self))]

    def _check_text(self, text: object) -> str:
        if not isinstance(text, str):
            raise TypeError(f"text must be a string, got {describe(text)}")
        unknown = sorted(set(text) - self.alphabet)
        if unknown:
            raise ValueError(
                f"characters not in the vocabulary: {unknown!r} (in {text!r}); "
                f"known: {''.join(sorted(self.alphabet))!r}"
            )
        return text

    def tokens(self, text: str) -> list[str]:
        """The pieces BPE cuts ``text`` into ("▁" marks a space before a piece)."""
        return self.tokenizer.encode(self._check_text(text)).tokens

    def encode(self, text: str, bos: bool = False, eos: bool = False) -> list[int]:
        """Ids of the pieces of ``text``; an unknown character is a ValueError naming it."""
        ids = self.tokenizer.encode(self._check_text(text)).ids
        return [BOS_ID] * bos + ids + [EOS_ID] * eos

    def encode_source(self, text: str) -> list[int]:
        """The ids of a source text a model reads; empty text is a ValueError."""
        if isinstance(text, str) and not text:
            raise ValueError("empty input: nothing to translate")
        return self.encode(text)

    def encode_batch(self, texts: Sequence[str], bos: bool = False, eos: bool = False) -> Tensor:
        """``(n, T_max)`` ids of ``texts``, right-padded with ``<pad>`` (encoded in parallel
        by the library, placed into the matrix in one masked assignment)."""
        texts = check_texts("texts", texts)
        if not texts:
            raise ValueError("texts must hold at least one string")
        for text in texts:
            self._check_text(text)
        rows = [e.ids for e in self.tokenizer.encode_batch(texts)]
        lengths = np.array([len(r) for r in rows], dtype=np.int64)  # (n,)
        T = int(lengths.max()) + bos + eos
        out = np.full((len(rows), T), PAD_ID, dtype=np.int64)
        column = np.arange(T)[None, :]  # (1, T)
        out[(column >= bos) & (column < (lengths + bos)[:, None])] = np.concatenate(rows)
        if bos:
            out[:, 0] = BOS_ID
        if eos:
            out[np.arange(len(rows)), lengths + bos] = EOS_ID
        return torch.from_numpy(out)

    def decode(self, ids: Sequence[int] | Tensor) -> str:
        """Text of ``ids``, stopping at ``<eos>`` and skipping ``<pad>``/``<bos>``."""
        ids = torch.as_tensor(ids)
        if ids.dim() != 1 or ids.is_floating_point():
            raise ValueError(f"ids must be one sequence of integer ids, got {describe(ids)}")
        row = ids.tolist()
        row = row[: row.index(EOS_ID)] if EOS_ID in row else row
        bad = [i for i in row if not 0 <= i < len(self)]
        if bad:
            raise ValueError(f"id {bad[0]} lies outside the vocabulary [0, {len(self)})")
        return self.tokenizer.decode(row, skip_special_tokens=True)

    def decode_batch(self, ids: Tensor) -> list[str]:
        """:meth:`decode` of each row of ``ids`` ``(n, T)``."""
        check_tensor("ids", ids, 2, hint="(n, T)")
        return [self.decode(row) for row in ids]

    def __repr__(self) -> str:
        merges = len(json.loads(self.to_json())["model"]["merges"])
        return f"BPETokenizer({len(self)} symbols, {merges} merges)"
