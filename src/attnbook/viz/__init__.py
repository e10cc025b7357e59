"""Figures (pure matplotlib), in-browser explorers (anywidget) and the bertviz adapter.

Nothing here trains or computes a model: every function takes tensors the
package already returned.
"""

from attnbook.viz import explorers
from attnbook.viz.bertviz_adapter import head_view, model_view
from attnbook.viz.explorers import *  # noqa: F403 (every explorer and their base class)
from attnbook.viz.plots import plot_attention, plot_vectors
from attnbook.viz.record import glue
from attnbook.viz.style import use_book_style

__all__ = [
    *explorers.__all__,
    "glue",
    "head_view",
    "model_view",
    "plot_attention",
    "plot_vectors",
    "use_book_style",
]
