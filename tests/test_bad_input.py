"""Every public function answers bad input with a TypeError (wrong kind of argument) or a
ValueError (right kind, bad value or shape) that names the argument and shows what the
caller passed, before any torch internals run.

Each case is (a call with one mistake, the exception type, a pattern the message must
match); the patterns name the argument and quote the caller's own value or shape.
"""

from __future__ import annotations

import json
import pickle
import re

import pytest
import torch
from safetensors.torch import save_file

from attnbook import (
    MultiHeadAttention,
    Transformer,
    TransformerConfig,
    causal_mask,
    fit,
    greedy_decode,
    masked_softmax,
    padding_mask,
    scaled_dot_product_attention,
    set_seed,
    translate,
)
from attnbook.checks import describe
from attnbook.compress import distillation_loss, quantize_per_channel
from attnbook.data import (
    DATE_VOCAB,
    ZooLanguage,
    check_date_input,
    copy_batch,
    encode_pairs,
    pad_batch,
    recall_batch,
)
from attnbook.decode import beam_search
from attnbook.heads import CipherModel
from attnbook.metrics import expected_calibration_error, perplexity, token_predictions
from attnbook.model import CheckpointError, FeedForward, load_checkpoint, save_checkpoint
from attnbook.modern import CausalLM, patchify, sample_tokens
from attnbook.positional import LearnedPositionalEncoding, SinusoidalPositionalEncoding
from attnbook.recipes import date_accuracy
from attnbook.rnn import AdditiveAttention, ElmanRNN, RecallAttention, RecallRNN
from attnbook.scaling import RetrievalAttention, entropy
from attnbook.train import label_smoothing_loss, noam_lr, seq2seq_loss, warmup_linear_decay

torch.manual_seed(0)
DATES = Transformer(TransformerConfig.tiny(len(DATE_VOCAB), N=1, d_model=16, d_ff=32, h=2))
COPY = Transformer(TransformerConfig.tiny(11, N=1, d_model=16, d_ff=32, h=2))
GPT = CausalLM(TransformerConfig.tiny(len(ZooLanguage().vocab), N=1, d_model=16, d_ff=32, h=2))
MHA = MultiHeadAttention(8, 2)


def x(*shape, dtype=torch.float32):
    return torch.zeros(*shape, dtype=dtype)


def ids(*shape, high=11):
    return torch.randint(3, high, shape, generator=torch.Generator().manual_seed(0))


def tiny(**overrides):
    return TransformerConfig.tiny(11, **overrides)


CASES = {
    # ------------------------------------------------ mixed dtypes, empty features
    "sdpa mixed dtypes": (
        lambda: scaled_dot_product_attention(
            x(2, 5, 4), x(2, 5, 4, dtype=torch.float64), x(2, 5, 4)
        ),
        TypeError,
        r"query, key and value must share one dtype, got torch.float32, torch.float64",
    ),
    "sdpa half key": (
        lambda: scaled_dot_product_attention(x(1, 3, 4), x(1, 3, 4).half(), x(1, 3, 4)),
        TypeError,
        r"share one dtype, got torch.float32, torch.float16, torch.float32",
    ),
    "sdpa integer query": (
        lambda: scaled_dot_product_attention(x(1, 3, 4).long(), x(1, 3, 4), x(1, 3, 4)),
        TypeError,
        r"query must be a floating-point tensor, got torch.int64",
    ),
    "mha mixed dtypes": (
        lambda: MHA(x(2, 5, 8, dtype=torch.float64), x(2, 5, 8), x(2, 5, 8)),
        TypeError,
        r"share one dtype, got torch.float64, torch.float32, torch.float32",
    ),
    "sdpa zero feature dimension": (
        lambda: scaled_dot_product_attention(x(2, 5, 0), x(2, 5, 0), x(2, 5, 3)),
        ValueError,
        r"query has an empty feature dimension: shape \(2, 5, 0\)",
    ),
    "mha zero d_model": (
        lambda: MultiHeadAttention(0, 1),
        ValueError,
        r"d_model must be a positive int, got 0",
    ),
    "config zero d_model": (
        lambda: tiny(d_model=0),
        ValueError,
        r"d_model must be a positive int, got 0",
    ),
    "sdpa empty sequence": (
        lambda: scaled_dot_product_attention(x(2, 0, 4), x(2, 5, 4), x(2, 5, 4)),
        ValueError,
        r"empty sequence: query \(2, 0, 4\)",
    ),
    # ------------------------------------------------ non-integer sizes (bools too)
    "config N=2.5": (lambda: tiny(N=2.5), TypeError, r"N must be an int, got 2.5 \(float\)"),
    "config h=2.0": (lambda: tiny(h=2.0), TypeError, r"h must be an int, got 2.0 \(float\)"),
    "config d_ff=True": (
        lambda: tiny(d_ff=True),
        TypeError,
        r"d_ff must be an int, got True \(bool\)",
    ),
    "config src_vocab=11.0": (
        lambda: TransformerConfig(src_vocab=11.0, tgt_vocab=11),
        TypeError,
        r"src_vocab must be an int, got 11.0",
    ),
    "config max_len='64'": (
        lambda: tiny(max_len="64"),
        TypeError,
        r"max_len must be an int, got '64' \(str\)",
    ),
    "config max_len=0": (
        lambda: tiny(max_len=0),
        ValueError,
        r"max_len must be a positive int, got 0",
    ),
    "config dropout=1.5": (
        lambda: tiny(dropout=1.5),
        ValueError,
        r"dropout must be a number in \[0.0, 1.0\), got 1.5",
    ),
    "config dropout='0.1'": (
        lambda: tiny(dropout="0.1"),
        TypeError,
        r"dropout must be a number, got '0.1'",
    ),
    "config norm_first=1": (
        lambda: tiny(norm_first=1),
        TypeError,
        r"norm_first must be True or False, got 1",
    ),
    "mha h=4.0": (
        lambda: MultiHeadAttention(64, 4.0),
        TypeError,
        r"h must be an int, got 4.0 \(float\)",
    ),
    "mha d_model=True": (
        lambda: MultiHeadAttention(True, 1),
        TypeError,
        r"d_model must be an int, got True \(bool\)",
    ),
    "ffn d_ff=256.5": (
        lambda: FeedForward(64, 256.5),
        TypeError,
        r"d_ff must be an int, got 256.5",
    ),
    "cipher K=4.0": (lambda: CipherModel(K=4.0), TypeError, r"K must be an int, got 4.0"),
    "elman d_h=4.0": (lambda: ElmanRNN(3, 4.0), TypeError, r"d_h must be an int, got 4.0"),
    "additive d_a=2.5": (
        lambda: AdditiveAttention(4, 4, 2.5),
        TypeError,
        r"d_a must be an int, got 2.5",
    ),
    "recall rnn K=8.0": (lambda: RecallRNN(K=8.0), TypeError, r"K must be an int, got 8.0"),
    "recall attention d=32.0": (
        lambda: RecallAttention(d=32.0),
        TypeError,
        r"d must be an int, got 32.0",
    ),
    "retrieval d_k=16.0": (
        lambda: RetrievalAttention(32, 16.0, scale=1.0),
        TypeError,
        r"d_k must be an int, got 16.0",
    ),
    "sinusoidal d_model=64.0": (
        lambda: SinusoidalPositionalEncoding(64.0),
        TypeError,
        r"d_model must be an int, got 64.0",
    ),
    "learned max_len=True": (
        lambda: LearnedPositionalEncoding(64, max_len=True),
        TypeError,
        r"max_len must be an int, got True",
    ),
    "copy_batch T=10.0": (lambda: copy_batch(8, T=10.0), TypeError, r"T must be an int, got 10.0"),
    "causal_mask T=5.0": (lambda: causal_mask(5.0), TypeError, r"T must be an int, got 5.0"),
    "set_seed 1.5": (lambda: set_seed(1.5), TypeError, r"seed must be an int, got 1.5"),
    "set_seed -1": (lambda: set_seed(-1), ValueError, r"seed must be a non-negative int, got -1"),
    "noam step=1.0": (lambda: noam_lr(1.0, 512, 4000), TypeError, r"step must be an int, got 1.0"),
    "warmup step=0": (
        lambda: warmup_linear_decay(0, 1e-3, 10, 100),
        ValueError,
        r"step must be a positive int, got 0",
    ),
    # ------------------------------------------------ a padding id outside the vocabulary
    "config pad_id=11": (
        lambda: tiny(pad_id=11),
        ValueError,
        r"pad_id=11 lies outside the vocabulary: src_vocab=11",
    ),
    "config pad_id=-1": (
        lambda: tiny(pad_id=-1),
        ValueError,
        r"pad_id must be a non-negative int, got -1",
    ),
    "pad_batch pad_id=-1": (
        lambda: pad_batch([[1, 2]], pad_id=-1),
        ValueError,
        r"pad_id must be a non-negative int, got -1",
    ),
    # ------------------------------------------------ Python lists where tensors are expected
    "sdpa lists": (
        lambda: scaled_dot_product_attention([[1.0, 2.0]], x(1, 2), x(1, 2)),
        TypeError,
        r"query must be a torch.Tensor .*got a list of 1 items \(wrap it with torch.tensor",
    ),
    "mha lists": (
        lambda: MHA([[0.0] * 8], x(1, 1, 8), x(1, 1, 8)),
        TypeError,
        r"query must be a torch.Tensor",
    ),
    "mha mask list": (
        lambda: MHA(x(1, 2, 8), x(1, 2, 8), x(1, 2, 8), [[True, False], [True, True]]),
        TypeError,
        r"mask must be a bool torch.Tensor, got a list of 2 items",
    ),
    "model src list": (
        lambda: COPY([[3, 4, 5]], ids(1, 3)),
        TypeError,
        r"src must be a torch.Tensor",
    ),
    "greedy src list": (
        lambda: greedy_decode(COPY, [[3, 4]], 5),
        TypeError,
        r"src must be a torch.Tensor",
    ),
    "seq2seq tgt list": (
        lambda: seq2seq_loss(COPY, ids(2, 4), [[1, 3, 2]]),
        TypeError,
        r"tgt must be a torch.Tensor",
    ),
    "masked_softmax list": (
        lambda: masked_softmax([1.0, 2.0]),
        TypeError,
        r"scores must be a torch.Tensor",
    ),
    "padding_mask str": (
        lambda: padding_mask("3"),
        TypeError,
        r"lengths must be a list of ints .* got '3'",
    ),
    "padding_mask floats": (
        lambda: padding_mask([2.5, 1.0]),
        TypeError,
        r"lengths must be a list of ints",
    ),
    "quantize list": (
        lambda: quantize_per_channel([[1.0, 2.0]]),
        TypeError,
        r"W must be a torch.Tensor",
    ),
    "token_predictions list": (
        lambda: token_predictions([[0.1, 0.9]], torch.tensor([1])),
        TypeError,
        r"logits must be a torch.Tensor",
    ),
    "perplexity target list": (
        lambda: perplexity(x(2, 5), [0, 1]),
        TypeError,
        r"target must be a torch.Tensor",
    ),
    "entropy list": (lambda: entropy([0.5, 0.5]), TypeError, r"p must be a torch.Tensor"),
    "ece list": (
        lambda: expected_calibration_error([0.5], torch.tensor([True])),
        TypeError,
        r"confidence must be a torch.Tensor",
    ),
    "cipher tokens list": (
        lambda: CipherModel(K=4)([[1, 2]], torch.zeros(1, 2, dtype=torch.long)),
        TypeError,
        r"tokens must be a torch.Tensor",
    ),
    "patchify list": (lambda: patchify([[0.0]], 4), TypeError, r"images must be a torch.Tensor"),
    "fit batches tensor": (
        lambda: fit(COPY, torch.zeros(3), seq2seq_loss, 1, 1e-3, progress=False),
        TypeError,
        r"batches must be an iterable of batches .* got a tensor of shape \(3,\)",
    ),
    # ------------------------------------------------ one string where a list is expected
    "translate one string": (
        lambda: translate(DATES, "29 Nov 2026", DATE_VOCAB),
        TypeError,
        r"texts must be a list of strings, got a single string '29 Nov 2026': "
        r"pass \['29 Nov 2026'\]",
    ),
    "encode_pairs one string": (
        lambda: encode_pairs("29 Nov 2026"),
        TypeError,
        r"pairs must be a non-empty list",
    ),
    "date_accuracy one string": (
        lambda: date_accuracy(DATES, "29 Nov 2026"),
        TypeError,
        r"examples must be a non-empty list .* got '29 Nov 2026'",
    ),
    "pad_batch one string": (
        lambda: pad_batch("abc"),
        TypeError,
        r"sequences must be a list of id lists, got 'abc'",
    ),
    # ------------------------------------------------ non-string inputs
    "translate int": (
        lambda: translate(DATES, [20261129], DATE_VOCAB),
        TypeError,
        r"texts\[0\] must be a string, got 20261129 \(int\)",
    ),
    "translate None": (
        lambda: translate(DATES, ["1 May 2020", None], DATE_VOCAB),
        TypeError,
        r"texts\[1\] must be a string, got None",
    ),
    "translate vocab str": (
        lambda: translate(DATES, ["1 May 2020"], "0123456789"),
        TypeError,
        r"vocab must be a Vocabulary or a BPETokenizer, got '0123456789'",
    ),
    "vocab encode int": (
        lambda: DATE_VOCAB.encode(123),
        TypeError,
        r"text must be a string, got 123 \(int\)",
    ),
    "check_date_input int": (
        lambda: check_date_input(123),
        TypeError,
        r"a date input must be a string, got 123",
    ),
    "zoo encode int": (
        lambda: ZooLanguage().encode(5),
        TypeError,
        r"text must be a string of words, got 5",
    ),
    # ------------------------------------------------ max_len <= 0 (and too long)
    "greedy max_len=0": (
        lambda: greedy_decode(COPY, ids(1, 4), 0),
        ValueError,
        r"max_len must be a positive int, got 0",
    ),
    "beam max_len=-1": (
        lambda: beam_search(COPY, ids(1, 4), -1),
        ValueError,
        r"max_len must be a positive int, got -1",
    ),
    "translate max_len=0": (
        lambda: translate(DATES, ["1 May 2020"], DATE_VOCAB, max_len=0),
        ValueError,
        r"max_len must be a positive int, got 0",
    ),
    "greedy max_len=2.0": (
        lambda: greedy_decode(COPY, ids(1, 4), 2.0),
        TypeError,
        r"max_len must be an int, got 2.0",
    ),
    "greedy max_len too long": (
        lambda: greedy_decode(COPY, ids(1, 4), 100),
        ValueError,
        r"max_len=100 is longer than the model's max_len=64",
    ),
    "sample steps=-1": (
        lambda: sample_tokens(GPT, torch.ones(1, 1, dtype=torch.long), -1),
        ValueError,
        r"steps must be a non-negative int, got -1",
    ),
    "fit steps=2.5": (
        lambda: fit(COPY, [], seq2seq_loss, 2.5, 1e-3),
        TypeError,
        r"steps must be an int, got 2.5",
    ),
    "fit lr=-1": (
        lambda: fit(COPY, [], seq2seq_loss, 1, -1.0),
        ValueError,
        r"lr must be a non-negative number, got -1.0",
    ),
    # ------------------------------------------------ target ids outside the vocabulary
    "token_predictions target=7 of V=7": (
        lambda: token_predictions(x(2, 3, 7), torch.tensor([[0, 1, 7], [2, 3, 4]])),
        ValueError,
        r"target holds ids in \[0, 7\], outside the V=7 classes of logits \(2, 3, 7\)",
    ),
    "perplexity negative target": (
        lambda: perplexity(x(3, 5), torch.tensor([1, -3, 2]), ignore_index=0),
        ValueError,
        r"target holds ids in \[-3, 2\], outside the V=5 classes .*ignore_index=0 aside",
    ),
    "label smoothing target=9 of V=5": (
        lambda: label_smoothing_loss(x(3, 5), torch.tensor([0, 9, 1]), 0.1),
        ValueError,
        r"target ids must lie in \[0, 5\), got \[0, 9\]",
    ),
    "token_predictions float target": (
        lambda: token_predictions(x(2, 5), torch.tensor([1.0, 2.0])),
        TypeError,
        r"target must be a long \(int64\) tensor, got dtype float32",
    ),
    # ------------------------------------------------ batch sizes, in the caller's shapes
    "mha batch mismatch": (
        lambda: MHA(x(2, 5, 8), x(3, 5, 8), x(3, 5, 8)),
        ValueError,
        r"same batch size B: got query \(2, 5, 8\), key \(3, 5, 8\), value \(3, 5, 8\)",
    ),
    "mha key/value length": (
        lambda: MHA(x(2, 5, 8), x(2, 5, 8), x(2, 6, 8)),
        ValueError,
        r"key \(2, 5, 8\) vs value \(2, 6, 8\)",
    ),
    "mha mask batch": (
        lambda: MHA(x(2, 5, 8), x(2, 5, 8), x(2, 5, 8), torch.ones(3, 5, 5, dtype=torch.bool)),
        ValueError,
        r"mask of shape \(3, 5, 5\) does not broadcast to the attention scores' shape \(2, 5, 5\)",
    ),
    "model src/tgt batch": (
        lambda: COPY(ids(2, 5), ids(3, 4)),
        ValueError,
        r"src and tgt must have the same batch size B, got \(2, 5\) and \(3, 4\)",
    ),
    "seq2seq src/tgt batch": (
        lambda: seq2seq_loss(COPY, ids(2, 5), ids(3, 6)),
        ValueError,
        r"got \(2, 5\) and \(3, 5\)",
    ),
    "additive s/H batch": (
        lambda: AdditiveAttention(4, 4, 4)(x(2, 4), x(3, 5, 4)),
        ValueError,
        r"H must have shape \(B=2, T_x, d_h=4\), got \(3, 5, 4\)",
    ),
    "distillation targets": (
        lambda: distillation_loss(x(2, 5, 8), x(2, 5, 8), ids(2, 4)),
        ValueError,
        r"targets \(2, 4\) do not match logits \(2, 5, 8\)",
    ),
    # ------------------------------------------------ generators
    "copy_batch generator=0": (
        lambda: copy_batch(4, generator=0),
        TypeError,
        r"generator must be a torch.Generator or None, got 0 \(int\).*manual_seed",
    ),
    "recall_batch generator=42": (
        lambda: recall_batch(4, 3, generator=42),
        TypeError,
        r"generator must be a torch.Generator",
    ),
}


@pytest.mark.parametrize(("call", "error", "pattern"), list(CASES.values()), ids=list(CASES))
def test_bad_input_is_a_clear_error(call, error, pattern):
    with pytest.raises(error) as info:
        call()
    assert type(info.value) is error or issubclass(type(info.value), error)
    assert re.search(pattern, str(info.value)), f"message {str(info.value)!r} !~ {pattern!r}"


# ------------------------------------------------------------------ checkpoints


def _files(tmp_path):
    """A checkpoint-path mistake each: name -> (path, pattern)."""
    good = tmp_path / "good.safetensors"
    save_checkpoint(COPY, good, task="copy")
    data = good.read_bytes()
    made = {
        "directory": (tmp_path, r"is a directory, not a checkpoint file"),
        "missing": (
            tmp_path / "nope.safetensors",
            r"no checkpoint at .*nope.safetensors.*does not exist",
        ),
        "empty": (b"", r"is empty \(0 bytes\)"),
        "truncated": (data[: len(data) // 2], r"bytes\) is not a complete safetensors file"),
        "random bytes": (bytes(range(256)) * 40, r"is not a complete safetensors file"),
        "pickle": (
            pickle.dumps({"W": [1.0, 2.0]}),
            r"looks like a pickle or torch.save file.*never pickle",
        ),
        "torch.save": (None, r"looks like a pickle or torch.save file"),
    }
    out = {}
    for name, (content, pattern) in made.items():
        if isinstance(content, bytes):
            path = tmp_path / f"{name.replace(' ', '_')}.safetensors"
            path.write_bytes(content)
        elif content is None:
            path = tmp_path / "model.pt"
            torch.save(COPY.state_dict(), path)
        else:
            path = content
        out[name] = (path, pattern)
    weights = {"w": torch.zeros(2)}
    for name, metadata, pattern in [
        ("no config", {"task": "copy"}, r"has no 'config' metadata: not an attnbook checkpoint"),
        ("config not JSON", {"config": "{src_vocab: 11"}, r"its 'config' metadata is not JSON"),
        (
            "config not a TransformerConfig",
            {"config": json.dumps({"vocab": 11})},
            r"is not a TransformerConfig",
        ),
        (
            "weights that do not fit",
            {"config": json.dumps({"src_vocab": 11, "tgt_vocab": 11})},
            r"its tensors do not fit its config",
        ),
    ]:
        path = tmp_path / f"{name.replace(' ', '_')}.safetensors"
        save_file(weights, path, metadata=metadata)
        out[name] = (path, pattern)
    return out


CHECKPOINT_CASES = [
    "directory", "missing", "empty", "truncated", "random bytes", "pickle", "torch.save",
    "no config", "config not JSON", "config not a TransformerConfig", "weights that do not fit",
]  # fmt: skip


@pytest.mark.parametrize("case", CHECKPOINT_CASES)
def test_bad_checkpoint_files_are_clear_errors(case, tmp_path):
    path, pattern = _files(tmp_path)[case]
    with pytest.raises(CheckpointError) as info:
        load_checkpoint(path)
    assert isinstance(info.value, ValueError)  # a CheckpointError is a ValueError
    assert re.search(pattern, str(info.value)), f"message {str(info.value)!r} !~ {pattern!r}"


def test_checkpoint_path_of_the_wrong_type():
    with pytest.raises(TypeError, match=r"path must be a str or a pathlib.Path, got 42 \(int\)"):
        load_checkpoint(42)
    with pytest.raises(TypeError, match=r"model must be a Transformer, got"):
        save_checkpoint({"W": torch.zeros(1)}, "x.safetensors")


def test_the_good_checkpoint_of_these_cases_loads(tmp_path):
    path = tmp_path / "good.safetensors"
    save_checkpoint(COPY, path, task="copy")
    model, meta = load_checkpoint(path)
    assert meta == {"task": "copy"} and model.config == COPY.config


def test_there_are_at_least_sixty_cases():
    assert len(CASES) + len(CHECKPOINT_CASES) + 2 >= 60


def test_describe_shows_the_callers_value():
    assert describe(torch.zeros(2, 3)) == "a tensor of shape (2, 3) and dtype float32"
    assert describe([1, 2]) == "a list of 2 items" and describe(2.0) == "2.0 (float)"
