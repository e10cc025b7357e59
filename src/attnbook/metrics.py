"""How good and how honest a model's next-token probabilities are: accuracy, perplexity,
and calibration (expected calibration error and reliability bins, Guo et al., 2017); and
how good its translations are: exact match, BLEU (Papineni et al., 2002) and chrF
(Popović, 2015), computed by ``sacrebleu``.

Every function takes the logits and targets, or the texts, a model returned; none runs a
model.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import torch
from torch import Tensor

from attnbook.checks import check_int, check_tensor, check_texts


class TokenPredictions(NamedTuple):
    """One entry per scored target token, each a flat ``(n,)`` tensor."""

    confidence: Tensor  # max_k p(k): the probability of the predicted token
    correct: Tensor  # bool: the predicted token is the target
    nll: Tensor  # −log p(y): the negative log-likelihood of the target


def _check_logits(logits: Tensor, target: Tensor, ignore_index: int | None) -> None:
    check_tensor("logits", logits, kind="float", hint="(*, V)")
    check_tensor("target", target, kind="long", hint="(*)")
    if logits.dim() < 1 or logits.shape[:-1] != target.shape:
        raise ValueError(
            f"logits must be (*, V) and target (*), got {tuple(logits.shape)} and "
            f"{tuple(target.shape)}"
        )
    if ignore_index is not None:
        check_int("ignore_index", ignore_index, minimum=None)
    scored = target if ignore_index is None else target[target != ignore_index]
    V = logits.size(-1)
    if scored.numel() and (scored.min() < 0 or scored.max() >= V):
        raise ValueError(
            f"target holds ids in [{int(scored.min())}, {int(scored.max())}], outside the "
            f"V={V} classes of logits {tuple(logits.shape)}"
            + ("" if ignore_index is None else f" (ignore_index={ignore_index} aside)")
        )


def token_predictions(
    logits: Tensor, target: Tensor, ignore_index: int | None = None
) -> TokenPredictions:
    """Confidence, correctness and −log p(y) of every target not equal to ``ignore_index``.

    ``logits`` ``(*, V)``, ``target`` ``(*)``; ``p = softmax(logits)`` in float32 or wider.
    """
    _check_logits(logits, target, ignore_index)
    keep = torch.ones_like(target, dtype=torch.bool)
    if ignore_index is not None:
        keep = target != ignore_index
    if not keep.any():
        raise ValueError("no target left to score: every target equals ignore_index")
    logits = logits[keep]  # (n, V)
    logits = logits.float() if logits.dtype in (torch.float16, torch.bfloat16) else logits
    y = target[keep]  # (n,)
    log_p = torch.log_softmax(logits, dim=-1)  # (n, V)
    best_log_p, predicted = log_p.max(dim=-1)  # (n,), (n,)
    nll = -log_p.gather(-1, y[:, None]).squeeze(-1)  # (n,)
    return TokenPredictions(best_log_p.exp(), predicted == y, nll)


def perplexity(logits: Tensor, target: Tensor, ignore_index: int | None = None) -> float:
    """exp(−(1/n) Σ log p(yᵢ)): the exponentiated mean cross-entropy of the true tokens.

    §6.2 of the paper reports perplexities per wordpiece; label smoothing raises them.
    """
    nll = token_predictions(logits, target, ignore_index).nll  # (n,)
    return nll.mean().exp().item()


def _check_confidence(confidence: Tensor, correct: Tensor, n_bins: int) -> None:
    check_tensor("confidence", confidence, 1, "float", "(n,)")
    check_tensor("correct", correct, 1, hint="(n,)")
    if confidence.dim() != 1 or confidence.shape != correct.shape:
        raise ValueError(
            "confidence and correct must be flat tensors of one length, got "
            f"{tuple(confidence.shape)} and {tuple(correct.shape)}"
        )
    if confidence.numel() == 0:
        raise ValueError("need at least one prediction")
    if confidence.min() < 0 or confidence.max() > 1:
        raise ValueError(
            f"confidences must lie in [0, 1], got [{confidence.min():.4g}, {confidence.max():.4g}]"
        )
    check_int("n_bins", n_bins)


class ReliabilityBins(NamedTuple):
    """Per equal-width confidence bin ((m−1)/M, m/M]: its predictions' mean confidence,
    their accuracy, and how many there are (empty bins: NaN, NaN, 0)."""

    confidence: Tensor  # (M,)
    accuracy: Tensor  # (M,)
    count: Tensor  # (M,)


def reliability_bins(confidence: Tensor, correct: Tensor, n_bins: int = 15) -> ReliabilityBins:
    """The reliability diagram of Guo et al. (2017), §2: ``n_bins`` equal-width bins of
    confidence, each with its mean confidence conf(B_m) and accuracy acc(B_m)."""
    _check_confidence(confidence, correct, n_bins)
    confidence = confidence.double()
    index = (torch.ceil(confidence * n_bins).long() - 1).clamp(0, n_bins - 1)  # (n,)
    count = torch.bincount(index, minlength=n_bins)  # (M,)
    conf_sum = torch.bincount(index, weights=confidence, minlength=n_bins)
    right = torch.bincount(index, weights=correct.double(), minlength=n_bins)
    return ReliabilityBins(conf_sum / count, right / count, count)  # 0/0 = NaN when empty


def expected_calibration_error(confidence: Tensor, correct: Tensor, n_bins: int = 15) -> float:
    """``ECE = Σ_m (|B_m| / n) · |acc(B_m) − conf(B_m)|`` — Guo et al. (2017), Eq. (3).

    0 for a calibrated model (among predictions made with confidence c, a fraction c is
    right); M = 15 bins as in the paper.
    """
    bins = reliability_bins(confidence, correct, n_bins)
    full = bins.count > 0
    weight = bins.count[full].double() / confidence.numel()
    return (weight * (bins.accuracy[full] - bins.confidence[full]).abs()).sum().item()


# ---------------------------------------------------------------- translations


def _check_translations(hypotheses: object, references: object) -> tuple[list[str], list[str]]:
    hypotheses = check_texts("hypotheses", hypotheses)
    references = check_texts("references", references)
    if len(hypotheses) != len(references) or not hypotheses:
        raise ValueError(
            "need one reference per hypothesis and at least one of each, got "
            f"{len(hypotheses)} hypotheses and {len(references)} references"
        )
    return hypotheses, references


def exact_match(hypotheses: Sequence[str], references: Sequence[str]) -> float:
    """The fraction of hypotheses identical to their reference."""
    hypotheses, references = _check_translations(hypotheses, references)
    return sum(h == r for h, r in zip(hypotheses, references)) / len(references)


BLEU_TOKENIZERS = ("char", "13a", "intl", "zh", "none")


def bleu(hypotheses: Sequence[str], references: Sequence[str], tokenize: str = "char") -> float:
    """Corpus BLEU in [0, 100], one reference per hypothesis (``sacrebleu.corpus_bleu``).

        BLEU = BP · exp(Σ_{n=1..4} ¼ log p_n),   BP = min(1, exp(1 − r / c))

    p_n is the clipped n-gram precision of the whole corpus (each hypothesis n-gram counts
    at most as often as it occurs in its reference), r and c the reference and hypothesis
    lengths. The n-grams are of the units ``tokenize`` cuts the text into: ``"13a"`` (words,
    sacrebleu's default tokenisation of detokenised text), or ``"char"`` (characters; white
    space is dropped). The paper's English–German scores were computed another way:
    tensor2tensor's ``get_ende_bleu.sh`` tokenises with the Moses tokeniser, splits
    hyphenated compounds and scores with ``multi-bleu.perl``, a tokenised BLEU that
    sacrebleu's ``"13a"`` does not reproduce exactly (Post, 2018). On a corpus of one-word
    sentences, such as most German number words, word BLEU counts no 2-, 3- or 4-grams and
    is 0 even when every sentence is right; character BLEU gives partial credit.
    """
    import sacrebleu

    hypotheses, references = _check_translations(hypotheses, references)
    if tokenize not in BLEU_TOKENIZERS:
        raise ValueError(f"tokenize must be one of {BLEU_TOKENIZERS}, got {tokenize!r}")
    return sacrebleu.corpus_bleu(hypotheses, [references], tokenize=tokenize).score


def chrf(hypotheses: Sequence[str], references: Sequence[str]) -> float:
    """Corpus chrF in [0, 100] (``sacrebleu.corpus_chrf``): the F-score (β = 2, recall
    weighted twice) of character n-grams, n = 1…6, white space ignored."""
    import sacrebleu

    hypotheses, references = _check_translations(hypotheses, references)
    return sacrebleu.corpus_chrf(hypotheses, [references]).score
