"""The translator explorer: a trained encoder–decoder that runs in the reader's browser.

The widget carries the model as :mod:`attnbook.web` exports it (a manifest and one binary of
weights); ``js/transformer.js`` runs the forward pass, greedy decoding and beam search in the
page at every keystroke, with no kernel. Two ways to get the weights to the page:

- the ``weights`` bytes: the widget carries them, so it works in Colab and JupyterLab, live
  or reopened from a saved notebook;
- ``weights_url``: the same file on the book's static site, relative to its ``_static/``
  folder. The site's build writes the shipped model's export there once and removes the
  ``weights`` bytes from the saved state of every page whose widget names that file (and
  holds the same weights), so a page carries a few kilobytes of state and fetches the
  0.5 MB of weights once, however many translators it shows.

Every word the page shows comes from the string tables of ``js/translator_strings.js``, one
per language (English, Simplified Chinese), picked by the page's language;
:func:`translator_strings` reads them as data for Python (the site's load button uses them).
"""

from __future__ import annotations

import ast
import re
from functools import cache

import torch
import traitlets

from attnbook import web
from attnbook.checks import describe
from attnbook.data.vocab import Vocabulary
from attnbook.model import Transformer
from attnbook.viz.explorers._base import JS, Explorer, _Bundled, stylesheet

DECODINGS = ("greedy", "beam")


_TABLE = re.compile(r"^export const TRANSLATOR_STRINGS = \{\n(.*?)^\};$", re.M | re.S)
_LANGUAGE = re.compile(r"^  (\w+): \{\n(.*?)^  \},$", re.M | re.S)
_ENTRY = re.compile(r"""^ {4}"([\w.]+)":\s*("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'),$""", re.M)


@cache
def translator_strings() -> dict[str, dict[str, str]]:
    """The translator's string tables, ``{"en": {key: text}, "zh": {key: text}}``, read from
    ``js/translator_strings.js`` (the page's own copy; ``tests/test_web.py`` checks that
    node reads the same)."""
    source = (JS / "translator_strings.js").read_text(encoding="utf-8")
    table = _TABLE.search(source)
    if table is None:
        raise ValueError("translator_strings.js holds no `export const TRANSLATOR_STRINGS = {…};`")
    return {
        language: {key: ast.literal_eval(text) for key, text in _ENTRY.findall(body)}
        for language, body in _LANGUAGE.findall(table.group(1))
    }


@cache
def _stylesheet(_module: str) -> str:
    return stylesheet() + (JS / "translator.css").read_text(encoding="utf-8")


class TranslatorExplorer(Explorer):
    """Type a source, read the model's translation and what each output character attended to.

    ``TranslatorExplorer(model, vocab)`` runs any :class:`~attnbook.model.Transformer` with a
    character vocabulary; ``for_date_model()`` the book's shipped date model, with the
    site's copy of its weights. The DOM: an ``<input type="text" name="source">`` and an
    ``<output name="translation">`` inside the root ``.attnbook-explorer.attnbook-translator``,
    and one button per example (``.ae-examples button``: for the date model, one per format
    it reads). The traits ``source`` and ``translation`` follow what the reader typed and what
    the page computed (``translation`` is empty while the source is not one the model reads,
    though the page keeps showing the last translation while a date is being typed);
    ``decoding`` ("greedy" or "beam"), ``layer``, ``head`` (−1: the mean over heads) and
    ``step`` (the output step replayed, 1 … T; −1: the last) follow the controls. The page
    speaks its own language (English, or Chinese where ``lang`` is zh-CN).
    """

    _module = "translator_explorer"
    _css = _Bundled(_stylesheet)

    manifest = traitlets.Dict().tag(sync=True)
    weights = traitlets.Bytes(b"").tag(sync=True)
    weights_url = traitlets.Unicode("").tag(sync=True)  # relative to the site's _static/
    source = traitlets.Unicode("").tag(sync=True)
    translation = traitlets.Unicode("").tag(sync=True)  # written by the page
    decoding = traitlets.Enum(DECODINGS, "greedy").tag(sync=True)
    layer = traitlets.Int(0).tag(sync=True)
    head = traitlets.Int(-1).tag(sync=True)
    step = traitlets.Int(-1).tag(sync=True)

    def __init__(
        self,
        model: Transformer,
        vocab: Vocabulary,
        source: str = "",
        *,
        dtype: torch.dtype | str = torch.float16,
        weights_url: str = "",
        decoding: str = "greedy",
        layer: int | None = None,
        head: int = -1,
        **options,
    ) -> None:
        """``options`` go to :func:`attnbook.web.pack` (max_input, example, label, max_len,
        beam_size, alpha)."""
        manifest, weights = web.pack(model, vocab, dtype, **options)
        N, h = manifest["config"]["N"], manifest["config"]["h"]
        for name, value in (("source", source), ("weights_url", weights_url)):
            if not isinstance(value, str):
                raise TypeError(f"{name} must be a string, got {describe(value)}")
        if "://" in weights_url or weights_url.startswith("/"):
            raise ValueError(
                f"weights_url must be relative to the site's _static/ folder, got {weights_url!r}"
            )
        if decoding not in DECODINGS:
            raise ValueError(f"decoding must be one of {DECODINGS}, got {decoding!r}")
        layer = N - 1 if layer is None else layer
        if isinstance(layer, bool) or not isinstance(layer, int) or not 0 <= layer < N:
            raise ValueError(f"layer must be an int in 0 … {N - 1}, got {layer!r}")
        if isinstance(head, bool) or not isinstance(head, int) or not -1 <= head < h:
            raise ValueError(
                f"head must be −1 (mean of heads) or an int in 0 … {h - 1}, got {head!r}"
            )
        super().__init__(
            manifest=manifest,
            weights=weights,
            weights_url=weights_url,
            source=source,
            decoding=decoding,
            layer=layer,
            head=head,
        )

    @classmethod
    def for_date_model(cls, source: str = "29 November 2026", **kwargs) -> TranslatorExplorer:
        """The shipped date model (``attnbook.recipes.load_date_model``), as the book shows it.

        On the book's site its weights come from the site's own export of that model
        (``_static/attnbook-models/dates/``); elsewhere from the widget itself.
        ``kwargs``: ``decoding``, ``layer``, ``head``.
        """
        from attnbook.data.dates import DATE_VOCAB
        from attnbook.recipes import load_date_model

        url = web.site_path(web.DATE_MODEL) + web.WEIGHTS
        options = web.date_model_options()
        return cls(load_date_model(), DATE_VOCAB, source, weights_url=url, **options, **kwargs)
