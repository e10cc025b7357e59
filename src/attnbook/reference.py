"""The package's blocks as PyTorch's own: ``nn.TransformerEncoderLayer``, ``…DecoderLayer``,
``nn.TransformerEncoder``, ``…Decoder`` and ``nn.Transformer``, with the weights copied.

The test suite checks that each computes the same function as the block it was copied
from; the encoder–decoder chapter uses :func:`to_torch` to show where ``nn.Transformer``
differs from the paper. PyTorch's masks say the opposite of the book's: ``True`` means
*masked* there (:func:`torch_mask`).
"""

from __future__ import annotations

import warnings

import torch
from torch import Tensor, nn

from attnbook.attention import MultiHeadAttention
from attnbook.checks import check_tensor, describe
from attnbook.model import Decoder, DecoderLayer, Encoder, EncoderLayer, Transformer

Block = EncoderLayer | DecoderLayer | Encoder | Decoder | Transformer


def torch_mask(mask: Tensor) -> Tensor:
    """The book's bool mask (True = may attend) in PyTorch's convention (True = masked)."""
    return ~check_tensor("mask", mask, kind="bool")


def _copy_attention(ours: MultiHeadAttention, theirs: nn.MultiheadAttention) -> None:
    # PyTorch packs W_Q, W_K, W_V into one (3·d_model, d_model) matrix, in that order
    theirs.in_proj_weight.copy_(torch.cat([ours.W_Q.weight, ours.W_K.weight, ours.W_V.weight]))
    theirs.in_proj_bias.copy_(torch.cat([ours.W_Q.bias, ours.W_K.bias, ours.W_V.bias]))
    theirs.out_proj.weight.copy_(ours.W_O.weight)
    theirs.out_proj.bias.copy_(ours.W_O.bias)


def _copy_layer(ours: EncoderLayer | DecoderLayer, theirs: nn.Module) -> None:
    _copy_attention(ours.self_attn, theirs.self_attn)
    if isinstance(ours, DecoderLayer):
        _copy_attention(ours.cross_attn, theirs.multihead_attn)
    theirs.linear1.load_state_dict(ours.ffn.W_1.state_dict())
    theirs.linear2.load_state_dict(ours.ffn.W_2.state_dict())
    sublayers = [ours.sublayer1, ours.sublayer2] + (
        [ours.sublayer3] if isinstance(ours, DecoderLayer) else []
    )
    for i, sublayer in enumerate(sublayers, start=1):
        getattr(theirs, f"norm{i}").load_state_dict(sublayer.norm.state_dict())


def _settings(block: nn.Module) -> dict:
    """The constructor arguments PyTorch's layers need to match ``block``."""
    layer = block if isinstance(block, (EncoderLayer, DecoderLayer)) else next(iter(block.layers))
    sublayer = layer.sublayer1
    if not sublayer.residual or not isinstance(sublayer.norm, nn.LayerNorm):
        raise ValueError(
            "PyTorch's layers always have residual connections and LayerNorm: "
            "the block was built with residual=False or layer_norm=False"
        )
    weight = layer.ffn.W_1.weight
    return dict(
        d_model=layer.self_attn.d_model,
        nhead=layer.self_attn.h,
        dim_feedforward=layer.ffn.W_1.out_features,
        dropout=layer.ffn.dropout.p,
        activation="relu",
        layer_norm_eps=sublayer.norm.eps,
        batch_first=True,
        norm_first=sublayer.norm_first,
        device=weight.device,
        dtype=weight.dtype,
    )


@torch.no_grad()
def to_torch(block: Block) -> nn.Module:
    """PyTorch's module for ``block``, batch-first, with ``block``'s weights copied.

    An :class:`~attnbook.model.EncoderLayer` or :class:`~attnbook.model.DecoderLayer`
    gives ``nn.TransformerEncoderLayer`` / ``nn.TransformerDecoderLayer``; an
    :class:`~attnbook.model.Encoder` or :class:`~attnbook.model.Decoder` gives
    ``nn.TransformerEncoder`` / ``nn.TransformerDecoder`` with the stack's final
    LayerNorm where it has one (pre-LN); a :class:`~attnbook.model.Transformer` gives
    ``nn.Transformer``, whose two stacks always end with a LayerNorm: in the paper's
    post-LN model these two are extra, left at their initial gain 1 and bias 0.
    Embeddings and the output layer have no counterpart there.
    """
    if not isinstance(block, Block):
        raise TypeError(
            "block must be an EncoderLayer, DecoderLayer, Encoder, Decoder or Transformer, "
            f"got {describe(block)}"
        )
    if isinstance(block, Transformer):
        encoder, decoder = block.encoder, block.decoder
        settings = _settings(encoder)
        with warnings.catch_warnings():  # nested tensors are off for pre-LN: nothing to say
            warnings.filterwarnings("ignore", message="enable_nested_tensor is True")
            theirs = nn.Transformer(
                num_encoder_layers=len(encoder), num_decoder_layers=len(decoder), **settings
            )
        for ours, stack in ((encoder, theirs.encoder), (decoder, theirs.decoder)):
            for layer, their_layer in zip(ours, stack.layers):
                _copy_layer(layer, their_layer)
            if isinstance(ours.norm, nn.LayerNorm):
                stack.norm.load_state_dict(ours.norm.state_dict())
        return theirs.train(block.training)
    settings = _settings(block)
    if isinstance(block, (EncoderLayer, DecoderLayer)):
        make = (
            nn.TransformerEncoderLayer
            if isinstance(block, EncoderLayer)
            else nn.TransformerDecoderLayer
        )
        theirs = make(**settings)
        _copy_layer(block, theirs)
        return theirs.train(block.training)
    if isinstance(block, Encoder):
        layer = nn.TransformerEncoderLayer(**settings)
        norm = nn.LayerNorm(settings["d_model"], device=settings["device"], dtype=settings["dtype"])
        theirs = nn.TransformerEncoder(
            layer,
            len(block),
            norm=norm if isinstance(block.norm, nn.LayerNorm) else None,
            enable_nested_tensor=False,
        )
    else:
        layer = nn.TransformerDecoderLayer(**settings)
        norm = nn.LayerNorm(settings["d_model"], device=settings["device"], dtype=settings["dtype"])
        theirs = nn.TransformerDecoder(
            layer, len(block), norm=norm if isinstance(block.norm, nn.LayerNorm) else None
        )
    for ours, their_layer in zip(block, theirs.layers):
        _copy_layer(ours, their_layer)
    if theirs.norm is not None:
        theirs.norm.load_state_dict(block.norm.state_dict())
    return theirs.train(block.training)
