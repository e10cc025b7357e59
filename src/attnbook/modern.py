"""What came after the paper: encoder-only, decoder-only and vision Transformers.

Each model is a few lines on top of :mod:`attnbook.model`'s blocks:

- :class:`MaskedLM` (BERT-style, Devlin et al. 2019): ``Embedding`` → N ``EncoderLayer``
  with no mask → vocabulary logits, trained to fill in masked tokens;
- :class:`CausalLM` (GPT-style, Radford et al. 2018): the *same* stack with
  ``causal_mask(T)`` — a decoder-only model is an encoder stack that cannot look ahead —
  trained to predict the next token;
- :class:`PatchClassifier` (ViT-style, Dosovitskiy et al. 2021): image patches →
  ``Linear`` → ``[CLS]`` + learned positions → N ``EncoderLayer`` → class logits.

And the synthetic data they learn from, generated from a seed (no downloads): the
:class:`ZooLanguage` of nine-token sentences with agreement, and :func:`shape_images`.
Every forward pass returns its attention weights as values, one ``(B, h, T, T)`` per layer.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import NamedTuple

import torch
import torch.nn.functional as F
from torch import Tensor, nn
from tqdm.auto import tqdm

from attnbook.attention import causal_mask
from attnbook.model import Embedding, EncoderLayer, TransformerConfig
from attnbook.positional import LearnedPositionalEncoding
from attnbook.train import warmup_linear_decay
from attnbook.utils import flush_denormals, set_seed

IGNORE = -100  # target id that F.cross_entropy skips (positions that were not masked)
SPECIALS = ("<pad>", "<bos>", "<mask>")
SLOTS = ("det", "subject", "prep", "det", "noun", "verb", "det", "object", ".")


# ------------------------------------------------------------------ a tiny language


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
        return (*SPECIALS, ".", *self.dets, *self.preps, *nouns, *verbs)

    @property
    def stoi(self) -> dict[str, int]:
        return {w: i for i, w in enumerate(self.vocab)}

    pad_id, bos_id, mask_id = 0, 1, 2

    def _offsets(self) -> dict[str, int]:
        det = len(SPECIALS) + 1
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
        if n < 1:
            raise ValueError(f"n must be positive, got {n}")
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
            torch.full((n,), len(SPECIALS)),  # "."
        ]
        return torch.stack(columns, dim=1)  # (n, 9)

    def stream(
        self, n: int, sentences: int, generator: torch.Generator | None = None, bos: bool = False
    ) -> Tensor:
        """``(n, [1 +] 9·sentences)``: ``sentences`` sentences in a row (after ``<bos>``)."""
        if sentences < 1:
            raise ValueError(f"sentences must be positive, got {sentences}")
        ids = self.sample(n * sentences, generator).view(n, 9 * sentences)
        return torch.cat([torch.full((n, 1), self.bos_id), ids], dim=1) if bos else ids

    def is_grammatical(self, ids: Tensor) -> Tensor:
        """Bool ``(...)``: whether each ``(..., 9)`` row is a sentence of the language."""
        if ids.size(-1) != 9:
            raise ValueError(f"sentences have 9 tokens, got shape {tuple(ids.shape)}")
        o, (sv, vo) = self._offsets(), self._tables()
        N, V = len(self.nouns), len(self.verbs)
        kinds = {
            "det": (o["det"], len(self.dets)),
            "prep": (o["prep"], len(self.preps)),
            "noun": (o["noun"], 2 * N),
            "verb": (o["verb"], 2 * V),
            ".": (len(SPECIALS), 1),
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
        if not 0 <= slot < 9:
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
    ``targets`` holds the original id at chosen positions and ``IGNORE`` elsewhere.
    """
    if not 0.0 < p <= 1.0:
        raise ValueError(f"p must be in (0, 1], got {p}")
    low, high = replace_range
    if not 0 <= low < high:
        raise ValueError(f"replace_range must be (low, high) with 0 <= low < high, got {low, high}")
    u = torch.rand(ids.shape, generator=generator)
    chosen = u < p
    action = torch.rand(ids.shape, generator=generator)  # which of the three things happens
    random_ids = torch.randint(low, high, ids.shape, generator=generator)
    inputs = torch.where(chosen & (action < 0.8), torch.full_like(ids, mask_id), ids)
    inputs = torch.where(chosen & (action >= 0.8) & (action < 0.9), random_ids, inputs)
    targets = torch.where(chosen, ids, torch.full_like(ids, IGNORE))
    return inputs, targets


# ------------------------------------------------------------------ the text models


def _init_like_transformer(model: nn.Module) -> None:
    for p in model.parameters():
        if p.dim() > 1:
            nn.init.xavier_uniform_(p)


class TransformerLM(nn.Module):
    """Token ids → ``Embedding`` → N ``EncoderLayer`` → logits over the vocabulary.

    ``causal=False``: every position sees every other (encoder-only, BERT).
    ``causal=True``: position i sees j ≤ i (decoder-only, GPT) — the mask of §3.2.3.
    """

    def __init__(self, config: TransformerConfig, causal: bool) -> None:
        super().__init__()
        c = self.config = config
        self.causal = causal
        self.embed = Embedding(c.src_vocab, c)
        self.layers = nn.ModuleList(EncoderLayer(c) for _ in range(c.N))
        self.norm = nn.LayerNorm(c.d_model) if c.norm_first else nn.Identity()
        self.head = nn.Linear(c.d_model, c.src_vocab)  # pre-softmax projection
        _init_like_transformer(self)

    def forward(self, ids: Tensor) -> tuple[Tensor, list[Tensor]]:
        """Logits ``(B, T, vocab)`` and per-layer attention ``[(B, h, T, T)] * N``."""
        if ids.dim() != 2 or ids.dtype != torch.long:
            raise ValueError(
                f"ids must be a (B, T) long tensor, got {tuple(ids.shape)} {ids.dtype}"
            )
        if ids.size(1) > self.config.max_len:
            raise ValueError(f"length {ids.size(1)} > max_len={self.config.max_len}")
        x = self.embed(ids)  # (B, T, d_model)
        mask = causal_mask(ids.size(1), device=ids.device) if self.causal else None
        weights = []
        for layer in self.layers:
            x, w = layer(x, mask)  # (B, T, d_model), (B, h, T, T)
            weights.append(w)
        return self.head(self.norm(x)), weights


class MaskedLM(TransformerLM):
    """Encoder-only (BERT-style): no attention mask."""

    def __init__(self, config: TransformerConfig) -> None:
        super().__init__(config, causal=False)


class CausalLM(TransformerLM):
    """Decoder-only (GPT-style): the encoder stack under ``causal_mask(T)``."""

    def __init__(self, config: TransformerConfig) -> None:
        super().__init__(config, causal=True)


def masked_lm_loss(model: TransformerLM, inputs: Tensor, targets: Tensor) -> Tensor:
    """Cross-entropy on the chosen positions only (``targets != IGNORE``)."""
    logits, _ = model(inputs)
    return F.cross_entropy(logits.flatten(0, 1), targets.flatten(), ignore_index=IGNORE)


def causal_lm_loss(model: TransformerLM, ids: Tensor) -> Tensor:
    """Mean −log p(x_{t+1} | x_{≤t}) in nats: predict ``ids[:, 1:]`` from ``ids[:, :-1]``."""
    logits, _ = model(ids[:, :-1])
    return F.cross_entropy(logits.flatten(0, 1), ids[:, 1:].flatten())


@torch.no_grad()
def sample_tokens(
    model: TransformerLM,
    prompt: Tensor,
    steps: int,
    generator: torch.Generator | None = None,
    temperature: float = 1.0,
) -> Tensor:
    """Extend ``prompt`` ``(B, T_0)`` by ``steps`` tokens drawn from softmax(logits / τ)."""
    if not model.causal:
        raise ValueError("sampling needs a causal model: a MaskedLM sees the future in training")
    if temperature <= 0 or steps < 0:
        raise ValueError(f"need temperature > 0 and steps >= 0, got {temperature}, {steps}")
    model.eval()
    ids = prompt
    for _ in range(steps):
        logits, _ = model(ids)
        probs = torch.softmax(logits[:, -1] / temperature, dim=-1)  # (B, vocab)
        nxt = torch.multinomial(probs.cpu(), 1, generator=generator).to(ids.device)
        ids = torch.cat([ids, nxt], dim=1)
    return ids  # (B, T_0 + steps)


# ------------------------------------------------------------------ images


SHAPES = ("plus", "cross", "box", "dot")


def shape_stamps() -> Tensor:
    """``(4, 5, 5)`` masks of the four shapes: +, ×, a square outline, a 3×3 block."""
    s = torch.zeros(4, 5, 5)
    s[0, 2, :], s[0, :, 2] = 1, 1
    s[1] = torch.eye(5) + torch.eye(5).flip(1)
    s[1, 2, 2] = 1
    s[2, [0, -1], :], s[2, :, [0, -1]] = 1, 1
    s[3, 1:4, 1:4] = 1
    return s


class ShapeImages(NamedTuple):
    images: Tensor  # (n, 1, size, size)
    labels: Tensor  # (n,) index into SHAPES
    corners: Tensor  # (n, 2) row, column of the shape's 5×5 box


def shape_images(
    n: int, size: int = 16, noise: float = 0.25, generator: torch.Generator | None = None
) -> ShapeImages:
    """``n`` images: one of :data:`SHAPES` at a random place on Gaussian noise."""
    if n < 1 or size < 5 or noise < 0:
        raise ValueError(f"need n >= 1, size >= 5, noise >= 0; got {n}, {size}, {noise}")
    labels = torch.randint(len(SHAPES), (n,), generator=generator)
    corners = torch.randint(size - 4, (n, 2), generator=generator)
    images = noise * torch.randn(n, 1, size, size, generator=generator)
    stamps = shape_stamps()
    for i in range(n):
        r, c = corners[i].tolist()
        images[i, 0, r : r + 5, c : c + 5] += stamps[labels[i]]
    return ShapeImages(images, labels, corners)


def shape_patches(corners: Tensor, size: int, p: int) -> Tensor:
    """Bool ``(n, (size/p)²)``: which patches the 5×5 box at ``corners`` overlaps."""
    grid = torch.arange(size) // p  # patch row/column of each pixel
    rows = torch.stack(
        [torch.isin(torch.arange(size // p), grid[r : r + 5]) for r in corners[:, 0]]
    )
    cols = torch.stack(
        [torch.isin(torch.arange(size // p), grid[c : c + 5]) for c in corners[:, 1]]
    )
    return (rows[:, :, None] & cols[:, None, :]).flatten(1)


def patchify(images: Tensor, p: int) -> Tensor:
    """``(B, C, H, W)`` → ``(B, HW/p², p²·C)``: x_p of ViT Eq. (1), patches row by row."""
    if images.dim() != 4:
        raise ValueError(f"images must be (B, C, H, W), got {tuple(images.shape)}")
    B, C, H, W = images.shape
    if p < 1 or H % p or W % p:
        raise ValueError(f"patch size {p} must divide the image size {H}×{W}")
    x = images.reshape(B, C, H // p, p, W // p, p)
    x = x.permute(0, 2, 4, 3, 5, 1)  # (B, H/p, W/p, p, p, C)
    return x.reshape(B, (H // p) * (W // p), p * p * C)


class PatchClassifier(nn.Module):
    """ViT-style: z_0 = [x_class; x_p¹E; …; x_pᴺE] + E_pos (ViT Eq. 1), N ``EncoderLayer``,
    then y = head(LN(z_L⁰)) from the ``[CLS]`` position (Eq. 4)."""

    def __init__(
        self, config: TransformerConfig, image_size: int, patch: int, n_classes: int, C: int = 1
    ) -> None:
        super().__init__()
        if image_size % patch:
            raise ValueError(f"patch size {patch} must divide the image size {image_size}")
        c = self.config = config
        self.patch, self.n_patches = patch, (image_size // patch) ** 2
        self.E = nn.Linear(patch * patch * C, c.d_model)  # patch embedding
        self.x_class = nn.Parameter(torch.zeros(1, 1, c.d_model))  # the learned [CLS]
        self.E_pos = LearnedPositionalEncoding(c.d_model, self.n_patches + 1)
        self.layers = nn.ModuleList(EncoderLayer(c) for _ in range(c.N))
        self.norm = nn.LayerNorm(c.d_model)
        self.head = nn.Linear(c.d_model, n_classes)
        _init_like_transformer(self)

    def forward(self, images: Tensor) -> tuple[Tensor, list[Tensor]]:
        """Class logits ``(B, n_classes)`` and attention ``[(B, h, 1+P, 1+P)] * N``."""
        x = self.E(patchify(images, self.patch))  # (B, P, d_model)
        if x.size(1) != self.n_patches:
            raise ValueError(f"expected {self.n_patches} patches, got {x.size(1)}")
        x = torch.cat([self.x_class.expand(x.size(0), -1, -1), x], dim=1)  # (B, 1+P, d_model)
        x = self.E_pos(x)
        weights = []
        for layer in self.layers:
            x, w = layer(x, None)  # every patch sees every patch
            weights.append(w)
        return self.head(self.norm(x[:, 0])), weights  # (B, n_classes)


# ------------------------------------------------------------------ training


@flush_denormals()
def fit(
    model: nn.Module,
    batches: Iterator[tuple[Tensor, ...]],
    loss: Callable[..., Tensor],
    steps: int,
    peak_lr: float = 3e-3,
    warmup: int = 30,
    progress: bool = True,
    desc: str = "training",
) -> dict[str, list[float]]:
    """AdamW (β = 0.9, 0.98, §5.3), linear warm-up then decay; ``loss(model, *batch)``.

    Returns the per-step ``loss`` and elapsed ``seconds``; leaves the model in eval mode.
    """
    if steps < 1:
        raise ValueError(f"steps must be >= 1, got {steps}")
    device = next(model.parameters()).device
    optimizer = torch.optim.AdamW(model.parameters(), lr=peak_lr, betas=(0.9, 0.98), eps=1e-9)
    history: dict[str, list[float]] = {"loss": [], "seconds": []}
    model.train()
    start = time.perf_counter()
    bar = tqdm(range(1, steps + 1), desc=desc, disable=not progress, mininterval=0.5)
    for step in bar:
        for group in optimizer.param_groups:
            group["lr"] = warmup_linear_decay(step, peak_lr, warmup, steps)
        value = loss(model, *(t.to(device) for t in next(batches)))
        optimizer.zero_grad(set_to_none=True)
        value.backward()
        optimizer.step()
        history["loss"].append(value.item())
        history["seconds"].append(time.perf_counter() - start)
        if step % 10 == 0:
            bar.set_postfix(loss=f"{value.item():.3f}")
    bar.close()
    model.eval()
    return history


def train_masked_lm(
    steps: int = 300,
    batch_size: int = 128,
    sentences: int = 1,
    peak_lr: float = 5e-3,
    seed: int = 0,
    device: str | torch.device = "cpu",
    progress: bool = True,
    **config_overrides,
) -> tuple[MaskedLM, dict[str, list[float]]]:
    """A tiny BERT on :class:`ZooLanguage` streams, 15% of the tokens masked per batch."""
    set_seed(seed)
    lang, g = ZooLanguage(), torch.Generator().manual_seed(seed)
    model = MaskedLM(TransformerConfig.tiny(len(lang.vocab), **config_overrides)).to(device)
    words = (len(SPECIALS), len(lang.vocab))

    def batches():
        while True:
            yield mask_tokens(lang.stream(batch_size, sentences, g), lang.mask_id, words, 0.15, g)

    history = fit(model, batches(), masked_lm_loss, steps, peak_lr, progress=progress, desc="MLM")
    return model, history


def train_causal_lm(
    steps: int = 300,
    batch_size: int = 128,
    sentences: int = 1,
    peak_lr: float = 5e-3,
    seed: int = 0,
    device: str | torch.device = "cpu",
    progress: bool = True,
    **config_overrides,
) -> tuple[CausalLM, dict[str, list[float]]]:
    """A tiny GPT on ``<bos>`` + :class:`ZooLanguage` streams (next-token prediction)."""
    set_seed(seed)
    lang, g = ZooLanguage(), torch.Generator().manual_seed(seed)
    model = CausalLM(TransformerConfig.tiny(len(lang.vocab), **config_overrides)).to(device)
    batches = iter(lambda: (lang.stream(batch_size, sentences, g, bos=True),), None)
    history = fit(model, batches, causal_lm_loss, steps, peak_lr, progress=progress, desc="GPT")
    return model, history


def classification_loss(model: PatchClassifier, images: Tensor, labels: Tensor) -> Tensor:
    logits, _ = model(images)
    return F.cross_entropy(logits, labels)


def train_patch_classifier(
    steps: int = 300,
    batch_size: int = 64,
    size: int = 16,
    patch: int = 4,
    peak_lr: float = 3e-3,
    seed: int = 0,
    device: str | torch.device = "cpu",
    progress: bool = True,
    **config_overrides,
) -> tuple[PatchClassifier, dict[str, list[float]]]:
    """A tiny pre-LN ViT on fresh :func:`shape_images` each step."""
    set_seed(seed)
    g = torch.Generator().manual_seed(seed)
    config = TransformerConfig.tiny(len(SHAPES), **{"norm_first": True, **config_overrides})
    model = PatchClassifier(config, size, patch, len(SHAPES)).to(device)
    batches = iter(lambda: shape_images(batch_size, size, generator=g)[:2], None)
    history = fit(
        model, batches, classification_loss, steps, peak_lr, progress=progress, desc="ViT"
    )
    return model, history
