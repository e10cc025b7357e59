"""Figures (pure matplotlib), in-browser explorers (anywidget) and the bertviz adapter.

Nothing here trains or computes a model: every function takes tensors the
package already returned.
"""

from attnbook.viz.bertviz_adapter import head_view, model_view
from attnbook.viz.explorers import (
    AttentionExplorer,
    CrossAttentionExplorer,
    Explorer,
    GradientDecayExplorer,
    HeadsExplorer,
    PatchAttentionExplorer,
    PECurvesExplorer,
    PEHeatmapExplorer,
    PERotationExplorer,
    QuantizationExplorer,
    ScalingExplorer,
    ScheduleExplorer,
    SmoothingExplorer,
    SparsityExplorer,
    TimingExplorer,
)
from attnbook.viz.plots import plot_attention, plot_vectors
from attnbook.viz.record import glue

__all__ = [
    "AttentionExplorer",
    "CrossAttentionExplorer",
    "Explorer",
    "GradientDecayExplorer",
    "HeadsExplorer",
    "PatchAttentionExplorer",
    "PECurvesExplorer",
    "PEHeatmapExplorer",
    "PERotationExplorer",
    "QuantizationExplorer",
    "ScalingExplorer",
    "ScheduleExplorer",
    "SmoothingExplorer",
    "SparsityExplorer",
    "TimingExplorer",
    "glue",
    "head_view",
    "model_view",
    "plot_attention",
    "plot_vectors",
]
