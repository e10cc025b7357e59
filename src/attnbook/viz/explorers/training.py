"""The explorers of the training chapter: the learning-rate schedule and label smoothing.

Both are computed entirely in the browser from a handful of numbers: the state is the
sliders' starting values.
"""

from __future__ import annotations

import traitlets

from attnbook.viz.explorers._base import Explorer

D_MODELS = (64, 128, 256, 512, 768, 1024, 2048, 4096)


class ScheduleExplorer(Explorer):
    """Pick d_model and warmup; see lrate = d_model^-0.5 · min(step^-0.5, step · warmup^-1.5)
    (Eq. 3, §5.3) over ``steps`` training steps, beside the paper's base setting
    (d_model = 512, warmup = 4000, dashed)."""

    _module = "schedule_explorer"

    d_model = traitlets.Int(512).tag(sync=True)
    warmup = traitlets.Int(4000).tag(sync=True)
    steps = traitlets.Int(100_000).tag(sync=True)
    d_models = traitlets.List(traitlets.Int()).tag(sync=True)

    def __init__(
        self, d_model: int = 512, warmup: int = 4000, steps: int = 100_000, **kwargs
    ) -> None:
        if d_model not in D_MODELS:
            raise ValueError(f"d_model must be one of {D_MODELS}, got {d_model!r}")
        if not isinstance(warmup, int) or not 100 <= warmup <= 16_000:
            raise ValueError(f"warmup must be an int in 100..16000, got {warmup!r}")
        if not isinstance(steps, int) or steps < 2 * warmup:
            raise ValueError(f"steps must be an int >= 2 · warmup = {2 * warmup}, got {steps!r}")
        super().__init__(
            d_model=d_model, warmup=warmup, steps=steps, d_models=list(D_MODELS), **kwargs
        )


class SmoothingExplorer(Explorer):
    """Pick ε and the number of classes V; see the smoothed target
    q'(k) = (1 − ε) δ_{k,y} + ε / V (§5.4) and the loss H(q', p) as a function of the
    logit margin of p, whose minimum (p = q') is finite once ε > 0."""

    _module = "smoothing_explorer"

    epsilon = traitlets.Float(0.1).tag(sync=True)
    V = traitlets.Int(50).tag(sync=True)

    def __init__(self, epsilon: float = 0.1, V: int = 50, **kwargs) -> None:
        if not 0.0 <= epsilon <= 0.5:
            raise ValueError(f"epsilon must be in [0, 0.5], got {epsilon!r}")
        if not isinstance(V, int) or not 2 <= V <= 100:
            raise ValueError(f"V must be an int in 2..100, got {V!r}")
        super().__init__(epsilon=float(epsilon), V=V, **kwargs)
