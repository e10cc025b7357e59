"""Timing and peak memory of a call, on PyTorch's public APIs only.

The chapters compare layers and attention variants by what they cost: wall time
(:func:`time_call`, :func:`time_forward_backward`) and the memory a call allocates at
its peak (:func:`peak_memory`). CUDA work is synchronised before every reading.
:func:`cpu_cache_sizes` says how large the CPU's caches are, to tell where a tensor
stops fitting in them.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import torch
from torch import Tensor

from attnbook.checks import check_int, check_tensor


def _cuda_in(args: tuple) -> bool:
    return any(isinstance(a, Tensor) and a.is_cuda for a in args)


def _sync(cuda: bool) -> None:
    if cuda:
        torch.cuda.synchronize()


def time_call(
    fn: Callable[..., object], *args, repeats: int = 3, warmup: int = 1, grad: bool = False
) -> float:
    """Wall time in seconds of ``fn(*args)``: the fastest of ``repeats`` runs.

    The minimum, as :mod:`timeit` recommends (slower runs were slowed by something
    else on the machine), after ``warmup`` untimed runs. The call runs under
    ``torch.no_grad()`` unless ``grad``.
    """
    if not callable(fn):
        raise TypeError(f"fn must be callable, got {fn!r}")
    check_int("repeats", repeats)
    check_int("warmup", warmup, minimum=0)
    cuda = _cuda_in(args)

    def once() -> float:
        _sync(cuda)
        start = time.perf_counter()
        with torch.set_grad_enabled(grad):
            fn(*args)
        _sync(cuda)
        return time.perf_counter() - start

    for _ in range(warmup):
        once()
    return min(once() for _ in range(repeats))


def time_forward_backward(
    f: Callable[[Tensor], Tensor], x: Tensor, repeats: int = 3, warmup: int = 1
) -> float:
    """Wall time in seconds of ``f(x).sum().backward()``: the fastest of ``repeats`` runs
    (see :func:`time_call`). ``x`` is the input that gradients flow back to."""
    if not callable(f):
        raise TypeError(f"f must be callable, got {f!r}")
    check_tensor("x", x, kind="float")

    def forward_backward(x: Tensor) -> None:
        f(x.detach().requires_grad_(True)).sum().backward()

    return time_call(forward_backward, x, repeats=repeats, warmup=warmup, grad=True)


@contextlib.contextmanager
def _quiet_stderr() -> Iterator[None]:
    """Silence file descriptor 2 (the profiler's C++ start/stop lines) and restore it."""
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 2)
            yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def _memory_changes(event) -> list[tuple[float, int]]:
    """(time, bytes) of the allocations (+) and frees (−) under one profiler event.

    An operator with sub-operators is resolved into them (in time order), plus what it
    allocated itself at its end; a leaf operator counts as its net change at its end.
    """
    if event.name == "[memory]" or not event.cpu_children:
        return [(event.time_range.end, event.cpu_memory_usage)]
    changes = [c for child in event.cpu_children for c in _memory_changes(child)]
    own = event.cpu_memory_usage - sum(size for _, size in changes)
    return [*changes, (event.time_range.end, own)]


def peak_memory(fn: Callable[..., object], *args) -> int:
    """Peak bytes allocated while ``fn(*args)`` runs (under ``torch.no_grad()``), above what
    was allocated before: every tensor the call allocates, including temporaries freed
    before it returns, and its output (inputs already allocated are not counted).

    On CUDA: ``torch.cuda.max_memory_allocated``. On the CPU: the allocations and frees
    :class:`torch.profiler.profile` records with ``profile_memory=True``, summed in time
    order; the largest running total is the peak. (There, what one operator allocates
    and frees before it returns is seen only as its net change.)
    """
    if not callable(fn):
        raise TypeError(f"fn must be callable, got {fn!r}")
    if _cuda_in(args):
        torch.cuda.synchronize()
        before = torch.cuda.memory_allocated()
        torch.cuda.reset_peak_memory_stats()
        with torch.no_grad():
            fn(*args)
        torch.cuda.synchronize()
        return torch.cuda.max_memory_allocated() - before

    from torch.profiler import ProfilerActivity, profile

    with _quiet_stderr(), profile(activities=[ProfilerActivity.CPU], profile_memory=True) as p:
        with torch.no_grad():
            fn(*args)
    top_level = [e for e in p.events() if e.cpu_parent is None]
    changes = sorted(c for e in top_level for c in _memory_changes(e))
    total = peak = 0
    for _, size in changes:
        total += size
        peak = max(peak, total)
    return peak


def cpu_cache_sizes(root: str | Path = "/sys/devices/system/cpu/cpu0/cache") -> dict[str, int]:
    """Sizes in bytes of the data caches one CPU core sees, by level: ``{"L1": …, "L2": …}``.

    Read from Linux's description of CPU 0 (``root``); instruction caches are left out. A
    level shared by several cores (often L3) is reported at its full size. Returns ``{}``
    where the system does not describe its caches (macOS, Windows, some containers).
    """
    units = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30}
    sizes: dict[str, int] = {}
    for index in sorted(Path(root).glob("index[0-9]*")):
        try:
            kind = (index / "type").read_text().strip()
            level = int((index / "level").read_text())
            size = (index / "size").read_text().strip().upper()
        except (OSError, ValueError):
            continue
        number, unit = size.rstrip("KMG"), size[len(size.rstrip("KMG")) :]
        if kind == "Instruction" or not number.isdigit():
            continue
        sizes[f"L{level}"] = int(number) * units[unit]
    return dict(sorted(sizes.items()))
