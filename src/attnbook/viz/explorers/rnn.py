"""The two explorers of the RNN-bottleneck chapter: gradient decay and measured timing."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import torch
import traitlets

from attnbook.viz.explorers._base import Explorer, rounded


class GradientDecayExplorer(Explorer):
    """Move the spectral radius ρ of W_hh; see log10 ‖∂h_T/∂x_t‖ against the distance T − t.

    The curves are precomputed for a grid of ρ (for example with
    :func:`attnbook.rnn.gradient_norm_grid`); the browser only picks and draws one.
    An optional flat reference is the same quantity for one self-attention layer.
    """

    _module = "rnn_gradient_explorer"

    rhos = traitlets.List(traitlets.Float()).tag(sync=True)
    log_norms = traitlets.List(traitlets.List(traitlets.Float())).tag(sync=True)
    attention = traitlets.List(traitlets.Float()).tag(sync=True)
    index = traitlets.Int(0).tag(sync=True)

    def __init__(
        self,
        rhos: Sequence[float],
        log_norms: torch.Tensor,
        attention: torch.Tensor | None = None,
        rho: float = 1.0,
        **kwargs,
    ) -> None:
        if log_norms.dim() != 2 or log_norms.size(0) != len(rhos) or len(rhos) < 2:
            raise ValueError(
                f"log_norms must be (len(rhos), T) with at least 2 rhos; got "
                f"{tuple(log_norms.shape)} for {len(rhos)} rhos"
            )
        if not torch.isfinite(log_norms).all():
            raise ValueError("log_norms must be finite (take log10 of positive norms)")
        if attention is not None and attention.shape != (log_norms.size(1),):
            raise ValueError(
                f"attention must be one value per distance, shape ({log_norms.size(1)},), "
                f"got {tuple(attention.shape)}"
            )
        index = min(range(len(rhos)), key=lambda i: abs(rhos[i] - rho))
        super().__init__(
            rhos=[round(float(r), 4) for r in rhos],
            log_norms=rounded(log_norms, 3),
            attention=rounded(attention, 3) if attention is not None else [],
            index=index,
            **kwargs,
        )


class TimingExplorer(Explorer):
    """Move the sequence length n; see the measured forward+backward times of each layer.

    ``times`` maps a layer's label to its times in seconds, one per length, as
    the chapter's benchmark measured them; nothing is re-timed in the browser.
    """

    _module = "rnn_timing_explorer"

    lengths = traitlets.List(traitlets.Int()).tag(sync=True)
    labels = traitlets.List(traitlets.Unicode()).tag(sync=True)
    times_ms = traitlets.List(traitlets.List(traitlets.Float())).tag(sync=True)
    index = traitlets.Int(0).tag(sync=True)

    def __init__(
        self,
        lengths: Sequence[int],
        times: Mapping[str, Sequence[float]],
        n: int | None = None,
        **kwargs,
    ) -> None:
        if len(lengths) < 2 or any(b <= a for a, b in zip(lengths, lengths[1:])):
            raise ValueError(f"lengths must be at least 2 increasing values, got {list(lengths)}")
        if not times:
            raise ValueError("times needs at least one layer")
        for label, series in times.items():
            if len(series) != len(lengths):
                raise ValueError(
                    f"times[{label!r}] has {len(series)} values for {len(lengths)} lengths"
                )
            if any(not s > 0 for s in series):
                raise ValueError(f"times[{label!r}] must be positive seconds, got {list(series)}")
        n = lengths[len(lengths) // 2] if n is None else n
        if n not in lengths:
            raise ValueError(f"n={n} is not one of the measured lengths {list(lengths)}")
        ms = torch.tensor([list(s) for s in times.values()], dtype=torch.float64) * 1e3
        super().__init__(
            lengths=[int(x) for x in lengths],
            labels=list(times),
            times_ms=rounded(ms, 4),
            index=list(lengths).index(n),
            **kwargs,
        )
