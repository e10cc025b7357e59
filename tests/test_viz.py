"""attnbook.viz: figures, the bertviz adapter, the explorers and glue."""

from __future__ import annotations

import math
import re

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402
from IPython.core.interactiveshell import InteractiveShell  # noqa: E402

from attnbook.viz import AttentionExplorer, glue, head_view, model_view, plot_attention  # noqa: E402


def test_plot_attention_labels_and_values():
    w = torch.softmax(torch.randn(3, 4), dim=-1)
    fig = plot_attention(w, ["a", "b", "c"], ["w", "x", "y", "z"], title="t")
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["w", "x", "y", "z"]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["a", "b", "c"]
    assert ax.get_title() == "t" and ax.get_xlabel().startswith("key")
    assert ax.images[0].get_array().shape == (3, 4)
    assert len(ax.texts) == 12  # small matrices are annotated
    plt.close(fig)


def test_plot_attention_rejects_bad_input():
    with pytest.raises(ValueError, match="2-D"):
        plot_attention(torch.rand(2, 3, 4))
    with pytest.raises(ValueError, match="labels"):
        plot_attention(torch.rand(2, 3), ["a"], ["x", "y", "z"])


def _layers(L=2, h=2, T=4):
    g = torch.Generator().manual_seed(0)
    return [torch.softmax(torch.randn(1, h, T, T, generator=g), -1) for _ in range(L)]


@pytest.mark.parametrize("view", [head_view, model_view])
def test_bertviz_adapter_self_hosts_its_libraries(view):
    html = view(_layers(), ["a", "b", "c", "d"]).data
    assert "<script src=" not in html  # bertviz's CDN require.js tag is gone
    assert 'meta[name="attnbook-vendor"]' in html  # looks for the site's copies first
    assert html.count("require.config(") == 1  # bertviz's own CDN paths were replaced
    # the CDN stays only as the fallback for Colab / JupyterLab
    assert "cdnjs.cloudflare.com/ajax/libs/d3/5.7.0/d3.min" in html
    assert re.search(r'id="bertviz-[0-9a-f]+"', html)
    assert '"left_text": ["a", "b", "c", "d"]' in html


def test_bertviz_adapter_accepts_head_tensors_and_rejects_bad_shapes():
    layer = torch.softmax(torch.randn(3, 4, 4), -1)  # (h, T, T) without the batch axis
    assert "bertviz-" in head_view([layer], list("abcd")).data
    with pytest.raises(ValueError, match="attention\\[0\\]"):
        head_view([torch.rand(4, 4)], list("abcd"))
    with pytest.raises(ValueError, match="no layers"):
        head_view([], list("abcd"))


def test_bertviz_adapter_encoder_decoder_views():
    enc, dec = ["x", "y", "z"], ["a", "b"]
    html = model_view(
        encoder_attention=[torch.softmax(torch.randn(2, 3, 3), -1)],
        decoder_attention=[torch.softmax(torch.randn(2, 2, 2), -1)],
        cross_attention=[torch.softmax(torch.randn(2, 2, 3), -1)],
        encoder_tokens=enc,
        decoder_tokens=dec,
    ).data
    assert '"name": "Cross"' in html and '"name": "Encoder"' in html


def test_attention_explorer_state_is_scaled_scores_and_values():
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(4, 3, generator=g) for _ in range(3))
    w = AttentionExplorer(list("abcd"), q, k, v, query=2, temperature=0.5)
    expected = (q @ k.T / math.sqrt(3)).tolist()
    for row, ref in zip(w.scores, expected):
        assert row == pytest.approx(ref, abs=1e-5)
    torch.testing.assert_close(torch.tensor(w.values), v, atol=1e-5, rtol=0)
    assert w.query == 2 and w.temperature == 0.5


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"query": 4}, "query must index"),
        ({"temperature": 0.0}, "temperature"),
        ({"tokens": list("abc")}, "3 tokens"),
    ],
)
def test_attention_explorer_rejects_bad_input(kwargs, message):
    q = k = v = torch.randn(4, 3)
    args = {"tokens": list("abcd"), "q": q, "k": k, "v": v, **kwargs}
    with pytest.raises(ValueError, match=message):
        AttentionExplorer(**args)


def test_glue_writes_the_same_record_as_myst_nb(monkeypatch):
    myst_nb = pytest.importorskip("myst_nb")
    InteractiveShell.instance()
    records = []

    def capture(obj, raw=False, metadata=None):
        records.append((obj, metadata))

    monkeypatch.setattr("attnbook.viz.record.ipy_display", capture)
    monkeypatch.setattr("myst_nb.ext.glue.ipy_display", capture)
    for display in (True, False):
        records.clear()
        glue("x", 0.123, display=display)
        myst_nb.glue("x", 0.123, display=display)
        assert records[0] == records[1]
        assert records[0][1]["scrapbook"]["name"] == "x"


def test_glue_needs_a_name():
    with pytest.raises(ValueError):
        glue("", 1)
