"""The explorers of the positional-encoding chapter (§3.5 of the paper).

Sines and cosines are cheap, so Python only checks and stores the few sizes a reader
starts from; the browser evaluates PE(pos, 2i) = sin(pos/base^(2i/d_model)) and
PE(pos, 2i+1) = cos(pos/base^(2i/d_model)) itself, exactly as
:func:`attnbook.positional.sinusoidal_encoding` does.
"""

from __future__ import annotations

import traitlets

from attnbook.positional import LAYOUTS
from attnbook.viz.explorers._base import Explorer


def _check_even_d_model(d_model: int) -> None:
    if not isinstance(d_model, int) or d_model < 2:
        raise ValueError(f"d_model must be an int ≥ 2, got {d_model!r}")
    if d_model % 2:
        raise ValueError(f"d_model={d_model} is odd: each frequency needs a sin and a cos")


def _check_index(name: str, value: int, low: int, high: int) -> None:
    if not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"{name} must be an int in {low}..{high}, got {value!r}")


def _check_base(base: float, table_layout: str = "interleaved") -> None:
    if table_layout not in LAYOUTS:
        raise ValueError(f"table_layout must be one of {LAYOUTS}, got {table_layout!r}")
    if not isinstance(base, (int, float)) or not base > 1:
        raise ValueError(f"base must be a number greater than 1, got {base!r}")


def _check_table(
    d_model: int, max_len: int, max_len_limit: int, table_layout: str, base: float
) -> None:
    _check_even_d_model(d_model)
    _check_index("max_len", max_len, 2, max_len_limit)
    _check_base(base, table_layout)


class _PETableExplorer(Explorer):
    """The traits of an explorer of the whole table PE: its size, its layout and its base."""

    d_model = traitlets.Int(64).tag(sync=True)
    max_len = traitlets.Int(100).tag(sync=True)
    base = traitlets.Float(10000.0).tag(sync=True)
    # not "layout": every ipywidget already has a ``layout`` trait (its CSS Layout model)
    table_layout = traitlets.Unicode("interleaved").tag(sync=True)


class PECurvesExplorer(_PETableExplorer):
    """Position and dimension sliders → that dimension's curve over positions, and PE(pos).

    The top panel draws PE(·, dim) (and its sin/cos partner, dashed) for positions
    0 … max_len−1 with a marker at ``pos``; the bottom strip is the whole vector PE(pos),
    one coloured cell per dimension. A picker switches between the paper's interleaved
    layout and the concatenated one (``table_layout``: the ``layout`` argument of
    :func:`attnbook.positional.sinusoidal_encoding`).
    """

    _module = "pe_curves"

    pos = traitlets.Int(10).tag(sync=True)
    dim = traitlets.Int(4).tag(sync=True)

    def __init__(
        self,
        d_model: int = 64,
        max_len: int = 100,
        pos: int = 10,
        dim: int = 4,
        table_layout: str = "interleaved",
        base: float = 10000.0,
        **kwargs,
    ) -> None:
        _check_table(d_model, max_len, 2000, table_layout, base)
        _check_index("pos", pos, 0, max_len - 1)
        _check_index("dim", dim, 0, d_model - 1)
        super().__init__(
            d_model=d_model,
            max_len=max_len,
            pos=pos,
            dim=dim,
            table_layout=table_layout,
            base=float(base),
            **kwargs,
        )


class PERotationExplorer(Explorer):
    """Offset k slider → M_k turning every (sin, cos) pair of PE(pos) into PE(pos + k).

    One small panel per pair i: the unit circle, the point (PE(pos, 2i), PE(pos, 2i+1)),
    the point M_k moves it to and the arc between (angle k·ω_i, clockwise, the same for
    every pos). A second slider moves pos to show that the angle does not depend on it.
    """

    _module = "pe_rotation"

    d_model = traitlets.Int(16).tag(sync=True)
    base = traitlets.Float(10000.0).tag(sync=True)
    pos = traitlets.Int(2).tag(sync=True)
    k = traitlets.Int(1).tag(sync=True)
    k_max = traitlets.Int(50).tag(sync=True)
    pos_max = traitlets.Int(100).tag(sync=True)

    def __init__(
        self,
        d_model: int = 16,
        pos: int = 2,
        k: int = 1,
        k_max: int = 50,
        pos_max: int = 100,
        base: float = 10000.0,
        **kwargs,
    ) -> None:
        _check_even_d_model(d_model)
        if d_model > 32:
            raise ValueError(f"d_model={d_model}: at most 32 (16 pairs) fit on the page")
        _check_index("k_max", k_max, 1, 10000)
        _check_index("k", k, -k_max, k_max)
        _check_index("pos_max", pos_max, 1, 10000)
        _check_index("pos", pos, 0, pos_max)
        _check_base(base)
        super().__init__(
            d_model=d_model,
            pos=pos,
            k=k,
            k_max=k_max,
            pos_max=pos_max,
            base=float(base),
            **kwargs,
        )


class PEHeatmapExplorer(_PETableExplorer):
    """d_model slider → the (max_len, d_model) table PE as a heatmap, recomputed in the browser.

    A picker switches ``table_layout`` between interleaved and concatenated.
    """

    _module = "pe_heatmap"

    d_model_min = traitlets.Int(4).tag(sync=True)
    d_model_max = traitlets.Int(128).tag(sync=True)

    def __init__(
        self,
        d_model: int = 64,
        max_len: int = 60,
        d_model_min: int = 4,
        d_model_max: int = 128,
        table_layout: str = "interleaved",
        base: float = 10000.0,
        **kwargs,
    ) -> None:
        _check_table(d_model, max_len, 200, table_layout, base)
        _check_even_d_model(d_model_min)
        _check_even_d_model(d_model_max)
        if not d_model_min <= d_model <= d_model_max:
            raise ValueError(
                f"d_model={d_model} is outside the slider's range {d_model_min}..{d_model_max}"
            )
        super().__init__(
            d_model=d_model,
            max_len=max_len,
            d_model_min=d_model_min,
            d_model_max=d_model_max,
            table_layout=table_layout,
            base=float(base),
            **kwargs,
        )
