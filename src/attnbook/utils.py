"""Seeding and device choice, explicit and local: nothing here runs at import."""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import torch


def set_seed(seed: int) -> None:
    """Seed Python's, NumPy's and PyTorch's generators (CPU and CUDA) with ``seed``."""
    if not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative int, got {seed!r}")
    random.seed(seed)
    np.random.seed(seed)  # noqa: NPY002 (the global generator readers may use)
    torch.manual_seed(seed)  # also seeds every CUDA device


def default_device() -> torch.device:
    """CUDA when present, then Apple's MPS, else the CPU."""
    if torch.cuda.is_available():
        return torch.device("cuda")
    if torch.backends.mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")


@contextmanager
def flush_denormals() -> Iterator[None]:
    """Treat denormal floats as zero on the CPU inside the block, then restore the default.

    Once a model fits its data, saturated softmaxes produce denormal numbers (below
    ~1e-38), which the CPU computes with slowly: training the date model ran 2.7×
    slower without this. Results agree to rounding.
    """
    changed = torch.set_flush_denormal(True)  # False where the CPU does not support it
    try:
        yield
    finally:
        if changed:
            torch.set_flush_denormal(False)
