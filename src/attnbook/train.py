"""Training: the paper's learning-rate schedule (§5.3), label smoothing (§5.4), mixed
precision, and a small training loop."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import torch
import torch.nn.functional as F
from torch import Tensor
from tqdm.auto import tqdm

from attnbook.model import Transformer
from attnbook.utils import flush_denormals


def noam_lr(step: int, d_model: int, warmup: int) -> float:
    """lrate = d_model^-0.5 · min(step^-0.5, step · warmup^-1.5) — Eq. (3), §5.3.

    Linear warm-up for ``warmup`` steps, then decay ∝ 1/√step. ``step`` counts from 1.
    """
    if step < 1 or d_model < 1 or warmup < 1:
        raise ValueError(f"step, d_model and warmup must be >= 1, got {step}, {d_model}, {warmup}")
    return d_model**-0.5 * min(step**-0.5, step * warmup**-1.5)


def warmup_linear_decay(step: int, peak: float, warmup: int, steps: int) -> float:
    """Linear warm-up to ``peak`` over ``warmup`` steps, then linear decay to 0 at ``steps``.

    For short runs: Eq. (3) decays as 1/√step and is still high when a 600-step run ends.
    """
    if not 1 <= warmup < steps or step < 1:
        raise ValueError(f"need 1 <= warmup < steps and step >= 1, got {warmup}, {steps}, {step}")
    return peak * min(step / warmup, max(0.0, (steps - step) / (steps - warmup)))


def smoothed_targets(
    target: Tensor, V: int, epsilon: float, dtype: torch.dtype | None = None
) -> Tensor:
    """q'(k) = (1 − ε) δ_{k,y} + ε / V — label smoothing, §5.4 (Szegedy et al., 2016, §7).

    The one-hot target of each label ``y`` in ``target`` (any shape) mixed with the
    uniform distribution over all ``V`` classes. Returns ``(*target.shape, V)`` in ``dtype``
    (default: PyTorch's default float type).
    """
    if not 0.0 <= epsilon < 1.0:
        raise ValueError(f"epsilon must be in [0, 1), got {epsilon}")
    if V < 2:
        raise ValueError(f"need at least V = 2 classes, got {V}")
    if target.dtype != torch.long:
        raise ValueError(f"target must hold long class ids, got {target.dtype}")
    if target.numel() and (target.min() < 0 or target.max() >= V):
        raise ValueError(f"target ids must lie in [0, {V}), got [{target.min()}, {target.max()}]")
    one_hot = F.one_hot(target, V).to(dtype or torch.get_default_dtype())  # (*, V)
    return (1 - epsilon) * one_hot + epsilon / V


def label_smoothing_loss(
    logits: Tensor, target: Tensor, epsilon: float, ignore_index: int | None = None
) -> Tensor:
    """H(q', p) = −Σ_k q'(k) log p(k), averaged over the targets not equal to ``ignore_index``.

    ``logits`` ``(*, V)``, ``target`` ``(*)``; ``p = softmax(logits)`` and ``q'`` is
    :func:`smoothed_targets`. Written out from the definition; it equals
    ``F.cross_entropy(..., label_smoothing=epsilon, ignore_index=ignore_index)``.
    """
    if logits.dim() < 1 or logits.shape[:-1] != target.shape:
        raise ValueError(
            f"logits must be (*, V) and target (*), got {tuple(logits.shape)} and "
            f"{tuple(target.shape)}"
        )
    V = logits.size(-1)
    keep = torch.ones_like(target, dtype=torch.bool)
    if ignore_index is not None:
        keep = target != ignore_index
    if not keep.any():
        raise ValueError("every target equals ignore_index: nothing to average")
    q = smoothed_targets(target[keep], V, epsilon, dtype=logits.dtype)  # (n, V)
    log_p = torch.log_softmax(logits[keep], dim=-1)  # (n, V)
    return -(q * log_p).sum(-1).mean()


def seq2seq_loss(
    model: Transformer, src: Tensor, tgt: Tensor, label_smoothing: float = 0.0
) -> Tensor:
    """Cross-entropy of the next target token under teacher forcing, padding ignored."""
    logits, _ = model(src, tgt[:, :-1])  # predict tgt[1:] from tgt[:-1]
    return F.cross_entropy(
        logits.reshape(-1, logits.size(-1)),
        tgt[:, 1:].reshape(-1),
        ignore_index=model.config.pad_id,
        label_smoothing=label_smoothing,
    )


@flush_denormals()
def train(
    model: Transformer,
    batches: Iterator[tuple[Tensor, Tensor]],
    steps: int,
    lr: Callable[[int], float],
    label_smoothing: float = 0.0,
    betas: tuple[float, float] = (0.9, 0.98),
    weight_decay: float = 0.0,
    stop_below: float | None = None,
    progress: bool = True,
    desc: str = "training",
    autocast: torch.dtype | None = None,
) -> dict[str, list[float]]:
    """Adam with β = (0.9, 0.98), ε = 1e-9 (§5.3) and the learning rate ``lr(step)``.

    ``batches`` yields ``(src, tgt)`` pairs; training stops after ``steps`` steps, or
    early once the loss averaged over the last 20 steps is below ``stop_below``.
    ``weight_decay`` is AdamW's decoupled decay θ ← θ − lr·λ·θ (Loshchilov & Hutter, 2019).
    ``autocast`` (``torch.bfloat16`` or ``torch.float16``) runs the forward pass in mixed
    precision (Micikevicius et al., 2018): the weights stay float32, float16 adds a
    gradient scaler so that small gradients do not underflow.
    Returns the per-step ``loss``, ``lr`` and elapsed ``seconds``.
    """
    if steps < 1:
        raise ValueError(f"steps must be >= 1, got {steps}")
    if autocast not in (None, torch.bfloat16, torch.float16):
        raise ValueError(f"autocast must be None, torch.bfloat16 or torch.float16, got {autocast}")
    device = next(model.parameters()).device
    optimizer = torch.optim.AdamW(
        model.parameters(), lr=lr(1), betas=betas, eps=1e-9, weight_decay=weight_decay
    )
    scaler = torch.amp.GradScaler(device.type) if autocast == torch.float16 else None
    history: dict[str, list[float]] = {"loss": [], "lr": [], "seconds": []}
    model.train()
    start = time.perf_counter()
    bar = tqdm(range(1, steps + 1), desc=desc, disable=not progress, mininterval=0.5)
    for step in bar:
        src, tgt = (t.to(device) for t in next(batches))
        for group in optimizer.param_groups:
            group["lr"] = lr(step)
        with torch.autocast(device.type, dtype=autocast, enabled=autocast is not None):
            loss = seq2seq_loss(model, src, tgt, label_smoothing)
        optimizer.zero_grad(set_to_none=True)
        if scaler is None:
            loss.backward()
            optimizer.step()
        else:  # loss × scale, unscale the gradients, skip the step if any is inf/NaN
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
        history["loss"].append(loss.item())
        history["lr"].append(lr(step))
        history["seconds"].append(time.perf_counter() - start)
        if step % 10 == 0:
            bar.set_postfix(loss=f"{loss.item():.4f}")
        recent = history["loss"][-20:]
        if stop_below is not None and len(recent) == 20 and sum(recent) / 20 < stop_below:
            break
    bar.close()
    model.eval()
    return history


def saved_tensor_bytes(
    model: Transformer, src: Tensor, tgt: Tensor, autocast: torch.dtype | None = None
) -> dict[torch.dtype, int]:
    """Bytes of the tensors one training forward pass keeps for the backward pass, per dtype.

    Counted with ``torch.autograd.graph.saved_tensors_hooks``, each storage once and the
    parameters themselves left out (saving them costs nothing), so it works the same on
    every device: the activation memory, plus any low-precision weight copies autocast makes.
    """
    if autocast not in (None, torch.bfloat16, torch.float16):
        raise ValueError(f"autocast must be None, torch.bfloat16 or torch.float16, got {autocast}")
    device = next(model.parameters()).device
    src, tgt = src.to(device), tgt.to(device)
    parameters = {p.untyped_storage().data_ptr() for p in model.parameters()}
    storages: dict[int, tuple[torch.dtype, int]] = {}

    def pack(t: Tensor) -> Tensor:
        storage = t.untyped_storage()
        if storage.data_ptr() not in parameters:
            storages[storage.data_ptr()] = (t.dtype, storage.nbytes())
        return t

    was_training = model.training
    model.train()
    rng_devices = [device] if device.type == "cuda" else []  # dropout must not move the RNG
    with (
        torch.random.fork_rng(devices=rng_devices),
        torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t),
        torch.autocast(device.type, dtype=autocast, enabled=autocast is not None),
    ):
        seq2seq_loss(model, src, tgt)
    model.train(was_training)
    per_dtype: dict[torch.dtype, int] = {}
    for dtype, nbytes in storages.values():
        per_dtype[dtype] = per_dtype.get(dtype, 0) + nbytes
    return per_dtype


def activation_bytes(
    model: Transformer, src: Tensor, tgt: Tensor, autocast: torch.dtype | None = None
) -> int:
    """Total of :func:`saved_tensor_bytes`: the activation memory of one training step."""
    return sum(saved_tensor_bytes(model, src, tgt, autocast).values())
