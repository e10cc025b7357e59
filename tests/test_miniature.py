"""The paper in miniature: the number-words task, BPE, BLEU, batching, row (B)'s head
sizes, decoding up to input length + offset, Table 2's FLOPs and Table 3's bookkeeping."""

from __future__ import annotations

import math
import statistics
from pathlib import Path

import pytest
import sacrebleu
import torch

from attnbook.attention import MultiHeadAttention
from attnbook.data import (
    PAD_ID,
    Vocabulary,
    chinese,
    corpus_batches,
    corpus_numbers,
    english,
    german,
    number_corpus,
    number_pairs,
    number_split,
    number_test_set,
    sample_numbers,
)
from attnbook.decode import greedy_decode, translate
from attnbook.metrics import bleu, chrf, exact_match
from attnbook.miniature import (
    TABLE3,
    VARIANTS_BESIDE,
    agrees,
    difference_in_se,
    number_config,
    number_data,
    paper_training_cost,
    run_variation,
    student_t_975,
    summarise,
    teacher_forced_nll,
    train_number_model,
    training_flops,
    translation_scores,
    variation,
)
from attnbook.model import Transformer, TransformerConfig, count_parameters
from attnbook.tokenize import BPETokenizer

# ---------------------------------------------------------------- number words


@pytest.mark.parametrize(
    ("n", "en", "de", "zh"),
    [
        (1, "one", "eins", "一"),
        (7, "seven", "sieben", "七"),
        (12, "twelve", "zwölf", "十二"),
        (21, "twenty-one", "einundzwanzig", "二十一"),
        (30, "thirty", "dreißig", "三十"),
        (101, "one hundred one", "einhunderteins", "一百零一"),
        (347, "three hundred forty-seven", "dreihundertsiebenundvierzig", "三百四十七"),
        (1000, "one thousand", "eintausend", "一千"),
        (10010, "ten thousand ten", "zehntausendzehn", "一万零一十"),
        (100001, "one hundred thousand one", "einhunderttausendeins", "十万零一"),
        (
            347201,
            "three hundred forty-seven thousand two hundred one",
            "dreihundertsiebenundvierzigtausendzweihunderteins",
            "三十四万七千二百零一",
        ),
        (
            999999,
            "nine hundred ninety-nine thousand nine hundred ninety-nine",
            "neunhundertneunundneunzigtausendneunhundertneunundneunzig",
            "九十九万九千九百九十九",
        ),
    ],
)
def test_number_words(n, en, de, zh):
    assert (english(n), german(n), chinese(n)) == (en, de, zh)


def test_german_puts_units_before_tens_everywhere():
    for n in range(21, 100):
        tens, units = divmod(n, 10)
        if units:
            assert german(n).endswith("und" + german(tens * 10))  # "…und" + the tens
            assert english(n).startswith(english(tens * 10) + "-")  # English: tens first


@pytest.mark.parametrize("bad", [0, 1_000_000, -3])
def test_numbers_outside_the_range_are_errors(bad):
    with pytest.raises(ValueError, match="n must be"):
        german(bad)
    with pytest.raises(TypeError):
        english(3.0)


def test_split_is_disjoint_and_the_corpus_is_balanced():
    split = number_split(seed=0)
    train, valid, test = (set(s.tolist()) for s in split)
    assert not train & valid and not train & test and not valid & test
    assert len(train) + len(valid) + len(test) == 999_999
    assert set(range(1, 100)) <= train
    corpus = corpus_numbers(split.train, 300, torch.Generator().manual_seed(0))
    assert len(set(corpus.tolist())) == 300 and set(corpus.tolist()) <= train
    digits = [len(str(n)) for n in corpus.tolist() if n >= 100]
    assert sorted(set(digits)) == [3, 4, 5, 6] and max(map(digits.count, {3, 4, 5, 6})) <= 51
    again = corpus_numbers(split.train, 300, torch.Generator().manual_seed(0))
    assert torch.equal(corpus, again)
    drawn = sample_numbers(split.test, 4000, torch.Generator().manual_seed(1))
    assert set(drawn.tolist()) <= test
    counts = [sum(len(str(n)) == d for n in drawn.tolist()) for d in (3, 4, 5, 6)]
    assert min(counts) > 900  # digit counts drawn uniformly


def test_test_numbers_never_occur_in_training():
    corpus, test = number_corpus(300, seed=0), number_test_set(1000)
    assert not set(corpus.number) & set(test.number)
    assert corpus.target[corpus.number.index(47)] == "siebenundvierzig"
    assert number_pairs([21], target="zh").target == ["二十一"]
    assert number_test_set(1000) == test  # deterministic


# ---------------------------------------------------------------- BPE


@pytest.fixture(scope="module")
def data():
    return number_data()  # BPE 160 on the 300-pair corpus, the 1000 test pairs


def test_bpe_round_trip_and_shared_vocabulary(data):
    tok = data.tokenizer
    assert isinstance(tok, BPETokenizer) and len(tok) == 160
    assert tok.itos[:3] == ["<pad>", "<bos>", "<eos>"]
    texts = data.train.source + data.train.target + data.test.source + data.test.target
    for text in texts:
        assert tok.decode(tok.encode(text, bos=True, eos=True)) == text
    ids = tok.encode_batch(texts[:50], bos=True, eos=True)
    assert tok.decode_batch(ids) == texts[:50]
    assert [tok.encode(t, bos=True, eos=True) for t in texts[:5]] == [
        row[row != PAD_ID].tolist() for row in ids[:5]
    ]
    # one vocabulary for both languages: English and German share some of its pieces
    english_ids = set(tok.encode_batch(data.train.source).flatten().tolist()) - {PAD_ID}
    german_ids = set(tok.encode_batch(data.train.target).flatten().tolist()) - {PAD_ID}
    assert english_ids & german_ids and max(english_ids | german_ids) < 160
    assert "".join(tok.tokens("dreihundertsiebenundvierzig")).lstrip("▁") == (
        "dreihundertsiebenundvierzig"
    )
    assert len(tok.tokens("dreihundertsiebenundvierzig")) < len("dreihundertsiebenundvierzig")


def test_bpe_merges_the_most_frequent_pair_first():
    tok = BPETokenizer.train(["abab"], vocab_size=3 + 3 + 1)  # a, b, ▁, then one merge
    assert tok.tokens("abab") == ["▁", "ab", "ab"]  # "ab" occurs twice, "▁a" and "ba" once
    assert tok.tokens("ba") == ["▁", "b", "a"]
    assert tok.decode(tok.encode("ab ba")) == "ab ba"
    with pytest.raises(ValueError, match=r"characters not in the vocabulary: \['z'\]"):
        tok.encode("abz")
    with pytest.raises(ValueError, match="smaller than the 3 characters"):
        BPETokenizer.train(["abab"], vocab_size=5)


def test_bpe_saves_as_json(tmp_path, data):
    path = tmp_path / "bpe.json"
    data.tokenizer.save(path)
    again = BPETokenizer.load(path)
    assert again.itos == data.tokenizer.itos
    assert again.encode("four hundred") == data.tokenizer.encode("four hundred")
    assert path.read_text(encoding="utf-8").lstrip().startswith("{")  # JSON, not pickle


def test_character_vocabulary_encodes_like_bpe_does():
    char = number_data(tokenizer="char")
    assert isinstance(char.tokenizer, Vocabulary)
    assert char.tokenizer.decode_batch(char.test_tgt[:, 1:]) == char.test.target
    assert char.test_src.size(1) > 40  # characters: long sequences


# ---------------------------------------------------------------- BLEU, chrF, exact match


def test_bleu_known_cases():
    refs = ["the cat sat on a mat", "a dog ran"]
    assert bleu(refs, refs, tokenize="13a") == pytest.approx(100.0)
    assert bleu(["x y z w v", "q r s t"], refs, tokenize="13a") == pytest.approx(0.0)
    # by hand: precisions 5/6, 3/5, 2/4, 1/3 (clipped), equal lengths: BP = 1
    hand = 100 * (5 / 6 * 3 / 5 * 2 / 4 * 1 / 3) ** 0.25
    assert bleu(["the cat sat on the mat"], ["the cat sat on a mat"], "13a") == pytest.approx(
        hand, abs=1e-9
    )
    # a short hypothesis: all precisions 1, brevity penalty exp(1 − 6/4)
    short = bleu(["the cat sat on"], ["the cat sat on the mat"], "13a")
    assert short == pytest.approx(100 * math.exp(1 - 6 / 4), abs=1e-9)
    # characters: one German word gets partial credit, where word BLEU gives 0
    hyp, ref = ["dreihundertsiebenundvierzig"], ["dreihundertachtundvierzig"]
    assert bleu(hyp, ref, "13a") == 0.0 and 50 < bleu(hyp, ref, "char") < 100
    assert bleu(hyp, ref) == sacrebleu.corpus_bleu(hyp, [ref], tokenize="char").score


def test_exact_match_and_chrf():
    assert exact_match(["a", "b", "c", "d"], ["a", "b", "x", "y"]) == 0.5
    assert chrf(["einhundert"], ["einhundert"]) == pytest.approx(100.0)
    assert 0 < chrf(["einhundertzwei"], ["einhunderteins"]) < 100
    with pytest.raises(ValueError, match="one reference per hypothesis"):
        bleu(["a"], ["a", "b"])
    with pytest.raises(TypeError, match="hypotheses must be a list of strings"):
        exact_match("abc", "abc")
    with pytest.raises(ValueError, match="tokenize must be one of"):
        bleu(["a"], ["a"], tokenize="spacy")


# ---------------------------------------------------------------- batches


def test_corpus_batches_cover_the_corpus_and_trim_padding(data):
    g = torch.Generator().manual_seed(0)
    batches = corpus_batches(data.train_src, data.train_tgt, 64, g)
    seen = []
    for _ in range(4):  # one epoch: 300 // 64 = 4 batches, the 44 left over dropped
        src, tgt = next(batches)
        assert src.size(0) == 64 and (src[:, -1] != PAD_ID).any() and (tgt[:, -1] != PAD_ID).any()
        seen += [tuple(r[r != PAD_ID].tolist()) for r in src]
    corpus = {tuple(r[r != PAD_ID].tolist()) for r in data.train_src}
    assert len(set(seen)) == 256 and set(seen) <= corpus
    grouped = corpus_batches(data.train_src, data.train_tgt, 32, g, pool=8)
    spread = [
        (s != PAD_ID).sum(1).float().std().item() for s, _ in (next(grouped) for _ in range(8))
    ]
    mixed = corpus_batches(data.train_src, data.train_tgt, 32, g)
    spread_mixed = [
        (s != PAD_ID).sum(1).float().std().item() for s, _ in (next(mixed) for _ in range(8))
    ]
    assert statistics.mean(spread) < statistics.mean(spread_mixed) / 2  # grouped by length
    with pytest.raises(ValueError, match="batch_size"):
        next(corpus_batches(data.train_src[:10], data.train_tgt[:10], 64, g))


# ---------------------------------------------------------------- row (B): d_k ≠ d_model / h


def test_default_head_sizes_are_unchanged():
    torch.manual_seed(0)
    a = MultiHeadAttention(64, 4)
    torch.manual_seed(0)
    b = MultiHeadAttention(64, 4, d_k=16, d_v=16)
    assert (a.d_k, a.d_v) == (16, 16) and a.W_Q.weight.shape == (64, 64)
    x = torch.randn(2, 5, 64)
    (out_a, w_a), (out_b, w_b) = a(x, x, x), b(x, x, x)
    torch.testing.assert_close(out_a, out_b, rtol=0, atol=0)
    torch.testing.assert_close(w_a, w_b, rtol=0, atol=0)
    c = TransformerConfig.tiny(50)
    assert (c.d_k, c.d_v) == (16, 16) and c == TransformerConfig.tiny(50, d_k=16, d_v=16)


def test_smaller_d_k_matches_a_hand_written_attention():
    torch.manual_seed(0)
    mha = MultiHeadAttention(64, 4, d_k=8).eval()  # d_v stays d_model / h = 16
    assert mha.W_Q.weight.shape == (32, 64) and mha.W_V.weight.shape == (64, 64)
    assert mha.W_O.weight.shape == (64, 64)
    q, kv = torch.randn(2, 5, 64), torch.randn(2, 7, 64)
    mask = torch.ones(2, 1, 7, dtype=torch.bool)
    mask[1, 0, 5:] = False
    out, weights = mha(q, kv, kv, mask)
    Q = mha.W_Q(q).view(2, 5, 4, 8).transpose(1, 2)  # (B, h, T_q, d_k)
    K = mha.W_K(kv).view(2, 7, 4, 8).transpose(1, 2)
    V = mha.W_V(kv).view(2, 7, 4, 16).transpose(1, 2)  # (B, h, T_k, d_v)
    scores = Q @ K.transpose(-2, -1) / math.sqrt(8)
    p = scores.masked_fill(~mask[:, None], float("-inf")).softmax(-1)
    expected = mha.W_O((p @ V).transpose(1, 2).reshape(2, 5, 64))
    torch.testing.assert_close(weights, p)
    torch.testing.assert_close(out, expected)
    fused, none = mha(q, kv, kv, mask, need_weights=False)  # PyTorch's fused kernel
    assert none is None
    torch.testing.assert_close(fused, expected)


def test_row_b_has_fewer_parameters_and_trains():
    base = Transformer(TransformerConfig.tiny(20))
    small = Transformer(TransformerConfig.tiny(20, d_k=4))
    per_matrix = 64 * 4 * (16 - 4) + 4 * (16 - 4)  # W_Q or W_K with bias, per attention
    assert count_parameters(base) - count_parameters(small) == 2 * per_matrix * 3 * 2
    src, tgt = torch.randint(3, 20, (3, 6)), torch.randint(3, 20, (3, 5))
    logits, attn = small(src, tgt)
    assert logits.shape == (3, 5, 20) and attn.cross[0].shape == (3, 4, 5, 6)
    with pytest.raises(ValueError, match="d_k must be a positive int"):
        TransformerConfig.tiny(20, d_k=0)
    assert TransformerConfig.tiny(20, d_model=60, h=8, d_k=8, d_v=8).d_k == 8  # 60 % 8 ≠ 0 is fine


# ---------------------------------------------------------------- decoding length


def test_translate_decodes_up_to_input_length_plus_offset(data):
    torch.manual_seed(0)
    model = Transformer(number_config(len(data.tokenizer), dropout=0.0)).eval()
    texts = ["four", "three hundred forty-seven thousand"]
    lengths = [len(data.tokenizer.encode(t)) for t in texts]
    out = translate(model, texts, data.tokenizer, max_len_offset=2)
    src = torch.nn.utils.rnn.pad_sequence(
        [torch.tensor(data.tokenizer.encode(t)) for t in texts], batch_first=True
    )
    ys = greedy_decode(model, src, max(lengths) + 2)
    for text, row, n in zip(out, ys, lengths):
        assert text == data.tokenizer.decode(row[: n + 2])  # each row stops at its own limit
    assert translate(model, texts, data.tokenizer, max_len=3) == [
        data.tokenizer.decode(r) for r in greedy_decode(model, src, 3)
    ]
    capped = translate(model, texts, data.tokenizer, max_len_offset=500)  # the model's max_len
    assert len(capped) == 2
    with pytest.raises(ValueError, match="max_len_offset must be a non-negative int"):
        translate(model, texts, data.tokenizer, max_len_offset=-1)
    with pytest.raises(ValueError, match=r"input 0 \(''\): empty input"):
        translate(model, [""], data.tokenizer)


# ---------------------------------------------------------------- training and scoring


def test_a_short_run_learns_and_is_scored(data):
    model, history = train_number_model(data, steps=30, warmup=5, progress=False)
    assert history.steps == 30 and history.loss[-1] < history.loss[0]
    assert model.config.share_embeddings and model.config.dropout == 0.1
    scores = translation_scores(model, data)
    assert len(scores.hypotheses) == 1000 and 0 <= scores.exact <= 1
    nll, tokens = teacher_forced_nll(model, data.test_src, data.test_tgt)
    assert tokens == int((data.test_tgt[:, 1:] != PAD_ID).sum())
    assert scores.ppl_token == pytest.approx(math.exp(nll / tokens))
    chars = sum(len(t) + 1 for t in data.test.target)
    assert scores.ppl_char == pytest.approx(math.exp(nll / chars))
    assert scores.ppl_char < scores.ppl_token  # BPE pieces hold several characters
    with torch.no_grad():  # one batch, by hand
        logits, _ = model(data.test_src[:7], data.test_tgt[:7, :-1])
        nll7 = torch.nn.functional.cross_entropy(
            logits.transpose(1, 2), data.test_tgt[:7, 1:], ignore_index=PAD_ID, reduction="sum"
        )
    assert teacher_forced_nll(model, data.test_src[:7], data.test_tgt[:7], batch_size=3)[
        0
    ] == pytest.approx(nll7.item(), rel=1e-5)
    again, _ = train_number_model(data, steps=30, warmup=5, progress=False)
    assert all(torch.equal(a, b) for a, b in zip(model.parameters(), again.parameters()))


def test_every_variation_builds():
    assert [v.row for v in TABLE3][0] == "base"
    assert {v.row for v in TABLE3} == {"base", "A", "B", "C", "D", "E"}
    base_params = count_parameters(Transformer(number_config(160)))
    for v in TABLE3:
        config = {k: x for k, x in v.changes.items() if k != "label_smoothing"}
        params = count_parameters(Transformer(number_config(160, **config)))
        if v.row == "A":  # constant compute: h · d_k = d_model
            assert params == base_params
        if v.row == "B":
            assert params < base_params
    assert variation("D", "P_drop=0.0").changes == {"dropout": 0.0}
    assert {v.name for v in VARIANTS_BESIDE} >= {"characters", "BPE, 100 pieces"}
    with pytest.raises(ValueError, match="no variation"):
        variation("F", "nothing")


def test_summaries_and_agreement():
    runs = [
        {"row": "base", "name": "base", "seed": s, "params": 10, "exact": e, "ppl_token": p}
        for s, (e, p) in enumerate([(0.90, 1.15), (0.91, 1.16), (0.89, 1.14)])
    ] + [
        {"row": "D", "name": "P_drop=0.0", "seed": s, "params": 10, "exact": e, "ppl_token": 1.4}
        for s, e in enumerate([0.74, 0.72, 0.76])
    ]
    base, drop = summarise(runs)
    assert (base.row, drop.name, base.seeds) == ("base", "P_drop=0.0", 3)
    assert base.mean["exact"] == pytest.approx(0.90) and base.std["exact"] == pytest.approx(0.01)
    assert base.paper.ppl == 4.92 and drop.paper.bleu == 24.6
    z = difference_in_se([0.74, 0.72, 0.76], [0.90, 0.91, 0.89])
    assert z == pytest.approx(-0.16 / math.sqrt(0.0004 / 3 + 0.0001 / 3))
    ok, diff, bound = agrees([0.75], [0.74, 0.72, 0.76])
    assert ok and diff == pytest.approx(0.01)
    assert bound == pytest.approx(4.303 * math.sqrt(4e-4 * 4 / 3))  # t with 2 d.o.f.
    assert not agrees([0.90], [0.74, 0.72, 0.76])[0]
    assert agrees([0.80], [0.74, 0.72, 0.76])[0]  # 0.06 < 0.099: within a t bound, not 2 SE
    with pytest.raises(ValueError, match="need >= 2 committed runs"):
        agrees([0.8], [0.74])


def test_student_t_critical_values():
    # closed forms: df = 1 is Cauchy, tan(0.475 π); df = 2: (2p − 1) / √(2p(1 − p))
    assert student_t_975(1) == pytest.approx(math.tan(0.475 * math.pi), abs=1e-3)
    assert student_t_975(2) == pytest.approx(0.95 / math.sqrt(2 * 0.975 * 0.025), abs=1e-3)
    values = [student_t_975(df) for df in range(1, 40)]
    assert all(a > b for a, b in zip(values[:30], values[1:31])) and values[-1] == 1.96
    with pytest.raises(ValueError, match="df"):
        student_t_975(0)


def test_one_variation_run_reports_what_the_table_needs(data, monkeypatch):
    import attnbook.miniature as miniature

    real = miniature.train_number_model
    monkeypatch.setattr(
        miniature, "train_number_model", lambda d, **kw: real(d, **{**kw, "steps": 12, "warmup": 2})
    )
    r = run_variation(variation("B", "d_k=4"), seed=1, data=data)
    assert (r["row"], r["name"], r["seed"], r["vocab"]) == ("B", "d_k=4", 1, 160)
    assert r["params"] < count_parameters(Transformer(number_config(160)))
    assert r["steps_per_s"] > 0 and r["cpu_s"] > 0 and 0 <= r["exact"] <= 1
    assert {"ppl_token", "ppl_char", "bleu", "bleu_words", "chrf", "load", "threads"} <= set(r)


# ---------------------------------------------------------------- Table 2


def test_training_flops_from_the_formulas():
    base, big = paper_training_cost("base"), paper_training_cost("big")
    assert base.parameters == count_parameters(Transformer(TransformerConfig.base()))
    assert big.parameters == 214_282_376
    # the paper's method: GPU-hours × 9.5 TFLOPS reproduces Table 2
    assert base.paper_method_flops == pytest.approx(3.3e18, rel=0.01)
    assert big.paper_method_flops == pytest.approx(2.3e19, rel=0.01)
    assert (base.gpus, base.hours, big.hours) == (8, 12.0, 84.0)
    # the arithmetic: below what the GPUs could have done, and ≈ 6 · parameters · tokens / 2
    assert 0.1 < base.utilisation < 1 and 0.1 < big.utilisation < 1
    naive = 6 * base.parameters * 50_000 * 100_000  # every token through every weight
    assert 0.4 * naive < base.counted_flops < 0.6 * naive
    assert big.counted_flops / base.counted_flops == pytest.approx(10.1, rel=0.05)
    with pytest.raises(ValueError, match="model must be one of"):
        paper_training_cost("huge")


def test_training_flops_count_each_matrix_product():
    # one layer each, no attention scores (length-1 sentences aside): count by hand
    c = TransformerConfig.tiny(10, N=1, d_model=8, d_ff=16, h=2, d_k=3, d_v=5)
    flops = training_flops(c, src_tokens=1, tgt_tokens=0, steps=1, src_len=0, tgt_len=0)
    attention = 2 * (8 * 6 + 6) + (8 * 10 + 10) + (10 * 8 + 8)  # W_Q, W_K; W_V; W_O
    ffn = 8 * 16 + 16 + 16 * 8 + 8
    encoder = attention + ffn + 2 * 2 * 8  # and two LayerNorms
    cross_kv = (8 * 6 + 6) + (8 * 10 + 10)
    assert flops == 3 * 2 * (encoder + cross_kv)
    one_target = training_flops(c, src_tokens=0, tgt_tokens=1, steps=1, src_len=0, tgt_len=0)
    decoder = 2 * attention + ffn + 3 * 2 * 8 - cross_kv
    assert one_target == 3 * 2 * (decoder + 8 * 10 + 10)
    scores = training_flops(c, 0, 1, 1, src_len=4, tgt_len=7) - one_target
    assert scores == 3 * 2 * 2 * (3 + 5) * (4 + 7)  # Q Kᵀ and weights · V, self and cross


def test_table3_script_writes_the_table_and_names_missing_runs():
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "table3_script", Path(__file__).resolve().parent.parent / "benchmarks" / "table3.py"
    )
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)

    def run(row, name, seed, exact):
        values = dict(ppl_token=1.2 - exact / 10, ppl_char=1.03, bleu=90 + exact, chrf=95.0)
        timing = dict(train_s=30.0, cpu_s=29.0, steps_per_s=20.0, load=1.0, bleu_words=0.0)
        info = dict(row=row, name=name, seed=seed, params=1000, vocab=160, threads=1)
        return {**info, **values, **timing, "exact": exact}

    runs = [run("base", "base", s, e) for s, e in zip((0, 1, 2), (0.90, 0.91, 0.89))]
    runs += [run("D", "P_drop=0.0", s, e) for s, e in zip((0, 1), (0.74, 0.72))]
    runs += [run("E", "learned positions", 0, 0.85)]
    text = script.markdown({"meta": {}, "runs": runs}, [0, 1, 2])
    assert "| base | base | 1,000 | 3 | " in text and "| 90.0 ± 1.0 |" in text
    assert "| (D) | P_drop=0.0 | 1,000 | 2 | " in text and "73.0 ± 1.4*" in text  # > 2 SE
    assert "| (E) | learned positions | 1,000 | 1 | " in text and "| 85.0 |" in text  # no ± nan
    assert "nan" not in text
    missing = script.missing_runs({"runs": runs}, [0, 1, 2])
    assert "(D) P_drop=0.0: seed 2" in missing and "(E) learned positions: seed 1, 2" in missing
    assert not any(m.startswith("base") for m in missing) and "Incomplete sweep" in text
    assert len(missing) == len(TABLE3) + len(VARIANTS_BESIDE) - 1
    early = script.markdown({"meta": {}, "runs": runs[:1] + runs[3:]}, [0, 1, 2])  # 1 base seed
    assert "| 73.0 ± 1.4 |" in early and "base: seed 1, 2" in early  # no test against 1 seed
