"""Explorers: anywidgets whose redrawing runs in the browser.

Python computes the few numbers the browser needs and puts them in synced
traits; each widget's small ES module (in ``viz/js/``) draws and redraws from
them. The widget state is saved with the notebook, so the same explorer works on
the static book site (no kernel), in Colab and in JupyterLab.

Every explorer is an :class:`Explorer`: it names its module and declares its traits;
the module imports the shared helpers of ``js/base.js`` (scaffold, controls bound to
traits, scales, theme, text alternative, keyboard), bundled into one ES module.
"""

from attnbook.viz.explorers._base import Explorer
from attnbook.viz.explorers.attention import AttentionExplorer
from attnbook.viz.explorers.compress import QuantizationExplorer
from attnbook.viz.explorers.cross_attention import CrossAttentionExplorer
from attnbook.viz.explorers.efficient import SparsityExplorer
from attnbook.viz.explorers.heads import HeadsExplorer
from attnbook.viz.explorers.modern import PatchAttentionExplorer
from attnbook.viz.explorers.positional import (
    PECurvesExplorer,
    PEHeatmapExplorer,
    PERotationExplorer,
)
from attnbook.viz.explorers.rnn import GradientDecayExplorer, TimingExplorer
from attnbook.viz.explorers.scaling import ScalingExplorer
from attnbook.viz.explorers.training import ScheduleExplorer, SmoothingExplorer
from attnbook.viz.explorers.translator import TranslatorExplorer

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
    "TranslatorExplorer",
]
