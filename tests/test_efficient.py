"""attnbook.efficient against masked full attention, the kernel identities, and its explorer."""

from __future__ import annotations

import functools
import json
import math
import shutil
import subprocess

import pytest
import torch
import torch.nn.functional as F

from attnbook.attention import MultiHeadAttention, causal_mask, scaled_dot_product_attention
from attnbook.efficient import (
    block_layout,
    block_sparse_attention,
    block_sparse_mask,
    block_sparse_scores,
    elu_feature_map,
    favor_features,
    linear_attention,
    lsh_buckets,
    lsh_candidates,
    performer_attention,
    random_features,
    random_rotations,
    score_bytes,
    sliding_window_attention,
    sliding_window_mask,
    sliding_window_scores,
)
from attnbook.viz.explorers._base import JS
from attnbook.viz.explorers.efficient import LAYOUTS, SparsityExplorer

B, h, T, d = 2, 3, 37, 8


def _qkv(seed: int = 0, T_: int = T, d_: int = d, sigma: float = 1.0):
    g = torch.Generator().manual_seed(seed)
    return tuple(sigma * torch.randn(B, h, T_, d_, generator=g) for _ in range(3))


def _padding() -> torch.Tensor:
    pad = torch.ones(B, 1, 1, T, dtype=torch.bool)  # (B, 1, 1, T), as MultiHeadAttention passes it
    pad[1, ..., 30:] = False
    return pad


# ---------------------------------------------------------------- masks and counts


def test_sliding_window_mask_is_the_band():
    m = sliding_window_mask(7, 2)
    assert m[3].tolist() == [False, True, True, True, True, True, False]
    assert torch.equal(sliding_window_mask(7, 2, causal=True), m & causal_mask(7))
    assert torch.equal(sliding_window_mask(5, 0), torch.eye(5, dtype=torch.bool))
    assert sliding_window_mask(5, 10).all()


def test_block_layout_parts():
    assert torch.equal(block_layout(4, local=0), torch.eye(4, dtype=torch.bool))
    band = block_layout(5, local=1)
    assert band.sum() == 5 + 2 * 4
    g = block_layout(5, local=0, global_blocks=1)
    assert g[0].all() and g[:, 0].all() and g[1:, 1:].equal(torch.eye(4, dtype=torch.bool))
    s = block_layout(9, local=0, stride=4)
    assert s[8].nonzero().flatten().tolist() == [0, 4, 8]
    assert torch.equal(block_layout(6, local=2, causal=True), block_layout(6, local=2).tril())


def test_block_sparse_mask_expands_blocks_and_crops():
    layout = block_layout(3, local=0)
    m = block_sparse_mask(7, 3, layout)
    assert m.shape == (7, 7)
    assert m[0, :3].all() and not m[0, 3:].any() and m[6, 6] and not m[6, :6].any()
    assert torch.equal(block_sparse_mask(7, 3, layout, causal=True), m & causal_mask(7))


def test_scores_counts():
    # 37 positions, b = w = 4: 10 blocks × 4 queries × (4 + 8) keys
    assert sliding_window_scores(37, 4) == 10 * 4 * 12
    assert sliding_window_scores(37, 4, block=8, causal=True) == 5 * 8 * 12
    layout = block_layout(5, local=1)
    assert block_sparse_scores(37, 8, layout) == 13 * 64
    assert block_sparse_scores(37, 8, layout, causal=True) == 9 * 64


def test_mask_and_layout_errors():
    with pytest.raises(ValueError, match="window must be a non-negative int"):
        sliding_window_mask(5, -1)
    with pytest.raises(ValueError, match="T must be a positive int"):
        sliding_window_mask(0, 1)
    with pytest.raises(ValueError, match="stride must be a non-negative int"):
        block_layout(4, stride=-2)
    with pytest.raises(ValueError, match=r"layout must be \(5, 5\)"):
        block_sparse_mask(37, 8, block_layout(4))
    with pytest.raises(TypeError, match="layout must be a bool tensor"):
        block_sparse_mask(8, 4, torch.ones(2, 2))


# ---------------------------------------------------------------- blockwise = masked full


@pytest.mark.parametrize("window", [0, 1, 3, 6, 40])
@pytest.mark.parametrize("block", [None, 1, 5, 16])
@pytest.mark.parametrize("causal", [False, True])
def test_sliding_window_equals_masked_full_attention(window, block, causal):
    q, k, v = _qkv()
    pad = _padding()
    out, weights = sliding_window_attention(q, k, v, pad, window=window, block=block, causal=causal)
    expected, _ = scaled_dot_product_attention(
        q, k, v, mask=sliding_window_mask(T, window, causal) & pad
    )
    assert weights is None
    torch.testing.assert_close(out, expected)


def test_sliding_window_takes_a_full_mask_like_the_decoders():
    q, k, v = _qkv(1)
    g = torch.Generator().manual_seed(5)
    mask = torch.rand(B, 1, T, T, generator=g) > 0.3  # an arbitrary (B, 1, T, T) mask
    out, _ = sliding_window_attention(q, k, v, mask, window=3)
    expected, _ = scaled_dot_product_attention(q, k, v, mask=mask & sliding_window_mask(T, 3))
    torch.testing.assert_close(out, expected)


def test_a_query_with_no_allowed_key_gets_zero_not_nan():
    q, k, v = _qkv(2)
    mask = torch.ones(T, T, dtype=torch.bool)
    mask[4] = False
    for fn in (
        functools.partial(sliding_window_attention, window=2),
        functools.partial(block_sparse_attention, block=4),
    ):
        out, _ = fn(q, k, v, mask)
        assert torch.isfinite(out).all()
        assert out[..., 4, :].abs().max() == 0


@pytest.mark.parametrize("block", [1, 4, 8, 37, 50])
@pytest.mark.parametrize(
    "params",
    [{"local": 1}, {"local": 0}, {"local": 1, "global_blocks": 1}, {"local": 0, "stride": 3}],
)
@pytest.mark.parametrize("causal", [False, True])
def test_block_sparse_equals_masked_full_attention(block, params, causal):
    q, k, v = _qkv(3)
    pad = _padding()
    layout = block_layout(math.ceil(T / block), **params)
    out, weights = block_sparse_attention(q, k, v, pad, block=block, layout=layout, causal=causal)
    expected, _ = scaled_dot_product_attention(
        q, k, v, mask=block_sparse_mask(T, block, layout, causal) & pad
    )
    assert weights is None
    torch.testing.assert_close(out, expected)


def test_full_window_and_full_layout_give_full_attention():
    q, k, v = _qkv(4)
    expected, _ = scaled_dot_product_attention(q, k, v)
    torch.testing.assert_close(sliding_window_attention(q, k, v, window=T)[0], expected)
    everything = torch.ones(5, 5, dtype=torch.bool)
    torch.testing.assert_close(
        block_sparse_attention(q, k, v, block=8, layout=everything)[0], expected
    )
    torch.testing.assert_close(
        sliding_window_attention(q, k, v, window=T, causal=True)[0],
        F.scaled_dot_product_attention(q, k, v, is_causal=True),
    )


def test_blockwise_attention_drops_into_multi_head_attention():
    torch.manual_seed(0)
    mha = MultiHeadAttention(d_model=16, h=4)
    x = torch.randn(2, 11, 16)
    pad = torch.ones(2, 1, 11, dtype=torch.bool)
    pad[0, :, 9:] = False
    mha.attention = lambda q, k, v, mask: scaled_dot_product_attention(
        q, k, v, mask & sliding_window_mask(11, 2)
    )
    expected, _ = mha(x, x, x, pad)
    mha.attention = functools.partial(sliding_window_attention, window=2)
    out, weights = mha(x, x, x, pad)
    assert weights is None
    torch.testing.assert_close(out, expected)


def test_blockwise_attention_errors():
    q, k, v = _qkv()
    with pytest.raises(ValueError, match="self-attention"):
        sliding_window_attention(q, k[..., :5, :], v[..., :5, :])
    with pytest.raises(ValueError, match="window must be a non-negative int"):
        sliding_window_attention(q, k, v, window=-1)
    with pytest.raises(ValueError, match="block must be a positive int"):
        sliding_window_attention(q, k, v, window=2, block=0)
    with pytest.raises(ValueError, match="does not broadcast"):
        sliding_window_attention(q, k, v, torch.ones(5, 5, dtype=torch.bool))
    with pytest.raises(TypeError, match="mask must be a bool tensor"):
        block_sparse_attention(q, k, v, torch.ones(T, T))
    with pytest.raises(ValueError, match=r"layout must be \(5, 5\)"):
        block_sparse_attention(q, k, v, block=8, layout=block_layout(3))


# ---------------------------------------------------------------- LSH bucketing


def test_lsh_buckets_shape_range_and_angular_locality():
    g = torch.Generator().manual_seed(0)
    R = random_rotations(16, 8, n_hashes=3, generator=g)
    x = torch.randn(2, 50, 16, generator=g)
    buckets = lsh_buckets(x, R)
    assert buckets.shape == (3, 2, 50) and buckets.min() >= 0 and buckets.max() < 8
    torch.testing.assert_close(lsh_buckets(3.0 * x, R), buckets)  # only the direction counts
    assert torch.equal(lsh_buckets(-x, R), (buckets + 4) % 8)  # −x lands in the paired bucket
    # near copies share a bucket far more often than unrelated vectors
    R1 = random_rotations(16, 8, n_hashes=200, generator=g)
    near = x + 0.1 * torch.randn(x.shape, generator=g)
    far = torch.randn(x.shape, generator=g)
    same_near = (lsh_buckets(x, R1) == lsh_buckets(near, R1)).float().mean()
    same_far = (lsh_buckets(x, R1) == lsh_buckets(far, R1)).float().mean()
    assert same_near > 0.8 and same_far < 0.25


def test_lsh_candidates_grow_with_hash_rounds():
    g = torch.Generator().manual_seed(1)
    q, k = torch.randn(40, 16, generator=g), torch.randn(60, 16, generator=g)
    R = random_rotations(16, 8, n_hashes=4, generator=g)
    one = lsh_candidates(q, k, R[:1])
    four = lsh_candidates(q, k, R)
    assert one.shape == (40, 60) and (four | one).equal(four) and four.sum() > one.sum()
    assert torch.equal(one, lsh_buckets(q, R[:1])[0][:, None] == lsh_buckets(k, R[:1])[0][None, :])


def test_lsh_errors():
    with pytest.raises(ValueError, match="n_buckets must be even"):
        random_rotations(8, 5)
    with pytest.raises(ValueError, match="rotations must be"):
        lsh_buckets(torch.randn(4, 8), torch.randn(1, 6, 2))


# ---------------------------------------------------------------- linear attention


@pytest.mark.parametrize("causal", [False, True])
def test_linear_attention_is_the_normalised_kernel_matrix_times_v(causal):
    q, k, v = _qkv(5)
    pad = _padding()
    out, weights = linear_attention(q, k, v, pad, causal=causal)
    A = elu_feature_map(q) @ elu_feature_map(k).transpose(-2, -1)  # (B, h, T, T): φ(q_i)ᵀφ(k_j)
    A = A * pad
    if causal:
        A = A.tril()
    assert weights is None
    torch.testing.assert_close(out, (A / A.sum(-1, keepdim=True)) @ v)


def test_linear_attention_with_a_constant_feature_map_averages_the_values():
    # φ(x) = 1 makes every key equally similar: uniform weights, the mean of the (causal) prefix
    q, k, v = _qkv(6)
    ones = lambda x: torch.ones_like(x[..., :1])  # noqa: E731
    out, _ = linear_attention(q, k, v, feature_map=ones)
    torch.testing.assert_close(out, v.mean(dim=-2, keepdim=True).expand_as(v))
    out, _ = linear_attention(q, k, v, feature_map=ones, causal=True)
    prefix_mean = v.cumsum(dim=-2) / torch.arange(1, T + 1)[:, None]
    torch.testing.assert_close(out, prefix_mean)


def test_linear_attention_rejects_a_general_mask():
    q, k, v = _qkv()
    with pytest.raises(ValueError, match="key-padding mask"):
        linear_attention(q, k, v, causal_mask(T))
    with pytest.raises(ValueError, match="causal attention needs T_q == T_k"):
        linear_attention(q, k[..., :5, :], v[..., :5, :], causal=True)
    with pytest.raises(ValueError, match="needs omega"):
        performer_attention(q, k, v)


# ---------------------------------------------------------------- Performer (FAVOR+)


def test_random_features_are_orthogonal_in_blocks_and_gaussian_in_norm():
    g = torch.Generator().manual_seed(0)
    omega = random_features(16, 40, generator=g)
    assert omega.shape == (40, 16)
    directions = omega[:16] / omega[:16].norm(dim=1, keepdim=True)
    torch.testing.assert_close(directions @ directions.T, torch.eye(16), atol=1e-5, rtol=0)
    many = random_features(16, 16 * 500, generator=g)
    assert many.pow(2).sum(1).mean().item() == pytest.approx(16, rel=0.05)  # E‖ω‖² = d
    assert random_features(16, 7, orthogonal=False, generator=g).shape == (7, 16)


def test_favor_features_are_positive_and_unbiased_for_the_softmax_kernel():
    g = torch.Generator().manual_seed(1)
    x = 0.5 * torch.randn(4, 8, generator=g, dtype=torch.float64)
    y = 0.5 * torch.randn(4, 8, generator=g, dtype=torch.float64)
    omega = random_features(8, 200_000, orthogonal=False, generator=g)
    phi_x, phi_y = favor_features(x, omega), favor_features(y, omega)
    assert (phi_x > 0).all()
    # φ(x)ᵀφ(y) is the mean over ω of exp(ωᵀ(x + y) − ‖x‖²/2 − ‖y‖²/2), whose expectation is
    # exp(xᵀy): each estimate lies within 4 standard errors of it
    terms = 200_000 * phi_x[:, None, :] * phi_y[None, :, :]  # (4, 4, m), one sample per ω
    estimate, standard_error = terms.mean(-1), terms.std(-1) / math.sqrt(200_000)
    torch.testing.assert_close(estimate, phi_x @ phi_y.T)
    assert ((estimate - torch.exp(x @ y.T)).abs() < 4 * standard_error).all()
    assert (standard_error < 0.1 * torch.exp(x @ y.T)).all()  # tight enough to mean something


def test_performer_error_shrinks_as_features_grow():
    q, k, v = _qkv(7, T_=64, d_=16, sigma=0.5)
    exact, _ = scaled_dot_product_attention(q, k, v)

    def error(m: int) -> float:
        errors = []
        for seed in range(4):
            omega = random_features(16, m, generator=torch.Generator().manual_seed(seed))
            out, _ = performer_attention(q, k, v, omega=omega)
            errors.append(((out - exact).norm() / exact.norm()).item())
        return sum(errors) / len(errors)

    e = [error(m) for m in (16, 128, 1024, 8192)]
    assert e[0] > e[1] > e[2] > e[3]
    assert e[3] < 0.1 < e[0]
    assert e[0] / e[3] > 8  # about √(8192/16) ≈ 23 for a 1/√m error


@pytest.mark.parametrize("causal", [False, True])
def test_performer_converges_to_masked_softmax_attention(causal):
    q, k, v = _qkv(8, sigma=0.5)
    pad = _padding()
    omega = random_features(d, 20_000, generator=torch.Generator().manual_seed(0))
    out, weights = performer_attention(q, k, v, pad, omega=omega, causal=causal)
    mask = pad & causal_mask(T) if causal else pad
    expected, _ = scaled_dot_product_attention(q, k, v, mask)
    assert weights is None
    assert ((out - expected).norm() / expected.norm()).item() < 0.05


def test_performer_stabilisation_does_not_change_the_output():
    q, k, v = _qkv(9, sigma=0.5)
    omega = random_features(d, 64, generator=torch.Generator().manual_seed(0))
    s = d**-0.25
    A = favor_features(q * s, omega) @ favor_features(k * s, omega).transpose(-2, -1)
    out, _ = performer_attention(q, k, v, omega=omega)
    torch.testing.assert_close(out, (A / A.sum(-1, keepdim=True)) @ v)
    with pytest.raises(ValueError, match="stabilize must be"):
        favor_features(q, omega, stabilize="col")
    with pytest.raises(ValueError, match="omega must be"):
        favor_features(q, omega[:, :3])


# ---------------------------------------------------------------- what full attention holds


def test_score_bytes_counts_one_score_matrix():
    assert score_bytes(3, 5, batch=2, h=4, dtype=torch.float16) == 2 * 4 * 3 * 5 * 2
    assert score_bytes(7, 7) == 7 * 7 * 4


# ---------------------------------------------------------------- the explorer


def test_sparsity_explorer_state_and_errors():
    w = SparsityExplorer(n=64, window=4, block=8)
    assert (w.n, w.window, w.block, w.layout_name, w.causal) == (64, 4, 8, "local band", False)
    assert set(w.layout_params) == set(LAYOUTS)
    assert len(json.dumps(w.layout_params)) < 1000
    assert not isinstance(w.layout, str)  # the DOM widget's own Layout trait is left alone
    with pytest.raises(ValueError, match="layout must be one of"):
        SparsityExplorer(layout="random")
    with pytest.raises(ValueError, match="window must be"):
        SparsityExplorer(window=40)
    with pytest.raises(ValueError, match="block must be"):
        SparsityExplorer(block=0)


def _node(script: str) -> dict:
    out = subprocess.run(
        ["node", "--input-type=module", "-e", script], capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout)


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node to run the ES module")
@pytest.mark.parametrize(
    ("n", "w", "b", "causal"), [(64, 4, 8, False), (37, 3, 5, True), (20, 0, 1, False)]
)
def test_explorer_sliding_window_matches_python(n, w, b, causal):
    js = _node(
        f"import {{ slidingWindow }} from '{(JS / 'sparsity_explorer.js').as_uri()}';"
        f"console.log(JSON.stringify(slidingWindow({n}, {w}, {b}, {str(causal).lower()})));"
    )
    used = torch.tensor(js["states"]) == 2
    assert torch.equal(used, sliding_window_mask(n, w, causal))
    assert js["used"] == int(used.sum())
    assert js["computed"] == sliding_window_scores(n, w, block=b, causal=causal)
    computed_cells = torch.tensor(js["states"]) >= 1
    assert (computed_cells | used).equal(computed_cells)  # used ⊆ computed


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node to run the ES module")
@pytest.mark.parametrize("name", list(LAYOUTS))
@pytest.mark.parametrize(("n", "b", "causal"), [(64, 8, False), (50, 6, True)])
def test_explorer_block_sparse_matches_python(name, n, b, causal):
    params = LAYOUTS[name]
    js = _node(
        f"import {{ blockSparse }} from '{(JS / 'sparsity_explorer.js').as_uri()}';"
        f"console.log(JSON.stringify(blockSparse({n}, {b}, {json.dumps(params)}, "
        f"{str(causal).lower()})));"
    )
    layout = block_layout(math.ceil(n / b), **params)
    used = torch.tensor(js["states"]) == 2
    assert torch.equal(used, block_sparse_mask(n, b, layout, causal))
    assert js["computed"] == block_sparse_scores(n, b, layout, causal)
