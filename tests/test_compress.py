"""Int8 quantization and distillation against their definitions and PyTorch's own ops."""

from __future__ import annotations

import random

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from attnbook.compress import (
    Int8Linear,
    dequantize_per_channel,
    distill,
    distillation_loss,
    linear_weight_bytes,
    quantize_linears,
    quantize_per_channel,
    soft_target_kl,
)
from attnbook.model import Transformer, TransformerConfig
from attnbook.train import fit, seq2seq_batch_loss


def _W(d_out=16, d_in=24, seed=0):
    return torch.randn(d_out, d_in, generator=torch.Generator().manual_seed(seed))


# ---------------------------------------------------------------- quantization


def test_quantize_shapes_dtypes_and_range():
    W = _W()
    q, scale = quantize_per_channel(W)
    assert q.shape == W.shape and q.dtype == torch.int8
    assert scale.shape == (W.size(0),) and scale.dtype == torch.float32
    assert q.min() >= -127 and q.max() <= 127
    # the largest |W| of each row maps to ±127
    assert (q.abs().amax(dim=1) == 127).all()


def test_scale_is_row_max_over_127():
    W = _W()
    _, scale = quantize_per_channel(W)
    torch.testing.assert_close(scale, W.abs().amax(dim=1) / 127)


@pytest.mark.parametrize("bits", [8, 4, 2])
def test_roundtrip_error_at_most_half_a_step(bits):
    W = _W(32, 64, seed=bits) * torch.logspace(-3, 1, 32)[:, None]  # rows of very different size
    q, scale = quantize_per_channel(W, bits)
    err = (dequantize_per_channel(q, scale) - W).abs()  # (d_out, d_in)
    assert (err <= scale[:, None] / 2 * (1 + 1e-5)).all()
    assert q.abs().max() <= 2 ** (bits - 1) - 1


def test_per_channel_beats_per_tensor_on_uneven_rows():
    W = _W(8, 64) * torch.tensor([1e-2] * 4 + [1.0] * 4)[:, None]
    q, scale = quantize_per_channel(W)
    per_channel = (dequantize_per_channel(q, scale) - W)[:4].abs().max()
    s = W.abs().max() / 127  # one scale for the whole matrix
    per_tensor = ((W / s).round().clamp(-127, 127) * s - W)[:4].abs().max()
    assert per_channel < per_tensor / 10


def test_matches_pytorch_per_channel_quantizer():
    W = _W()
    q, scale = quantize_per_channel(W)
    ref = torch.fake_quantize_per_channel_affine(
        W, scale, torch.zeros(W.size(0), dtype=torch.int32), 0, -127, 127
    )
    torch.testing.assert_close(dequantize_per_channel(q, scale), ref)


def test_zero_row_and_exact_grid_values():
    W = torch.zeros(3, 5)
    W[1] = torch.tensor([-127.0, -1.0, 0.0, 1.0, 127.0]) * 0.01
    q, scale = quantize_per_channel(W)
    assert scale[0] == 1 and (q[0] == 0).all()
    assert q[1].tolist() == [-127, -1, 0, 1, 127]
    torch.testing.assert_close(dequantize_per_channel(q, scale), W)


@pytest.mark.parametrize(
    ("W", "error", "match"),
    [
        (torch.randn(4), ValueError, r"W must have 2 dimensions .* got shape \(4,\)"),
        (torch.randn(2, 3, 4), ValueError, r"W must have 2 dimensions .* \(2, 3, 4\)"),
        (torch.ones(3, 3, dtype=torch.long), TypeError, "W must be a floating-point"),
        ("not a tensor", TypeError, "W must be a torch.Tensor"),
    ],
)
def test_quantize_rejects_bad_input(W, error, match):
    with pytest.raises(error, match=match):
        quantize_per_channel(W)


def test_quantize_rejects_nan_and_bad_bits():
    with pytest.raises(ValueError, match="NaN"):
        quantize_per_channel(torch.tensor([[1.0, float("nan")]]))
    with pytest.raises(ValueError, match="bits"):
        quantize_per_channel(_W(), bits=16)


def test_dequantize_rejects_bad_input():
    q, scale = quantize_per_channel(_W())
    with pytest.raises(ValueError, match="int8"):
        dequantize_per_channel(q.float(), scale)
    with pytest.raises(ValueError, match="scale"):
        dequantize_per_channel(q, scale[:-1])
    with pytest.raises(ValueError, match="bias"):
        Int8Linear(q, scale, torch.zeros(3))


def test_int8_linear_close_to_float_linear():
    torch.manual_seed(0)
    linear = nn.Linear(24, 16)
    layer = Int8Linear.from_linear(linear)
    x = torch.randn(5, 7, 24)
    y = layer(x)
    assert y.shape == (5, 7, 16)
    W_hat = dequantize_per_channel(layer.weight_int8, layer.scale)
    torch.testing.assert_close(y, F.linear(x, W_hat, linear.bias))
    # the error of y is bounded by Σ_j |x_j| · scale_c / 2
    bound = x.abs().sum(-1, keepdim=True) * layer.scale / 2
    assert ((y - linear(x)).abs() <= bound + 1e-6).all()


def _tiny(seed=0, **overrides):
    torch.manual_seed(seed)
    return Transformer(TransformerConfig.tiny(20, **overrides)).eval()


def test_quantize_linears_replaces_every_linear_and_keeps_the_original():
    model = _tiny()
    n_linear = sum(type(m) is nn.Linear for m in model.modules())
    quantized = quantize_linears(model)
    assert sum(type(m) is nn.Linear for m in quantized.modules()) == 0
    assert sum(isinstance(m, Int8Linear) for m in quantized.modules()) == n_linear
    assert sum(type(m) is nn.Linear for m in model.modules()) == n_linear  # untouched
    torch.testing.assert_close(quantized.src_embed.tokens.weight, model.src_embed.tokens.weight)
    src = torch.randint(3, 20, (4, 9))
    tgt = torch.randint(3, 20, (4, 6))
    a, _ = model(src, tgt)
    b, _ = quantized(src, tgt)
    assert (a - b).abs().max() < 0.05 * a.abs().max()
    assert not torch.equal(a, b)


def test_linear_weight_bytes_shrink_about_four_times():
    model = _tiny()
    before = linear_weight_bytes(model)
    after = linear_weight_bytes(quantize_linears(model))
    assert after["other"] == before["other"]
    assert 3.5 < before["linear_weights"] / after["linear_weights"] <= 4
    assert before["total"] == before["linear_weights"] + before["other"]


def test_int8_linear_applies_the_scale_after_the_integer_product():
    """y = (x qᵀ) ⊙ s + b: the per-row scale factors out of the product."""
    torch.manual_seed(1)
    layer = Int8Linear.from_linear(nn.Linear(32, 8))
    x = torch.randint(-5, 6, (3, 32)).float()  # integers: x qᵀ is exact in float32
    exact = (x.double() @ layer.weight_int8.double().T) * layer.scale.double()
    torch.testing.assert_close(layer(x).double(), exact + layer.bias.double())
    no_bias = Int8Linear(layer.weight_int8, layer.scale, None)
    torch.testing.assert_close(no_bias(x).double(), exact)


def test_int8_linear_rejects_bad_input():
    layer = Int8Linear.from_linear(nn.Linear(6, 4))
    with pytest.raises(ValueError, match=r"d_in=6.*\(2, 5\)"):
        layer(torch.randn(2, 5))
    with pytest.raises(TypeError, match="float tensor"):
        layer(torch.ones(2, 6, dtype=torch.long))


def test_int8_linear_saves_memory_at_rest_not_during_a_call():
    """At rest: int8 codes and scales. During a call: a temporary float copy of the codes."""
    from attnbook.measure import peak_memory

    linear = nn.Linear(256, 512)
    layer = Int8Linear.from_linear(linear)
    rest = sum(t.numel() * t.element_size() for t in layer.state_dict().values())
    assert rest < 0.3 * sum(t.numel() * t.element_size() for t in linear.state_dict().values())
    x = torch.randn(1, 256)
    assert peak_memory(layer, x) >= 512 * 256 * 4  # the float copy of q
    assert peak_memory(linear, x) < 512 * 256 * 4


def test_linear_weight_bytes_count_tied_weights_once():
    model = _tiny(share_embeddings=True)
    assert model.generator.weight is model.src_embed.tokens.weight
    before = linear_weight_bytes(model)
    unique = {t.data_ptr(): t for t in model.state_dict().values()}
    assert before["total"] == sum(t.numel() * t.element_size() for t in unique.values())
    # the shared matrix counts as the output layer's weight, once
    assert before["linear_weights"] == sum(
        m.weight.numel() * 4 for m in model.modules() if type(m) is nn.Linear
    )
    with pytest.raises(TypeError, match="model"):
        linear_weight_bytes("model")


# ---------------------------------------------------------------- distillation


def test_soft_target_kl_matches_kl_div_with_log_targets():
    g = torch.Generator().manual_seed(1)
    s, t = torch.randn(6, 11, generator=g), torch.randn(6, 11, generator=g)
    T = 3.0
    ref = F.kl_div(
        F.log_softmax(s / T, -1), F.log_softmax(t / T, -1), log_target=True, reduction="batchmean"
    )
    torch.testing.assert_close(soft_target_kl(s, t, T).mean(), T**2 * ref)
    assert (soft_target_kl(s, t, T) >= 0).all()


def test_soft_target_kl_is_zero_for_the_teacher_itself():
    t = torch.randn(4, 5, 11)
    torch.testing.assert_close(soft_target_kl(t, t, 4.0), torch.zeros(4, 5))


def test_soft_target_kl_gradient_only_reaches_the_student():
    s = torch.randn(3, 7, requires_grad=True)
    t = torch.randn(3, 7, requires_grad=True)
    soft_target_kl(s, t).sum().backward()
    assert s.grad is not None and s.grad.abs().sum() > 0
    assert t.grad is None


def test_distillation_loss_mixes_the_two_terms():
    g = torch.Generator().manual_seed(2)
    s, t = torch.randn(2, 5, 9, generator=g), torch.randn(2, 5, 9, generator=g)
    y = torch.randint(1, 9, (2, 5), generator=g)
    y[1, 3:] = 0  # padding
    keep = y != 0
    hard = F.cross_entropy(s.reshape(-1, 9), y.reshape(-1), ignore_index=0)
    soft = soft_target_kl(s, t, 2.0)[keep].mean()
    torch.testing.assert_close(distillation_loss(s, t, y, alpha=0.0), hard)
    torch.testing.assert_close(distillation_loss(s, t, y, T=2.0, alpha=1.0), soft)
    torch.testing.assert_close(
        distillation_loss(s, t, y, T=2.0, alpha=0.3), 0.3 * soft + 0.7 * hard
    )


def test_distillation_loss_rejects_bad_input():
    s = torch.randn(2, 5, 9)
    y = torch.ones(2, 5, dtype=torch.long)
    with pytest.raises(ValueError, match="alpha"):
        distillation_loss(s, s, y, alpha=1.5)
    with pytest.raises(ValueError, match="shape"):
        distillation_loss(s, torch.randn(2, 5, 8), y)
    with pytest.raises(ValueError, match="targets"):
        distillation_loss(s, s, y[:, :4])
    with pytest.raises(ValueError, match="T must be a positive number, got 0.0"):
        distillation_loss(s, s, y, T=0.0)
    with pytest.raises(ValueError, match="ignore_index"):
        distillation_loss(s, s, torch.zeros_like(y))


def _batches(seed):
    rng = random.Random(seed)
    while True:
        g = torch.Generator().manual_seed(rng.randrange(2**31))
        src = torch.randint(3, 20, (8, 6), generator=g)
        tgt = torch.cat([torch.ones(8, 1, dtype=torch.long), src, 2 * torch.ones(8, 1).long()], 1)
        yield src, tgt


def test_distill_with_alpha_zero_is_ordinary_training():
    lr = lambda step: 1e-3  # noqa: E731
    teacher = _tiny(seed=5)
    a, b = (
        _tiny(seed=1, N=1, d_model=32, d_ff=64, h=2),
        _tiny(seed=1, N=1, d_model=32, d_ff=64, h=2),
    )
    hist_a = distill(a, teacher, _batches(0), 5, lr, alpha=0.0, progress=False)
    hist_b = fit(b, _batches(0), seq2seq_batch_loss(), 5, lr, progress=False)
    torch.testing.assert_close(torch.tensor(hist_a.loss), torch.tensor(hist_b.loss))
    for p, r in zip(a.parameters(), b.parameters()):
        torch.testing.assert_close(p, r)


def test_distill_pulls_the_student_towards_the_teacher():
    teacher = _tiny(seed=5)
    student = _tiny(seed=1, N=1, d_model=32, d_ff=64, h=2)
    src, tgt = next(_batches(3))
    with torch.no_grad():
        before = soft_target_kl(student(src, tgt[:, :-1])[0], teacher(src, tgt[:, :-1])[0])
    distill(student, teacher, _batches(0), 30, lambda s: 3e-3, alpha=1.0, progress=False)
    with torch.no_grad():
        after = soft_target_kl(student(src, tgt[:, :-1])[0], teacher(src, tgt[:, :-1])[0])
    assert after.mean() < 0.5 * before.mean()


# ---------------------------------------------------------------- explorer


def test_quantization_explorer_state_and_errors():
    from attnbook.viz.explorers.compress import QuantizationExplorer

    rows = {"a": _W(4, 6), "b": _W(4, 10, seed=1)}
    widget = QuantizationExplorer(rows, {2: 0.1, 8: 0.9, 4: 0.5}, bits=4)
    assert widget.layers == ["a", "b"] and widget.accuracy_bits == [2, 4, 8]
    assert widget.accuracy == [0.1, 0.5, 0.9] and len(widget.rows[1][0]) == 10
    with pytest.raises(ValueError, match="same number of rows"):
        QuantizationExplorer({"a": _W(4, 6), "b": _W(3, 6)}, {8: 1.0})
    with pytest.raises(ValueError, match="bits=3"):
        QuantizationExplorer(rows, {8: 1.0}, bits=3)
    with pytest.raises(ValueError, match="2..8"):
        QuantizationExplorer(rows, {16: 1.0}, bits=16)
