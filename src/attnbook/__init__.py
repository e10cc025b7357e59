"""attnbook: the small PyTorch package behind *Attention, Explained*.

One module per idea of "Attention Is All You Need" (Vaswani et al., 2017).
Importing it has no side effects: no seeding, no plotting settings.
Plots and explorers live in :mod:`attnbook.viz`, imported on its own.
"""

from importlib.metadata import PackageNotFoundError, version

from attnbook.attention import (
    MultiHeadAttention,
    causal_mask,
    masked_softmax,
    padding_mask,
    scaled_dot_product_attention,
)
from attnbook.decode import beam_search, greedy_decode, translate
from attnbook.model import Transformer, TransformerConfig, load_checkpoint, save_checkpoint
from attnbook.train import History, fit
from attnbook.utils import default_device, set_seed

try:
    __version__ = version("attnbook")  # typed once, in pyproject.toml
except PackageNotFoundError:  # imported from a source tree that was never installed
    __version__ = "0+unknown"

__all__ = [
    "History",
    "MultiHeadAttention",
    "Transformer",
    "TransformerConfig",
    "__version__",
    "beam_search",
    "causal_mask",
    "default_device",
    "fit",
    "greedy_decode",
    "load_checkpoint",
    "masked_softmax",
    "padding_mask",
    "save_checkpoint",
    "scaled_dot_product_attention",
    "set_seed",
    "translate",
]
