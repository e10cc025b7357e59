"""The book's figure style, applied on request (importing this module changes nothing).

``use_book_style()`` sets matplotlib's defaults for the book's figures and, inside
IPython (Jupyter, Colab, the site build), how figures are shown:

- **size on the page:** ``figure.dpi`` is the number of CSS pixels per inch, so a
  figure ``w`` inches wide is shown ``w * dpi`` pixels wide (if the column has room)
  and text of ``s`` points is ``s * dpi / 72`` pixels tall: 10 pt is 14 px at 100 dpi;
- **sharpness:** the PNG holds ``scale`` times as many pixels as it is shown with (the
  same as the inline backend's ``retina`` format), so it stays sharp on a phone or a
  high-density laptop screen;
- **weight:** when ``colors`` is set, the PNG is stored with a palette of at most that
  many colours (no dithering), a fraction of the bytes of full RGBA for line plots
  and heatmaps alike;
- **text alternative:** the figure's title (its suptitle, else its axes' titles) goes
  into the PNG's ``Title`` text chunk; the book's site turns it into the image's alt
  text when the cell gives no caption;
- **Chinese text:** a CJK-capable font (Noto Sans CJK, Source Han Sans, ...) is used as a
  per-glyph fallback when one is installed; where none is (e.g. Colab), nothing is
  added, so no font warning is printed.
"""

from __future__ import annotations

import base64
import io
import os
import re
from typing import Any

# Fonts that draw Chinese, tried in order after the Latin font (first installed wins).
CJK_FONTS = (
    "Noto Sans CJK SC",
    "Noto Sans CJK JP",
    "Source Han Sans SC",
    "Source Han Sans CN",
    "WenQuanYi Zen Hei",
    "WenQuanYi Micro Hei",
    "Microsoft YaHei",
    "PingFang SC",
    "Hiragino Sans GB",
    "SimHei",
)

# Sizes in points; at the default 100 dpi, 1 pt is 1.39 CSS px (10 pt = 14 px).
BOOK_RC: dict[str, Any] = {
    "font.size": 11,
    "axes.titlesize": 12,
    "axes.labelsize": 11,
    "xtick.labelsize": 10,
    "ytick.labelsize": 10,
    "legend.fontsize": 10,
    "figure.titlesize": 12,
    "savefig.bbox": "tight",
    # Okabe & Ito's palette, told apart by readers with any kind of colour blindness
    "axes.prop_cycle": "cycler(color=['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', "
    "'#56B4E9', '#000000'])",
}


def installed_cjk_font() -> str | None:
    """The first of :data:`CJK_FONTS` that matplotlib can find, or ``None``."""
    from matplotlib import font_manager

    names = {f.name for f in font_manager.fontManager.ttflist}
    return next((name for name in CJK_FONTS if name in names), None)


# mathtext in titles, written out for alt text: "$PE_p \\cdot PE_q$" -> "PE_p · PE_q"
_TEX_SYMBOLS = {
    r"\cdot": "·",
    r"\times": "×",
    r"\sqrt": "√",
    r"\le": "≤",
    r"\ge": "≥",
    r"\to": "→",
    r"\approx": "≈",
    r"\infty": "∞",
    r"\top": "ᵀ",
    r"\alpha": "α",
    r"\beta": "β",
    r"\gamma": "γ",
    r"\lambda": "λ",
    r"\mu": "μ",
    r"\omega": "ω",
    r"\theta": "θ",
    r"\pi": "π",
    r"\sigma": "σ",
    r"\tau": "τ",
    r"\epsilon": "ε",
}


def plain_text(text: str) -> str:
    """A title without mathtext markup (for alt text): ``$\\omega$`` becomes ``ω``."""
    if "$" not in text:
        return text
    for tex, symbol in _TEX_SYMBOLS.items():
        text = re.sub(re.escape(tex) + r"(?![A-Za-z])", symbol, text)
    text = re.sub(r"\\(?:mathrm|text|mathbf|mathit|operatorname)\{([^}]*)\}", r"\1", text)
    text = re.sub(r"\\[A-Za-z]+", "", text)
    return re.sub(r"\s+", " ", text.replace("$", "").replace("{", "").replace("}", "")).strip()


def figure_title(fig) -> str:
    """A short text alternative from a figure's suptitle, else its axes' titles."""
    if hasattr(fig, "get_suptitle"):  # matplotlib >= 3.8
        suptitle = fig.get_suptitle().strip()
    else:
        suptitle = fig._suptitle.get_text().strip() if fig._suptitle is not None else ""
    if suptitle:
        return plain_text(suptitle)
    titles = [plain_text(t) for ax in fig.axes if (t := ax.get_title().strip())]
    return "; ".join(titles)


def png_bytes(
    fig,
    *,
    scale: float = 2.0,
    colors: int | None = 256,
    max_width: int = 1600,
    bbox_inches: Any = None,
) -> tuple[bytes, int, int]:
    """``fig`` as PNG bytes with ``scale`` pixels per displayed pixel, and its display size.

    The PNG is at most ``max_width`` pixels wide (twice a laptop column: a wider
    figure is shown scaled down to the column anyway). Returns ``(png, width,
    height)``; width and height are in CSS pixels (``figure.dpi`` pixels per inch).
    ``bbox_inches``: the part of the figure to draw (default: ``savefig.bbox``, the book's
    "tight"); a figure drawn again in other colours reuses the first drawing's box.
    """
    from PIL import Image, PngImagePlugin

    _check_png_options(scale, colors, max_width)
    width_in = fig.get_figwidth()
    dpi = min(fig.dpi * scale, max_width / width_in)
    raw = io.BytesIO()
    extra = {} if bbox_inches is None else {"bbox_inches": bbox_inches}
    fig.savefig(raw, format="png", dpi=dpi, facecolor=fig.get_facecolor(), **extra)
    image = Image.open(raw)
    image.load()
    info = PngImagePlugin.PngInfo()
    title = figure_title(fig)
    if title:
        info.add_itxt("Title", title)
    if colors is not None:
        # a palette image, no dithering: median cut keeps colour maps smooth; it needs
        # an opaque image, so a figure with transparency gets the octree method
        if image.mode == "RGBA" and image.getextrema()[3][0] == 255:
            image = image.convert("RGB")
        method = Image.Quantize.MEDIANCUT if image.mode == "RGB" else Image.Quantize.FASTOCTREE
        image = image.quantize(colors, method=method, dither=Image.Dither.NONE)
    out = io.BytesIO()
    image.save(out, format="png", compress_level=9, pnginfo=info)
    shown = fig.dpi / dpi  # CSS pixels per PNG pixel
    return out.getvalue(), round(image.width * shown), round(image.height * shown)


#: Set (to anything but "" or "0") by the book's build: figures are also drawn for the
#: dark theme and for phones (see :mod:`attnbook.viz.variants`). A reader's notebook,
#: without it, draws each figure once.
VARIANTS_ENV = "ATTNBOOK_FIGURE_VARIANTS"


def use_book_style(
    *,
    dpi: float = 100,
    scale: float = 2.0,
    colors: int | None = 256,
    max_width: int = 1600,
    variants: bool | None = None,
) -> None:
    """Apply the book's figure style to matplotlib and, in IPython, to how figures show.

    ``dpi``: CSS pixels per inch on the page; ``scale``: PNG pixels per CSS pixel (at
    most ``max_width`` PNG pixels in all); ``colors``: palette size of the stored PNG
    (``None`` keeps full colour). ``variants``: also draw each figure for a dark page and
    for a phone's column, shown as HTML that picks the right drawing (default: when
    ``$ATTNBOOK_FIGURE_VARIANTS`` is set, as the book's build sets it). Call it once,
    before drawing (it closes open figures).
    """
    import matplotlib as mpl
    from matplotlib.figure import Figure

    if dpi <= 0:
        raise ValueError(f"dpi must be positive, got {dpi}")
    options = {"scale": scale, "colors": colors, "max_width": max_width}
    _check_png_options(**options)

    rc = {**BOOK_RC, "figure.dpi": dpi}
    cjk = installed_cjk_font()
    if cjk:  # the fonts named one by one: matplotlib falls back glyph by glyph only
        # along font.family's own list, not along a generic family's (sans-serif's) fonts
        rc["font.family"] = [mpl.rcParams["font.sans-serif"][0], cjk]
    mpl.rcParams.update(rc)

    try:
        from IPython import get_ipython
    except ImportError:  # a plain Python script: rcParams are all there is
        return
    shell = get_ipython()
    if shell is None or not hasattr(shell, "display_formatter"):
        return
    # Activate the backend now: the inline backend resets the figure formatters when
    # it is first loaded, which would undo the one registered below.
    import matplotlib.pyplot as plt

    plt.switch_backend(mpl.get_backend())

    if variants is None:
        variants = os.environ.get(VARIANTS_ENV, "") not in ("", "0")
    drawn: dict[int, tuple[bytes, int, int]] = {}  # the light drawing, from HTML to PNG

    def _png(fig: Figure) -> tuple[str, dict] | None:
        if not fig.axes and not fig.lines:
            return None  # an empty figure shows nothing, like IPython's own formatter
        data, width, height = drawn.pop(id(fig), None) or png_bytes(fig, **options)
        return base64.b64encode(data).decode("ascii"), {"width": width, "height": height}

    def _html(fig: Figure) -> str | None:
        from attnbook.viz.variants import figure_html
        from attnbook.viz.variants import variants as draw_variants

        if not fig.axes and not fig.lines:
            return None
        box = fig.get_tightbbox(fig.canvas.get_renderer())
        box = box.padded(mpl.rcParams["savefig.pad_inches"])

        def render(f: Figure, same_box: bool) -> tuple[bytes, int, int]:
            return png_bytes(f, **options, bbox_inches=box if same_box else None)

        drawings = draw_variants(fig, render)
        light = drawings["light"]
        drawn[id(fig)] = (light.png, light.width, light.height)
        return figure_html(drawings, figure_title(fig))

    formatters = shell.display_formatter.formatters
    for mime in ("image/svg+xml", "image/jpeg", "application/pdf"):
        formatters[mime].pop(Figure, None)
    formatters["image/png"].for_type(Figure, _png)
    if variants:
        formatters["text/html"].for_type(Figure, _html)
    else:
        formatters["text/html"].pop(Figure, None)


def _check_png_options(scale: float, colors: int | None, max_width: int) -> None:
    if scale <= 0:
        raise ValueError(f"scale must be positive, got {scale}")
    if colors is not None and not 2 <= colors <= 256:
        raise ValueError(f"colors must be between 2 and 256 (or None), got {colors}")
    if max_width < 1:
        raise ValueError(f"max_width must be a positive number of pixels, got {max_width}")
