"""Pure plotting functions: tensors in, a matplotlib Figure out; no global settings."""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
import torch
from matplotlib.axes import Axes
from matplotlib.figure import Figure


def _as_2d(x: torch.Tensor | np.ndarray, name: str) -> np.ndarray:
    a = x.detach().cpu().numpy() if isinstance(x, torch.Tensor) else np.asarray(x)
    if a.ndim != 2:
        raise ValueError(f"{name} must be 2-D (rows, columns), got shape {a.shape}")
    return a


def _check_labels(labels: Sequence[str] | None, n: int, what: str) -> None:
    if labels is not None and len(labels) != n:
        raise ValueError(f"{len(labels)} {what} labels for {n} {what}s")


def plot_attention(
    weights: torch.Tensor | np.ndarray,
    query_tokens: Sequence[str] | None = None,
    key_tokens: Sequence[str] | None = None,
    ax: Axes | None = None,
    title: str | None = None,
    annotate: bool | None = None,
    cmap: str = "Blues",
) -> Figure:
    """Heatmap of a ``(T_q, T_k)`` attention matrix: rows are queries, columns keys.

    ``annotate`` writes each weight in its cell (default: when the matrix is small).
    """
    w = _as_2d(weights, "weights")
    _check_labels(query_tokens, w.shape[0], "query")
    _check_labels(key_tokens, w.shape[1], "key")
    if ax is None:
        size = (1.0 + 0.55 * w.shape[1], 0.8 + 0.5 * w.shape[0])
        # at most 8 inches wide: wider, the page would shrink its text below 11 px
        _, ax = plt.subplots(figsize=(min(max(size[0], 3.5), 8.0), max(size[1], 2.5)))
    image = ax.imshow(w, cmap=cmap, vmin=0.0, vmax=max(1e-12, float(w.max())), aspect="auto")
    ax.figure.colorbar(image, ax=ax, fraction=0.046, pad=0.04, label="weight")
    ax.set_xticks(range(w.shape[1]), key_tokens if key_tokens is not None else None)
    ax.set_yticks(range(w.shape[0]), query_tokens if query_tokens is not None else None)
    ax.set_xlabel("key (attended to)")
    ax.set_ylabel("query (attending)")
    ax.tick_params(axis="x", labelrotation=45)
    if annotate is None:
        annotate = w.size <= 100
    if annotate:
        for i, j in np.ndindex(*w.shape):
            dark = w[i, j] > 0.6 * w.max()
            ax.text(
                j,
                i,
                f"{w[i, j]:.2f}",
                ha="center",
                va="center",
                fontsize=9,
                color="white" if dark else "black",
            )
    if title:
        ax.set_title(title)
    return ax.figure


def plot_vectors(
    vectors: torch.Tensor | np.ndarray,
    row_labels: Sequence[str] | None = None,
    ax: Axes | None = None,
    title: str | None = None,
    xlabel: str = "dimension",
    cmap: str = "RdBu_r",
    column_labels: Sequence[str] | None = None,
) -> Figure:
    """Rows of vectors (embeddings, queries, outputs, raw scores…) as a diverging heatmap.

    The colour scale is centred on 0; columns are numbered unless ``column_labels`` are given.
    """
    x = _as_2d(vectors, "vectors")
    _check_labels(row_labels, x.shape[0], "row")
    _check_labels(column_labels, x.shape[1], "column")
    if ax is None:
        _, ax = plt.subplots(figsize=(max(3.5, 1.2 + 0.45 * x.shape[1]), 0.8 + 0.45 * x.shape[0]))
    limit = max(1e-12, float(np.abs(x).max()))
    image = ax.imshow(x, cmap=cmap, vmin=-limit, vmax=limit, aspect="auto")
    ax.figure.colorbar(image, ax=ax, fraction=0.046, pad=0.04, label="value")
    ax.set_yticks(range(x.shape[0]), row_labels if row_labels is not None else None)
    ax.set_xticks(range(x.shape[1]), column_labels)
    ax.set_xlabel(xlabel)
    if title:
        ax.set_title(title)
    return ax.figure
