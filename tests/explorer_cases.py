"""One small, realistic instance of every explorer (shapes and sizes as the chapters use).

Shared by the explorer tests (bundles, parity in node, the browser check). The inputs are
seeded synthetic tensors with the chapters' shapes, so these tests need no training.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch

from attnbook import viz


def _gen(seed: int = 0) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def attention_inputs() -> tuple[list[str], torch.Tensor, torch.Tensor, torch.Tensor]:
    """Chapter 2's sentence: tokens and their Q, K, V, each (T, 4)."""
    g = _gen()
    tokens = ["the", "cat", "sat", "on", "the", "mat"]
    X = torch.randn(6, 8, generator=g)  # (T, d_model)
    W_Q, W_K, W_V = (torch.randn(8, 4, generator=g) / math.sqrt(8) for _ in range(3))
    return tokens, X @ W_Q, X @ W_K, X @ W_V


def attention() -> viz.AttentionExplorer:
    return viz.AttentionExplorer(*attention_inputs(), query=1)


def scaling() -> viz.ScalingExplorer:
    g = _gen(5)
    q, K = torch.randn(1024, generator=g), torch.randn(16, 1024, generator=g)
    return viz.ScalingExplorer(q, K, d_k=16, scaling="none")


def heads() -> viz.HeadsExplorer:
    g = _gen(3)
    h, T, d_model = 4, 16, 32
    scores = torch.randn(h, T, T, generator=g).masked_fill(~torch.ones(T, T).tril().bool(), -1e9)
    weights = torch.softmax(scores, -1)  # (h, T, T), causal
    tokens = [str(int(x)) for x in torch.randint(0, 16, (T,), generator=g)]
    tokens[4] += "*"
    predictions = [[str((s * 7 + i) % 16) for i in range(T)] for s in range(2**h - 1)]
    targets = ["" if i < 5 else predictions[-1][i] for i in range(T)]
    contributions = torch.randn(h, T, d_model, generator=g)
    return viz.HeadsExplorer(tokens, weights, contributions, predictions, targets, query=7, heads=1)


def cross_attention() -> viz.CrossAttentionExplorer:
    g = _gen(6)
    sources = [list("29 November 2026"), list("2026/11/29"), list("Sunday, Nov 29 2026")]
    outputs = [list("2026-11-29") + ["⏎"] for _ in sources]
    weights = [torch.softmax(3 * torch.randn(2, 4, 11, len(s), generator=g), -1) for s in sources]
    return viz.CrossAttentionExplorer(sources, outputs, weights)


def patches() -> viz.PatchAttentionExplorer:
    g = _gen(7)
    n, P = 8, 16
    images = torch.zeros(n, 16, 16)
    marked = torch.zeros(n, P, dtype=torch.int64)
    for i in range(n):  # a filled square somewhere in each image
        r, c = (int(v) for v in torch.randint(0, 9, (2,), generator=g))
        images[i, r : r + 7, c : c + 7] = 1.0
        for p in range(P):
            pr, pc = divmod(p, 4)
            marked[i, p] = int(
                r < 4 * pr + 4 and r + 7 > 4 * pr and c < 4 * pc + 4 and c + 7 > 4 * pc
            )
    images += 0.1 * torch.randn(n, 16, 16, generator=g)
    attention = [torch.softmax(2 * torch.randn(n, 4, P + 1, P + 1, generator=g), -1) for _ in "ab"]
    labels = ["square", "circle", "cross", "triangle"] * 2
    return viz.PatchAttentionExplorer(images, attention, labels, labels[::-1], marked, patch=4)


def gradient_decay() -> viz.GradientDecayExplorer:
    rhos = [round(0.5 + 0.1 * i, 1) for i in range(21)]
    distance = torch.arange(100, dtype=torch.float64)
    # log10 norms that fall (ρ < 1) or rise (ρ > 1) with the distance, tanh capping the rise
    grid = torch.stack([torch.clamp(distance * 0.4 * math.log10(r), max=3.0) - 0.5 for r in rhos])
    attention = -1.0 + 0.01 * torch.sin(distance)
    return viz.GradientDecayExplorer(rhos, grid, attention=attention, rho=1.0)


def timing() -> viz.TimingExplorer:
    lengths = [16, 32, 64, 128, 256, 512]
    times = {
        "RNN (explicit loop)": [2e-3 * n / 16 for n in lengths],
        "LSTM (nn.LSTM)": [4e-4 * n / 16 for n in lengths],
        "self-attention (1 layer)": [2e-4 * (1 + (n / 64) ** 2) for n in lengths],
    }
    return viz.TimingExplorer(lengths, times, n=128)


def quantization() -> viz.QuantizationExplorer:
    g = _gen(9)
    names = ["encoder.0.self_attn.W_Q", "encoder.0.ffn.W_1", "decoder.1.ffn.W_1", "generator"]
    rows = {
        name: 0.2 * torch.randn(8, 32 if i % 2 else 128, generator=g)
        for i, name in enumerate(names)
    }
    accuracy = {b: a for b, a in zip(range(2, 9), [0.0, 0.12, 0.71, 0.95, 0.99, 1.0, 1.0])}
    return viz.QuantizationExplorer(rows, accuracy, bits=4)


CASES: dict[str, Callable[[], viz.Explorer]] = {
    "attention": attention,
    "scaling": scaling,
    "heads": heads,
    "pe_curves": lambda: viz.PECurvesExplorer(d_model=64, max_len=100, pos=10, dim=4),
    "pe_heatmap": lambda: viz.PEHeatmapExplorer(d_model=64, max_len=60),
    "pe_rotation": lambda: viz.PERotationExplorer(d_model=16, pos=2, k=3),
    "cross_attention": cross_attention,
    "schedule": lambda: viz.ScheduleExplorer(d_model=512, warmup=4000, steps=100_000),
    "smoothing": lambda: viz.SmoothingExplorer(epsilon=0.1, V=40),
    "sparsity": lambda: viz.SparsityExplorer(n=64, window=4, block=8, layout="local band"),
    "quantization": quantization,
    "patches": patches,
    "gradient_decay": gradient_decay,
    "timing": timing,
}
