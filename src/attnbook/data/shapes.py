"""Synthetic images for the ViT-style model: one of four 5×5 shapes on Gaussian noise."""

from __future__ import annotations

from typing import NamedTuple

import torch
from torch import Tensor

from attnbook.checks import check_float, check_generator, check_int, check_tensor

#: The four shapes, in label order.
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
    check_int("n", n)
    check_int("size", size, minimum=5)
    check_float("noise", noise, 0.0)
    check_generator("generator", generator)
    labels = torch.randint(len(SHAPES), (n,), generator=generator)
    corners = torch.randint(size - 4, (n, 2), generator=generator)
    images = noise * torch.randn(n, 1, size, size, generator=generator)
    offsets = torch.arange(5)
    rows = corners[:, 0, None, None] + offsets[None, :, None]  # (n, 5, 1): pixel rows
    cols = corners[:, 1, None, None] + offsets[None, None, :]  # (n, 1, 5): pixel columns
    images[torch.arange(n)[:, None, None], 0, rows, cols] += shape_stamps()[labels]  # (n, 5, 5)
    return ShapeImages(images, labels, corners)


def shape_patches(corners: Tensor, size: int, p: int) -> Tensor:
    """Bool ``(n, (size/p)²)``: which patches the 5×5 box at ``corners`` overlaps."""
    check_tensor("corners", corners, 2, "long", "(n, 2)")
    check_int("size", size, minimum=5)
    check_int("p", p)
    grid = torch.arange(size) // p  # patch row/column of each pixel
    rows = torch.stack(
        [torch.isin(torch.arange(size // p), grid[r : r + 5]) for r in corners[:, 0]]
    )
    cols = torch.stack(
        [torch.isin(torch.arange(size // p), grid[c : c + 5]) for c in corners[:, 1]]
    )
    return (rows[:, :, None] & cols[:, None, :]).flatten(1)
