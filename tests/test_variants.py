"""attnbook.viz.variants: one figure drawn for a dark page and for a phone, left as it was."""

from __future__ import annotations

import io

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from PIL import Image  # noqa: E402

from attnbook.viz import plot_attention, style, variants  # noqa: E402


def _two_panels():
    fig, axes = plt.subplots(1, 2, figsize=(8, 3.4), dpi=100)
    x = np.linspace(0, 6, 50)
    axes[0].plot(x, np.sin(x), label="sin")
    axes[0].plot(x, np.cos(x), "k--", label="cos")
    axes[0].axvspan(1, 2, color="#ffe8cc")
    axes[0].legend()
    axes[0].set(title="lines", xlabel="x")
    w = np.random.default_rng(0).dirichlet(np.ones(5), size=5)
    plot_attention(w, list("abcde"), list("vwxyz"), ax=axes[1])
    fig.tight_layout()
    return fig


def _render(fig, same_box=True):
    return style.png_bytes(fig, scale=1, colors=None)


def _luminance(png: bytes) -> np.ndarray:
    rgb = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"), dtype=float) / 255
    return rgb @ np.array([0.2126, 0.7152, 0.0722])


def test_four_drawings_and_the_figure_left_as_drawn():
    fig = _two_panels()
    before = _render(fig)[0]
    positions = [ax.get_position().bounds for ax in fig.axes]
    drawings = variants.variants(fig, _render)
    assert set(drawings) == {"light", "dark", "narrow-light", "narrow-dark"}
    assert drawings["light"].png == before
    assert _render(fig)[0] == before, "the figure changed"
    after = [ax.get_position().bounds for ax in fig.axes]
    assert np.allclose(after, positions), (after, positions)
    assert tuple(fig.get_size_inches()) == (8, 3.4)
    plt.close(fig)


def test_dark_drawing_is_dark_and_keeps_its_data():
    fig = _two_panels()
    drawings = variants.variants(fig, _render)
    light, dark = _luminance(drawings["light"].png), _luminance(drawings["dark"].png)
    assert light.mean() > 0.75 and dark.mean() < 0.3, (light.mean(), dark.mean())
    # the background is the dark page's own colour, so no box shows on the page
    corner = Image.open(io.BytesIO(drawings["dark"].png)).convert("RGB").getpixel((1, 1))
    assert corner == tuple(int(variants.DARK_BACKGROUND[i : i + 2], 16) for i in (1, 3, 5))
    assert (drawings["dark"].width, drawings["dark"].height) == (
        drawings["light"].width,
        drawings["light"].height,
    )
    plt.close(fig)


@pytest.mark.parametrize(
    ("rgba", "expected"),
    [
        ((1, 1, 1, 1), "background"),
        ((0, 0, 0, 1), "ink"),
        ((0.0, 0.447, 0.698, 1), "lifted"),  # Okabe-Ito blue: stays blue, lighter
        ((1.0, 0.91, 0.8, 1), "tint"),  # a pale band: a dark tint
    ],
)
def test_dark_colours(rgba, expected):
    import colorsys

    out = variants.dark_rgba(rgba)
    h0, l0, _ = colorsys.rgb_to_hls(*rgba[:3])
    h1, l1, _ = colorsys.rgb_to_hls(*out[:3])
    if expected == "background":
        assert out[:3] == pytest.approx(variants._hex_rgb(variants.DARK_BACKGROUND))
    elif expected == "ink":
        assert out[:3] == pytest.approx(variants._hex_rgb(variants.DARK_INK))
    elif expected == "lifted":
        assert l1 > l0 and h1 == pytest.approx(h0, abs=0.01)
    else:
        assert l1 < 0.3 and h1 == pytest.approx(h0, abs=0.01)
    assert out[3] == rgba[3]


def test_colour_maps_through_white_are_mirrored_and_others_kept():
    blues = plt.get_cmap("Blues")
    dark = variants.dark_colormap(blues)
    assert dark is not blues
    lightness = [np.mean(dark(x)[:3]) for x in (0.0, 0.5, 0.99)]
    assert lightness[0] < lightness[1] < lightness[2]  # high values now stand out on the dark
    viridis = plt.get_cmap("viridis")
    assert variants.dark_colormap(viridis) is viridis


def test_narrow_drawing_stacks_the_panels_at_a_phones_width():
    fig = _two_panels()
    drawings = variants.variants(fig, _render)
    narrow, wide = drawings["narrow-light"], drawings["light"]
    assert narrow.width <= variants.NARROW_WIDTH_IN * 100 + 1
    assert narrow.height > narrow.width > 0.8 * variants.NARROW_WIDTH_IN * 100  # stacked
    assert wide.width > 1.8 * narrow.width
    plt.close(fig)


def test_a_constrained_layout_is_stacked_without_a_warning():
    # a warning raised while drawing would be printed on the page under the figure
    import warnings

    fig, axes = plt.subplots(1, 3, figsize=(10, 3), dpi=100, layout="constrained")
    for ax in axes:
        image = ax.imshow(np.random.default_rng(0).random((6, 6)))
        fig.colorbar(image, ax=ax)
        ax.set(title="weights", xlabel="key")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        drawings = variants.variants(fig, _render)
    assert set(drawings) == {"light", "dark", "narrow-light", "narrow-dark"}
    narrow = drawings["narrow-light"]
    assert narrow.height > narrow.width  # three panels stacked
    plt.close(fig)


def test_stacked_panels_each_show_the_labels_of_a_shared_axis():
    fig, axes = plt.subplots(1, 2, figsize=(8, 3), dpi=100, sharey=True)
    for ax in axes:
        ax.barh(["one", "two", "three"], [1, 2, 3])
    with variants.narrow_layout(fig):
        fig.canvas.draw()
        shown = [[t.get_text() for t in ax.get_yticklabels() if t.get_visible()] for ax in axes]
    assert shown == [["one", "two", "three"]] * 2
    fig.canvas.draw()  # as drawn before: the second panel's labels hidden again
    assert not [t for t in axes[1].get_yticklabels() if t.get_visible() and t.get_text()]
    plt.close(fig)


def test_a_legend_beside_the_panel_still_fits_a_phones_column():
    fig, ax = plt.subplots(figsize=(5, 3), dpi=100)
    for k in range(3):
        ax.plot([0, 1], [k, k + 1], label=f"a rather long label {k}")
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1))
    drawings = variants.variants(fig, _render)
    column = variants.NARROW_WIDTH_IN * fig.dpi
    assert drawings["light"].width > 1.3 * column  # the legend sticks out
    assert drawings["narrow-light"].width <= 1.04 * column
    assert drawings["narrow-dark"].width == drawings["narrow-light"].width
    plt.close(fig)


def test_a_long_title_wraps_in_a_phones_drawing():
    fig, ax = plt.subplots(figsize=(7, 4), dpi=100)
    ax.plot([0, 1], [0, 1])
    ax.set_title("a title far wider than the column of a phone, of which there are many")
    drawings = variants.variants(fig, _render)
    assert drawings["narrow-light"].width <= 1.04 * variants.NARROW_WIDTH_IN * fig.dpi
    assert not ax.title.get_wrap()  # the figure as it was
    plt.close(fig)


def test_a_narrow_figure_is_not_drawn_again_for_phones():
    fig, ax = plt.subplots(figsize=(3.5, 3), dpi=100)
    ax.plot([0, 1])
    assert set(variants.variants(fig, _render)) == {"light", "dark"}
    plt.close(fig)


def test_html_shows_the_light_drawing_without_the_sites_styles():
    fig = _two_panels()
    markup = variants.figure_html(variants.variants(fig, _render), 'lines & "heat"')
    light, dark = markup.split('<a class="attnbook-figure-dark')
    assert 'style="display: none"' not in light and 'style="display: none"' in dark
    assert markup.count("<source") == 2 and "(max-width: 599px)" in markup
    assert 'alt="lines &amp; &quot;heat&quot;"' in markup
    assert markup.count("data:image/png;base64,") == 6  # 4 drawings, the wide two linked
    plt.close(fig)


def _crowded_bars():
    """Fig. 4.2's shape: five labelled bar groups, a two-column legend above them."""
    fig, ax = plt.subplots(figsize=(6.4, 3.4), dpi=100)
    x = np.arange(5)
    ax.bar(x - 0.2, [1, 1, 0.05, 0, 0.5], 0.4, label="on the previous token")
    ax.bar(x + 0.2, [0, 0, 0.95, 0.99, 0.5], 0.4, label="on the marked key")
    ax.set_xticks(x, ["head 1", "head 2", "head 3", "head 4", "one head"])
    ax.set(ylim=(0, 1.25), ylabel="mean attention weight")
    ax.legend(loc="upper center", ncol=2)
    fig.tight_layout()
    return fig, ax


def test_phone_drawing_moves_a_wide_legend_below_and_slants_crowded_labels():
    fig, ax = _crowded_bars()
    before = _render(fig)[0]
    drawn_legend = ax.get_legend()
    renderer = fig.canvas.get_renderer()
    with variants.narrow_layout(fig):
        legend = ax.get_legend()
        assert legend is not drawn_legend and legend._ncols == 1
        assert [t.get_text() for t in legend.get_texts()] == [
            "on the previous token",
            "on the marked key",
        ]
        labels = ax.get_xticklabels()
        assert all(t.get_rotation() == 30 for t in labels)
        boxes = sorted((t.get_window_extent(renderer) for t in labels), key=lambda b: b.x0)
        assert all(b.x0 >= a.x0 + 1 for a, b in zip(boxes, boxes[1:]))
        # below the panel and its slanted labels, not over the bars
        assert legend.get_window_extent(renderer).y1 < min(b.y0 for b in boxes)
    assert ax.get_legend() is drawn_legend and drawn_legend._ncols == 2
    assert all(t.get_rotation() == 0 for t in ax.get_xticklabels())
    assert _render(fig)[0] == before, "the figure changed"
    plt.close(fig)


def test_a_legend_that_fits_and_labels_apart_stay_as_drawn():
    fig = _two_panels()  # one-column legend, short tick labels
    legends = [ax.get_legend() for ax in fig.axes]
    rotations = [{t.get_rotation() for t in ax.get_xticklabels()} for ax in fig.axes]
    with variants.narrow_layout(fig):
        assert [ax.get_legend() for ax in fig.axes] == legends
        assert [{t.get_rotation() for t in ax.get_xticklabels()} for ax in fig.axes] == rotations
    plt.close(fig)


def test_phone_drawing_moves_a_legend_that_sticks_out_of_its_panel():
    """A one-column legend with long labels, wider than the phone's panel (chapter 9's
    LSH figure): below the panel, not over the axis name beside it."""
    fig, ax = plt.subplots(figsize=(6.4, 4), dpi=100)
    ax.plot([1, 2, 4, 8], [0.6, 0.85, 0.97, 1.0], label="best key shares a bucket with the query")
    ax.plot([1, 2, 4, 8], [0.07, 0.14, 0.25, 0.41], label="fraction of keys compared")
    ax.set(xlabel="hash rounds", ylabel="fraction")
    ax.legend(loc="center right")
    fig.tight_layout()
    renderer = fig.canvas.get_renderer()
    with variants.narrow_layout(fig):
        legend = ax.get_legend()
        assert legend.get_window_extent(renderer).y1 < ax.get_window_extent(renderer).y0
    assert ax.get_legend()._loc == 7  # "center right", as drawn
    plt.close(fig)
