"""attnbook.rnn: the explicit recurrence, additive attention, the recall task, the measurements."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from attnbook.attention import MultiHeadAttention
from attnbook.data import QUERY_ID, recall_batch
from attnbook.rnn import (
    AdditiveAttention,
    ElmanRNN,
    RecallAttention,
    RecallRNN,
    RNNEncoderDecoder,
    fewest_layers_to_reach_first,
    gradient_norm_grid,
    graph_depth,
    input_gradient_norms,
    last_output_gradient_norms,
    reaches_first_position,
    recall_accuracy,
    spectral_radius,
    train_recall,
    with_spectral_radius,
)
from attnbook.viz.explorers.rnn import GradientDecayExplorer, TimingExplorer


def _gen(seed: int = 0) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


# ---------------------------------------------------------------- the recurrence


def test_explicit_loop_matches_torch_rnn_with_copied_weights():
    torch.manual_seed(0)
    reference = nn.RNN(5, 7, batch_first=True)
    loop = ElmanRNN.from_torch(reference)
    x = torch.randn(3, 11, 5)
    h0 = torch.randn(3, 7)
    H_ref, h_ref = reference(x, h0[None])
    H, h_T = loop(x, h0)
    torch.testing.assert_close(H, H_ref)
    torch.testing.assert_close(h_T, h_ref[0])
    torch.testing.assert_close(H[:, -1], h_T)


def test_explicit_loop_gradients_match_torch_rnn():
    torch.manual_seed(1)
    reference = nn.RNN(4, 6, batch_first=True)
    loop = ElmanRNN.from_torch(reference)
    x = torch.randn(2, 9, 4)
    reference(x)[0].pow(2).sum().backward()
    loop(x)[0].pow(2).sum().backward()
    torch.testing.assert_close(loop.W_hh.weight.grad, reference.weight_hh_l0.grad)
    torch.testing.assert_close(loop.W_xh.weight.grad, reference.weight_ih_l0.grad)
    torch.testing.assert_close(loop.W_hh.bias.grad, reference.bias_hh_l0.grad)


def test_default_initial_state_is_zero():
    torch.manual_seed(2)
    loop = ElmanRNN(3, 4)
    x = torch.randn(2, 5, 3)
    torch.testing.assert_close(loop(x)[0], loop(x, torch.zeros(2, 4))[0])


@pytest.mark.parametrize(
    ("x", "h0", "message"),
    [
        (torch.randn(2, 5), None, "shape \\(B, T, d_in=3\\)"),
        (torch.randn(2, 5, 4), None, "d_in=3"),
        (torch.randn(2, 0, 3), None, "empty sequence"),
        (torch.randn(2, 5, 3), torch.zeros(3, 4), "h0 must have shape"),
    ],
)
def test_explicit_loop_rejects_bad_shapes(x, h0, message):
    with pytest.raises(ValueError, match=message):
        ElmanRNN(3, 4)(x, h0)


@pytest.mark.parametrize(
    "rnn",
    [
        nn.RNN(3, 4, num_layers=2),
        nn.RNN(3, 4, nonlinearity="relu"),
        nn.RNN(3, 4, bidirectional=True),
        nn.RNN(3, 4, bias=False),
    ],
)
def test_from_torch_rejects_what_it_cannot_copy(rnn):
    with pytest.raises(ValueError, match="nn.RNN"):
        ElmanRNN.from_torch(rnn)


def test_elman_rejects_bad_sizes():
    with pytest.raises(ValueError, match="d_in must be a positive int, got 0"):
        ElmanRNN(0, 4)
    with pytest.raises(TypeError, match=r"d_h must be an int, got 4.0"):
        ElmanRNN(3, 4.0)


def test_spectral_radius_and_rescaling():
    W = torch.tensor([[2.0, 0.0], [0.0, -3.0]])
    assert spectral_radius(W) == pytest.approx(3.0)
    rotation = torch.tensor([[0.0, -1.0], [1.0, 0.0]])  # eigenvalues ±i: complex, modulus 1
    assert spectral_radius(rotation) == pytest.approx(1.0)
    W_big = torch.randn(16, 16, generator=_gen())
    for rho in (0.5, 1.0, 2.0):
        assert spectral_radius(with_spectral_radius(W_big, rho)) == pytest.approx(rho, rel=1e-5)
    with pytest.raises(ValueError, match="square"):
        spectral_radius(torch.randn(2, 3))
    with pytest.raises(ValueError, match="spectral radius 0"):
        with_spectral_radius(torch.zeros(3, 3), 1.0)
    with pytest.raises(ValueError, match="non-negative"):
        with_spectral_radius(W, -1.0)


def test_bptt_product_matches_autograd():
    torch.manual_seed(3)
    rnn = ElmanRNN(5, 6).double()
    x = torch.randn(2, 8, 5, dtype=torch.float64)
    norms = input_gradient_norms(rnn, x)  # (B, T)
    assert norms.shape == (2, 8)
    for b in range(2):
        reference = last_output_gradient_norms(lambda s: rnn(s)[0], x[b])
        torch.testing.assert_close(norms[b], reference)


def test_last_output_gradient_norms_sees_only_the_past_through_a_causal_map():
    x = torch.randn(6, 3, generator=_gen())
    norms = last_output_gradient_norms(lambda s: s.cumsum(dim=1), x)  # y_T = Σ_t x_t
    torch.testing.assert_close(norms, torch.full((6,), 3**0.5))
    norms = last_output_gradient_norms(lambda s: s * 2, x)  # y_T = 2 x_T only
    assert norms[:-1].abs().max() == 0 and norms[-1] > 0
    with pytest.raises(ValueError, match="one sequence"):
        last_output_gradient_norms(lambda s: s, torch.randn(1, 6, 3))


def test_gradient_norms_vanish_below_and_explode_above():
    grid = gradient_norm_grid([0.5, 1.0, 2.5], T=60, d_h=32, B=4)
    assert grid.shape == (3, 60)
    decay = grid[:, -1] - grid[:, 0]  # log10 change from distance 0 to distance 59
    assert decay[0] < -10  # ρ = 0.5: gradients vanish geometrically
    assert decay[2] > 1  # ρ = 2.5: they explode
    assert decay[0] < decay[1] < decay[2]
    with pytest.raises(ValueError, match="some rhos"):
        gradient_norm_grid([], T=10)


# ---------------------------------------------------------------- additive attention


def test_additive_attention_weights_are_a_distribution_over_all_positions():
    torch.manual_seed(4)
    attention = AdditiveAttention(d_s=5, d_h=6, d_a=7)
    s, H = torch.randn(3, 5), torch.randn(3, 40, 6)
    c, alpha = attention(s, H)
    assert c.shape == (3, 6) and alpha.shape == (3, 40)
    torch.testing.assert_close(alpha.sum(dim=-1), torch.ones(3))
    assert (alpha > 0).all()  # global: every encoder state gets some weight, no window
    torch.testing.assert_close(c, torch.einsum("bj,bjd->bd", alpha, H))
    e = torch.tanh(s @ attention.W_a.weight.T + (H @ attention.U_a.weight.T).transpose(0, 1))
    e = (e @ attention.v_a.weight.T).squeeze(-1).T  # (B, T_x): v_aᵀ tanh(W_a s + U_a h_j)
    torch.testing.assert_close(alpha, torch.softmax(e, dim=-1))


def test_additive_attention_masks_padding_exactly():
    torch.manual_seed(5)
    attention = AdditiveAttention(4, 4, 4)
    s, H = torch.randn(2, 4), torch.randn(2, 5, 4)
    mask = torch.tensor([[True] * 5, [True, True, False, False, False]])
    c, alpha = attention(s, H, mask)
    assert alpha[1, 2:].abs().max() == 0
    torch.testing.assert_close(alpha.sum(dim=-1), torch.ones(2))
    H_changed = H.clone()
    H_changed[1, 2:] = 100.0  # what sits under the mask cannot matter
    torch.testing.assert_close(attention(s, H_changed, mask)[0], c)
    _, alpha_none = attention(s, H, torch.zeros(2, 5, dtype=torch.bool))
    assert torch.equal(alpha_none, torch.zeros(2, 5))  # all masked: zeros, not NaN


@pytest.mark.parametrize(
    ("s", "H", "mask", "message"),
    [
        (torch.randn(2, 3), torch.randn(2, 5, 4), None, "s must have shape"),
        (torch.randn(2, 4), torch.randn(2, 5, 3), None, "H must have shape"),
        (torch.randn(2, 4), torch.randn(3, 5, 4), None, "H must have shape"),
        (torch.randn(2, 4), torch.randn(2, 5, 4), torch.ones(2, 5), "mask must be a bool"),
        (torch.randn(2, 4), torch.randn(2, 5, 4), torch.ones(2, 4, dtype=torch.bool), "shape"),
    ],
)
def test_additive_attention_rejects_bad_input(s, H, mask, message):
    error = TypeError if "bool" in message else ValueError
    with pytest.raises(error, match=message):
        AdditiveAttention(4, 4, 4)(s, H, mask)


def test_encoder_decoder_shapes_alignment_and_padding():
    torch.manual_seed(6)
    model = RNNEncoderDecoder(src_vocab=9, tgt_vocab=7, d_emb=8, d_h=8, d_a=8).eval()
    src = torch.randint(0, 9, (2, 6))
    tgt_in = torch.randint(0, 7, (2, 4))
    mask = torch.tensor([[True] * 6, [True] * 4 + [False] * 2])
    logits, alignment = model(src, tgt_in, mask)
    assert logits.shape == (2, 4, 7) and alignment.shape == (2, 4, 6)
    torch.testing.assert_close(alignment.sum(dim=-1), torch.ones(2, 4))
    assert alignment[1, :, 4:].abs().max() == 0
    with pytest.raises(ValueError, match="same B"):
        model(src, tgt_in[:1])


# ---------------------------------------------------------------- the recall task


def test_recall_batch_asks_for_the_first_symbol():
    x, y = recall_batch(50, n=7, K=5, generator=_gen())
    assert x.shape == (50, 9) and y.shape == (50,)
    assert torch.equal(y, x[:, 0])
    assert (x[:, -1] == QUERY_ID).all() and QUERY_ID == 3  # after <pad>, <bos>, <eos>
    assert x[:, :-1].min() >= 4 and x[:, :-1].max() <= 8  # the K = 5 symbols: ids 4 … 8
    x2, _ = recall_batch(50, n=7, K=5, generator=_gen())
    assert torch.equal(x, x2)  # the generator makes it reproducible
    with pytest.raises(ValueError, match="n must be a non-negative int, got -1"):
        recall_batch(4, n=-1)
    with pytest.raises(ValueError, match="K must be an int >= 2, got 1"):
        recall_batch(4, n=3, K=1)


def test_recall_models_shapes_and_errors():
    x, _ = recall_batch(3, n=4, K=6, generator=_gen())
    assert RecallRNN(K=6, d=8, cell="lstm")(x).shape == (3, 10)  # 3 specials, ?, 6 symbols
    logits, weights = RecallAttention(K=6, d=8, max_len=6)(x)
    assert logits.shape == (3, 10) and weights.shape == (3, 4, 1, 6)  # h = 4 heads
    torch.testing.assert_close(weights.sum(dim=-1), torch.ones(3, 4, 1))
    with pytest.raises(ValueError, match="cell must be"):
        RecallRNN(cell="transformer")
    with pytest.raises(ValueError, match=r"x of shape \(3, 6\) is longer than max_len=5"):
        RecallAttention(K=6, d=8, max_len=5)(x)


def test_attention_learns_to_recall_across_distractors():
    torch.manual_seed(7)
    model = RecallAttention(K=4, d=16, max_len=32)
    seen = []
    history = train_recall(
        model,
        n=20,
        steps=150,
        B=64,
        lr=1e-2,
        K=4,
        generator=_gen(1),
        callback=lambda step, loss: seen.append((step, loss)),
    )
    losses = history.loss
    assert losses[-1] < losses[0] / 4
    assert [step for step, _ in seen] == list(range(1, 151))  # steps count from 1
    assert [loss.item() for _, loss in seen] == losses
    assert recall_accuracy(model, n=20, B=200, K=4, generator=_gen(2)) > 0.9
    with pytest.raises(ValueError, match="steps must be a positive int, got 0"):
        train_recall(model, n=3, steps=0)


# ---------------------------------------------------------------- measuring Table 1


def test_graph_depth_counts_sequential_operations():
    x = torch.randn(3, requires_grad=True)
    y = x
    for _ in range(10):
        y = y * 2
    assert graph_depth(y) == 11  # ten multiplications and the leaf's AccumulateGrad
    rnn = ElmanRNN(4, 4)
    mha = MultiHeadAttention(4, 1)

    def depth(f, T):
        return graph_depth(f(torch.randn(1, T, 4, requires_grad=True)))

    recurrent = [depth(lambda s: rnn(s)[0], T) for T in (10, 20, 40)]
    assert recurrent[2] - recurrent[1] == 2 * (recurrent[1] - recurrent[0]) > 0  # linear in T
    parallel = [depth(lambda s: mha(s, s, s)[0], T) for T in (10, 20, 40)]
    assert parallel[0] == parallel[1] == parallel[2]  # constant in T
    with pytest.raises(ValueError, match="no autograd graph"):
        graph_depth(torch.randn(3))


def test_reaches_first_position():
    conv = nn.Conv1d(2, 2, kernel_size=3, padding=1)

    def convolution(x):
        return conv(x.transpose(1, 2)).transpose(1, 2)

    x = torch.randn(1, 4, 2)
    assert not reaches_first_position(convolution, x)  # each layer looks 1 position back
    assert not reaches_first_position(lambda s: convolution(convolution(s)), x)
    assert reaches_first_position(lambda s: convolution(convolution(convolution(s))), x)
    assert reaches_first_position(lambda s: s.cumsum(dim=1), x)
    with pytest.raises(ValueError, match="T >= 2"):
        reaches_first_position(convolution, torch.randn(1, 1, 2))


def test_fewest_layers_to_reach_first():
    conv = nn.Conv1d(2, 2, kernel_size=3, padding=1)

    def stack(x, L):
        x = x.transpose(1, 2)
        for _ in range(L):
            x = conv(x)
        return x.transpose(1, 2)

    for T in (2, 5, 17):  # a centred kernel of 3 looks one position back: T - 1 layers
        assert fewest_layers_to_reach_first(stack, torch.randn(1, T, 2), max_layers=40) == T - 1
    mha = MultiHeadAttention(2, 1)
    assert fewest_layers_to_reach_first(lambda s, L: mha(s, s, s)[0], torch.randn(1, 30, 2), 4) == 1
    with pytest.raises(ValueError, match="do not connect"):
        fewest_layers_to_reach_first(stack, torch.randn(1, 10, 2), max_layers=3)


# ---------------------------------------------------------------- the explorers


def test_gradient_explorer_state_and_errors():
    rhos = [0.5, 1.0, 1.5]
    grid = torch.tensor([[0.0, -1.0, -2.0], [0.0, 0.0, 0.0], [0.0, 1.0, 2.123456]])
    w = GradientDecayExplorer(rhos, grid, attention=torch.zeros(3), rho=1.1)
    assert w.index == 1 and w.rhos == rhos
    assert w.log_norms[2][2] == pytest.approx(2.123, abs=1e-9)
    with pytest.raises(ValueError, match="len\\(rhos\\)"):
        GradientDecayExplorer(rhos[:2], grid)
    with pytest.raises(ValueError, match="finite"):
        GradientDecayExplorer(rhos, grid.log())
    with pytest.raises(ValueError, match="one value per distance"):
        GradientDecayExplorer(rhos, grid, attention=torch.zeros(4))


def test_timing_explorer_state_and_errors():
    times = {"loop": [0.001, 0.002, 0.004], "attention": [0.001, 0.0015, 0.003]}
    w = TimingExplorer([16, 32, 64], times, n=64)
    assert w.index == 2 and w.labels == ["loop", "attention"]
    assert w.times_ms[0] == pytest.approx([1.0, 2.0, 4.0])
    with pytest.raises(ValueError, match="increasing"):
        TimingExplorer([16, 16], {"a": [1.0, 1.0]})
    with pytest.raises(ValueError, match="3 lengths"):
        TimingExplorer([16, 32, 64], {"a": [1.0, 2.0]})
    with pytest.raises(ValueError, match="positive seconds"):
        TimingExplorer([16, 32], {"a": [1.0, 0.0]})
    with pytest.raises(ValueError, match="not one of the measured"):
        TimingExplorer([16, 32], {"a": [1.0, 2.0]}, n=20)
