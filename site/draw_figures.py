"""Draw the book's own versions of the paper's Figures 1 and 2 as SVG, light and dark.

`python site/draw_figures.py` writes `book/images/figure1_transformer{,_dark}.svg`,
`figure2_scaled_dot_product{,_dark}.svg` and `figure2_multi_head{,_dark}.svg`. Every block
is labelled with the `attnbook` name that implements it. The drawings are 400 units wide
with no text under 12.5 units, so they stay legible (about 11 px) when a phone shows them
about 360 px wide. Pages show the light file with the class `only-light` and the dark one
with `only-dark` (the theme hides the other).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "book" / "images"

WIDTH = 400
SANS = "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif"
MONO = "ui-monospace, 'SFMono-Regular', Menlo, Consolas, 'Liberation Mono', monospace"

# block kind -> (fill, stroke) per theme; text and line colours per theme
PALETTES = {
    "light": {
        "attention": ("#ffe8cc", "#e8590c"),
        "norm": ("#fff3bf", "#f08c00"),
        "ffn": ("#d0ebff", "#1c7ed6"),
        "embed": ("#f3d9fa", "#ae3ec9"),
        "linear": ("#e5dbff", "#7048e8"),
        "softmax": ("#d3f9d8", "#2f9e44"),
        "op": ("#f1f3f5", "#868e96"),
        "panel": ("#f8f9fa", "#adb5bd"),
        "text": "#1f2328",
        "muted": "#495057",
        "line": "#495057",
    },
    "dark": {
        "attention": ("#4a2608", "#ff922b"),
        "norm": ("#3d3100", "#fcc419"),
        "ffn": ("#0b2f4f", "#4dabf7"),
        "embed": ("#3f1349", "#da77f2"),
        "linear": ("#261c5c", "#9775fa"),
        "softmax": ("#0e3518", "#51cf66"),
        "op": ("#2b3036", "#adb5bd"),
        "panel": ("#1a1e23", "#5c636a"),
        "text": "#e9ecef",
        "muted": "#ced4da",
        "line": "#ced4da",
    },
}


@dataclass
class Box:
    """A labelled block: a title line, an optional second line, and the code that implements it."""

    kind: str
    x: float
    y: float  # top
    w: float
    title: str
    code: str = ""
    note: str = ""

    @property
    def h(self) -> float:
        return 22 + 16 * bool(self.code) + 16 * bool(self.note)

    @property
    def cx(self) -> float:
        return self.x + self.w / 2

    @property
    def bottom(self) -> float:
        return self.y + self.h


class Drawing:
    """Collects SVG elements for one theme."""

    def __init__(self, theme: str, height: float, title: str, description: str) -> None:
        self.p = PALETTES[theme]
        self.height = height
        self.parts: list[str] = []
        self.title, self.description = title, description

    def box(self, b: Box, stack: int = 0) -> Box:
        fill, stroke = self.p[b.kind]
        for k in range(stack, 0, -1):  # copies behind, for "× h"
            self.parts.append(
                f'<rect x="{b.x + 4 * k}" y="{b.y - 4 * k}" width="{b.w}" height="{b.h}" rx="5" '
                f'fill="{fill}" stroke="{stroke}" stroke-width="1"/>'
            )
        self.parts.append(
            f'<rect x="{b.x}" y="{b.y}" width="{b.w}" height="{b.h}" rx="5" fill="{fill}" '
            f'stroke="{stroke}" stroke-width="1.5"/>'
        )
        y = b.y + 16
        self.text(b.cx, y, b.title, weight=600)
        if b.note:
            y += 16
            self.text(b.cx, y, b.note)
        if b.code:
            y += 16
            self.text(b.cx, y, b.code, mono=True)
        return b

    def text(
        self,
        x: float,
        y: float,
        s: str,
        mono: bool = False,
        weight: int = 400,
        anchor: str = "middle",
        muted: bool = False,
        size: float | None = None,
    ) -> None:
        size = size or (12.5 if mono else 13.5)
        family = MONO if mono else SANS
        colour = self.p["muted"] if muted else self.p["text"]
        self.parts.append(
            f'<text x="{x}" y="{y}" text-anchor="{anchor}" font-family="{family}" '
            f'font-size="{size}" font-weight="{weight}" fill="{colour}">{escape(s)}</text>'
        )

    def panel(self, x: float, y: float, w: float, h: float) -> None:
        fill, stroke = self.p["panel"]
        self.parts.append(
            f'<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="10" fill="{fill}" '
            f'stroke="{stroke}" stroke-width="1.5" stroke-dasharray="5 3"/>'
        )

    def arrow(self, points: list[tuple[float, float]], head: bool = True) -> None:
        d = " ".join(f"{'M' if i == 0 else 'L'}{x:.1f},{y:.1f}" for i, (x, y) in enumerate(points))
        marker = ' marker-end="url(#arrow)"' if head else ""
        self.parts.append(
            f'<path d="{d}" fill="none" stroke="{self.p["line"]}" stroke-width="1.5"{marker}/>'
        )

    def svg(self) -> str:
        line = self.p["line"]
        return (
            f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {self.height}" '
            f'width="{WIDTH}" height="{self.height}" role="img" aria-labelledby="t d">\n'
            f'<title id="t">{escape(self.title)}</title>\n'
            f'<desc id="d">{escape(self.description)}</desc>\n'
            "<defs>"
            '<marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
            f'markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" '
            f'fill="{line}"/></marker></defs>\n' + "\n".join(self.parts) + "\n</svg>\n"
        )


def up(d: Drawing, lower: Box, upper: Box, dx: float = 0) -> None:
    """An arrow from the top of ``lower`` to the bottom of ``upper``."""
    d.arrow([(lower.cx + dx, lower.y), (upper.cx + dx, upper.bottom)])


def residual(d: Drawing, start_y: float, into: Box, x_side: float) -> None:
    """The residual path: from below a sub-layer, around it on the left, into Add & Norm."""
    y_mid = into.y + into.h / 2
    d.arrow([(into.cx, start_y), (x_side, start_y), (x_side, y_mid), (into.x, y_mid)])


def stack(boxes: list[Box], top: float, gaps: list[float]) -> float:
    """Place ``boxes`` top to bottom from ``top``; returns the bottom of the last one."""
    y = top
    for b, g in zip(boxes, [0, *gaps]):
        b.y = y + g
        y = b.bottom
    return y


def figure1(theme: str) -> str:
    """Figure 1: the encoder–decoder, drawn bottom to top as in the paper."""
    W, enc_x, dec_x, pad = 156, 18, 226, 14
    # decoder column, top to bottom
    d_soft = Box("softmax", dec_x, 0, W, "Softmax")
    d_lin = Box("linear", dec_x, 0, W, "Linear", "generator")
    d_ff_norm = Box("norm", dec_x, 0, W, "Add & Norm", "Residual")
    d_ff = Box("ffn", dec_x, 0, W, "Feed Forward", "FeedForward")
    d_x_norm = Box("norm", dec_x, 0, W, "Add & Norm", "Residual")
    d_cross = Box("attention", dec_x, 0, W, "Multi-Head", "MultiHeadAttention", "Attention (cross)")
    d_self_norm = Box("norm", dec_x, 0, W, "Add & Norm", "Residual")
    d_self = Box("attention", dec_x, 0, W, "Masked Multi-Head", "MultiHeadAttention", "Attention")
    d_emb = Box("embed", dec_x, 0, W, "Output Embedding", "Embedding", "× √d_model + PE")
    stack([d_soft, d_lin], 30, [14])
    dec_panel_top = d_lin.bottom + 22
    bottom = stack(
        [d_ff_norm, d_ff, d_x_norm, d_cross, d_self_norm, d_self],
        dec_panel_top + 24,
        [16, 16, 16, 34, 16],
    )
    dec_panel_bottom = bottom + pad
    stack([d_emb], dec_panel_bottom + 26, [])
    H = d_emb.bottom + 30

    # encoder column, bottom-aligned with the decoder
    e_ff_norm = Box("norm", enc_x, 0, W, "Add & Norm", "Residual")
    e_ff = Box("ffn", enc_x, 0, W, "Feed Forward", "FeedForward")
    e_self_norm = Box("norm", enc_x, 0, W, "Add & Norm", "Residual")
    e_self = Box("attention", enc_x, 0, W, "Multi-Head", "MultiHeadAttention", "Attention")
    e_emb = Box("embed", enc_x, d_emb.y, W, "Input Embedding", "Embedding", "× √d_model + PE")
    enc_boxes = [e_ff_norm, e_ff, e_self_norm, e_self]
    enc_height = sum(b.h for b in enc_boxes) + 3 * 16
    enc_panel_bottom = dec_panel_bottom
    enc_panel_top = enc_panel_bottom - pad - enc_height - 24
    stack(enc_boxes, enc_panel_top + 24, [16, 16, 16])

    d = Drawing(
        theme,
        H,
        "The Transformer (Figure 1 of the paper), with the attnbook class behind each block",
        "Left, the encoder: source tokens go through Embedding (scaled by the square root of "
        "d_model, plus positional encoding), then N EncoderLayers, each multi-head self-attention "
        "and a feed-forward network, each followed by Add & Norm (Residual). Right, the decoder: "
        "the target shifted right goes through Embedding, then N DecoderLayers, each masked "
        "multi-head self-attention, multi-head cross-attention whose queries come from the decoder "
        "and whose keys and values are the encoder's output (the memory), and a feed-forward "
        "network, each followed by Add & Norm; then a Linear layer (Transformer.generator) and a "
        "softmax give the output probabilities.",
    )
    for x, top, bot, name in (
        (enc_x, enc_panel_top, enc_panel_bottom, "EncoderLayer"),
        (dec_x, dec_panel_top, dec_panel_bottom, "DecoderLayer"),
    ):
        d.panel(x - pad, top, W + 2 * pad, bot - top)
        d.text(x - 4, top + 17, name, mono=True, anchor="start", muted=True)
        d.text(x + W + 4, top + 17, "N×", weight=700, anchor="end")
    for b in (d_soft, d_lin, d_ff_norm, d_ff, d_x_norm, d_cross, d_self_norm, d_self, d_emb):
        d.box(b)
    for b in (e_ff_norm, e_ff, e_self_norm, e_self, e_emb):
        d.box(b)
    d.text(d_soft.cx, 18, "Output probabilities", muted=True)
    d.text(e_emb.cx, H - 8, "Inputs", muted=True)
    d.text(d_emb.cx, H - 8, "Outputs (shifted right)", muted=True)

    # encoder: flow, and residual paths on the left
    d.arrow([(e_emb.cx, H - 22), (e_emb.cx, e_emb.bottom)])
    d.arrow([(e_emb.cx, e_emb.y), (e_self.cx, e_self.bottom)])
    for lo, hi in ((e_self, e_self_norm), (e_self_norm, e_ff), (e_ff, e_ff_norm)):
        up(d, lo, hi)
    residual(d, e_self.bottom + 8, e_self_norm, enc_x - 7)
    residual(d, e_self_norm.y - 8, e_ff_norm, enc_x - 7)

    # decoder: flow, and residual paths on the right
    d.arrow([(d_emb.cx, H - 22), (d_emb.cx, d_emb.bottom)])
    d.arrow([(d_emb.cx, d_emb.y), (d_self.cx, d_self.bottom)])
    up(d, d_self, d_self_norm)
    up(d, d_self_norm, d_cross)
    d.text(d_cross.cx + 6, d_cross.bottom + 13, "Q", size=12.5, anchor="start", weight=700)
    for lo, hi in ((d_cross, d_x_norm), (d_x_norm, d_ff), (d_ff, d_ff_norm)):
        up(d, lo, hi)
    x_right = dec_x + W + 7
    for start_y, into in (
        (d_self.bottom + 8, d_self_norm),
        (d_self_norm.y - 8, d_x_norm),
        (d_x_norm.y - 8, d_ff_norm),
    ):
        y_mid = into.y + into.h / 2
        d.arrow([(into.cx, start_y), (x_right, start_y), (x_right, y_mid), (into.x + W, y_mid)])
    d.arrow([(d_ff_norm.cx, d_ff_norm.y), (d_lin.cx, d_lin.bottom)])
    up(d, d_lin, d_soft)
    d.arrow([(d_soft.cx, d_soft.y), (d_soft.cx, 24)])

    # the encoder's output (memory) gives the cross-attention its keys and values
    x_gap = (enc_x + W + pad + dec_x - pad) / 2
    y_top = enc_panel_top - 12
    y_in = d_cross.bottom + 17
    d.arrow(
        [
            (e_ff_norm.cx, e_ff_norm.y),
            (e_ff_norm.cx, y_top),
            (x_gap, y_top),
            (x_gap, y_in),
            (d_cross.cx - 40, y_in),
            (d_cross.cx - 40, d_cross.bottom),
        ]
    )
    d.text(e_ff_norm.cx + 6, y_top - 6, "memory", size=12.5, anchor="start", muted=True)
    d.text(d_cross.cx - 46, d_cross.bottom + 13, "K, V", size=12.5, anchor="end", weight=700)
    return d.svg()


def figure2_scaled(theme: str) -> str:
    """Figure 2, left: scaled dot-product attention."""
    x, W = 130, 160
    mm2 = Box("op", x, 0, W, "MatMul", "weights @ V")
    soft = Box("softmax", x, 0, W, "SoftMax", "masked_softmax")
    mask = Box("op", x, 0, W, "Mask (optional)", "causal_mask, …")
    scale = Box("op", x, 0, W, "Scale", "÷ √d_k")
    mm1 = Box("op", x, 0, W, "MatMul", "Q @ Kᵀ")
    panel_top = 40
    bottom = stack([mm2, soft, mask, scale, mm1], panel_top + 32, [20, 20, 20, 20])
    panel_bottom = bottom + 14
    inputs_y = panel_bottom + 34
    H = inputs_y + 22
    d = Drawing(
        theme,
        H,
        "Scaled dot-product attention (Figure 2, left), as attnbook computes it",
        "Queries Q and keys K are multiplied (Q times K transposed), scaled by one over the square "
        "root of d_k, optionally masked, and passed through a softmax over the keys; the weights "
        "multiply the values V. scaled_dot_product_attention returns the output and the weights; "
        "the mask and softmax step is masked_softmax.",
    )
    d.panel(x - 24, panel_top, W + 48, panel_bottom - panel_top)
    d.text(x - 14, panel_top + 20, "scaled_dot_product_attention", mono=True, anchor="start")
    for b in (mm2, soft, mask, scale, mm1):
        d.box(b)
    qx, kx, vx = mm1.cx - 40, mm1.cx + 40, x + W + 56
    for name, px in (("Q", qx), ("K", kx), ("V", vx)):
        d.text(px, H - 6, name, weight=700)
    d.arrow([(qx, inputs_y), (qx, mm1.bottom)])
    d.arrow([(kx, inputs_y), (kx, mm1.bottom)])
    for lo, hi in ((mm1, scale), (scale, mask), (mask, soft), (soft, mm2)):
        up(d, lo, hi)
    d.arrow([(vx, inputs_y), (vx, mm2.y + mm2.h / 2), (mm2.x + W, mm2.y + mm2.h / 2)])
    d.arrow([(mm2.cx, mm2.y), (mm2.cx, 24)])
    d.text(mm2.cx, 16, "output", muted=True)
    # what each step gives, on the left
    for b, lines in ((mm1, ("scores", "T_q × T_k")), (soft, ("each row", "sums to 1"))):
        for i, line in enumerate(lines):
            d.text(x - 32, b.y + b.h / 2 - 3 + 17 * i, line, anchor="end", muted=True)
    return d.svg()


def figure2_multi_head(theme: str) -> str:
    """Figure 2, right: multi-head attention."""
    W = 96
    w_o = Box("linear", 125, 0, 150, "Linear", "W_O")
    concat = Box("op", 125, 0, 150, "Concat", "(B, T, h·d_k)")
    attn = Box(
        "attention",
        56,
        0,
        288,
        "Scaled Dot-Product Attention",
        "scaled_dot_product_attention",
        "h heads, each of d_k = d_model / h",
    )
    panel_top = 40
    bottom = stack([w_o, concat, attn], panel_top + 32, [22, 30])
    lin = {
        n: Box("linear", x, bottom + 50, W, "Linear", f"W_{n}")
        for n, x in (("V", 30), ("K", 152), ("Q", 274))
    }
    panel_bottom = lin["K"].bottom + 14
    inputs_y = panel_bottom + 34
    H = inputs_y + 22
    d = Drawing(
        theme,
        H,
        "Multi-head attention (Figure 2, right), as attnbook's MultiHeadAttention computes it",
        "V, K and Q each go through a linear projection (W_V, W_K, W_Q) into h heads of size d_k; "
        "scaled dot-product attention runs in every head in parallel; the heads are concatenated "
        "and projected by W_O.",
    )
    d.panel(14, panel_top, WIDTH - 28, panel_bottom - panel_top)
    d.text(26, panel_top + 20, "MultiHeadAttention", mono=True, anchor="start")
    for n, b in lin.items():
        d.box(b, stack=2)
        d.text(b.cx, H - 6, n, weight=700)
        d.arrow([(b.cx, inputs_y), (b.cx, b.bottom)])
        target_x = attn.x + attn.w * {"V": 0.2, "K": 0.5, "Q": 0.8}[n]
        d.arrow([(b.cx, b.y - 8), (target_x, attn.bottom)])
    d.box(attn, stack=2)
    d.box(concat)
    d.box(w_o)
    up(d, attn, concat)
    up(d, concat, w_o)
    d.arrow([(w_o.cx, w_o.y), (w_o.cx, 24)])
    d.text(w_o.cx, 16, "output", muted=True)
    return d.svg()


FIGURES = {
    "figure1_transformer": figure1,
    "figure2_scaled_dot_product": figure2_scaled,
    "figure2_multi_head": figure2_multi_head,
}


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, draw in FIGURES.items():
        for theme, suffix in (("light", ""), ("dark", "_dark")):
            (OUT / f"{name}{suffix}.svg").write_text(draw(theme), encoding="utf-8")
            print(f"wrote book/images/{name}{suffix}.svg")
    return 0


if __name__ == "__main__":
    sys.exit(main())
