"""The one door to bertviz: the package's attention weights in, one HTML output back.

bertviz's own output loads require.js, d3 and jQuery from a public CDN. The HTML
returned here looks first for the book site's self-hosted copies (the folder
named by the page's ``<meta name="attnbook-vendor">`` tag) and uses the CDN only
where there is none, as in Colab or JupyterLab.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import torch
from IPython.display import HTML

_CDN = "https://cdnjs.cloudflare.com/ajax/libs/"
_CDN_REQUIRE = _CDN + "require.js/2.3.6/require.min.js"
_CDN_D3 = _CDN + "d3/5.7.0/d3.min"
_CDN_JQUERY = _CDN + "jquery/2.0.0/jquery.min"

_REQUIRE_TAG = re.compile(r'<script src="[^"]*require\.min\.js"></script>')
_REQUIRE_CONFIG = re.compile(r"require\.config\(\{\s*paths:\s*\{[^}]*\}\s*\}\);")

# Runs in the browser: pick the site's vendored libraries when the page has them.
_LOADER = """
(function () {
  var meta = document.querySelector('meta[name="attnbook-vendor"]');
  var base = meta ? new URL(meta.content, document.baseURI).href : null;
  var paths = base ? {d3: base + "d3.min", jquery: base + "jquery.min"}
                   : {d3: "%(d3)s", jquery: "%(jquery)s"};
  function draw() {
    require.config({paths: paths});
    %(body)s
  }
  function load() {
    if (window.requirejs) { draw(); return; }
    var s = document.createElement("script");
    s.src = base ? base + "require.js" : "%(require)s";
    s.onload = draw;
    document.head.appendChild(s);
  }
  // require.js must come after the page's own scripts, some of which are UMD bundles
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", load);
  else load();
})();
"""


def _as_layers(attention: Sequence[torch.Tensor] | torch.Tensor, name: str) -> list[torch.Tensor]:
    """Per-layer weights, each ``(1, h, T_q, T_k)`` as bertviz expects."""
    layers = list(attention.unbind(0)) if isinstance(attention, torch.Tensor) else list(attention)
    if not layers:
        raise ValueError(f"{name}: no layers given")
    out = []
    for i, w in enumerate(layers):
        w = torch.as_tensor(w).detach().float().cpu()
        if w.dim() == 3:
            w = w.unsqueeze(0)
        if w.dim() != 4 or w.size(0) != 1:
            raise ValueError(
                f"{name}[{i}] must be (h, T_q, T_k) or (1, h, T_q, T_k), got {tuple(w.shape)}"
            )
        out.append(w)
    return out


def _self_host(html: str) -> HTML:
    """Rewrite bertviz's HTML so its libraries come from the site when it has them."""
    html = _REQUIRE_TAG.sub("", html, count=1)
    start = html.index('<script type="text/javascript">') + len('<script type="text/javascript">')
    end = html.rindex("</script>")
    body = _REQUIRE_CONFIG.sub("", html[start:end], count=1)
    loader = _LOADER % {
        "d3": _CDN_D3,
        "jquery": _CDN_JQUERY,
        "require": _CDN_REQUIRE,
        "body": body,
    }
    return HTML(html[:start] + loader + html[end:])


def _prepare(kwargs: dict) -> dict:
    for key in ("attention", "encoder_attention", "decoder_attention", "cross_attention"):
        if kwargs.get(key) is not None:
            kwargs[key] = _as_layers(kwargs[key], key)
    return kwargs


def head_view(attention=None, tokens=None, **kwargs) -> HTML:
    """bertviz's head view of per-layer weights ``[(1, h, T_q, T_k), …]``.

    Accepts bertviz's keyword arguments (``encoder_attention``, ``cross_attention``,
    ``encoder_tokens``, ``decoder_tokens``, ``layer``, ``heads``…).
    """
    from bertviz import head_view as _head_view

    kwargs = _prepare({"attention": attention, "tokens": tokens, **kwargs})
    return _self_host(_head_view(html_action="return", **kwargs).data)


def model_view(attention=None, tokens=None, **kwargs) -> HTML:
    """bertviz's model view (every layer × every head) of per-layer weights."""
    from bertviz import model_view as _model_view

    kwargs = _prepare({"attention": attention, "tokens": tokens, **kwargs})
    return _self_host(_model_view(html_action="return", **kwargs).data)
