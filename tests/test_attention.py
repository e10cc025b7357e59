"""attnbook.attention against PyTorch's own implementations and the paper's invariants."""

from __future__ import annotations

import itertools

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from attnbook import (
    MultiHeadAttention,
    causal_mask,
    masked_softmax,
    padding_mask,
    scaled_dot_product_attention,
)
from attnbook.checks import check_mask

DTYPE = torch.float64
TOL = {"atol": 1e-6, "rtol": 1e-6}


def qkv(B=2, h=3, T_q=5, T_k=7, d_k=4, d_v=6, seed=0):
    g = torch.Generator().manual_seed(seed)
    return (
        torch.randn(B, h, T_q, d_k, generator=g, dtype=DTYPE),
        torch.randn(B, h, T_k, d_k, generator=g, dtype=DTYPE),
        torch.randn(B, h, T_k, d_v, generator=g, dtype=DTYPE),
    )


def test_matches_torch_sdpa_without_mask():
    q, k, v = qkv()
    out, weights = scaled_dot_product_attention(q, k, v)
    torch.testing.assert_close(out, F.scaled_dot_product_attention(q, k, v), **TOL)
    assert weights.shape == (2, 3, 5, 7)


def test_matches_torch_sdpa_with_bool_mask():
    q, k, v = qkv()
    g = torch.Generator().manual_seed(1)
    mask = torch.rand(2, 1, 5, 7, generator=g) > 0.4
    mask[..., 0] = True  # every query keeps at least one key
    out, _ = scaled_dot_product_attention(q, k, v, mask=mask)
    torch.testing.assert_close(out, F.scaled_dot_product_attention(q, k, v, attn_mask=mask), **TOL)


def test_causal_mask_matches_is_causal():
    q, k, v = qkv(T_q=6, T_k=6)
    out, weights = scaled_dot_product_attention(q, k, v, mask=causal_mask(6))
    torch.testing.assert_close(out, F.scaled_dot_product_attention(q, k, v, is_causal=True), **TOL)
    assert torch.all(weights.triu(diagonal=1) == 0)  # exactly zero above the diagonal


def test_custom_scale_matches_torch():
    q, k, v = qkv()
    out, _ = scaled_dot_product_attention(q, k, v, scale=0.1)
    torch.testing.assert_close(out, F.scaled_dot_product_attention(q, k, v, scale=0.1), **TOL)


def test_weights_rows_sum_to_one():
    q, k, v = qkv()
    _, weights = scaled_dot_product_attention(q, k, v)
    torch.testing.assert_close(weights.sum(-1), torch.ones(2, 3, 5, dtype=DTYPE), **TOL)
    assert torch.all(weights > 0)


def test_masked_positions_get_exactly_zero_weight():
    q, k, v = qkv(B=2, h=1, T_q=4, T_k=6)
    mask = padding_mask([6, 3], T=6)[:, None]  # (B, 1, 1, T)
    _, weights = scaled_dot_product_attention(q, k, v, mask=mask)
    assert torch.all(weights[1, ..., 3:] == 0.0)
    torch.testing.assert_close(weights.sum(-1), torch.ones(2, 1, 4, dtype=DTYPE), **TOL)


def test_fully_masked_query_gets_zero_weights_not_nan():
    q, k, v = qkv(B=1, h=1, T_q=3, T_k=4)
    mask = torch.ones(3, 4, dtype=torch.bool)
    mask[1] = False
    out, weights = scaled_dot_product_attention(q, k, v, mask=mask)
    assert not torch.isnan(out).any()
    assert torch.all(weights[..., 1, :] == 0) and torch.all(out[..., 1, :] == 0)


def test_permutation_equivariance_without_positions():
    """Permuting the tokens permutes self-attention's outputs the same way (no positions)."""
    g = torch.Generator().manual_seed(3)
    x = torch.randn(1, 8, 16, generator=g, dtype=DTYPE)
    mha = MultiHeadAttention(16, 4).to(DTYPE).eval()
    perm = torch.randperm(8, generator=g)
    out, _ = mha(x, x, x)
    out_perm, _ = mha(x[:, perm], x[:, perm], x[:, perm])
    torch.testing.assert_close(out_perm, out[:, perm], **TOL)


def test_low_temperature_limit_is_a_hard_lookup():
    q, k, v = qkv(B=1, h=1)
    out, _ = scaled_dot_product_attention(q, k, v, scale=1e4)
    hard = v[0, 0][(q[0, 0] @ k[0, 0].T).argmax(-1)]
    torch.testing.assert_close(out[0, 0], hard, **TOL)


@pytest.mark.parametrize(
    ("shapes", "message"),
    [
        (((2, 5, 4), (2, 7, 3), (2, 7, 6)), "share d_k"),
        (((2, 5, 4), (2, 7, 4), (2, 6, 6)), "same length T_k"),
        (((2, 5, 4), (3, 7, 4), (3, 7, 6)), "leading"),
        (((2, 0, 4), (2, 7, 4), (2, 7, 6)), "empty sequence"),
        (((2, 5, 4), (2, 0, 4), (2, 0, 6)), "empty sequence"),
        (((4,), (7, 4), (7, 6)), "at least 2 dimensions"),
    ],
)
def test_bad_shapes_raise_value_errors_naming_them(shapes, message):
    q, k, v = (torch.randn(*s) for s in shapes)
    with pytest.raises(ValueError, match=message) as info:
        scaled_dot_product_attention(q, k, v)
    assert str(tuple(shapes[0])) in str(info.value) or str(tuple(shapes[1])) in str(info.value)


def test_mask_that_does_not_broadcast_is_rejected():
    q, k, v = qkv(B=2, h=1, T_q=5, T_k=7)
    with pytest.raises(ValueError, match=r"mask of shape \(5, 5\) does not broadcast"):
        scaled_dot_product_attention(q, k, v, mask=torch.ones(5, 5, dtype=torch.bool))
    with pytest.raises(ValueError, match="does not broadcast"):  # would grow the batch
        scaled_dot_product_attention(q, k, v, mask=torch.ones(4, 2, 1, 5, 7, dtype=torch.bool))


def test_mask_check_follows_torch_broadcasting():
    """check_mask accepts exactly the masks torch.broadcast_shapes takes to the scores' shape."""
    target = (2, 3, 4)  # (B, T_q, T_k)
    sizes = (0, 1, 2, 3, 4)
    for n in range(5):  # masks of 0 to 4 dimensions
        for shape in itertools.product(sizes, repeat=n):
            mask = torch.ones(shape, dtype=torch.bool)
            try:
                ok = torch.broadcast_shapes(shape, target) == torch.Size(target)
            except RuntimeError:
                ok = False
            if ok:
                assert check_mask(mask, target) is mask
            else:
                with pytest.raises(ValueError, match="does not broadcast"):
                    check_mask(mask, target)


def test_non_bool_mask_is_rejected():
    q, k, v = qkv()
    with pytest.raises(TypeError, match="mask must be a bool tensor"):
        scaled_dot_product_attention(q, k, v, mask=torch.ones(5, 7))


def test_causal_and_padding_masks():
    assert causal_mask(3).tolist() == [[True, False, False], [True, True, False], [True] * 3]
    pad = padding_mask([3, 1], T=4)
    assert pad.shape == (2, 1, 4)
    assert pad[:, 0].tolist() == [[True, True, True, False], [True, False, False, False]]
    with pytest.raises(ValueError):
        causal_mask(0)
    with pytest.raises(ValueError):
        padding_mask([5], T=3)
    with pytest.raises(ValueError):
        padding_mask([0, 2])


def _copy_into_torch_mha(mha: MultiHeadAttention) -> nn.MultiheadAttention:
    ref = nn.MultiheadAttention(mha.d_model, mha.h, batch_first=True, dtype=DTYPE)
    with torch.no_grad():
        ref.in_proj_weight.copy_(torch.cat([mha.W_Q.weight, mha.W_K.weight, mha.W_V.weight]))
        ref.in_proj_bias.copy_(torch.cat([mha.W_Q.bias, mha.W_K.bias, mha.W_V.bias]))
        ref.out_proj.weight.copy_(mha.W_O.weight)
        ref.out_proj.bias.copy_(mha.W_O.bias)
    return ref.eval()


def test_multi_head_matches_torch_multihead_attention():
    torch.manual_seed(0)
    mha = MultiHeadAttention(d_model=12, h=3).to(DTYPE).eval()
    ref = _copy_into_torch_mha(mha)
    g = torch.Generator().manual_seed(5)
    x = torch.randn(2, 5, 12, generator=g, dtype=DTYPE)
    memory = torch.randn(2, 7, 12, generator=g, dtype=DTYPE)
    pad = padding_mask([7, 4], T=7)  # (B, 1, T_k)
    out, weights = mha(x, memory, memory, mask=pad)
    ref_out, ref_weights = ref(
        x, memory, memory, key_padding_mask=~pad[:, 0], average_attn_weights=False
    )
    torch.testing.assert_close(out, ref_out, **TOL)
    torch.testing.assert_close(weights, ref_weights, **TOL)
    # and with a causal mask on self-attention (torch's bool attn_mask means "blocked")
    out, weights = mha(x, x, x, mask=causal_mask(5))
    ref_out, ref_weights = ref(x, x, x, attn_mask=~causal_mask(5), average_attn_weights=False)
    torch.testing.assert_close(out, ref_out, **TOL)
    torch.testing.assert_close(weights, ref_weights, **TOL)


def test_multi_head_bad_input():
    with pytest.raises(ValueError, match="not divisible"):
        MultiHeadAttention(10, 3)
    with pytest.raises(ValueError, match="d_model must be a positive int, got 0"):
        MultiHeadAttention(0, 1)
    mha = MultiHeadAttention(8, 2)
    with pytest.raises(ValueError, match=r"\(B, T, d_model=8\)"):
        mha(torch.randn(2, 5, 6), torch.randn(2, 5, 8), torch.randn(2, 5, 8))


def test_multi_head_dropout_only_in_training():
    mha = MultiHeadAttention(8, 2, dropout=0.5)
    x = torch.randn(1, 6, 8)
    mha.eval()
    a, _ = mha(x, x, x)
    b, _ = mha(x, x, x)
    torch.testing.assert_close(a, b)
    mha.train()
    torch.manual_seed(0)
    c, _ = mha(x, x, x)
    assert not torch.allclose(a, c)


def test_device_agnostic_on_available_devices():
    devices = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
    for device in devices:
        q, k, v = (t.to(device) for t in qkv())
        mask = torch.ones(5, 7, dtype=torch.bool, device=device).tril()
        out, w = scaled_dot_product_attention(q, k, v, mask=mask)
        assert out.device.type == device and w.device.type == device


def test_multi_head_uses_its_attention_function():
    calls = []

    def uniform(q, k, v, mask):  # (B, h, T, d_k): ignore the scores, average the values
        calls.append(q.shape)
        w = torch.full((*q.shape[:-1], k.size(-2)), 1.0 / k.size(-2), dtype=q.dtype)
        return w @ v, w

    mha = MultiHeadAttention(8, 2, attention=uniform).eval()
    x = torch.randn(1, 5, 8)
    out, weights = mha(x, x, x)
    assert calls == [(1, 2, 5, 4)]
    torch.testing.assert_close(weights, torch.full((1, 2, 5, 5), 0.2))
    v = mha.W_V(x).mean(dim=1, keepdim=True).expand(1, 5, 8)  # every position: the mean value
    torch.testing.assert_close(out, mha.W_O(v))


# ---------------------------------------------------------------- masked softmax, fast path


def test_masked_softmax_renormalises_over_the_allowed_entries():
    g = torch.Generator().manual_seed(4)
    scores = torch.randn(3, 5, generator=g, dtype=DTYPE, requires_grad=True)
    mask = torch.tensor([[1, 1, 0, 1, 0], [0, 0, 0, 0, 0], [1, 1, 1, 1, 1]], dtype=torch.bool)
    p = masked_softmax(scores, mask)
    kept = scores[0, [0, 1, 3]]
    torch.testing.assert_close(p[0, [0, 1, 3]], torch.softmax(kept, -1), **TOL)
    assert torch.all(p[0, [2, 4]] == 0) and torch.all(p[1] == 0)  # all masked: 0, not NaN
    torch.testing.assert_close(p[2], torch.softmax(scores[2], -1), **TOL)
    p.sum().backward()
    assert torch.isfinite(scores.grad).all()
    torch.testing.assert_close(masked_softmax(scores), torch.softmax(scores, -1))


def _mha_pair(dropout: float = 0.0):
    torch.manual_seed(0)
    return MultiHeadAttention(16, 4, dropout=dropout).double()


@pytest.mark.parametrize(
    "mask",
    [
        None,
        causal_mask(6),  # (T_q, T_k)
        padding_mask([6, 2], T=6),  # (B, 1, T_k)
        torch.rand(2, 6, 6, generator=torch.Generator().manual_seed(2)) > 0.6,
    ],
    ids=["none", "causal", "padding", "per-query-with-empty-rows"],
)
def test_fused_training_path_equals_the_explicit_one(mask):
    """need_weights=False runs F.scaled_dot_product_attention: same outputs and gradients."""
    mha = _mha_pair().train()  # training mode, no dropout: the fused path
    g = torch.Generator().manual_seed(1)
    x0 = torch.randn(2, 6, 16, generator=g, dtype=DTYPE)
    outs, grads = [], []
    for need_weights in (True, False):
        x = x0.clone().requires_grad_()
        mha.zero_grad()
        out, weights = mha(x, x, x, mask, need_weights=need_weights)
        assert (weights is None) == (not need_weights)
        (out * torch.arange(16, dtype=DTYPE)).sum().backward()
        outs.append(out.detach())
        grads.append([x.grad, *(p.grad for p in mha.parameters())])
    torch.testing.assert_close(outs[0], outs[1], **TOL)
    for a, b in zip(*grads):
        torch.testing.assert_close(a, b, **TOL)


def test_dropout_and_custom_attention_keep_the_explicit_path():
    calls = []

    def counting(q, k, v, mask):
        calls.append(1)
        return scaled_dot_product_attention(q, k, v, mask)

    mha = MultiHeadAttention(8, 2, attention=counting)
    x = torch.randn(1, 3, 8)
    out, weights = mha(x, x, x, need_weights=False)
    assert calls == [1] and weights is None  # the chosen function still runs
    dropping = MultiHeadAttention(8, 2, dropout=0.5).train()
    torch.manual_seed(0)
    a, _ = dropping(x, x, x, need_weights=False)
    torch.manual_seed(0)
    b, _ = dropping(x, x, x)
    torch.testing.assert_close(a, b)  # the same attention dropout either way
