"""attnbook.heads: parameter counts, the shift-cipher task, head contributions and ablation."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from attnbook.attention import MultiHeadAttention, causal_mask
from attnbook.data import IGNORE_INDEX as IGNORE
from attnbook.data import cipher_batch
from attnbook.heads import (
    CipherModel,
    ablate_heads,
    accuracy,
    attention_parameter_count,
    head_ablation,
    head_contributions,
    predictions,
    refit_readout,
    relation_weights,
    subset_predictions,
    train_cipher_model,
)
from attnbook.viz.explorers.heads import HeadsExplorer, subset_label


def _n(module: nn.Module) -> int:
    return sum(p.numel() for p in module.parameters())


# --- parameter counts -------------------------------------------------------------------------


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize(("d_model", "h"), [(8, 1), (8, 2), (8, 8), (512, 8), (48, 6)])
def test_parameter_count_matches_the_modules(d_model, h, bias):
    ours = _n(MultiHeadAttention(d_model, h, bias=bias))
    torchs = _n(nn.MultiheadAttention(d_model, h, bias=bias, batch_first=True))
    assert attention_parameter_count(d_model, h, bias=bias) == ours == torchs
    assert ours == 4 * d_model**2 + (4 * d_model if bias else 0)  # the same for every h


def test_parameter_count_with_wider_heads_matches_separate_projections():
    d_model, h, d_k, d_v = 12, 3, 12, 5  # each head keeps the full width for Q and K
    heads = nn.ModuleList(
        nn.ModuleList([nn.Linear(d_model, d_k), nn.Linear(d_model, d_k), nn.Linear(d_model, d_v)])
        for _ in range(h)
    )
    W_O = nn.Linear(h * d_v, d_model)
    expected = _n(heads) + _n(W_O)
    assert attention_parameter_count(d_model, h, d_k=d_k, d_v=d_v) == expected


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"d_model": 10, "h": 3}, "not divisible"),
        ({"d_model": 0, "h": 1}, "d_model"),
        ({"d_model": 8, "h": 0}, "h must"),
        ({"d_model": 8, "h": 2, "d_k": 0, "d_v": 4}, "d_k must be a positive int, got 0"),
    ],
)
def test_parameter_count_rejects_bad_sizes(kwargs, message):
    with pytest.raises(ValueError, match=message):
        attention_parameter_count(**kwargs)


# --- the task ---------------------------------------------------------------------------------


def test_cipher_batch_answers_by_hand():
    B, T, K, span = 50, 10, 7, 3
    batch = cipher_batch(B, T, K, span, torch.Generator().manual_seed(0))
    assert batch.tokens.shape == batch.marked.shape == batch.targets.shape == (B, T)
    assert batch.tokens.min() >= 0 and batch.tokens.max() < K
    assert (batch.marked.sum(1) == 1).all() and (batch.marked[:, span:] == 0).all()
    for b in range(B):
        m = int(batch.marked[b].argmax())
        key = int(batch.tokens[b, m])
        for i in range(T):
            expected = (int(batch.tokens[b, i - 1]) - key) % K if i >= m + 2 else IGNORE
            assert int(batch.targets[b, i]) == expected


def test_cipher_batch_is_reproducible():
    a = cipher_batch(4, generator=torch.Generator().manual_seed(3))
    b = cipher_batch(4, generator=torch.Generator().manual_seed(3))
    for x, y in zip(a, b):
        assert torch.equal(x, y)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"T": 4, "key_span": 3}, "leaves no answer"),
        ({"K": 1}, "K must be an int >= 2, got 1"),
        ({"batch_size": 0}, "batch_size must be a positive int, got 0"),
    ],
)
def test_cipher_batch_rejects_bad_sizes(kwargs, message):
    args = {"batch_size": 2, **kwargs}
    with pytest.raises(ValueError, match=message):
        cipher_batch(**args)


# --- the model, contributions and ablation ----------------------------------------------------


def _model(h=4, seed=0):
    torch.manual_seed(seed)
    return CipherModel(K=5, d_model=8, h=h, max_len=8, d_ff=16).double().eval()


def _batch(B=6, T=8):
    return cipher_batch(B, T, 5, 3, torch.Generator().manual_seed(1))


def test_model_shapes_and_causality():
    model, batch = _model(), _batch()
    logits, weights = model(batch.tokens, batch.marked)
    assert logits.shape == (6, 8, 5) and weights.shape == (6, 4, 8, 8)
    assert weights.triu(diagonal=1).abs().max() == 0  # the causal mask holds
    changed = batch.tokens.clone()
    changed[:, -1] = (changed[:, -1] + 1) % 5  # change only the last token
    logits2, _ = model(changed, batch.marked)
    torch.testing.assert_close(logits2[:, :-1], logits[:, :-1])  # earlier answers unchanged
    assert not torch.allclose(logits2[:, -1], logits[:, -1])


def test_model_rejects_mismatched_inputs():
    with pytest.raises(ValueError, match="tokens and marked"):
        _model()(torch.zeros(2, 5, dtype=torch.long), torch.zeros(2, 4, dtype=torch.long))
    with pytest.raises(ValueError, match="not divisible"):
        CipherModel(K=5, d_model=8, h=3)


def test_head_contributions_add_up_to_the_output():
    torch.manual_seed(0)
    mha = MultiHeadAttention(12, 3).double()
    q, kv = torch.randn(2, 4, 12).double(), torch.randn(2, 6, 12).double()
    mask = torch.rand(2, 4, 6) > 0.3
    mask[..., 0] = True
    out, weights = mha(q, kv, kv, mask=mask)
    contributions, w = head_contributions(mha, q, kv, kv, mask=mask)
    assert contributions.shape == (2, 3, 4, 12)
    torch.testing.assert_close(w, weights)
    torch.testing.assert_close(contributions.sum(1) + mha.W_O.bias, out)
    # head i's term is what remains when every other head's block of W_O is zeroed
    kept = MultiHeadAttention(12, 3).double()
    kept.load_state_dict(mha.state_dict())
    with torch.no_grad():
        kept.W_O.weight[:, 4:] = 0.0
    torch.testing.assert_close(kept(q, kv, kv, mask=mask)[0], contributions[:, 0] + mha.W_O.bias)
    with pytest.raises(ValueError, match="dropout"):
        head_contributions(
            MultiHeadAttention(12, 3, dropout=0.1).train(), q.float(), q.float(), q.float()
        )


def test_ablating_heads_removes_exactly_their_terms():
    model, batch = _model(), _batch()
    before = model.attention.W_O.weight.clone()
    ablated = ablate_heads(model, [1, 3])
    torch.testing.assert_close(model.attention.W_O.weight, before)  # the original is untouched
    x = model.embed_inputs(batch.tokens, batch.marked)
    mask = causal_mask(8)
    contributions, _ = head_contributions(model.attention, x, x, x, mask)
    expected = contributions[:, [0, 2]].sum(1) + model.attention.W_O.bias
    torch.testing.assert_close(ablated.attention(x, x, x, mask)[0], expected)
    none = ablate_heads(model, [])
    torch.testing.assert_close(
        none(batch.tokens, batch.marked)[0], model(batch.tokens, batch.marked)[0]
    )
    with pytest.raises(ValueError, match="head indices"):
        ablate_heads(model, [4])
    with pytest.raises(ValueError, match="leaves nothing"):
        ablate_heads(model, [0, 1, 2, 3])


def test_rescaled_ablation_multiplies_the_kept_terms_by_h_over_k():
    model, batch = _model(), _batch()
    x = model.embed_inputs(batch.tokens, batch.marked)
    mask = causal_mask(8)
    contributions, _ = head_contributions(model.attention, x, x, x, mask)
    rescaled = ablate_heads(model, [2], rescale=True)
    expected = 4 / 3 * contributions[:, [0, 1, 3]].sum(1) + model.attention.W_O.bias
    torch.testing.assert_close(rescaled.attention(x, x, x, mask)[0], expected)
    same = ablate_heads(model, [], rescale=True)  # nothing removed: factor 1
    torch.testing.assert_close(same.attention.W_O.weight, model.attention.W_O.weight)


def test_read_out_is_the_forward_pass_after_attention():
    model, batch = _model(), _batch()
    x = model.embed_inputs(batch.tokens, batch.marked)
    a, _ = model.attention(x, x, x, causal_mask(8))
    torch.testing.assert_close(model.read_out(x, a), model(batch.tokens, batch.marked)[0])


def test_refit_trains_only_the_read_out_of_an_ablated_copy():
    torch.manual_seed(0)
    model = CipherModel(K=5, d_model=8, h=2, max_len=8, d_ff=16).eval()
    pool = cipher_batch(200, 8, 5, 3, torch.Generator().manual_seed(3))
    before = {k: v.clone() for k, v in model.state_dict().items()}
    refit, history = refit_readout(model, [1], pool, steps=40, batch_size=64, lr=1e-2, seed=0)
    for k, v in model.state_dict().items():  # the model itself is untouched
        torch.testing.assert_close(v, before[k])
    ablated = ablate_heads(model, [1]).state_dict()
    readout = ("norm.", "W_1.", "W_2.")
    for k, v in refit.state_dict().items():
        if k.startswith(readout):
            assert not torch.equal(v, ablated[k]), f"{k} was not trained"
        else:  # embeddings and attention (head 1's block of W_O zeroed) as in ablate_heads
            torch.testing.assert_close(v, ablated[k])
    assert all(p.requires_grad for p in refit.parameters()) and not refit.training
    assert history.steps == 40 and sum(history.loss[-5:]) < sum(history.loss[:5])
    again, history_again = refit_readout(model, [1], pool, steps=40, batch_size=64, lr=1e-2)
    assert history_again.loss == history.loss  # seeded: the same positions, the same steps
    with pytest.raises(TypeError, match="CipherBatch"):
        refit_readout(model, [1], (pool.tokens, pool.targets))
    with pytest.raises(ValueError, match="head indices"):
        refit_readout(model, [2], pool)


def test_refit_recovers_what_the_kept_heads_carry():
    """A read-out trained again can only do better than the old one on the kept heads."""
    torch.manual_seed(0)
    model = CipherModel(K=5, d_model=16, h=2, max_len=8, d_ff=32)
    train_cipher_model(model, steps=150, batch_size=64, lr=1e-2, T=8, progress=False)
    pool = cipher_batch(500, 8, 5, 3, torch.Generator().manual_seed(3))
    test = cipher_batch(500, 8, 5, 3, torch.Generator().manual_seed(4))
    for removed in ([0], [1]):
        refit, _ = refit_readout(model, removed, pool, steps=150, batch_size=256, lr=1e-2)
        assert accuracy(refit, test) >= accuracy(ablate_heads(model, removed), test) - 0.02


def test_accuracy_ablation_and_subsets_agree():
    model, batch = _model(h=2), _batch(B=20)
    acc = accuracy(model, batch)
    answered = batch.targets != IGNORE
    by_hand = (predictions(model, batch) == batch.targets)[answered].float().mean().item()
    assert acc == pytest.approx(by_hand)
    drops = head_ablation(model, batch)
    assert drops.shape == (2,)
    assert drops[0].item() == pytest.approx(accuracy(ablate_heads(model, [0]), batch))
    subsets = subset_predictions(model, batch)  # rows: {0}, {1}, {0, 1}
    assert subsets.shape == (3, 20, 8)
    assert torch.equal(subsets[-1], predictions(model, batch))
    assert torch.equal(subsets[0], predictions(ablate_heads(model, [1]), batch))
    with pytest.raises(ValueError, match="too many"):
        subset_predictions(CipherModel(K=3, d_model=7, h=7), batch)


def test_relation_weights_of_hand_built_heads():
    batch = cipher_batch(5, 8, 5, 3, torch.Generator().manual_seed(2))
    T = 8
    previous = torch.zeros(T, T)
    previous[0, 0] = 1.0
    previous[torch.arange(1, T), torch.arange(T - 1)] = 1.0  # query i → key i − 1
    on_key = batch.marked[:, None, :].float().expand(5, T, T)  # every query → the key
    weights = torch.stack([previous.expand(5, T, T), on_key], dim=1)  # (B, 2, T, T)
    torch.testing.assert_close(
        relation_weights(weights, batch), torch.tensor([[1.0, 0.0], [0.0, 1.0]])
    )
    with pytest.raises(ValueError, match="weights must be"):
        relation_weights(weights[:, :, :-1], batch)


def test_training_is_reproducible_and_lowers_the_loss():
    runs = []
    for _ in range(2):
        torch.manual_seed(0)
        model = CipherModel(K=4, d_model=8, h=2, max_len=6, d_ff=16)
        runs.append(
            train_cipher_model(model, steps=60, batch_size=32, lr=1e-2, T=6, progress=False)
        )
    assert runs[0].loss == runs[1].loss and runs[0].steps == 60
    assert runs[0].lr == [1e-2] * 60  # a constant learning rate
    losses = runs[0].loss
    assert sum(losses[-10:]) / 10 < losses[0]  # it learns something (the digit frequencies)
    assert not model.training  # left in eval mode
    with pytest.raises(ValueError, match="steps"):
        train_cipher_model(model, steps=0)
    with pytest.raises(ValueError, match="threads must be a positive int, got 0"):
        train_cipher_model(model, steps=1, threads=0)


def test_training_restores_the_thread_count():
    before = torch.get_num_threads()
    model = CipherModel(K=4, d_model=8, h=2, max_len=6, d_ff=16)
    train_cipher_model(model, steps=2, batch_size=4, T=6, progress=False, threads=1)
    assert torch.get_num_threads() == before


# --- the explorer -----------------------------------------------------------------------------


def test_subset_labels():
    """Heads named as the reader sees them: counted from 1."""
    assert [subset_label(s, 3) for s in (1, 2, 3, 5, 7)] == [
        "head 1",
        "head 2",
        "heads 1+2",
        "heads 1+3",
        "all 3 heads",
    ]
    assert subset_label(1, 1) == "head 1"


def _explorer_args(h=2, T=5, d=4):
    g = torch.Generator().manual_seed(0)
    return {
        "tokens": [str(i) for i in range(T)],
        "weights": torch.softmax(torch.randn(h, T, T, generator=g), -1),
        "contributions": torch.randn(h, T, d, generator=g),
        "predictions": [[str(s)] * T for s in range(2**h - 1)],
        "targets": ["", "", "1", "2", "3"],
    }


def test_heads_explorer_state():
    args = _explorer_args()
    w = HeadsExplorer(**args, query=3)
    assert w.query == 3 and w.heads == 3  # all heads kept by default
    assert len(w.predictions) == 3  # one row of answers per non-empty set of heads
    torch.testing.assert_close(torch.tensor(w.weights), args["weights"], atol=1e-4, rtol=0)
    torch.testing.assert_close(
        torch.tensor(w.contributions), args["contributions"], atol=1e-3, rtol=0
    )
    # its controls (the query slider, one toggle per head) are exercised in the browser by
    # tests/test_explorers_browser.py, and its sums in node by tests/test_explorers.py


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"query": 5}, "query must index"),
        ({"heads": 4}, "bit mask"),
        ({"targets": ["1"]}, "1 targets"),
        ({"predictions": [["0"] * 5]}, "3 rows"),
        ({"contributions": torch.zeros(3, 5, 4)}, "contributions"),
        ({"weights": torch.zeros(2, 5, 4)}, "weights must be"),
        ({"weights": torch.zeros(7, 5, 5)}, "h must be"),
    ],
)
def test_heads_explorer_rejects_bad_input(change, message):
    with pytest.raises(ValueError, match=message):
        HeadsExplorer(**{**_explorer_args(), **change})
