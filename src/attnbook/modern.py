"""What came after the paper: encoder-only, decoder-only and vision Transformers.

Each model is a few lines on top of :mod:`attnbook.model`'s blocks:

- :class:`MaskedLM` (BERT-style, Devlin et al. 2019): ``Embedding`` → an ``Encoder``
  with no mask → vocabulary logits, trained to fill in masked tokens;
- :class:`CausalLM` (GPT-style, Radford et al. 2018): the *same* stack with
  ``causal_mask(T)`` — a decoder-only model is an encoder stack that cannot look ahead —
  trained to predict the next token;
- :class:`PatchClassifier` (ViT-style, Dosovitskiy et al. 2021): image patches →
  ``Linear`` → ``[CLS]`` + learned positions → an ``Encoder`` → class logits.

They learn from the synthetic data of :mod:`attnbook.data.zoo` (a nine-token language with
agreement) and :mod:`attnbook.data.shapes`, and train with :func:`attnbook.train.fit`.
Every forward pass returns its attention weights as values, one ``(B, h, T, T)`` per layer.
"""

from __future__ import annotations

import os

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from attnbook.attention import causal_mask
from attnbook.checks import check_float, check_generator, check_ids, check_int, check_tensor
from attnbook.data.shapes import SHAPES, shape_images
from attnbook.data.vocab import IGNORE_INDEX
from attnbook.data.zoo import ZOO_SPECIALS, ZooLanguage, mask_tokens
from attnbook.model import Embedding, Encoder, TransformerConfig, init_parameters
from attnbook.positional import LearnedPositionalEncoding
from attnbook.train import History, fit, warmup_linear_decay
from attnbook.utils import set_seed

# ------------------------------------------------------------------ the text models


class TransformerLM(nn.Module):
    """Token ids → ``Embedding`` → ``Encoder`` (N ``EncoderLayer``) → logits over the vocabulary.

    ``causal=False``: every position sees every other (encoder-only, BERT).
    ``causal=True``: position i sees j ≤ i (decoder-only, GPT) — the mask of §3.2.3.
    """

    def __init__(self, config: TransformerConfig, causal: bool) -> None:
        super().__init__()
        if not isinstance(config, TransformerConfig):
            raise TypeError(f"config must be a TransformerConfig, got {config!r}")
        c = self.config = config
        self.causal = causal
        self.embed = Embedding(c.src_vocab, c)
        self.encoder = Encoder(c)
        self.head = nn.Linear(c.d_model, c.src_vocab)  # pre-softmax projection
        init_parameters(self)

    def forward(self, ids: Tensor, need_weights: bool = True) -> tuple[Tensor, list[Tensor]]:
        """Logits ``(B, T, vocab)`` and per-layer attention ``[(B, h, T, T)] * N`` (an
        empty list with ``need_weights=False``)."""
        check_ids("ids", ids, self.config.src_vocab)
        if not 1 <= ids.size(1) <= self.config.max_len:
            raise ValueError(
                f"ids of shape {tuple(ids.shape)}: length must be 1 … max_len={self.config.max_len}"
            )
        x = self.embed(ids)  # (B, T, d_model)
        mask = causal_mask(ids.size(1), device=ids.device) if self.causal else None
        x, weights = self.encoder(x, mask, need_weights)  # (B, T, d_model), [(B, h, T, T)]
        return self.head(x), weights


class MaskedLM(TransformerLM):
    """Encoder-only (BERT-style): no attention mask."""

    def __init__(self, config: TransformerConfig) -> None:
        super().__init__(config, causal=False)


class CausalLM(TransformerLM):
    """Decoder-only (GPT-style): the encoder stack under ``causal_mask(T)``."""

    def __init__(self, config: TransformerConfig) -> None:
        super().__init__(config, causal=True)


def masked_lm_loss(model: TransformerLM, inputs: Tensor, targets: Tensor) -> Tensor:
    """Cross-entropy on the chosen positions only (``targets != IGNORE_INDEX``)."""
    check_tensor("targets", targets, 2, "long", "(B, T)")
    if targets.shape != inputs.shape:
        raise ValueError(
            f"inputs and targets must have one shape, got {tuple(inputs.shape)} "
            f"and {tuple(targets.shape)}"
        )
    logits, _ = model(inputs, need_weights=False)
    return F.cross_entropy(logits.flatten(0, 1), targets.flatten(), ignore_index=IGNORE_INDEX)


def causal_lm_loss(model: TransformerLM, ids: Tensor) -> Tensor:
    """Mean −log p(x_{t+1} | x_{≤t}) in nats: predict ``ids[:, 1:]`` from ``ids[:, :-1]``."""
    check_tensor("ids", ids, 2, "long", "(B, T)")
    if ids.size(1) < 2:
        raise ValueError(f"ids must hold at least 2 tokens per row, got shape {tuple(ids.shape)}")
    logits, _ = model(ids[:, :-1], need_weights=False)
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
    if not isinstance(model, TransformerLM):
        raise TypeError(f"model must be a CausalLM, got {type(model).__name__}")
    if not model.causal:
        raise ValueError("sampling needs a causal model: a MaskedLM sees the future in training")
    check_ids("prompt", prompt, model.config.src_vocab)
    check_int("steps", steps, minimum=0)
    check_float("temperature", temperature, 0.0, low_open=True)
    check_generator("generator", generator)
    model.eval()
    ids = prompt
    for _ in range(steps):
        logits, _ = model(ids, need_weights=False)
        probs = torch.softmax(logits[:, -1] / temperature, dim=-1)  # (B, vocab)
        nxt = torch.multinomial(probs.cpu(), 1, generator=generator).to(ids.device)
        ids = torch.cat([ids, nxt], dim=1)
    return ids  # (B, T_0 + steps)


# ------------------------------------------------------------------ images


def patchify(images: Tensor, p: int) -> Tensor:
    """``(B, C, H, W)`` → ``(B, HW/p², p²·C)``: x_p of ViT Eq. (1), patches row by row."""
    check_tensor("images", images, 4, hint="(B, C, H, W)")
    check_int("p", p)
    B, C, H, W = images.shape
    if H % p or W % p:
        raise ValueError(f"patch size {p} must divide the image size {H}×{W}")
    x = images.reshape(B, C, H // p, p, W // p, p)
    x = x.permute(0, 2, 4, 3, 5, 1)  # (B, H/p, W/p, p, p, C)
    return x.reshape(B, (H // p) * (W // p), p * p * C)


class PatchClassifier(nn.Module):
    """ViT-style: z_0 = [x_class; x_p¹E; …; x_pᴺE] + E_pos (ViT Eq. 1), an ``Encoder`` of N
    ``EncoderLayer``, then y = head(LN(z_L⁰)) from the ``[CLS]`` position (Eq. 4).

    With a pre-LN config (ViT's, and :func:`train_patch_classifier`'s) the LN of Eq. 4 is
    the encoder's final LayerNorm; post-LN layers already end with one.
    """

    def __init__(
        self, config: TransformerConfig, image_size: int, patch: int, n_classes: int, C: int = 1
    ) -> None:
        super().__init__()
        if not isinstance(config, TransformerConfig):
            raise TypeError(f"config must be a TransformerConfig, got {config!r}")
        for name, value in (
            ("image_size", image_size),
            ("patch", patch),
            ("n_classes", n_classes),
            ("C", C),
        ):
            check_int(name, value)
        if image_size % patch:
            raise ValueError(f"patch size {patch} must divide the image size {image_size}")
        c = self.config = config
        self.patch, self.n_patches, self.C = patch, (image_size // patch) ** 2, C
        self.E = nn.Linear(patch * patch * C, c.d_model)  # patch embedding
        self.x_class = nn.Parameter(torch.zeros(1, 1, c.d_model))  # the learned [CLS]
        self.E_pos = LearnedPositionalEncoding(c.d_model, self.n_patches + 1)
        self.encoder = Encoder(c)
        self.head = nn.Linear(c.d_model, n_classes)
        init_parameters(self)

    def forward(self, images: Tensor, need_weights: bool = True) -> tuple[Tensor, list[Tensor]]:
        """Class logits ``(B, n_classes)`` and attention ``[(B, h, 1+P, 1+P)] * N`` (an empty
        list with ``need_weights=False``)."""
        check_tensor("images", images, 4, "float", f"(B, C={self.C}, H, W)")
        if images.size(1) != self.C:
            raise ValueError(
                f"images must have C={self.C} channels, got shape {tuple(images.shape)}"
            )
        x = self.E(patchify(images, self.patch))  # (B, P, d_model)
        if x.size(1) != self.n_patches:
            raise ValueError(
                f"images of shape {tuple(images.shape)} give {x.size(1)} patches, "
                f"expected {self.n_patches}"
            )
        x = torch.cat([self.x_class.expand(x.size(0), -1, -1), x], dim=1)  # (B, 1+P, d_model)
        x, weights = self.encoder(self.E_pos(x), None, need_weights)  # every patch sees all
        return self.head(x[:, 0]), weights  # (B, n_classes)


# ------------------------------------------------------------------ training


def train_language_model(
    kind: str,
    steps: int = 300,
    batch_size: int = 128,
    sentences: int = 1,
    peak_lr: float = 5e-3,
    seed: int = 0,
    device: str | torch.device = "cpu",
    progress: bool = True,
    **config_overrides,
) -> tuple[TransformerLM, History]:
    """A tiny BERT (``kind="masked"``: 15% of the tokens masked per batch) or GPT
    (``kind="causal"``: next-token prediction after ``<bos>``) on fresh
    :class:`~attnbook.data.zoo.ZooLanguage` streams of ``sentences`` sentences.

    ``config_overrides`` change ``TransformerConfig.tiny`` (d_model, N, …).
    """
    if kind not in ("masked", "causal"):
        raise ValueError(f"kind must be 'masked' or 'causal', got {kind!r}")
    set_seed(seed)
    lang, g = ZooLanguage(), torch.Generator().manual_seed(seed)
    config = TransformerConfig.tiny(len(lang.vocab), **config_overrides)
    words = (len(ZOO_SPECIALS), len(lang.vocab))
    if kind == "masked":
        model: TransformerLM = MaskedLM(config).to(device)

        def masked_batches():
            while True:
                yield mask_tokens(
                    lang.stream(batch_size, sentences, g), lang.mask_id, words, 0.15, g
                )

        batches, loss_fn = masked_batches(), lambda m, b: masked_lm_loss(m, *b)
    else:
        model = CausalLM(config).to(device)
        batches = iter(lambda: lang.stream(batch_size, sentences, g, bos=True), None)
        loss_fn = causal_lm_loss
    desc = "MLM" if kind == "masked" else "GPT"
    return model, _fit(model, batches, loss_fn, steps, peak_lr, progress, desc)


def train_masked_lm(**kwargs) -> tuple[MaskedLM, History]:
    """:func:`train_language_model` with ``kind="masked"``: a tiny BERT."""
    return train_language_model("masked", **kwargs)


def train_causal_lm(**kwargs) -> tuple[CausalLM, History]:
    """:func:`train_language_model` with ``kind="causal"``: a tiny GPT."""
    return train_language_model("causal", **kwargs)


def classification_loss(model: PatchClassifier, images: Tensor, labels: Tensor) -> Tensor:
    """Cross-entropy of the class logits against ``labels`` ``(B,)``."""
    check_tensor("labels", labels, 1, "long", "(B,)")
    logits, _ = model(images, need_weights=False)
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
) -> tuple[PatchClassifier, History]:
    """A tiny pre-LN ViT on fresh :func:`~attnbook.data.shapes.shape_images` each step."""
    set_seed(seed)
    g = torch.Generator().manual_seed(seed)
    config = TransformerConfig.tiny(len(SHAPES), **{"norm_first": True, **config_overrides})
    model = PatchClassifier(config, size, patch, len(SHAPES)).to(device)
    batches = iter(lambda: shape_images(batch_size, size, generator=g)[:2], None)
    history = _fit(
        model, batches, lambda m, b: classification_loss(m, *b), steps, peak_lr, progress, "ViT"
    )
    return model, history


def _progress(progress: bool) -> bool:
    """``progress``, unless the environment sets ``TQDM_DISABLE`` (as the book's build does):
    tqdm reads that variable only for a bar whose ``disable`` is not passed explicitly."""
    return progress and os.environ.get("TQDM_DISABLE", "").strip().lower() in ("", "0", "false")


def _fit(model, batches, loss_fn, steps, peak_lr, progress, desc) -> History:
    """The chapter's runs: AdamW (β = 0.9, 0.98, §5.3; λ = 0.01), 30 warm-up steps, then
    linear decay to 0."""
    check_float("peak_lr", peak_lr, 0.0, low_open=True)
    return fit(
        model,
        batches,
        loss_fn,
        steps,
        lambda s: warmup_linear_decay(s, peak_lr, 30, steps),
        optimizer="adamw",
        weight_decay=0.01,
        progress=_progress(progress),
        desc=desc,
    )
