"""attnbook.viz.style: the book's figure style, applied only on request."""

from __future__ import annotations

import base64
import io
import subprocess
import sys
import warnings

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402
from PIL import Image  # noqa: E402

from attnbook.viz import style  # noqa: E402


def test_importing_changes_no_matplotlib_setting():
    code = (
        "import matplotlib as mpl; before = dict(mpl.rcParams); "
        "import attnbook.viz.style, attnbook.viz; "
        "changed = [k for k, v in mpl.rcParams.items() if before[k] != v]; "
        "assert not changed, changed"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_png_is_a_palette_image_twice_the_shown_size_with_its_title():
    fig, ax = plt.subplots(figsize=(4, 3), dpi=100)
    ax.plot([0, 1, 4])
    ax.set_title(r"loss for $\tau$ = 2")
    data, width, height = style.png_bytes(fig, scale=2, colors=64)
    image = Image.open(io.BytesIO(data))
    assert image.mode == "P" and len(image.getcolors()) <= 64
    assert abs(image.width - 2 * width) <= 1 and abs(image.height - 2 * height) <= 1
    assert 300 < width <= 400  # 4 in at 100 CSS px per inch, less the tight bounding box
    assert image.info["Title"] == "loss for τ = 2"
    plt.close(fig)


def test_png_width_is_capped():
    fig, _ = plt.subplots(figsize=(12, 3), dpi=100)
    data, width, _ = style.png_bytes(fig, scale=2, colors=None, max_width=1000)
    image = Image.open(io.BytesIO(data))
    assert image.width <= 1000 and image.mode == "RGBA"
    assert width > 1000  # still shown at its CSS size (12 in at 100 px per inch)
    plt.close(fig)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"scale": 0}, "scale"), ({"colors": 1}, "colors"), ({"max_width": 0}, "max_width")],
)
def test_png_options_are_checked(kwargs, message):
    fig, _ = plt.subplots()
    with pytest.raises(ValueError, match=message):
        style.png_bytes(fig, **kwargs)
    plt.close(fig)


def test_title_without_mathtext():
    assert style.plain_text(r"$PE_p \cdot PE_q$ for $d_{\mathrm{model}}$ = 16") == (
        "PE_p · PE_q for d_model = 16"
    )
    assert style.plain_text("no math: 5 $") != ""
    fig, axes = plt.subplots(1, 2)
    axes[0].set_title("left")
    axes[1].set_title("right")
    assert style.figure_title(fig) == "left; right"
    fig.suptitle("both")
    assert style.figure_title(fig) == "both"
    plt.close(fig)


def test_style_sets_sizes_and_shows_figures_through_its_formatter():
    from IPython.core.interactiveshell import InteractiveShell
    from matplotlib.figure import Figure

    shell = InteractiveShell.instance()
    formatter = shell.display_formatter.formatters["image/png"]
    with matplotlib.rc_context():
        try:
            style.use_book_style(dpi=90)
            assert matplotlib.rcParams["figure.dpi"] == 90
            assert matplotlib.rcParams["font.size"] == style.BOOK_RC["font.size"]
            fig, ax = plt.subplots(figsize=(3, 2))
            ax.plot([1, 2])
            data, metadata = formatter(fig)
            image = Image.open(io.BytesIO(base64.b64decode(data)))
            assert image.mode == "P"
            assert abs(image.width - 2 * metadata["width"]) <= 1
            plt.close(fig)
        finally:
            formatter.pop(Figure, None)
    with pytest.raises(ValueError, match="dpi"):
        style.use_book_style(dpi=0)


def test_cjk_font_only_when_installed():
    from IPython import get_ipython
    from matplotlib.figure import Figure

    with matplotlib.rc_context():
        style.use_book_style()
        font = style.installed_cjk_font()
        families = matplotlib.rcParams["font.family"]
        if font is None:
            assert not any(f in families for f in style.CJK_FONTS)
        else:  # Chinese drawn with it: no "Glyph ... missing" warning, no empty boxes
            assert families[1] == font
            fig, ax = plt.subplots()
            ax.set_title("注意力 attention")
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                style.png_bytes(fig)
            plt.close(fig)
    if get_ipython() is not None:  # leave IPython's own figure formatter in place
        get_ipython().display_formatter.formatters["image/png"].pop(Figure, None)
