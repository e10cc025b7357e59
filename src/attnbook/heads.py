"""Multi-head attention at work — §3.2.2 of the paper.

MultiHead(Q, K, V) = Concat(head_1, …, head_h) W_O,  head_i = Attention(Q W_Q_i, K W_K_i, V W_V_i).

This module holds what the multi-head chapter trains and takes apart:

- :func:`attention_parameter_count`, the closed form of the parameter count;
- the shift-cipher task (:func:`attnbook.data.sequences.cipher_batch`), whose every output needs
  *two* relations at once (the previous token, and a marked key token further back);
- :class:`CipherModel`, one layer of multi-head self-attention plus a small read-out;
- :func:`head_contributions`, the output split into one term per head
  (Concat(head_1, …, head_h) W_O = Σ_i head_i W_O_i);
- :func:`ablate_heads` and :func:`head_ablation`, which remove heads and measure the damage
  with the read-out left as it was trained, and :func:`refit_readout`, which trains the
  read-out again for the heads that are left (what the heads carry, not what the old
  read-out expects).

Nothing here keeps state between calls: every function returns what it computed.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from attnbook.attention import MultiHeadAttention, causal_mask
from attnbook.checks import check_float, check_int, check_tensor
from attnbook.data.sequences import CipherBatch, cipher_batch
from attnbook.data.vocab import IGNORE_INDEX
from attnbook.positional import LearnedPositionalEncoding
from attnbook.train import History, fit
from attnbook.utils import num_threads


def attention_parameter_count(
    d_model: int, h: int, d_k: int | None = None, d_v: int | None = None, bias: bool = True
) -> int:
    """Parameters of one multi-head attention layer with separate W_Q, W_K, W_V, W_O (§3.2.2).

    W_Q_i, W_K_i ∈ ℝ^{d_model×d_k}, W_V_i ∈ ℝ^{d_model×d_v} for each of the h heads, and
    W_O ∈ ℝ^{h·d_v×d_model}; with ``bias`` every projection has its bias vector too.
    With the paper's d_k = d_v = d_model/h (the default) the total is
    4·d_model² + 4·d_model whatever h is.
    """
    check_int("d_model", d_model)
    check_int("h", h)
    if d_k is None or d_v is None:
        if d_model % h != 0:
            raise ValueError(f"d_model={d_model} is not divisible by h={h}: d_k = d_model / h")
        d_k = d_model // h if d_k is None else d_k
        d_v = d_model // h if d_v is None else d_v
    check_int("d_k", d_k)
    check_int("d_v", d_v)
    weights = 2 * d_model * h * d_k + d_model * h * d_v + h * d_v * d_model  # W_Q, W_K, W_V, W_O
    biases = 2 * h * d_k + h * d_v + d_model if bias else 0
    return weights + biases


class CipherModel(nn.Module):
    """One layer of causal multi-head self-attention and a position-wise read-out.

    x_i = E[token_i] + M[marked_i] + P_i   (token, marker and learned position embeddings)
    a = MultiHead(x, x, x) with a causal mask (§3.2.2, §3.2.3)
    logits_i = W_2 · max(0, W_1 · LayerNorm(x_i + a_i))

    One layer means the read-out at position i sees the other tokens only through
    what the heads bring: whatever the heads do is all the model does across positions.
    """

    def __init__(self, K: int, d_model: int = 32, h: int = 4, max_len: int = 16, d_ff: int = 64):
        super().__init__()
        for name, value in (("K", K), ("d_model", d_model), ("max_len", max_len), ("d_ff", d_ff)):
            check_int(name, value)
        self.K, self.d_model, self.h = K, d_model, h
        self.embed = nn.Embedding(K, d_model)  # E: one vector per digit
        self.marker = nn.Embedding(2, d_model)  # M: "not the key" / "the key", like BERT's segments
        self.positions = LearnedPositionalEncoding(d_model, max_len)  # x + P[:T]
        self.attention = MultiHeadAttention(d_model, h)  # raises if d_model % h != 0
        self.norm = nn.LayerNorm(d_model)
        self.W_1 = nn.Linear(d_model, d_ff)
        self.W_2 = nn.Linear(d_ff, K)

    def embed_inputs(self, tokens: Tensor, marked: Tensor) -> Tensor:
        """x = E[tokens] + M[marked] + P: ``(B, T)`` ids → ``(B, T, d_model)``."""
        check_tensor("tokens", tokens, 2, "long", "(B, T)")
        check_tensor("marked", marked, 2, "long", "(B, T)")
        if tokens.numel() and (tokens.min() < 0 or tokens.max() >= self.K):
            raise ValueError(
                f"tokens must be digits in [0, K={self.K}), got [{int(tokens.min())}, "
                f"{int(tokens.max())}]"
            )
        if tokens.shape != marked.shape:
            raise ValueError(
                f"tokens and marked must both be (B, T), got {tuple(tokens.shape)} "
                f"and {tuple(marked.shape)}"
            )
        return self.positions(self.embed(tokens) + self.marker(marked))  # (B, T, d_model)

    def forward(
        self, tokens: Tensor, marked: Tensor, need_weights: bool = True
    ) -> tuple[Tensor, Tensor | None]:
        """Logits ``(B, T, K)`` and the heads' weights ``(B, h, T, T)`` (``None`` with
        ``need_weights=False``)."""
        x = self.embed_inputs(tokens, marked)  # (B, T, d_model)
        mask = causal_mask(tokens.size(1), device=tokens.device)  # (T, T)
        a, weights = self.attention(x, x, x, mask, need_weights)  # (B, T, d_model), (B, h, T, T)
        return self.read_out(x, a), weights  # (B, T, K), (B, h, T, T)

    def read_out(self, x: Tensor, a: Tensor) -> Tensor:
        """logits = W_2 · max(0, W_1 · LayerNorm(x + a)), position by position: ``(*, K)``.

        ``x`` is the embedded input and ``a`` the attention layer's output, both
        ``(*, d_model)``: the read-out sees the other tokens only through ``a``.
        """
        hidden = torch.relu(self.W_1(self.norm(x + a)))  # (*, d_ff)
        return self.W_2(hidden)  # (*, K)


def head_contributions(
    attention: MultiHeadAttention,
    query: Tensor,
    key: Tensor,
    value: Tensor,
    mask: Tensor | None = None,
) -> tuple[Tensor, Tensor]:
    """Each head's share of the output: Concat(head_1, …, head_h) W_O = Σ_i head_i W_O_i.

    W_O_i is the block of d_v rows of W_O ∈ ℝ^{h·d_v×d_model} that head i's output
    multiplies (nn.Linear stores W_Oᵀ, so: columns i·d_v … (i+1)·d_v − 1 of its weight).

    Returns ``(contributions, weights)``: ``(B, h, T_q, d_model)`` and ``(B, h, T_q, T_k)``.
    ``contributions.sum(1) + attention.W_O.bias`` is the layer's output. The split is of
    the layer as it runs at test time: with dropout active it would not add up.
    """
    if attention.training and attention.dropout.p > 0:
        raise ValueError(
            f"attention dropout p={attention.dropout.p} is active: call .eval() first, "
            "the per-head split is of the test-time layer"
        )
    _, weights = attention(query, key, value, mask=mask)  # (B, h, T_q, T_k); checks the input
    B, T_k, _ = value.shape
    h, d_k = attention.h, attention.d_k
    v = attention.W_V(value).view(B, T_k, h, d_k).transpose(1, 2)  # (B, h, T_k, d_k)
    heads = weights @ v  # (B, h, T_q, d_k): head_i for every i
    W_O = attention.W_O.weight.view(attention.d_model, h, d_k)  # (d_model, h, d_k): W_O_iᵀ
    contributions = torch.einsum("bhqk,dhk->bhqd", heads, W_O)  # (B, h, T_q, d_model)
    return contributions, weights


def _check_heads(heads: Iterable[int], h: int) -> list[int]:
    heads = sorted(set(heads))
    if any(not 0 <= i < h for i in heads):
        raise ValueError(f"head indices must lie in 0 … {h - 1}, got {heads}")
    return heads


def ablate_heads(model: CipherModel, heads: Iterable[int], rescale: bool = False) -> CipherModel:
    """A copy of ``model`` with the given heads removed (Michel et al. 2019's ξ_i = 0).

    Removing head i zeroes its block W_O_i, so head_i W_O_i = 0 and the other
    heads' terms are untouched. With ``rescale``, the k heads that are left are
    multiplied by h / k instead, so that their sum keeps the size of the sum of all h
    terms the read-out was trained on (as dropout rescales the units it keeps).
    ``model`` itself is not changed.
    """
    heads = _check_heads(heads, model.h)
    if len(heads) == model.h:
        raise ValueError(f"removing every head {heads} leaves nothing: keep at least one")
    ablated = copy.deepcopy(model)
    d_k = ablated.attention.d_k
    factor = model.h / (model.h - len(heads)) if rescale else 1.0
    with torch.no_grad():
        ablated.attention.W_O.weight.mul_(factor)
        for i in heads:
            ablated.attention.W_O.weight[:, i * d_k : (i + 1) * d_k] = 0.0
    return ablated


@torch.no_grad()
def predictions(model: CipherModel, batch: CipherBatch) -> Tensor:
    """The model's answer at every position, ``(B, T)`` (switches ``model`` to eval mode)."""
    model.eval()
    logits, _ = model(batch.tokens, batch.marked)
    return logits.argmax(dim=-1)


def accuracy(model: CipherModel, batch: CipherBatch) -> float:
    """Fraction of the positions with an answer that the model gets right."""
    answered = batch.targets != IGNORE_INDEX
    correct = predictions(model, batch) == batch.targets
    return correct[answered].float().mean().item()


def head_ablation(model: CipherModel, batch: CipherBatch) -> Tensor:
    """Accuracy with each head removed in turn: ``(h,)``; compare with :func:`accuracy`."""
    return torch.tensor([accuracy(ablate_heads(model, [i]), batch) for i in range(model.h)])


def subset_predictions(model: CipherModel, batch: CipherBatch) -> Tensor:
    """Answers when only a subset of the heads is kept, for every non-empty subset.

    Row ``s − 1`` keeps the heads whose bit is set in ``s`` (s = 1 … 2^h − 1; the last
    row keeps them all). Returns ``(2^h − 1, B, T)``.
    """
    if model.h > 6:
        raise ValueError(f"2^h − 1 subsets is too many for h={model.h}; use h <= 6")
    rows = []
    for s in range(1, 2**model.h):
        removed = [i for i in range(model.h) if not s >> i & 1]
        rows.append(predictions(ablate_heads(model, removed), batch))
    return torch.stack(rows)  # (2^h − 1, B, T)


def refit_readout(
    model: CipherModel,
    heads: Iterable[int],
    batch: CipherBatch,
    steps: int = 300,
    batch_size: int = 2048,
    lr: float = 3e-2,
    seed: int = 0,
) -> tuple[CipherModel, History]:
    """A copy of ``model`` with ``heads`` removed and its read-out trained again.

    The embeddings and the attention layer stay as they are (the removed heads' blocks
    W_O_i are zero, as in :func:`ablate_heads`); the read-out (LayerNorm, W_1, W_2),
    starting from its trained weights, takes ``steps`` steps of Adam (β = 0.9, 0.98) on
    the answered positions of ``batch``, ``batch_size`` positions at a time, drawn with a
    generator seeded with ``seed``. Removing a head with the old read-out measures how
    much that read-out relies on the head's term; with a read-out fitted to the heads
    that are left, what those heads still carry. Returns the copy and the refit's History.
    """
    if not isinstance(model, CipherModel):
        raise TypeError(f"model must be a CipherModel, got {type(model).__name__}")
    if not isinstance(batch, CipherBatch):
        raise TypeError(f"batch must be a CipherBatch, got {type(batch).__name__}")
    check_int("steps", steps)
    check_int("batch_size", batch_size)
    check_float("lr", lr, 0.0, low_open=True)
    check_int("seed", seed, minimum=0)
    refit = ablate_heads(model, heads).eval()
    with torch.no_grad():
        x = refit.embed_inputs(batch.tokens, batch.marked)  # (B, T, d_model)
        mask = causal_mask(x.size(1), device=x.device)  # (T, T)
        a, _ = refit.attention(x, x, x, mask, need_weights=False)  # (B, T, d_model)
    answered = batch.targets != IGNORE_INDEX  # (B, T)
    x, a, y = x[answered], a[answered], batch.targets[answered]  # (n, d_model), …, (n,)
    readout = [*refit.norm.parameters(), *refit.W_1.parameters(), *refit.W_2.parameters()]
    for p in refit.parameters():
        p.requires_grad_(False)
    for p in readout:
        p.requires_grad_(True)
    generator = torch.Generator().manual_seed(seed)
    picks = iter(lambda: torch.randint(0, len(y), (batch_size,), generator=generator), None)

    def loss_fn(m: CipherModel, i: Tensor) -> Tensor:
        return F.cross_entropy(m.read_out(x[i], a[i]), y[i])  # i: (batch_size,) positions

    adam = dict(optimizer="adam", betas=(0.9, 0.98), eps=1e-8)
    history = fit(refit, picks, loss_fn, steps, lr, **adam, progress=False)
    for p in refit.parameters():
        p.requires_grad_(True)
    return refit.eval(), history


def relation_weights(weights: Tensor, batch: CipherBatch) -> Tensor:
    """Each head's mean weight on the two relations the task needs: ``(h, 2)``.

    Column 0: the weight of query i on key i − 1 (the previous token); column 1: on
    the marked key. Averaged over the positions that have an answer.
    """
    B, T = batch.tokens.shape
    if weights.dim() != 4 or weights.size(0) != B or weights.shape[-2:] != (T, T):
        raise ValueError(
            f"weights must be (B, h, T, T) for tokens {tuple(batch.tokens.shape)}, "
            f"got {tuple(weights.shape)}"
        )
    answered = (batch.targets != IGNORE_INDEX).float()  # (B, T)
    on_previous = weights.diagonal(offset=-1, dim1=-2, dim2=-1)  # (B, h, T − 1): w[i, i − 1]
    on_previous = F.pad(on_previous, (1, 0))  # (B, h, T): query 0 has no previous token
    on_key = (weights * batch.marked[:, None, None, :]).sum(-1)  # (B, h, T)
    n = answered.sum()
    return torch.stack(
        [
            (on_previous * answered[:, None]).sum((0, 2)) / n,
            (on_key * answered[:, None]).sum((0, 2)) / n,
        ],
        dim=-1,
    )  # (h, 2)


def cipher_loss(model: CipherModel, batch: CipherBatch) -> Tensor:
    """Cross-entropy of the answers, positions without one (``IGNORE_INDEX``) left out."""
    logits, _ = model(batch.tokens, batch.marked, need_weights=False)  # (B, T, K)
    return F.cross_entropy(
        logits.reshape(-1, model.K), batch.targets.reshape(-1), ignore_index=IGNORE_INDEX
    )


def train_cipher_model(
    model: CipherModel,
    steps: int = 1000,
    batch_size: int = 64,
    lr: float = 3e-3,
    seed: int = 0,
    T: int = 16,
    key_span: int = 3,
    progress: bool = True,
    desc: str = "training",
    threads: int | None = 1,
) -> History:
    """Adam (β = 0.9, 0.98, as in §5.3) at a constant ``lr`` on fresh batches of the task.

    The batches come from a generator seeded with ``seed``, so two runs with the same
    seed and the same initial model give the same losses. On the CPU the loop runs on
    ``threads`` threads (PyTorch's own setting is restored afterwards; ``None`` leaves it
    alone): a model this small only loses time synchronising more of them.
    """
    if not isinstance(model, CipherModel):
        raise TypeError(f"model must be a CipherModel, got {type(model).__name__}")
    check_int("batch_size", batch_size)
    check_float("lr", lr, 0.0, low_open=True)
    check_int("seed", seed, minimum=0)
    if threads is not None:
        check_int("threads", threads)
    generator = torch.Generator().manual_seed(seed)
    batches = iter(lambda: cipher_batch(batch_size, T, model.K, key_span, generator), None)
    on_cpu = next(model.parameters()).device.type == "cpu"
    adam = dict(optimizer="adam", betas=(0.9, 0.98), eps=1e-8)
    with num_threads(threads if on_cpu else None):
        return fit(model, batches, cipher_loss, steps, lr, **adam, progress=progress, desc=desc)
