"""attnbook.modern: the zoo language, BERT-style masking, the three small models, training."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F

from attnbook.attention import causal_mask
from attnbook.data import (
    IGNORE_INDEX,
    SHAPES,
    ZOO_SPECIALS,
    ZooLanguage,
    mask_tokens,
    shape_images,
    shape_patches,
    shape_stamps,
)
from attnbook.model import TransformerConfig
from attnbook.modern import (
    CausalLM,
    MaskedLM,
    PatchClassifier,
    causal_lm_loss,
    patchify,
    sample_tokens,
    train_causal_lm,
    train_patch_classifier,
)
from attnbook.train import fit, warmup_linear_decay

LANG = ZooLanguage()


def gen(seed: int = 0) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def tiny_lm(cls, **kw):
    torch.manual_seed(0)
    return cls(TransformerConfig.tiny(len(LANG.vocab), **kw)).eval()


# ---------------------------------------------------------------- the language


def test_samples_are_grammatical_and_round_trip():
    ids = LANG.sample(500, gen())
    assert ids.shape == (500, 9)
    assert LANG.is_grammatical(ids).all()
    text = LANG.decode(ids[0])
    assert LANG.encode(text) == ids[0].tolist()


def test_the_rules():
    ok = "the cats near my dog chase the birds ."
    assert LANG.is_grammatical(torch.tensor(LANG.encode(ok))).item()
    for bad in (
        "the cats near my dog chases the birds .",  # agrees with the nearer noun, not the subject
        "the cat near my dogs chase the birds .",  # same mistake the other way
        "the cats near my dog chase the frogs .",  # chase takes cats or birds
        "the cats near my dog fear the birds .",  # cats chase or see
        "the cats near my dog chase the birds birds",  # no full stop
        "cats the near my dog chase the birds .",  # word order
    ):
        assert not LANG.is_grammatical(torch.tensor(LANG.encode(bad))).item(), bad


def test_entropy_is_log_of_the_number_of_sentences():
    # all 2^13 choices give distinct grammatical sentences, so uniform sampling has 13 bits
    assert LANG.entropy_bits() == 13.0
    ids = LANG.sample(200_000, gen(1))
    distinct = torch.unique(ids, dim=0).size(0)
    assert distinct <= 2**13 and distinct > 0.99 * 2**13


def test_fillers_agree_with_slot_bits_on_the_left_only_slots():
    ids = LANG.sample(300, gen(2))
    for slot in range(9):
        fill = LANG.fillers(ids, slot)
        assert fill[torch.arange(300), ids[:, slot]].all()  # the true word always fits
    # the subject's number is fixed by the verb to its right: only one form fits
    fill = LANG.fillers(ids, 1)
    assert (fill.sum(1) <= 2 ** LANG.slot_bits()[1] / 2).all()
    assert LANG.fillers(ids, 8).sum(1).eq(1).all()  # only "." ends a sentence


def test_stream_and_errors():
    s = LANG.stream(4, 3, gen(), bos=True)
    assert s.shape == (4, 28) and (s[:, 0] == LANG.bos_id).all()
    assert LANG.is_grammatical(s[:, 1:].reshape(12, 9)).all()
    with pytest.raises(ValueError, match="9 tokens"):
        LANG.is_grammatical(torch.zeros(2, 8, dtype=torch.long))
    with pytest.raises(ValueError, match="not in the vocabulary"):
        LANG.encode("the unicorn")
    with pytest.raises(ValueError, match="unknown or repeated"):
        ZooLanguage(subject_verbs=(("chase", "eat"),) * 4)
    with pytest.raises(ValueError, match="one row per word"):
        ZooLanguage(verb_objects=(("cat",),) * 3)


def test_masking_follows_bert():
    ids = LANG.stream(2000, 1, gen())
    words = (len(ZOO_SPECIALS), len(LANG.vocab))
    inputs, targets = mask_tokens(ids, LANG.mask_id, words, 0.15, gen(1))
    chosen = targets != IGNORE_INDEX
    assert abs(chosen.float().mean().item() - 0.15) < 0.01
    assert torch.equal(targets[chosen], ids[chosen])
    assert torch.equal(inputs[~chosen], ids[~chosen])  # unchosen tokens are untouched
    masked = (inputs[chosen] == LANG.mask_id).float().mean().item()
    kept = (inputs[chosen] == ids[chosen]).float().mean().item()
    assert abs(masked - 0.8) < 0.03 and 0.09 < kept < 0.16  # 10% kept + random hits
    with pytest.raises(ValueError, match="p must be"):
        mask_tokens(ids, LANG.mask_id, words, p=0.0)


# ---------------------------------------------------------------- the models


def test_causal_lm_is_an_encoder_stack_under_the_causal_mask():
    gpt = tiny_lm(CausalLM)
    ids = LANG.stream(3, 1, gen(), bos=True)
    logits, weights = gpt(ids)
    assert logits.shape == (3, 10, len(LANG.vocab)) and len(weights) == 2
    for w in weights:
        assert w.shape == (3, 4, 10, 10) and torch.all(w.triu(1) == 0)
    x = gpt.embed(ids)
    for layer in gpt.encoder:
        x, _ = layer(x, causal_mask(ids.size(1)))
    torch.testing.assert_close(gpt.head(x), logits)


def test_future_tokens_change_masked_lm_but_not_causal_lm():
    ids = LANG.stream(2, 1, gen(), bos=True)
    changed = ids.clone()
    changed[:, 6:] = LANG.stream(2, 1, gen(5))[:, 5:]
    gpt, bert = tiny_lm(CausalLM), tiny_lm(MaskedLM)
    torch.testing.assert_close(gpt(ids)[0][:, :6], gpt(changed)[0][:, :6])
    assert not torch.allclose(bert(ids)[0][:, :6], bert(changed)[0][:, :6])
    assert all((w > 0).all() for w in bert(ids)[1])  # every position sees every position


def test_lm_input_errors():
    gpt = tiny_lm(CausalLM)
    with pytest.raises(TypeError, match="ids must be a long"):
        gpt(torch.zeros(2, 5))
    with pytest.raises(ValueError, match="max_len"):
        gpt(torch.zeros(1, 65, dtype=torch.long))
    with pytest.raises(ValueError, match="causal"):
        sample_tokens(tiny_lm(MaskedLM), torch.ones(1, 1, dtype=torch.long), 3)


def test_sampling_extends_the_prompt_reproducibly():
    gpt = tiny_lm(CausalLM)
    prompt = torch.full((4, 1), LANG.bos_id)
    a = sample_tokens(gpt, prompt, 9, gen(3))
    b = sample_tokens(gpt, prompt, 9, gen(3))
    assert a.shape == (4, 10) and torch.equal(a, b) and torch.equal(a[:, :1], prompt)


def test_patchify_matches_conv2d_and_unfold():
    torch.manual_seed(0)
    x = torch.randn(2, 3, 8, 12)
    p, d = 4, 5
    conv = torch.nn.Conv2d(3, d, kernel_size=p, stride=p)
    linear = torch.nn.Linear(p * p * 3, d)
    linear.weight.data = conv.weight.data.permute(0, 2, 3, 1).reshape(d, -1)  # (d, p, p, C)
    linear.bias.data = conv.bias.data
    expected = conv(x).flatten(2).transpose(1, 2)  # (B, P, d), patches row by row
    torch.testing.assert_close(linear(patchify(x, p)), expected)
    unfold = F.unfold(x, p, stride=p).transpose(1, 2)  # (B, P, C·p·p)
    reordered = unfold.reshape(2, 6, 3, p, p).permute(0, 1, 3, 4, 2).reshape(2, 6, -1)
    torch.testing.assert_close(patchify(x, p), reordered)
    with pytest.raises(ValueError, match="divide"):
        patchify(x, 5)


def test_shape_images_and_their_patches():
    data = shape_images(50, generator=gen())
    assert data.images.shape == (50, 1, 16, 16) and data.labels.max() < len(SHAPES)
    clean = shape_images(50, noise=0.0, generator=gen())
    stamps = shape_stamps()
    for i in range(50):
        r, c = clean.corners[i].tolist()
        assert torch.equal(clean.images[i, 0, r : r + 5, c : c + 5], stamps[clean.labels[i]])
        assert clean.images[i].sum() == stamps[clean.labels[i]].sum()  # nothing elsewhere
    marked = shape_patches(clean.corners, 16, 4)
    assert marked.shape == (50, 16)
    patches = patchify(clean.images, 4)  # (50, 16, 16)
    touched = patches.abs().sum(-1) > 0
    assert not (touched & ~marked).any()  # every lit patch is marked
    assert (marked.sum(1) >= 4).all() and (marked.sum(1) <= 9).all()  # a 5×5 box: 2×2 to 3×3


def test_patch_classifier_shapes_and_cls():
    torch.manual_seed(0)
    vit = PatchClassifier(TransformerConfig.tiny(4, norm_first=True), 16, 4, 4).eval()
    logits, weights = vit(torch.randn(3, 1, 16, 16))
    assert logits.shape == (3, 4) and len(weights) == 2
    assert weights[0].shape == (3, 4, 17, 17)
    torch.testing.assert_close(weights[0].sum(-1), torch.ones(3, 4, 17))
    with pytest.raises(ValueError, match="divide"):
        PatchClassifier(TransformerConfig.tiny(4), 16, 5, 4)


# ---------------------------------------------------------------- training


def test_fit_lowers_the_loss_and_validates():
    torch.manual_seed(0)
    gpt = CausalLM(TransformerConfig.tiny(len(LANG.vocab), d_model=32, d_ff=64))
    g = gen()
    batches = iter(lambda: LANG.stream(32, 1, g, bos=True), None)
    lr = lambda s: warmup_linear_decay(s, 3e-3, 30, 40)  # noqa: E731
    history = fit(gpt, batches, causal_lm_loss, 40, lr, progress=False)
    assert history.steps == 40 and not gpt.training
    assert sum(history.loss[-5:]) / 5 < 0.7 * sum(history.loss[:5]) / 5
    with pytest.raises(ValueError, match="steps must be a positive int, got 0"):
        fit(gpt, batches, causal_lm_loss, 0, lr)


def test_trained_gpt_nears_the_entropy_and_writes_grammatical_sentences():
    gpt, _ = train_causal_lm(steps=200, progress=False)
    held_out = LANG.stream(1000, 1, gen(7), bos=True)
    with torch.no_grad():
        loss = causal_lm_loss(gpt, held_out).item()
    floor = LANG.entropy_bits() * math.log(2) / 9  # nats per predicted token
    assert floor <= loss + 0.02 and loss < floor + 0.1
    s = sample_tokens(gpt, torch.full((300, 1), LANG.bos_id), 9, gen(8))
    assert LANG.is_grammatical(s[:, 1:]).float().mean() > 0.8


def test_trained_vit_beats_chance():
    vit, _ = train_patch_classifier(steps=150, progress=False)
    test = shape_images(400, generator=gen(9))
    with torch.no_grad():
        accuracy = (vit(test.images)[0].argmax(-1) == test.labels).float().mean()
    assert accuracy > 0.6  # chance is 0.25


def test_patch_attention_explorer_state_and_errors():
    from attnbook.viz.explorers.modern import PatchAttentionExplorer

    torch.manual_seed(0)
    vit = PatchClassifier(TransformerConfig.tiny(4, norm_first=True), 16, 4, 4).eval()
    data = shape_images(3, generator=gen())
    with torch.no_grad():
        logits, weights = vit(data.images)
    names = [SHAPES[y] for y in data.labels]
    marked = shape_patches(data.corners, 16, 4)
    explorer = PatchAttentionExplorer(data.images, weights, names, names, marked, patch=4)
    assert len(explorer.images) == 3 and len(explorer.images[0]) == 16
    # the [CLS] rows: (n, N, h, 1 + P), each a distribution over the 17 keys
    assert len(explorer.cls[0]) == 2 and len(explorer.cls[0][0]) == 4
    assert abs(sum(explorer.cls[1][1][2]) - 1) < 1e-3
    with pytest.raises(ValueError, match="attention"):
        PatchAttentionExplorer(data.images, [w[:, :, :5] for w in weights], names, names, marked, 4)
    with pytest.raises(ValueError, match="divide"):
        PatchAttentionExplorer(data.images, weights, names, names, marked, patch=5)
    with pytest.raises(ValueError, match="labels"):
        PatchAttentionExplorer(data.images, weights, names[:2], names, marked, patch=4)


def test_progress_bar_follows_tqdm_disable(monkeypatch, capsys):
    """The build sets TQDM_DISABLE=1: no bar then; a reader's run keeps it."""
    monkeypatch.setenv("TQDM_DISABLE", "1")
    train_patch_classifier(steps=31, batch_size=4)
    assert "ViT" not in capsys.readouterr().err
    monkeypatch.delenv("TQDM_DISABLE")
    train_patch_classifier(steps=31, batch_size=4)
    assert "ViT" in capsys.readouterr().err
    train_patch_classifier(steps=31, batch_size=4, progress=False)
    assert "ViT" not in capsys.readouterr().err
