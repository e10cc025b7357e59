"""The paper in miniature: its experiments (Tables 2 and 3) on a task a CPU can train.

The task is English → German number words (``attnbook.data.numbers``) on a corpus of
300 pairs, tested on 1000 numbers never seen in training. The base model is the paper's
base, scaled down: N = 2, d_model = 64, d_ff = 256, h = 4, d_k = d_v = 16, P_drop = 0.1,
ε_ls = 0.1, one BPE vocabulary of 160 pieces shared by source and target and one
embedding matrix (§3.4, §5.1), 600 steps of 64 pairs. It lands below the ceiling of exact
match (chapter 8 shows where), so design choices have room to show.

- :func:`number_data`, :func:`train_number_model`, :func:`translation_scores`: one run;
- ``TABLE3``: the variations of the paper's Table 3, rows (A)–(E), each beside the
  paper's nearest row; :func:`run_variation`, :func:`summarise` and :func:`agrees` make
  and read the table that ``benchmarks/table3.py`` commits (:func:`load_table3_runs`);
- :func:`training_flops`, :func:`paper_training_cost`: Table 2's training cost: the
  operations the formulas count, beside the paper's figure, which is not a count but
  training time × GPUs × an assumed sustained speed per GPU (§6.1).
"""

from __future__ import annotations

import json
import math
import os
import statistics
import time
from collections.abc import Sequence
from importlib import resources
from typing import Any, NamedTuple

import torch
import torch.nn.functional as F
from torch import Tensor

from attnbook.checks import check_int, describe
from attnbook.data.batching import corpus_batches, trim
from attnbook.data.numbers import NumberPairs, number_corpus, number_test_set
from attnbook.data.vocab import PAD_ID, Vocabulary
from attnbook.decode import translate
from attnbook.metrics import bleu, chrf, exact_match
from attnbook.model import Transformer, TransformerConfig, count_parameters
from attnbook.tokenize import BPETokenizer
from attnbook.train import History, fit, seq2seq_batch_loss, warmup_linear_decay
from attnbook.utils import set_seed

NUMBER_MAX_LEN = 96  # the longest number in characters (65) with <bos> and <eos>, and room
PAPER_MAX_LEN_OFFSET = 50  # "maximum output length to input length + 50" (§6.1)


# ---------------------------------------------------------------- one run


class NumberData(NamedTuple):
    """The corpus and the test set, as text and as padded ids of ``tokenizer``."""

    tokenizer: Vocabulary | BPETokenizer
    train: NumberPairs
    test: NumberPairs
    train_src: Tensor  # (n_train, S)
    train_tgt: Tensor  # (n_train, T): <bos> … <eos>
    test_src: Tensor  # (n_test, S)
    test_tgt: Tensor  # (n_test, T)

    @classmethod
    def encode(
        cls, tokenizer: Vocabulary | BPETokenizer, train: NumberPairs, test: NumberPairs
    ) -> NumberData:
        """``train`` and ``test`` with their ids under ``tokenizer`` (targets: <bos> … <eos>)."""
        return cls(
            tokenizer,
            train,
            test,
            tokenizer.encode_batch(train.source),
            tokenizer.encode_batch(train.target, bos=True, eos=True),
            tokenizer.encode_batch(test.source),
            tokenizer.encode_batch(test.target, bos=True, eos=True),
        )


def number_data(
    tokenizer: str = "bpe",
    vocab_size: int = 160,
    n_train: int = 300,
    seed: int = 0,
    n_test: int = 1000,
    target: str = "de",
) -> NumberData:
    """The corpus of ``n_train`` pairs (drawn with ``seed``), the ``n_test`` unseen test
    pairs, and one vocabulary for source and target learned from the corpus:
    ``"bpe"`` with ``vocab_size`` pieces, or ``"char"`` (every character of the corpus)."""
    if tokenizer not in ("bpe", "char"):
        raise ValueError(f"tokenizer must be 'bpe' or 'char', got {tokenizer!r}")
    train = number_corpus(n_train, seed, target)
    test = number_test_set(n_test, target=target)
    texts = train.source + train.target
    if tokenizer == "bpe":
        tok: Vocabulary | BPETokenizer = BPETokenizer.train(texts, vocab_size)
    else:
        tok = Vocabulary("".join(sorted(set("".join(texts)))))
    return NumberData.encode(tok, train, test)


def number_config(vocab_size: int, **overrides: Any) -> TransformerConfig:
    """The miniature base: ``TransformerConfig.tiny`` with the paper's P_drop = 0.1 and
    one embedding matrix for source, target and output (§3.4); ``overrides`` change it."""
    fields = dict(dropout=0.1, share_embeddings=True, max_len=NUMBER_MAX_LEN)
    return TransformerConfig.tiny(vocab_size, **{**fields, **overrides})


def train_number_model(
    data: NumberData,
    steps: int = 600,
    batch_size: int = 64,
    peak_lr: float = 5e-3,
    warmup: int = 60,
    label_smoothing: float = 0.1,
    seed: int = 0,
    pool: int = 1,
    device: str | torch.device = "cpu",
    progress: bool = True,
    **config_overrides: Any,
) -> tuple[Transformer, History]:
    """Train :func:`number_config` on ``data``'s corpus: ``steps`` random batches of
    ``batch_size`` pairs (``pool > 1``: grouped by length), Adam with β = (0.9, 0.98), a
    linear warm-up to ``peak_lr`` and a linear decay, label smoothing ε_ls. ``seed`` fixes
    the initial weights, the dropout masks and the order of the batches."""
    if not isinstance(data, NumberData):
        raise TypeError(f"data must be the NumberData of number_data(), got {describe(data)}")
    check_int("seed", seed, minimum=0)
    set_seed(seed)
    model = Transformer(number_config(len(data.tokenizer), **config_overrides)).to(device)
    batches = corpus_batches(
        data.train_src, data.train_tgt, batch_size, torch.Generator().manual_seed(seed), pool
    )
    history = fit(
        model,
        batches,
        seq2seq_batch_loss(label_smoothing),
        steps,
        lambda s: warmup_linear_decay(s, peak_lr, warmup, steps),
        progress=progress,
        desc="numbers",
    )
    return model, history


@torch.no_grad()
def teacher_forced_nll(
    model: Transformer, src: Tensor, tgt: Tensor, batch_size: int = 500
) -> tuple[float, int]:
    """−Σ log p(y_t | y_<t, x) over every target token (``<eos>`` included, padding not)
    under teacher forcing, in nats, and the number of those tokens."""
    model.eval()
    device = next(model.parameters()).device
    total, tokens = 0.0, 0
    for i in range(0, src.size(0), batch_size):
        s = trim(src[i : i + batch_size]).to(device)  # (B, S)
        t = trim(tgt[i : i + batch_size]).to(device)  # (B, T)
        logits, _ = model(s, t[:, :-1], need_weights=False)  # (B, T − 1, V)
        total += F.cross_entropy(
            logits.transpose(1, 2), t[:, 1:], ignore_index=PAD_ID, reduction="sum"
        ).item()
        tokens += int((t[:, 1:] != PAD_ID).sum())
    return total, tokens


class TranslationScores(NamedTuple):
    """A model's scores on a test set."""

    exact: float  # fraction of outputs identical to the reference
    bleu: float  # corpus BLEU on characters (sacrebleu, tokenize="char"), 0–100
    bleu_words: float  # corpus BLEU on words (sacrebleu's default "13a"), 0–100
    chrf: float  # corpus chrF, 0–100
    ppl_token: float  # perplexity per target token of the model's vocabulary
    ppl_char: float  # perplexity per target character (+1 for <eos>)
    hypotheses: list[str]


def translation_scores(
    model: Transformer,
    data: NumberData,
    max_len_offset: int = PAPER_MAX_LEN_OFFSET,
    use_cache: bool = True,
) -> TranslationScores:
    """Exact match, BLEU and chrF of greedy translations of ``data``'s test sources (each up
    to its input length + ``max_len_offset`` tokens, §6.1), and teacher-forced perplexity.

        PPL per token = exp(−(1/n) Σ log p(y_t | y_<t, x)),   n = target tokens + <eos>

    Per character, the same total is divided by the number of target characters (+1 for
    each <eos>) instead, so models with different vocabularies are on one scale. (For BPE
    it scores the one segmentation BPE gives, a lower bound on the text's probability.)
    """
    if not isinstance(data, NumberData):
        raise TypeError(f"data must be the NumberData of number_data(), got {describe(data)}")
    hypotheses = translate(
        model,
        data.test.source,
        data.tokenizer,
        max_len_offset=max_len_offset,
        use_cache=use_cache,  # False: for a decoder whose attention needs every position
    )
    nll, tokens = teacher_forced_nll(model, data.test_src, data.test_tgt)
    chars = sum(len(t) + 1 for t in data.test.target)
    return TranslationScores(
        exact_match(hypotheses, data.test.target),
        bleu(hypotheses, data.test.target, tokenize="char"),
        bleu(hypotheses, data.test.target, tokenize="13a"),
        chrf(hypotheses, data.test.target),
        math.exp(nll / tokens),
        math.exp(nll / chars),
        hypotheses,
    )


# ---------------------------------------------------------------- Table 3


class PaperRow(NamedTuple):
    """A row of the paper's Table 3 (newstest2013, the English–German development set)."""

    variation: str
    ppl: float  # perplexity per word piece
    bleu: float
    params_millions: float | None  # where the paper prints it


class Variation(NamedTuple):
    """One line of the miniature Table 3: what changes from the base, and the paper's
    nearest row in the same direction (``None``: a line the paper does not have)."""

    row: str  # "base", "A" … "E", as in the paper
    name: str
    changes: dict[str, Any]  # arguments of train_number_model (config fields or training)
    paper: PaperRow | None


PAPER_BASE = PaperRow("base: N=6, d_model=512, d_ff=2048, h=8, d_k=d_v=64", 4.92, 25.8, 65)
PAPER_BIG = PaperRow("big: N=6, d_model=1024, d_ff=4096, h=16, P_drop=0.3", 4.33, 26.4, 213)

TABLE3: list[Variation] = [
    Variation("base", "base", {}, PAPER_BASE),
    Variation("A", "h=1, d_k=d_v=64", {"h": 1}, PaperRow("h=1, d_k=d_v=512", 5.29, 24.9, None)),
    Variation("A", "h=2, d_k=d_v=32", {"h": 2}, PaperRow("h=4, d_k=d_v=128", 5.00, 25.5, None)),
    Variation("A", "h=8, d_k=d_v=8", {"h": 8}, PaperRow("h=16, d_k=d_v=32", 4.91, 25.8, None)),
    Variation("A", "h=16, d_k=d_v=4", {"h": 16}, PaperRow("h=32, d_k=d_v=16", 5.01, 25.4, None)),
    Variation("B", "d_k=8", {"d_k": 8}, PaperRow("d_k=32", 5.01, 25.4, 60)),
    Variation("B", "d_k=4", {"d_k": 4}, PaperRow("d_k=16", 5.16, 25.1, 58)),
    Variation("C", "N=1", {"N": 1}, PaperRow("N=2", 6.11, 23.7, 36)),
    Variation("C", "N=4", {"N": 4}, PaperRow("N=8", 4.88, 25.5, 80)),
    Variation("C", "N=4, pre-LN", {"N": 4, "norm_first": True}, None),
    Variation(
        "C",
        "d_model=32, d_k=d_v=8",
        {"d_model": 32},
        PaperRow("d_model=256, d_k=d_v=32", 5.75, 24.5, 28),
    ),
    Variation(
        "C",
        "d_model=128, d_k=d_v=32",
        {"d_model": 128},
        PaperRow("d_model=1024, d_k=d_v=128", 4.66, 26.0, 168),
    ),
    Variation("C", "d_ff=128", {"d_ff": 128}, PaperRow("d_ff=1024", 5.12, 25.4, 53)),
    Variation("C", "d_ff=512", {"d_ff": 512}, PaperRow("d_ff=4096", 4.75, 26.2, 90)),
    Variation("D", "P_drop=0.0", {"dropout": 0.0}, PaperRow("P_drop=0.0", 5.77, 24.6, None)),
    Variation("D", "P_drop=0.2", {"dropout": 0.2}, PaperRow("P_drop=0.2", 4.95, 25.5, None)),
    Variation("D", "ε_ls=0.0", {"label_smoothing": 0.0}, PaperRow("ε_ls=0.0", 4.67, 25.3, None)),
    Variation("D", "ε_ls=0.2", {"label_smoothing": 0.2}, PaperRow("ε_ls=0.2", 5.47, 25.7, None)),
    Variation(
        "E",
        "learned positions",
        {"positional": "learned"},
        PaperRow("positional embedding instead of sinusoids", 4.92, 25.7, None),
    ),
]

#: The base with other tokenisations, and with batches grouped by length (beside Table 3).
VARIANTS_BESIDE: list[Variation] = [
    Variation("tokens", "characters", {"tokenizer": "char"}, None),
    Variation("tokens", "BPE, 100 pieces", {"vocab_size": 100}, None),
    Variation("tokens", "BPE, 300 pieces", {"vocab_size": 300}, None),
    Variation("batches", "grouped by length (pools of 8)", {"pool": 8}, None),
]

_DATA_ARGS = ("tokenizer", "vocab_size")


def variation(row: str, name: str) -> Variation:
    """The variation of ``TABLE3`` or :data:`VARIANTS_BESIDE` called ``(row, name)``."""
    for v in [*TABLE3, *VARIANTS_BESIDE]:
        if (v.row, v.name) == (row, name):
            return v
    known = [(v.row, v.name) for v in [*TABLE3, *VARIANTS_BESIDE]]
    raise ValueError(f"no variation ({row!r}, {name!r}); known: {known}")


def variation_data(v: Variation, base: NumberData | None = None) -> NumberData:
    """The data ``v`` trains on: ``base`` (default :func:`number_data`) unless ``v``
    changes the tokenisation."""
    changes = {k: v.changes[k] for k in _DATA_ARGS if k in v.changes}
    if changes or base is None:
        return number_data(**changes)
    return base


def run_variation(
    v: Variation, seed: int, data: NumberData | None = None, **overrides: Any
) -> dict[str, Any]:
    """Train and score one seed of ``v``; a dict of what the table needs, with the training
    time (wall and CPU seconds, steps per second) and the 1-minute load average.
    ``overrides`` are further arguments of :func:`train_number_model` (``steps=20`` for a
    quick check)."""
    if not isinstance(v, Variation):
        raise TypeError(f"v must be a Variation, got {describe(v)}")
    data = variation_data(v, data)
    changes = {k: x for k, x in v.changes.items() if k not in _DATA_ARGS} | overrides
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else math.nan
    cpu = time.process_time()
    model, history = train_number_model(data, seed=seed, progress=False, **changes)
    cpu = time.process_time() - cpu
    scores = translation_scores(model, data)
    seconds = history.seconds[-1]
    return {
        "row": v.row,
        "name": v.name,
        "seed": seed,
        "params": count_parameters(model),
        "vocab": len(data.tokenizer),
        "train_s": seconds,
        "cpu_s": cpu,
        "steps_per_s": history.steps / seconds,
        "threads": torch.get_num_threads(),
        "load": load,
        **{k: getattr(scores, k) for k in TranslationScores._fields if k != "hypotheses"},
    }


class Summary(NamedTuple):
    """Mean and sample standard deviation over seeds of each measured value of one line."""

    row: str
    name: str
    seeds: int
    params: int
    mean: dict[str, float]
    std: dict[str, float]
    paper: PaperRow | None


def summarise(runs: Sequence[dict[str, Any]]) -> list[Summary]:
    """One :class:`Summary` per (row, name), in ``TABLE3`` order, then the rest."""
    by: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in runs:
        by.setdefault((r["row"], r["name"]), []).append(r)
    order = [(v.row, v.name) for v in [*TABLE3, *VARIANTS_BESIDE]]
    keys = sorted(by, key=lambda k: order.index(k) if k in order else len(order))
    out = []
    for key in keys:
        rs = by[key]
        numeric = [k for k, x in rs[0].items() if isinstance(x, float)]
        mean = {k: statistics.mean(r[k] for r in rs) for k in numeric}
        std = {k: statistics.stdev(r[k] for r in rs) if len(rs) > 1 else math.nan for k in numeric}
        paper = next((v.paper for v in [*TABLE3, *VARIANTS_BESIDE] if (v.row, v.name) == key), None)
        out.append(Summary(*key, len(rs), rs[0]["params"], mean, std, paper))
    return out


def difference_in_se(a: Sequence[float], b: Sequence[float]) -> float:
    """(mean a − mean b) in standard errors of the difference (Welch): beyond ±2 is more
    than seed noise would usually give. (With 3 seeds a side this is a weak test.)"""
    if len(a) < 2 or len(b) < 2:
        raise ValueError(f"need at least two values a side, got {len(a)} and {len(b)}")
    se = math.sqrt(statistics.variance(a) / len(a) + statistics.variance(b) / len(b))
    diff = statistics.mean(a) - statistics.mean(b)
    return diff / se if se > 0 else (0.0 if diff == 0 else math.copysign(math.inf, diff))


# two-sided 95% critical values of Student's t, by degrees of freedom 1–30
_T_975 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip


def student_t_975(df: int) -> float:
    """The two-sided 95% critical value of Student's t with ``df`` degrees of freedom
    (from a table for 1–30; the normal 1.960 beyond, slightly too small)."""
    check_int("df", df)
    return _T_975[df - 1] if df <= len(_T_975) else 1.960


def agrees(live: Sequence[float], committed: Sequence[float]) -> tuple[bool, float, float]:
    """Whether the mean of ``live`` runs lies within seed noise of the mean of the
    ``committed`` runs: a 95% prediction bound, the seed-to-seed variance s² taken from
    the committed runs (so that a single live run can be checked),

        ``|mean live − mean committed| ≤ t_0.975(n − 1) · s · √(1/m + 1/n)``,

    with m live and n committed runs, and Student's t because s comes from only n − 1
    degrees of freedom (with 3 committed seeds t = 4.30, not 2). Returns that, the
    difference and the bound."""
    if len(committed) < 2 or not live:
        raise ValueError(
            f"need >= 2 committed runs and >= 1 live run, got {len(committed)}, {len(live)}"
        )
    variance = statistics.variance(committed)
    t = student_t_975(len(committed) - 1)
    bound = t * math.sqrt(variance / len(live) + variance / len(committed))
    diff = statistics.mean(live) - statistics.mean(committed)
    return abs(diff) <= bound, diff, bound


def load_table3_runs() -> dict[str, Any]:
    """The committed Table 3 sweep (written by ``benchmarks/table3.py``): ``"runs"``, one
    dict per (variation, seed) as :func:`run_variation` returns, and ``"meta"`` (machine,
    threads, load, wall time)."""
    path = resources.files("attnbook").joinpath("results/table3.json")
    return json.loads(path.read_text(encoding="utf-8"))


# ---------------------------------------------------------------- Table 2


class TrainingCost(NamedTuple):
    """Training cost of one of the paper's models: the floating-point operations its training
    takes (counted from the formulas) beside Table 2's figure, which the paper estimates as
    training time × number of GPUs × an assumed sustained speed per GPU (§6.1): GPU time
    weighted by nominal speed, not an operation count."""

    parameters: int
    steps: int
    counted_flops: float  # training_flops(): the arithmetic
    paper_method_flops: float  # GPU-hours × assumed sustained FLOP/s per GPU (§6.1)
    table2_flops: float  # what Table 2 prints
    gpus: int
    hours: float
    utilisation: float  # counted / paper_method: the share of peak the arithmetic implies


P100_FLOPS = 9.5e12  # §6.1: the sustained single precision the paper assumes for a P100
PAPER_TRAINING = {  # §5.2, Table 2 (EN–DE, EN–FR BLEU on newstest2014)
    "base": dict(steps=100_000, gpus=8, hours=12.0, flops=3.3e18, bleu_de=27.3, bleu_fr=38.1),
    "big": dict(steps=300_000, gpus=8, hours=3.5 * 24, flops=2.3e19, bleu_de=28.4, bleu_fr=41.8),
}
PAPER_CHECKPOINTS_AVERAGED = {"base": 5, "big": 20}  # §6.1: the last 5 or 20, 10 minutes apart


def training_flops(
    config: TransformerConfig,
    src_tokens: float,
    tgt_tokens: float,
    steps: int,
    src_len: float,
    tgt_len: float | None = None,
) -> float:
    """Floating-point operations to train ``config`` for ``steps`` steps of ``src_tokens``
    source and ``tgt_tokens`` target tokens, sentences ``src_len`` and ``tgt_len`` long.

    A product of an input row with a (d_in × d_out) weight costs 2 d_in d_out FLOPs (one
    multiply, one add), and a training step costs about three forward passes (the backward
    pass, twice the forward). Per forward pass:

    - each source token: the encoder layers' weights, and the W_K, W_V of every decoder
      layer's cross-attention (they project the encoder output);
    - each target token: the rest of the decoder layers' weights and the output projection
      (d_model × vocab); embedding look-ups cost nothing;
    - attention scores: Q Kᵀ and the weighted sum of V, 2 · T_k · h · (d_k + d_v) per query
      per layer (4 · T_k · d_model in the paper's models), for self-attention in both stacks
      and cross-attention in the decoder.

    Biases and LayerNorms count as weights of their stack (a slight overcount).
    """
    if not isinstance(config, TransformerConfig):
        raise TypeError(f"config must be a TransformerConfig, got {describe(config)}")
    tgt_len = src_len if tgt_len is None else tgt_len
    with torch.device("meta"):  # shapes only: no memory, no initialisation
        model = Transformer(config)
    d, N = config.d_model, config.N
    cross_kv = N * (d * config.h * config.d_k + config.h * config.d_k)  # W_K (+ bias)
    cross_kv += N * (d * config.h * config.d_v + config.h * config.d_v)  # W_V (+ bias)
    encoder = count_parameters(model.encoder)
    decoder = count_parameters(model.decoder) - cross_kv
    output = d * config.tgt_vocab + config.tgt_vocab  # the output projection and its bias
    scores = 2 * config.h * (config.d_k + config.d_v)  # per query per key per layer
    per_source = 2 * (encoder + cross_kv) + N * scores * src_len
    per_target = 2 * (decoder + output) + N * scores * (tgt_len + src_len)
    return float(3 * (per_source * src_tokens + per_target * tgt_tokens) * steps)


def paper_training_cost(
    model: str = "base", vocab: int = 37_000, mean_len: int = 25
) -> TrainingCost:
    """Table 2's training cost of the paper's ``"base"`` or ``"big"`` model, counted with
    :func:`training_flops` and as the paper estimated it (training time × GPUs × 9.5
    TFLOPS assumed per P100, §6.1).

    Assumptions (§5.1, §5.2): 25,000 source and 25,000 target tokens per step ("approximately
    25000 source tokens and 25000 target tokens"), 100K steps (base) or 300K (big), one
    shared vocabulary of ``vocab`` tokens (37,000 for English–German), sentences of
    ``mean_len`` tokens for the attention scores.
    """
    if model not in PAPER_TRAINING:
        raise ValueError(f"model must be one of {sorted(PAPER_TRAINING)}, got {model!r}")
    config = (TransformerConfig.base if model == "base" else TransformerConfig.big)(vocab)
    paper = PAPER_TRAINING[model]
    counted = training_flops(config, 25_000, 25_000, paper["steps"], mean_len)
    paper_method = paper["gpus"] * paper["hours"] * 3600 * P100_FLOPS
    with torch.device("meta"):
        parameters = count_parameters(Transformer(config))
    return TrainingCost(
        parameters,
        paper["steps"],
        counted,
        paper_method,
        paper["flops"],
        paper["gpus"],
        paper["hours"],
        counted / paper_method,
    )
