"""attnbook.scaling (why divide by √d_k) and its explorer, against autograd and the theory."""

from __future__ import annotations

import json
import math
import shutil
import subprocess

import pytest
import torch
from torch.autograd.functional import jacobian

from attnbook.data import retrieval_batch
from attnbook.rnn import AdditiveAttention
from attnbook.scaling import (
    SCALINGS,
    AdditiveScore,
    RetrievalAttention,
    additive_attention,
    dot_products,
    entropy,
    scale_factor,
    softmax_jacobian,
    softmax_jacobian_norm,
    softmax_saturation,
)
from attnbook.viz.explorers._base import JS
from attnbook.viz.explorers.scaling import ScalingExplorer


def test_scale_factor_values_and_errors():
    assert scale_factor(64, "none") == 1.0
    assert scale_factor(64, "sqrt") == pytest.approx(1 / 8)
    assert scale_factor(64, "linear") == pytest.approx(1 / 64)
    assert set(SCALINGS) == {"none", "sqrt", "linear"}
    with pytest.raises(ValueError, match="scaling must be one of"):
        scale_factor(64, "sqrt(d_k)")
    with pytest.raises(ValueError, match="d_k must be a positive int"):
        scale_factor(0, "sqrt")


@pytest.mark.parametrize(("d_k", "sigma"), [(1, 1.0), (64, 1.0), (256, 0.5)])
def test_dot_products_have_mean_zero_and_variance_sigma4_dk(d_k, sigma):
    n = 20_000
    s = dot_products(d_k, n, sigma=sigma, generator=torch.Generator().manual_seed(0), chunk=3000)
    assert s.shape == (n,)
    var = sigma**4 * d_k
    # the sample mean has std √(var/n); the sample variance is within a few % for n = 20k
    assert abs(s.mean().item()) < 5 * math.sqrt(var / n)
    assert s.var().item() == pytest.approx(var, rel=0.08)


def test_dot_products_are_reproducible_and_check_input():
    a = dot_products(8, 10, generator=torch.Generator().manual_seed(3))
    b = dot_products(8, 10, generator=torch.Generator().manual_seed(3))
    torch.testing.assert_close(a, b)
    for bad in ({"d_k": 0, "n": 5}, {"d_k": 4, "n": 0}, {"d_k": 4, "n": 5, "sigma": 0.0}):
        with pytest.raises(ValueError):
            dot_products(**bad)


def test_entropy_matches_categorical_and_its_bounds():
    p = torch.softmax(torch.randn(5, 7, generator=torch.Generator().manual_seed(0)), dim=-1)
    expected = torch.distributions.Categorical(probs=p).entropy()
    torch.testing.assert_close(entropy(p), expected)
    torch.testing.assert_close(entropy(torch.full((4,), 0.25)), torch.tensor(math.log(4)))
    assert entropy(torch.tensor([0.0, 1.0, 0.0])).item() == 0.0  # 0·log 0 = 0, no NaN
    with pytest.raises(ValueError, match="non-negative"):
        entropy(torch.tensor([1.5, -0.5]))
    with pytest.raises(TypeError, match="p must be a floating-point tensor, got dtype int64"):
        entropy(torch.tensor([1, 0]))


def test_softmax_jacobian_equals_autograd():
    g = torch.Generator().manual_seed(0)
    for T in (1, 2, 5, 16):
        s = 3 * torch.randn(T, generator=g, dtype=torch.float64)
        J_autograd = jacobian(lambda x: torch.softmax(x, dim=-1), s)  # (T, T)
        torch.testing.assert_close(softmax_jacobian(s), J_autograd)


def test_softmax_jacobian_batched_symmetric_rows_sum_to_zero():
    s = torch.randn(3, 4, 6, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    J = softmax_jacobian(s)
    assert J.shape == (3, 4, 6, 6)
    torch.testing.assert_close(J, J.transpose(-1, -2))
    torch.testing.assert_close(J.sum(-1), torch.zeros(3, 4, 6, dtype=torch.float64))
    J_autograd = jacobian(lambda x: torch.softmax(x, dim=-1), s[1, 2])
    torch.testing.assert_close(J[1, 2], J_autograd)


def test_softmax_jacobian_vanishes_when_saturated_and_rejects_bad_input():
    saturated = torch.tensor([60.0, 0.0, 0.0, 0.0])  # p is one-hot to float precision
    assert softmax_jacobian(saturated).abs().max().item() < 1e-20
    with pytest.raises(TypeError, match="scores must be a floating-point tensor"):
        softmax_jacobian(torch.tensor([1, 2]))
    with pytest.raises(ValueError, match="T ≥ 1"):
        softmax_jacobian(torch.zeros(3, 0))


def test_softmax_jacobian_norm_closed_forms():
    T = 16
    uniform = torch.zeros(T, dtype=torch.float64)
    # J = (I − 11ᵀ/T)/T: Frobenius norm √(T−1)/T, spectral norm 1/T
    assert softmax_jacobian_norm(uniform).item() == pytest.approx(math.sqrt(T - 1) / T)
    assert softmax_jacobian_norm(uniform, ord=2).item() == pytest.approx(1 / T)
    s = torch.randn(10, T, generator=torch.Generator().manual_seed(2), dtype=torch.float64)
    p = torch.softmax(s, dim=-1)
    a2, a3 = (p**2).sum(-1), (p**3).sum(-1)  # ‖J‖_F² = Σp² − 2Σp³ + (Σp²)²
    torch.testing.assert_close(softmax_jacobian_norm(s), torch.sqrt(a2 - 2 * a3 + a2**2))


def test_softmax_saturation_query_gradient_equals_autograd():
    d_k, T, scale = 8, 5, 0.7
    stats = softmax_saturation(d_k, scale, T=T, n=1, generator=torch.Generator().manual_seed(4))
    g = torch.Generator().manual_seed(4)  # the same draws, in the same order
    q = torch.randn(1, d_k, 1, generator=g)[0, :, 0]  # (d_k,)
    K = torch.randn(1, T, d_k, generator=g)[0]  # (T, d_k)

    def weights(q: torch.Tensor) -> torch.Tensor:
        return torch.softmax(scale * K @ q, dim=-1)  # (T,)

    p = weights(q)
    dp_dq = jacobian(weights, q)  # (T, d_k)
    torch.testing.assert_close(stats.max_weight[0], p.max())
    torch.testing.assert_close(stats.entropy[0], entropy(p))
    torch.testing.assert_close(stats.query_jacobian_norm[0], torch.linalg.matrix_norm(dp_dq))
    torch.testing.assert_close(stats.jacobian_norm[0], softmax_jacobian_norm(scale * K @ q))


def test_softmax_saturation_follows_the_three_scalings():
    T, n = 16, 400
    stats = {
        name: softmax_saturation(
            1024, scale_factor(1024, name), T=T, n=n, generator=torch.Generator().manual_seed(0)
        )
        for name in SCALINGS
    }
    assert stats["none"].logit_std.mean().item() == pytest.approx(32, rel=0.1)  # √1024
    assert stats["sqrt"].logit_std.mean().item() == pytest.approx(1, rel=0.1)
    assert stats["linear"].logit_std.mean().item() == pytest.approx(1 / 32, rel=0.1)
    assert stats["none"].max_weight.median().item() > 0.99  # saturated
    assert stats["none"].jacobian_norm.median().item() < 1e-3  # and its gradient vanishes
    assert stats["linear"].entropy.min().item() > 0.99 * math.log(T)  # nearly uniform
    assert 0.15 < stats["sqrt"].max_weight.median().item() < 0.5  # neither
    with pytest.raises(ValueError, match="scale must be a positive number, got 0.0"):
        softmax_saturation(8, 0.0)
    with pytest.raises(ValueError, match="T must be an int >= 2, got 1"):
        softmax_saturation(8, 1.0, T=1)


def test_retrieval_batch_is_consistent():
    b = retrieval_batch(64, T=8, n_keys=20, n_values=5, generator=torch.Generator().manual_seed(0))
    assert b.keys.shape == b.values.shape == (64, 8)
    assert all(len(set(row.tolist())) == 8 for row in b.keys)  # distinct keys per sequence
    rows = torch.arange(64)
    assert torch.equal(b.keys[rows, b.position], b.query)
    assert torch.equal(b.values[rows, b.position], b.target)
    assert b.keys.max() < 20 and b.values.max() < 5
    with pytest.raises(ValueError, match="n_keys ≥ T"):
        retrieval_batch(4, T=10, n_keys=8)
    with pytest.raises(ValueError, match="B must be a positive int, got 0"):
        retrieval_batch(0)


def test_retrieval_attention_shapes_init_and_scale():
    torch.manual_seed(0)
    b = retrieval_batch(256, generator=torch.Generator().manual_seed(1))
    model = RetrievalAttention(d_model=32, d_k=1024, scale=1.0)
    logits, w = model(b.keys, b.values, b.query)
    assert logits.shape == (256, 16) and w.shape == (256, 16)
    torch.testing.assert_close(w.sum(-1), torch.ones(256))
    with torch.no_grad():  # footnote 4's assumption holds at initialization
        x = (model.E_key(b.keys) + model.E_value(b.values)) / math.sqrt(2)
        assert model.W_Q(model.E_key(b.query)).var().item() == pytest.approx(1, rel=0.15)
        assert model.W_K(x).var().item() == pytest.approx(1, rel=0.15)
    assert w.max(-1).values.median().item() > 0.99  # scale 1 at d_k = 1024: saturated
    model.scale = 1 / math.sqrt(1024)
    _, w_sqrt = model(b.keys, b.values, b.query)
    assert w_sqrt.max(-1).values.median().item() < 0.5
    with pytest.raises(ValueError, match="scale must be a positive number, got -1.0"):
        RetrievalAttention(8, 8, scale=-1.0)
    with pytest.raises(ValueError, match="query"):
        model(b.keys, b.values, b.query[:3])


def test_additive_score_is_v_tanh_of_wq_plus_uk():
    torch.manual_seed(0)
    score = AdditiveScore(d_k=5, d_a=7).double()
    q = torch.randn(2, 3, 5, dtype=torch.float64)  # (B, T_q, d_k)
    k = torch.randn(2, 4, 5, dtype=torch.float64)  # (B, T_k, d_k)
    e = score(q, k)
    assert e.shape == (2, 3, 4)
    W_a, U_a, v_a = score.W_a.weight, score.U_a.weight, score.v_a.weight[0]
    by_hand = torch.empty(2, 3, 4, dtype=torch.float64)
    for b in range(2):
        for i in range(3):
            for j in range(4):
                by_hand[b, i, j] = v_a @ torch.tanh(W_a @ q[b, i] + U_a @ k[b, j])
    torch.testing.assert_close(e, by_hand)
    # the tanh bounds every score by ‖v_a‖₁, however long q and k are
    assert score(1e3 * q, 1e3 * k).abs().max() <= v_a.abs().sum() + 1e-9


def test_additive_attention_equals_the_rnn_chapters_bahdanau_attention():
    torch.manual_seed(0)
    rnn_attention = AdditiveAttention(d_s=6, d_h=6, d_a=8)
    score = AdditiveScore(d_k=6, d_a=8)
    score.load_state_dict(rnn_attention.state_dict())  # the same W_a, U_a, v_a
    s, H = torch.randn(3, 6), torch.randn(3, 10, 6)  # one query per sentence
    mask = torch.ones(3, 10, dtype=torch.bool)
    mask[1, 7:] = False
    c, alpha = rnn_attention(s, H, mask)
    out, w = additive_attention(s[:, None], H, H, score, mask=mask[:, None])
    torch.testing.assert_close(w[:, 0], alpha)
    torch.testing.assert_close(out[:, 0], c)
    assert w[1, 0, 7:].abs().max() == 0  # padding gets exactly zero weight


def test_additive_attention_rejects_bad_input():
    score = AdditiveScore(d_k=4, d_a=3)
    q, k, v = torch.randn(2, 3, 4), torch.randn(2, 5, 4), torch.randn(2, 5, 6)
    assert additive_attention(q, k, v, score)[0].shape == (2, 3, 6)
    with pytest.raises(
        ValueError, match=r"q must have shape \(\.\.\., T, d_k=4\), got \(2, 3, 5\)"
    ):
        score(torch.randn(2, 3, 5), k)
    with pytest.raises(ValueError, match="share their leading dimensions"):
        score(q, torch.randn(1, 5, 4))
    with pytest.raises(TypeError, match="score must be an AdditiveScore, got Linear"):
        additive_attention(q, k, v, torch.nn.Linear(4, 4))
    with pytest.raises(ValueError, match=r"v must have shape \(\.\.\., T_k, d_v\)"):
        additive_attention(q, k, torch.randn(2, 4, 6), score)
    with pytest.raises(ValueError, match="d_a must be a positive int"):
        AdditiveScore(4, 0)


def test_retrieval_attention_with_additive_scores():
    torch.manual_seed(0)
    b = retrieval_batch(64, generator=torch.Generator().manual_seed(1))
    model = RetrievalAttention(d_model=16, d_k=32, scale=1.0, score="additive", d_a=8)
    logits, w = model(b.keys, b.values, b.query)
    assert logits.shape == (64, 16) and w.shape == (64, 16)
    torch.testing.assert_close(w.sum(-1), torch.ones(64))
    assert model.additive.W_a.weight.shape == (8, 32)
    logits.sum().backward()  # the score network gets a gradient
    assert model.additive.v_a.weight.grad.abs().sum() > 0
    with pytest.raises(ValueError, match="score must be 'dot' or 'additive', got 'cosine'"):
        RetrievalAttention(8, 8, scale=1.0, score="cosine")


def _explorer_data(d_max=64, T=6):
    g = torch.Generator().manual_seed(0)
    return torch.randn(d_max, generator=g), torch.randn(T, d_max, generator=g)


def test_scaling_explorer_state_and_errors():
    q, k = _explorer_data()
    w = ScalingExplorer(q, k, d_k=16, scaling="sqrt")
    assert len(w.q) == 64 and len(w.k) == 6 and len(w.k[0]) == 64
    assert w.d_k == 16 and w.scaling == "sqrt"
    assert w.q[0] == round(q[0].item(), 2)
    with pytest.raises(ValueError, match="d_k must be an int"):
        ScalingExplorer(q, k, d_k=65)
    with pytest.raises(ValueError, match="scaling must be one of"):
        ScalingExplorer(q, k, scaling="half")
    with pytest.raises(ValueError, match="q must be"):
        ScalingExplorer(k, k)


def test_scaling_explorer_state_is_small_for_the_chapter():
    g = torch.Generator().manual_seed(0)
    w = ScalingExplorer(torch.randn(1024, generator=g), torch.randn(16, 1024, generator=g))
    assert len(json.dumps({"q": w.q, "k": w.k})) < 120_000


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node to run the ES module")
@pytest.mark.parametrize(
    ("d_k", "scaling"), [(1, "none"), (16, "sqrt"), (64, "none"), (64, "linear")]
)
def test_scaling_explorer_js_matches_python(d_k, scaling):
    q, k = _explorer_data()
    w = ScalingExplorer(q, k, d_k=d_k, scaling=scaling)
    script = (
        f"import {{ stats, scaleFactor }} from '{(JS / 'scaling_explorer.js').as_uri()}';"
        f"const q = {json.dumps(w.q)}, K = {json.dumps(w.k)};"
        f"console.log(JSON.stringify(stats(q, K, {d_k}, scaleFactor({d_k}, '{scaling}'))));"
    )
    out = subprocess.run(
        ["node", "--input-type=module", "-e", script], capture_output=True, text=True, check=True
    )
    js = json.loads(out.stdout)
    qd = torch.tensor(w.q, dtype=torch.float64)[:d_k]
    Kd = torch.tensor(w.k, dtype=torch.float64)[:, :d_k]
    scale = scale_factor(d_k, scaling)
    s = scale * Kd @ qd
    p = torch.softmax(s, dim=-1)
    dp_dq = jacobian(lambda x: torch.softmax(scale * Kd @ x, dim=-1), qd)
    torch.testing.assert_close(torch.tensor(js["logits"], dtype=torch.float64), s)
    torch.testing.assert_close(torch.tensor(js["p"], dtype=torch.float64), p)
    assert js["entropy"] == pytest.approx(entropy(p).item(), abs=1e-9)
    assert js["jacobianNorm"] == pytest.approx(softmax_jacobian_norm(s).item(), abs=1e-9)
    assert js["queryJacobianNorm"] == pytest.approx(
        torch.linalg.matrix_norm(dp_dq).item(), abs=1e-9
    )
    assert js["std"] == pytest.approx(s.std().item(), abs=1e-9)
