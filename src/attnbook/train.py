"""Training: THE training loop of the book (:func:`fit`), the paper's learning-rate schedule
(§5.3), label smoothing (§5.4), mixed precision, and what a training step keeps in memory.

Every model in the book trains through :func:`fit` with its own loss function
``loss_fn(model, batch) -> loss``; the loop is written once.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import torch
import torch.nn.functional as F
from torch import Tensor, nn
from tqdm.auto import tqdm

from attnbook.checks import check_float, check_int, check_tensor, describe
from attnbook.utils import flush_denormals

# ---------------------------------------------------------------- schedules


def noam_lr(step: int, d_model: int, warmup: int) -> float:
    """lrate = d_model^-0.5 · min(step^-0.5, step · warmup^-1.5) — Eq. (3), §5.3.

    Linear warm-up for ``warmup`` steps, then decay ∝ 1/√step. ``step`` counts from 1.
    """
    for name, value in (("step", step), ("d_model", d_model), ("warmup", warmup)):
        check_int(name, value)
    return d_model**-0.5 * min(step**-0.5, step * warmup**-1.5)


def warmup_linear_decay(step: int, peak: float, warmup: int, steps: int) -> float:
    """Linear warm-up to ``peak`` over ``warmup`` steps, then linear decay to 0 at ``steps``.

    For short runs: Eq. (3) decays as 1/√step and is still high when a 600-step run ends.
    """
    for name, value in (("step", step), ("warmup", warmup), ("steps", steps)):
        check_int(name, value)
    check_float("peak", peak, 0.0)
    if warmup >= steps:
        raise ValueError(f"need warmup < steps, got warmup={warmup}, steps={steps}")
    return peak * min(step / warmup, max(0.0, (steps - step) / (steps - warmup)))


# ---------------------------------------------------------------- losses


def smoothed_targets(
    target: Tensor, V: int, epsilon: float, dtype: torch.dtype | None = None
) -> Tensor:
    """q'(k) = (1 − ε) δ_{k,y} + ε / V — label smoothing, §5.4 (Szegedy et al., 2016, §7).

    The one-hot target of each label ``y`` in ``target`` (any shape) mixed with the
    uniform distribution over all ``V`` classes. Returns ``(*target.shape, V)`` in ``dtype``
    (default: PyTorch's default float type).
    """
    check_float("epsilon", epsilon, 0.0, 1.0, high_open=True)
    check_int("V", V, minimum=2)
    check_tensor("target", target, kind="long")
    if target.numel() and (target.min() < 0 or target.max() >= V):
        raise ValueError(
            f"target ids must lie in [0, {V}), got [{int(target.min())}, {int(target.max())}]"
        )
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
    check_tensor("logits", logits, kind="float")
    check_tensor("target", target, kind="long")
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
    model: nn.Module, src: Tensor, tgt: Tensor, label_smoothing: float = 0.0
) -> Tensor:
    """Cross-entropy of the next target token under teacher forcing, padding ignored.

    ``model`` is a :class:`~attnbook.model.Transformer`; ``tgt`` is ``<bos> … <eos>``
    ``(B, T)``: the model reads ``tgt[:, :-1]`` and predicts ``tgt[:, 1:]``.
    """
    check_float("label_smoothing", label_smoothing, 0.0, 1.0, high_open=True)
    check_tensor("tgt", tgt, 2, "long", "(B, T)")
    if tgt.size(1) < 2:
        raise ValueError(
            f"tgt must hold <bos> and at least one token, got shape {tuple(tgt.shape)}"
        )
    logits, _ = model(src, tgt[:, :-1], need_weights=False)  # predict tgt[1:] from tgt[:-1]
    return F.cross_entropy(
        logits.reshape(-1, logits.size(-1)),
        tgt[:, 1:].reshape(-1),
        ignore_index=model.config.pad_id,
        label_smoothing=label_smoothing,
    )


def seq2seq_batch_loss(label_smoothing: float = 0.0) -> Callable[[nn.Module, Any], Tensor]:
    """The loss function :func:`fit` calls for ``(src, tgt)`` batches: :func:`seq2seq_loss`."""
    check_float("label_smoothing", label_smoothing, 0.0, 1.0, high_open=True)

    def loss_fn(model: nn.Module, batch: tuple[Tensor, Tensor]) -> Tensor:
        src, tgt = batch
        return seq2seq_loss(model, src, tgt, label_smoothing)

    return loss_fn


# ---------------------------------------------------------------- the training loop


@dataclass
class History:
    """What :func:`fit` measured, one entry per step taken.

    ``seconds`` is the wall time since training started, read after each step (on a GPU,
    after the step was queued; the last entry waits for the work to finish).
    ``metrics`` holds any extra values the loss function returned, by name.
    """

    loss: list[float] = field(default_factory=list)
    lr: list[float] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)
    metrics: dict[str, list[float]] = field(default_factory=dict)
    stopped_early: bool = False

    @property
    def steps(self) -> int:
        """The number of steps taken."""
        return len(self.loss)


OPTIMIZERS = ("adam", "adamw", "sgd")


def make_optimizer(
    parameters: Iterable[nn.Parameter],
    optimizer: str = "adamw",
    betas: tuple[float, float] = (0.9, 0.98),
    eps: float = 1e-9,
    weight_decay: float = 0.0,
    momentum: float = 0.0,
) -> torch.optim.Optimizer:
    """The optimiser :func:`fit` uses, with its fused kernel where PyTorch has one.

    ``"adam"``: Adam (Kingma & Ba, 2015) with L2 weight decay added to the gradient;
    ``"adamw"``: decoupled weight decay θ ← θ − lr·λ·θ (Loshchilov & Hutter, 2019), the
    same as Adam when ``weight_decay`` is 0; ``"sgd"``: SGD with ``momentum``. The paper
    trains with Adam, β = (0.9, 0.98), ε = 1e-9 (§5.3): the defaults. The learning rate
    is set by :func:`fit` at every step.
    """
    if optimizer not in OPTIMIZERS:
        raise ValueError(f"optimizer must be one of {OPTIMIZERS}, got {optimizer!r}")
    parameters = [p for p in parameters if p.requires_grad]
    if not parameters:
        raise ValueError("the model has no trainable parameters")
    check_float("weight_decay", weight_decay, 0.0)
    device = parameters[0].device
    fused = device.type in ("cpu", "cuda") and all(
        p.is_floating_point() and p.device == device for p in parameters
    )
    if optimizer == "sgd":
        check_float("momentum", momentum, 0.0)
        kwargs: dict[str, Any] = dict(lr=0.0, momentum=momentum, weight_decay=weight_decay)
        make = torch.optim.SGD
    else:
        if len(betas) != 2:
            raise ValueError(f"betas must be a pair (β1, β2), got {betas!r}")
        for name, beta in zip(("betas[0]", "betas[1]"), betas):
            check_float(name, beta, 0.0, 1.0, high_open=True)
        check_float("eps", eps, 0.0, low_open=True)
        kwargs = dict(lr=0.0, betas=tuple(betas), eps=eps, weight_decay=weight_decay)
        make = torch.optim.AdamW if optimizer == "adamw" else torch.optim.Adam
    try:  # one kernel for all parameters instead of a few per parameter
        return make(parameters, fused=fused, **kwargs)
    except (RuntimeError, TypeError):  # an older PyTorch, or a device without the kernel
        return make(parameters, **kwargs)


def _to_device(batch: Any, device: torch.device) -> Any:
    """``batch`` (a tensor, or a tuple, named tuple, list or dict of them) on ``device``."""
    if isinstance(batch, Tensor):
        return batch.to(device, non_blocking=True)
    if isinstance(batch, tuple) and hasattr(batch, "_fields"):  # a NamedTuple
        return type(batch)(*(_to_device(x, device) for x in batch))
    if isinstance(batch, (tuple, list)):
        return type(batch)(_to_device(x, device) for x in batch)
    if isinstance(batch, Mapping):
        return {k: _to_device(v, device) for k, v in batch.items()}
    return batch


def _check_fit_args(model, batches, loss_fn, steps, lr, autocast, stop_below, stop_window):
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be a torch.nn.Module, got {describe(model)}")
    if isinstance(batches, (Tensor, str)) or not isinstance(batches, Iterable):
        raise TypeError(
            f"batches must be an iterable of batches (an iterator, a list, a generator), "
            f"got {describe(batches)}"
        )
    if not callable(loss_fn):
        raise TypeError(f"loss_fn must be a function (model, batch) -> loss, got {loss_fn!r}")
    check_int("steps", steps)
    if not callable(lr):
        check_float("lr", lr, 0.0)
    if autocast not in (None, torch.bfloat16, torch.float16):
        raise ValueError(f"autocast must be None, torch.bfloat16 or torch.float16, got {autocast}")
    if stop_below is not None:
        check_float("stop_below", stop_below)
    check_int("stop_window", stop_window)


def _split_loss(value: Any) -> tuple[Tensor, dict[str, Tensor]]:
    """A loss function's result: a scalar loss, or ``(loss, {name: scalar})``."""
    loss, extra = value if isinstance(value, tuple) else (value, {})
    if not isinstance(loss, Tensor) or loss.dim() != 0:
        raise TypeError(
            "loss_fn must return a scalar tensor (or (loss, dict of metrics)), "
            f"got {describe(loss)}"
        )
    if not isinstance(extra, Mapping):
        raise TypeError(f"loss_fn's metrics must be a dict of name: value, got {describe(extra)}")
    return loss, extra


def fit(
    model: nn.Module,
    batches: Iterable[Any],
    loss_fn: Callable[[nn.Module, Any], Tensor | tuple[Tensor, Mapping[str, Tensor]]],
    steps: int,
    lr: Callable[[int], float] | float,
    *,
    optimizer: str = "adamw",
    betas: tuple[float, float] = (0.9, 0.98),
    eps: float = 1e-9,
    weight_decay: float = 0.0,
    momentum: float = 0.0,
    autocast: torch.dtype | None = None,
    stop_below: float | None = None,
    stop_window: int = 20,
    callback: Callable[[int, Tensor], object] | None = None,
    progress: bool = True,
    desc: str = "training",
) -> History:
    """Train ``model`` for ``steps`` steps of ``loss_fn`` on ``batches``; return its History.

    Each step takes the next batch (moved to the model's device), computes
    ``loss_fn(model, batch)``, back-propagates and updates the weights with the learning
    rate ``lr(step)`` (steps count from 1; a number is a constant rate).

    Args:
        batches: an iterable of batches; each is handed to ``loss_fn`` as it is. A finite
            one must hold at least ``steps`` batches.
        loss_fn: ``(model, batch) -> loss``, a scalar tensor, or ``(loss, metrics)`` with
            ``metrics`` a dict of scalar tensors recorded in ``History.metrics``.
        optimizer: ``"adamw"`` (the default), ``"adam"`` or ``"sgd"``, with ``betas``,
            ``eps``, ``weight_decay`` and ``momentum`` as in :func:`make_optimizer`; the
            defaults are the paper's Adam (§5.3).
        autocast: ``torch.bfloat16`` or ``torch.float16`` runs the forward pass in mixed
            precision (Micikevicius et al., 2018): the weights stay float32, and float16
            adds a gradient scaler so that small gradients do not underflow.
        stop_below: stop early once the loss averaged over the last ``stop_window`` steps
            is below this value.
        callback: ``callback(step, loss)`` after every step, for example to advance a
            progress bar of one's own (``loss`` is a detached scalar tensor: reading it with
            ``.item()`` is the callback's choice). What it returns is ignored.
        progress: show a tqdm progress bar named ``desc``.

    The model is in training mode during the loop and in eval mode afterwards. The loop
    reads no value back from the device during a step unless ``stop_below``, ``callback``
    or the progress bar (every 10 steps) asks for it.
    """
    _check_fit_args(model, batches, loss_fn, steps, lr, autocast, stop_below, stop_window)
    schedule = lr if callable(lr) else (lambda step, rate=float(lr): rate)
    device = next(model.parameters()).device
    opt = make_optimizer(model.parameters(), optimizer, betas, eps, weight_decay, momentum)
    scaler = torch.amp.GradScaler(device.type) if autocast == torch.float16 else None
    history = History()
    losses: list[Tensor] = []
    extras: dict[str, list[Tensor]] = {}
    iterator = iter(batches)
    # the notebook bar of tqdm.auto ignores TQDM_DISABLE, which the book's build sets: read it here
    quiet = os.environ.get("TQDM_DISABLE", "").lower() not in ("", "0", "false")
    bar = tqdm(total=steps, desc=desc, disable=not progress or quiet, mininterval=0.5)
    model.train()
    start = time.perf_counter()
    with flush_denormals(), contextlib.closing(bar):
        for step in range(1, steps + 1):
            try:
                batch = _to_device(next(iterator), device)
            except StopIteration:
                raise ValueError(
                    f"batches ran out after {step - 1} of steps={steps} steps"
                ) from None
            rate = float(schedule(step))
            for group in opt.param_groups:
                group["lr"] = rate
            with torch.autocast(device.type, dtype=autocast, enabled=autocast is not None):
                loss, extra = _split_loss(loss_fn(model, batch))
            opt.zero_grad(set_to_none=True)
            if scaler is None:
                loss.backward()
                opt.step()
            else:  # loss × scale, unscale the gradients, skip the step if any is inf/NaN
                scaler.scale(loss).backward()
                scaler.step(opt)
                scaler.update()
            losses.append(loss.detach())
            for name, value in extra.items():
                extras.setdefault(name, []).append(torch.as_tensor(value).detach())
            history.lr.append(rate)
            history.seconds.append(time.perf_counter() - start)
            bar.update()
            if progress and (step % 10 == 0 or step == steps):
                bar.set_postfix(loss=f"{losses[-1].item():.4f}", refresh=False)
            if callback is not None:
                callback(step, losses[-1])
            if stop_below is not None and step >= stop_window:
                recent = torch.stack(losses[-stop_window:]).float().mean()  # (,)
                if recent < stop_below:
                    history.stopped_early = step < steps
                    break
    history.loss = torch.stack(losses).float().tolist()  # one read-back for the whole run
    history.seconds[-1] = time.perf_counter() - start
    history.metrics = {k: torch.stack(v).float().tolist() for k, v in extras.items()}
    model.eval()
    return history


# ---------------------------------------------------------------- memory of a training step


def saved_tensor_bytes(
    model: nn.Module, src: Tensor, tgt: Tensor, autocast: torch.dtype | None = None
) -> dict[torch.dtype, int]:
    """Bytes of the tensors one training forward pass keeps for the backward pass, per dtype.

    Counted with ``torch.autograd.graph.saved_tensors_hooks``, each storage once and the
    parameters themselves left out (saving them costs nothing), so it works the same on
    every device: the activation memory, plus any low-precision weight copies autocast makes.
    """
    if autocast not in (None, torch.bfloat16, torch.float16):
        raise ValueError(f"autocast must be None, torch.bfloat16 or torch.float16, got {autocast}")
    device = next(model.parameters()).device
    check_tensor("src", src, 2, "long", "(B, S)")
    check_tensor("tgt", tgt, 2, "long", "(B, T)")
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
    model: nn.Module, src: Tensor, tgt: Tensor, autocast: torch.dtype | None = None
) -> int:
    """Total of :func:`saved_tensor_bytes`: the activation memory of one training step."""
    return sum(saved_tensor_bytes(model, src, tgt, autocast).values())
