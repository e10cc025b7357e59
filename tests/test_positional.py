"""attnbook.positional: the sinusoids of §3.5, learned positions, M_k and RoPE; the explorers."""

from __future__ import annotations

import math

import ipywidgets
import pytest
import torch

from attnbook import MultiHeadAttention
from attnbook.positional import (
    LearnedPositionalEncoding,
    SinusoidalPositionalEncoding,
    apply_rope,
    frequencies,
    rotation_matrix,
    sinusoidal_encoding,
    wavelengths,
)
from attnbook.viz.explorers.positional import (
    PECurvesExplorer,
    PEHeatmapExplorer,
    PERotationExplorer,
)


def _reference_table(max_len: int, d_model: int) -> torch.Tensor:
    """The Annotated Transformer's formulation (exp/log), written independently, float64."""
    position = torch.arange(max_len, dtype=torch.float64)[:, None]
    div_term = torch.exp(
        torch.arange(0, d_model, 2, dtype=torch.float64) * -(math.log(10000.0) / d_model)
    )
    pe = torch.zeros(max_len, d_model, dtype=torch.float64)
    pe[:, 0::2] = torch.sin(position * div_term)
    pe[:, 1::2] = torch.cos(position * div_term)
    return pe


# --- sinusoidal_encoding --------------------------------------------------------------


@pytest.mark.parametrize(("max_len", "d_model"), [(1, 2), (50, 16), (300, 512)])
def test_sinusoidal_table_matches_an_independent_formulation(max_len, d_model):
    pe = sinusoidal_encoding(max_len, d_model)
    assert pe.shape == (max_len, d_model) and pe.dtype == torch.float32
    torch.testing.assert_close(pe.double(), _reference_table(max_len, d_model), atol=1e-7, rtol=0)


def test_sinusoidal_entries_are_the_papers_formula():
    d_model = 8
    pe = sinusoidal_encoding(20, d_model, dtype=torch.float64)
    for pos in (0, 1, 7, 19):
        for i in range(d_model // 2):
            angle = pos / 10000 ** (2 * i / d_model)
            assert pe[pos, 2 * i].item() == pytest.approx(math.sin(angle), abs=1e-12)
            assert pe[pos, 2 * i + 1].item() == pytest.approx(math.cos(angle), abs=1e-12)
    # position 0 is (sin 0, cos 0) = (0, 1) in every pair
    assert pe[0].tolist() == [0.0, 1.0] * (d_model // 2)


def test_concatenated_layout_is_a_column_permutation_of_the_interleaved_one():
    inter = sinusoidal_encoding(40, 12)
    concat = sinusoidal_encoding(40, 12, layout="concatenated")
    torch.testing.assert_close(concat[:, :6], inter[:, 0::2], atol=0, rtol=0)  # the sines
    torch.testing.assert_close(concat[:, 6:], inter[:, 1::2], atol=0, rtol=0)  # the cosines
    assert not torch.equal(concat, inter)


def test_every_position_has_the_same_norm():
    pe = sinusoidal_encoding(1000, 64, dtype=torch.float64)
    torch.testing.assert_close(
        pe.norm(dim=-1), torch.full((1000,), math.sqrt(32.0), dtype=torch.float64)
    )


def test_a_longer_table_starts_with_the_shorter_one():
    torch.testing.assert_close(sinusoidal_encoding(1000, 32)[:50], sinusoidal_encoding(50, 32))


def test_dtype_and_device_arguments():
    pe = sinusoidal_encoding(4, 6, dtype=torch.float64, device="cpu")
    assert pe.dtype == torch.float64 and pe.device.type == "cpu"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((10, 7), "odd"),
        ((10, 0), "d_model must be a positive int"),
        ((10, -4), "d_model must be a positive int"),
        ((0, 8), "max_len must be a positive int"),
        ((-1, 8), "max_len must be a positive int"),
        ((10.0, 8), r"max_len must be an int, got 10.0 \(float\)"),
        ((10, 8, "stacked"), "layout must be one of"),
    ],
)
def test_sinusoidal_encoding_rejects_bad_sizes(args, message):
    error = TypeError if "(float" in message else ValueError
    with pytest.raises(error, match=message):
        sinusoidal_encoding(*args)


# --- frequencies and wavelengths -------------------------------------------------------


def test_wavelengths_are_a_geometric_progression_from_2pi():
    d_model = 512
    lam = wavelengths(d_model)
    assert lam.shape == (256,)
    assert lam[0].item() == pytest.approx(2 * math.pi)
    ratios = lam[1:] / lam[:-1]
    torch.testing.assert_close(ratios, torch.full_like(ratios, 10000 ** (2 / d_model)))
    # the longest is 2π·10000^(1 − 2/d_model): just short of the paper's 10000·2π
    assert lam[-1].item() == pytest.approx(2 * math.pi * 10000 ** (1 - 2 / d_model))
    assert lam[-1].item() < 10000 * 2 * math.pi
    torch.testing.assert_close(frequencies(d_model), 2 * math.pi / lam)


def test_base_is_a_knob():
    assert wavelengths(4, base=100.0).tolist() == pytest.approx([2 * math.pi, 20 * math.pi])
    with pytest.raises(ValueError, match="base"):
        frequencies(8, base=1.0)


# --- M_k: the relative-position claim ---------------------------------------------------


@pytest.mark.parametrize("layout", ["interleaved", "concatenated"])
def test_pe_of_pos_plus_k_is_M_k_times_pe_of_pos(layout):
    pe = sinusoidal_encoding(1000, 64, layout)  # (1000, 64)
    for k in [*range(-30, 31), 137, 500, -999]:
        M = rotation_matrix(k, 64, layout)  # one matrix for every pos
        pos = torch.arange(max(0, -k), min(1000, 1000 - k))
        torch.testing.assert_close(pe[pos + k], pe[pos] @ M.T, atol=1e-6, rtol=0)


def test_M_k_is_block_diagonal_2x2_rotations():
    d_model, k = 16, 5
    M = rotation_matrix(k, d_model, dtype=torch.float64)
    blocks = torch.block_diag(*[M[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] for i in range(8)])
    assert torch.equal(M, blocks)  # nothing outside the 2×2 diagonal blocks
    for i, w in enumerate(frequencies(d_model).tolist()):
        c, s = math.cos(k * w), math.sin(k * w)
        expected = torch.tensor([[c, s], [-s, c]], dtype=torch.float64)
        torch.testing.assert_close(M[2 * i : 2 * i + 2, 2 * i : 2 * i + 2], expected)
    torch.testing.assert_close(M @ M.T, torch.eye(d_model, dtype=torch.float64))  # orthogonal
    assert torch.linalg.det(M).item() == pytest.approx(1.0)  # a rotation, not a reflection


def test_M_k_composes_and_inverts():
    M = lambda k: rotation_matrix(k, 10, dtype=torch.float64)  # noqa: E731
    torch.testing.assert_close(M(0), torch.eye(10, dtype=torch.float64))
    torch.testing.assert_close(M(3) @ M(4), M(7))
    torch.testing.assert_close(M(-6), M(6).T)


def test_concatenated_M_k_is_the_permuted_interleaved_one():
    perm = torch.cat(
        [torch.arange(0, 12, 2), torch.arange(1, 12, 2)]
    )  # concat column j = inter column perm[j]
    inter, concat = rotation_matrix(9, 12), rotation_matrix(9, 12, layout="concatenated")
    torch.testing.assert_close(concat, inter[perm][:, perm], atol=0, rtol=0)


@pytest.mark.parametrize(
    ("args", "message"), [((1.5, 8), r"k must be an int, got 1.5 \(float\)"), ((2, 9), "odd")]
)
def test_rotation_matrix_rejects_bad_input(args, message):
    with pytest.raises(TypeError if "float" in message else ValueError, match=message):
        rotation_matrix(*args)


def test_dot_products_depend_only_on_the_offset():
    pe = sinusoidal_encoding(200, 64, dtype=torch.float64)
    S = pe @ pe.T  # (200, 200): S[p, q] = PE(p)·PE(q)
    offsets = torch.arange(200)[:, None] - torch.arange(200)[None, :]  # p − q
    expected = torch.cos(offsets[..., None] * frequencies(64)).sum(-1)  # Σ_i cos((p−q)ω_i)
    torch.testing.assert_close(S, expected)
    for j in range(-199, 200):  # Toeplitz: constant along every diagonal
        diag = S.diagonal(offset=j)
        assert (diag - diag[0]).abs().max().item() < 1e-9
    torch.testing.assert_close(S, S.T)  # and symmetric: +k and −k look alike


# --- the modules ---------------------------------------------------------------------------


def test_sinusoidal_module_adds_the_table_and_saves_nothing():
    module = SinusoidalPositionalEncoding(d_model=16, max_len=32)
    x = torch.randn(3, 10, 16)
    torch.testing.assert_close(module(x), x + sinusoidal_encoding(32, 16)[:10])
    assert list(module.parameters()) == []
    assert "pe" in dict(module.named_buffers()) and module.state_dict() == {}
    concat = SinusoidalPositionalEncoding(16, 32, layout="concatenated")
    torch.testing.assert_close(
        concat(x) - x, sinusoidal_encoding(10, 16, "concatenated").expand(3, -1, -1)
    )


def test_sinusoidal_module_keeps_the_input_dtype():
    module = SinusoidalPositionalEncoding(8, 16)
    assert module(torch.zeros(1, 4, 8, dtype=torch.float64)).dtype == torch.float64


def test_learned_module_is_an_embedding_of_positions():
    torch.manual_seed(0)
    module = LearnedPositionalEncoding(d_model=6, max_len=20)
    x = torch.randn(2, 7, 6)
    torch.testing.assert_close(module(x), x + module.embedding.weight[:7])
    assert module.embedding.weight.shape == (20, 6)
    assert set(module.state_dict()) == {"embedding.weight"}
    module(x).sum().backward()
    grad = module.embedding.weight.grad
    assert grad[:7].abs().sum() > 0 and grad[7:].abs().sum() == 0  # unseen positions learn nothing
    assert LearnedPositionalEncoding(d_model=5, max_len=4)(torch.zeros(1, 4, 5)).shape == (1, 4, 5)


@pytest.mark.parametrize("cls", [SinusoidalPositionalEncoding, LearnedPositionalEncoding])
def test_modules_reject_sequences_longer_than_max_len(cls):
    module = cls(8, max_len=12)
    module(torch.zeros(1, 12, 8))  # exactly max_len is fine
    with pytest.raises(ValueError, match=r"T=13 exceeds max_len=12"):
        module(torch.zeros(1, 13, 8))
    with pytest.raises(ValueError, match=r"d_model=8"):
        module(torch.zeros(1, 5, 6))


def test_module_constructors_reject_bad_sizes():
    with pytest.raises(ValueError, match="odd"):
        SinusoidalPositionalEncoding(7)
    with pytest.raises(ValueError, match="max_len"):
        LearnedPositionalEncoding(8, max_len=0)
    with pytest.raises(ValueError, match="d_model"):
        LearnedPositionalEncoding(0)


# --- why positions are needed: permutation equivariance ------------------------------------


def test_self_attention_without_positions_is_permutation_equivariant_and_with_them_is_not():
    torch.manual_seed(0)
    mha = MultiHeadAttention(d_model=16, h=4).eval()
    x = torch.randn(2, 9, 16)
    perm = torch.randperm(9)
    out, _ = mha(x, x, x)
    out_perm, _ = mha(x[:, perm], x[:, perm], x[:, perm])
    torch.testing.assert_close(out_perm, out[:, perm], atol=1e-6, rtol=0)

    pe = SinusoidalPositionalEncoding(16, max_len=9)
    xp, xp_perm = pe(x), pe(x[:, perm])  # positions stay put while the tokens move
    out, _ = mha(xp, xp, xp)
    out_perm, _ = mha(xp_perm, xp_perm, xp_perm)
    assert (out_perm - out[:, perm]).abs().max().item() > 1e-2


# --- RoPE ----------------------------------------------------------------------------------


def _rope_complex(x: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
    """Reference RoPE as in LLaMA: pairs as complex numbers times e^{i·pos·θ_i}."""
    d = x.shape[-1]
    theta = 10000.0 ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
    z = torch.view_as_complex(x.double().reshape(*x.shape[:-1], d // 2, 2).contiguous())
    rot = torch.polar(torch.ones_like(theta), positions.double()[:, None] * theta)  # (T, d/2)
    return torch.view_as_real(z * rot).flatten(-2).to(x.dtype)


def _rotate_half_reference(x: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
    """Reference RoPE in the GPT-NeoX / Hugging Face 'rotate_half' form."""
    d = x.shape[-1]
    theta = 10000.0 ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
    angles = positions.double()[:, None] * theta
    cos, sin = torch.cat([angles.cos()] * 2, -1), torch.cat([angles.sin()] * 2, -1)
    rotated = torch.cat([-x[..., d // 2 :], x[..., : d // 2]], dim=-1)
    return (x.double() * cos + rotated.double() * sin).to(x.dtype)


def test_rope_matches_the_complex_number_form():
    torch.manual_seed(0)
    x = torch.randn(2, 3, 11, 8)  # (B, h, T, d_k)
    torch.testing.assert_close(apply_rope(x), _rope_complex(x, torch.arange(11)))
    positions = torch.tensor([5, 0, 100, 7, 3, 2, 9, 1, 8, 4000, 6])
    torch.testing.assert_close(apply_rope(x, positions), _rope_complex(x, positions))


def test_rope_concatenated_matches_rotate_half():
    torch.manual_seed(0)
    x = torch.randn(4, 10, 12)
    torch.testing.assert_close(
        apply_rope(x, layout="concatenated"), _rotate_half_reference(x, torch.arange(10))
    )


def test_rope_is_the_transpose_of_M_p_and_keeps_lengths():
    torch.manual_seed(0)
    x = torch.randn(6, 8)  # (T, d)
    rotated = apply_rope(x)
    for p in range(6):
        torch.testing.assert_close(rotated[p], x[p] @ rotation_matrix(p, 8), atol=1e-6, rtol=0)
    torch.testing.assert_close(rotated.norm(dim=-1), x.norm(dim=-1))


def test_rope_scores_depend_only_on_the_offset():
    torch.manual_seed(0)
    q, k = torch.randn(8), torch.randn(8)
    T = 40
    qs = apply_rope(q.expand(T, 8))  # the same query at every position 0 … T−1
    ks = apply_rope(k.expand(T, 8))
    S = qs @ ks.T  # (T, T): S[m, n] = ⟨RoPE(q, m), RoPE(k, n)⟩
    for j in range(-T + 1, T):
        diag = S.diagonal(offset=j)
        torch.testing.assert_close(diag, diag[:1].expand_as(diag), atol=1e-5, rtol=0)
    assert not torch.allclose(S.diagonal(1)[0], S.diagonal(-1)[0])  # unlike PE·PE, ±k differ


def test_apply_rope_rejects_bad_input():
    with pytest.raises(ValueError, match="odd"):
        apply_rope(torch.randn(4, 5))
    with pytest.raises(ValueError, match=r"positions must have shape \(T,\)"):
        apply_rope(torch.randn(4, 6), positions=torch.arange(3))
    with pytest.raises(ValueError, match=r"\(\.\.\., T, d\)"):
        apply_rope(torch.randn(6))


# --- explorers -----------------------------------------------------------------------------

# Their drawings (the sines, the sliders and pickers) are checked against the package in node
# by tests/test_explorers.py and in Chromium by tests/test_explorers_browser.py.


def test_curves_explorer_state():
    w = PECurvesExplorer(d_model=32, max_len=80, pos=10, dim=5)
    assert (w.d_model, w.max_len, w.pos, w.dim, w.table_layout) == (32, 80, 10, 5, "interleaved")
    assert w.base == 10000.0
    # the widget's own CSS `layout` trait must stay intact (the static page needs it)
    assert isinstance(w.layout, ipywidgets.Layout)
    assert PECurvesExplorer(table_layout="concatenated").table_layout == "concatenated"


def test_rotation_explorer_state():
    w = PERotationExplorer(d_model=16, pos=4, k=3)
    assert (w.d_model, w.pos, w.k) == (16, 4, 3)
    assert w.k_max >= 3


def test_heatmap_explorer_state():
    w = PEHeatmapExplorer(d_model=64, max_len=50)
    assert (w.d_model, w.max_len) == (64, 50) and w.d_model_min <= 64 <= w.d_model_max
    assert isinstance(w.layout, ipywidgets.Layout) and w.table_layout == "interleaved"


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: PECurvesExplorer(d_model=31), "odd"),
        (lambda: PECurvesExplorer(d_model=32, max_len=20, pos=20), "pos"),
        (lambda: PECurvesExplorer(d_model=32, dim=32), "dim"),
        (lambda: PECurvesExplorer(table_layout="stacked"), "table_layout"),
        (lambda: PERotationExplorer(d_model=16, k=99, k_max=50), "k"),
        (lambda: PERotationExplorer(d_model=16, pos=-1), "pos"),
        (lambda: PEHeatmapExplorer(d_model=66, d_model_max=64), "d_model"),
        (lambda: PEHeatmapExplorer(max_len=0), "max_len"),
        (lambda: PEHeatmapExplorer(table_layout="x"), "table_layout"),
    ],
)
def test_explorers_reject_bad_input(make, message):
    with pytest.raises(ValueError, match=message):
        make()
