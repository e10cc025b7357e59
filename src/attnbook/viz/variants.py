"""One figure, drawn for every screen: light and dark, for a wide column and for a phone.

A chapter draws each figure once, for a light page and a laptop's column. This module draws
the same figure again, with the same data:

- **dark** (:func:`dark_colors`): the background and the ink follow a dark page. Greys are
  mirrored in lightness (white paper becomes the dark page, black ink light ink), coloured
  lines and markers are lifted so they stand out on the dark, pale fills become dark tints,
  and a colour map that runs through white (``Blues``, ``RdBu``) is mirrored in lightness
  too, so high values stay the ones that stand out. Text drawn on a cell keeps its contrast:
  a cell's colour and its label's colour are mirrored together.
- **narrow** (:func:`narrow_layout`): the panels of a grid of subplots stacked in one column
  (in reading order), the figure as wide as a phone's column, the text at its own size.

Both change the figure in place and undo every change when their ``with`` block ends, so
the figure is left as it was drawn. :func:`variants` renders the four PNGs, and
:func:`figure_html` the markup that shows the right one: ``<picture>`` picks the narrow
drawing below :data:`NARROW_BREAKPOINT` CSS pixels; the book's theme shows the dark drawing
in its dark mode (class ``only-dark``); a notebook front end, without the theme's styles,
shows the light one.
"""

from __future__ import annotations

import base64
import colorsys
import contextlib
import html
import math
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

#: The dark page's background and text (sphinx-book-theme's dark mode). The figure's own
#: background and its panels' are the page's, so no box shows around the figure.
DARK_BACKGROUND = "#121212"
DARK_INK = "#ced6dd"
#: The width a figure is drawn at for a phone's column, in inches (at 100 dpi: 350 CSS px,
#: the text column of a 390 px screen).
NARROW_WIDTH_IN = 3.5
#: Below this viewport width (CSS px) the page shows the narrow drawing.
NARROW_BREAKPOINT = 600
#: A figure at most this much wider than the narrow width is not drawn again for phones.
NARROW_SLACK = 1.15
#: The narrowest the panels of a phone's drawing are made, where labels or a legend beside
#: them take the rest of the column.
NARROW_MIN_WIDTH_IN = 3.0


# ---------------------------------------------------------------- colours


def dark_rgba(rgba: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
    """A colour of a light figure, as the dark figure draws it."""
    r, g, b, a = (float(x) for x in rgba)
    if min(r, g, b) > 0.995:  # white paper: the dark page itself
        return (*_hex_rgb(DARK_BACKGROUND), a)
    if max(r, g, b) < 0.005:  # black ink: the dark page's text
        return (*_hex_rgb(DARK_INK), a)
    h, l, s = colorsys.rgb_to_hls(r, g, b)
    if s < 0.15:  # a grey: mirrored, as the paper and the ink are
        l = 0.09 + 0.8 * (1.0 - l)
    elif l > 0.75:  # a pale fill (a band, a highlight): a dark tint of the same hue
        l = 1.03 - l
    else:  # a colour that carries data: lifted towards the light
        l = 0.35 + 0.65 * l
    return (*colorsys.hls_to_rgb(h, min(max(l, 0.0), 1.0), s), a)


def _mirrored_rgba(rgba):
    """A colour map's entry with its lightness mirrored (hue and saturation kept)."""
    r, g, b, a = (float(x) for x in rgba)
    h, l, s = colorsys.rgb_to_hls(r, g, b)
    return (*colorsys.hls_to_rgb(h, 0.09 + 0.82 * (1.0 - l), s), a)


def _hex_rgb(color: str) -> tuple[float, float, float]:
    color = color.lstrip("#")
    return tuple(int(color[i : i + 2], 16) / 255 for i in (0, 2, 4))


def _map_colors(colors, f=dark_rgba):
    """An (n, 4) array of colours through ``f`` (an empty array stays empty)."""
    arr = np.asarray(colors, dtype=float)
    if arr.size == 0:
        return arr
    arr = arr.reshape(-1, 4)
    return np.array([f(c) for c in arr])


def dark_colormap(cmap):
    """``cmap`` for a dark page: mirrored in lightness if it runs through white (so the
    values that stand out on paper stand out on the dark page), else unchanged (viridis
    and its kin already run from dark to light)."""
    from matplotlib.colors import ListedColormap

    samples = cmap(np.linspace(0, 1, 256))
    lightness = [colorsys.rgb_to_hls(*c[:3])[1] for c in samples]
    if max(lightness) < 0.9:
        return cmap
    mirrored = ListedColormap([_mirrored_rgba(c) for c in samples], name=f"{cmap.name}_dark")
    return mirrored.with_extremes(
        under=_mirrored_rgba(cmap.get_under()),
        over=_mirrored_rgba(cmap.get_over()),
        bad=_mirrored_rgba(cmap.get_bad()),
    )


class _Undo:
    """Changes made to a figure, each with what puts it back."""

    def __init__(self) -> None:
        self._steps: list[Callable[[], None]] = []

    def set(self, getter: Callable, setter: Callable, value) -> None:
        old = getter()
        setter(value)
        self._steps.append(lambda: setter(old))

    def run(self) -> None:
        for step in reversed(self._steps):
            step()
        self._steps.clear()


@contextlib.contextmanager
def dark_colors(fig) -> Iterator[None]:
    """Within the block, ``fig`` is drawn for a dark page (see the module's docstring)."""
    from matplotlib.collections import Collection
    from matplotlib.colors import to_rgba
    from matplotlib.image import AxesImage
    from matplotlib.legend import Legend
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    from matplotlib.text import Text

    undo = _Undo()
    seen: set[int] = set()
    paper = {id(fig.patch), *(id(ax.patch) for ax in fig.axes)}
    try:
        for artist in fig.findobj(include_self=False):  # the figure's own patch among them
            if id(artist) in seen:
                continue
            seen.add(id(artist))
            if id(artist) in paper:  # the figure's and its panels' background: the page's
                undo.set(artist.get_facecolor, artist.set_facecolor, DARK_BACKGROUND)
                edge = to_rgba(artist.get_edgecolor())
                if edge[3] > 0:
                    undo.set(artist.get_edgecolor, artist.set_edgecolor, dark_rgba(edge))
            elif isinstance(artist, Text):
                undo.set(artist.get_color, artist.set_color, dark_rgba(to_rgba(artist.get_color())))
                box = artist.get_bbox_patch()
                if box is not None:
                    _dark_patch(box, undo)
            elif isinstance(artist, Line2D):
                for part in ("color", "markerfacecolor", "markeredgecolor"):
                    get, put = getattr(artist, f"get_{part}"), getattr(artist, f"set_{part}")
                    value = get()
                    if isinstance(value, str) and value in ("none", "None", "auto"):
                        continue
                    undo.set(get, put, dark_rgba(to_rgba(value)))
            elif isinstance(artist, Patch):
                _dark_patch(artist, undo)
            elif isinstance(artist, (AxesImage, Collection)) and _has_cmap(artist):
                undo.set(artist.get_cmap, artist.set_cmap, dark_colormap(artist.get_cmap()))
                if isinstance(artist, Collection):
                    _dark_collection(artist, undo, faces=False)
            elif isinstance(artist, Collection):
                _dark_collection(artist, undo, faces=True)
            elif isinstance(artist, Legend):
                pass  # its frame, lines and texts are found on their own
        yield
    finally:
        undo.run()


def _has_cmap(artist) -> bool:
    array = artist.get_array()
    return array is not None and getattr(array, "ndim", 0) in (1, 2) and artist.get_cmap()


def _dark_patch(patch, undo: _Undo) -> None:
    from matplotlib.colors import to_rgba

    face = to_rgba(patch.get_facecolor())
    if face[3] > 0:
        undo.set(patch.get_facecolor, patch.set_facecolor, dark_rgba(face))
    edge = to_rgba(patch.get_edgecolor())
    if edge[3] > 0:
        undo.set(patch.get_edgecolor, patch.set_edgecolor, dark_rgba(edge))


def _dark_collection(collection, undo: _Undo, faces: bool) -> None:
    if faces:
        undo.set(
            collection.get_facecolor,
            collection.set_facecolor,
            _map_colors(collection.get_facecolor()),
        )
    edges = collection.get_edgecolor()
    if not isinstance(edges, str) and np.asarray(edges).size:
        undo.set(collection.get_edgecolor, collection.set_edgecolor, _map_colors(edges))


# ---------------------------------------------------------------- layout


def _top_slot(spec):
    """The cell of the figure's top-level grid that a subplot spec lies in."""
    grid = spec.get_gridspec()
    while getattr(grid, "_subplot_spec", None) is not None:  # a grid nested in a cell
        spec = grid._subplot_spec
        grid = spec.get_gridspec()
    return spec


def stackable(fig) -> bool:
    """Whether :func:`narrow_layout` can stack ``fig``'s panels: every visible axes lies
    in one top-level grid of subplots."""
    grids = set()
    for ax in fig.axes:
        spec = ax.get_subplotspec()
        if spec is None:
            if ax.get_visible() and not _is_colorbar(ax):
                return False
            continue
        grids.add(id(_top_slot(spec).get_gridspec()))
    return len(grids) == 1


def _is_colorbar(ax) -> bool:
    return hasattr(ax, "_colorbar")


def _slot_key(slot) -> tuple[int, int, int, int]:
    return (slot.rowspan.start, slot.colspan.start, slot.rowspan.stop, slot.colspan.stop)


@contextlib.contextmanager
def narrow_layout(fig, width: float = NARROW_WIDTH_IN) -> Iterator[None]:
    """Within the block, ``fig`` is ``width`` inches wide with its panels in one column."""
    from matplotlib.gridspec import GridSpec

    undo = _Undo()
    old_w, old_h = fig.get_size_inches()
    # first where everything is: each axes' top-level cell, and the grid nested in it
    placed = []  # (axes, key of its top-level cell, the nested grid holding it or None)
    slots: dict[tuple, object] = {}
    for ax in fig.axes:
        spec = ax.get_subplotspec()
        if spec is None:
            continue
        slot = _top_slot(spec)
        slots.setdefault(_slot_key(slot), slot)
        nested = None
        if spec is not slot:
            nested = spec.get_gridspec()
            while nested._subplot_spec is not slot:
                nested = nested._subplot_spec.get_gridspec()
        placed.append((ax, _slot_key(slot), nested))
    keys = sorted(slots, key=lambda k: (k[0], k[1]))  # reading order
    top = slots[keys[0]].get_gridspec() if keys else None
    try:
        # heights shrink less than widths (by the square root of the ratio): the text keeps
        # its size, and a phone's page scrolls down, not sideways
        if top is None or top.ncols == 1:
            new_h = max(old_h * math.sqrt(NARROW_WIDTH_IN / old_w), 2.4)
        else:
            cell_w, cell_h = old_w / top.ncols, old_h / top.nrows
            heights = [
                max(cell_h * (r1 - r0) * math.sqrt(NARROW_WIDTH_IN / (cell_w * (c1 - c0))), 2.2)
                for r0, c0, r1, c1 in keys
            ]
            new_h = sum(heights) + 0.3 * (len(heights) - 1)
            column = GridSpec(len(keys), 1, figure=fig, height_ratios=heights)
            where = {key: column[i] for i, key in enumerate(keys)}
            moved: set[int] = set()
            for ax, key, nested in placed:
                if nested is None:  # a panel of the top grid
                    undo.set(ax.get_subplotspec, ax.set_subplotspec, where[key])
                elif id(nested) not in moved:  # a grid in a cell (a colorbar beside its axes)
                    moved.add(id(nested))
                    undo.set(
                        lambda g=nested: g._subplot_spec,
                        lambda s, g=nested: setattr(g, "_subplot_spec", s),
                        where[key],
                    )
            # stacked, every panel shows its own tick labels (a shared axis showed them
            # once, on the panel at the row's start or the column's foot)
            for ax, _, _ in placed:
                for axis, side in (("x", "labelbottom"), ("y", "labelleft")):
                    shown = getattr(ax, f"{axis}axis").get_tick_params(which="major")
                    if not shown.get(side, True) and ax.axison:
                        undo.set(
                            lambda a=ax, x=axis, k=side: (
                                getattr(a, f"{x}axis").get_tick_params(which="major").get(k, True)
                            ),
                            lambda v, a=ax, x=axis, k=side: a.tick_params(axis=x, **{k: v}),
                            True,
                        )
        # titles wrap at the narrow figure's edges: a title wider than a phone's column
        # would widen it (a legend's columns stay as drawn: set_ncols does not re-lay it out)
        titles = [t for ax in fig.axes for t in (ax.title, ax._left_title, ax._right_title)]
        titles += [fig._suptitle] if fig._suptitle is not None else []
        for text in titles:
            if text.get_text():
                undo.set(text.get_wrap, text.set_wrap, True)
        undo.set(
            lambda: tuple(fig.get_size_inches()),
            lambda size: fig.set_size_inches(*size, forward=False),
            (width, new_h),
        )
        params = fig.subplotpars
        keep = {
            k: getattr(params, k) for k in ("left", "right", "bottom", "top", "wspace", "hspace")
        }
        engine = fig.get_layout_engine()
        if engine is None or engine.adjust_compatible:  # constrained layout keeps its own
            undo._steps.append(lambda: fig.subplots_adjust(**keep))
        _fit(fig)
        if _slanted_ticks(fig, undo):
            _fit(fig)
        if _legends_below(fig, undo):
            for _ in range(2):  # placed again below the axes as laid out now
                _fit(fig)
                _legends_below(fig, undo)
            _fit(fig)
        yield
    finally:
        undo.run()
        _fit(fig, tight=False)


def _slanted_ticks(fig, undo: _Undo) -> bool:
    """The x tick labels of each panel where two of them touch, slanted (30°, each ending
    at its tick) so that they stand apart. Returns whether any panel's were."""
    renderer = fig.canvas.get_renderer()
    slanted = False
    for ax in fig.axes:
        labels = [t for t in ax.get_xticklabels() if t.get_visible() and t.get_text()]
        if len(labels) < 2 or any(t.get_rotation() for t in labels):
            continue
        boxes = sorted((t.get_window_extent(renderer) for t in labels), key=lambda b: b.x0)
        gap = 2 * fig.dpi / 72  # 2 pt
        if all(b.x0 - a.x1 >= gap for a, b in zip(boxes, boxes[1:])):
            continue
        undo.set(
            lambda ax=ax: ax.get_xticklabels()[0].get_rotation(),
            lambda r, ax=ax: ax.tick_params(axis="x", labelrotation=r),
            30,
        )
        for label in ax.get_xticklabels():
            undo.set(label.get_ha, label.set_ha, "right")
            undo.set(label.get_rotation_mode, label.set_rotation_mode, "anchor")
        slanted = True
    return slanted


def _legends_below(fig, undo: _Undo) -> bool:
    """Each legend that sticks out of its panel's sides (wider than the panel, or beside
    it), drawn again in one column below the panel: a phone's column has no room beside
    it, and a taller legend inside the panel would cover the data. Returns whether any
    was moved."""
    renderer = fig.canvas.get_renderer()
    moved = False
    for ax in fig.axes:
        legend = ax.get_legend()
        if legend is None:
            continue
        below = getattr(legend, "_attnbook_below", False)
        box, panel = legend.get_window_extent(renderer), ax.get_window_extent(renderer)
        if not below and box.x0 >= panel.x0 - 1 and box.x1 <= panel.x1 + 1:
            continue
        original = getattr(legend, "_attnbook_original", legend)
        legend.set_visible(False)
        bottom = ax.get_tightbbox(renderer).y0  # the panel with its tick labels and name
        legend.set_visible(True)
        gap = 8 * fig.dpi / 72  # 8 pt
        y = ax.transAxes.inverted().transform((0, bottom - gap))[1]
        texts = [text.get_text() for text in original.get_texts()]
        new = ax.legend(
            original.legend_handles,
            texts,
            ncols=1,
            loc="upper center",
            bbox_to_anchor=(0.5, y),
            borderaxespad=0,
            frameon=original.get_frame_on(),
            fontsize=texts and original.get_texts()[0].get_fontsize(),
        )
        new._attnbook_below = True
        new._attnbook_original = original
        if not below:  # the first move: taller by the legend, the drawn legend back at the end
            undo._steps.append(lambda ax=ax, old=original: setattr(ax, "legend_", old))
            w, h = fig.get_size_inches()
            grow = new.get_window_extent(renderer).height / fig.dpi
            fig.set_size_inches(w, h + grow, forward=False)
        moved = True
    return moved


def _fit(fig, tight: bool = True) -> None:
    """Lay the figure out again: each panel where its cell is, then the figure's own layout
    engine, else (with ``tight``) tight_layout, which measures the panels from there."""
    from matplotlib.layout_engine import PlaceHolderLayoutEngine

    _refit(fig)
    engine = fig.get_layout_engine()
    if engine is not None and not isinstance(engine, PlaceHolderLayoutEngine):
        engine.execute(fig)  # constrained layout, or a tight layout kept on the figure
    elif tight:  # none, or what fig.tight_layout() leaves: a one-off tight layout
        # a legend of the whole figure at its foot keeps its strip (tight_layout does not
        # see the figure's own legends)
        foot = [lg for lg in fig.legends if lg._loc in (3, 4, 8)]  # lower left/right/centre
        renderer = fig.canvas.get_renderer()
        bottom = max((lg.get_window_extent(renderer).height for lg in foot), default=0.0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "not compatible with tight_layout": drawn as is
            fig.tight_layout(h_pad=1.0, rect=(0, bottom / fig.bbox.height, 1, 1))


def _refit(fig) -> None:
    """Put each panel where its subplot spec says (what ``tight_layout`` starts from)."""
    for ax in fig.axes:
        spec = ax.get_subplotspec()
        if spec is not None:
            ax._set_position(spec.get_position(fig))


# ---------------------------------------------------------------- drawings


@dataclass(frozen=True)
class Drawing:
    """One rendering of a figure: PNG bytes and the size it is shown at (CSS px)."""

    png: bytes
    width: int
    height: int


def variants(fig, render: Callable) -> dict[str, Drawing]:
    """The figure rendered four ways (``light``, ``dark``, ``narrow-light``,
    ``narrow-dark``; the narrow pair only for a figure wider than a phone's column whose
    panels can be stacked). ``render(fig, same_box)`` returns ``(png, width, height)``;
    ``same_box``: the layout is the one drawn first (only the colours changed), so the
    first drawing's bounding box holds."""
    out = {"light": Drawing(*render(fig, True))}
    with dark_colors(fig):
        out["dark"] = Drawing(*render(fig, True))
    target = NARROW_WIDTH_IN * fig.dpi  # CSS px, as the drawings' widths
    if out["light"].width > target * NARROW_SLACK and stackable(fig):
        width = NARROW_WIDTH_IN
        for attempt in range(3):
            with narrow_layout(fig, width):
                # what sticks out of the panels (a legend beside them, long tick labels)
                # widens the drawing: narrow the panels until the whole fits the column
                # (measured from the layout; only the drawing that fits is rendered)
                shown = _tight_width(fig)
                fits = shown <= target * 1.04 or width <= NARROW_MIN_WIDTH_IN
                if fits or attempt == 2:
                    out["narrow-light"] = Drawing(*render(fig, False))
                    with dark_colors(fig):
                        out["narrow-dark"] = Drawing(*render(fig, False))
                    break
            width = max(NARROW_MIN_WIDTH_IN, width * target / shown)
    return out


def _tight_width(fig) -> float:
    """The width (CSS px) of the figure's tight drawing (what ``savefig.bbox = "tight"``
    keeps, with its padding), measured from the layout without rasterising it."""
    import matplotlib as mpl

    box = fig.get_tightbbox(fig.canvas.get_renderer())  # inches
    return (box.width + 2 * mpl.rcParams["savefig.pad_inches"]) * fig.dpi


def _data_url(drawing: Drawing) -> str:
    return "data:image/png;base64," + base64.b64encode(drawing.png).decode("ascii")


def figure_html(drawings: dict[str, Drawing], alt: str) -> str:
    """Markup that shows the drawing for the page: narrow below the breakpoint, dark in the
    theme's dark mode; each drawing opens at full size when tapped or clicked."""
    alt = html.escape(alt or "a figure", quote=True)
    media = f"(max-width: {NARROW_BREAKPOINT - 1}px)"
    parts = []
    for theme in ("light", "dark"):
        wide = drawings[theme]
        narrow = drawings.get(f"narrow-{theme}")
        source = ""
        if narrow is not None:
            source = (
                f'<source media="{media}" srcset="{_data_url(narrow)}" '
                f'width="{narrow.width}" height="{narrow.height}">'
            )
        hidden = ' style="display: none"' if theme == "dark" else ""
        parts.append(
            f'<a class="attnbook-figure-{theme} only-{theme}" href="{_data_url(wide)}"'
            f'{hidden} title="Open the figure at full size">'
            f"<picture>{source}"
            f'<img src="{_data_url(wide)}" alt="{alt}" width="{wide.width}" '
            f'height="{wide.height}" loading="lazy" class="dark-light"></picture></a>'
        )
    return f'<div class="attnbook-figure">{"".join(parts)}</div>'
