"""attnbook.data: one token convention, one ignore index, every task reproducible from a
torch.Generator."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from attnbook import data
from attnbook.data import (
    BOS_ID,
    COPY_VOCAB,
    DATE_VOCAB,
    EOS_ID,
    IGNORE_INDEX,
    PAD_ID,
    QUERY_ID,
    SPECIALS,
    ZOO_SPECIALS,
    ZooLanguage,
    cipher_batch,
    copy_batch,
    k_back_batch,
    recall_batch,
    recall_vocab_size,
    retrieval_batch,
    shape_images,
)


def gen(seed: int = 0) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def test_one_special_token_convention():
    assert SPECIALS == ("<pad>", "<bos>", "<eos>") and (PAD_ID, BOS_ID, EOS_ID) == (0, 1, 2)
    assert DATE_VOCAB.itos[:3] == list(SPECIALS)
    assert ZOO_SPECIALS[:3] == SPECIALS and ZooLanguage().vocab[:4] == ZOO_SPECIALS
    lang = ZooLanguage()
    assert (lang.pad_id, lang.bos_id, lang.eos_id, lang.mask_id) == (0, 1, 2, 3)
    assert QUERY_ID == 3 and recall_vocab_size(8) == 12  # 3 specials, ?, 8 symbols
    assert IGNORE_INDEX == -100 == F.cross_entropy.__defaults__[2]  # cross_entropy's default


def test_ignore_index_is_defined_once():
    from attnbook import heads, modern, rnn
    from attnbook.data import sequences, vocab, zoo

    for module in (heads, modern, sequences, zoo):
        assert module.IGNORE_INDEX is vocab.IGNORE_INDEX
    for name in ("IGNORE", "QUERY"):
        assert not hasattr(heads, name) and not hasattr(rnn, name) and not hasattr(modern, name)


@pytest.mark.parametrize("reverse", [False, True])
def test_copy_and_reverse(reverse):
    src, tgt = copy_batch(5, T=7, generator=gen(), reverse=reverse)
    assert src.shape == (5, 7) and tgt.shape == (5, 9)
    assert (tgt[:, 0] == BOS_ID).all() and (tgt[:, -1] == EOS_ID).all()
    body = src.flip(1) if reverse else src
    assert torch.equal(tgt[:, 1:-1], body)
    assert src.min() >= 3 and src.max() < COPY_VOCAB  # the symbols come after the specials
    again, _ = copy_batch(5, T=7, generator=gen(), reverse=reverse)
    assert torch.equal(src, again)


def test_drawing_at_once_equals_drawing_one_batch_at_a_time():
    from attnbook.recipes import copy_batches

    g = gen(3)
    one_by_one = [copy_batch(4, 6, generator=g) for _ in range(5)]
    for (a, b), (c, d) in zip(one_by_one, copy_batches(5, 4, 6, seed=3)):
        assert torch.equal(a, c) and torch.equal(b, d)


def test_recall_uses_the_convention():
    x, y = recall_batch(100, n=5, K=6, generator=gen())
    assert (x[:, -1] == QUERY_ID).all() and torch.equal(y, x[:, 0])
    assert x[:, :-1].min() >= QUERY_ID + 1 and x[:, :-1].max() < recall_vocab_size(6)


def test_k_back_targets_the_digit_k_positions_earlier():
    ids, target = k_back_batch(4, 10, k=3, generator=gen())
    assert (target[:, :3] == IGNORE_INDEX).all()
    assert torch.equal(target[:, 3:], ids[:, :-3])
    assert ids.min() >= 0 and ids.max() < 10
    with pytest.raises(ValueError, match="k=10 leaves no target"):
        k_back_batch(4, 10, k=10)


def test_cipher_batch_uses_the_ignore_index():
    batch = cipher_batch(8, T=6, K=5, key_span=3, generator=gen())
    answered = batch.targets != IGNORE_INDEX
    assert answered.any() and (~answered).any()
    assert batch.targets[answered].min() >= 0 and batch.targets[answered].max() < 5


def test_masked_lm_targets_use_the_ignore_index():
    lang = ZooLanguage()
    ids = lang.stream(50, 1, gen())
    inputs, targets = data.mask_tokens(ids, lang.mask_id, (len(ZOO_SPECIALS), len(lang.vocab)))
    assert set(targets.unique().tolist()) - set(ids.unique().tolist()) == {IGNORE_INDEX}


@pytest.mark.parametrize(
    "draw",
    [
        lambda g: copy_batch(3, 4, generator=g),
        lambda g: recall_batch(3, 4, generator=g),
        lambda g: k_back_batch(3, 6, generator=g),
        lambda g: cipher_batch(3, generator=g),
        lambda g: retrieval_batch(3, generator=g),
        lambda g: (ZooLanguage().sample(3, g),),
        lambda g: shape_images(3, generator=g),
    ],
    ids=["copy", "recall", "k_back", "cipher", "retrieval", "zoo", "shapes"],
)
def test_every_task_is_reproducible_from_a_generator(draw):
    for a, b in zip(draw(gen(5)), draw(gen(5))):
        assert torch.equal(a, b)
    assert any(not torch.equal(a, b) for a, b in zip(draw(gen(5)), draw(gen(6))))


def test_shape_images_stamp_their_shape_exactly():
    clean = shape_images(20, noise=0.0, generator=gen())
    stamps = data.shape_stamps()
    for i in range(20):
        r, c = clean.corners[i].tolist()
        assert torch.equal(clean.images[i, 0, r : r + 5, c : c + 5], stamps[clean.labels[i]])
        assert clean.images[i].sum() == stamps[clean.labels[i]].sum()
