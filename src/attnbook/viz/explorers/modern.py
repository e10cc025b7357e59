"""The explorer of the chapter on modern Transformers: where a ViT's [CLS] token looks."""

from __future__ import annotations

from collections.abc import Sequence

import torch
import traitlets

from attnbook.viz.explorers._base import Explorer, rounded


class PatchAttentionExplorer(Explorer):
    """Pick an image, a layer and a head; see the [CLS] token's attention over the patches.

    Python hands over the images and, for each image, layer and head, the row of the
    attention matrix that belongs to the [CLS] query (its weights on the P patches;
    the weight [CLS] keeps on itself is left out and reported). The browser draws the
    image with each patch tinted by its weight, and the weights as bars.
    """

    _module = "modern_explorer"

    images = traitlets.List(traitlets.List(traitlets.List(traitlets.Float()))).tag(sync=True)
    cls = traitlets.List().tag(sync=True)  # (n, N, h, 1 + P): [CLS] row per layer and head
    labels = traitlets.List(traitlets.Unicode()).tag(sync=True)
    predictions = traitlets.List(traitlets.Unicode()).tag(sync=True)
    marked = traitlets.List(traitlets.List(traitlets.Int())).tag(sync=True)  # (n, P) 0/1
    patch = traitlets.Int(4).tag(sync=True)
    image = traitlets.Int(0).tag(sync=True)
    layer = traitlets.Int(0).tag(sync=True)
    head = traitlets.Int(-1).tag(sync=True)  # -1: the mean over heads

    def __init__(
        self,
        images: torch.Tensor,
        attention: Sequence[torch.Tensor],
        labels: Sequence[str],
        predictions: Sequence[str],
        marked: torch.Tensor,
        patch: int,
        **kwargs,
    ) -> None:
        if images.dim() == 4 and images.size(1) == 1:
            images = images[:, 0]  # (n, H, W): one channel
        if images.dim() != 3:
            raise ValueError(f"images must be (n, H, W) or (n, 1, H, W), got {tuple(images.shape)}")
        n, H, W = images.shape
        if patch < 1 or H % patch or W % patch:
            raise ValueError(f"patch size {patch} must divide the image size {H}×{W}")
        P = (H // patch) * (W // patch)
        for i, w in enumerate(attention):
            if w.dim() != 4 or w.size(0) != n or w.shape[-2:] != (P + 1, P + 1):
                raise ValueError(
                    f"attention[{i}] must be (n={n}, h, {P + 1}, {P + 1}), got {tuple(w.shape)}"
                )
        if not (len(labels) == len(predictions) == n) or tuple(marked.shape) != (n, P):
            raise ValueError(
                f"need {n} labels, {n} predictions and marked (n, P) = ({n}, {P}); got "
                f"{len(labels)}, {len(predictions)}, {tuple(marked.shape)}"
            )
        cls = torch.stack([w[:, :, 0, :] for w in attention], dim=1)  # (n, N, h, 1 + P)
        super().__init__(
            images=rounded(images, 2),
            cls=rounded(cls, 4),
            labels=list(labels),
            predictions=list(predictions),
            marked=marked.int().tolist(),
            patch=patch,
            **kwargs,
        )
