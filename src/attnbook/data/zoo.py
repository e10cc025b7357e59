"""A tiny language for the modern-Transformers chapter, generated from a seed (no downloads).

Sentences of nine tokens ``det subject prep det noun verb det object .`` whose verb agrees
with its subject, and BERT's masking of them. Ids follow the book's convention: ``<pad>``
0, ``<bos>`` 1, ``<eos>`` 2, then the language's own ``<mask>`` 3, then the words.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import Tensor

from attnbook.checks import check_float, check_generator, check_int, check_tensor
from attnbook.data.vocab import IGNORE_INDEX, SPECIALS

ZOO_SPECIALS = (*SPECIALS, "<mask>")  # <pad> 0, <bos> 1, <eos> 2, <mask> 3
SLOTS = ("det", "subject", "prep", "det", "noun", "verb", "det", "object", ".")


@dataclass(frozen=True)
class ZooLanguage:
    """Nine-token sentences ``det subject prep det noun verb det object .``

    e.g. "the cats near my dog chase the birds ." Every choice is uniform and
    independent, except three rules a model has to learn: the verb **agrees in number
    with the subject** (not with the nearer noun after the preposition), each subject
    takes only some verbs (``subject_verbs``), each verb only some objects
    (``verb_objects``). Nouns and verbs add "s" (plural noun, singular verb).
    """

    dets: tuple[str, ...] = ("the", "my")
    preps: tuple[str, ...] = ("near", "behind")
    nouns: tuple[str, ...] = ("cat", "dog", "bird", "frog")
    verbs: tuple[str, ...] = ("chase", "see", "fear", "follow")
    # row i: the verbs noun i may take as a subject / the objects verb i may take
    subject_verbs: tuple[tuple[str, ...], ...] = (
        ("chase", "see"),
        ("chase", "follow"),
        ("see", "fear"),
        ("fear", "follow"),
    )
    verb_objects: tuple[tuple[str, ...], ...] = (
        ("cat", "bird"),
        ("dog", "frog"),
        ("cat", "dog"),
        ("bird", "frog"),
    )

    def __post_init__(self) -> None:
        for table, rows, names, what in (
            (self.subject_verbs, self.nouns, self.verbs, "subject_verbs"),
            (self.verb_objects, self.verbs, self.nouns, "verb_objects"),
        ):
            if len(table) != len(rows) or len({len(r) for r in table}) != 1:
                raise ValueError(f"{what} needs one row per word, all of one length: {table}")
            unknown = {w for r in table for w in r} - set(names)
            if unknown or any(len(set(r)) != len(r) for r in table):
                raise ValueError(f"{what} has unknown or repeated words: {table}")

    @property
    def vocab(self) -> tuple[str, ...]:
        """Specials, ".", determiners, prepositions, nouns (sg, pl), verbs (sg, pl)."""
        nouns = (*self.nouns, *(n + "s" for n in self.nouns))
        verbs = (*(v + "s" for v in self.verbs), *self.verbs)  # "chases" agrees with sg
        return (*ZOO_SPECIALS, ".", *self.dets, *self.preps, *nouns, *verbs)

    @property
    def stoi(self) -> dict[str, int]:
        return {w: i for i, w in enumerate(self.vocab)}

    pad_id, bos_id, eos_id, mask_id = 0, 1, 2, 3

    def _offsets(self) -> dict[str, int]:
        det = len(ZOO_SPECIALS) + 1
        prep = det + len(self.dets)
        noun = prep + len(self.preps)
        return {"det": det, "prep": prep, "noun": noun, "verb": noun + 2 * len(self.nouns)}

    def _tables(self) -> tuple[Tensor, Tensor]:
        """Allowed (subject → verb) and (verb → object) as index tensors (rows, k)."""
        v, n = {w: i for i, w in enumerate(self.verbs)}, {w: i for i, w in enumerate(self.nouns)}
        sv = torch.tensor([[v[w] for w in row] for row in self.subject_verbs])
        vo = torch.tensor([[n[w] for w in row] for row in self.verb_objects])
        return sv, vo

    def sample(self, n: int, generator: torch.Generator | None = None) -> Tensor:
        """``(n, 9)`` ids of ``n`` independent sentences."""
        check_int("n", n)
        check_generator("generator", generator)
        o, (sv, vo) = self._offsets(), self._tables()

        def pick(k: int) -> Tensor:
            return torch.randint(k, (n,), generator=generator)

        N = len(self.nouns)
        subject, number = pick(N), pick(2)  # number 0 = singular, 1 = plural
        verb = sv[subject, pick(sv.size(1))]
        obj = vo[verb, pick(vo.size(1))]
        columns = [
            o["det"] + pick(len(self.dets)),
            o["noun"] + number * N + subject,
            o["prep"] + pick(len(self.preps)),
            o["det"] + pick(len(self.dets)),
            o["noun"] + pick(2) * N + pick(N),  # the noun after the preposition: free
            o["verb"] + number * len(self.verbs) + verb,  # agrees with the subject
            o["det"] + pick(len(self.dets)),
            o["noun"] + pick(2) * N + obj,
            torch.full((n,), len(ZOO_SPECIALS)),  # "."
        ]
        return torch.stack(columns, dim=1)  # (n, 9)

    def stream(
        self, n: int, sentences: int, generator: torch.Generator | None = None, bos: bool = False
    ) -> Tensor:
        """``(n, [1 +] 9·sentences)``: ``sentences`` sentences in a row (after ``<bos>``)."""
        check_int("n", n)
        check_int("sentences", sentences)
        ids = self.sample(n * sentences, generator).view(n, 9 * sentences)
        return torch.cat([torch.full((n, 1), self.bos_id), ids], dim=1) if bos else ids

    def is_grammatical(self, ids: Tensor) -> Tensor:
        """Bool ``(...)``: whether each ``(..., 9)`` row is a sentence of the language."""
        check_tensor("ids", ids, kind="long")
        if ids.dim() < 1 or ids.size(-1) != 9:
            raise ValueError(f"sentences have 9 tokens, got shape {tuple(ids.shape)}")
        o, (sv, vo) = self._offsets(), self._tables()
        N, V = len(self.nouns), len(self.verbs)
        kinds = {
            "det": (o["det"], len(self.dets)),
            "prep": (o["prep"], len(self.preps)),
            "noun": (o["noun"], 2 * N),
            "verb": (o["verb"], 2 * V),
            ".": (len(ZOO_SPECIALS), 1),
        }
        slot_kinds = ["det", "noun", "prep", "det", "noun", "verb", "det", "noun", "."]
        ok = torch.ones(ids.shape[:-1], dtype=torch.bool)
        for i, kind in enumerate(slot_kinds):
            start, count = kinds[kind]
            ok &= (ids[..., i] >= start) & (ids[..., i] < start + count)
        noun, verb = (ids - o["noun"]).clamp(0, 2 * N - 1), (ids - o["verb"]).clamp(0, 2 * V - 1)
        subject, number = noun[..., 1] % N, noun[..., 1] // N
        v, agreement = verb[..., 5] % V, verb[..., 5] // V
        obj = noun[..., 7] % N
        ok &= agreement == number
        ok &= (sv[subject] == v[..., None]).any(-1) & (vo[v] == obj[..., None]).any(-1)
        return ok

    def fillers(self, ids: Tensor, slot: int) -> Tensor:
        """Bool ``(n, vocab)``: the words that make each ``(n, 9)`` sentence grammatical
        when put in position ``slot`` — the answers a masked LM may give there."""
        check_tensor("ids", ids, 2, "long", "(n, 9)")
        if check_int("slot", slot, minimum=0) >= 9:
            raise ValueError(f"slot must be in 0..8, got {slot}")
        V = len(self.vocab)
        candidates = ids[:, None, :].repeat(1, V, 1)  # (n, vocab, 9)
        candidates[:, :, slot] = torch.arange(V)
        return self.is_grammatical(candidates)

    def slot_bits(self) -> tuple[float, ...]:
        """H(slot | every earlier token) in bits, for the nine slots — exact, from the rules."""
        sv, vo = self._tables()
        det, prep, noun = (math.log2(len(x)) for x in (self.dets, self.preps, self.nouns))
        # number: 1 bit; the verb's form is fixed by the subject: only its lemma is a choice
        return (det, noun + 1, prep, det, noun + 1, math.log2(sv.size(1)), det,
                math.log2(vo.size(1)) + 1, 0.0)  # fmt: skip

    def entropy_bits(self) -> float:
        """Entropy of one sentence: log2 of the number of (equally likely) sentences."""
        return sum(self.slot_bits())

    def encode(self, text: str) -> list[int]:
        if not isinstance(text, str):
            raise TypeError(f"text must be a string of words, got {text!r}")
        stoi = self.stoi
        unknown = [w for w in text.split() if w not in stoi]
        if unknown:
            raise ValueError(f"words not in the vocabulary: {unknown}; known: {self.vocab}")
        return [stoi[w] for w in text.split()]

    def decode(self, ids: Tensor | list[int]) -> str:
        return " ".join(self.vocab[i] for i in torch.as_tensor(ids).tolist())


def mask_tokens(
    ids: Tensor,
    mask_id: int,
    replace_range: tuple[int, int],
    p: float = 0.15,
    generator: torch.Generator | None = None,
) -> tuple[Tensor, Tensor]:
    """BERT's masking (Devlin et al. 2019, §3.1): ``(inputs, targets)``.

    Each position is chosen with probability ``p``; a chosen token becomes ``<mask>``
    80% of the time, a random id from ``replace_range`` 10%, and stays itself 10%.
    ``targets`` holds the original id at chosen positions and ``IGNORE_INDEX`` elsewhere.
    """
    check_tensor("ids", ids, kind="long")
    check_float("p", p, 0.0, 1.0, low_open=True)
    check_int("mask_id", mask_id, minimum=0)
    check_generator("generator", generator)
    low, high = replace_range
    if not 0 <= low < high:
        raise ValueError(f"replace_range must be (low, high) with 0 <= low < high, got {low, high}")
    u = torch.rand(ids.shape, generator=generator)
    chosen = u < p
    action = torch.rand(ids.shape, generator=generator)  # which of the three things happens
    random_ids = torch.randint(low, high, ids.shape, generator=generator)
    inputs = torch.where(chosen & (action < 0.8), torch.full_like(ids, mask_id), ids)
    inputs = torch.where(chosen & (action >= 0.8) & (action < 0.9), random_ids, inputs)
    targets = torch.where(chosen, ids, torch.full_like(ids, IGNORE_INDEX))
    return inputs, targets
