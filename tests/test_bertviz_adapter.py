"""attnbook.viz.bertviz_adapter: what the HTML it returns holds (the browser checks are in
test_site.py, on the built pages)."""

from __future__ import annotations

import json
import re

import pytest
import torch

from attnbook.viz import head_view, model_view


def _layers(L=2, h=3, T=4, seed=0):
    g = torch.Generator().manual_seed(seed)
    return [torch.softmax(torch.randn(1, h, T, T, generator=g), -1) for _ in range(L)]


def _params(html: str) -> dict:
    params = re.search(r"const params = (\{.*?\});", html)[1]
    return json.loads(params.replace("attnbookTheme()", '"light"'))


@pytest.mark.parametrize("view", [head_view, model_view])
def test_params_once_and_rounded(view):
    layers = _layers()
    html = view(layers, list("abcd")).data
    assert html.count('"left_text"') == 1  # bertviz's params-in-a-comment copy is gone
    attn = torch.tensor(_params(html)["attention"][0]["attn"], dtype=torch.float64)
    expected = torch.round(torch.cat(layers).double(), decimals=3)
    torch.testing.assert_close(attn, expected, rtol=0, atol=1e-12)


def test_head_view_patches_apply_to_the_pinned_bertviz():
    from attnbook.viz.bertviz_adapter import HEAD_VIEW_PATCHES

    html = head_view(_layers(), list("abcd")).data
    for name, _, new in HEAD_VIEW_PATCHES:
        assert new in html, f"not applied: {name}"
    assert "updateLayer();" in html and "function updateLayer()" in html
    assert "line.__opacity" in html  # opacities set in one pass, only where they change
    assert "kept.set(old.dataset.filter, old)" in html  # attention types drawn once
    assert 'console.log("d3 version"' not in html


def test_model_view_follows_the_page_theme_and_column():
    from attnbook.viz.bertviz_adapter import MODEL_VIEW_PATCHES

    html = model_view(_layers(), list("abcd")).data
    for name, _, new in MODEL_VIEW_PATCHES:
        assert new in html, f"not applied: {name}"
    assert '"display_mode": attnbookTheme()' in html
    assert "const DIV_WIDTH = Math.max(480, Math.min(970, attnbookWidth(" in html
    assert 'kept.set(config.svg.attr("data-filter"), config.svg)' in html
    assert 'console.log("x"' not in html
    assert 'class="attnbook-bertviz-box"' in html  # scrolls inside its own box when narrow


def test_layer_picker_labelled_and_hidden_with_one_layer():
    one = head_view(_layers(L=1), list("abcd")).data
    two = head_view(_layers(L=2), list("abcd")).data
    assert '<label hidden>Layer <select id="layer"></select></label>' in one
    assert '<label>Layer <select id="layer"></select></label>' in two


def test_legend_has_one_button_per_head_in_bertviz_colours():
    html = head_view(_layers(h=3), list("abcd")).data
    buttons = re.findall(
        r'<button type="button" data-head="(\d+)" data-colour="(#[0-9a-f]{6})"', html
    )
    assert buttons == [("0", "#1f77b4"), ("1", "#ff7f0e"), ("2", "#2ca02c")]


def test_summary_names_the_key_each_head_attends_to():
    T = 4
    w = torch.zeros(1, 2, T, T)
    w[0, 0, :, 2] = 1.0  # head 0: every query on token "c"
    w[0, 1] = torch.eye(T)  # head 1: each token on itself (0.25 on average for each)
    html = head_view([w], list("abcd")).data
    summary = re.search(r'class="attnbook-visually-hidden">(.*?)</p>', html)[1]
    assert "head 0: &#x27;c&#x27; (1.00)" in summary
    assert "head 1: &#x27;a&#x27; (0.25)" in summary
    figure = re.search(r"<figure [^>]*>", html)[0]
    assert "aria-label=" in figure and "aria-describedby=" in figure


def test_cross_attention_summary_uses_decoder_queries_and_encoder_keys():
    cross = [torch.softmax(torch.randn(2, 2, 3), -1)]
    html = head_view(
        cross_attention=cross, encoder_tokens=list("xyz"), decoder_tokens=["A", "B"]
    ).data
    assert "2 query and 3 key tokens" in html


def test_token_count_must_match_the_weights():
    with pytest.raises(ValueError, match="3 query and 3 key tokens"):
        head_view(_layers(T=4), list("abc"))
