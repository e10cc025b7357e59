"""Draw the landing page's chapter-card figures with the package (run by `make book`).

Each figure is a small version of a chapter's key figure, computed here from
`attnbook`, written to book/images/cards/ (not committed). No numbers are drawn.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import torch  # noqa: E402

from attnbook import causal_mask, scaled_dot_product_attention, set_seed  # noqa: E402
from attnbook.data import DATE_VOCAB  # noqa: E402
from attnbook.positional import sinusoidal_encoding  # noqa: E402
from attnbook.recipes import load_date_model  # noqa: E402
from attnbook.train import noam_lr  # noqa: E402
from attnbook.viz.style import png_bytes  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "book" / "images" / "cards"


def _card(name: str, draw) -> None:
    fig, ax = plt.subplots(figsize=(3.2, 2.0), dpi=110)
    draw(ax)
    ax.set_xticks([])
    ax.set_yticks([])
    fig.tight_layout(pad=0.3)
    # a palette PNG (attnbook.viz.style): a fraction of the bytes, the same picture
    png, _, _ = png_bytes(fig, scale=1, colors=128)
    (OUT / f"{name}.png").write_bytes(png)
    plt.close(fig)


def rnn(ax) -> None:
    """Gradient norm of a linear recurrence over distance, for three spectral radii."""
    k = torch.arange(60)
    for rho, colour in ((0.8, "#1c7ed6"), (1.0, "#495057"), (1.2, "#d9480f")):
        ax.semilogy(k, rho ** k.float(), color=colour)
    ax.axhline(1.0, color="#2b8a3e", linestyle="--")
    ax.set_xlabel("distance T − t")


def attention(ax) -> None:
    set_seed(0)
    x = torch.randn(6, 8)
    _, w = scaled_dot_product_attention(x, x, x)
    ax.imshow(w, cmap="Blues")


def scaling(ax) -> None:
    set_seed(0)
    d_ks = [2**i for i in range(11)]
    variances = [(torch.randn(4000, d) * torch.randn(4000, d)).sum(1).var().item() for d in d_ks]
    ax.loglog(d_ks, variances, "o-", color="#d9480f", markersize=3)
    ax.loglog(d_ks, [v / d for v, d in zip(variances, d_ks)], "o-", color="#1c7ed6", markersize=3)
    ax.set_xlabel("d_k")


def multi_head(ax) -> None:
    model = load_date_model()
    src = torch.tensor([DATE_VOCAB.encode("Sunday, 29 Nov 2026")])
    tgt = torch.tensor([DATE_VOCAB.encode("2026-11-29", bos=True)])
    _, attn = model(src, tgt)
    heads = attn.cross[-1][0]  # (h, T, S)
    ax.imshow(torch.cat(list(heads), dim=0).detach(), cmap="Purples", aspect="auto")


def positional(ax) -> None:
    ax.imshow(sinusoidal_encoding(64, 64).T, cmap="RdBu_r", aspect="auto")
    ax.set_xlabel("position")


def encoder_decoder(ax) -> None:
    model = load_date_model()
    src = torch.tensor([DATE_VOCAB.encode("2026年11月29日")])
    tgt = torch.tensor([DATE_VOCAB.encode("2026-11-29", bos=True)])
    _, attn = model(src, tgt)
    ax.imshow(attn.cross[-1][0].mean(0).detach(), cmap="Blues", aspect="auto")


def training(ax) -> None:
    steps = range(1, 20001)
    for warmup, colour in ((4000, "#1c7ed6"), (8000, "#d9480f")):
        ax.plot(steps, [noam_lr(s, 512, warmup) for s in steps], color=colour)
    ax.set_xlabel("step")


def efficient(ax) -> None:
    n, window = 32, 4
    i = torch.arange(n)
    local = (i[:, None] - i[None, :]).abs() <= window
    ax.imshow(local & causal_mask(n), cmap="Greens")


def deployment(ax) -> None:
    set_seed(0)
    w = torch.randn(4000) * 0.05
    scale = w.abs().max() / 127
    ax.hist((w - torch.round(w / scale) * scale).numpy(), bins=40, color="#5f3dc4")
    ax.set_xlabel("int8 rounding error")


def modern(ax) -> None:
    n = 8
    masks = [torch.ones(n, n), causal_mask(n).float(), torch.ones(n, n)]
    ax.imshow(torch.cat([torch.cat([m, torch.zeros(n, 1)], 1) for m in masks], 1), cmap="Greys")


CARDS = {
    "01_rnn_bottleneck": rnn,
    "02_attention": attention,
    "03_scaling": scaling,
    "04_multi_head": multi_head,
    "05_positional_encoding": positional,
    "06_encoder_decoder": encoder_decoder,
    "07_training": training,
    "08_efficient_attention": efficient,
    "09_deployment": deployment,
    "10_modern_transformers": modern,
}


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    torch.set_grad_enabled(False)
    for name, draw in CARDS.items():
        _card(name, draw)
    print(f"drew {len(CARDS)} chapter cards into {OUT.relative_to(OUT.parents[2])}")


if __name__ == "__main__":
    main()
