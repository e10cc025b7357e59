"""attnbook: the small PyTorch package behind *Attention, Explained*.

One module per idea of "Attention Is All You Need" (Vaswani et al., 2017).
Importing it has no side effects: no seeding, no plotting settings.
Plots and explorers live in :mod:`attnbook.viz`, imported on its own.
"""

from attnbook.attention import (
    MultiHeadAttention,
    causal_mask,
    padding_mask,
    scaled_dot_product_attention,
)
from attnbook.utils import default_device, set_seed

__version__ = "0.1.0"

__all__ = [
    "MultiHeadAttention",
    "causal_mask",
    "default_device",
    "padding_mask",
    "scaled_dot_product_attention",
    "set_seed",
]
