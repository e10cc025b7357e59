"""Why divide by √d_k — §3.2.1 of the paper and its footnote 4.

Footnote 4: if the components of q and k are independent with mean 0 and
variance 1, then q·k = Σᵢ qᵢkᵢ has mean 0 and variance d_k. Unscaled, the scores
grow like √d_k and the softmax saturates, where its Jacobian

    J = ∂ softmax(s) / ∂s = diag(p) − p pᵀ

vanishes. This module measures all of that: samples of q·k, the softmax Jacobian
and its norm, the entropy of the weights, saturation statistics for random
queries and keys, and a one-layer attention model (with a free ``scale``) for the
key–value retrieval task (:func:`attnbook.data.retrieval.retrieval_batch`), used to train with
scale 1, 1/√d_k and 1/d_k.

§3.2.1 also names the alternative the paper did not choose: *additive* attention
(Bahdanau et al. 2015), whose score is a feed-forward network with one hidden layer,
e(q, k) = v_aᵀ tanh(W_a q + U_a k) (:class:`AdditiveScore`, :func:`additive_attention`).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import torch
from torch import Tensor, nn

from attnbook.attention import masked_softmax, scaled_dot_product_attention
from attnbook.checks import check_float, check_int, check_tensor

#: The three scalings the chapter compares: the factor multiplying q·k.
SCALINGS: dict[str, str] = {"none": "1", "sqrt": "1/√d_k", "linear": "1/d_k"}


def scale_factor(d_k: int, scaling: str) -> float:
    """The factor on q·k: 1 (``"none"``), 1/√d_k (``"sqrt"``, Eq. 1), 1/d_k (``"linear"``)."""
    check_int("d_k", d_k)
    if scaling == "none":
        return 1.0
    if scaling == "sqrt":
        return 1.0 / math.sqrt(d_k)
    if scaling == "linear":
        return 1.0 / d_k
    raise ValueError(f"scaling must be one of {sorted(SCALINGS)}, got {scaling!r}")


def dot_products(
    d_k: int,
    n: int,
    sigma: float = 1.0,
    generator: torch.Generator | None = None,
    chunk: int = 4096,
) -> Tensor:
    """``n`` samples of q·k = Σᵢ qᵢkᵢ with qᵢ, kᵢ ~ N(0, σ²) independent (footnote 4).

    Mean 0 and variance σ⁴·d_k. Drawn ``chunk`` pairs at a time to bound memory.
    Returns a float32 tensor of shape ``(n,)``.
    """
    check_int("d_k", d_k)
    check_int("n", n)
    check_float("sigma", sigma, 0.0, low_open=True)
    check_int("chunk", chunk)
    out = []
    for start in range(0, n, chunk):
        m = min(chunk, n - start)
        q = sigma * torch.randn(m, d_k, generator=generator)  # (m, d_k)
        k = sigma * torch.randn(m, d_k, generator=generator)  # (m, d_k)
        out.append((q * k).sum(dim=-1))  # (m,)
    return torch.cat(out)  # (n,)


def entropy(p: Tensor, dim: int = -1) -> Tensor:
    """H(p) = −Σⱼ pⱼ log pⱼ in nats along ``dim`` (0·log 0 = 0); between 0 and log T."""
    check_tensor("p", p, kind="float")
    if (p < 0).any():
        raise ValueError("p must be non-negative: it is a probability distribution")
    return -torch.special.xlogy(p, p).sum(dim=dim)


def _check_scores(scores: Tensor) -> None:
    check_tensor("scores", scores, kind="float", hint="(..., T)")
    if scores.dim() < 1 or scores.size(-1) == 0:
        raise ValueError(f"scores must have shape (..., T) with T ≥ 1, got {tuple(scores.shape)}")


def softmax_jacobian(scores: Tensor) -> Tensor:
    """J = ∂p/∂s = diag(p) − p pᵀ with p = softmax(s), i.e. Jᵢⱼ = pᵢ(δᵢⱼ − pⱼ).

    ``scores`` has shape ``(..., T)``; returns ``(..., T, T)``. J is symmetric and
    its rows sum to 0. It vanishes when p is one-hot (saturated softmax).
    """
    _check_scores(scores)
    p = torch.softmax(scores, dim=-1)  # (..., T)
    return torch.diag_embed(p) - p.unsqueeze(-1) * p.unsqueeze(-2)  # (..., T, T)


def softmax_jacobian_norm(scores: Tensor, ord: str | float = "fro") -> Tensor:
    """‖diag(p) − p pᵀ‖ for p = softmax(scores), shape ``(...)``.

    ``ord`` is passed to :func:`torch.linalg.matrix_norm`: ``"fro"`` (default) or
    ``2`` (the spectral norm, the largest factor by which J stretches a gradient).
    """
    return torch.linalg.matrix_norm(softmax_jacobian(scores), ord=ord)


class Saturation(NamedTuple):
    """Per-query statistics of softmax(scale · q Kᵀ); each field has shape ``(n,)``."""

    max_weight: Tensor  # maxⱼ pⱼ: 1/T when uniform, 1 when one-hot
    entropy: Tensor  # H(p) in nats: log T when uniform, 0 when one-hot
    jacobian_norm: Tensor  # ‖∂p/∂s‖_F = ‖diag(p) − p pᵀ‖_F: the gradient reaching the scores
    query_jacobian_norm: Tensor  # ‖∂p/∂q‖_F = ‖J · scale · K‖_F: the gradient reaching the query
    logit_std: Tensor  # standard deviation of the T scores of each query


def softmax_saturation(
    d_k: int,
    scale: float,
    T: int = 16,
    n: int = 1000,
    generator: torch.Generator | None = None,
    chunk: int = 256,
) -> Saturation:
    """How saturated softmax(scale · q·kⱼ) is for random q, k₁..k_T ~ N(0, I_{d_k}).

    Draws ``n`` independent queries, each with its own ``T`` keys, and returns the
    :class:`Saturation` statistics of each query's weights p = softmax(s),
    sⱼ = scale · q·kⱼ. Since s = scale · K q, the chain rule gives
    ∂p/∂q = J · scale · K with J = diag(p) − p pᵀ.
    """
    check_int("d_k", d_k)
    check_int("T", T, minimum=2)
    check_int("n", n)
    check_float("scale", scale, 0.0, low_open=True)
    parts = []
    for start in range(0, n, chunk):
        m = min(chunk, n - start)
        q = torch.randn(m, d_k, 1, generator=generator)  # (m, d_k, 1)
        K = torch.randn(m, T, d_k, generator=generator)  # (m, T, d_k)
        s = scale * (K @ q).squeeze(-1)  # (m, T): the scores
        p = torch.softmax(s, dim=-1)  # (m, T)
        J = softmax_jacobian(s)  # (m, T, T)
        dp_dq = J @ (scale * K)  # (m, T, d_k)
        parts.append(
            torch.stack(
                [
                    p.max(dim=-1).values,
                    entropy(p),
                    torch.linalg.matrix_norm(J),
                    torch.linalg.matrix_norm(dp_dq),
                    s.std(dim=-1),
                ]
            )
        )  # (5, m)
    return Saturation(*torch.cat(parts, dim=1))


class AdditiveScore(nn.Module):
    """e(q, k) = v_aᵀ tanh(W_a q + U_a k): the additive compatibility function (§3.2.1).

    The score of Bahdanau et al. (2015) for every query–key pair: a feed-forward network
    with one hidden layer of width ``d_a`` instead of the dot product q·k. The tanh
    bounds each hidden unit, so the scores do not grow with d_k. For one query it is the
    score of :class:`attnbook.rnn.AdditiveAttention`.
    """

    def __init__(self, d_k: int, d_a: int) -> None:
        super().__init__()
        self.d_k, self.d_a = check_int("d_k", d_k), check_int("d_a", d_a)
        self.W_a = nn.Linear(d_k, d_a, bias=False)  # applied to the queries
        self.U_a = nn.Linear(d_k, d_a, bias=False)  # applied to the keys
        self.v_a = nn.Linear(d_a, 1, bias=False)

    def forward(self, q: Tensor, k: Tensor) -> Tensor:
        """``q``: ``(..., T_q, d_k)``, ``k``: ``(..., T_k, d_k)`` → scores ``(..., T_q, T_k)``.

        The hidden layer is a ``(..., T_q, T_k, d_a)`` tensor: d_a numbers per pair where
        the dot product needs one.
        """
        for name, t in (("q", q), ("k", k)):
            check_tensor(name, t, kind="float", hint=f"(..., T, d_k={self.d_k})")
            if t.dim() < 2 or t.size(-1) != self.d_k:
                raise ValueError(
                    f"{name} must have shape (..., T, d_k={self.d_k}), got {tuple(t.shape)}"
                )
        if q.shape[:-2] != k.shape[:-2]:
            raise ValueError(
                f"q and k must share their leading dimensions, got {tuple(q.shape)} and "
                f"{tuple(k.shape)}"
            )
        hidden = torch.tanh(self.W_a(q).unsqueeze(-2) + self.U_a(k).unsqueeze(-3))
        return self.v_a(hidden).squeeze(-1)  # (..., T_q, T_k, d_a) -> (..., T_q, T_k)


def additive_attention(
    q: Tensor, k: Tensor, v: Tensor, score: AdditiveScore, mask: Tensor | None = None
) -> tuple[Tensor, Tensor]:
    """softmax(e(Q, K)) V with the additive score e of ``score`` in place of Q Kᵀ / √d_k.

    Shapes as :func:`attnbook.attention.scaled_dot_product_attention`: ``q`` ``(..., T_q, d_k)``,
    ``k`` ``(..., T_k, d_k)``, ``v`` ``(..., T_k, d_v)``, ``mask`` bool broadcastable to
    ``(..., T_q, T_k)`` (True = may attend). Returns ``(output, weights)``.
    """
    if not isinstance(score, AdditiveScore):
        raise TypeError(f"score must be an AdditiveScore, got {type(score).__name__}")
    check_tensor("v", v, kind="float", hint="(..., T_k, d_v)")
    e = score(q, k)  # (..., T_q, T_k)
    if v.dim() < 2 or v.shape[:-2] != k.shape[:-2] or v.size(-2) != k.size(-2):
        raise ValueError(
            f"v must have shape (..., T_k, d_v) matching k {tuple(k.shape)}, got {tuple(v.shape)}"
        )
    weights = masked_softmax(e, mask)  # (..., T_q, T_k), rows sum to 1 (or 0)
    return weights @ v, weights  # (..., T_q, d_v), (..., T_q, T_k)


class RetrievalAttention(nn.Module):
    """One attention head with a free ``scale``: softmax(scale · q Kᵀ) V, then a readout.

    Pair j is embedded as xⱼ = (E_key[keyⱼ] + E_value[valueⱼ]) / √2 and the query as
    E_key[query]; with N(0, 1) embeddings and W_Q, W_K ~ N(0, 1/d_model), the
    components of q = x W_Q and k = x W_K start with variance ≈ 1: footnote 4's
    assumption. ``scale`` is the factor on the scores (1/√d_k in the paper).

    ``score="additive"`` replaces q·kⱼ by the additive score e(q, kⱼ) of
    :class:`AdditiveScore`, with a hidden layer of ``d_a`` units (default: d_k); the
    scores are then scale · e(q, kⱼ).
    """

    def __init__(
        self,
        d_model: int,
        d_k: int,
        scale: float,
        n_keys: int = 32,
        n_values: int = 16,
        score: str = "dot",
        d_a: int | None = None,
    ) -> None:
        super().__init__()
        for name, value in (
            ("d_model", d_model),
            ("d_k", d_k),
            ("n_keys", n_keys),
            ("n_values", n_values),
        ):
            check_int(name, value)
        check_float("scale", scale, 0.0, low_open=True)
        if score not in ("dot", "additive"):
            raise ValueError(f"score must be 'dot' or 'additive', got {score!r}")
        self.d_model, self.d_k, self.scale = d_model, d_k, float(scale)
        self.E_key = nn.Embedding(n_keys, d_model)
        self.E_value = nn.Embedding(n_values, d_model)
        self.W_Q = nn.Linear(d_model, d_k, bias=False)
        self.W_K = nn.Linear(d_model, d_k, bias=False)
        self.W_V = nn.Linear(d_model, d_model, bias=False)
        self.readout = nn.Linear(d_model, n_values)
        for W in (self.W_Q, self.W_K, self.W_V):
            nn.init.normal_(W.weight, std=1.0 / math.sqrt(d_model))
        self.additive = (
            AdditiveScore(d_k, d_k if d_a is None else d_a) if score == "additive" else None
        )

    def forward(self, keys: Tensor, values: Tensor, query: Tensor) -> tuple[Tensor, Tensor]:
        """``keys``, ``values``: ``(B, T)`` ids; ``query``: ``(B,)``.

        Returns ``(logits, weights)``: ``(B, n_values)`` and ``(B, T)``.
        """
        check_tensor("keys", keys, 2, "long", "(B, T)")
        check_tensor("values", values, 2, "long", "(B, T)")
        check_tensor("query", query, 1, "long", "(B,)")
        if keys.shape != values.shape or query.shape != keys.shape[:1]:
            raise ValueError(
                "keys and values must be (B, T) and query (B,); got "
                f"{tuple(keys.shape)}, {tuple(values.shape)}, {tuple(query.shape)}"
            )
        x = (self.E_key(keys) + self.E_value(values)) / math.sqrt(2)  # (B, T, d_model)
        x_q = self.E_key(query).unsqueeze(1)  # (B, 1, d_model)
        q, k, v = (
            self.W_Q(x_q),
            self.W_K(x),
            self.W_V(x),
        )  # (B, 1, d_k), (B, T, d_k), (B, T, d_model)
        if self.additive is None:
            out, weights = scaled_dot_product_attention(q, k, v, scale=self.scale)
        else:
            weights = torch.softmax(self.scale * self.additive(q, k), dim=-1)  # (B, 1, T)
            out = weights @ v  # (B, 1, d_model)
        return self.readout(out.squeeze(1)), weights.squeeze(1)  # (B, n_values), (B, T)
