"""The landing page's chapter cards, made by `make book` (nothing here is committed).

For every chapter in `_toc.yml`, in the sidebar's order: a small version of the
chapter's key figure, computed here from `attnbook` with its axes named so that it reads
at a glance (book/images/cards/<chapter>.png), and a card with the chapter's own title
(the notebook's first heading, the title the sidebar shows), a one-line summary and a
place for the reading time, which the build fills in from the built page (core path and
going further). The cards go to book/images/cards/cards.md, which book/intro.md includes.

Each picture is also drawn with its words in Chinese (book/images/cards/zh_CN/), from
locales/zh_CN/figure_labels.yml; `site/i18n.py apply` puts those on the Chinese landing page.
A card word without its Chinese stops the build, naming it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import matplotlib
import yaml

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import torch  # noqa: E402

from attnbook import causal_mask, scaled_dot_product_attention, set_seed  # noqa: E402
from attnbook.data import DATE_VOCAB  # noqa: E402
from attnbook.positional import sinusoidal_encoding  # noqa: E402
from attnbook.recipes import load_date_model  # noqa: E402
from attnbook.train import noam_lr  # noqa: E402
from attnbook.viz.style import installed_cjk_font, png_bytes  # noqa: E402
from attnbook.viz.variants import dark_colors  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "book" / "images" / "cards"
ZH_OUT = OUT / "zh_CN"  # the same pictures, their words in Chinese
LABELS = ROOT / "locales" / "zh_CN" / "figure_labels.yml"


def _no_ticks(ax) -> None:
    """A heat map's axes are named; their index ticks say nothing at this size."""
    ax.set_xticks([])
    ax.set_yticks([])


# A card shows its image about 0.7 times the size it is drawn at (a third of a laptop's
# column): the text is drawn large enough to stay at 9 px or more there.
CARD_SIZE_IN, CARD_DPI = (3.2, 2.0), 100
TITLE_PT, LABEL_PT, TICK_PT, LEGEND_PT = 12, 11, 10, 10


def _card(name: str, title: str, draw, labels: dict[str, str]) -> None:
    """The card's picture, for the light theme (``name.png``) and the dark one
    (``name_dark.png``, the same figure in the dark page's colours; the site shows the
    one its theme needs); then both again with their words in Chinese (``zh_CN/``)."""
    fig, ax = plt.subplots(figsize=CARD_SIZE_IN, dpi=CARD_DPI)
    draw(ax)
    ax.set_title(title, fontsize=TITLE_PT, loc="left")
    ax.tick_params(labelsize=TICK_PT, length=2)
    ax.xaxis.label.set_size(LABEL_PT)
    ax.yaxis.label.set_size(LABEL_PT)
    legend = ax.get_legend()
    if legend is not None:
        for text in legend.get_texts():
            text.set_fontsize(LEGEND_PT)
    for folder in (OUT, ZH_OUT):
        if folder is ZH_OUT:
            _in_chinese(name, ax, labels)
        fig.tight_layout(pad=0.3)
        # palette PNGs (attnbook.viz.style): a fraction of the bytes, the same picture
        png, _, _ = png_bytes(fig, scale=2, colors=128)
        (folder / f"{name}.png").write_bytes(png)
        with dark_colors(fig):
            png, _, _ = png_bytes(fig, scale=2, colors=128)
        (folder / f"{name}_dark.png").write_bytes(png)
    plt.close(fig)


def card_words(ax) -> list:
    """The texts of a card a reader reads as words: its title, axis names and legend (tick
    labels are numbers, tokens of the data or the names of models)."""
    texts = [ax.title, ax._left_title, ax.xaxis.label, ax.yaxis.label]
    legend = ax.get_legend()
    texts += list(legend.get_texts()) if legend is not None else []
    return [t for t in texts if re.search(r"[A-Za-z]{2}", t.get_text())]


def _in_chinese(name: str, ax, labels: dict[str, str]) -> None:
    """Each word of the card replaced by its Chinese; one without it stops the build."""
    missing = [t.get_text() for t in card_words(ax) if t.get_text() not in labels]
    if missing:
        raise SystemExit(
            f"site/make_cards.py: card {name}: no Chinese for {missing} in "
            f"{LABELS.relative_to(ROOT)}"
        )
    for text in card_words(ax):
        text.set_text(labels[text.get_text()])


def rnn(ax) -> None:
    """Gradient norm of a linear recurrence over distance, for three spectral radii."""
    k = torch.arange(60)
    for rho, colour in ((0.8, "#1c7ed6"), (1.0, "#495057"), (1.2, "#d9480f")):
        ax.semilogy(k, rho ** k.float(), color=colour, label=f"ρ = {rho}")
    ax.legend(fontsize=6, frameon=False, loc="lower left")
    ax.set_xlabel("distance T − t")
    ax.set_ylabel("gradient size")


def attention(ax) -> None:
    set_seed(0)
    x = torch.randn(6, 8)
    _, w = scaled_dot_product_attention(x, x, x)
    ax.imshow(w, cmap="Blues")
    ax.set_xlabel("key")
    ax.set_ylabel("query")
    _no_ticks(ax)


def scaling(ax) -> None:
    set_seed(0)
    d_ks = [2**i for i in range(11)]
    variances = [(torch.randn(4000, d) * torch.randn(4000, d)).sum(1).var().item() for d in d_ks]
    ax.loglog(d_ks, variances, "o-", color="#d9480f", markersize=3, label="q·k")
    ax.loglog(
        d_ks,
        [v / d for v, d in zip(variances, d_ks)],
        "o-",
        color="#1c7ed6",
        markersize=3,
        label="q·k / √d_k",
    )
    ax.legend(fontsize=6, frameon=False)
    ax.set_xlabel("d_k")
    ax.set_ylabel("variance")


def multi_head(ax) -> None:
    model = load_date_model()
    src = torch.tensor([DATE_VOCAB.encode("Sunday, 29 Nov 2026")])
    tgt = torch.tensor([DATE_VOCAB.encode("2026-11-29", bos=True)])
    _, attn = model(src, tgt)
    heads = attn.cross[-1][0]  # (h, T, S)
    ax.imshow(torch.cat(list(heads), dim=0).detach(), cmap="Purples", aspect="auto")
    ax.set_xlabel("source character")
    ax.set_ylabel("head × output step")
    _no_ticks(ax)


def positional(ax) -> None:
    ax.imshow(sinusoidal_encoding(64, 64).T, cmap="RdBu_r", aspect="auto")
    ax.set_xlabel("position")
    ax.set_ylabel("dimension")
    _no_ticks(ax)


def encoder_decoder(ax) -> None:
    model = load_date_model()
    src = torch.tensor([DATE_VOCAB.encode("2026年11月29日")])
    tgt = torch.tensor([DATE_VOCAB.encode("2026-11-29", bos=True)])
    _, attn = model(src, tgt)
    ax.imshow(attn.cross[-1][0].mean(0).detach(), cmap="Blues", aspect="auto")
    ax.set_xlabel("source character")
    ax.set_ylabel("output step")
    _no_ticks(ax)


def training(ax) -> None:
    steps = range(1, 20001)
    for warmup, colour in ((4000, "#1c7ed6"), (8000, "#d9480f")):
        ax.plot(
            steps, [noam_lr(s, 512, warmup) for s in steps], color=colour, label=f"warm-up {warmup}"
        )
    ax.legend(fontsize=6, frameon=False)
    ax.set_xlabel("step")
    ax.set_ylabel("learning rate")


def miniature(ax) -> None:
    """Cross-attention of the number-words model on 47: German says the seven first."""
    from attnbook.data.numbers import english, german
    from attnbook.headroom import load_number_model

    shipped = load_number_model()
    tok = shipped.data.tokenizer
    src = tok.encode_source(english(47))
    tgt = tok.encode(german(47), bos=True)
    _, attn = shipped.model(torch.tensor([src]), torch.tensor([tgt]))
    # row t is the step that writes target piece t + 1: label each row with what it writes
    weights = attn.cross[-1][0].mean(0)[: len(tgt) - 1].detach()  # (T - 1, S)
    ax.imshow(weights, cmap="Blues", vmin=0, vmax=1)
    ax.set_xticks(range(len(src)), [tok.decode([i]) for i in src], fontsize=8)
    ax.set_yticks(range(len(tgt) - 1), [tok.decode([i]) for i in tgt[1:]], fontsize=8)
    ax.set_xlabel("English source")
    ax.set_ylabel("German output")


def efficient(ax) -> None:
    n, window = 32, 4
    i = torch.arange(n)
    local = (i[:, None] - i[None, :]).abs() <= window
    ax.imshow(local & causal_mask(n), cmap="Greens")
    ax.set_xlabel("key")
    ax.set_ylabel("query")
    _no_ticks(ax)


def deployment(ax) -> None:
    set_seed(0)
    w = torch.randn(4000) * 0.05
    scale = w.abs().max() / 127
    ax.hist((w - torch.round(w / scale) * scale).numpy(), bins=40, color="#5f3dc4")
    ax.set_xticks([-scale / 2, 0, scale / 2], ["−Δ/2", "0", "Δ/2"])
    ax.set_xlabel("int8 rounding error (Δ = one step)")
    ax.set_ylabel("weights")


def modern(ax) -> None:
    n = 8
    masks = [torch.ones(n, n), causal_mask(n).float(), torch.ones(n, n)]
    # the visible keys in a mid blue (vmax above 1): a block of them stays dark on the dark page
    grid = torch.cat([torch.cat([m, torch.zeros(n, 1)], 1) for m in masks], 1)
    ax.imshow(grid, cmap="Blues", vmin=0, vmax=1.6)
    ax.set_xticks([n / 2 - 0.5, 1.5 * n, 2.5 * n + 0.5], ["BERT", "GPT", "ViT"])
    ax.set_yticks([])


# chapter file -> (the figure's title, how to draw it, the card's one-line summary)
CARDS = {
    "01_rnn_bottleneck": (
        "Gradients fade over distance",
        rnn,
        "Why recurrence is slow and forgetful: timings, gradients over distance, a recall task.",
    ),
    "02_attention": (
        "Attention weights",
        attention,
        "A soft dictionary lookup, built step by step and checked against PyTorch.",
    ),
    "03_scaling": (
        "Score variance grows with d_k",
        scaling,
        "The variance argument, softmax saturation, and what 1/d_k would do instead.",
    ),
    "04_multi_head": (
        "Four heads, four patterns",
        multi_head,
        "Heads that specialise on a task that needs two relations at once.",
    ),
    "05_positional_encoding": (
        "Sinusoidal positions",
        positional,
        "Sines and cosines, the rotation M_k, extrapolation, and RoPE.",
    ),
    "06_encoder_decoder": (
        "Cross-attention reads the date",
        encoder_decoder,
        "The whole Transformer, block by block, trained on CPU to translate dates.",
    ),
    "07_training": (
        "The warm-up schedule",
        training,
        "Warm-up, layer-norm placement, label smoothing, regularisation, mixed precision.",
    ),
    "08_paper_in_miniature": (
        "Cross-attention reorders",
        miniature,
        "Number words from English to German, BPE, and the paper's Tables 2 and 3 in miniature.",
    ),
    "09_efficient_attention": (
        "A local attention mask",
        efficient,
        "Local, block-sparse, LSH and linear attention, measured against the real thing.",
    ),
    "10_deployment": (
        "What int8 rounding costs",
        deployment,
        "INT8 quantization and distillation of a trained model.",
    ),
    "11_modern_transformers": (
        "Three masks, three families",
        modern,
        "BERT-, GPT- and ViT-style models from the same blocks, and a real pretrained encoder.",
    ),
}


def chapters() -> list[str]:
    """The chapter files of `_toc.yml`, in the sidebar's order."""
    toc = (ROOT / "_toc.yml").read_text(encoding="utf-8")
    return re.findall(r"file:\s*notebooks/(\S+)", toc)


def chapter_title(name: str) -> str:
    """The notebook's first heading (the sidebar's title)."""
    cells = json.loads((ROOT / "notebooks" / f"{name}.ipynb").read_text(encoding="utf-8"))["cells"]
    markdown = ["".join(c["source"]) for c in cells if c["cell_type"] == "markdown"]
    return next(
        line[2:].strip() for m in markdown for line in m.splitlines() if line.startswith("# ")
    )


def card_grid(names: list[str]) -> str:
    """MyST grid cards, one per chapter, numbered as the sidebar numbers them."""
    missing = [name for name in names if name not in CARDS]
    if missing:
        raise SystemExit(f"site/make_cards.py: no card for chapter(s) {missing}; add them to CARDS")
    cards = ["::::{grid} 1 2 2 3", ":gutter: 3", ""]
    for number, name in enumerate(names, start=1):
        title = chapter_title(name)
        figure_title, _, summary = CARDS[name]
        cards += [
            f":::{{grid-item-card}} {number}. {title}",
            f":link: ../notebooks/{name}",
            ":link-type: doc",
            f":img-top: images/cards/{name}.png",
            f":img-alt: {figure_title}: a small figure from chapter {number}",
            "",
            summary,
            "",
            # the build writes the chapter's reading time here (site/attnbook_site.py)
            f'<span class="attnbook-card-time" data-chapter="{name}">reading time</span>',
            ":::",
            "",
        ]
    cards.append("::::")
    return "\n".join(cards) + "\n"


def main() -> None:
    ZH_OUT.mkdir(parents=True, exist_ok=True)
    torch.set_grad_enabled(False)
    cjk = installed_cjk_font()  # a fallback for the Chinese cards' characters
    if cjk:  # named one by one: matplotlib falls back only along font.family's own list
        plt.rcParams["font.family"] = [plt.rcParams["font.sans-serif"][0], cjk]
    labels = yaml.safe_load(LABELS.read_text(encoding="utf-8"))
    names = chapters()
    (OUT / "cards.md").write_text(card_grid(names), encoding="utf-8")
    for name in names:
        figure_title, draw, _ = CARDS[name]
        _card(name, figure_title, draw, labels)
    print(f"drew {len(names)} chapter cards into {OUT.relative_to(ROOT)}, in English and Chinese")


if __name__ == "__main__":
    main()
