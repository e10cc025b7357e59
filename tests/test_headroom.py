"""The shipped number-words model: it loads, it matches its recipe, and it has headroom."""

from __future__ import annotations

import json

import pytest
import torch

from attnbook.headroom import (
    NUMBER_RECIPE,
    NumberModel,
    load_number_model,
    save_number_model,
)
from attnbook.miniature import NumberData, number_data, translation_scores
from attnbook.model import Transformer


@pytest.fixture(scope="module")
def shipped() -> NumberModel:
    return load_number_model()


@pytest.fixture(scope="module")
def scores(shipped):
    return translation_scores(shipped.model, shipped.data)


def test_loads_with_its_data_and_recipe(shipped):
    assert isinstance(shipped.model, Transformer) and not shipped.model.training
    assert isinstance(shipped.data, NumberData)
    assert shipped.recipe == json.loads(json.dumps(NUMBER_RECIPE))
    assert len(shipped.data.tokenizer) == shipped.model.config.tgt_vocab
    assert shipped.data.test_src.size(0) == NUMBER_RECIPE["data"]["n_test"]
    assert shipped.data.train_src.size(0) == NUMBER_RECIPE["data"]["n_train"]
    # the corpus and the test set do not overlap (the test numbers are unseen)
    assert not set(shipped.data.train.source) & set(shipped.data.test.source)


def test_tokenizer_is_the_one_the_recipe_trains():
    """The stored vocabulary is what number_data() learns again from the same corpus."""
    again = number_data(**NUMBER_RECIPE["data"])
    stored = load_number_model().data.tokenizer
    assert again.tokenizer.to_json() == stored.to_json()
    assert torch.equal(again.test_src, load_number_model().data.test_src)


def test_scores_below_the_ceiling_and_as_stored(shipped, scores):
    """Headroom: clearly below 100% exact match, far above chance; and the measurement
    stored beside the weights at training time is reproduced by the float16 weights."""
    assert 0.5 <= scores.exact <= 0.97, scores.exact
    assert 1.0 < scores.ppl_token < 2.0, scores.ppl_token
    stored = json.loads(shipped.metadata["test_scores"])
    assert abs(stored["exact"] - scores.exact) <= 0.01
    assert abs(stored["ppl_token"] - scores.ppl_token) <= 0.01 * stored["ppl_token"]


def test_save_roundtrip(tmp_path, shipped):
    path = tmp_path / "m.safetensors"
    save_number_model(shipped.model, shipped.data, path, note="x")
    from attnbook.model import load_checkpoint

    model, metadata = load_checkpoint(path)
    assert metadata["note"] == "x"
    src, tgt = shipped.data.test_src[:4], shipped.data.test_tgt[:4]
    with torch.no_grad():
        torch.testing.assert_close(model(src, tgt)[0], shipped.model(src, tgt)[0])


def test_save_rejects_non_bpe_data(tmp_path, shipped):
    with pytest.raises(TypeError, match="data"):
        save_number_model(shipped.model, "numbers", tmp_path / "m.safetensors")


def test_a_window_as_wide_as_the_source_changes_nothing(shipped):
    """The efficient-attention chapter swaps the encoder's attention of this model: with a
    window covering every source position the sliding window is full attention, so the
    logits must not move."""
    import functools

    from attnbook.efficient import sliding_window_attention

    model = load_number_model().model
    src, tgt = shipped.data.test_src[:16], shipped.data.test_tgt[:16, :-1]
    with torch.no_grad():
        reference, _ = model(src, tgt)
        for layer in model.encoder:
            layer.self_attn.attention = functools.partial(
                sliding_window_attention, window=src.size(1)
            )
        wide, _ = model(src, tgt)
        for layer in model.encoder:
            layer.self_attn.attention = functools.partial(sliding_window_attention, window=1)
        narrow, _ = model(src, tgt)
    torch.testing.assert_close(wide, reference)
    assert not torch.allclose(narrow, reference, atol=1e-3)
