"""Sequence models before the Transformer: the recurrence, additive attention, a memory task.

The paper's §1 and §4 contrast self-attention with recurrent layers, which compute

    h_t = f(h_{t-1}, x_t)

one position after the other. This module writes that recurrence as an explicit
loop (:class:`ElmanRNN`), measures how its gradients ‖∂h_T/∂x_t‖ shrink or grow
with the distance T − t (Bengio et al. 1994; Pascanu et al. 2013), and builds the
"traditional" attention the Transformer replaced: an RNN encoder–decoder with the
additive attention of Bahdanau et al. (2015) (:class:`AdditiveAttention`,
:class:`RNNEncoderDecoder`). It also holds the two small models the RNN chapter trains
on the long-range recall task (:func:`attnbook.data.sequences.recall_batch`), and the graph
measurements behind the chapter's version of the paper's Table 1 (timings:
:mod:`attnbook.measure`).

Everything returns what it computed; nothing is stored on a module.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from attnbook.attention import MultiHeadAttention, masked_softmax
from attnbook.checks import check_float, check_generator, check_int, check_tensor
from attnbook.data.sequences import recall_batch, recall_vocab_size
from attnbook.train import History, fit

# ---------------------------------------------------------------- the recurrence


class ElmanRNN(nn.Module):
    """h_t = tanh(W_xh x_t + b_xh + W_hh h_{t-1} + b_hh), written as a loop over t.

    The recurrent layer of the paper's Table 1 (§4): T sequential steps, each
    needing the previous one. Same parameters and result as ``torch.nn.RNN``
    (one layer, tanh, ``batch_first=True``); see :meth:`from_torch`.
    """

    def __init__(self, d_in: int, d_h: int) -> None:
        super().__init__()
        check_int("d_in", d_in)
        check_int("d_h", d_h)
        self.d_in, self.d_h = d_in, d_h
        self.W_xh = nn.Linear(d_in, d_h)  # input → hidden
        self.W_hh = nn.Linear(d_h, d_h)  # hidden → hidden: the recurrent weights

    def forward(self, x: Tensor, h0: Tensor | None = None) -> tuple[Tensor, Tensor]:
        """Run the recurrence over ``x`` of shape ``(B, T, d_in)``.

        Returns ``(H, h_T)``: all hidden states ``(B, T, d_h)`` and the last ``(B, d_h)``.
        """
        check_tensor("x", x, kind="float", hint=f"(B, T, d_in={self.d_in})")
        if x.dim() != 3 or x.size(-1) != self.d_in:
            raise ValueError(f"x must have shape (B, T, d_in={self.d_in}), got {tuple(x.shape)}")
        B, T, _ = x.shape
        if T == 0:
            raise ValueError(f"empty sequence: x has shape {tuple(x.shape)}")
        if h0 is None:
            h0 = x.new_zeros(B, self.d_h)
        elif h0.shape != (B, self.d_h):
            raise ValueError(f"h0 must have shape (B={B}, d_h={self.d_h}), got {tuple(h0.shape)}")
        a_x = self.W_xh(x)  # (B, T, d_h): the input terms, computed for all t at once
        h, states = h0, []
        for t in range(T):  # the sequential part: step t needs h_{t-1}
            h = torch.tanh(a_x[:, t] + self.W_hh(h))  # (B, d_h)
            states.append(h)
        return torch.stack(states, dim=1), h  # (B, T, d_h), (B, d_h)

    @classmethod
    def from_torch(cls, rnn: nn.RNN) -> ElmanRNN:
        """An :class:`ElmanRNN` holding a copy of a one-layer tanh ``nn.RNN``'s weights."""
        if rnn.num_layers != 1 or rnn.bidirectional or rnn.nonlinearity != "tanh":
            raise ValueError(
                "from_torch copies a one-layer, one-directional tanh nn.RNN; got "
                f"num_layers={rnn.num_layers}, bidirectional={rnn.bidirectional}, "
                f"nonlinearity={rnn.nonlinearity!r}"
            )
        if not rnn.bias:
            raise ValueError("from_torch needs an nn.RNN with bias=True")
        cell = cls(rnn.input_size, rnn.hidden_size)
        with torch.no_grad():
            cell.W_xh.weight.copy_(rnn.weight_ih_l0)  # (d_h, d_in)
            cell.W_xh.bias.copy_(rnn.bias_ih_l0)
            cell.W_hh.weight.copy_(rnn.weight_hh_l0)  # (d_h, d_h)
            cell.W_hh.bias.copy_(rnn.bias_hh_l0)
        return cell.to(rnn.weight_hh_l0.device, rnn.weight_hh_l0.dtype)


def spectral_radius(W: Tensor) -> float:
    """ρ(W) = max abs(λ_i(W)), the largest eigenvalue modulus of a square matrix."""
    if W.dim() != 2 or W.size(0) != W.size(1):
        raise ValueError(f"spectral_radius needs a square matrix, got shape {tuple(W.shape)}")
    return torch.linalg.eigvals(W.detach().double().cpu()).abs().max().item()


def with_spectral_radius(W: Tensor, rho: float) -> Tensor:
    """W rescaled so that its spectral radius is ``rho`` (a copy; W is not changed)."""
    if rho < 0:
        raise ValueError(f"rho must be non-negative, got {rho}")
    current = spectral_radius(W)
    if current == 0.0:
        raise ValueError("W has spectral radius 0 (nilpotent or zero): it cannot be rescaled")
    return W * (rho / current)


def input_gradient_norms(rnn: ElmanRNN, x: Tensor) -> Tensor:
    """‖∂h_T/∂x_t‖_F for every t, by back-propagation through time written out.

    With D_s = diag(1 − h_s²) (the derivative of tanh), the chain rule gives

        ∂h_T/∂x_t = (D_T W_hh)(D_{T-1} W_hh) ⋯ (D_{t+1} W_hh) · D_t W_xh,

    a product of T − t Jacobians: it shrinks or grows geometrically with the
    distance unless every factor has norm close to 1 (Bengio et al. 1994;
    Pascanu et al. 2013, Eq. 5). ``x`` is ``(B, T, d_in)``; returns ``(B, T)``,
    column t for input position t (column T − 1 is the last input, distance 0).
    """
    with torch.no_grad():
        H, _ = rnn(x)  # (B, T, d_h)
        B, T, d_h = H.shape
        D = 1 - H**2  # (B, T, d_h): tanh'(a_t) = 1 − h_t²
        W_hh, W_xh = rnn.W_hh.weight, rnn.W_xh.weight  # (d_h, d_h), (d_h, d_in)
        M = torch.eye(d_h, dtype=H.dtype, device=H.device).expand(B, d_h, d_h)  # ∂h_T/∂h_T
        norms = H.new_empty(B, T)
        for t in reversed(range(T)):
            MD = M * D[:, t, None, :]  # (B, d_h, d_h): M · D_t
            norms[:, t] = torch.linalg.matrix_norm(MD @ W_xh)  # ‖M D_t W_xh‖_F
            M = MD @ W_hh  # (B, d_h, d_h): ∂h_T/∂h_{t-1}
    return norms


def last_output_gradient_norms(f: Callable[[Tensor], Tensor], x: Tensor) -> Tensor:
    """‖∂y_T/∂x_t‖_F for every input position t, by autograd, for any sequence map f.

    ``f`` maps ``(1, T, d_in)`` to ``(1, T, d_out)``; ``x`` is one sequence ``(T, d_in)``.
    Returns ``(T,)``. It checks :func:`input_gradient_norms` and measures the same
    quantity for a self-attention layer.
    """
    if x.dim() != 2:
        raise ValueError(f"x must be one sequence (T, d_in), got shape {tuple(x.shape)}")
    J = torch.autograd.functional.jacobian(lambda s: f(s[None])[0, -1], x)  # (d_out, T, d_in)
    return J.pow(2).sum(dim=(0, 2)).sqrt()  # (T,)


def gradient_norm_grid(
    rhos: Sequence[float],
    T: int = 100,
    d_h: int = 64,
    B: int = 8,
    x_scale: float = 0.1,
    burn_in: int = 50,
    seed: int = 0,
) -> Tensor:
    """log10 ‖∂h_T/∂x_t‖ of a random tanh RNN for each spectral radius ρ and distance T − t.

    One random W_hh (entries N(0, 1/d_h)) is rescaled to each ρ; W_xh has entries
    N(0, 1/d_h), the biases are 0 and the inputs are N(0, ``x_scale``²). The RNN
    first reads ``burn_in`` inputs, so that the distances 0 … T − 1 are measured
    from a state in its running regime rather than from h_0 = 0. The norms of
    the B sequences are averaged in log space. Returns ``(len(rhos), T)``;
    column k is the distance k = T − t (k = 0: the last input).
    """
    if T < 1 or d_h < 1 or B < 1 or burn_in < 0 or len(rhos) == 0:
        raise ValueError(
            f"need T, d_h, B >= 1, burn_in >= 0 and some rhos; "
            f"got T={T}, d_h={d_h}, B={B}, burn_in={burn_in}, {len(rhos)} rhos"
        )
    g = torch.Generator().manual_seed(seed)
    rnn = ElmanRNN(d_h, d_h).double()
    W = torch.randn(d_h, d_h, generator=g, dtype=torch.float64) / math.sqrt(d_h)
    x = x_scale * torch.randn(B, burn_in + T, d_h, generator=g, dtype=torch.float64)
    rows = []
    with torch.no_grad():
        rnn.W_xh.weight.copy_(torch.randn(d_h, d_h, generator=g, dtype=torch.float64))
        rnn.W_xh.weight.div_(math.sqrt(d_h))
        rnn.W_xh.bias.zero_()
        rnn.W_hh.bias.zero_()
        for rho in rhos:
            rnn.W_hh.weight.copy_(with_spectral_radius(W, rho))
            norms = input_gradient_norms(rnn, x)[:, burn_in:]  # (B, T), column t = position t
            log_norms = norms.clamp_min(1e-300).log10().mean(dim=0)  # (T,)
            rows.append(log_norms.flip(0))  # column k = distance k
    return torch.stack(rows)  # (len(rhos), T)


# ---------------------------------------------------------------- additive attention


class AdditiveAttention(nn.Module):
    """Bahdanau et al. (2015), §3.1 and App. A.1.2: attention over *all* encoder states.

        e_ij = v_aᵀ tanh(W_a s_{i-1} + U_a h_j),   α_ij = exp(e_ij) / Σ_k exp(e_ik),
        c_i = Σ_j α_ij h_j .

    The decoder state s_{i-1} is the query; every encoder state h_j, j = 1 … T_x,
    is a key and a value. Nothing restricts j to a window around i.
    """

    def __init__(self, d_s: int, d_h: int, d_a: int) -> None:
        super().__init__()
        for name, value in (("d_s", d_s), ("d_h", d_h), ("d_a", d_a)):
            check_int(name, value)
        self.d_s, self.d_h = d_s, d_h
        self.W_a = nn.Linear(d_s, d_a, bias=False)
        self.U_a = nn.Linear(d_h, d_a, bias=False)
        self.v_a = nn.Linear(d_a, 1, bias=False)

    def forward(self, s: Tensor, H: Tensor, mask: Tensor | None = None) -> tuple[Tensor, Tensor]:
        """``s``: decoder state ``(B, d_s)``; ``H``: encoder states ``(B, T_x, d_h)``;
        ``mask``: optional bool ``(B, T_x)``, True on real (non-padding) positions.

        Returns ``(c, α)``: the context ``(B, d_h)`` and the weights ``(B, T_x)``.
        Masked positions get exactly 0 weight; an all-masked row gets all zeros.
        """
        check_tensor("s", s, kind="float", hint=f"(B, d_s={self.d_s})")
        check_tensor("H", H, kind="float", hint=f"(B, T_x, d_h={self.d_h})")
        if s.dim() != 2 or s.size(-1) != self.d_s:
            raise ValueError(f"s must have shape (B, d_s={self.d_s}), got {tuple(s.shape)}")
        if H.dim() != 3 or H.size(-1) != self.d_h or H.size(0) != s.size(0):
            raise ValueError(
                f"H must have shape (B={s.size(0)}, T_x, d_h={self.d_h}), got {tuple(H.shape)}"
            )
        e = self.v_a(torch.tanh(self.W_a(s)[:, None, :] + self.U_a(H))).squeeze(-1)  # (B, T_x)
        if mask is not None:
            check_tensor("mask", mask, kind="bool", hint=f"(B, T_x) = {tuple(e.shape)}")
            if mask.shape != e.shape:
                raise ValueError(
                    f"mask must have shape (B, T_x) = {tuple(e.shape)}, got {tuple(mask.shape)}"
                )
        alpha = masked_softmax(e, mask)  # (B, T_x), rows sum to 1; an all-masked row gets 0
        c = (alpha[:, :, None] * H).sum(dim=1)  # (B, d_h): Σ_j α_ij h_j
        return c, alpha


class RNNEncoderDecoder(nn.Module):
    """The "traditional attention" model (Bahdanau et al. 2015), small and with GRUs.

    Encoder: a bidirectional GRU reads x_1 … x_{T_x} into h_j = [→h_j; ←h_j]
    (2·d_h each). Decoder: a GRU cell, one target position at a time,

        c_i = Σ_j α_ij h_j,   s_i = GRU([E y_{i-1}; c_i], s_{i-1}),
        p(y_i | y_<i, x) = softmax(W_o [s_i; c_i; E y_{i-1}]),

    with s_0 = tanh(W_s ←h_1). Both halves are recurrences: T_x + T_y
    sequential steps per sentence, even during training.
    """

    def __init__(
        self, src_vocab: int, tgt_vocab: int, d_emb: int = 32, d_h: int = 32, d_a: int = 32
    ) -> None:
        super().__init__()
        for name, value in (
            ("src_vocab", src_vocab),
            ("tgt_vocab", tgt_vocab),
            ("d_emb", d_emb),
            ("d_h", d_h),
            ("d_a", d_a),
        ):
            check_int(name, value)
        self.d_h = d_h
        self.src_emb = nn.Embedding(src_vocab, d_emb)
        self.tgt_emb = nn.Embedding(tgt_vocab, d_emb)
        self.encoder = nn.GRU(d_emb, d_h, batch_first=True, bidirectional=True)
        self.W_s = nn.Linear(d_h, d_h)
        self.attention = AdditiveAttention(d_s=d_h, d_h=2 * d_h, d_a=d_a)
        self.decoder = nn.GRUCell(d_emb + 2 * d_h, d_h)
        self.W_o = nn.Linear(d_h + 2 * d_h + d_emb, tgt_vocab)

    def forward(
        self, src: Tensor, tgt_in: Tensor, src_mask: Tensor | None = None
    ) -> tuple[Tensor, Tensor]:
        """``src`` ``(B, T_x)`` and the shifted target ``tgt_in`` ``(B, T_y)`` (teacher forcing).

        Returns ``(logits, alignment)``: ``(B, T_y, tgt_vocab)`` and the attention
        weights ``(B, T_y, T_x)``, row i over all source positions.
        """
        check_tensor("src", src, 2, "long", "(B, T_x)")
        check_tensor("tgt_in", tgt_in, 2, "long", "(B, T_y)")
        if src.size(0) != tgt_in.size(0):
            raise ValueError(
                f"src and tgt_in must be (B, T) with the same B, got {tuple(src.shape)} "
                f"and {tuple(tgt_in.shape)}"
            )
        H, last = self.encoder(self.src_emb(src))  # (B, T_x, 2·d_h), (2, B, d_h)
        s = torch.tanh(self.W_s(last[1]))  # (B, d_h): from the backward RNN's ←h_1
        E = self.tgt_emb(tgt_in)  # (B, T_y, d_emb)
        logits, alignment = [], []
        for i in range(tgt_in.size(1)):  # the decoder is sequential too
            c, alpha = self.attention(s, H, src_mask)  # (B, 2·d_h), (B, T_x)
            s = self.decoder(torch.cat([E[:, i], c], dim=-1), s)  # (B, d_h)
            logits.append(self.W_o(torch.cat([s, c, E[:, i]], dim=-1)))
            alignment.append(alpha)
        return torch.stack(logits, dim=1), torch.stack(alignment, dim=1)


# ---------------------------------------------------------------- the recall models


class RecallRNN(nn.Module):
    """Embedding → one recurrent layer → a linear read-out of the last state h_T."""

    def __init__(self, K: int = 8, d: int = 32, cell: str = "rnn") -> None:
        super().__init__()
        layers = {"rnn": nn.RNN, "gru": nn.GRU, "lstm": nn.LSTM}
        if cell not in layers:
            raise ValueError(f"cell must be one of {sorted(layers)}, got {cell!r}")
        self.vocab = recall_vocab_size(K)  # <pad>, <bos>, <eos>, ?, then the K symbols
        self.embed = nn.Embedding(self.vocab, check_int("d", d))
        self.recurrent = layers[cell](d, d, batch_first=True)
        self.readout = nn.Linear(d, self.vocab)

    def forward(self, x: Tensor) -> Tensor:
        """``x`` ``(B, T)`` token ids → logits ``(B, vocab)`` from the last hidden state."""
        _check_recall_input(x, self.vocab)
        H, _ = self.recurrent(self.embed(x))  # (B, T, d)
        return self.readout(H[:, -1])


class RecallAttention(nn.Module):
    """Embedding + learned positions → one attention layer read at the last position.

    The ``?`` position queries every position at once (path length 1), so
    the distance to the first symbol makes no difference to the computation.
    """

    def __init__(self, K: int = 8, d: int = 32, h: int = 4, max_len: int = 512) -> None:
        super().__init__()
        self.vocab = recall_vocab_size(K)  # <pad>, <bos>, <eos>, ?, then the K symbols
        self.embed = nn.Embedding(self.vocab, check_int("d", d))
        self.position = nn.Embedding(check_int("max_len", max_len), d)
        self.attention = MultiHeadAttention(d, h)
        self.readout = nn.Linear(d, self.vocab)

    def forward(self, x: Tensor) -> tuple[Tensor, Tensor]:
        """``x`` ``(B, T)`` → ``(logits (B, vocab), weights (B, h, 1, T))``."""
        _check_recall_input(x, self.vocab)
        T = x.size(1)
        if T > self.position.num_embeddings:
            raise ValueError(
                f"x of shape {tuple(x.shape)} is longer than max_len={self.position.num_embeddings}"
            )
        z = self.embed(x) + self.position(torch.arange(T, device=x.device))  # (B, T, d)
        out, weights = self.attention(z[:, -1:], z, z)  # (B, 1, d), (B, h, 1, T)
        return self.readout(out[:, 0]), weights


def _check_recall_input(x: Tensor, vocab: int) -> None:
    check_tensor("x", x, 2, "long", "(B, T)")
    if x.size(1) == 0 or (x.numel() and (x.min() < 0 or x.max() >= vocab)):
        raise ValueError(f"x must be non-empty (B, T) ids in [0, {vocab}), got {tuple(x.shape)}")


def _logits(model: nn.Module, x: Tensor) -> Tensor:
    out = model(x)
    return out[0] if isinstance(out, tuple) else out


def recall_loss(model: nn.Module, batch: tuple[Tensor, Tensor]) -> Tensor:
    """Cross-entropy of the model's guess of the first symbol, for a ``(x, y)`` batch."""
    x, y = batch
    return F.cross_entropy(_logits(model, x), y)


def train_recall(
    model: nn.Module,
    n: int,
    steps: int = 300,
    B: int = 64,
    lr: float = 1e-2,
    K: int = 8,
    generator: torch.Generator | None = None,
    callback: Callable[[int, Tensor], object] | None = None,
) -> History:
    """Train ``model`` on :func:`~attnbook.data.sequences.recall_batch` with Adam (PyTorch's default
    β = (0.9, 0.999), ε = 1e-8) at a constant ``lr`` and cross-entropy.

    ``callback(step, loss)``, if given, runs after every step (for example to advance a
    progress bar); see :func:`attnbook.train.fit`.
    """
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be a torch.nn.Module, got {type(model).__name__}")
    check_int("n", n, minimum=0)
    check_int("B", B)
    check_float("lr", lr, 0.0, low_open=True)
    check_generator("generator", generator)
    batches = iter(lambda: recall_batch(B, n, K, generator), None)  # (B, n + 2), (B,)
    adam = dict(optimizer="adam", betas=(0.9, 0.999), eps=1e-8)  # PyTorch's defaults
    return fit(model, batches, recall_loss, steps, lr, **adam, callback=callback, progress=False)


@torch.no_grad()
def recall_accuracy(
    model: nn.Module, n: int, B: int = 1000, K: int = 8, generator: torch.Generator | None = None
) -> float:
    """Fraction of ``B`` fresh recall sequences whose first symbol ``model`` predicts."""
    device = next(model.parameters()).device
    model.eval()
    x, y = recall_batch(B, n, K, generator)
    prediction = _logits(model, x.to(device)).argmax(dim=-1).cpu()
    return (prediction == y).float().mean().item()


# ---------------------------------------------------------------- measuring Table 1


def graph_depth(y: Tensor) -> int:
    """Length of the longest chain of operations in ``y``'s autograd graph.

    A count of the operations that must run one after the other to compute
    ``y`` — the paper's "sequential operations" (§4), measured.
    """
    if y.grad_fn is None:
        raise ValueError("y has no autograd graph: compute it from a tensor with requires_grad")
    depth: dict = {}
    stack = [(y.grad_fn, False)]
    while stack:  # iterative post-order walk: a long recurrence would overflow recursion
        node, children_done = stack.pop()
        if node in depth:
            continue
        children = [c for c, _ in node.next_functions if c is not None]
        if children_done:
            depth[node] = 1 + max((depth[c] for c in children), default=0)
        else:
            stack.append((node, True))
            stack.extend((c, False) for c in children if c not in depth)
    return depth[y.grad_fn]


def reaches_first_position(f: Callable[[Tensor], Tensor], x: Tensor) -> bool:
    """Whether the last output of ``f(x)`` depends on the first input position at all.

    ``x`` is ``(B, T, d)``; the test is an exactly non-zero gradient ∂y_T/∂x_1.
    """
    if x.dim() != 3 or x.size(1) < 2:
        raise ValueError(f"x must be (B, T, d) with T >= 2, got {tuple(x.shape)}")
    x = x.detach().requires_grad_(True)
    (g,) = torch.autograd.grad(f(x)[:, -1].sum(), x)
    return bool(g[:, 0].abs().sum() > 0)


def fewest_layers_to_reach_first(
    stack: Callable[[Tensor, int], Tensor], x: Tensor, max_layers: int
) -> int:
    """The smallest L for which ``stack(x, L)``'s last output depends on the first input.

    ``stack(x, L)`` applies L layers (or hops) to ``x`` ``(B, T, d)``. This is the
    paper's "maximum path length" (§4, Table 1) between positions 1 and T, in
    layers, measured with :func:`reaches_first_position`. The search doubles L
    until the stack reaches, then bisects (a deeper stack reaches at least as
    far), so deep stacks are built only when they are needed. Deep stacks of
    random layers shrink or grow their signal geometrically: measure in float64.
    """
    if max_layers < 1:
        raise ValueError(f"max_layers must be positive, got {max_layers}")

    def reaches(L: int) -> bool:
        return reaches_first_position(lambda s: stack(s, L), x)

    low, high = 0, 1  # invariant: low layers do not reach
    while not reaches(high):
        if high >= max_layers:
            raise ValueError(f"{max_layers} layers do not connect the first position to the last")
        low, high = high, min(2 * high, max_layers)
    while high - low > 1:  # low does not reach, high does
        mid = (low + high) // 2
        low, high = (low, mid) if reaches(mid) else (mid, high)
    return high
