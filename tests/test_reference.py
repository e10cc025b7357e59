"""The package's encoder and decoder against PyTorch's own (``torch.nn.Transformer*``).

Same weights (copied by ``attnbook.reference.to_torch``), dropout 0, ReLU, float64: the
outputs agree to 1e-6 with padding and causal masks, post-LN and pre-LN. PyTorch's masks
say True = masked, the book's True = may attend.
"""

from __future__ import annotations

import pytest
import torch
from torch import nn

from attnbook.attention import causal_mask, padding_mask
from attnbook.model import Transformer, TransformerConfig
from attnbook.reference import to_torch, torch_mask

TOL = dict(atol=1e-6, rtol=1e-6)
B, S, T = 3, 7, 5
SRC_LENGTHS, TGT_LENGTHS = [7, 5, 3], [5, 5, 2]


def model(norm_first: bool, N: int = 2) -> Transformer:
    torch.manual_seed(0)
    config = TransformerConfig.tiny(13, 11, N=N, d_model=16, d_ff=32, h=4, norm_first=norm_first)
    model = Transformer(config).double().eval()
    with torch.no_grad():  # LayerNorm gains and biases away from 1 and 0, so copying them counts
        for name, p in model.named_parameters():
            if "norm" in name:
                p.add_(0.1 * torch.randn_like(p))
    return model


def inputs():
    g = torch.Generator().manual_seed(1)
    x = torch.randn(B, S, 16, generator=g, dtype=torch.float64)  # embedded source
    y = torch.randn(B, T, 16, generator=g, dtype=torch.float64)  # embedded target
    memory = torch.randn(B, S, 16, generator=g, dtype=torch.float64)
    src_keep = padding_mask(SRC_LENGTHS, S)  # (B, 1, S), True on real tokens
    tgt_keep = padding_mask(TGT_LENGTHS, T) & causal_mask(T)  # (B, T, T)
    return x, y, memory, src_keep, tgt_keep


def torch_masks(src_keep, tgt_keep):
    """PyTorch's three masks: key padding of the source and target, and the causal mask."""
    src_pad = torch_mask(src_keep[:, 0])  # (B, S), True = padding
    tgt_pad = torch_mask(padding_mask(TGT_LENGTHS, T)[:, 0])  # (B, T)
    causal = torch_mask(causal_mask(T))  # (T, T), True above the diagonal
    return src_pad, tgt_pad, causal


@pytest.mark.parametrize("norm_first", [False, True], ids=["post-LN", "pre-LN"])
def test_encoder_layer_equals_torch(norm_first):
    ours = model(norm_first).encoder[0]
    theirs = to_torch(ours)
    assert isinstance(theirs, nn.TransformerEncoderLayer) and theirs.norm_first == norm_first
    x, _, _, src_keep, tgt_keep = inputs()
    src_pad, _, _ = torch_masks(src_keep, tgt_keep)
    expected = theirs(x, src_key_padding_mask=src_pad)
    got, _ = ours(x, src_keep)
    torch.testing.assert_close(got, expected, **TOL)
    # and a mask matters: without it the result differs
    assert not torch.allclose(ours(x, None)[0], expected, **TOL)


@pytest.mark.parametrize("norm_first", [False, True], ids=["post-LN", "pre-LN"])
def test_decoder_layer_equals_torch(norm_first):
    ours = model(norm_first).decoder[0]
    theirs = to_torch(ours)
    assert isinstance(theirs, nn.TransformerDecoderLayer) and theirs.norm_first == norm_first
    _, y, memory, src_keep, tgt_keep = inputs()
    src_pad, tgt_pad, causal = torch_masks(src_keep, tgt_keep)
    expected = theirs(
        y,
        memory,
        tgt_mask=causal,
        tgt_key_padding_mask=tgt_pad,
        memory_key_padding_mask=src_pad,
    )
    got, _, _ = ours(y, memory, tgt_keep, src_keep)
    torch.testing.assert_close(got, expected, **TOL)


@pytest.mark.parametrize("norm_first", [False, True], ids=["post-LN", "pre-LN"])
def test_encoder_and_decoder_stacks_equal_torch(norm_first):
    m = model(norm_first, N=3)
    encoder, decoder = to_torch(m.encoder), to_torch(m.decoder)
    assert isinstance(encoder, nn.TransformerEncoder) and isinstance(decoder, nn.TransformerDecoder)
    assert (encoder.norm is not None) == norm_first  # pre-LN stacks end with a LayerNorm
    x, y, _, src_keep, tgt_keep = inputs()
    src_pad, tgt_pad, causal = torch_masks(src_keep, tgt_keep)
    their_memory = encoder(x, src_key_padding_mask=src_pad)
    memory, _ = m.encoder(x, src_keep)
    torch.testing.assert_close(memory, their_memory, **TOL)
    expected = decoder(
        y,
        memory,
        tgt_mask=causal,
        tgt_key_padding_mask=tgt_pad,
        memory_key_padding_mask=src_pad,
    )
    got, _, _ = m.decoder(y, memory, tgt_keep, src_keep)
    torch.testing.assert_close(got, expected, **TOL)


def test_whole_model_against_nn_transformer():
    """Pre-LN: nn.Transformer is the model's two stacks. Post-LN (the paper): nn.Transformer
    adds a LayerNorm at the end of each stack, which the paper's model does not have."""
    for norm_first in (True, False):
        m = model(norm_first)
        theirs = to_torch(m)
        assert isinstance(theirs, nn.Transformer)
        src = torch.tensor([[3, 4, 5, 6, 0], [7, 8, 0, 0, 0]])
        tgt = torch.tensor([[1, 3, 4, 5], [1, 6, 7, 0]])
        logits, _ = m(src, tgt)
        out = theirs(
            m.src_embed(src),
            m.tgt_embed(tgt),
            tgt_mask=torch_mask(causal_mask(tgt.size(1))),
            src_key_padding_mask=src == 0,
            tgt_key_padding_mask=tgt == 0,
            memory_key_padding_mask=src == 0,
        )
        if norm_first:
            torch.testing.assert_close(m.generator(out), logits, **TOL)
            continue
        assert not torch.allclose(m.generator(out), logits, atol=1e-3)
        # the paper's stacks followed by the two extra LayerNorms give nn.Transformer's output
        memory = theirs.encoder.norm(m.encoder(m.src_embed(src), m.src_mask(src))[0])
        y, _, _ = m.decoder(m.tgt_embed(tgt), memory, m.tgt_mask(tgt), m.src_mask(src))
        torch.testing.assert_close(theirs.decoder.norm(y), out, **TOL)


def test_to_torch_refuses_what_torch_cannot_build():
    torch.manual_seed(0)
    ablated = Transformer(TransformerConfig.tiny(13, residual=False))
    with pytest.raises(ValueError, match="residual=False or layer_norm=False"):
        to_torch(ablated.encoder)
    with pytest.raises(TypeError, match="block must be"):
        to_torch(nn.Linear(2, 2))
    with pytest.raises(TypeError, match="mask must be a bool"):
        torch_mask(torch.ones(2, 2))
