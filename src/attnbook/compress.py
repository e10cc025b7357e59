"""Making a trained model smaller for deployment: int8 weights and knowledge distillation.

Quantization (Jacob et al., 2018) stores each weight matrix as 8-bit integers and one
float scale per output channel. Distillation (Hinton, Vinyals & Dean, 2015) trains a
smaller student on the teacher's softened output distribution.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from attnbook.checks import check_float, check_int, check_tensor, describe
from attnbook.model import Transformer
from attnbook.train import History, fit

# ---------------------------------------------------------------- quantization


def _qmax(bits: int) -> int:
    if check_int("bits", bits, minimum=2) > 8:
        raise ValueError(f"bits must be an int in 2..8, got {bits!r}")
    return 2 ** (bits - 1) - 1  # 127 for int8: the symmetric range [-127, 127]


def quantize_per_channel(W: Tensor, bits: int = 8) -> tuple[Tensor, Tensor]:
    """Symmetric per-output-channel quantization of a weight matrix ``W`` ``(d_out, d_in)``.

        scale_c = max_j abs(W_cj) / 127,   q_cj = clamp(round(W_cj / scale_c), -127, 127)

    (127 = 2^(bits-1) - 1 for ``bits`` = 8.) Returns ``q`` ``(d_out, d_in)`` int8 and
    ``scale`` ``(d_out,)`` float32. A row of zeros gets scale 1 (its q is 0 anyway).
    Dequantizing, ``q_cj · scale_c``, is off by at most ``scale_c / 2`` per element.
    """
    qmax = _qmax(bits)
    check_tensor("W", W, 2, "float", "(d_out, d_in)")
    if not torch.isfinite(W).all():
        raise ValueError("W contains NaN or infinite values: they have no int8 code")
    W = W.detach().float()
    amax = W.abs().amax(dim=1)  # (d_out,)
    scale = torch.where(amax > 0, amax / qmax, torch.ones_like(amax))  # (d_out,)
    q = torch.clamp(torch.round(W / scale[:, None]), -qmax, qmax)  # (d_out, d_in)
    return q.to(torch.int8), scale


def dequantize_per_channel(q: Tensor, scale: Tensor) -> Tensor:
    """Ŵ_cj = q_cj · scale_c: the float32 ``(d_out, d_in)`` matrix the codes stand for."""
    check_tensor("q", q, 2, hint="(d_out, d_in)")
    check_tensor("scale", scale, hint="(d_out,)")
    if q.dtype != torch.int8:
        raise ValueError(f"q must be a 2-D int8 tensor, got {tuple(q.shape)} {q.dtype}")
    if scale.shape != (q.size(0),) or not scale.is_floating_point():
        raise ValueError(
            f"scale must be a float tensor of shape ({q.size(0)},) (one per row of q), "
            f"got {tuple(scale.shape)} {scale.dtype}"
        )
    return q.float() * scale[:, None]  # (d_out, d_in)


class Int8Linear(nn.Module):
    """A linear layer whose weight is stored as int8 codes and per-row scales.

        y = x Ŵᵀ + b,   Ŵ_cj = q_cj · scale_c   (the bias stays float)

    Since ``scale`` is one number per output, it factors out of the product:

        y_c = s_c · Σ_j x_j q_cj + b_c,   i.e.  y = (x qᵀ) ⊙ s + b

    which is how int8 kernels apply per-row scales, after the integer product. Here the
    product itself is an ordinary float matmul: the forward pass converts the codes to a
    temporary float copy of ``q`` ``(d_out, d_in)`` on every call and frees it afterwards.
    The weights are ~4× smaller *at rest*; during a call the layer briefly holds as many
    bytes as a float layer would, and it does more work, not less.
    """

    def __init__(self, q: Tensor, scale: Tensor, bias: Tensor | None) -> None:
        super().__init__()
        dequantize_per_channel(q, scale)  # validates the shapes and dtypes
        if bias is not None and bias.shape != (q.size(0),):
            raise ValueError(f"bias must have shape ({q.size(0)},), got {tuple(bias.shape)}")
        self.register_buffer("weight_int8", q)  # (d_out, d_in) int8
        self.register_buffer("scale", scale.float())  # (d_out,)
        self.bias = None if bias is None else nn.Parameter(bias.detach().clone())

    @classmethod
    def from_linear(cls, linear: nn.Linear, bits: int = 8) -> Int8Linear:
        """Quantize the weight of a trained ``nn.Linear``."""
        q, scale = quantize_per_channel(linear.weight, bits)
        return cls(q, scale, linear.bias)

    @property
    def in_features(self) -> int:
        return self.weight_int8.size(1)

    @property
    def out_features(self) -> int:
        return self.weight_int8.size(0)

    def forward(self, x: Tensor) -> Tensor:
        if not isinstance(x, Tensor) or not x.is_floating_point():
            raise TypeError(f"x must be a float tensor (..., d_in), got {describe(x)}")
        if x.size(-1) != self.in_features:
            raise ValueError(f"x must end in d_in={self.in_features}, got shape {tuple(x.shape)}")
        q = self.weight_int8.to(x.dtype)  # (d_out, d_in): the temporary float copy
        y = F.linear(x, q) * self.scale.to(x.dtype)  # (..., d_out): (x qᵀ) ⊙ s
        return y if self.bias is None else y + self.bias  # (..., d_out)

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, int8"


def quantize_linears(model: nn.Module, bits: int = 8) -> nn.Module:
    """A copy of ``model`` with every ``nn.Linear`` replaced by an :class:`Int8Linear`.

    Embeddings, LayerNorms and biases stay float32; ``model`` itself is not changed.
    """
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be a torch.nn.Module, got {type(model).__name__}")
    _qmax(bits)
    quantized = copy.deepcopy(model)
    # named_modules lists parents first; replace leaves through their parent
    for module in list(quantized.modules()):
        for child_name, child in list(module.named_children()):
            if type(child) is nn.Linear:
                setattr(module, child_name, Int8Linear.from_linear(child, bits))
    return quantized.eval()


def linear_weight_bytes(model: nn.Module) -> dict[str, int]:
    """Bytes held by the weight matrices of the linear layers (float or int8 + scales),
    and by everything else (embeddings, LayerNorms, biases). A tensor shared by several
    modules (tied embeddings, §3.4) is counted once, as a linear weight if any linear
    layer uses it."""
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be a torch.nn.Module, got {describe(model)}")
    seen: set[int] = set()

    def size(t: Tensor) -> int:
        if t.data_ptr() in seen:
            return 0
        seen.add(t.data_ptr())
        return t.numel() * t.element_size()

    linear = 0
    for module in model.modules():
        if isinstance(module, nn.Linear):
            linear += size(module.weight)
        elif isinstance(module, Int8Linear):
            linear += size(module.weight_int8) + size(module.scale)
    other = sum(size(t) for t in model.state_dict().values())
    return {"linear_weights": linear, "other": other, "total": linear + other}


# ---------------------------------------------------------------- distillation


def soft_target_kl(student_logits: Tensor, teacher_logits: Tensor, T: float = 2.0) -> Tensor:
    """T² · KL(p_T^teacher ‖ p_T^student) per position, with p_T = softmax(z / T).

        KL(p ‖ q) = Σ_i p_i (log p_i − log q_i)

    Hinton et al. (2015, §2): the T² keeps the soft-target gradients on the same scale
    as the hard-label ones when T changes. Logits ``(..., V)``; returns ``(...)``.
    """
    check_tensor("student_logits", student_logits, kind="float", hint="(..., V)")
    check_tensor("teacher_logits", teacher_logits, kind="float", hint="(..., V)")
    if student_logits.shape != teacher_logits.shape:
        raise ValueError(
            f"student and teacher logits differ in shape: {tuple(student_logits.shape)} "
            f"vs {tuple(teacher_logits.shape)}"
        )
    check_float("T", T, 0.0, low_open=True)
    log_q = F.log_softmax(student_logits / T, dim=-1)  # student, (..., V)
    log_p = F.log_softmax(teacher_logits.detach() / T, dim=-1)  # teacher, (..., V)
    return T**2 * (log_p.exp() * (log_p - log_q)).sum(-1)  # (...)


def distillation_loss(
    student_logits: Tensor,
    teacher_logits: Tensor,
    targets: Tensor,
    T: float = 2.0,
    alpha: float = 0.5,
    ignore_index: int = 0,
) -> Tensor:
    """L = α · T² · KL(p_T^teacher ‖ p_T^student) + (1 − α) · CE(y, p_1^student).

    Both terms are averaged over the positions whose target is not ``ignore_index``.
    Logits ``(B, T_out, V)``, targets ``(B, T_out)``. α = 0 is ordinary cross-entropy.
    """
    check_float("alpha", alpha, 0.0, 1.0)
    check_tensor("targets", targets, kind="long", hint="(B, T_out)")
    if student_logits.shape[:-1] != targets.shape:
        raise ValueError(
            f"targets {tuple(targets.shape)} do not match logits {tuple(student_logits.shape)}"
        )
    keep = targets != ignore_index  # (B, T_out)
    if not keep.any():
        raise ValueError("every target equals ignore_index: nothing to learn from")
    soft = soft_target_kl(student_logits, teacher_logits, T)[keep].mean()
    hard = F.cross_entropy(student_logits[keep], targets[keep])
    return alpha * soft + (1 - alpha) * hard


def distill(
    student: Transformer,
    teacher: Transformer,
    batches: Iterable[tuple[Tensor, Tensor]],
    steps: int,
    lr: Callable[[int], float],
    T: float = 2.0,
    alpha: float = 0.5,
    progress: bool = True,
    desc: str = "distilling",
) -> History:
    """Train ``student`` on :func:`distillation_loss` against a frozen ``teacher``.

    :func:`attnbook.train.fit` with the paper's Adam (β = (0.9, 0.98), ε = 1e-9) and the
    learning rate ``lr(step)`` on ``(src, tgt)`` batches, so with α = 0 this is ordinary
    training on :func:`attnbook.train.seq2seq_loss`.
    """
    for name, model in (("student", student), ("teacher", teacher)):
        if not isinstance(model, Transformer):
            raise TypeError(f"{name} must be a Transformer, got {type(model).__name__}")
    check_float("T", T, 0.0, low_open=True)
    check_float("alpha", alpha, 0.0, 1.0)
    teacher.eval()

    def loss_fn(model: Transformer, batch: tuple[Tensor, Tensor]) -> Tensor:
        src, tgt = batch
        with torch.no_grad():
            teacher_logits, _ = teacher(src, tgt[:, :-1], need_weights=False)  # (B, T_out, V)
        student_logits, _ = model(src, tgt[:, :-1], need_weights=False)
        return distillation_loss(
            student_logits, teacher_logits, tgt[:, 1:], T, alpha, model.config.pad_id
        )

    return fit(student, batches, loss_fn, steps, lr, progress=progress, desc=desc)
