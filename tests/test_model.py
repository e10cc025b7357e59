"""attnbook.model, data, decode and train: shapes, masks, parameter counts, checkpoints."""

from __future__ import annotations

import dataclasses
import json

import pytest
import torch

from attnbook.data import (
    copy_batch,
)
from attnbook.decode import beam_search, greedy_decode, length_penalty
from attnbook.model import (
    FeedForward,
    Transformer,
    TransformerConfig,
    count_parameters,
    load_checkpoint,
    save_checkpoint,
)
from attnbook.train import fit, noam_lr, seq2seq_batch_loss, seq2seq_loss, warmup_linear_decay


def tiny(**kw) -> Transformer:
    torch.manual_seed(0)
    return Transformer(TransformerConfig.tiny(13, 11, **kw)).eval()


def ids(B, T, V, seed=0, pad_from=None):
    g = torch.Generator().manual_seed(seed)
    x = torch.randint(3, V, (B, T), generator=g)
    if pad_from is not None:
        x[-1, pad_from:] = 0
    return x


def test_shapes_and_attention_maps():
    model = tiny()
    src, tgt = ids(2, 7, 13), ids(2, 5, 11)
    logits, attn = model(src, tgt)
    assert logits.shape == (2, 5, 11)
    assert len(attn.encoder) == len(attn.decoder) == len(attn.cross) == 2
    assert attn.encoder[0].shape == (2, 4, 7, 7)
    assert attn.decoder[0].shape == (2, 4, 5, 5)
    assert attn.cross[0].shape == (2, 4, 5, 7)


def test_decoder_never_attends_to_the_future():
    model = tiny()
    _, attn = model(ids(2, 7, 13), ids(2, 6, 11))
    for w in attn.decoder:
        assert torch.all(w.triu(diagonal=1) == 0)


def test_future_target_tokens_do_not_change_earlier_logits():
    model = tiny()
    src, tgt = ids(1, 7, 13), ids(1, 6, 11)
    changed = tgt.clone()
    changed[0, 4:] = 3 + (changed[0, 4:] + 1) % 8
    a, _ = model(src, tgt)
    b, _ = model(src, changed)
    torch.testing.assert_close(a[:, :4], b[:, :4])
    assert not torch.allclose(a[:, 4:], b[:, 4:])


def test_padding_gets_no_weight_and_does_not_change_outputs():
    model = tiny()
    src = ids(2, 7, 13, pad_from=4)
    _, attn = model(src, ids(2, 5, 11))
    for w in attn.encoder + attn.cross:
        assert torch.all(w[1, ..., 4:] == 0)
    # the padded sequence gives the same result as the unpadded one alone
    short_logits, _ = model(src[1:, :4], ids(2, 5, 11)[1:])
    full_logits, _ = model(src, ids(2, 5, 11))
    torch.testing.assert_close(full_logits[1:], short_logits, atol=1e-5, rtol=1e-5)


def test_pre_ln_option_and_learned_positions():
    for kw in ({"norm_first": True}, {"positional": "learned"}):
        logits, _ = tiny(**kw)(ids(2, 7, 13), ids(2, 5, 11))
        assert logits.shape == (2, 5, 11) and torch.isfinite(logits).all()


def test_feed_forward_is_position_wise_relu_mlp():
    ffn = FeedForward(8, 32)
    x = torch.randn(2, 5, 8)
    manual = torch.relu(x @ ffn.W_1.weight.T + ffn.W_1.bias) @ ffn.W_2.weight.T + ffn.W_2.bias
    torch.testing.assert_close(ffn(x), manual)
    torch.testing.assert_close(ffn(x[:, 2:3]), ffn(x)[:, 2:3])  # each position alone


def test_embeddings_are_scaled_by_sqrt_d_model():
    model = tiny()
    tokens = torch.tensor([[3]])
    emb = model.src_embed
    expected = emb.tokens.weight[3] * 8.0 + emb.positions(torch.zeros(1, 1, 64))[0, 0]
    torch.testing.assert_close(emb(tokens)[0, 0], expected)


def _expected_count(c: TransformerConfig, vocab: int) -> int:
    d, f = c.d_model, c.d_ff
    mha = 4 * (d * d + d)
    ffn = d * f + f + f * d + d
    ln = 2 * d
    enc = c.N * (mha + ffn + 2 * ln)
    dec = c.N * (2 * mha + ffn + 3 * ln)
    return vocab * d + enc + dec + vocab  # shared embedding matrix + output bias


@pytest.mark.parametrize(("preset", "paper_millions"), [("base", 65), ("big", 213)])
def test_parameter_counts_of_the_paper_presets(preset, paper_millions):
    c = getattr(TransformerConfig, preset)()
    with torch.device("meta"):  # count without allocating 200M parameters
        model = Transformer(c)
    n = count_parameters(model)
    assert n == _expected_count(c, 37000)
    assert abs(n / 1e6 - paper_millions) / paper_millions < 0.05


def test_presets_match_the_paper():
    base, big = TransformerConfig.base(), TransformerConfig.big()
    assert (base.N, base.d_model, base.d_ff, base.h, base.d_k, base.dropout) == (
        6, 512, 2048, 8, 64, 0.1,
    )  # fmt: skip
    assert (big.N, big.d_model, big.d_ff, big.h, big.dropout) == (6, 1024, 4096, 16, 0.3)
    with pytest.raises(dataclasses.FrozenInstanceError):
        base.N = 3


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"d_model": 30, "h": 4}, "not divisible"),
        ({"share_embeddings": True}, "one shared vocabulary"),
        ({"dropout": 1.0}, "dropout"),
        ({"positional": "rotary"}, "positional"),
        ({"N": 0}, "N must be a positive int, got 0"),
        ({"pad_id": 13}, "pad_id=13 lies outside the vocabulary"),
    ],
)
def test_bad_config_values(kw, message):
    with pytest.raises(ValueError, match=message):
        TransformerConfig.tiny(13, 11, **kw)


def test_bad_ids_are_rejected():
    model = tiny()
    with pytest.raises(ValueError, match=r"src holds ids in \[2\d, 3\d\], outside .*\[0, 13\)"):
        model(ids(1, 5, 13) + 20, ids(1, 4, 11))
    with pytest.raises(ValueError, match="max_len"):
        model(ids(1, 65, 13), ids(1, 4, 11))
    with pytest.raises(TypeError, match="src must be a long"):
        model(torch.rand(1, 5), ids(1, 4, 11))


def test_shared_embeddings_are_one_tensor():
    torch.manual_seed(0)
    model = Transformer(TransformerConfig.tiny(11, 11, share_embeddings=True))
    assert model.generator.weight is model.src_embed.tokens.weight
    assert model.tgt_embed.tokens.weight is model.src_embed.tokens.weight


def test_checkpoint_round_trip_is_safetensors(tmp_path):
    torch.manual_seed(0)
    model = Transformer(TransformerConfig.tiny(11, 11, share_embeddings=True)).eval()
    path = tmp_path / "m.safetensors"
    save_checkpoint(model, path, task="copy")
    assert path.read_bytes()[8:9] == b"{"  # a safetensors JSON header, not a pickle
    loaded, meta = load_checkpoint(path)
    assert meta == {"task": "copy"} and loaded.config == model.config
    src, tgt = ids(2, 6, 11), ids(2, 5, 11)
    torch.testing.assert_close(loaded(src, tgt)[0], model(src, tgt)[0])
    assert loaded.generator.weight is loaded.src_embed.tokens.weight


def test_schedules():
    assert noam_lr(4000, 512, 4000) == pytest.approx(512**-0.5 * 4000**-0.5)
    peak = max(range(1, 10000), key=lambda s: noam_lr(s, 512, 4000))
    assert peak == 4000
    assert noam_lr(100, 512, 4000) == pytest.approx(100 * 512**-0.5 * 4000**-1.5)
    assert warmup_linear_decay(50, 1.0, 100, 600) == pytest.approx(0.5)
    assert warmup_linear_decay(600, 1.0, 100, 600) == 0.0
    with pytest.raises(ValueError):
        noam_lr(0, 512, 4000)


def test_loss_ignores_padding_and_training_lowers_it():
    torch.manual_seed(0)
    model = Transformer(TransformerConfig.tiny(11, 11))
    src, tgt = copy_batch(16, T=6, generator=torch.Generator().manual_seed(0))
    padded = torch.cat([tgt, torch.zeros(16, 3, dtype=torch.long)], dim=1)
    torch.testing.assert_close(seq2seq_loss(model, src, tgt), seq2seq_loss(model, src, padded))
    g = torch.Generator().manual_seed(1)
    batches = iter(lambda: copy_batch(32, T=6, generator=g), None)
    history = fit(model, batches, seq2seq_batch_loss(), 60, 3e-3, progress=False)
    assert history.loss[-1] < 0.5 * history.loss[0]


def test_greedy_and_beam_search():
    model = tiny()
    src = ids(2, 6, 13)
    out = greedy_decode(model, src, max_len=5)
    assert out.shape[0] == 2 and out.shape[1] <= 5
    for b in range(2):
        best, logp = beam_search(model, src[b : b + 1], max_len=5, beam_size=1, alpha=0.0)
        assert best == out[b, : len(best)].tolist()
        wide, wide_logp = beam_search(model, src[b : b + 1], max_len=5, beam_size=8, alpha=0.0)
        assert wide_logp >= logp - 1e-9  # a wider beam never finds a worse sequence here
        # the returned score is the model's log-probability of the returned sequence
        tgt = torch.tensor([[1, *wide]])
        logits, _ = model(src[b : b + 1], tgt[:, :-1])
        lp = torch.log_softmax(logits.double(), -1).gather(-1, tgt[:, 1:, None]).sum().item()
        assert lp == pytest.approx(wide_logp, abs=1e-6)
    assert length_penalty(1, 0.6) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="one source"):
        beam_search(model, src, max_len=3)


def test_half_precision_checkpoint_loads_as_float32(tmp_path):
    torch.manual_seed(0)
    model = Transformer(TransformerConfig.tiny(11, 11)).eval()
    save_checkpoint(model, tmp_path / "full.safetensors")
    save_checkpoint(model, tmp_path / "half.safetensors", dtype=torch.float16)
    full, half = (
        (tmp_path / "full.safetensors").stat().st_size,
        (tmp_path / "half.safetensors").stat().st_size,
    )
    assert half < 0.55 * full
    loaded, _ = load_checkpoint(tmp_path / "half.safetensors")
    assert all(p.dtype == torch.float32 for p in loaded.parameters())
    src, tgt = ids(2, 6, 11), ids(2, 5, 11)
    torch.testing.assert_close(loaded(src, tgt)[0], model(src, tgt)[0], atol=5e-2, rtol=5e-2)


def test_checkpoints_with_the_old_layer_names_still_load(tmp_path):
    from safetensors.torch import load_file, save_file

    torch.manual_seed(0)
    model = Transformer(TransformerConfig.tiny(11, 11, norm_first=True)).eval()
    save_checkpoint(model, tmp_path / "new.safetensors", task="copy")
    tensors = load_file(tmp_path / "new.safetensors")
    old_names = {  # encoder.layers.0.… was encoder.0.…, encoder.norm.… was encoder_norm.…
        k.replace(".layers.", ".")
        .replace("encoder.norm", "encoder_norm")
        .replace("decoder.norm", "decoder_norm"): v
        for k, v in tensors.items()
    }
    assert "encoder.0.ffn.W_1.weight" in old_names and "encoder_norm.weight" in old_names
    meta = {"config": json.dumps(dataclasses.asdict(model.config)), "task": "copy"}
    save_file(old_names, tmp_path / "old.safetensors", metadata=meta)
    loaded, extra = load_checkpoint(tmp_path / "old.safetensors")
    assert extra == {"task": "copy"}
    src, tgt = ids(2, 6, 11), ids(2, 5, 11)
    torch.testing.assert_close(loaded(src, tgt)[0], model(src, tgt)[0], atol=0, rtol=0)


def test_training_without_weights_gives_the_same_logits_and_gradients():
    torch.manual_seed(0)
    model = Transformer(TransformerConfig.tiny(13, 11)).double().train()
    src = ids(3, 7, 13)
    src[1, 5:] = 0  # padding
    tgt = ids(3, 6, 11)
    results = []
    for need_weights in (True, False):
        model.zero_grad()
        logits, attn = model(src, tgt, need_weights=need_weights)
        assert (len(attn.encoder) == 2) == need_weights and (len(attn.cross) == 2) == need_weights
        logits.sum().backward()
        results.append((logits.detach(), [p.grad.clone() for p in model.parameters()]))
    torch.testing.assert_close(results[0][0], results[1][0])
    for a, b in zip(results[0][1], results[1][1]):
        torch.testing.assert_close(a, b)


def test_encoder_and_decoder_are_modules_of_the_transformer():
    from attnbook.model import Decoder, Encoder, EncoderLayer, init_parameters

    model = tiny()
    assert isinstance(model.encoder, Encoder) and isinstance(model.decoder, Decoder)
    assert len(model.encoder) == 2 and isinstance(model.encoder[0], EncoderLayer)
    assert [*model.encoder] == list(model.encoder.layers)
    src = ids(2, 5, 13)
    memory, weights = model.encoder(model.src_embed(src), model.src_mask(src))
    torch.testing.assert_close(memory, model.encode(src)[0])
    assert len(weights) == 2
    layer = torch.nn.Linear(300, 100)
    init_parameters(layer)
    bound = (6 / 400) ** 0.5  # Glorot: U(−a, a), a = √(6 / (fan_in + fan_out))
    assert layer.weight.abs().max() <= bound and layer.weight.abs().max() > 0.95 * bound


@pytest.mark.parametrize("norm_first", [False, True], ids=["post-LN", "pre-LN"])
def test_residual_and_layer_norm_switches(norm_first):
    from attnbook.model import Residual

    x = torch.randn(2, 3, 8)

    def sublayer(z):
        return 2 * z + 1, "extra"

    norm = torch.nn.functional.layer_norm
    expected = {  # (residual, layer_norm): what the sub-layer's output must be
        (True, True): (x + sublayer(norm(x, (8,)))[0]) if norm_first else norm(x + 2 * x + 1, (8,)),
        (True, False): x + 2 * x + 1,
        (False, True): sublayer(norm(x, (8,)))[0] if norm_first else norm(2 * x + 1, (8,)),
        (False, False): 2 * x + 1,
    }
    for (residual, layer_norm), want in expected.items():
        block = Residual(8, 0.0, norm_first, residual=residual, layer_norm=layer_norm)
        got, extra = block(x, sublayer)
        assert extra == "extra"
        torch.testing.assert_close(got, want)


def test_switches_reach_every_layer_and_the_parameter_count():
    from attnbook.model import Residual

    for norm_first in (False, True):
        full = tiny(norm_first=norm_first)
        bare = tiny(norm_first=norm_first, residual=False, layer_norm=False)
        blocks = [m for m in bare.modules() if isinstance(m, Residual)]
        assert len(blocks) == 5 * bare.config.N and not any(b.residual for b in blocks)
        assert not any(isinstance(m, torch.nn.LayerNorm) for m in bare.modules())
        norms = 5 * full.config.N + (2 if norm_first else 0)  # + the pre-LN stacks' final norms
        assert count_parameters(full) - count_parameters(bare) == norms * 2 * full.config.d_model
        logits, _ = bare(ids(2, 7, 13), ids(2, 5, 11))
        assert torch.isfinite(logits).all()
    with pytest.raises(TypeError, match="residual must be True or False"):
        TransformerConfig.tiny(13, residual="no")


def test_checkpoint_of_an_ablated_model_round_trips(tmp_path):
    model = tiny(layer_norm=False, residual=False)
    save_checkpoint(model, tmp_path / "bare.safetensors")
    loaded, _ = load_checkpoint(tmp_path / "bare.safetensors")
    assert loaded.config == model.config
    src, tgt = ids(2, 6, 13), ids(2, 5, 11)
    torch.testing.assert_close(loaded(src, tgt)[0], model(src, tgt)[0])
