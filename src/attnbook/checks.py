"""Input checks shared by the package.

Every public function checks its arguments before any tensor work starts, so a mistake
is reported in the caller's own terms: a ``TypeError`` when an argument has the wrong
kind (a list where a tensor is expected, a float or a bool where an int is), a
``ValueError`` when it has the right kind but a bad value or shape. Each message names
the argument and shows what it got.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch
from torch import Tensor

__all__ = [
    "check_float",
    "check_generator",
    "check_ids",
    "check_int",
    "check_mask",
    "check_qkv",
    "check_tensor",
    "check_texts",
    "describe",
]


def describe(x: object) -> str:
    """A short description of ``x`` for an error message: a tensor's shape and dtype, a
    sequence's type and length, or the value itself."""
    if isinstance(x, Tensor):
        return f"a tensor of shape {tuple(x.shape)} and dtype {str(x.dtype)[6:]}"
    if isinstance(x, (list, tuple)):
        return f"a {type(x).__name__} of {len(x)} items"
    text = repr(x)
    return f"{text[:60]}…" if len(text) > 60 else f"{text} ({type(x).__name__})"


def check_int(name: str, value: object, minimum: int | None = 1) -> int:
    """``value`` as an int >= ``minimum``. Floats (even 2.0) and bools are TypeErrors."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, got {describe(value)}")
    if minimum is not None and value < minimum:
        words = {1: "a positive int", 0: "a non-negative int"}.get(minimum, f"an int >= {minimum}")
        raise ValueError(f"{name} must be {words}, got {value}")
    return value


def check_float(
    name: str,
    value: object,
    low: float | None = None,
    high: float | None = None,
    *,
    low_open: bool = False,
    high_open: bool = False,
) -> float:
    """``value`` as a finite float in the interval [low, high] (ends open when asked)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be a number, got {describe(value)}")
    value = float(value)
    too_low = low is not None and (value <= low if low_open else value < low)
    too_high = high is not None and (value >= high if high_open else value > high)
    if not math.isfinite(value) or too_low or too_high:
        if low == 0 and high is None:
            words = "a positive number" if low_open else "a non-negative number"
        else:
            left = "(" if low_open else "["
            right = ")" if high_open else "]"
            lo, hi = ("-∞" if low is None else low), ("∞" if high is None else high)
            words = f"a number in {left}{lo}, {hi}{right}"
        raise ValueError(f"{name} must be {words}, got {value}")
    return value


_DTYPE_KINDS = {
    "float": (lambda t: t.is_floating_point(), "a floating-point"),
    "long": (lambda t: t.dtype == torch.long, "a long (int64)"),
    "bool": (lambda t: t.dtype == torch.bool, "a bool"),
}


def check_tensor(
    name: str,
    x: object,
    dim: int | tuple[int, ...] | None = None,
    kind: str | None = None,
    hint: str = "",
) -> Tensor:
    """``x`` as a tensor with ``dim`` dimensions (one of them, for a tuple) and dtype
    ``kind`` (``"float"``, ``"long"`` or ``"bool"``); ``hint`` names the expected shape."""
    shape = f" of shape {hint}" if hint else ""
    if not isinstance(x, Tensor):
        fix = " (wrap it with torch.tensor(...))" if isinstance(x, (list, tuple)) else ""
        raise TypeError(f"{name} must be a torch.Tensor{shape}, got {describe(x)}{fix}")
    if dim is not None:
        dims = (dim,) if isinstance(dim, int) else dim
        if x.dim() not in dims:
            wanted = " or ".join(str(d) for d in dims)
            raise ValueError(
                f"{name} must have {wanted} dimensions{shape}, got shape {tuple(x.shape)}"
            )
    if kind is not None:
        ok, words = _DTYPE_KINDS[kind]
        if not ok(x):
            raise TypeError(f"{name} must be {words} tensor, got dtype {str(x.dtype)[6:]}")
    return x


def check_ids(name: str, ids: object, vocab: int, dim: int = 2) -> Tensor:
    """``ids`` as a long tensor of ``dim`` dimensions whose every id lies in [0, vocab)."""
    hint = "(B, T)" if dim == 2 else ""
    ids = check_tensor(name, ids, dim, "long", hint)
    if ids.numel():
        low, high = (int(v) for v in torch.aminmax(ids))
        if low < 0 or high >= vocab:
            raise ValueError(
                f"{name} holds ids in [{low}, {high}], outside the vocabulary [0, {vocab})"
            )
    return ids


def check_generator(name: str, generator: object) -> torch.Generator | None:
    """``None`` or a ``torch.Generator`` (a seed is a TypeError with the fix)."""
    if generator is not None and not isinstance(generator, torch.Generator):
        raise TypeError(
            f"{name} must be a torch.Generator or None, got {describe(generator)}; "
            "for a seed s pass torch.Generator().manual_seed(s)"
        )
    return generator


def check_texts(name: str, texts: object) -> list[str]:
    """``texts`` as a list of strings; a single string is a TypeError (it is a sequence
    of characters, and would be read as one input per character)."""
    if isinstance(texts, str):
        raise TypeError(
            f"{name} must be a list of strings, got a single string {texts!r}: pass [{texts!r}]"
        )
    if not isinstance(texts, Sequence):
        raise TypeError(f"{name} must be a list of strings, got {describe(texts)}")
    for i, text in enumerate(texts):
        if not isinstance(text, str):
            raise TypeError(f"{name}[{i}] must be a string, got {describe(text)}")
    return list(texts)


def check_qkv(q: object, k: object, v: object) -> None:
    """Queries ``(..., T_q, d_k)``, keys ``(..., T_k, d_k)`` and values ``(..., T_k, d_v)``:
    tensors of one floating dtype and device, with matching leading dimensions."""
    for name, t in (("query", q), ("key", k), ("value", v)):
        check_tensor(name, t, hint="(..., T, d)")
        if t.dim() < 2:
            raise ValueError(
                f"{name} must have shape (..., T, d) with at least 2 dimensions, "
                f"got {tuple(t.shape)}"
            )
        if not t.is_floating_point():
            raise TypeError(f"{name} must be a floating-point tensor, got {t.dtype}")
        if t.size(-1) == 0:
            raise ValueError(f"{name} has an empty feature dimension: shape {tuple(t.shape)}")
    if not q.dtype == k.dtype == v.dtype:
        raise TypeError(
            f"query, key and value must share one dtype, got {q.dtype}, {k.dtype}, {v.dtype}"
        )
    if not q.device == k.device == v.device:
        raise ValueError(
            f"query, key and value must be on one device, got {q.device}, {k.device}, {v.device}"
        )
    if q.size(-1) != k.size(-1):
        raise ValueError(
            f"query and key must share d_k (their last dimension): "
            f"query {tuple(q.shape)} vs key {tuple(k.shape)}"
        )
    if k.size(-2) != v.size(-2):
        raise ValueError(
            f"key and value must have the same length T_k: "
            f"key {tuple(k.shape)} vs value {tuple(v.shape)}"
        )
    if q.shape[:-2] != k.shape[:-2] or k.shape[:-2] != v.shape[:-2]:
        raise ValueError(
            f"query, key and value must have the same leading (batch, head) dimensions: "
            f"query {tuple(q.shape)}, key {tuple(k.shape)}, value {tuple(v.shape)}"
        )
    if q.size(-2) == 0 or k.size(-2) == 0:
        raise ValueError(
            f"empty sequence: query {tuple(q.shape)}, key {tuple(k.shape)} "
            "(T_q and T_k must be at least 1)"
        )


def check_mask(mask: object, scores_shape: Sequence[int], name: str = "mask") -> Tensor:
    """A bool mask (True = may attend) that broadcasts to ``scores_shape`` ``(…, T_q, T_k)``."""
    if not isinstance(mask, Tensor):
        raise TypeError(f"{name} must be a bool torch.Tensor, got {describe(mask)}")
    if mask.dtype != torch.bool:
        raise TypeError(
            f"{name} must be a bool tensor (True = may attend), got {mask.dtype}; "
            "turn a 0/1 mask into one with mask.bool()"
        )
    # broadcasting to exactly scores_shape: aligned from the last dimension, each of the
    # mask's dimensions is 1 or the scores' own, and the mask has no extra leading ones
    # (the rule of torch.broadcast_shapes, checked here without its cost on every call)
    fits = mask.dim() <= len(scores_shape) and all(
        m in (1, s) for m, s in zip(reversed(mask.shape), reversed(scores_shape))
    )
    if not fits:
        raise ValueError(
            f"{name} of shape {tuple(mask.shape)} does not broadcast to the attention "
            f"scores' shape {tuple(scores_shape)} (…, T_q, T_k)"
        )
    return mask
