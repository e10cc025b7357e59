"""Incremental decoding with a key/value cache: the same outputs as recomputing every prefix.

Several models (post-LN, pre-LN, learned positions, shared embeddings, the ablations without
residual connections or LayerNorm), batched greedy decoding with padded sources and rows
that finish at different steps, and beam search; the attention maps returned per step
equal those of a teacher-forced pass over the decoded sequence.
"""

from __future__ import annotations

import pytest
import torch

from attnbook.data.vocab import BOS_ID, EOS_ID, PAD_ID
from attnbook.decode import beam_search, greedy_decode
from attnbook.model import KVCache, Transformer, TransformerConfig

CONFIGS = {
    "post-LN": {},
    "pre-LN": {"norm_first": True},
    "learned positions": {"positional": "learned"},
    "shared embeddings": {"share_embeddings": True, "tgt_vocab": 13},
    "no residual": {"residual": False},
    "no LayerNorm": {"layer_norm": False},
    "d_k < d_model / h": {"d_k": 4},  # Table 3 row (B): keys narrower than values
}


def model(seed: int = 0, dtype=torch.float32, **kw) -> Transformer:
    torch.manual_seed(seed)
    config = TransformerConfig.tiny(13, **{"tgt_vocab": 11, **kw})
    return Transformer(config).to(dtype).eval()


def sources(B: int = 6, S: int = 7, seed: int = 0) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    src = torch.randint(3, 13, (B, S), generator=g)
    for b in range(B):  # padded to different lengths
        src[b, S - b % 4 :] = PAD_ID
    return src


@pytest.mark.parametrize("kw", CONFIGS.values(), ids=CONFIGS.keys())
def test_decode_step_equals_the_last_row_of_decode(kw):
    m = model(dtype=torch.float64, **kw)
    src = sources()
    tgt = torch.randint(3, 11, (src.size(0), 9), generator=torch.Generator().manual_seed(2))
    tgt[:, 0] = BOS_ID
    tgt[1, 6:] = PAD_ID  # a row already finished: padding in the target
    memory, _ = m.encode(src)
    full, self_ws, cross_ws = m.decode(tgt, memory, src)
    cache = m.start_cache(memory, src)
    for t in range(tgt.size(1)):
        logits, cache, own, cross = m.decode_step(tgt[:, t : t + 1], cache, need_weights=True)
        torch.testing.assert_close(logits, full[:, t], atol=1e-10, rtol=1e-10)
        for layer in range(m.config.N):
            torch.testing.assert_close(own[layer][:, :, 0], self_ws[layer][:, :, t, : t + 1])
            torch.testing.assert_close(cross[layer][:, :, 0], cross_ws[layer][:, :, t])
    assert cache.length == tgt.size(1)


@pytest.mark.parametrize("kw", CONFIGS.values(), ids=CONFIGS.keys())
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_greedy_with_and_without_cache_give_the_same_ids(kw, seed):
    m = model(seed, **kw)
    src = sources(seed=seed)
    cached = greedy_decode(m, src, max_len=12)
    recomputed = greedy_decode(m, src, max_len=12, use_cache=False)
    assert torch.equal(cached, recomputed)
    assert cached.shape[0] == src.size(0)


def test_greedy_rows_finish_at_different_steps():
    """The batch above is worth testing only if rows stop at different times."""
    finished_early = 0
    for seed in range(3):
        out = greedy_decode(model(seed), sources(seed=seed), max_len=12)
        ends = [(row == EOS_ID).nonzero()[:1].tolist() for row in out]
        finished_early += sum(bool(e) and e[0][0] < out.size(1) - 1 for e in ends)
    assert finished_early > 0


@pytest.mark.parametrize("use_cache", [True, False], ids=["cache", "recompute"])
def test_greedy_attention_equals_a_teacher_forced_pass(use_cache):
    m = model(1, norm_first=True)
    src = sources(seed=1)
    ids, attn = greedy_decode(m, src, max_len=10, use_cache=use_cache, return_attention=True)
    assert torch.equal(ids, greedy_decode(m, src, max_len=10))
    tgt = torch.cat([torch.full((src.size(0), 1), BOS_ID), ids[:, :-1]], dim=1)
    _, expected = m(src, tgt)
    for got, want in zip(attn, expected):  # encoder, decoder, cross
        assert len(got) == len(want) == m.config.N
        for g, w in zip(got, want):
            torch.testing.assert_close(g, w)


@pytest.mark.parametrize("kw", CONFIGS.values(), ids=CONFIGS.keys())
@pytest.mark.parametrize(("beam_size", "alpha"), [(1, 0.0), (4, 0.6), (6, 1.0)])
def test_beam_search_with_and_without_cache_agree(kw, beam_size, alpha):
    m = model(3, **kw)
    for src in sources(B=4, seed=3):
        src = src[src != PAD_ID][None]  # one unpadded source (1, S)
        ids, logp = beam_search(m, src, 10, beam_size, alpha)
        ids_full, logp_full = beam_search(m, src, 10, beam_size, alpha, use_cache=False)
        assert ids == ids_full
        assert logp == pytest.approx(logp_full, rel=1e-5, abs=1e-4)  # float32 sums, two orders


def test_beam_search_attention_is_that_of_the_best_hypothesis():
    m = model(4)
    src = sources(B=1, seed=4)
    ids, logp, attn = beam_search(m, src, 10, beam_size=4, return_attention=True)
    same_ids, same_logp = beam_search(m, src, 10, beam_size=4)
    assert ids == same_ids and logp == pytest.approx(same_logp, abs=1e-5)
    _, expected = m(src, torch.tensor([[BOS_ID, *ids[:-1]]]))
    for got, want in zip(attn, expected):
        for g, w in zip(got, want):
            assert g.shape == w.shape
            torch.testing.assert_close(g, w)


def test_cache_holds_2_N_t_d_model_numbers_per_sequence():
    m = model(N=3)
    src = sources(B=2, S=5)
    memory, _ = m.encode(src)
    cache = m.start_cache(memory, src)
    assert isinstance(cache, KVCache) and cache.length == 0
    d_model, N = m.config.d_model, m.config.N
    assert cache.numel() == (0, 2 * 2 * N * 5 * d_model)  # cross K, V: computed once
    for t in range(4):
        _, cache, _, _ = m.decode_step(torch.full((2, 1), 3 + t), cache)
    assert cache.numel() == (2 * 2 * N * 4 * d_model, 2 * 2 * N * 5 * d_model)


def test_cache_select_reorders_rows():
    m = model()
    src = sources(B=3)
    memory, _ = m.encode(src)
    cache = m.start_cache(memory, src)
    _, cache, _, _ = m.decode_step(torch.tensor([[BOS_ID]] * 3), cache)
    picked = cache.select(torch.tensor([2, 0, 0]))
    torch.testing.assert_close(picked.layers[1].k, cache.layers[1].k[[2, 0, 0]])
    torch.testing.assert_close(picked.layers[0].memory_v, cache.layers[0].memory_v[[2, 0, 0]])
    assert torch.equal(picked.src_mask, cache.src_mask[[2, 0, 0]])


def test_embedding_at_an_offset_is_a_slice_of_the_whole():
    for kw in ({}, {"positional": "learned"}):
        embed = model(**kw).tgt_embed
        ids = torch.randint(3, 11, (2, 6))
        torch.testing.assert_close(embed(ids[:, 4:], offset=4), embed(ids)[:, 4:])


def test_decode_step_bad_input():
    m = model()
    src = sources(B=2)
    memory, _ = m.encode(src)
    cache = m.start_cache(memory, src)
    with pytest.raises(TypeError, match="cache must be a KVCache"):
        m.decode_step(torch.tensor([[BOS_ID], [BOS_ID]]), (memory,))
    with pytest.raises(ValueError, match=r"token must have shape \(B=2, 1\)"):
        m.decode_step(torch.tensor([[BOS_ID, 3], [BOS_ID, 3]]), cache)
    with pytest.raises(ValueError, match="outside the vocabulary"):
        m.decode_step(torch.tensor([[99], [3]]), cache)
    with pytest.raises(ValueError, match=r"memory .* must be \(B, S, d_model=64\)"):
        m.start_cache(memory[:, :3], src)
    short = Transformer(TransformerConfig.tiny(13, 11, max_len=2)).eval()
    cache = short.start_cache(short.encode(src[:, :2])[0], src[:, :2])
    for _ in range(2):
        _, cache, _, _ = short.decode_step(torch.tensor([[3], [3]]), cache)
    with pytest.raises(ValueError, match="max_len=2 reached"):
        short.decode_step(torch.tensor([[3], [3]]), cache)
    with pytest.raises(TypeError, match="use_cache must be True or False"):
        greedy_decode(m, src, 5, use_cache="yes")
    with pytest.raises(TypeError, match="return_attention must be True or False"):
        beam_search(m, src[:1], 5, return_attention=1)


def test_translate_without_the_cache_gives_the_same_strings():
    """use_cache=False recomputes the prefix (for attention that needs every position)."""
    from attnbook.data import DATE_VOCAB, held_out_dates
    from attnbook.decode import translate
    from attnbook.recipes import load_date_model

    date_model = load_date_model()
    texts = [s for s, _, _ in held_out_dates(12, seed=5)]
    for beam_size in (None, 3):
        cached = translate(date_model, texts, DATE_VOCAB, beam_size=beam_size)
        recomputed = translate(date_model, texts, DATE_VOCAB, beam_size=beam_size, use_cache=False)
        assert cached == recomputed
